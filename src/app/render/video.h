/* SPDX-License-Identifier: MIT */
/* Frames to ffmpeg: a video file, or a live stream where mixing software takes it (a
 * network URL such as udp:// or srt://, or a v4l2loopback device /dev/videoN). The viewer's
 * --record, --stream and F9 and `boids render -o FILE.mp4` all go through here.
 *
 * Each frame goes down a pipe into ffmpeg once, with its time, in a Matroska stream of raw
 * RGBA (video.c writes it: a few EBML elements a frame), and ffmpeg writes each frame once
 * with that time (a variable frame rate on a fixed grid): a frame is held on screen until
 * the next, and no copy is encoded twice. The time is a slot of the grid of `fps` slots a
 * second:
 *   real time    the slot of the wall clock at the frame (since the first frame): a frame
 *                whose slot is already taken is dropped, a slot with no frame holds the
 *                one before, so the file lasts as long as the recording did, whatever the
 *                rate the frames were drawn at;
 *   every frame  the next slot, one per frame: the video plays (frames drawn a second) /
 *                fps times as fast as life; render_video_close says the factor.
 * A file is written beside its name and renamed into place when ffmpeg has finished it:
 * a recording that fails leaves nothing under that name. */
#ifndef BOIDS_APP_RENDER_VIDEO_H
#define BOIDS_APP_RENDER_VIDEO_H

#include <stddef.h>
#include <stdint.h>

#include "boids/error.h"

typedef enum render_video_kind {
    RENDER_VIDEO_FILE = 0, /* the extension picks the container and codec */
    RENDER_VIDEO_NETWORK,  /* scheme://...: H.264 in MPEG-TS, tuned for latency */
    RENDER_VIDEO_V4L2      /* /dev/video...: raw frames to a v4l2loopback device */
} render_video_kind;

typedef struct render_video {
    int pid, fd; /* pid 0: not open */
    int w, h, fps;
    int every_frame;
    render_video_kind kind;
    uint64_t t0_ns;        /* the first frame's time */
    int64_t slot;          /* the latest frame's slot; -1 before the first */
    unsigned long frames;  /* frames sent */
    unsigned long offered; /* frames offered (sent or dropped) */
    char target[4096];     /* the file or URL */
    char temp[4160];       /* a file's name while ffmpeg writes it */
} render_video;

/* Is there an executable ffmpeg on PATH? */
int render_video_ffmpeg_found(void);
/* Whether target names a video: a URL, a device, or a file whose extension is a video
 * container's (.mp4, .mkv, .webm, .mov, .avi) and which has no % (a frame pattern). */
int render_video_named(const char *target);
/* What target names: a network URL (letters, then "://"), a device under /dev/video, or
 * a file. */
render_video_kind render_video_kind_of(const char *target);
/* Checks target before anything is drawn: ffmpeg on PATH; a file writable (not a folder);
 * a URL's scheme one this ffmpeg has (udp, srt, rtp, tcp, ...); a device that exists. */
boids_status render_video_check(const char *flag, const char *target, boids_error *err);

/* Starts ffmpeg for w x h frames (odd sides are cropped even for yuv420p), fps slots a
 * second. */
boids_status render_video_open(render_video *v, const char *target, int w, int h, int fps,
                               int every_frame, boids_error *err);
/* Whether a frame at now_ns would take a slot (real time: not one already taken). */
int render_video_due(const render_video *v, uint64_t now_ns);
/* Sends the frame (w x h RGBA, top row first) at now_ns, or drops it if not due (rgba
 * may then be NULL: a frame drawn and not read back is counted as dropped). */
boids_status render_video_put(render_video *v, const unsigned char *rgba, uint64_t now_ns,
                              boids_error *err);
/* Real time: rgba (the latest frame, NULL: none) holds the picture until now_ns. Then
 * ffmpeg finishes and a file is renamed into place; line (may be NULL) gets what was
 * written: frames, seconds and, for every frame with a clock (the times given to
 * render_video_put; all 0: none, a film), how many times as fast as life the video plays. */
boids_status render_video_close(render_video *v, const unsigned char *rgba, uint64_t now_ns,
                                char *line, size_t size, boids_error *err);
/* Stops ffmpeg and removes its file. */
void render_video_abort(render_video *v);

#endif
