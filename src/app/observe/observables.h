/* SPDX-License-Identifier: MIT */
/* The observables of one flock state that `boids sim` (its --series and --estimates) and
 * `boids sweep` (its runs) take at each sample, defined once for both, in this order:
 *
 *   the six of boids_metrics (boids/metrics.h), in struct order;
 *   gnf_alpha    the exponent of the number fluctuations (boids_number_fluctuations,
 *                boids/structure.h), always; NaN when the flock has too few boids for two
 *                fit levels (fewer than 256 in 2-D);
 *   corr_length  the first zero of this state's velocity correlation C(r) over `range` in
 *                `bins` bins (boids_correlation_length), only when a range is set; NaN when
 *                C stays positive over the range;
 *   order.0 .. order.{S-1}  with S = `species` > 1, each species' order (boids_order_species:
 *                its boids' unit velocities summed in id order, over its number of boids;
 *                0 for a species with none);
 *   clusters.0 .. clusters.{S-1}, largest_cluster.0 .. largest_cluster.{S-1}  with S > 1,
 *                each species' clusters (boids_clusters_species: the components of the
 *                clusters' graph restricted to the pairs of boids of one species), their
 *                number and the largest one's share of the species' boids (0 and 0 for a
 *                species with none).
 *
 * Ownership: app_obs_begin allocates the state's correlation arrays, app_obs_free frees
 * them. Threads: one app_obs per thread. */
#ifndef BOIDS_APP_OBSERVABLES_H
#define BOIDS_APP_OBSERVABLES_H

#include <stddef.h>

#include "boids/estimators.h"
#include "boids/metrics.h"
#include "boids/structure.h"
#include "cli/cli.h"

enum {
    APP_OBS_GNF = BOIDS_METRICS_COUNT,      /* index of gnf_alpha */
    APP_OBS_CORR = BOIDS_METRICS_COUNT + 1, /* index of corr_length, when counted */
    APP_OBS_SP_KINDS = 3,                   /* each species': order, clusters, largest_cluster */
    APP_OBS_MAX = BOIDS_METRICS_COUNT + 2 + APP_OBS_SP_KINDS * BOIDS_MAX_SPECIES
};

typedef struct app_obs {
    double range;        /* > 0: corr_length over [0, range); 0: not an observable */
    long bins;           /* bins of C(r); 0: not given, 50 once app_obs_begin ran */
    int species;         /* S > 1: order.0 .. order.{S-1}, clusters.0 ..., largest_cluster.0
                            ... (the run's species, set before app_obs_begin); 0 or 1: none */
    int count;           /* observables: 7, or 8 with corr_length, then 3 S with species (set
                            by app_obs_begin) */
    int sp_first;        /* the index of order.0 (set by app_obs_begin) */
    double *sum, *pairs; /* the last sample's C(r) pair sums and counts (bins each) */
    boids_fluct fluct;   /* the last sample's number fluctuations */
    /* the last sample's order, clusters and largest_cluster of each species */
    double sp[APP_OBS_SP_KINDS][BOIDS_MAX_SPECIES];
} app_obs;

/* The two options that set range and bins, for a command's own table (ob: an app_obs *). */
#define APP_OBS_OPTIONS(ob)                                                                        \
    {APP_REAL,                                                                                     \
     "correlation-range",                                                                          \
     0,                                                                                            \
     "R",                                                                                          \
     &(ob)->range,                                                                                 \
     0,                                                                                            \
     1e30,                                                                                         \
     .open = 1,                                                                                    \
     .help = "also the observable corr_length: the first zero of C(r) over\n"                      \
             "[0, R) (at most half the smallest side of a wrap world)"},                           \
    {                                                                                              \
        APP_LONG, "correlation-bins", 0, "B", &(ob)->bins, 1, 100000,                              \
            .help = "distance bins of C(r) in [0, R) (default 50)"                                 \
    }

/* The observables' names (k < count); the CSV columns use them as they are. */
const char *app_obs_name(const app_obs *ob, int k);

/* The species whose order or clusters observable k is (order.s, clusters.s,
 * largest_cluster.s), or -1; app_obs_species_metric: the index of the whole flock's metric it
 * is of (0 order, 4 clusters, 5 largest_cluster: boids_metrics_names), or -1. */
int app_obs_species_of(const app_obs *ob, int k);
int app_obs_species_metric(const app_obs *ob, int k);

/* Each species' order, clusters and largest_cluster of f under p (species > 1) into sp[0],
 * sp[1], sp[2] (boids_order_species, boids_clusters_species). */
boids_status app_obs_species(const boids_flock *f, const boids_params *p,
                             double sp[][BOIDS_MAX_SPECIES], boids_error *err);

/* After parsing, once the range is known: --correlation-bins only with a range
 * (BOIDS_ERR_INPUT), the default bins (50), the count, and the arrays of C(r) when a range
 * is set. Begun again on a copy (a run's own arrays), it only allocates. */
boids_status app_obs_begin(app_obs *ob, boids_error *err);
void app_obs_free(app_obs *ob);

/* The range against the world of p (a wrap world: at most half its smallest side; 2 boids
 * at least), before any run: BOIDS_ERR_INPUT naming --correlation-range. */
boids_status app_obs_check(const app_obs *ob, const boids_params *p, boids_error *err);

/* The observables of f in the world of p into x[0 .. count - 1] and the metrics into *m;
 * ob->sum, ob->pairs and ob->fluct hold this state's C(r) and fluctuations after it. */
boids_status app_obs_sample(app_obs *ob, const boids_flock *f, const boids_params *p,
                            boids_metrics *m, double *x, boids_error *err);

/* The observables of a state whose metrics m, number fluctuations (in ob->fluct), species'
 * orders and clusters (in ob->sp, with species) and, when counted, C(r) (in ob->sum and ob->pairs,
 * zeroed by app_obs_clear and added to) were computed elsewhere (a flock in parts) into
 * x[0 .. count - 1]. */
void app_obs_clear(app_obs *ob);
void app_obs_fill(const app_obs *ob, const boids_metrics *m, double *x);

/* The statistics of one observable's samples x[0 .. n-1] (n >= 1): those of
 * boids_series_analyse, or, when a sample is NaN (the observable undefined for that state),
 * the mean (NaN) with tau, n_eff and se_blocks NaN. */
boids_status app_obs_series(const double *x, size_t n, boids_series_stats *st, boids_error *err);

#endif
