/* SPDX-License-Identifier: MIT */
/* Frames drawn offscreen for `boids render` (offscreen.h). */
#include "render/offscreen.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glad/gl.h>

#include "cli/progress.h"
#include "render/camera3.h"
#include "render/dive.h"
#include "render/render_scene.h"
#include "render/video.h"

typedef struct target {
    unsigned fbo_ms, rb_ms, rb_depth, fbo, rb;
} target;

static void target_destroy(target *t) {
    if (t->fbo_ms) glDeleteFramebuffers(1, &t->fbo_ms);
    if (t->fbo) glDeleteFramebuffers(1, &t->fbo);
    if (t->rb_ms) glDeleteRenderbuffers(1, &t->rb_ms);
    if (t->rb_depth) glDeleteRenderbuffers(1, &t->rb_depth);
    if (t->rb) glDeleteRenderbuffers(1, &t->rb);
}

/* A 4x multisampled colour buffer (and depth, for 3-D) to draw into and a plain one to
 * resolve and read. */
static boids_status target_create(target *t, int w, int h, boids_error *err) {
    memset(t, 0, sizeof *t);
    glGenRenderbuffers(1, &t->rb_ms);
    glBindRenderbuffer(GL_RENDERBUFFER, t->rb_ms);
    glRenderbufferStorageMultisample(GL_RENDERBUFFER, 4, GL_RGBA8, w, h);
    glGenFramebuffers(1, &t->fbo_ms);
    glBindFramebuffer(GL_FRAMEBUFFER, t->fbo_ms);
    glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, t->rb_ms);
    glGenRenderbuffers(1, &t->rb_depth);
    glBindRenderbuffer(GL_RENDERBUFFER, t->rb_depth);
    glRenderbufferStorageMultisample(GL_RENDERBUFFER, 4, GL_DEPTH_COMPONENT24, w, h);
    glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_DEPTH_ATTACHMENT, GL_RENDERBUFFER, t->rb_depth);
    GLenum status = glCheckFramebufferStatus(GL_FRAMEBUFFER);
    glGenRenderbuffers(1, &t->rb);
    glBindRenderbuffer(GL_RENDERBUFFER, t->rb);
    glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, w, h);
    glGenFramebuffers(1, &t->fbo);
    glBindFramebuffer(GL_FRAMEBUFFER, t->fbo);
    glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, t->rb);
    if (status == GL_FRAMEBUFFER_COMPLETE) status = glCheckFramebufferStatus(GL_FRAMEBUFFER);
    if (status != GL_FRAMEBUFFER_COMPLETE) {
        /* An incomplete framebuffer need not raise a GL error: its status says why. */
        GLenum e = glGetError();
        target_destroy(t);
        return boids_error_set(err, BOIDS_ERR_RUNTIME,
                               "cannot make a %dx%d offscreen framebuffer (status 0x%x, GL error "
                               "0x%x)",
                               w, h, status, e);
    }
    return BOIDS_OK;
}

/* The frame within what the current GL context can draw, asked before anything is allocated:
 * past GL_MAX_RENDERBUFFER_SIZE the target cannot be made, past GL_MAX_VIEWPORT_DIMS GL
 * clamps the viewport and would draw part of the frame, and the target takes 4 samples. */
static boids_status check_gl_limits(int w, int h, boids_error *err) {
    int rb = 0, vp[2] = {0, 0}, samples = 0;
    glGetIntegerv(GL_MAX_RENDERBUFFER_SIZE, &rb);
    glGetIntegerv(GL_MAX_VIEWPORT_DIMS, vp);
    glGetIntegerv(GL_MAX_SAMPLES, &samples);
    if (w > rb || h > rb)
        return boids_error_set(err, BOIDS_ERR_LIMIT,
                               "--size %dx%d: this GL allows at most %d pixels a side "
                               "(GL_MAX_RENDERBUFFER_SIZE)",
                               w, h, rb);
    if (w > vp[0] || h > vp[1])
        return boids_error_set(err, BOIDS_ERR_LIMIT,
                               "--size %dx%d: this GL draws at most %dx%d (GL_MAX_VIEWPORT_DIMS)",
                               w, h, vp[0], vp[1]);
    if (samples < 4)
        return boids_error_set(err, BOIDS_ERR_LIMIT,
                               "this GL has %d samples a pixel at most (GL_MAX_SAMPLES); frames "
                               "are drawn with 4",
                               samples);
    return BOIDS_OK;
}

int render_frame_path(const render_job *j, long f, char *path, size_t size) {
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
#endif
    int len = snprintf(path, size, j->out, (int)f);
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif
    return len >= 0 && (size_t)len < size;
}

/* The flock of the plane, to scale, through the trails and density layer of the look. */
static void draw_flock(const render_job *j, const boids_params *p, render_ctx *r, scene *sc,
                       const render_camera *cam) {
    render_flock fl = {0};
    scene_buffers(sc, &fl);
    fl.colour = (render_colour)j->colour;
    fl.length = j->boid_len > 0 ? j->boid_len : render_default_length(p);
    fl.min_px = 3 * (j->size[1] > 800 ? (double)j->size[1] / 800 : 1);
    render_layer_begin(r, cam, fl.n);
    render_draw_flock(r, scene_params(sc), &fl);
    render_layer_end(r);
    render_interact(r, cam, &j->inter,
                    (float)(3 * (j->size[1] > 800 ? (double)j->size[1] / 800 : 1)));
}

/* The 3-D flock seen by camera c, the box and the points that are on. */
static void draw_flock3(const render_job *j, render_ctx *r, scene *sc, const camera3 *c) {
    const boids_params *sp = scene_params(sc);
    render_view3 v = render_view3_make(c, j->size[0], j->size[1]);
    render_set_view(r, &v);
    render_flock fl = {0};
    scene_buffers(sc, &fl);
    fl.colour = (render_colour)j->colour;
    fl.length = j->boid_len > 0 ? j->boid_len : render_default_length(sp);
    fl.min_px = 2 * (j->size[1] > 800 ? (double)j->size[1] / 800 : 1);
    render_draw_flock(r, sp, &fl);
    const float size[3] = {(float)sp->width, (float)sp->height, (float)sp->depth};
    const int clean = render_get_look(r)->clean != RENDER_CLEAN_OFF;
    if (!clean) render_world_box(r, size, sp->boundary);
    if (!clean && sp->predator) {
        const float at[3] = {(float)sp->predator_x, (float)sp->predator_y, (float)sp->predator_z};
        render_world_circle(r, at, (float)sp->predator_radius * 0.06f, 0xff5a4aff);
    }
}

/* Draws the scene's current state into the multisampled target (3-D: seen by c3), with the
 * HUD line if asked. */
static void draw_frame(const render_job *j, const boids_params *p, render_ctx *r, const camera3 *c3,
                       scene *sc, const render_camera *cam, const target *t) {
    const int h = j->size[1];
    glBindFramebuffer(GL_FRAMEBUFFER, t->fbo_ms);
    render_begin(r, cam);
    if (p->dim == 3)
        draw_flock3(j, r, sc, c3);
    else
        draw_flock(j, p, r, sc, cam);
    if (!j->hud) {
        render_flush(r);
        return;
    }
    double ord = 0;
    scene_order_request(sc);
    scene_order_poll(sc, 1, &ord);
    char line[128];
    snprintf(line, sizeof line, "N %ld   step %llu   order %.3f", p->count,
             (unsigned long long)scene_steps(sc), ord);
    float ts = h >= 1400 ? 4 : h >= 700 ? 2 : 1;
    render_rect(r, 0, 0, render_text_width(line, ts) + 12 * ts, 12 * ts, 0x0b0e17c0);
    render_text(r, 6 * ts, 3 * ts, ts, line, 0xdde3efff);
    render_flush(r);
}

/* Resolves the target, reads it into px and writes frame f: PNG, or raw RGBA to stdout. */
static boids_status write_frame(const render_job *j, const target *t, render_pixels *frame,
                                render_video *video, long f, boids_error *err) {
    const int w = j->size[0], h = j->size[1];
    glBindFramebuffer(GL_READ_FRAMEBUFFER, t->fbo_ms);
    glBindFramebuffer(GL_DRAW_FRAMEBUFFER, t->fbo);
    glBlitFramebuffer(0, 0, w, h, 0, 0, w, h, GL_COLOR_BUFFER_BIT, GL_NEAREST);
    glBindFramebuffer(GL_READ_FRAMEBUFFER, t->fbo);
    if (render_pixels_read(frame, w, h, err)) return err->status;
    const unsigned char *px = frame->px;
    if (j->video) return render_video_put(video, px, 0, err);
    if (j->raw) {
        size_t n = (size_t)w * (size_t)h;
        if (fwrite(px, 4, n, stdout) != n || fflush(stdout))
            return boids_error_set(err, BOIDS_ERR_RUNTIME, "writing frame %ld to stdout: %s", f,
                                   strerror(errno));
        return BOIDS_OK;
    }
    char path[4096]; /* check_output made sure every name fits */
    render_frame_path(j, f, path, sizeof path);
    return render_write_png(path, w, h, px, err);
}

/* --replay: the f-th frame drawn, from the trajectory into the scene. */
static boids_status replay_show(render_job *j, scene *sc, long f, boids_error *err) {
    size_t k = (size_t)(j->from + f);
    int banked;
    if (!j->shown[0].x && (boids_flock_alloc_dim(&j->shown[0], j->traj.n, j->traj.dim, err) ||
                           boids_flock_alloc_dim(&j->shown[1], j->traj.n, j->traj.dim, err)))
        return err->status;
    if (app_traj_in_read_shown(&j->traj, k, &j->shown[0], &j->shown[1], &banked, err))
        return err->status;
    return scene_show(sc, &j->shown[0], banked ? &j->shown[1] : NULL, app_traj_in_step(&j->traj, k),
                      err);
}

/* The frames on the current GL context: warm-up steps, then one frame every spf steps (a
 * replay: the recorded frames from --from, no step). */
boids_status render_frames(render_job *j, const app_opts *o, const boids_params *p, boids_gl *gl,
                           boids_error *err) {
    const int w = j->size[0], h = j->size[1];
    boids_status st = BOIDS_OK;
    render_ctx *r = NULL;
    scene *sc = NULL;
    target t = {0};
    if (check_gl_limits(w, h, err)) return err->status;
    render_pixels frame = {0};
    app_opts so = *o;
    scene_config cfg = {&so, o->deterministic != 0, 0};
    if (!(r = render_create(p->dim, err))) st = err->status ? err->status : BOIDS_ERR_RUNTIME;
    /* A 3-D flock steps on cpu on a software rasteriser (llvmpipe runs the 3-D pipeline
     * about 7.6x slower than the cpu grid), unless --backend names the backend. */
    if (!st && p->dim == 3 && !j->backend_given && render_software(r)) so.backend = "cpu";
    if (!st && !(sc = j->replay ? scene_create_replay(p, err) : scene_create(&cfg, p, err)))
        st = err->status ? err->status : BOIDS_ERR_RUNTIME;
    if (!st) st = target_create(&t, w, h, err);
    render_video video = {0};
    if (!st && j->video) st = render_video_open(&video, j->out, w, h, (int)j->fps, 1, err);
    if (!st) render_set_look(r, &j->look);
    if (!st && o->verbose)
        fprintf(stderr, "boids render: %s (%s), backend %s, %ld boids in %g x %g%s\n",
                boids_gl_renderer(gl), boids_gl_platform(gl), scene_backend_name(sc), p->count,
                p->width, p->height, p->dim == 3 ? " x depth" : "");
    if (!st) st = scene_step(sc, (unsigned)j->warmup, err);
    render_camera cam = render_camera_fit(p->width, p->height, w, h, 0);
    camera3 start, c3;
    camera3_reset(&start, p->width, p->height, p->depth);
    app_progress bar;
    app_progress_begin(&bar, "boids render", "frames", (double)j->frames);
    for (long f = 0; !st && f < j->frames; f++) {
        app_progress_update(&bar, (double)f, NULL, 0);
        if (j->replay ? (st = replay_show(j, sc, f, err)) != BOIDS_OK
                      : f > 0 && (st = scene_step(sc, (unsigned)j->spf, err)) != BOIDS_OK)
            break;
        /* the predator's dive of the steps to come (dive.h: 3-D only) */
        dive_apply(p, scene_steps(sc), scene_params(sc));
        c3 = start;
        if (j->camera) camera_path_at(&j->path, (double)f / j->fps, &c3);
        draw_frame(j, p, r, &c3, sc, &cam, &t);
        st = write_frame(j, &t, &frame, &video, f, err);
    }
    app_progress_end(&bar);
    char line[4400];
    if (!st && j->video && !(st = render_video_close(&video, NULL, 0, line, sizeof line, err)) &&
        o->verbose)
        fprintf(stderr, "boids render: %s\n", line);
    render_video_abort(&video); /* a failed film: ffmpeg stopped, nothing left */
    target_destroy(&t);
    scene_destroy(sc);
    render_destroy(r);
    render_pixels_free(&frame);
    return st;
}
