/* SPDX-License-Identifier: MIT */
/* Recording the viewer's frames to a video: each frame, as drawn, is read back and piped as
 * raw RGBA into ffmpeg (the pipe `boids render -o -` feeds by hand), which encodes it into
 * a file beside its final name, renamed into place when ffmpeg has finished it; a recording
 * that fails leaves nothing under that name. ffmpeg picks the codec by the file's extension
 * (.mp4: H.264, .webm: VP9, .mkv, .mov ...). */
#include <errno.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <glad/gl.h>

#include "viewer/view_internal.h"

extern char **environ;

/* Is there an executable ffmpeg on PATH? */
int view_record_ffmpeg_found(void) {
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

/* PATH with ".tmp-PID" before its extension (ffmpeg reads the format from the extension). */
static void temp_name(const char *path, char *out, size_t size) {
    const char *slash = strrchr(path, '/'), *dot = strrchr(path, '.');
    if (!dot || (slash && dot < slash) || dot == (slash ? slash + 1 : path))
        dot = path + strlen(path);
    snprintf(out, size, "%.*s.tmp-%ld%s", (int)(dot - path), path, (long)getpid(), dot);
}

boids_status view_record_start(view *v, const char *path) {
    view_record *rec = &v->recording;
    if (rec->pid > 0) return BOIDS_OK;
    if (!view_record_ffmpeg_found())
        return boids_error_set(&v->err, BOIDS_ERR_INPUT,
                               "recording needs ffmpeg on PATH (Debian: apt install ffmpeg)");
    if (path) {
        snprintf(rec->path, sizeof rec->path, "%s", path);
    } else if (!view_new_file(v, ".mp4", rec->path, sizeof rec->path)) {
        return v->err.status;
    }
    temp_name(rec->path, rec->temp, sizeof rec->temp);
    rec->w = v->window.fb_w;
    rec->h = v->window.fb_h;
    rec->frames = 0;
    char size[32], rate[16];
    snprintf(size, sizeof size, "%dx%d", rec->w, rec->h);
    snprintf(rate, sizeof rate, "%d", VIEW_RECORD_FPS);
    /* Even sides for yuv420p: an odd column or row is cropped off. */
    char *argv[] = {"ffmpeg",
                    "-hide_banner",
                    "-loglevel",
                    "error",
                    "-y",
                    "-f",
                    "rawvideo",
                    "-pixel_format",
                    "rgba",
                    "-video_size",
                    size,
                    "-framerate",
                    rate,
                    "-i",
                    "-",
                    "-vf",
                    "crop=trunc(iw/2)*2:trunc(ih/2)*2",
                    "-pix_fmt",
                    "yuv420p",
                    rec->temp,
                    NULL};
    int fds[2];
    if (pipe(fds))
        return boids_error_set(&v->err, BOIDS_ERR_RUNTIME, "recording: pipe: %s", strerror(errno));
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fds[0], 0);
    posix_spawn_file_actions_addclose(&fa, fds[1]);
    posix_spawn_file_actions_addclose(&fa, fds[0]);
    pid_t pid;
    int rc = posix_spawnp(&pid, "ffmpeg", &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(fds[0]);
    if (rc) {
        close(fds[1]);
        if (!path) unlink(rec->path); /* the key's reserved name */
        return boids_error_set(&v->err, BOIDS_ERR_RUNTIME, "recording: cannot start ffmpeg: %s",
                               strerror(rc));
    }
    /* ffmpeg gone: a write error to say, not a silent death. */
    signal(SIGPIPE, SIG_IGN);
    rec->fd = fds[1];
    rec->pid = pid;
    rec->reserved = !path;
    view_say(v, "recording %s", rec->path);
    return BOIDS_OK;
}

/* Waits for ffmpeg; 1 if it finished the file. */
static int reap(view_record *rec) {
    int status = 0;
    pid_t got;
    while ((got = waitpid(rec->pid, &status, 0)) < 0 && errno == EINTR) {
    }
    rec->pid = 0;
    return got > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

boids_status view_record_stop(view *v) {
    view_record *rec = &v->recording;
    if (rec->pid <= 0) return BOIDS_OK;
    close(rec->fd);
    rec->fd = -1;
    int ok = reap(rec) && rec->frames > 0;
    if (ok && rename(rec->temp, rec->path) == 0) {
        char line[4200];
        snprintf(line, sizeof line, "recorded %lu frames to %s", rec->frames, rec->path);
        view_say(v, "%s", line);
        return BOIDS_OK;
    }
    int e = errno;
    unlink(rec->temp);
    if (rec->reserved) unlink(rec->path);
    if (ok)
        return boids_error_set(&v->err, BOIDS_ERR_RUNTIME, "recording %s: %s", rec->path,
                               strerror(e));
    return boids_error_set(&v->err, BOIDS_ERR_RUNTIME,
                           "recording %s: ffmpeg failed after %lu frames (its message is above)",
                           rec->path, rec->frames);
}

boids_status view_record_frame(view *v) {
    view_record *rec = &v->recording;
    if (rec->pid <= 0) return BOIDS_OK;
    if (v->window.fb_w != rec->w || v->window.fb_h != rec->h) {
        view_record_stop(v);
        return boids_error_set(&v->err, BOIDS_ERR_RUNTIME,
                               "recording stopped: the window changed size (%dx%d to %dx%d)",
                               rec->w, rec->h, v->window.fb_w, v->window.fb_h);
    }
    size_t bytes = (size_t)rec->w * (size_t)rec->h * 4;
    if (rec->size < bytes) {
        unsigned char *px = realloc(rec->pixels, bytes);
        if (!px) {
            view_record_stop(v);
            return boids_error_set(&v->err, BOIDS_ERR_NOMEM, "out of memory for recording");
        }
        rec->pixels = px;
        rec->size = bytes;
    }
    glReadBuffer(GL_BACK);
    render_read_pixels(rec->w, rec->h, rec->pixels);
    for (size_t at = 0; at < bytes;) {
        ssize_t put = write(rec->fd, rec->pixels + at, bytes - at);
        if (put < 0 && errno == EINTR) continue;
        if (put <= 0) {
            int e = errno;
            view_record_stop(v);
            return boids_error_set(&v->err, BOIDS_ERR_RUNTIME, "recording %s: %s", rec->path,
                                   strerror(e));
        }
        at += (size_t)put;
    }
    rec->frames++;
    return BOIDS_OK;
}

void view_record_abort(view *v) {
    view_record *rec = &v->recording;
    if (rec->pid <= 0) return;
    close(rec->fd);
    kill(rec->pid, SIGTERM);
    reap(rec);
    unlink(rec->temp);
    if (rec->reserved) unlink(rec->path);
}

void view_record_free(view *v) {
    free(v->recording.pixels);
    v->recording.pixels = NULL;
    v->recording.size = 0;
}
