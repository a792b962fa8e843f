/* SPDX-License-Identifier: MIT */
/* boids render: frames drawn offscreen through EGL (no display needed), to a numbered PNG
 * sequence or as raw RGBA on stdout for ffmpeg. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <glad/gl.h>

#include "atomic_file.h"
#include "boids/gpu.h"
#include "boids/state_io.h"
#include "render/camera3.h"
#include "render/camera_path.h"
#include "cli/cli.h"
#include "commands/commands.h"
#include "viewer/dive.h"
#include "cli/progress.h"
#include "render/render.h"
#include "render/render_scene.h"
#include "commands/replay.h"
#include "viewer/view.h"

static const app_command render_command = {
    .prog = "boids render",
    .synopsis = "usage: boids render [OPTIONS]\n"
                "Draws frames of the flock offscreen (EGL, no display needed).\n"
                "\n",
    .notes =
        "On the gpu backend a given seed gives the same frames on one device unless --fast is\n"
        "given.\n"
        "In 3-D (--set dim=3, --preset murmuration) the flock steps on gpu, or on cpu where\n"
        "the GL renderer is a software rasteriser (llvmpipe) unless --backend is given, and\n"
        "is drawn in perspective; --camera scripts the camera, and a predator that is on dives "
        "through\n"
        "the food point once every 900 steps.\n",
    .shared = APP_ALL,
    .backend = "gpu",
    .deterministic = 1};

/* A PNG pattern needs exactly one integer conversion (%d, %05d, ...); %% is a percent. Its
 * width is at most one digit (%09d): --frames is below 10^9, and a wider one only pads the
 * name with spaces or zeros up to a length no file system takes. */
static boids_status check_pattern(const char *pat, boids_error *err) {
    int conv = 0;
    for (const char *s = pat; *s; s++) {
        if (*s != '%') continue;
        if (s[1] == '%') {
            s++;
            continue;
        }
        const char *t = s + 1;
        while (*t >= '0' && *t <= '9') t++;
        if (*t != 'd')
            return boids_error_set(err, BOIDS_ERR_INPUT,
                                   "--output '%s': only %%d-style conversions are allowed", pat);
        if (t - s > 3 || (t - s == 3 && s[1] != '0'))
            return boids_error_set(err, BOIDS_ERR_INPUT,
                                   "--output '%s': '%.*s' is wider than %%09d", pat,
                                   (int)(t - s + 1), s);
        conv++;
        s = t;
    }
    if (conv != 1)
        return boids_error_set(err, BOIDS_ERR_INPUT,
                               "--output '%s': needs exactly one %%d for the frame number (e.g. "
                               "frame-%%05d.png), or '-' for raw RGBA on stdout",
                               pat);
    return BOIDS_OK;
}

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

/* What to draw and where to. */
typedef struct render_job {
    const char *out;
    int raw;     /* --output -: raw RGBA on stdout */
    int size[2]; /* frame width and height, pixels */
    long frames, spf, warmup;
    double boid_len;
    int colour, hud;
    double trail; /* --trail; -1: the config's */
    int density;  /* --density; -1: the config's */
    render_look look;
    boids_interact inter; /* the config file's points and obstacles: stepped and drawn */
    const char *camera;   /* --camera: the 3-D camera's path; NULL: the start view */
    double fps;           /* the film's frames a second: the camera path's clock */
    int backend_given;    /* --backend was on the command line */
    camera_path path;
    const char *replay; /* --replay: the frames of this trajectory, no simulation */
    long from;          /* --replay: the first frame drawn */
    app_traj_in traj;
    boids_flock shown[2]; /* --replay: the frame drawn and the one before it (3-D banking) */
} render_job;

/* The file name of frame f from the checked pattern; 0 if it does not fit in size. */
static int frame_path(const render_job *j, long f, char *path, size_t size) {
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

/* At most 2^26 pixels a frame (8192x8192): its read-back buffer is then 256 MiB of host
 * memory and its 4x multisampled target 1 GiB of GPU memory; a larger frame is refused
 * before either is allocated rather than failing half way. */
enum { RENDER_MAX_PIXELS = 1 << 26 };

/* A frame size within RENDER_MAX_PIXELS, and a PNG pattern that can be written or raw frames
 * into a pipe, before any frame is drawn. The last frame has the longest name: that one is
 * tried. */
static boids_status check_output(render_job *j, boids_error *err) {
    long pixels = (long)j->size[0] * j->size[1];
    if (pixels > RENDER_MAX_PIXELS)
        return boids_error_set(err, BOIDS_ERR_LIMIT,
                               "--size %dx%d: %ld pixels, more than the %d (8192x8192) a frame "
                               "may have: the read-back buffer alone would take %ld MiB",
                               j->size[0], j->size[1], pixels, RENDER_MAX_PIXELS, pixels * 4 >> 20);
    j->raw = !strcmp(j->out, "-");
    if (!j->raw) {
        char path[4096];
        if (check_pattern(j->out, err)) return err->status;
        if (!frame_path(j, j->frames - 1, path, sizeof path))
            return boids_error_set(err, BOIDS_ERR_INPUT,
                                   "--output: the file names are longer than %zu bytes",
                                   sizeof path - 1);
        return boids_atomic_check_writable(path, err);
    }
    if (isatty(STDOUT_FILENO))
        return boids_error_set(err, BOIDS_ERR_INPUT,
                               "--output -: stdout is a terminal; pipe the raw frames into ffmpeg");
    return BOIDS_OK;
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
static boids_status write_frame(const render_job *j, const target *t, unsigned char *px, long f,
                                boids_error *err) {
    const int w = j->size[0], h = j->size[1];
    glBindFramebuffer(GL_READ_FRAMEBUFFER, t->fbo_ms);
    glBindFramebuffer(GL_DRAW_FRAMEBUFFER, t->fbo);
    glBlitFramebuffer(0, 0, w, h, 0, 0, w, h, GL_COLOR_BUFFER_BIT, GL_NEAREST);
    glBindFramebuffer(GL_READ_FRAMEBUFFER, t->fbo);
    render_read_pixels(w, h, px);
    if (j->raw) {
        size_t n = (size_t)w * (size_t)h;
        if (fwrite(px, 4, n, stdout) != n || fflush(stdout))
            return boids_error_set(err, BOIDS_ERR_RUNTIME, "writing frame %ld to stdout: %s", f,
                                   strerror(errno));
        return BOIDS_OK;
    }
    char path[4096]; /* check_output made sure every name fits */
    frame_path(j, f, path, sizeof path);
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
static boids_status render_frames(render_job *j, const app_opts *o, const boids_params *p,
                                  boids_gl *gl, boids_error *err) {
    const int w = j->size[0], h = j->size[1];
    boids_status st = BOIDS_OK;
    render_ctx *r = NULL;
    scene *sc = NULL;
    target t = {0};
    if (check_gl_limits(w, h, err)) return err->status;
    unsigned char *px = malloc((size_t)w * (size_t)h * 4);
    app_opts so = *o;
    scene_config cfg = {&so, o->deterministic != 0, 0};
    if (!px)
        st = boids_error_set(err, BOIDS_ERR_NOMEM, "out of memory for a %dx%d frame", w, h);
    else if (!(r = render_create(p->dim, err)))
        st = err->status ? err->status : BOIDS_ERR_RUNTIME;
    /* A 3-D flock steps on cpu on a software rasteriser (llvmpipe runs the 3-D pipeline
     * about 7.6x slower than the cpu grid), unless --backend names the backend. */
    if (!st && p->dim == 3 && !j->backend_given && render_software(r)) so.backend = "cpu";
    if (!st && !(sc = j->replay ? scene_create_replay(p, err) : scene_create(&cfg, p, err)))
        st = err->status ? err->status : BOIDS_ERR_RUNTIME;
    if (!st) st = target_create(&t, w, h, err);
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
        st = write_frame(j, &t, px, f, err);
    }
    app_progress_end(&bar);
    target_destroy(&t);
    scene_destroy(sc);
    render_destroy(r);
    free(px);
    return st;
}

/* --replay FILE: the trajectory and its parameters; --frames all frames from --from (by
 * default), and no option of the simulation's. */
static boids_status render_job_replay(render_job *j, app_opts *o, boids_params *p,
                                      boids_error *err) {
    if (!j->replay) {
        if (j->from >= 0)
            return boids_error_set(err, BOIDS_ERR_INPUT, "--from %ld needs --replay FILE", j->from);
        if (j->spf < 0) j->spf = 1;
        if (!j->frames) j->frames = 300;
        return BOIDS_OK;
    }
    const char *sim = j->spf >= 0 ? "--steps-per-frame" : j->warmup ? "--warmup" : NULL;
    if (sim)
        return boids_error_set(err, BOIDS_ERR_INPUT,
                               "%s: a replay runs no simulation (--replay %s)", sim, j->replay);
    if (app_replay_open(o, o->backend != render_command.backend, j->replay, &j->traj, p, err))
        return err->status;
    if (j->from < 0) j->from = 0;
    if (app_replay_check_from(&j->traj, j->from, err)) return err->status;
    long left = (long)j->traj.frames - j->from;
    if (!j->frames) j->frames = left;
    if (j->frames > left)
        return boids_error_set(err, BOIDS_ERR_INPUT, "--frames %ld: %s has %ld frames from %ld",
                               j->frames, j->replay, left, j->from);
    return BOIDS_OK;
}

/* The look: the preset's, the config file's `view.` lines, then the flags. */
static boids_status render_job_look(render_job *j, const app_opts *o, boids_error *err) {
    j->look = render_look_for_preset(o->preset);
    if (o->config && render_look_load_ini(&j->look, o->config, err)) return err->status;
    if (j->trail >= 0) j->look.trail = j->trail;
    if (j->density >= 0) j->look.density = j->density;
    if (j->colour < 0) j->colour = j->look.colour >= 0 ? j->look.colour : RENDER_HEADING;
    if (j->boid_len <= 0) j->boid_len = j->look.size;
    return BOIDS_OK;
}

/* The keys of a config file that render reads besides the parameters: the look, and the
 * interaction points and obstacles. */
static int render_config_key(const char *key) {
    return render_look_is_key(key) || boids_interact_is_key(key);
}

/* 3-D: the camera path; whether --backend was given (app_opts keeps the command's own
 * default string unless the option was parsed), for render_frames' choice in 3-D. */
static boids_status render_job_camera(render_job *j, app_opts *o, const boids_params *p,
                                      boids_error *err) {
    if (p->dim != 3) {
        if (j->camera)
            return boids_error_set(err, BOIDS_ERR_INPUT,
                                   "--camera '%s': the camera moves in 3-D only (--set dim=3)",
                                   j->camera);
        return BOIDS_OK;
    }
    j->backend_given = o->backend != render_command.backend;
    return j->camera ? camera_path_parse(&j->path, j->camera, err) : BOIDS_OK;
}

int boids_cmd_render(int argc, char **argv) {
    render_job j = {.out = "frame-%05d.png",
                    .size = {1280, 720},
                    .spf = -1,
                    .from = -1,
                    .traj = {.fd = -1},
                    .colour = -1,
                    .trail = -1,
                    .density = -1,
                    .fps = 60};
    const app_option own[] = {
        {APP_TEXT, "output", 'o', "PAT", &j.out,
         .help = "PNG file name with one integer conversion, %d to %09d, for\n"
                 "the frame number (default frame-%05d.png); '-' writes raw RGBA\n"
                 "frames (rows top to bottom) to stdout, e.g. for ffmpeg:\n"
                 "  boids render -o - | ffmpeg -f rawvideo \\\n"
                 "    -pixel_format rgba -video_size 1280x720 \\\n"
                 "    -framerate 60 -i - -c:v libx264 -pix_fmt yuv420p \\\n"
                 "    flock.mp4"},
        {APP_CUSTOM, "size", 0, "WxH", j.size, .parse = app_parse_size,
         .help = "frame size in pixels, at most 8192x8192 in area (default 1280x720)"},
        {APP_LONG, "frames", 0, "K", &j.frames, 1, 100000000L,
         .help = "number of frames (default 300; --replay: every frame from --from)"},
        {APP_LONG, "steps-per-frame", 0, "S", &j.spf, 0, 100000L,
         .help = "simulation steps between frames (default 1)"},
        {APP_LONG, "warmup", 0, "K", &j.warmup, 0, 2000000000L,
         .help = "steps before the first frame (default 0)"},
        {APP_CHOICE, "colour", 0, "C", &j.colour, .choices = render_colour_names, .alias = "color",
         .help = "heading (default), speed or plain"},
        {APP_REAL, "boid-size", 0, "L", &j.boid_len, 0, 1e6, .open = 1,
         .help = "boid length in world length units (default 0.14 vision radii, 7 in\n"
                 "lab), drawn at least 3 pixels long"},
        {APP_FLAG, "hud", 0, NULL, &j.hud, 1, .help = "print N, step and order on the frames"},
        {APP_REAL, "trail", 0, "F", &j.trail, 0, 10000,
         .help = "trails that fade to 1/e in F frames (default 0: none)"},
        {APP_CHOICE, "density", 0, "M", &j.density, .choices = render_density_names,
         .help = "additive light of a dense flock: auto (the default: from 50,000\n"
                 "boids, not on software renderers), off or on"},
        {APP_TEXT, "camera", 0, "SPEC", &j.camera,
         .help = "3-D: the camera's path, orbit:DEG_PER_S[,elev=DEG][,dist=F] about\n"
                 "the world's centre, or a keyframe FILE of lines 't eye_x eye_y eye_z\n"
                 "target_x target_y target_z' (seconds, length units), interpolated\n"
                 "(default: the start view, still)"},
        {APP_REAL, "fps", 0, "F", &j.fps, 0, 1000, .open = 1,
         .help = "frames a second of the film, the --camera path's clock (default 60)"},
        {APP_TEXT, "replay", 0, "FILE", &j.replay,
         .help = "draw the frames of a trajectory (boids sim --trajectory FILE.npy)\n"
                 "instead of simulating: the parameters come from FILE.json (without\n"
                 "it, from --preset, --config, --set as the run had them); no\n"
                 "--backend, --load, --steps-per-frame or --warmup"},
        {APP_LONG, "from", 0, "K", &j.from, 0, 2000000000L,
         .help = "--replay: the first frame drawn, a frame index (default 0)"},
    };
    app_opts o;
    int rc = app_parse(&render_command, own, APP_COUNT(own), &o, argc, argv);
    if (rc != APP_RUN) return rc;
    o.config_theirs = render_config_key;
    o.inter = &j.inter;
    boids_error err;
    boids_error_clear(&err);
    boids_params p, base;
    int scaled;
    if (render_job_replay(&j, &o, &p, &err) || check_output(&j, &err) ||
        (!j.replay &&
         app_params_world(&o, (double)j.size[0] / j.size[1], &p, &base, &scaled, &err)) ||
        render_job_look(&j, &o, &err) || app_interact(&o, &p, &j.inter, &err) ||
        render_job_camera(&j, &o, &p, &err)) {
        app_traj_in_close(&j.traj);
        return app_fail(&err);
    }
    if (j.replay && j.traj.has_sidecar) j.inter = j.traj.inter; /* the recorded run's */
    /* A broken pipe (ffmpeg gone) must be an error message, not a silent death. */
    if (j.raw) signal(SIGPIPE, SIG_IGN);
    boids_gl *gl = boids_gl_create(o.verbose >= 2, &err);
    if (!gl) {
        app_traj_in_close(&j.traj);
        return app_fail(&err);
    }
    boids_status st = render_frames(&j, &o, &p, gl, &err);
    if (!st && o.verbose && !j.raw)
        fprintf(stderr, "boids render: wrote %ld frames (%s)\n", j.frames, j.out);
    if (!st && o.verbose >= 2) {
        const boids_gl_debug *d = boids_gl_debug_log(gl);
        fprintf(stderr, "boids render: GL debug: %lu errors, %lu messages%s%s\n", d->errors,
                d->messages, d->errors ? "; last error: " : "", d->last_error);
    }
    boids_gl_destroy(gl);
    camera_path_free(&j.path);
    app_traj_in_close(&j.traj);
    boids_flock_free(&j.shown[0]);
    boids_flock_free(&j.shown[1]);
    return st ? app_fail(&err) : 0;
}
