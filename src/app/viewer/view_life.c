/* SPDX-License-Identifier: MIT */
/* Running unattended for weeks: signals (SIGTERM and SIGINT stop the loop so that the
 * viewer closes as if Esc were pressed; SIGHUP reloads the config file), attract mode
 * (autonomous predators after a while without a person) and the frame-time histogram that
 * --stats reports. */
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "viewer/view_internal.h"

/* The handlers only record the signal; the frame loop acts on it between frames. */
static volatile sig_atomic_t stop_signal, reload_signal;

static void on_signal(int sig) {
    if (sig == SIGHUP)
        reload_signal = 1;
    else
        stop_signal = sig;
}

void view_signals_install(void) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
}

void view_signals_restore(void) {
    signal(SIGTERM, SIG_DFL);
    signal(SIGINT, SIG_DFL);
    signal(SIGHUP, SIG_DFL);
}

/* The parameters and points of the options with the config file read again (the preset,
 * -n and --set still apply over it, as at the start), then applied: live when N and the
 * world stay, else with a restart. A file that does not load changes nothing. */
static void reload(view *v) {
    const view_opts *o = v->o;
    if (!o->app.config) {
        view_say(v, "%s", "SIGHUP: no --config file to reload");
        return;
    }
    boids_params np;
    boids_interact in;
    render_look look = *render_get_look(v->r);
    boids_error e;
    boids_status st = app_params(&v->app, &np, &e);
    if (!st && v->sim.scale_world) {
        boids_params_fit_world(&np, &o->base, v->sim.aspect, NULL);
        st = boids_params_validate(&np, &e);
    }
    app_places places;
    if (!st) st = app_interact_places(&v->app, &np, &in, &places, &e);
    /* Obstacles the new world cannot take would fail the next step: refused here. */
    if (!st) st = boids_interact_check_world(&in, &np, &e);
    if (!st) st = render_look_load_ini(&look, o->app.config, &e);
    if (st) {
        view_say(v, "SIGHUP: %s; keeping the current settings", e.msg);
        return;
    }
    const boids_params *cur = scene_params(v->sc);
    v->sim.inter = in;
    v->sim.places = places;
    /* Placed in the new world; a restart into it moves them from the current one. */
    app_places_move(&v->sim.places, &v->sim.inter, &np, cur);
    view_tuio_forget(v); /* the points the trackers' ids held are the file's now */
    if (np.count != cur->count || np.width != cur->width || np.height != cur->height)
        view_restart_random(v, np);
    else if (view_set_params(v, &np))
        view_save_weights(v);
    v->sim.start = np;
    render_set_look(v->r, &look);
    view_say(v, "SIGHUP: reloaded %s", o->app.config);
}

int view_signals_poll(view *v) {
    if (reload_signal) {
        reload_signal = 0;
        reload(v);
    }
    if (stop_signal) {
        if (v->o->app.verbose)
            fprintf(stderr, "boids view: signal %d, closing\n", (int)stop_signal);
        return 1;
    }
    return 0;
}

/* ---- attract mode ---------------------------------------------------------------------- */

enum { ATTRACT_FIRST = BOIDS_MAX_POINTS - VIEW_ATTRACTORS };

/* Point k's position at t seconds: a Lissajous path over the middle 80% of the world, its
 * two frequencies incommensurate so that it never retraces a loop, one lap in about half
 * a minute at the speed of the preset's flock. */
static void wander(const boids_params *p, int k, double t, double *x, double *y) {
    static const double fx[VIEW_ATTRACTORS] = {0.211, 0.173, 0.137};
    static const double fy[VIEW_ATTRACTORS] = {0.157, 0.239, 0.191};
    *x = p->width * (0.5 + 0.4 * sin(fx[k] * t + 2.1 * k));
    *y = p->height * (0.5 + 0.4 * sin(fy[k] * t + 0.7 + 1.3 * k));
}

void view_attract_update(view *v, uint64_t now) {
    /* Input handled in this frame came after `now`. */
    double idle = now > v->life.input_ns ? (double)(now - v->life.input_ns) * 1e-9 : 0;
    if (v->o->attract <= 0) return;
    if (!v->life.attracting && idle >= v->o->attract) {
        v->life.attracting = 1;
        view_say(v, "%s", "attract mode: nobody here, predators wander");
    }
    if (!v->life.attracting) return;
    const boids_params *p = scene_params(v->sc);
    double t = (double)now * 1e-9;
    for (int k = 0; k < VIEW_ATTRACTORS; k++) {
        boids_point *pt = &v->sim.inter.predators[ATTRACT_FIRST + k];
        pt->on = 1;
        wander(p, k, t, &pt->x, &pt->y);
        pt->radius = p->predator_radius;
        pt->weight = p->predator_weight;
    }
}

void view_input_seen(view *v) {
    v->life.input_ns = view_now_ns();
    if (!v->life.attracting) return;
    v->life.attracting = 0;
    for (int k = 0; k < VIEW_ATTRACTORS; k++) v->sim.inter.predators[ATTRACT_FIRST + k].on = 0;
}

/* ---- frame times --------------------------------------------------------------------- */

void view_frame_time(view *v, double ms) {
    int b = (int)(ms * VIEW_HIST_PER_MS);
    v->life.frame_hist[b < 0 ? 0 : b >= VIEW_HIST_BINS ? VIEW_HIST_BINS - 1 : b]++;
    v->life.frame_count++;
    if (ms > v->life.frame_max_ms) v->life.frame_max_ms = ms;
}

double view_frame_percentile(const view *v, double q) {
    if (!v->life.frame_count) return 0;
    uint64_t want = (uint64_t)ceil(q * (double)v->life.frame_count), seen = 0;
    for (int b = 0; b < VIEW_HIST_BINS; b++) {
        seen += v->life.frame_hist[b];
        if (seen >= want && want > 0) return (b + 1.0) / VIEW_HIST_PER_MS; /* the bin's top */
    }
    return v->life.frame_max_ms;
}
