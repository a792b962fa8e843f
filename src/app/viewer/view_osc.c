/* SPDX-License-Identifier: MIT */
/* The viewer over OSC: what each address does (docs/osc.md is the table), applied between
 * frames from the queue the transport fills (remote/osc.c), and the observables sent several times
 * a second. Every change goes through the same code as the keys and the panel (view_sim.c), and a
 * parameter through the same parser as `--set`. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "boids/metrics.h"
#include "cli/control.h"
#include "viewer/view_internal.h"

/* At most OSC_LINES_BURST complaint lines at once, then OSC_LINES_PER_S a second: varying
 * bad values (a fuzzer, a broken patch) must not fill the log either. */
#define OSC_LINES_BURST 10.0
#define OSC_LINES_PER_S 1.0

/* May a complaint take a line on stderr now? */
static int line_allowed(view *v) {
    uint64_t now = view_now_ns();
    if (!v->remote.lines_t) v->remote.lines = OSC_LINES_BURST;
    v->remote.lines = fmin(OSC_LINES_BURST, v->remote.lines + (double)(now - v->remote.lines_t) *
                                                                  1e-9 * OSC_LINES_PER_S);
    v->remote.lines_t = now;
    if (v->remote.lines < 1) return 0;
    v->remote.lines -= 1;
    return 1;
}

/* Says how many complaints went without a line, before the next line (or at close). */
static void tell_hushed(view *v) {
    if (v->remote.repeats)
        fprintf(stderr, "boids: (the previous OSC complaint came %lu more times)\n",
                v->remote.repeats);
    if (v->remote.hushed)
        fprintf(stderr,
                "boids: (%lu more OSC messages were refused without a line: at most %g lines "
                "at once, then %g a second)\n",
                v->remote.hushed, OSC_LINES_BURST, OSC_LINES_PER_S);
    v->remote.repeats = v->remote.hushed = 0;
}

/* A refused message: a reply `/boids/error s WHY` to the --osc-send target, and one line on
 * stderr and the status line. The same complaint again is counted instead of repeated, so a
 * controller stuck sending a bad value for weeks does not fill the log, and complaints
 * beyond the rate above are counted too; the counts are told before the next line. */
static void bad(view *v, const char *fmt, ...) {
    char msg[sizeof v->remote.last_bad];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (v->remote.osc) osc_send_text(v->remote.osc, "/boids/error", msg);
    if (!strcmp(msg, v->remote.last_bad)) {
        v->remote.repeats++;
        return;
    }
    if (!line_allowed(v)) {
        v->remote.hushed++;
        return;
    }
    tell_hushed(v);
    snprintf(v->remote.last_bad, sizeof v->remote.last_bad, "%s", msg);
    view_say(v, "%s (ignored)", msg);
}

void view_osc_complain(view *v, const osc_msg *m, const char *why) {
    bad(v, "OSC %s: %s", m->path, why);
}

static int want_args(view *v, const osc_msg *m, int lo, int hi) {
    if (m->argc >= lo && m->argc <= hi) return 1;
    if (lo == hi)
        bad(v, "OSC %s: expected %d argument%s, got %d", m->path, lo, lo == 1 ? "" : "s", m->argc);
    else
        bad(v, "OSC %s: expected %d to %d arguments, got %d", m->path, lo, hi, m->argc);
    return 0;
}

/* Numbers only (a string that reads as a number is one); 0 and a complaint otherwise. */
static int want_numbers(view *v, const osc_msg *m) {
    for (int i = 0; i < m->argc; i++)
        if (!isfinite(m->num[i])) {
            bad(v, "OSC %s: argument %d '%s' is not a finite number", m->path, i + 1, m->text[i]);
            return 0;
        }
    return 1;
}

/* ---- parameters and presets ----------------------------------------------------------- */

/* Sets key to text exactly as `--set KEY=TEXT` would; a refusal is replied to and said. */
static void set_param(view *v, const osc_msg *m, const char *key, const char *text) {
    char where[OSC_PATH_MAX + 8];
    snprintf(where, sizeof where, "OSC %s", m->path);
    const boids_params *cur = scene_params(v->sc);
    boids_params np = *cur;
    boids_error e;
    if (boids_params_set(&np, key, text, where, &e) || boids_params_validate(&np, &e)) {
        bad(v, "%s", e.msg);
        return;
    }
    /* A world the present obstacles do not fit (view_sim.c would refuse it without a reply). */
    if (strcmp(key, "count") && boids_interact_check_world(&v->sim.inter, &np, &e)) {
        bad(v, "%s: %s", where, e.msg);
        return;
    }
    if (!strcmp(key, "count")) {
        long max = view_count_max(v);
        if (np.count > max) {
            bad(v, "OSC %s: %ld boids: at most %ld in the viewer", m->path, np.count, max);
            return;
        }
        view_set_count(v, np.count);
    } else if (np.width != cur->width || np.height != cur->height) {
        v->sim.scale_world = 0; /* the world has the size it was given now */
        view_restart_random(v, np);
    } else {
        if (view_set_params(v, &np)) view_save_weights(v);
    }
}

/* ---- replies: numbers on the control's own address, so that a fader shows the value ---- */

static void reply(view *v, const char *path, int argc, const osc_arg *argv) {
    osc_out out = {path, argc, {{0}}};
    for (int i = 0; i < argc && i < OSC_OUT_ARGS; i++) out.argv[i] = argv[i];
    osc_send_message(v->remote.osc, &out);
}

static osc_arg num_f(double x) {
    return (osc_arg){'f', x, 0};
}

static osc_arg num_i(long n) {
    return (osc_arg){'i', 0, n > INT32_MAX ? INT32_MAX : n < INT32_MIN ? INT32_MIN : n};
}

/* A key's value as a fader shows it: f for a real, i for an integer (beyond int32, as noise
 * seeds may be: f), a switch or an enum (its index). */
static osc_arg param_arg(const boids_param_info *info, const boids_params *p) {
    const char *f = (const char *)p + info->offset;
    if (info->type == BOIDS_KEY_REAL) return num_f(*(const double *)f);
    if (info->type != BOIDS_KEY_INT) return num_i(*(const int *)f);
    long n = *(const long *)f;
    return info->max > INT32_MAX ? num_f((double)n) : num_i(n);
}

/* `/boids/param/KEY` with its value, and `/boids/norm/KEY` with its fader position. */
static void reply_param(view *v, const boids_param_info *info, int norm) {
    char path[OSC_PATH_MAX + 16];
    snprintf(path, sizeof path, "/boids/%s/%s", norm ? "norm" : "param", info->key);
    const boids_params *p = scene_params(v->sc);
    osc_arg a = norm ? num_f(app_control_position(info, p)) : param_arg(info, p);
    reply(v, path, 1, &a);
}

/* ---- parameters and presets ----------------------------------------------------------- */

/* Set or refused, the reply is the value the key has now: a fader moved too far snaps back. */
static void param(view *v, const osc_msg *m, const char *key) {
    if (!want_args(v, m, 1, 1)) return;
    set_param(v, m, key, m->text[0]);
    const boids_param_info *info = boids_param_find(key);
    if (info) reply_param(v, info, 0);
}

static const boids_param_info *known_key(view *v, const osc_msg *m, const char *key) {
    const boids_param_info *info = boids_param_find(key);
    if (!info) bad(v, "OSC %s: unknown key '%s' (`boids params` lists the keys)", m->path, key);
    return info;
}

static void get_param(view *v, const osc_msg *m, const char *key) {
    const boids_param_info *info = known_key(v, m, key);
    if (info && want_args(v, m, 0, 0)) reply_param(v, info, 0);
}

/* Every key's fader position, in bundles of up to KEYS messages (each well within a UDP
 * datagram): a layout in step after a preset or a reset. */
static void send_norms(view *v) {
    size_t n;
    const boids_param_info *t = boids_param_table(&n);
    enum { KEYS = 64 };
    static char paths[KEYS][OSC_PATH_MAX];
    osc_out out[KEYS];
    for (size_t i0 = 0; i0 < n; i0 += KEYS) {
        int k = 0;
        for (size_t i = i0; i < n && k < KEYS; i++, k++) {
            snprintf(paths[k], sizeof paths[k], "/boids/norm/%s", t[i].key);
            out[k] =
                (osc_out){paths[k], 1, {num_f(app_control_position(&t[i], scene_params(v->sc)))}};
        }
        osc_send_bundle(v->remote.osc, out, k);
    }
}

/* "/boids/get/norm/KEY", or every key with "/boids/get/norm". */
static void get_norm(view *v, const osc_msg *m, const char *rest) {
    if (!want_args(v, m, 0, 0)) return;
    if (!*rest) {
        send_norms(v);
        return;
    }
    const boids_param_info *info = known_key(v, m, rest);
    if (info) reply_param(v, info, 1);
}

static void preset(view *v, const osc_msg *m, const char *rest) {
    (void)rest;
    if (!want_args(v, m, 1, 1)) return;
    boids_params probe;
    boids_error e;
    if (boids_preset_apply(&probe, m->text[0], &e)) {
        bad(v, "OSC %s: %s", m->path, e.msg);
        return;
    }
    view_apply_preset_named(v, m->text[0]);
    send_norms(v);
}

/* ---- running ------------------------------------------------------------------------- */

static void pause_run(view *v, const osc_msg *m, const char *rest) {
    (void)rest;
    if (want_args(v, m, 0, 1) && want_numbers(v, m))
        v->pace.paused = m->argc == 0 || m->num[0] != 0;
}

static void step(view *v, const osc_msg *m, const char *rest) {
    (void)rest;
    if (!want_args(v, m, 0, 1) || !want_numbers(v, m)) return;
    double k = m->argc ? m->num[0] : 1;
    if (!(k >= 1 && k <= 1000)) {
        bad(v, "OSC %s: %s steps: expected 1 to 1000", m->path, m->text[0]);
        return;
    }
    v->pace.single += (unsigned)k;
}

static void reset(view *v, const osc_msg *m, const char *rest) {
    (void)rest;
    if (!want_args(v, m, 0, 0)) return;
    view_reset(v);
    send_norms(v);
}

static void restart(view *v, const osc_msg *m, const char *rest) {
    (void)rest;
    if (want_args(v, m, 0, 0)) view_restart_random(v, *scene_params(v->sc));
}

static void screenshot(view *v, const osc_msg *m, const char *rest) {
    (void)rest;
    if (!want_args(v, m, 0, 0)) return;
    if (v->run.want_shot >= VIEW_SHOTS_WAITING)
        bad(v, "OSC %s: %d screenshots already wait for this frame", m->path, v->run.want_shot);
    else
        v->run.want_shot++;
}

static void quit(view *v, const osc_msg *m, const char *rest) {
    (void)rest;
    if (want_args(v, m, 0, 0)) v->run.want_quit = 1;
}

/* ---- interaction points and obstacles --------------------------------------------------- */

/* The points of one kind: the table, its places and its name in addresses. */
typedef struct points {
    boids_point *table;
    unsigned char *follows; /* app_places: the entries that follow the world */
    const char *kind;
} points;

static points predators(view *v) {
    return (points){v->sim.inter.predators, v->sim.places.predators, "predator"};
}

static points attractors(view *v) {
    return (points){v->sim.inter.attractors, v->sim.places.attractors, "attractor"};
}

/* "I[/what]" of a point's address: the index, and what into *what; -1 and a complaint when
 * it is not one. */
static long point_index(view *v, const osc_msg *m, const char *rest, const char **what) {
    char *end;
    long i = strtol(rest, &end, 10);
    if (end == rest || i < 0 || i >= BOIDS_MAX_POINTS || (*end && *end != '/')) {
        bad(v, "OSC %s: expected a point index 0 to %d", m->path, BOIDS_MAX_POINTS - 1);
        return -1;
    }
    *what = *end ? end + 1 : "";
    return i;
}

/* Whether what (after "KIND/I/") names one of a point's addresses. */
static int point_address(const char *what) {
    static const char *const whats[] = {"", "on", "off", "radius", "weight", "z"};
    for (size_t k = 0; k < sizeof whats / sizeof whats[0]; k++)
        if (!strcmp(what, whats[k])) return 1;
    return 0;
}

/* The reply on a point's address PREFIX/KIND/I[/what]: its position (x y, and z in a 3-D
 * world; norm: fractions of the world), on (1/0), off (1/0), radius (norm: a fraction of
 * the smallest side), weight (norm: a fraction of 0 .. 10, the control range of
 * predator_weight) or z (norm: a fraction of the depth). */
static void reply_point(view *v, points pts, long i, const char *what, int norm) {
    const boids_params *p = scene_params(v->sc);
    const boids_point *pt = &pts.table[i];
    char path[OSC_PATH_MAX];
    snprintf(path, sizeof path, "/boids/%s%s/%ld%s%s", norm ? "norm/" : "", pts.kind, i,
             *what ? "/" : "", what);
    double side = norm ? app_world_side(p) : 1;
    const app_control *w = app_control_find("predator_weight");
    osc_arg a[3];
    int n = 1;
    if (!*what) {
        a[0] = num_f(pt->x / (norm ? p->width : 1));
        a[1] = num_f(pt->y / (norm ? p->height : 1));
        a[2] = num_f(pt->z / (norm ? p->depth : 1));
        n = view_is3d(v) ? 3 : 2;
    } else if (!strcmp(what, "on") || !strcmp(what, "off")) {
        a[0] = num_i(pt->on == !strcmp(what, "on"));
    } else if (!strcmp(what, "radius")) {
        a[0] = num_f(pt->radius / side);
    } else if (!strcmp(what, "z")) {
        a[0] = num_f(pt->z / (norm ? p->depth : 1));
    } else {
        a[0] = num_f(norm ? (pt->weight - w->lo) / (w->hi - w->lo) : pt->weight);
    }
    reply(v, path, n, a);
}

/* "/boids/predator/I[/what]" (or attractor): rest is "I[/what]". The position takes x y, or
 * x y z for a 3-D world (two numbers keep z, as the config file's four-number line does);
 * /on takes an optional 0 (off) or 1, /off none. The reply is the point's value on the
 * message's address, set or refused. 1 when the point changed. */
static int point(view *v, const osc_msg *m, long i, const char *what, points pts) {
    boids_point np = pts.table[i];
    int n = !strcmp(what, "") ? 2 : !strcmp(what, "on") || !strcmp(what, "off") ? 0 : 1;
    if (n == 1 && strcmp(what, "radius") && strcmp(what, "weight") && strcmp(what, "z")) {
        bad(v, "OSC %s: unknown address (points take x y [z], /on, /off, /radius, /weight, /z)",
            m->path);
        return 0;
    }
    int most = n == 2 ? 3 : !strcmp(what, "on") ? 1 : n;
    if (!want_args(v, m, n, most) || !want_numbers(v, m)) return 0;
    if (!strcmp(what, "") || !strcmp(what, "on")) np.on = m->argc == 0 || m->num[0] != 0;
    if (!strcmp(what, "off")) np.on = 0;
    if (n == 2) np.on = 1, np.x = m->num[0], np.y = m->num[1];
    if (n == 2 && m->argc == 3) np.z = m->num[2];
    if (!strcmp(what, "radius")) np.radius = m->num[0];
    if (!strcmp(what, "weight")) np.weight = m->num[0];
    if (!strcmp(what, "z")) np.z = m->num[0];
    boids_error e;
    char where[OSC_PATH_MAX + 8];
    snprintf(where, sizeof where, "OSC %s", m->path);
    if (boids_interact_check_point(&np, where, &e)) {
        bad(v, "%s", e.msg);
        return 0;
    }
    pts.table[i] = np;
    return 1;
}

/* World units: a point placed so stays where it is when the world changes. */
static void world_point(view *v, const osc_msg *m, const char *rest, points pts) {
    const char *what;
    long i = point_index(v, m, rest, &what);
    if (i < 0) return;
    if (point(v, m, i, what, pts) && !*what) pts.follows[i] = 0;
    if (point_address(what)) reply_point(v, pts, i, what, 0);
}

static void predator(view *v, const osc_msg *m, const char *rest) {
    world_point(v, m, rest, predators(v));
}

static void attractor(view *v, const osc_msg *m, const char *rest) {
    world_point(v, m, rest, attractors(v));
}

/* Numbers of a /boids/norm message, each within [0, 1]; 0 and a complaint otherwise. */
static int want_fractions(view *v, const osc_msg *m) {
    if (!want_numbers(v, m)) return 0;
    for (int i = 0; i < m->argc; i++)
        if (!(m->num[i] >= 0 && m->num[i] <= 1)) {
            bad(v, "OSC %s: argument %d (%s) is outside 0 .. 1", m->path, i + 1, m->text[i]);
            return 0;
        }
    return 1;
}

/* "/boids/norm/predator/I[/what]": positions in fractions of the world (the point then
 * follows the world, as a config file's relative places do), radius in fractions of its
 * smallest side, weight over 0 .. 10; the reply on the same address, in fractions too. */
static void norm_point(view *v, const osc_msg *m, const char *rest, points pts) {
    const char *what;
    long i = point_index(v, m, rest, &what);
    if (i < 0 || !want_fractions(v, m)) return;
    const boids_params *p = scene_params(v->sc);
    const app_control *w = app_control_find("predator_weight");
    osc_msg world = *m; /* the same message in world units */
    if (!*what) {
        const double side[3] = {p->width, p->height, p->depth};
        for (int k = 0; k < world.argc && k < 3; k++) world.num[k] *= side[k];
    } else if (!strcmp(what, "radius") && world.argc == 1) {
        world.num[0] *= app_world_side(p);
    } else if (!strcmp(what, "weight") && world.argc == 1) {
        world.num[0] = w->lo + world.num[0] * (w->hi - w->lo);
    } else if (!strcmp(what, "z") && world.argc == 1) {
        world.num[0] *= p->depth;
    }
    if (point(v, &world, i, what, pts) && !*what) pts.follows[i] = 1;
    if (point_address(what)) reply_point(v, pts, i, what, 1);
}

/* "/boids/get/predator/I" (or attractor): the point's every value, each on its own address
 * (position, /on, /radius, /weight, /z), in world units and under /boids/norm. */
static void get_point(view *v, const osc_msg *m, const char *rest, points pts) {
    const char *what;
    long i = point_index(v, m, rest, &what);
    if (i < 0) return;
    if (*what || !want_args(v, m, 0, 0)) {
        if (*what) bad(v, "OSC %s: expected /boids/get/%s/I", m->path, pts.kind);
        return;
    }
    static const char *const whats[] = {"", "on", "radius", "weight", "z"};
    for (int norm = 0; norm < 2; norm++)
        for (int k = 0; k < 5; k++) reply_point(v, pts, i, whats[k], norm);
}

static void get_predator(view *v, const osc_msg *m, const char *rest) {
    get_point(v, m, rest, predators(v));
}

static void get_attractor(view *v, const osc_msg *m, const char *rest) {
    get_point(v, m, rest, attractors(v));
}

/* Adds the obstacle of "/boids/obstacle/KIND" (world units), or clears them; 1 when one was
 * added (the last of the table). */
static int add_obstacle(view *v, const osc_msg *m, const char *rest) {
    if (!strcmp(rest, "clear")) {
        if (want_args(v, m, 0, 0)) v->sim.inter.obstacle_count = 0;
        return 0;
    }
    int kind = !strcmp(rest, "circle")    ? BOIDS_OBSTACLE_CIRCLE
               : !strcmp(rest, "segment") ? BOIDS_OBSTACLE_SEGMENT
               : !strcmp(rest, "sphere")  ? BOIDS_OBSTACLE_SPHERE
                                          : -1;
    if (kind < 0) {
        bad(v, "OSC %s: unknown address (obstacle/circle, /segment, /sphere, /clear)", m->path);
        return 0;
    }
    /* Refused here, naming the message, rather than later by the backend for the whole table. */
    if ((kind == BOIDS_OBSTACLE_SPHERE) != view_is3d(v)) {
        bad(v, "OSC %s: the world is %s; it takes %s", m->path, view_is3d(v) ? "3-D" : "planar",
            view_is3d(v) ? "spheres (/boids/obstacle/sphere x y z r)"
                         : "circles and segments (/boids/obstacle/circle, /segment)");
        return 0;
    }
    int n = kind == BOIDS_OBSTACLE_CIRCLE ? 3 : 4;
    if (!want_args(v, m, n, n) || !want_numbers(v, m)) return 0;
    const double *a = m->num;
    boids_obstacle o = {.kind = kind, .x0 = a[0], .y0 = a[1]};
    if (kind == BOIDS_OBSTACLE_CIRCLE) {
        o.radius = a[2];
    } else if (kind == BOIDS_OBSTACLE_SEGMENT) {
        o.x1 = a[2];
        o.y1 = a[3];
    } else {
        o.z0 = a[2];
        o.radius = a[3];
    }
    boids_error e;
    char where[OSC_PATH_MAX + 8];
    snprintf(where, sizeof where, "OSC %s", m->path);
    /* Into a copy first: an obstacle the world cannot take (too large for a periodic world)
     * is refused here instead of failing the next step. */
    boids_interact next = v->sim.inter;
    if (boids_interact_add_obstacle(&next, &o, where, &e)) {
        bad(v, "%s", e.msg);
        return 0;
    }
    if (boids_interact_check_world(&next, scene_params(v->sc), &e)) {
        bad(v, "%s: %s", where, e.msg);
        return 0;
    }
    v->sim.inter = next;
    return 1;
}

/* World units: an obstacle placed so stays where it is when the world changes. */
static void obstacle(view *v, const osc_msg *m, const char *rest) {
    if (add_obstacle(v, m, rest)) v->sim.places.obstacles[v->sim.inter.obstacle_count - 1] = 0;
}

/* "/boids/norm/obstacle/KIND": positions in fractions of the world, radii of its smallest
 * side; the obstacle follows the world. */
static void norm_obstacle(view *v, const osc_msg *m, const char *rest) {
    if (!want_fractions(v, m)) return;
    const boids_params *p = scene_params(v->sc);
    double side = app_world_side(p);
    /* The scale of each argument: circle x y r, segment x1 y1 x2 y2, sphere x y z r. */
    const double circle[4] = {p->width, p->height, side, 0},
                 segment[4] = {p->width, p->height, p->width, p->height},
                 sphere[4] = {p->width, p->height, p->depth, side};
    const double *k = !strcmp(rest, "segment")  ? segment
                      : !strcmp(rest, "sphere") ? sphere
                                                : circle;
    osc_msg world = *m;
    for (int i = 0; i < world.argc && i < 4; i++) world.num[i] *= k[i];
    if (add_obstacle(v, &world, rest)) v->sim.places.obstacles[v->sim.inter.obstacle_count - 1] = 1;
}

/* "/boids/get/obstacle/I": `/boids/obstacle/I iffffff KIND X0 Y0 X1 Y1 RADIUS Z0` (kind: 0
 * circle, 1 segment, 2 sphere) and the same under /boids/norm in fractions of the world. */
static void get_obstacle(view *v, const osc_msg *m, const char *rest) {
    char *end;
    long i = strtol(rest, &end, 10);
    if (end == rest || *end || i < 0 || i >= v->sim.inter.obstacle_count) {
        bad(v, "OSC %s: expected an obstacle index 0 to %d", m->path,
            v->sim.inter.obstacle_count - 1);
        return;
    }
    if (!want_args(v, m, 0, 0)) return;
    const boids_obstacle *o = &v->sim.inter.obstacles[i];
    const boids_params *p = scene_params(v->sc);
    for (int norm = 0; norm < 2; norm++) {
        double w = norm ? p->width : 1, h = norm ? p->height : 1, d = norm ? p->depth : 1;
        double side = norm ? app_world_side(p) : 1;
        osc_arg a[7] = {num_i(o->kind),   num_f(o->x0 / w), num_f(o->y0 / h),
                        num_f(o->x1 / w), num_f(o->y1 / h), num_f(o->radius / side),
                        num_f(o->z0 / d)};
        char path[OSC_PATH_MAX];
        snprintf(path, sizeof path, "/boids/%sobstacle/%ld", norm ? "norm/" : "", i);
        reply(v, path, 7, a);
    }
}

/* "/boids/norm/...": a key, a point or an obstacle as 0 .. 1 (docs/osc.md). */
static void norm(view *v, const osc_msg *m, const char *rest) {
    if (!strncmp(rest, "predator/", 9)) {
        norm_point(v, m, rest + 9, predators(v));
        return;
    }
    if (!strncmp(rest, "attractor/", 10)) {
        norm_point(v, m, rest + 10, attractors(v));
        return;
    }
    if (!strncmp(rest, "obstacle/", 9)) {
        norm_obstacle(v, m, rest + 9);
        return;
    }
    const boids_param_info *info = known_key(v, m, rest);
    if (!info || !want_args(v, m, 1, 1) || !want_fractions(v, m)) {
        if (info) reply_param(v, info, 1);
        return;
    }
    char where[OSC_PATH_MAX + 8], text[64];
    snprintf(where, sizeof where, "OSC %s", m->path);
    boids_error e;
    if (app_control_value(info, scene_params(v->sc), m->num[0], where, text, sizeof text, &e))
        bad(v, "%s", e.msg);
    else
        set_param(v, m, info->key, text);
    reply_param(v, info, 1);
}

/* ---- dispatch ------------------------------------------------------------------------- */

/* An address, or with a trailing '/' every address under it (rest: what follows). */
static const struct route {
    const char *path;
    void (*fn)(view *v, const osc_msg *m, const char *rest);
    int input; /* a person's action: ends attract mode */
} routes[] = {
    {"/boids/param/", param, 1},
    {"/boids/get/param/", get_param, 0},
    {"/boids/preset", preset, 1},
    {"/boids/pause", pause_run, 1},
    {"/boids/step", step, 1},
    {"/boids/reset", reset, 1},
    {"/boids/restart", restart, 1},
    {"/boids/screenshot", screenshot, 0},
    {"/boids/quit", quit, 0},
    {"/boids/predator/", predator, 1},
    {"/boids/attractor/", attractor, 1},
    {"/boids/obstacle/", obstacle, 0},
    {"/boids/get/predator/", get_predator, 0},
    {"/boids/get/attractor/", get_attractor, 0},
    {"/boids/get/obstacle/", get_obstacle, 0},
    {"/boids/norm/", norm, 1},
    {"/boids/get/norm", get_norm, 0},
    {"/boids/get/norm/", get_norm, 0},
    {"/tuio/2Dcur", view_tuio, 0}, /* a `set` is a person's input: view_tuio.c */
    {"/tuio/2Dblb", view_tuio, 0},
};

static void dispatch(view *v, const osc_msg *m) {
    if (m->argc < 0) {
        bad(v, "OSC %s: %s", m->path, m->bad);
        return;
    }
    for (size_t i = 0; i < sizeof routes / sizeof routes[0]; i++) {
        size_t len = strlen(routes[i].path);
        int prefix = routes[i].path[len - 1] == '/';
        if (prefix ? strncmp(m->path, routes[i].path, len) : strcmp(m->path, routes[i].path))
            continue;
        if (routes[i].input) view_input_seen(v);
        routes[i].fn(v, m, m->path + len);
        return;
    }
    bad(v, "OSC %s: unknown address (docs/osc.md lists them)", m->path);
}

boids_status view_osc_open(view *v, boids_error *err) {
    const view_opts *o = v->o;
    if (!o->osc_port && !o->osc_send) return BOIDS_OK;
    if (!(v->remote.osc = osc_create(o->osc_host, o->osc_port, o->osc_send, err)))
        return err->status;
    /* Always said: a tablet's packets to a port bound to this machine only vanish. */
    const char *host = o->osc_host ? o->osc_host : "127.0.0.1";
    if (o->osc_port)
        fprintf(stderr, "boids view: OSC listens on %s:%d UDP%s%s%s\n", host, o->osc_port,
                !strncmp(host, "127.", 4) || !strcmp(host, "localhost")
                    ? " (this machine only; --osc-host 0.0.0.0 opens it to the network)"
                    : "",
                o->osc_send ? "; replies and observables go to " : "",
                o->osc_send ? o->osc_send : "");
    return BOIDS_OK;
}

/* The observables: the flock read back and measured (boids_metrics_compute, O(N) plus the
 * pairs within the vision radius), so at most osc_rate times a second. One bundle of
 * single-value messages (/boids/order f, /boids/milling f, /boids/clusters i, /boids/n i,
 * /boids/step i: int32, which every client decodes, stopping at 2^31 - 1, over a year at 60
 * steps a second) and /boids/observables with all five. */
static void send_observables(view *v, uint64_t now) {
    uint64_t period = (uint64_t)(1e9 / v->o->osc_rate);
    if (now - v->remote.sent_t < period) return;
    v->remote.sent_t = now;
    boids_metrics mt;
    boids_error e;
    if (scene_metrics(v->sc, &mt, &e)) {
        bad(v, "OSC observables: %s", e.msg);
        return;
    }
    osc_arg order = {'f', mt.order, 0}, milling = {'f', mt.milling, 0};
    osc_arg clusters = {'i', 0, lround(mt.clusters)}, n = {'i', 0, scene_params(v->sc)->count};
    uint64_t k = scene_steps(v->sc);
    osc_arg steps = num_i(k > INT32_MAX ? INT32_MAX : (long)k);
    /* Each as a message of its own, and all five in one for clients that prefer a list. */
    osc_out out[] = {{"/boids/order", 1, {order}},
                     {"/boids/milling", 1, {milling}},
                     {"/boids/clusters", 1, {clusters}},
                     {"/boids/n", 1, {n}},
                     {"/boids/step", 1, {steps}},
                     {"/boids/observables", 5, {order, milling, clusters, n, steps}}};
    osc_send_bundle(v->remote.osc, out, (int)(sizeof out / sizeof out[0]));
}

void view_osc_poll(view *v, uint64_t now) {
    if (!v->remote.osc) return;
    osc_msg m;
    unsigned long dropped = 0, more = 0;
    /* A frame applies what has arrived, not what keeps arriving while it does. */
    for (int k = 0; k < OSC_QUEUE && osc_next(v->remote.osc, &m, &more); k++, dropped += more)
        dispatch(v, &m);
    if (dropped + more) bad(v, "OSC: messages dropped on a full queue");
    if (osc_sends(v->remote.osc)) send_observables(v, now);
}

void view_osc_close(view *v) {
    tell_hushed(v);
    osc_destroy(v->remote.osc);
    v->remote.osc = NULL;
}
