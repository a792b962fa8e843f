/* SPDX-License-Identifier: MIT */
/* The per-sample observables of sim and sweep (observables.h). */
#include "observe/observables.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *app_obs_name(const app_obs *ob, int k) {
    static const char *const sp[APP_OBS_SP_KINDS][BOIDS_MAX_SPECIES] = {
        {"order.0", "order.1", "order.2", "order.3"},
        {"clusters.0", "clusters.1", "clusters.2", "clusters.3"},
        {"largest_cluster.0", "largest_cluster.1", "largest_cluster.2", "largest_cluster.3"}};
    _Static_assert(BOIDS_MAX_SPECIES == 4, "a name per species");
    if (k < BOIDS_METRICS_COUNT) return boids_metrics_names[k];
    if (app_obs_species_of(ob, k) >= 0)
        return sp[(k - ob->sp_first) / ob->species][app_obs_species_of(ob, k)];
    return k == APP_OBS_GNF ? "gnf_alpha" : k == APP_OBS_CORR && ob->range > 0 ? "corr_length" : "";
}

int app_obs_species_of(const app_obs *ob, int k) {
    return ob->species > 1 && k >= ob->sp_first && k < ob->count ? (k - ob->sp_first) % ob->species
                                                                 : -1;
}

int app_obs_species_metric(const app_obs *ob, int k) {
    static const int metric[APP_OBS_SP_KINDS] = {0, 4, 5}; /* order, clusters, largest_cluster */
    return app_obs_species_of(ob, k) < 0 ? -1 : metric[(k - ob->sp_first) / ob->species];
}

boids_status app_obs_species(const boids_flock *f, const boids_params *p,
                             double sp[][BOIDS_MAX_SPECIES], boids_error *err) {
    boids_order_species(f, p, sp[0]);
    return boids_clusters_species(f, p, sp[1], sp[2], err);
}

boids_status app_obs_begin(app_obs *ob, boids_error *err) {
    if (ob->bins && !(ob->range > 0))
        return boids_error_set(err, BOIDS_ERR_INPUT,
                               "--correlation-bins %ld: there is no C(r) to bin without a "
                               "correlation range",
                               ob->bins);
    if (!ob->bins && ob->range > 0) ob->bins = 50;
    if (ob->species > BOIDS_MAX_SPECIES) ob->species = BOIDS_MAX_SPECIES;
    ob->sp_first = ob->range > 0 ? APP_OBS_CORR + 1 : APP_OBS_GNF + 1;
    ob->count = ob->sp_first + (ob->species > 1 ? APP_OBS_SP_KINDS * ob->species : 0);
    ob->sum = ob->pairs = NULL;
    if (!(ob->range > 0)) return BOIDS_OK;
    ob->sum = calloc((size_t)ob->bins, sizeof *ob->sum); /* no pairs until a sample */
    ob->pairs = calloc((size_t)ob->bins, sizeof *ob->pairs);
    if (!ob->sum || !ob->pairs) {
        app_obs_free(ob);
        return boids_error_set(err, BOIDS_ERR_NOMEM, "out of memory");
    }
    return BOIDS_OK;
}

void app_obs_free(app_obs *ob) {
    free(ob->sum);
    free(ob->pairs);
    ob->sum = ob->pairs = NULL;
}

boids_status app_obs_check(const app_obs *ob, const boids_params *p, boids_error *err) {
    if (!(ob->range > 0)) return BOIDS_OK;
    if (p->count < 2)
        return boids_error_set(err, BOIDS_ERR_INPUT,
                               "--correlation-range: a flock of %ld boid has no pairs to correlate",
                               p->count);
    if (p->boundary != BOIDS_BOUNDARY_WRAP) return BOIDS_OK;
    double side[3] = {p->width, p->height, p->depth};
    static const char *const names[3] = {"width", "height", "depth"};
    for (int d = 0; d < p->dim; d++)
        if (ob->range > side[d] / 2)
            return boids_error_set(err, BOIDS_ERR_INPUT,
                                   "--correlation-range %g is beyond half (%g) of the world's "
                                   "%s %g (a pair of a wrap world farther apart than that has "
                                   "two distances)",
                                   ob->range, side[d] / 2, names[d], side[d]);
    return BOIDS_OK;
}

void app_obs_clear(app_obs *ob) {
    memset(ob->sum, 0, (size_t)ob->bins * sizeof *ob->sum);
    memset(ob->pairs, 0, (size_t)ob->bins * sizeof *ob->pairs);
}

void app_obs_fill(const app_obs *ob, const boids_metrics *m, double *x) {
    for (int k = 0; k < BOIDS_METRICS_COUNT; k++) x[k] = boids_metrics_get(m, k);
    x[APP_OBS_GNF] = ob->fluct.alpha;
    if (ob->range > 0)
        x[APP_OBS_CORR] = boids_correlation_length(ob->sum, ob->pairs, (size_t)ob->bins, ob->range);
    for (int q = 0; q < APP_OBS_SP_KINDS && ob->species > 1; q++)
        for (int s = 0; s < ob->species; s++) x[ob->sp_first + q * ob->species + s] = ob->sp[q][s];
}

boids_status app_obs_sample(app_obs *ob, const boids_flock *f, const boids_params *p,
                            boids_metrics *m, double *x, boids_error *err) {
    boids_status st = boids_metrics_compute(f, p, m, err);
    if (!st) st = boids_number_fluctuations(f, p, &ob->fluct, err);
    if (st) return st;
    if (ob->range > 0) {
        app_obs_clear(ob);
        st = boids_velocity_correlation_add(f, p, ob->range, (size_t)ob->bins, ob->sum, ob->pairs,
                                            err);
    }
    memset(ob->sp, 0, sizeof ob->sp); /* a run with fewer species: 0 */
    if (!st && ob->species > 1) st = app_obs_species(f, p, ob->sp, err);
    if (!st) app_obs_fill(ob, m, x);
    return st;
}

boids_status app_obs_series(const double *x, size_t n, boids_series_stats *st, boids_error *err) {
    double sum = 0;
    for (size_t i = 0; i < n; i++) sum += x[i];
    if (!isnan(sum)) return boids_series_analyse(x, n, st, err);
    *st = (boids_series_stats){
        .n = n, .mean = sum / (double)n, .var = NAN, .tau = NAN, .n_eff = NAN, .se_blocks = NAN};
    return BOIDS_OK;
}
