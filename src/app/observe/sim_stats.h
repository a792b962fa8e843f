/* SPDX-License-Identifier: MIT */
/* boids sim's estimators: the observables of each sample (observables.h) for
 * --series, and over the samples at steps >= --burn-in the one-row --estimates table, the
 * pooled velocity correlation C(r) (--correlation) and the pooled number fluctuations
 * (--fluctuations). Only the writing process samples. */
#ifndef BOIDS_APP_SIM_STATS_H
#define BOIDS_APP_SIM_STATS_H

#include <cjson/cJSON.h>
#include <stddef.h>

#include "observe/observables.h"

typedef struct sim_stats {
    const char *estimates, *correlation, *fluctuations; /* output files, NULL: not asked */
    long burn_in;                                       /* -1 until checked: steps / 2 */
    app_obs obs;                                        /* range and bins as given */
    int on;      /* the observables are computed at each sample */
    int pooling; /* estimates, correlation or fluctuations asked: samples after burn-in kept */
    size_t n;    /* samples kept */
    size_t cap;  /* of x */
    double *x;   /* x[i * obs.count + k]: observable k of kept sample i */
    double *csum, *cpairs; /* pooled C(r) sums and pair counts */
    boids_fluct fl;        /* pooled: sd holds the sum of variances, side the sum of sides */
} sim_stats;

/* After the parameters: burn-in (default steps / 2; beyond steps refused), the correlation
 * range (default for --correlation: half the smallest side of a wrap world; required
 * otherwise; checked against the world), at least 2 samples after burn-in for the pooled
 * outputs (samples: the steps sampled, at 0 and every `every`, or 0 and the last), the
 * files writable. series: --series asked. BOIDS_ERR_INPUT naming the option. */
boids_status sim_stats_begin(sim_stats *ss, const boids_params *p, long steps, long every,
                             int series, boids_error *err);

/* The columns of the observables, comma-separated ("order,...,gnf_alpha[,corr_length]"). */
void sim_stats_columns(const sim_stats *ss, char *buf, size_t size);

/* The sample at `step`: its metrics into *m and observables into x (obs.count), kept when
 * step >= burn_in and a pooled output is asked. */
boids_status sim_stats_sample(sim_stats *ss, unsigned long step, const boids_flock *f,
                              const boids_params *p, boids_metrics *m, double *x, boids_error *err);

/* The sample at `step` whose observables x (obs.count; obs.fluct this state's number
 * fluctuations, obs.sum and obs.pairs its C(r) when counted) were computed elsewhere: kept as
 * sim_stats_sample keeps them. */
boids_status sim_stats_keep(sim_stats *ss, unsigned long step, const double *x, boids_error *err);

/* Writes the asked outputs (atomically, each whole or not at all). */
boids_status sim_stats_write(const sim_stats *ss, const boids_params *p, boids_error *err);

/* The sidecar fields of output `kind` ("estimates", "correlation", "fluctuations") into out. */
void sim_stats_describe(const sim_stats *ss, const char *kind, cJSON *out);

void sim_stats_free(sim_stats *ss);

#endif
