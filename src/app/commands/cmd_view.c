/* SPDX-License-Identifier: MIT */
/* boids view: the interactive window (and `boids` with no command when a display is
 * present). Flags here; the window itself is view.c. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atomic_file.h"
#include "boids/interact.h"
#include "boids/state_io.h"
#include "cli/cli.h"
#include "commands/commands.h"
#include "output/collide.h"
#include "render/render.h"
#include "render/video.h"
#include "commands/replay.h"
#include "viewer/view.h"

static const app_command view_command = {
    .prog = "boids view",
    .synopsis =
        "usage: boids view [OPTIONS]\n"
        "Opens a window on the flock, simulated on the GPU and drawn straight from its buffers.\n"
        "Press ? in the window for the keys; the panel on the right has the same controls.\n"
        "\n",
    .notes = "The backend is gpu, or cpu where the GL renderer is a software rasteriser\n"
             "(llvmpipe: the cpu grid is many times faster there); --backend chooses.\n"
             "The cpu and cpu-ref backends upload each step to the GPU to draw it.\n",
    .shared = APP_ALL,
    /* Resolved when the window's renderer is known (view.c). */
    .backend = "auto",
    .deterministic = 0};

/* --window-pos X,Y into the view options (an app_parse_fn). */
static boids_status parse_window_pos(const char *flag, const char *text, void *dst,
                                     boids_error *err) {
    view_opts *o = dst;
    int n = 0;
    if (sscanf(text, "%d,%d%n", &o->win_x, &o->win_y, &n) != 2 || text[n] != '\0' ||
        o->win_x < -100000 || o->win_x > 100000 || o->win_y < -100000 || o->win_y > 100000)
        return boids_error_set(err, BOIDS_ERR_INPUT, "%s: '%s' is not X,Y in screen pixels", flag,
                               text);
    o->win_pos = 1;
    return BOIDS_OK;
}

/* --press X,Y into the view options (an app_parse_fn). */
static boids_status parse_press(const char *flag, const char *text, void *dst, boids_error *err) {
    view_opts *o = dst;
    char *end;
    errno = 0;
    o->press_x = strtod(text, &end);
    int ok = end != text && *end == ',';
    if (ok) {
        const char *s2 = end + 1;
        o->press_y = strtod(s2, &end);
        ok = end != s2 && *end == '\0' && !errno;
    }
    if (!ok) return boids_error_set(err, BOIDS_ERR_INPUT, "%s: '%s' is not X,Y", flag, text);
    o->press = 1;
    return BOIDS_OK;
}

/* The keys of a config file that the viewer reads besides the parameters: its look, and the
 * interaction points and obstacles. */
static int view_config_key(const char *key) {
    return render_look_is_key(key) || boids_interact_is_key(key);
}

/* What the window needs checked before it opens: the screenshot paths can be written and
 * the --press point lies in the world. */
static boids_status view_check(const view_opts *o, const boids_params *p, boids_error *err) {
    /* The picture is taken after the last of --frames K; a window closed by hand has none. */
    if (o->shot_at_exit && o->frames <= 0)
        return boids_error_set(err, BOIDS_ERR_INPUT,
                               "--screenshot %s needs --frames K: the picture is of frame K "
                               "(in the window, the screenshot key p writes one)",
                               o->shot_at_exit);
    if (o->shot_at_exit && boids_atomic_check_writable(o->shot_at_exit, err)) return err->status;
    if (o->record && render_video_check("--record", o->record, err)) return err->status;
    if (o->stream && render_video_check("--stream", o->stream, err)) return err->status;
    if (o->shot_dir) {
        char probe[4096];
        snprintf(probe, sizeof probe, "%s/boids.png", o->shot_dir);
        if (boids_atomic_check_writable(probe, err)) return err->status;
    }
    if (o->press &&
        !(o->press_x >= 0 && o->press_x <= p->width && o->press_y >= 0 && o->press_y <= p->height))
        return boids_error_set(err, BOIDS_ERR_INPUT, "--press %g,%g: outside the %g x %g world",
                               o->press_x, o->press_y, p->width, p->height);
    return BOIDS_OK;
}

/* --replay FILE (--from, --series): the trajectory, the parameters it was recorded with, and
 * the world as it was (not the window's shape). */
typedef struct view_replay_opts {
    const char *path, *series;
    long from;
    app_traj_in traj;
    double *order;
} view_replay_opts;

/* Every file the viewer reads or writes: no output may be an input or another output. */
static boids_status view_paths(const view_opts *o, const view_replay_opts *r, boids_error *err) {
    const app_path paths[] = {
        {"--config", o->app.config, APP_PATH_IN},
        {"--load", o->app.load, APP_PATH_IN | APP_PATH_SIDECAR},
        {"--replay", r->path, APP_PATH_IN | APP_PATH_SIDECAR},
        {"--series", r->series, APP_PATH_IN},
        {"--screenshot", o->shot_at_exit, APP_PATH_OUT},
        {"--record", o->record, APP_PATH_OUT},
    };
    return app_paths_check(paths, APP_COUNT(paths), err);
}

static boids_status view_replay_open(view_opts *o, view_replay_opts *r, boids_params *p,
                                     boids_error *err) {
    if (!r->path) {
        if (r->from >= 0 || r->series)
            return boids_error_set(err, BOIDS_ERR_INPUT, "%s needs --replay FILE",
                                   r->series ? "--series" : "--from");
        return BOIDS_OK;
    }
    if (o->warmup > 0)
        return boids_error_set(err, BOIDS_ERR_INPUT,
                               "--warmup %ld: a replay (--replay %s) runs no simulation", o->warmup,
                               r->path);
    if (o->attract > 0)
        return boids_error_set(err, BOIDS_ERR_INPUT,
                               "--attract %g: attract mode moves predators through a live flock; "
                               "a replay (--replay %s) runs no simulation for them to act on",
                               o->attract, r->path);
    if (app_replay_open(&o->app, o->app.backend != view_command.backend, r->path, &r->traj, p, err))
        return err->status;
    o->replay = &r->traj;
    o->replay_from = r->from < 0 ? 0 : r->from;
    o->base = *p;
    o->scale_world = 0;
    if (app_replay_check_from(&r->traj, o->replay_from, err)) return err->status;
    if (r->series && app_traj_in_series_order(&r->traj, r->series, &r->order, err))
        return err->status;
    o->series_order = r->order;
    return BOIDS_OK;
}

/* The option table, then the calls: as long as the table is. */
int boids_cmd_view(int argc, char **argv) {
    view_opts o = {.monitor = -1,
                   .hud = 1,
                   .panel = -1,
                   .vsync = 1,
                   .msaa = -1,
                   .rate = 60,
                   .colour = RENDER_HEADING,
                   .pointer = VIEW_POINTER_PREDATOR,
                   .osc_rate = 5,
                   .video_fps = 30};
    int size[2] = {1280, 800}, colour = -1, pointer = VIEW_POINTER_PREDATOR, density = -1,
        clean = -1;
    double trail = -1;
    view_replay_opts replay = {.from = -1, .traj = {.fd = -1}};
    const app_option own[] = {
        {APP_SECTION, .name = "Window:"},
        {APP_CUSTOM, "size", 0, "WxH", size, .parse = app_parse_size,
         .help = "window size (default 1280x800)"},
        {APP_FLAG, "fullscreen", 0, NULL, &o.fullscreen, 1,
         .help = "full screen on the monitor (installations)"},
        {APP_INT, "monitor", 0, "N", &o.monitor, 0, 63,
         .help = "monitor index (0 = first; default the primary)"},
        {APP_CUSTOM, "window-pos", 0, "X,Y", &o, .parse = parse_window_pos,
         .help = "the window's top left corner on the desktop, screen pixels"},
        {APP_FLAG, "borderless", 0, NULL, &o.borderless, 1,
         .help = "no title bar or frame (with --size and --window-pos: a canvas\n"
                 "placed exactly)"},
        {APP_FLAG, "span", 0, NULL, &o.span, 1,
         .help = "one borderless window over all monitors (the virtual desktop's\n"
                 "bounds): several projectors as one canvas"},
        {APP_FLAG, "hide-cursor", 0, NULL, &o.hide_cursor, 1,
         .help = "hide the mouse cursor over the window"},
        {APP_FLAG, "no-hud", 0, NULL, &o.hud, 0, .help = "start with the HUD hidden (key o)"},
        {APP_FLAG, "no-panel", 0, NULL, &o.panel, 0,
         .help = "start with the control panel hidden (Tab); default in --fullscreen\n"
                 "and --span"},
        {APP_FLAG, "no-vsync", 0, NULL, &o.vsync, 0,
         .help = "do not wait for the display's refresh"},
        {APP_INT, "msaa", 0, "S", &o.msaa, 0, 16,
         .help = "antialiasing samples (default 4, 0 on software renderers)"},
        {APP_SECTION, .name = "Simulation and drawing:"},
        {APP_LONG, "rate", 0, "S", &o.rate, 1, 7680,
         .help = "steps per second in real time (default 60)"},
        {APP_LONG, "steps-per-frame", 0, "K", &o.steps_per_frame, 1, 1000,
         .help = "exactly K steps each frame instead of real time"},
        {APP_LONG, "warmup", 0, "K", &o.warmup, 0, 2000000000L,
         .help = "K steps before the first frame, so that the window opens on a flock\n"
                 "(as boids render --warmup; default 0)"},
        {APP_FLAG, "follow-flock", 0, NULL, &o.follow_flock, 1,
         .help = "the camera follows the flock's centre (key Z); in 3-D it orbits\n"
                 "the flock and frames it, not the box"},
        {APP_CHOICE, "colour", 0, "C", &colour, .choices = render_colour_names, .alias = "color",
         .help = "heading (default), speed or plain"},
        {APP_CHOICE, "pointer", 0, "M", &pointer, .choices = view_pointer_names,
         .help = "predator (default), food, hover or off"},
        {APP_REAL, "boid-size", 0, "L", &o.boid_len, 0.01, 1e6,
         .help = "boid length in world length units (default 0.14 vision radii of\n"
                 "the preset, 7 in lab), drawn at least 3 pixels long"},
        {APP_REAL, "trail", 0, "F", &trail, 0, 10000,
         .help = "trails that fade to 1/e in F frames (default 0: none; the panel's\n"
                 "trails button uses 30)"},
        {APP_CHOICE, "density", 0, "M", &density, .choices = render_density_names,
         .help = "additive light of a dense flock: auto (the default: from 50,000\n"
                 "boids, not on software renderers), off or on"},
        {APP_TEXT, "screenshot-dir", 0, "D", &o.shot_dir,
         .help = "where the screenshot (p, F12) and record (F9) keys write\n"
                 "(default .)"},
        {APP_TEXT, "record", 0, "FILE", &o.record,
         .help = "the frames shown to the video FILE through ffmpeg, in real time\n"
                 "(.mp4, .webm, .mkv: the extension picks the codec)"},
        {APP_FLAG, "record-every-frame", 0, NULL, &o.every_frame, 1,
         .help = "the recording (--record, F9): every frame drawn, one video frame\n"
                 "each, at --video-fps (the video plays faster than life where frames\n"
                 "are drawn slower: the factor is said at the end)"},
        {APP_TEXT, "stream", 0, "URL", &o.stream,
         .help = "the frames shown, live, in real time: udp://HOST:PORT, srt://...\n"
                 "(H.264 in MPEG-TS) or a v4l2loopback device /dev/videoN"},
        {APP_INT, "video-fps", 0, "F", &o.video_fps, 1, 240,
         .help = "frames a second of --record and --stream (default 30)"},
        {APP_FLAG, "clean", 0, NULL, &clean, RENDER_CLEAN_ON,
         .help = "the clean view (key x, view.clean = on): no reach\n"
                 "circles, dots, pointer circle, edges or margins"},
        {APP_FLAG, "clean-all", 0, NULL, &clean, RENDER_CLEAN_ALL,
         .help = "the clean view, obstacles' outlines hidden too\n"
                 "(view.clean = all)"},
        {APP_REAL, "attract", 0, "T", &o.attract, 0, 1e7,
         .help = "attract mode: after T seconds without input, predators wander\n"
                 "until someone moves the mouse or presses a key (default 0: off)"},
        {APP_SECTION, .name = "Replay (docs/viewer.md, Replay):"},
        {APP_TEXT, "replay", 0, "FILE", &replay.path,
         .help = "play the frames of a trajectory (boids sim --trajectory FILE.npy)\n"
                 "instead of simulating: the parameters come from FILE.json (without\n"
                 "it, from --preset, --config, --set as the run had them); no\n"
                 "--backend or --load. --rate is then frames a second,\n"
                 "--steps-per-frame frames a frame. Keys: Space pause, `.` / `,` a\n"
                 "frame on / back, `/` backwards / forwards, `l` loop / stop at the\n"
                 "ends, `+` / `-` faster / slower"},
        {APP_LONG, "from", 0, "K", &replay.from, 0, 2000000000L,
         .help = "--replay: the first frame shown, a frame index (default 0)"},
        {APP_TEXT, "series", 0, "FILE", &replay.series,
         .help = "--replay: the HUD's order history from the run's --series CSV\n"
                 "(default: computed from each frame shown)"},
        {APP_SECTION, .name = "Remote control (OSC, docs/osc.md):"},
        {APP_INT, "osc-port", 0, "P", &o.osc_port, 1, 65535,
         .help = "listen for OSC control messages on UDP port P"},
        {APP_TEXT, "osc-host", 0, "ADDR", &o.osc_host,
         .help = "the address --osc-port listens on (default 127.0.0.1;\n0.0.0.0: every "
                 "interface)"},
        {APP_TEXT, "osc-send", 0, "HOST:PORT", &o.osc_send,
         .help = "send the observables (order, milling, clusters, N, step) and\nreplies there"},
        {APP_REAL, "osc-rate", 0, "HZ", &o.osc_rate, 0.1, 60,
         .help = "observables sent per second (default 5)"},
        {APP_CHOICE, "tuio", 0, "KIND", &o.tuio, .choices = view_tuio_names,
         .help = "TUIO cursors and blobs on --osc-port become predators (default),\n"
                 "attractors, or nothing (off)"},
        {APP_SECTION, .name = "Scripting (tests, unattended checks):"},
        {APP_LONG, "frames", 0, "K", &o.frames, 1, 2000000000L, .help = "quit after K frames"},
        {APP_TEXT, "screenshot", 0, "FILE", &o.shot_at_exit,
         .help = "write a PNG of the last frame"},
        {APP_CUSTOM, "press", 0, "X,Y", &o, .parse = parse_press,
         .help = "hold the left button at world point (X,Y) from the first frame"},
        {APP_TEXT, "keys", 0, "SCRIPT", &o.keys,
         .help = "scripted input: FRAME:TEXT items separated by commas; TEXT is typed\n"
                 "before frame FRAME; {space} {tab} {esc} {f1}..{f12} press keys,\n"
                 "{click:X,Y} clicks at pixel (X,Y), {wheel:X,Y,DY} turns the wheel\n"
                 "there by DY notches, {drag:X0,Y0,X1,Y1} drags with the left button.\n"
                 "E.g. --keys '30:f,60:{f2}2'"},
        {APP_FLAG, "stats", 0, NULL, &o.stats, 1,
         .help = "at exit print CSV: frames,seconds,fps,steps,n,order,point_x,point_y,\n"
                 "mean_distance (to the --press point, else the world's centre),\n"
                 "then the live settings (weights, radii, fov, boundary, ...)"},
    };
    int rc = app_parse(&view_command, own, APP_COUNT(own), &o.app, argc, argv);
    if (rc != APP_RUN) return rc;
    o.app.config_theirs = view_config_key;
    o.win_w = size[0];
    o.win_h = size[1];
    o.pointer = (view_pointer)pointer;
    if (o.panel < 0) o.panel = !o.fullscreen && !o.span;
    boids_error err;
    boids_error_clear(&err);
    boids_params p;
    /* The window's aspect ratio is known once it is open (view.c shapes the world then). */
    boids_status st = view_paths(&o, &replay, &err);
    if (!st) st = view_replay_open(&o, &replay, &p, &err);
    if (!st && !replay.path) st = app_params_world(&o.app, 0, &p, &o.base, &o.scale_world, &err);
    o.look = render_look_for_preset(o.app.preset);
    if (!st) st = view_start_interact(&o, &p, &err);
    if (!st && replay.traj.has_sidecar) o.inter = replay.traj.inter; /* the recorded run's */
    if (st) {
        app_traj_in_close(&replay.traj);
        free(replay.order);
        return app_fail(&err);
    }
    /* The flags win over the config's `view.` lines. */
    if (trail >= 0) o.look.trail = trail;
    if (density >= 0) o.look.density = density;
    if (clean >= 0) o.look.clean = clean;
    if (colour < 0) colour = o.look.colour >= 0 ? o.look.colour : RENDER_HEADING;
    o.colour = (render_colour)colour;
    st = view_check(&o, &p, &err);
    if (!st) st = view_run(&o, &p, &err);
    app_traj_in_close(&replay.traj);
    free(replay.order);
    return st ? app_fail(&err) : 0;
}
