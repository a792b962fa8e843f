/* SPDX-License-Identifier: MIT */
/* Frames to ffmpeg through a pipe (video.h). Raw RGBA alone carries no time, so each frame
 * goes in a Matroska cluster of its own: EBML elements (an ID, a size, the payload) with the
 * frame's time in milliseconds. ffmpeg's -r puts it back on the grid of fps slots a second
 * (a slot is at least 4 ms wide, so the rounding to milliseconds never moves a frame to
 * another slot) and -fps_mode vfr keeps each frame once, held until the next. */
#include "render/video.h"

#include <ctype.h>
#include <errno.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "atomic_file.h"

extern char **environ;

int render_video_ffmpeg_found(void) {
    const char *path = getenv("PATH");
    if (!path) return 0;
    char dir[4096];
    for (const char *at = path; *at;) {
        size_t len = strcspn(at, ":");
        snprintf(dir, sizeof dir, "%.*s/ffmpeg", (int)len, len ? at : ".");
        if (access(dir, X_OK) == 0) return 1;
        at += len + (at[len] == ':');
    }
    return 0;
}

/* The length of target's scheme ("udp" of udp://...), 0 if it has none. */
static size_t scheme_len(const char *target) {
    size_t n = 0;
    while (isalpha((unsigned char)target[n])) n++;
    return n > 1 && !strncmp(target + n, "://", 3) ? n : 0;
}

render_video_kind render_video_kind_of(const char *target) {
    if (scheme_len(target)) return RENDER_VIDEO_NETWORK;
    if (!strncmp(target, "/dev/video", 10)) return RENDER_VIDEO_V4L2;
    return RENDER_VIDEO_FILE;
}

int render_video_named(const char *target) {
    if (render_video_kind_of(target) != RENDER_VIDEO_FILE) return 1;
    const char *dot = strrchr(target, '.');
    if (!dot || strchr(target, '%') || strchr(dot, '/')) return 0;
    static const char *const ext[] = {".mp4", ".mkv", ".webm", ".mov", ".avi"};
    for (size_t i = 0; i < sizeof ext / sizeof *ext; i++)
        if (!strcasecmp(dot, ext[i])) return 1;
    return 0;
}

/* Whether this ffmpeg writes to the protocol named by the scheme (`ffmpeg -protocols`
 * lists the input ones, then after "Output:" the output ones). */
static int ffmpeg_outputs_to(const char *scheme, size_t len) {
    FILE *p = popen("ffmpeg -hide_banner -protocols 2>/dev/null", "r");
    if (!p) return 0;
    char line[256];
    int output = 0, found = 0;
    while (fgets(line, sizeof line, p)) {
        char name[64];
        if (strstr(line, "Output:")) output = 1;
        if (output && sscanf(line, " %63s", name) == 1 && strlen(name) == len &&
            !strncmp(name, scheme, len))
            found = 1;
    }
    pclose(p);
    return found;
}

boids_status render_video_check(const char *flag, const char *target, boids_error *err) {
    if (!render_video_ffmpeg_found())
        return boids_error_set(err, BOIDS_ERR_INPUT,
                               "%s %s: ffmpeg is not on PATH (Debian: apt install ffmpeg)", flag,
                               target);
    struct stat st;
    switch (render_video_kind_of(target)) {
    case RENDER_VIDEO_NETWORK:
        if (!ffmpeg_outputs_to(target, scheme_len(target)))
            return boids_error_set(err, BOIDS_ERR_INPUT,
                                   "%s %s: this ffmpeg has no output protocol '%.*s' (ffmpeg "
                                   "-protocols lists them)",
                                   flag, target, (int)scheme_len(target), target);
        return BOIDS_OK;
    case RENDER_VIDEO_V4L2:
        if (stat(target, &st) || !S_ISCHR(st.st_mode) || access(target, W_OK))
            return boids_error_set(err, BOIDS_ERR_INPUT,
                                   "%s %s: no writable video device there (a v4l2loopback "
                                   "device: modprobe v4l2loopback; docs/viewer.md)",
                                   flag, target);
        return BOIDS_OK;
    case RENDER_VIDEO_FILE:
        break;
    }
    return boids_atomic_check_writable(target, err);
}

/* ---- the Matroska stream ------------------------------------------------------------------ */

enum {
    MKV_EBML = 0x1A45DFA3,
    MKV_DOCTYPE = 0x4282,
    MKV_INFO = 0x1549A966,
    MKV_TIMESCALE = 0x2AD7B1,
    MKV_TRACKS = 0x1654AE6B,
    MKV_TRACK = 0xAE,
    MKV_TRACK_NUMBER = 0xD7,
    MKV_TRACK_UID = 0x73C5,
    MKV_TRACK_TYPE = 0x83,
    MKV_CODEC = 0x86,
    MKV_VIDEO = 0xE0,
    MKV_WIDTH = 0xB0,
    MKV_HEIGHT = 0xBA,
    MKV_COLOUR_SPACE = 0x2EB524,
    MKV_CLUSTER = 0x1F43B675,
    MKV_TIMECODE = 0xE7,
    MKV_SIMPLE_BLOCK = 0xA3
};

/* An element's ID and an 8-byte size (the 0x01 marker, then 7 bytes) into b; its length. */
static size_t mkv_head(unsigned char *b, uint32_t id, uint64_t size) {
    size_t n = 0;
    for (int s = 24; s >= 0; s -= 8)
        if (id >> s || n) b[n++] = (unsigned char)(id >> s);
    b[n++] = 0x01;
    for (int s = 48; s >= 0; s -= 8) b[n++] = (unsigned char)(size >> s);
    return n;
}

/* An element holding an unsigned integer (8 bytes, big-endian). */
static size_t mkv_uint(unsigned char *b, uint32_t id, uint64_t v) {
    size_t n = mkv_head(b, id, 8);
    for (int s = 56; s >= 0; s -= 8) b[n++] = (unsigned char)(v >> s);
    return n;
}

/* An element holding len bytes of payload. */
static size_t mkv_elem(unsigned char *b, uint32_t id, const void *payload, size_t len) {
    size_t n = mkv_head(b, id, len);
    memcpy(b + n, payload, len);
    return n + len;
}

static int write_all(int fd, const void *data, size_t len) {
    const unsigned char *p = data;
    while (len) {
        ssize_t put = write(fd, p, len);
        if (put < 0 && errno == EINTR) continue;
        if (put <= 0) return -1;
        p += put;
        len -= (size_t)put;
    }
    return 0;
}

/* The stream's start: the EBML header, a segment of unknown size (it is written as it
 * goes), times in milliseconds, one track of w x h raw RGBA. */
static int mkv_start(int fd, int w, int h) {
    unsigned char video[96], track[256], tracks[320], info[32], b[512];
    size_t nv = mkv_uint(video, MKV_WIDTH, (uint64_t)w);
    nv += mkv_uint(video + nv, MKV_HEIGHT, (uint64_t)h);
    nv += mkv_elem(video + nv, MKV_COLOUR_SPACE, "RGBA", 4);
    size_t nt = mkv_uint(track, MKV_TRACK_NUMBER, 1);
    nt += mkv_uint(track + nt, MKV_TRACK_UID, 1);
    nt += mkv_uint(track + nt, MKV_TRACK_TYPE, 1); /* video */
    nt += mkv_elem(track + nt, MKV_CODEC, "V_UNCOMPRESSED", 14);
    nt += mkv_elem(track + nt, MKV_VIDEO, video, nv);
    size_t ns = mkv_elem(tracks, MKV_TRACK, track, nt);
    size_t ni = mkv_uint(info, MKV_TIMESCALE, 1000000); /* nanoseconds a tick: milliseconds */
    unsigned char doctype[32];
    size_t nd = mkv_elem(doctype, MKV_DOCTYPE, "matroska", 8);
    size_t n = mkv_elem(b, MKV_EBML, doctype, nd);
    /* the segment's size unknown (all ones): it is written as it goes */
    static const unsigned char segment[] = {0x18, 0x53, 0x80, 0x67, 0x01, 0xff,
                                            0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
    memcpy(b + n, segment, sizeof segment);
    n += sizeof segment;
    n += mkv_elem(b + n, MKV_INFO, info, ni);
    n += mkv_elem(b + n, MKV_TRACKS, tracks, ns);
    return write_all(fd, b, n);
}

/* One frame: a cluster at ms milliseconds holding one key block of the pixels. */
static int mkv_frame(int fd, uint64_t ms, const unsigned char *rgba, size_t bytes) {
    unsigned char b[96], tc[24];
    size_t ntc = mkv_uint(tc, MKV_TIMECODE, ms);
    unsigned char blk[16];
    size_t nblk = mkv_head(blk, MKV_SIMPLE_BLOCK, 4 + bytes);
    /* track 1 (a 1-byte number), time 0 relative to the cluster, a key frame */
    blk[nblk++] = 0x81, blk[nblk++] = 0, blk[nblk++] = 0, blk[nblk++] = 0x80;
    size_t n = mkv_head(b, MKV_CLUSTER, ntc + nblk + bytes);
    memcpy(b + n, tc, ntc);
    n += ntc;
    memcpy(b + n, blk, nblk);
    n += nblk;
    return write_all(fd, b, n) || write_all(fd, rgba, bytes) ? -1 : 0;
}

/* ---- ffmpeg ------------------------------------------------------------------------------- */

/* PATH with ".tmp-PID" before its extension (ffmpeg reads the format from the extension). */
static void temp_name(const char *path, char *out, size_t size) {
    const char *slash = strrchr(path, '/'), *dot = strrchr(path, '.');
    if (!dot || (slash && dot < slash) || dot == (slash ? slash + 1 : path))
        dot = path + strlen(path);
    snprintf(out, size, "%.*s.tmp-%ld%s", (int)(dot - path), path, (long)getpid(), dot);
}

/* ffmpeg's arguments for v into argv (at most 40). */
static void ffmpeg_args(const render_video *v, char rate[16], const char **argv) {
    int n = 0;
    snprintf(rate, 16, "%d", v->fps);
    const char *head[] = {"ffmpeg", "-hide_banner", "-loglevel", "error", "-nostdin", "-f",
                          "matroska", "-i", "-",
                          /* even sides for yuv420p: an odd column or row is cropped off */
                          "-vf", "crop=trunc(iw/2)*2:trunc(ih/2)*2", "-fps_mode", "vfr", "-r", rate,
                          "-pix_fmt", "yuv420p"};
    for (size_t i = 0; i < sizeof head / sizeof *head; i++) argv[n++] = head[i];
    switch (v->kind) {
    case RENDER_VIDEO_FILE:
        /* B-frames on a variable-rate grid make the MP4 muxer write a wrong track duration */
        argv[n++] = "-bf", argv[n++] = "0", argv[n++] = "-y", argv[n++] = v->temp;
        break;
    case RENDER_VIDEO_NETWORK: {
        const char *tail[] = {"-c:v",        "libx264", "-preset", "veryfast", "-tune",
                              "zerolatency", "-bf",     "0",       "-g",       rate,
                              "-f",          "mpegts",  v->target};
        for (size_t i = 0; i < sizeof tail / sizeof *tail; i++) argv[n++] = tail[i];
        break;
    }
    case RENDER_VIDEO_V4L2:
        argv[n++] = "-f", argv[n++] = "v4l2", argv[n++] = v->target;
        break;
    }
    argv[n] = NULL;
}

boids_status render_video_open(render_video *v, const char *target, int w, int h, int fps,
                               int every_frame, boids_error *err) {
    memset(v, 0, sizeof *v);
    v->fd = -1;
    v->slot = -1;
    v->w = w, v->h = h, v->fps = fps, v->every_frame = every_frame;
    v->kind = render_video_kind_of(target);
    snprintf(v->target, sizeof v->target, "%s", target);
    if (v->kind == RENDER_VIDEO_FILE) temp_name(target, v->temp, sizeof v->temp);
    char rate[16];
    const char *argv[48];
    ffmpeg_args(v, rate, argv);
    int fds[2];
    if (pipe(fds))
        return boids_error_set(err, BOIDS_ERR_RUNTIME, "%s: pipe: %s", target, strerror(errno));
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fds[0], 0);
    posix_spawn_file_actions_addclose(&fa, fds[1]);
    posix_spawn_file_actions_addclose(&fa, fds[0]);
    pid_t pid;
    int rc = posix_spawnp(&pid, "ffmpeg", &fa, NULL, (char *const *)argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(fds[0]);
    if (rc) {
        close(fds[1]);
        return boids_error_set(err, BOIDS_ERR_RUNTIME, "%s: cannot start ffmpeg: %s", target,
                               strerror(rc));
    }
    /* ffmpeg gone: a write error to say, not a silent death. */
    signal(SIGPIPE, SIG_IGN);
    v->fd = fds[1];
    v->pid = pid;
    if (mkv_start(v->fd, w, h)) {
        int e = errno;
        render_video_abort(v);
        return boids_error_set(err, BOIDS_ERR_RUNTIME, "%s: ffmpeg: %s", target, strerror(e));
    }
    return BOIDS_OK;
}

/* The slot a frame at now_ns takes. */
static int64_t slot_at(const render_video *v, uint64_t now_ns) {
    if (v->every_frame || v->slot < 0) return v->slot + 1;
    return (int64_t)((now_ns - v->t0_ns) * (uint64_t)v->fps / 1000000000u);
}

int render_video_due(const render_video *v, uint64_t now_ns) {
    return v->pid > 0 && slot_at(v, now_ns) > v->slot;
}

/* Writes the frame into slot s. */
static boids_status put_slot(render_video *v, const unsigned char *rgba, int64_t s,
                             boids_error *err) {
    uint64_t ms = ((uint64_t)s * 1000 + (uint64_t)v->fps / 2) / (uint64_t)v->fps;
    if (mkv_frame(v->fd, ms, rgba, (size_t)v->w * (size_t)v->h * 4)) {
        int e = errno;
        render_video_abort(v);
        return boids_error_set(err, BOIDS_ERR_RUNTIME, "%s: ffmpeg stopped reading (%s)", v->target,
                               strerror(e));
    }
    v->slot = s;
    v->frames++;
    return BOIDS_OK;
}

boids_status render_video_put(render_video *v, const unsigned char *rgba, uint64_t now_ns,
                              boids_error *err) {
    if (v->pid <= 0) return BOIDS_OK;
    v->offered++;
    if (v->slot < 0) v->t0_ns = now_ns;
    if (!render_video_due(v, now_ns)) return BOIDS_OK;
    if (!rgba)
        return boids_error_set(err, BOIDS_ERR_RUNTIME, "%s: a frame due with no pixels", v->target);
    return put_slot(v, rgba, slot_at(v, now_ns), err);
}

/* Waits for ffmpeg; 1 if it finished its output. */
static int reap(render_video *v) {
    int status = 0;
    pid_t got;
    while ((got = waitpid(v->pid, &status, 0)) < 0 && errno == EINTR) {
    }
    v->pid = 0;
    return got > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

boids_status render_video_close(render_video *v, const unsigned char *rgba, uint64_t now_ns,
                                char *line, size_t size, boids_error *err) {
    if (v->pid <= 0) return BOIDS_OK;
    /* Real time: the picture lasts until now, the last slot's frame shown for one slot. */
    if (!v->every_frame && rgba && v->slot >= 0) {
        int64_t s = slot_at(v, now_ns);
        if (s > v->slot + 1 && put_slot(v, rgba, s - 1, err)) return err->status;
    }
    double wall = v->slot >= 0 ? (double)(now_ns - v->t0_ns) * 1e-9 : 0;
    double film = (double)(v->slot + 1) / v->fps;
    close(v->fd);
    v->fd = -1;
    int ok = reap(v) && v->frames > 0;
    if (ok && (v->kind != RENDER_VIDEO_FILE || rename(v->temp, v->target) == 0)) {
        if (line && v->every_frame && wall > 0)
            snprintf(line, size,
                     "%lu frames, drawn in %.2f s, to %s at %d a second: %.2f s of video, "
                     "%.2f times as fast as life",
                     v->frames, wall, v->target, v->fps, film, film / wall);
        else if (line && v->every_frame) /* no clock: a film's frames (boids render) */
            snprintf(line, size, "%lu frames to %s at %d a second: %.2f s of video", v->frames,
                     v->target, v->fps, film);
        else if (line)
            snprintf(line, size,
                     "%lu frames of %lu drawn to %s, %.2f s in real time (%d frames a second, "
                     "each held until the next)",
                     v->frames, v->offered, v->target, film, v->fps);
        return BOIDS_OK;
    }
    int e = errno;
    if (v->kind == RENDER_VIDEO_FILE) unlink(v->temp);
    if (ok) return boids_error_set(err, BOIDS_ERR_RUNTIME, "%s: %s", v->target, strerror(e));
    return boids_error_set(err, BOIDS_ERR_RUNTIME,
                           "%s: ffmpeg failed after %lu frames (its message is above)", v->target,
                           v->frames);
}

void render_video_abort(render_video *v) {
    if (v->pid <= 0) return;
    close(v->fd);
    v->fd = -1;
    kill(v->pid, SIGTERM);
    reap(v);
    if (v->kind == RENDER_VIDEO_FILE) unlink(v->temp);
}
