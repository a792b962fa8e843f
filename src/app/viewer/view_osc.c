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

static void param(view *v, const osc_msg *m, const char *key) {
    if (!want_args(v, m, 1, 1)) return;
    char where[OSC_PATH_MAX + 8];
    snprintf(where, sizeof where, "OSC %s", m->path);
    const boids_params *cur = scene_params(v->sc);
    boids_params np = *cur;
    boids_error e;
    if (boids_params_set(&np, key, m->text[0], where, &e) || boids_params_validate(&np, &e)) {
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

static void get_param(view *v, const osc_msg *m, const char *key) {
    const boids_param_info *info = boids_param_find(key);
    if (!info) {
        bad(v, "OSC %s: unknown key '%s' (`boids params` lists the keys)", m->path, key);
        return;
    }
    char text[64], path[OSC_PATH_MAX + 16];
    boids_params_format(scene_params(v->sc), info, text, sizeof text);
    snprintf(path, sizeof path, "/boids/param/%s", key);
    osc_send_text(v->remote.osc, path, text);
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
    if (want_args(v, m, 0, 0)) view_reset(v);
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

/* "/boids/predator/I[/what]" (or attractor): rest is "I[/what]". The position takes x y, or
 * x y z for a 3-D world (two numbers keep z, as the config file's four-number line does). */
static void point(view *v, const osc_msg *m, const char *rest, boids_point *table) {
    char *end;
    long i = strtol(rest, &end, 10);
    if (end == rest || i < 0 || i >= BOIDS_MAX_POINTS || (*end && *end != '/')) {
        bad(v, "OSC %s: expected a point index 0 to %d", m->path, BOIDS_MAX_POINTS - 1);
        return;
    }
    const char *what = *end ? end + 1 : "";
    boids_point np = table[i];
    int n = !strcmp(what, "") ? 2 : !strcmp(what, "on") || !strcmp(what, "off") ? 0 : 1;
    if (!strcmp(what, "") || !strcmp(what, "on")) np.on = 1;
    if (!strcmp(what, "off")) np.on = 0;
    if (n == 1 && strcmp(what, "radius") && strcmp(what, "weight")) {
        bad(v, "OSC %s: unknown address (points take x y [z], /on, /off, /radius, /weight)",
            m->path);
        return;
    }
    if (!want_args(v, m, n, n == 2 ? 3 : n) || !want_numbers(v, m)) return;
    if (n == 2) np.x = m->num[0], np.y = m->num[1];
    if (m->argc == 3) np.z = m->num[2];
    if (!strcmp(what, "radius")) np.radius = m->num[0];
    if (!strcmp(what, "weight")) np.weight = m->num[0];
    boids_error e;
    char where[OSC_PATH_MAX + 8];
    snprintf(where, sizeof where, "OSC %s", m->path);
    if (boids_interact_check_point(&np, where, &e)) {
        bad(v, "%s", e.msg);
        return;
    }
    table[i] = np;
}

static void predator(view *v, const osc_msg *m, const char *rest) {
    point(v, m, rest, v->sim.inter.predators);
}

static void attractor(view *v, const osc_msg *m, const char *rest) {
    point(v, m, rest, v->sim.inter.attractors);
}

/* "/boids/get/predator/I" (or attractor): replies on the same address as setting it, with
 * one string "on|off X Y RADIUS WEIGHT Z" (z last, after the planar reply's words). */
static void get_point(view *v, const osc_msg *m, const char *rest, const boids_point *table,
                      const char *kind) {
    char *end;
    long i = strtol(rest, &end, 10);
    if (end == rest || *end || i < 0 || i >= BOIDS_MAX_POINTS) {
        bad(v, "OSC %s: expected a point index 0 to %d", m->path, BOIDS_MAX_POINTS - 1);
        return;
    }
    if (!want_args(v, m, 0, 0)) return;
    const boids_point *pt = &table[i];
    char path[OSC_PATH_MAX], text[160];
    snprintf(path, sizeof path, "/boids/%s/%ld", kind, i);
    snprintf(text, sizeof text, "%s %.9g %.9g %.9g %.9g %.9g", pt->on ? "on" : "off", pt->x, pt->y,
             pt->radius, pt->weight, pt->z);
    osc_send_text(v->remote.osc, path, text);
}

static void get_predator(view *v, const osc_msg *m, const char *rest) {
    get_point(v, m, rest, v->sim.inter.predators, "predator");
}

static void get_attractor(view *v, const osc_msg *m, const char *rest) {
    get_point(v, m, rest, v->sim.inter.attractors, "attractor");
}

static void obstacle(view *v, const osc_msg *m, const char *rest) {
    if (!strcmp(rest, "clear")) {
        if (want_args(v, m, 0, 0)) v->sim.inter.obstacle_count = 0;
        return;
    }
    int kind = !strcmp(rest, "circle")    ? BOIDS_OBSTACLE_CIRCLE
               : !strcmp(rest, "segment") ? BOIDS_OBSTACLE_SEGMENT
               : !strcmp(rest, "sphere")  ? BOIDS_OBSTACLE_SPHERE
                                          : -1;
    if (kind < 0) {
        bad(v, "OSC %s: unknown address (obstacle/circle, /segment, /sphere, /clear)", m->path);
        return;
    }
    /* Refused here, naming the message, rather than later by the backend for the whole table. */
    if ((kind == BOIDS_OBSTACLE_SPHERE) != view_is3d(v)) {
        bad(v, "OSC %s: the world is %s; it takes %s", m->path, view_is3d(v) ? "3-D" : "planar",
            view_is3d(v) ? "spheres (/boids/obstacle/sphere x y z r)"
                         : "circles and segments (/boids/obstacle/circle, /segment)");
        return;
    }
    int n = kind == BOIDS_OBSTACLE_CIRCLE ? 3 : 4;
    if (!want_args(v, m, n, n) || !want_numbers(v, m)) return;
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
        return;
    }
    if (boids_interact_check_world(&next, scene_params(v->sc), &e)) {
        bad(v, "%s: %s", where, e.msg);
        return;
    }
    v->sim.inter = next;
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
    if (o->app.verbose && o->osc_port)
        fprintf(stderr, "boids view: OSC on %s:%d\n", o->osc_host ? o->osc_host : "127.0.0.1",
                o->osc_port);
    return BOIDS_OK;
}

/* The observables: the flock read back and measured (boids_metrics_compute, O(N) plus the
 * pairs within the vision radius), so at most osc_rate times a second. One bundle of
 * single-value messages (/boids/order f, /boids/milling f, /boids/clusters i, /boids/n i,
 * /boids/step h) and /boids/observables with all five. */
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
    osc_arg steps = {'h', 0, (int64_t)scene_steps(v->sc)};
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
