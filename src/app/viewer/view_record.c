/* SPDX-License-Identifier: MIT */
/* The frames as shown, read back once a frame when something needs them: the screenshots,
 * the recording (--record, F9) and the live stream (--stream), both through render/video.h
 * (ffmpeg: in real time by default, every frame with --record-every-frame). */
#include <stdio.h>
#include <unistd.h>

#include <glad/gl.h>

#include "viewer/view_internal.h"

const unsigned char *view_grab(view *v) {
    view_record *rec = &v->recording;
    if (!rec->grabbed) {
        glReadBuffer(GL_BACK);
        if (render_pixels_read(&rec->frame, v->window.fb_w, v->window.fb_h, &v->err)) return NULL;
        rec->grabbed = 1;
    }
    return rec->frame.px;
}

/* Opens out k (VIEW_VIDEO_RECORD, VIEW_VIDEO_STREAM) on target at the window's size. */
static boids_status video_open(view *v, int k, const char *target) {
    const view_opts *o = v->o;
    int every = k == VIEW_VIDEO_RECORD && o->every_frame;
    if (render_video_open(&v->recording.out[k], target, v->window.fb_w, v->window.fb_h,
                          o->video_fps, every, &v->err))
        return v->err.status;
    return BOIDS_OK;
}

boids_status view_record_start(view *v, const char *path) {
    view_record *rec = &v->recording;
    if (rec->out[VIEW_VIDEO_RECORD].pid > 0) return BOIDS_OK;
    if (!render_video_ffmpeg_found())
        return boids_error_set(&v->err, BOIDS_ERR_INPUT,
                               "recording needs ffmpeg on PATH (Debian: apt install ffmpeg)");
    char named[4096];
    if (!path && !view_new_file(v, ".mp4", named, sizeof named)) return v->err.status;
    rec->reserved = !path;
    boids_status st = video_open(v, VIEW_VIDEO_RECORD, path ? path : named);
    if (st && !path) unlink(named); /* the key's reserved name */
    return st;
}

boids_status view_stream_start(view *v) {
    return v->o->stream ? video_open(v, VIEW_VIDEO_STREAM, v->o->stream) : BOIDS_OK;
}

/* Closes out k; a key's reserved name goes if nothing was recorded into it. */
static boids_status video_close(view *v, int k) {
    view_record *rec = &v->recording;
    render_video *out = &rec->out[k];
    if (out->pid <= 0) return BOIDS_OK;
    char line[4400];
    const unsigned char *last =
        rec->frame.w == out->w && rec->frame.h == out->h ? rec->frame.px : NULL;
    boids_status st = render_video_close(out, last, view_now_ns(), line, sizeof line, &v->err);
    if (st && k == VIEW_VIDEO_RECORD && rec->reserved) unlink(out->target);
    if (!st) view_say(v, k == VIEW_VIDEO_RECORD ? "recorded %s" : "streamed %s", line);
    return st;
}

boids_status view_record_stop(view *v) {
    return video_close(v, VIEW_VIDEO_RECORD);
}

boids_status view_record_frame(view *v) {
    uint64_t now = view_now_ns();
    for (int k = 0; k < VIEW_VIDEOS; k++) {
        render_video *out = &v->recording.out[k];
        if (out->pid <= 0) continue;
        if (!render_video_due(out, now)) {
            render_video_put(out, NULL, now, &v->err); /* counted, not sent */
            continue;
        }
        if (v->window.fb_w != out->w || v->window.fb_h != out->h) {
            int w = out->w, h = out->h;
            video_close(v, k);
            return boids_error_set(&v->err, BOIDS_ERR_RUNTIME,
                                   "%s stopped: the window changed size (%dx%d to %dx%d)",
                                   k == VIEW_VIDEO_RECORD ? "recording" : "the stream", w, h,
                                   v->window.fb_w, v->window.fb_h);
        }
        /* said as the first frame goes in: the video's time starts at this frame */
        if (out->frames == 0)
            view_say(v, k == VIEW_VIDEO_RECORD ? "recording %s" : "streaming to %s", out->target);
        const unsigned char *px = view_grab(v);
        if (!px || render_video_put(out, px, now, &v->err)) return v->err.status;
    }
    return BOIDS_OK;
}

boids_status view_record_finish(view *v) {
    boids_status st = BOIDS_OK;
    for (int k = 0; k < VIEW_VIDEOS; k++) {
        boids_status s = video_close(v, k);
        if (!st) st = s;
    }
    return st;
}

void view_record_abort(view *v) {
    view_record *rec = &v->recording;
    for (int k = 0; k < VIEW_VIDEOS; k++) {
        int open = rec->out[k].pid > 0;
        render_video_abort(&rec->out[k]);
        if (open && k == VIEW_VIDEO_RECORD && rec->reserved) unlink(rec->out[k].target);
    }
    render_pixels_free(&rec->frame);
}
