/* SPDX-License-Identifier: MIT */
#include "commands/replay.h"

/* A parameter option on the command line. */
static const char *param_option(const app_opts *o) {
    if (o->preset) return "--preset";
    if (o->config) return "--config";
    if (o->nsets) return "--set";
    if (o->count) return "-n";
    if (o->model) return "--model";
    if (o->neighbours) return "--neighbours";
    if (o->k) return "-k";
    if (o->fixed_world) return "--fixed-world";
    return NULL;
}

/* The parameters of the options, for a trajectory without a sidecar. */
static boids_status params_of_options(app_opts *o, const app_traj_in *t, boids_params *p,
                                      boids_error *err) {
    if (o->count && (size_t)o->count != t->n)
        return boids_error_set(err, BOIDS_ERR_INPUT, "-n %ld: --replay %s holds %zu boids",
                               o->count, t->path, t->n);
    o->count = (long)t->n;
    boids_params base;
    int follows;
    if (app_params_world(o, 0, p, &base, &follows, err)) return err->status;
    if (p->dim != t->dim)
        return boids_error_set(err, BOIDS_ERR_INPUT,
                               "--replay %s: the options' parameters are %d-D, the file holds a "
                               "%d-D flock (--set dim=%d)",
                               t->path, p->dim, t->dim, t->dim);
    return BOIDS_OK;
}

static boids_status open_checked(app_opts *o, int backend_given, const char *path, app_traj_in *t,
                                 boids_params *p, boids_error *err) {
    if (o->load)
        return boids_error_set(err, BOIDS_ERR_INPUT,
                               "--load %s: a replay draws the frames of --replay %s, it loads no "
                               "state",
                               o->load, path);
    if (backend_given)
        return boids_error_set(err, BOIDS_ERR_INPUT,
                               "--backend %s: a replay runs no simulation (--replay %s)",
                               o->backend, path);
    if (app_traj_in_open(t, path, err)) return err->status;
    const char *given = param_option(o);
    if (t->has_sidecar && given)
        return boids_error_set(err, BOIDS_ERR_INPUT,
                               "%s: --replay %s takes the run's parameters from %s.json", given,
                               path, path);
    if (t->has_sidecar) {
        *p = t->params;
        if (t->preset[0]) o->preset = t->preset; /* its look (render_look_for_preset) */
        return BOIDS_OK;
    }
    if (!given)
        return boids_error_set(err, BOIDS_ERR_INPUT,
                               "--replay %s: no sidecar %s.json to take the run's parameters "
                               "from; give them as the run had them (--preset, --config, --set)",
                               path, path);
    return params_of_options(o, t, p, err);
}

boids_status app_replay_open(app_opts *o, int backend_given, const char *path, app_traj_in *t,
                             boids_params *p, boids_error *err) {
    t->fd = -1;
    t->buf = NULL;
    boids_status st = open_checked(o, backend_given, path, t, p, err);
    if (st) app_traj_in_close(t);
    return st;
}

boids_status app_replay_check_from(const app_traj_in *t, long from, boids_error *err) {
    if (from >= 0 && (size_t)from < t->frames) return BOIDS_OK;
    return boids_error_set(err, BOIDS_ERR_INPUT, "--from %ld: %s has frames 0 to %zu", from,
                           t->path, t->frames - 1);
}
