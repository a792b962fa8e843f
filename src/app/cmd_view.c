/* boids view: the interactive window (and `boids` with no command when a display is
 * present). Flags here; the window itself is view.c. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "boids/atomic_file.h"
#include "boids/state_io.h"
#include "cli.h"
#include "commands.h"
#include "view.h"

static const char usage[] =
    "usage: boids view [OPTIONS]\n"
    "Opens a window on the flock, simulated on the GPU and drawn straight from its buffers.\n"
    "Press ? in the window for the keys; the panel on the right has the same controls.\n"
    "With -n larger than the preset's N, the world grows to keep the preset's density\n"
    "(unless --config or --set give width/height).\n"
    "\n"
    "Window:\n"
    "  --size WxH         window size (default 1280x800)\n"
    "  --fullscreen       full screen on the monitor (installations)\n"
    "  --monitor N        monitor index (0 = first; default the primary)\n"
    "  --hide-cursor      hide the mouse cursor over the window\n"
    "  --no-hud           start with the HUD hidden (key o)\n"
    "  --no-panel         start with the control panel hidden (Tab); default in --fullscreen\n"
    "  --no-vsync         do not wait for the display's refresh\n"
    "  --msaa S           antialiasing samples (default 4, 0 on software renderers)\n"
    "Simulation and drawing:\n"
    "  --rate S           steps per second in real time (default 60)\n"
    "  --steps-per-frame K  exactly K steps each frame instead of real time\n"
    "  --colour C         heading (default), speed or plain\n"
    "  --pointer M        predator (default), food, hover or off\n"
    "  --boid-size L      boid length in world length units (default 0.14 vision radii of\n"
    "                     the preset, 7 in lab), drawn at least 3 pixels long\n"
    "  --screenshot-dir D where the screenshot key (p, F12) writes (default .)\n"
    "Scripting (tests, unattended checks):\n"
    "  --frames K         quit after K frames\n"
    "  --screenshot FILE  write a PNG of the last frame\n"
    "  --press X,Y        hold the left button at world point (X,Y) from the first frame\n"
    "  --keys SCRIPT      scripted input: FRAME:TEXT items separated by commas; TEXT is typed\n"
    "                     before frame FRAME; {space} {tab} {esc} {f1}..{f12} press keys,\n"
    "                     {click:X,Y} clicks at pixel (X,Y). E.g. --keys '30:f,60:{f2}2'\n"
    "  --stats            at exit print CSV: frames,seconds,fps,steps,n,order,point_x,point_y,\n"
    "                     mean_distance (to the --press point, else the world's centre),\n"
    "                     then the live settings (weights, radii, fov, boundary, ...)\n"
    "  -h, --help         this text\n"
    "The backend defaults to gpu here (--backend cpu or cpu-ref upload each step instead);\n"
    "the gpu backend runs --fast unless --deterministic is given.\n";

enum {
    OPT_SIZE = OPT_FIRST_FREE,
    OPT_FULLSCREEN,
    OPT_MONITOR,
    OPT_HIDE_CURSOR,
    OPT_NO_HUD,
    OPT_NO_PANEL,
    OPT_NO_VSYNC,
    OPT_MSAA,
    OPT_RATE,
    OPT_SPF,
    OPT_COLOUR,
    OPT_POINTER,
    OPT_BOID_SIZE,
    OPT_SHOT_DIR,
    OPT_FRAMES,
    OPT_SHOT,
    OPT_PRESS,
    OPT_STATS,
    OPT_KEYS
};

static int parse_size(const char *flag, const char *s, int *w, int *h, boids_error *err) {
    char *end;
    errno = 0;
    long a = strtol(s, &end, 10);
    if (end == s || (*end != 'x' && *end != 'X')) goto bad;
    const char *s2 = end + 1;
    long b = strtol(s2, &end, 10);
    if (end == s2 || *end || errno || a < 16 || b < 16 || a > 16384 || b > 16384) goto bad;
    *w = (int)a;
    *h = (int)b;
    return 0;
bad:
    boids_error_set(err, BOIDS_ERR_INPUT, "%s: '%s' is not WIDTHxHEIGHT in [16, 16384]", flag, s);
    return -1;
}

static int parse_choice(const char *flag, const char *s, const char *const *names, int *out,
                        boids_error *err) {
    for (int i = 0; names[i]; i++)
        if (!strcmp(s, names[i])) {
            *out = i;
            return 0;
        }
    char list[128] = "";
    for (int i = 0; names[i]; i++) {
        if (i) strcat(list, ", ");
        strcat(list, names[i]);
    }
    boids_error_set(err, BOIDS_ERR_INPUT, "%s: unknown value '%s' (%s)", flag, s, list);
    return -1;
}

static int parse_real(const char *flag, const char *s, double lo, double hi, double *out,
                      boids_error *err) {
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end || errno || !(v >= lo && v <= hi)) {
        boids_error_set(err, BOIDS_ERR_INPUT, "%s: '%s' is not a number in [%g, %g]", flag, s, lo,
                        hi);
        return -1;
    }
    *out = v;
    return 0;
}

/* The parameters of the preset alone: the density the world keeps when N grows. */
static boids_status preset_base(const app_opts *o, boids_params *base, boids_error *err) {
    *base = boids_params_default();
    if (o->preset) return boids_preset_apply(base, o->preset, err);
    return BOIDS_OK;
}

int boids_cmd_view(int argc, char **argv) {
    static const struct option longopts[] = {
        APP_COMMON_LONGOPTS,
        {"size", required_argument, NULL, OPT_SIZE},
        {"fullscreen", no_argument, NULL, OPT_FULLSCREEN},
        {"monitor", required_argument, NULL, OPT_MONITOR},
        {"hide-cursor", no_argument, NULL, OPT_HIDE_CURSOR},
        {"no-hud", no_argument, NULL, OPT_NO_HUD},
        {"no-panel", no_argument, NULL, OPT_NO_PANEL},
        {"no-vsync", no_argument, NULL, OPT_NO_VSYNC},
        {"msaa", required_argument, NULL, OPT_MSAA},
        {"rate", required_argument, NULL, OPT_RATE},
        {"steps-per-frame", required_argument, NULL, OPT_SPF},
        {"colour", required_argument, NULL, OPT_COLOUR},
        {"color", required_argument, NULL, OPT_COLOUR},
        {"pointer", required_argument, NULL, OPT_POINTER},
        {"boid-size", required_argument, NULL, OPT_BOID_SIZE},
        {"screenshot-dir", required_argument, NULL, OPT_SHOT_DIR},
        {"frames", required_argument, NULL, OPT_FRAMES},
        {"screenshot", required_argument, NULL, OPT_SHOT},
        {"press", required_argument, NULL, OPT_PRESS},
        {"stats", no_argument, NULL, OPT_STATS},
        {"keys", required_argument, NULL, OPT_KEYS},
        {"help", no_argument, NULL, 'h'},
        {0, 0, 0, 0}};
    view_opts o;
    memset(&o, 0, sizeof o);
    app_opts_init(&o.app);
    o.app.backend = "gpu";
    o.monitor = -1;
    o.hud = 1;
    o.panel = -1;
    o.vsync = 1;
    o.msaa = -1;
    o.win_w = 1280;
    o.win_h = 800;
    o.rate = 60;
    o.colour = RENDER_HEADING;
    o.pointer = VIEW_POINTER_PREDATOR;
    o.boid_len = 0;
    boids_error err;
    boids_error_clear(&err);
    int c, choice;
    long lv;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":" APP_COMMON_SHORTOPTS "h", longopts, NULL)) != -1) {
        int r = app_opts_parse(&o.app, c, optarg, &err);
        if (r < 0) return app_fail(&err);
        if (r) continue;
        switch (c) {
        case OPT_SIZE:
            if (parse_size("--size", optarg, &o.win_w, &o.win_h, &err)) return app_fail(&err);
            break;
        case OPT_FULLSCREEN:
            o.fullscreen = 1;
            break;
        case OPT_MONITOR:
            if (app_parse_long("--monitor", optarg, 0, 63, &lv, &err)) return app_fail(&err);
            o.monitor = (int)lv;
            break;
        case OPT_HIDE_CURSOR:
            o.hide_cursor = 1;
            break;
        case OPT_NO_HUD:
            o.hud = 0;
            break;
        case OPT_NO_PANEL:
            o.panel = 0;
            break;
        case OPT_NO_VSYNC:
            o.vsync = 0;
            break;
        case OPT_MSAA:
            if (app_parse_long("--msaa", optarg, 0, 16, &lv, &err)) return app_fail(&err);
            o.msaa = (int)lv;
            break;
        case OPT_RATE:
            if (app_parse_long("--rate", optarg, 1, 7680, &o.rate, &err)) return app_fail(&err);
            break;
        case OPT_SPF:
            if (app_parse_long("--steps-per-frame", optarg, 1, 1000, &o.steps_per_frame, &err))
                return app_fail(&err);
            break;
        case OPT_COLOUR:
            if (parse_choice("--colour", optarg, render_colour_names, &choice, &err))
                return app_fail(&err);
            o.colour = (render_colour)choice;
            break;
        case OPT_POINTER:
            if (parse_choice("--pointer", optarg, view_pointer_names, &choice, &err))
                return app_fail(&err);
            o.pointer = (view_pointer)choice;
            break;
        case OPT_BOID_SIZE:
            if (parse_real("--boid-size", optarg, 0.01, 1e6, &o.boid_len, &err))
                return app_fail(&err);
            break;
        case OPT_SHOT_DIR:
            o.shot_dir = optarg;
            break;
        case OPT_FRAMES:
            if (app_parse_long("--frames", optarg, 1, 2000000000L, &o.frames, &err))
                return app_fail(&err);
            break;
        case OPT_SHOT:
            o.shot_at_exit = optarg;
            break;
        case OPT_PRESS: {
            char *end;
            errno = 0;
            o.press_x = strtod(optarg, &end);
            int ok = end != optarg && *end == ',';
            if (ok) {
                const char *s2 = end + 1;
                o.press_y = strtod(s2, &end);
                ok = end != s2 && *end == '\0' && !errno;
            }
            if (!ok) {
                boids_error_set(&err, BOIDS_ERR_INPUT, "--press: '%s' is not X,Y", optarg);
                return app_fail(&err);
            }
            o.press = 1;
            break;
        }
        case OPT_STATS:
            o.stats = 1;
            break;
        case OPT_KEYS:
            o.keys = optarg;
            break;
        case 'h':
            fputs(usage, stdout), fputs(app_common_help, stdout);
            return 0;
        case ':':
        default:
            return app_option_error("view", c, argv);
        }
    }
    if (app_no_operands("view", argc, argv)) return 2;
    if (o.panel < 0) o.panel = !o.fullscreen;

    if (o.shot_at_exit && boids_atomic_check_writable(o.shot_at_exit, &err)) return app_fail(&err);
    if (o.shot_dir) {
        char probe[4096];
        snprintf(probe, sizeof probe, "%s/boids.png", o.shot_dir);
        if (boids_atomic_check_writable(probe, &err)) return app_fail(&err);
    }
    boids_params p;
    if (app_params(&o.app, &p, &err)) return app_fail(&err);
    if (preset_base(&o.app, &o.base, &err)) return app_fail(&err);
    o.scale_world = !o.app.load && p.width == o.base.width && p.height == o.base.height;
    if (o.scale_world) {
        view_fit_world(&p, &o.base);
        if (boids_params_validate(&p, &err)) return app_fail(&err);
    }
    if (o.press &&
        !(o.press_x >= 0 && o.press_x <= p.width && o.press_y >= 0 && o.press_y <= p.height)) {
        boids_error_set(&err, BOIDS_ERR_INPUT, "--press %g,%g: outside the %g x %g world",
                        o.press_x, o.press_y, p.width, p.height);
        return app_fail(&err);
    }
    if (view_run(&o, &p, &err)) return app_fail(&err);
    return 0;
}
