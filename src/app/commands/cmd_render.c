/* SPDX-License-Identifier: MIT */
/* boids render: frames drawn offscreen through EGL (no display needed), to a numbered PNG
 * sequence or as raw RGBA on stdout for ffmpeg. This file is the command: its options, their
 * checks, the look, the camera path and the replay set from them, and the call that draws the
 * frames (render/offscreen.c). */
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "atomic_file.h"
#include "boids/gpu.h"
#include "boids/interact.h"
#include "cli/cli.h"
#include "commands/commands.h"
#include "commands/replay.h"
#include "output/collide.h"
#include "render/camera_path.h"
#include "render/offscreen.h"
#include "render/video.h"
#include "render/render.h"

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

/* At most 2^26 pixels a frame (8192x8192): its read-back buffer is then 256 MiB of host
 * memory and its 4x multisampled target 1 GiB of GPU memory; a larger frame is refused
 * before either is allocated rather than failing half way. */
enum { RENDER_MAX_PIXELS = 1 << 26 };

/* A frame size within RENDER_MAX_PIXELS, and a PNG pattern that can be written or raw frames
 * into a pipe, before any frame is drawn. The last frame has the longest name: that one is
 * tried. */
/* The first and the last frame's names (last: frames - 1 into it, the longest name) against
 * the files the run reads: no frame may replace an input. */
static boids_status check_frame_paths(const render_job *j, const app_opts *o, const char *last,
                                      boids_error *err) {
    char first[4096];
    if (!render_frame_path(j, 0, first, sizeof first)) first[0] = '\0';
    const int keyframes = j->camera && strncmp(j->camera, "orbit:", 6);
    const app_path paths[] = {
        {"--config", o->config, APP_PATH_IN},
        {"--load", o->load, APP_PATH_IN | APP_PATH_SIDECAR},
        {"--replay", j->replay, APP_PATH_IN | APP_PATH_SIDECAR},
        {"--camera", keyframes ? j->camera : NULL, APP_PATH_IN},
        {"--output", first[0] ? first : NULL, APP_PATH_OUT},
        {"--output", j->frames > 1 ? last : NULL, APP_PATH_OUT},
    };
    return app_paths_check(paths, APP_COUNT(paths), err);
}

static boids_status check_output(render_job *j, const app_opts *o, boids_error *err) {
    long pixels = (long)j->size[0] * j->size[1];
    if (pixels > RENDER_MAX_PIXELS)
        return boids_error_set(err, BOIDS_ERR_LIMIT,
                               "--size %dx%d: %ld pixels, more than the %d (8192x8192) a frame "
                               "may have: the read-back buffer alone would take %ld MiB",
                               j->size[0], j->size[1], pixels, RENDER_MAX_PIXELS, pixels * 4 >> 20);
    j->raw = !strcmp(j->out, "-");
    j->video = !j->raw && render_video_named(j->out);
    if (j->video) {
        if (j->fps != floor(j->fps) || j->fps > 240)
            return boids_error_set(err, BOIDS_ERR_INPUT,
                                   "--fps %g: a video (--output %s) takes a whole number of "
                                   "frames a second, at most 240",
                                   j->fps, j->out);
        return render_video_check("--output", j->out, err);
    }
    if (!j->raw) {
        char path[4096];
        if (check_pattern(j->out, err)) return err->status;
        if (!render_frame_path(j, j->frames - 1, path, sizeof path))
            return boids_error_set(err, BOIDS_ERR_INPUT,
                                   "--output: the file names are longer than %zu bytes",
                                   sizeof path - 1);
        if (check_frame_paths(j, o, path, err)) return err->status;
        return boids_atomic_check_writable(path, err);
    }
    if (isatty(STDOUT_FILENO))
        return boids_error_set(err, BOIDS_ERR_INPUT,
                               "--output -: stdout is a terminal; pipe the raw frames into ffmpeg");
    return BOIDS_OK;
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
                 "the frame number (default frame-%05d.png); a video (.mp4, .mkv,\n"
                 ".webm, .mov: through ffmpeg at --fps, as the viewer's --record),\n"
                 "a stream URL or /dev/videoN; '-' writes raw RGBA\n"
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
    if (render_job_replay(&j, &o, &p, &err) || check_output(&j, &o, &err) ||
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
    if (!st && o.verbose && !j.raw && !j.video)
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
