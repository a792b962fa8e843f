/* SPDX-License-Identifier: MIT */
/* boids sweep: running the runs. One run is a backend stepped from the run's own initial state,
 * its observables sampled from the burn-in on and summarised (boids/estimators.h); the serial
 * driver does every run not done yet in run order, each journalled as it ends. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atomic_file.h"
#include "boids/estimators.h"
#include "clock.h"
#include "boids/metrics.h"
#include "cli/cli.h"
#include "cli/progress.h"
#include "sweep/sweep.h"

/* The serial sweep's progress line (sweep_run_serial sets it; NULL in an MPI rank): runs done, and
 * the fraction of the current one, which run_one updates at each sample. */
static app_progress *sweep_bar;

/* The samples of one run: each observable's at steps burn_in, burn_in + every, ... into
 * x[k * n + i] (n samples), and the means of order^2 and order^4 into r (two passes over the
 * order's samples, boids_order_moments: never below the square of its average). */
static boids_status run_samples(const app_opts *o, boids_params *pp, const sweep *s, double *x,
                                long n, sweep_result *r, boids_error *err) {
    boids_flock f;
    boids_status st = app_initial_flock(o, pp, &f, err);
    if (st) return st;
    boids_backend *b = app_backend_create(o, pp, &f, err);
    if (!b) {
        boids_flock_free(&f);
        return err->status;
    }
    app_obs ob = s->obs;
    double v[APP_OBS_MAX];
    long done = 0, i = 0;
    if (!(st = app_obs_begin(&ob, err))) {
        for (long t = s->burn_in; t <= s->steps && i < n; t += s->every, i++) {
            if (t > done && (st = boids_backend_step(b, pp, (unsigned)(t - done), err))) break;
            done = t;
            boids_metrics m;
            if ((st = boids_backend_download(b, &f, err)) ||
                (st = app_obs_sample(&ob, &f, pp, &m, v, err)))
                break;
            for (int k = 0; k < ob.count; k++) x[(size_t)k * (size_t)n + (size_t)i] = v[k];
            if (sweep_bar)
                app_progress_update(sweep_bar,
                                    floor(sweep_bar->done) + (double)t / (double)s->steps, NULL, 0);
        }
    }
    app_obs_free(&ob);
    boids_backend_destroy(b);
    boids_flock_free(&f);
    double m1;
    if (!st) st = boids_order_moments(x, (size_t)n, 1, &m1, &r->m2, &r->m4, err);
    return st;
}

/* --series-dir: run r's samples x (n of each observable) as DIR/RUN_ID.csv, whole or not at
 * all: step, then the observables, at steps burn_in, burn_in + every, ... */
static boids_status save_series(const sweep *s, size_t r, const double *x, long n,
                                boids_error *err) {
    char path[4096];
    if (snprintf(path, sizeof path, "%s/%016" PRIx64 ".csv", s->series_dir, s->ids[r]) >=
        (int)sizeof path)
        return boids_error_set(err, BOIDS_ERR_INPUT, "--series-dir %s: the name is too long",
                               s->series_dir);
    boids_atomic_file a;
    boids_status st = boids_atomic_open(&a, path, err);
    if (st) return st;
    fputs("step", a.f);
    for (int k = 0; k < s->obs.count; k++) fprintf(a.f, ",%s", app_obs_name(&s->obs, k));
    fputc('\n', a.f);
    for (long i = 0; i < n; i++) {
        fprintf(a.f, "%ld", s->burn_in + i * s->every);
        for (int k = 0; k < s->obs.count; k++)
            fprintf(a.f, ",%.17g", x[(size_t)k * (size_t)n + (size_t)i]);
        fputc('\n', a.f);
    }
    return boids_atomic_commit(&a, err);
}

/* One run: the statistics of each observable over its samples (sweep_result). */
static boids_status run_one(const app_opts *o, const boids_params *p, const sweep *s, size_t run,
                            sweep_result *r, boids_error *err) {
    const uint64_t seed = sweep_run_seed(o, s, run);
    app_opts ro = *o;
    ro.seed = seed;
    boids_params pp = *p;
    long n = (s->steps - s->burn_in) / s->every + 1;
    double *x = malloc((size_t)s->obs.count * (size_t)n * sizeof *x);
    if (!x) return boids_error_set(err, BOIDS_ERR_NOMEM, "out of memory for %ld samples", n);
    boids_status st = run_samples(&ro, &pp, s, x, n, r, err);
    if (!st && s->series_dir) st = save_series(s, run, x, n, err);
    for (int k = 0; !st && k < s->obs.count; k++) {
        boids_series_stats ss;
        st = app_obs_series(x + (size_t)k * (size_t)n, (size_t)n, &ss, err);
        if (!st) r->avg[k] = ss.mean, r->tau[k] = ss.tau, r->se_blocks[k] = ss.se_blocks;
    }
    free(x);
    r->samples = n;
    return st;
}
boids_status sweep_execute(const app_opts *o, const sweep *s, size_t r, sweep_result *res,
                           boids_error *err) {
    boids_params p;
    boids_status st = sweep_run_params(o, s, r, &p, err);
    if (!st) st = run_one(o, &p, s, r, &res[r], err);
    if (st) return st;
    res[r].done = 1;
    return BOIDS_OK;
}

void sweep_progress(const app_opts *o, const sweep *s, size_t r, const sweep_result *res,
                    size_t done, double t0) {
    if (sweep_bar) app_progress_clear(sweep_bar);
    char what[512] = "";
    size_t ci, vi[SWEEP_MAX_KEYS];
    sweep_point_coords(s, r / (size_t)s->seeds, &ci, vi);
    for (size_t i = 0; i < s->naxes; i++)
        snprintf(what + strlen(what), sizeof what - strlen(what), ", %s %s", s->axes[i].key->key,
                 s->axes[i].values[vi[i]]);
    fprintf(stderr, "boids sweep: [%zu/%zu] N %ld%s, seed %llu: order %.4f (%.1f s)\n", done,
            sweep_part_runs(s), s->counts[ci], what, (unsigned long long)sweep_run_seed(o, s, r),
            res[r].avg[0], mono_seconds() - t0);
}

/* Largest N first, then run order. */
static const sweep *order_sweep;
static int cmp_cost(const void *a, const void *b) {
    size_t x = *(const size_t *)a, y = *(const size_t *)b, cx, cy, vi[SWEEP_MAX_KEYS];
    sweep_point_coords(order_sweep, x / (size_t)order_sweep->seeds, &cx, vi);
    sweep_point_coords(order_sweep, y / (size_t)order_sweep->seeds, &cy, vi);
    long nx = order_sweep->counts[cx], ny = order_sweep->counts[cy];
    if (nx != ny) return nx > ny ? -1 : 1;
    return x < y ? -1 : x > y;
}

size_t *sweep_queue(const sweep *s, const sweep_result *res, size_t *n) {
    size_t *q = malloc((s->nruns ? s->nruns : 1) * sizeof *q);
    if (!q) return NULL;
    *n = 0;
    for (size_t r = 0; r < s->nruns; r++)
        if (!res[r].done && sweep_in_part(s, r)) q[(*n)++] = r;
    order_sweep = s;
    qsort(q, *n, sizeof *q, cmp_cost);
    return q;
}

void sweep_note_missing(char *list, size_t size, const sweep *s, size_t r) {
    size_t len = strlen(list);
    if (len + 40 < size)
        snprintf(list + len, size - len, "%s%zu (id %016llx)", len ? ", " : "", r,
                 (unsigned long long)s->ids[r]);
    else if (len + 5 < size && strcmp(list + len - 4, " ..."))
        strcat(list, " ...");
}

size_t sweep_done(const sweep *s, const sweep_result *res) {
    size_t done = 0;
    for (size_t r = 0; r < s->nruns; r++) done += res[r].done && sweep_in_part(s, r);
    return done;
}
boids_status sweep_run_serial(const sweep *s, const app_opts *o, sweep_result *res,
                              sweep_journal *j, boids_error *err) {
    double t0 = mono_seconds();
    size_t done = sweep_done(s, res), ran = 0;
    app_progress bar;
    app_progress_begin(&bar, "boids sweep", "runs", (double)(sweep_part_runs(s) - done));
    sweep_bar = &bar;
    boids_status st = BOIDS_OK;
    for (size_t r = 0; !st && r < s->nruns; r++) {
        if (res[r].done || !sweep_in_part(s, r)) continue;
        bar.done = (double)ran;
        st = sweep_execute(o, s, r, res, err);
        if (!st) sweep_progress(o, s, r, res, ++done, t0);
        if (!st && j->f) st = sweep_journal_add(j, s, o, r, &res[r], err);
        if (!st) app_progress_update(&bar, (double)++ran, NULL, 1);
    }
    app_progress_end(&bar);
    sweep_bar = NULL;
    return st;
}
boids_status sweep_start(const sweep *s, const app_opts *o, const sweep_driver *drv,
                         sweep_result **res, sweep_journal *j, size_t *resumed, boids_error *err) {
    if (!(*res = calloc(s->nruns, sizeof **res)))
        return boids_error_set(err, BOIDS_ERR_NOMEM, "out of memory");
    boids_status st = BOIDS_OK;
    if (drv->writer && s->runs_out) st = sweep_journal_open(j, s, o, *res, resumed, err);
    if (!st && drv->writer && s->resume)
        fprintf(stderr, "boids sweep: resuming: %zu of %zu runs already done (%s)\n", *resumed,
                sweep_part_runs(s), s->runs_out);
    return st;
}
