/* SPDX-License-Identifier: MIT */
/* boids sim's estimators (sim_stats.h). */
#include "observe/sim_stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "atomic_file.h"
#include "boids/estimators.h"
#include "output/provenance.h"

/* The samples at steps >= burn_in: the multiples of every up to steps, or 0 and the last. */
static long samples_after(long burn_in, long steps, long every) {
    if (every) return steps / every - (burn_in + every - 1) / every + 1;
    return (burn_in == 0) + (steps > 0);
}

/* The correlation range: as given, or for --correlation half the smallest side of a wrap
 * world; checked against the world. */
static boids_status correlation_range(sim_stats *ss, const boids_params *p, boids_error *err) {
    if (ss->correlation && !(ss->obs.range > 0)) {
        if (p->boundary != BOIDS_BOUNDARY_WRAP)
            return boids_error_set(err, BOIDS_ERR_INPUT,
                                   "--correlation: a world with %s has no natural range: give "
                                   "--correlation-range R",
                                   p->boundary == BOIDS_BOUNDARY_WALLS ? "walls"
                                                                       : "an open "
                                                                         "boundary");
        double side[3] = {p->width, p->height, p->depth}, half = side[0] / 2;
        for (int d = 1; d < p->dim; d++) half = fmin(half, side[d] / 2);
        ss->obs.range = half;
    }
    return app_obs_check(&ss->obs, p, err);
}

boids_status sim_stats_begin(sim_stats *ss, const boids_params *p, long steps, long every,
                             int series, boids_error *err) {
    const char *pooled[3] = {ss->estimates, ss->correlation, ss->fluctuations};
    static const char *const flags[3] = {"--estimates", "--correlation", "--fluctuations"};
    if (ss->burn_in >= 0 && !ss->estimates && !ss->correlation && !ss->fluctuations)
        return boids_error_set(err, BOIDS_ERR_INPUT,
                               "--burn-in %ld: only the estimators use it; give --estimates, "
                               "--correlation or --fluctuations FILE",
                               ss->burn_in);
    if (ss->burn_in < 0) ss->burn_in = steps / 2;
    if (ss->burn_in > steps)
        return boids_error_set(err, BOIDS_ERR_INPUT,
                               "--burn-in %ld is beyond --steps %ld: no sample left", ss->burn_in,
                               steps);
    long after = samples_after(ss->burn_in, steps, every);
    for (int i = 0; i < 3; i++) {
        if (!pooled[i]) continue;
        ss->pooling = 1;
        if (after < 2)
            return boids_error_set(err, BOIDS_ERR_INPUT,
                                   "%s needs at least 2 samples at steps >= --burn-in %ld, and "
                                   "--steps %ld with %s gives %ld (pass --every K, or a smaller "
                                   "--burn-in)",
                                   flags[i], ss->burn_in, steps, every ? "--every" : "no --every",
                                   after);
        if (boids_atomic_check_writable(pooled[i], err) || app_prov_check_sidecar(pooled[i], err))
            return err->status;
    }
    boids_status st = correlation_range(ss, p, err);
    if (st) return st;
    ss->on = series || ss->pooling;
    ss->obs.species = (int)p->species; /* order.0 ..., clusters.0 ... with species */
    if ((st = app_obs_begin(&ss->obs, err))) return st;
    if (ss->correlation) {
        ss->csum = calloc((size_t)ss->obs.bins, sizeof *ss->csum);
        ss->cpairs = calloc((size_t)ss->obs.bins, sizeof *ss->cpairs);
        if (!ss->csum || !ss->cpairs) return boids_error_set(err, BOIDS_ERR_NOMEM, "out of memory");
    }
    return BOIDS_OK;
}

void sim_stats_columns(const sim_stats *ss, char *buf, size_t size) {
    size_t len = 0;
    buf[0] = '\0';
    for (int k = 0; k < ss->obs.count && len < size; k++)
        len += (size_t)snprintf(buf + len, size - len, "%s%s", k ? "," : "",
                                app_obs_name(&ss->obs, k));
}

/* Adds this sample's number fluctuations to the pooled ones (sums of variances and sides). */
static boids_status pool_fluct(sim_stats *ss, boids_error *err) {
    const boids_fluct *s = &ss->obs.fluct;
    if (ss->n == 0) { /* the levels (per_axis, boxes, mean) are the first sample's */
        ss->fl = *s;
        for (size_t i = 0; i < s->nlevels; i++) {
            ss->fl.level[i].sd = 0;
            memset(ss->fl.level[i].side, 0, sizeof s->level[i].side);
        }
    }
    if (s->nlevels != ss->fl.nlevels)
        return boids_error_set(err, BOIDS_ERR_RUNTIME,
                               "--fluctuations: a sample has %zu levels, the first had %zu",
                               s->nlevels, ss->fl.nlevels);
    for (size_t i = 0; i < s->nlevels; i++) {
        ss->fl.level[i].sd += s->level[i].sd * s->level[i].sd;
        for (int d = 0; d < 3; d++) ss->fl.level[i].side[d] += s->level[i].side[d];
    }
    return BOIDS_OK;
}

boids_status sim_stats_sample(sim_stats *ss, unsigned long step, const boids_flock *f,
                              const boids_params *p, boids_metrics *m, double *x,
                              boids_error *err) {
    boids_status st = app_obs_sample(&ss->obs, f, p, m, x, err);
    return st ? st : sim_stats_keep(ss, step, x, err);
}

boids_status sim_stats_keep(sim_stats *ss, unsigned long step, const double *x, boids_error *err) {
    boids_status st = BOIDS_OK;
    if (!ss->pooling || step < (unsigned long)ss->burn_in) return st;
    int count = ss->obs.count;
    if (ss->n == ss->cap) {
        size_t cap = ss->cap ? 2 * ss->cap : 64;
        double *grown = realloc(ss->x, cap * (size_t)count * sizeof *grown);
        if (!grown) return boids_error_set(err, BOIDS_ERR_NOMEM, "out of memory for the samples");
        ss->x = grown;
        ss->cap = cap;
    }
    memcpy(ss->x + ss->n * (size_t)count, x, (size_t)count * sizeof *x);
    for (long b = 0; ss->csum && b < ss->obs.bins; b++) {
        ss->csum[b] += ss->obs.sum[b];
        ss->cpairs[b] += ss->obs.pairs[b];
    }
    if (ss->fluctuations && (st = pool_fluct(ss, err))) return st;
    ss->n++;
    return BOIDS_OK;
}

/* The pooled fluctuations: sd = sqrt(mean variance), side the mean side, refitted. */
static boids_fluct pooled_fluct(const sim_stats *ss) {
    boids_fluct fl = ss->fl;
    for (size_t i = 0; i < fl.nlevels; i++) {
        fl.level[i].sd = sqrt(fl.level[i].sd / (double)ss->n);
        for (int d = 0; d < 3; d++) fl.level[i].side[d] /= (double)ss->n;
    }
    fl.alpha = boids_fluct_fit(&fl);
    return fl;
}

static void estimates_header(FILE *f, const sim_stats *ss) {
    fputs("N,samples", f);
    for (int k = 0; k < ss->obs.count; k++) {
        const char *x = app_obs_name(&ss->obs, k);
        fprintf(f, ",%s_mean,%s_se_blocks,%s_tau,%s_neff", x, x, x, x);
    }
    fprintf(f, ",order_chi,order_binder%s%s\n", ss->correlation ? ",corr_length_pooled" : "",
            ss->fluctuations ? ",gnf_alpha_pooled" : "");
}

static const char correlation_columns[] = "r_lo,r_hi,r,pairs,c";
static const char fluctuation_columns[] = "per_axis,boxes,side_x,side_y,side_z,mean,sd,fitted";

static boids_status write_estimates(FILE *f, const sim_stats *ss, const boids_params *p,
                                    boids_error *err) {
    int count = ss->obs.count;
    double *col = malloc(ss->n * sizeof *col);
    if (!col) return boids_error_set(err, BOIDS_ERR_NOMEM, "out of memory");
    estimates_header(f, ss);
    fprintf(f, "%ld,%zu", p->count, ss->n);
    boids_status st = BOIDS_OK;
    for (int k = 0; !st && k < count; k++) {
        boids_series_stats s;
        for (size_t i = 0; i < ss->n; i++) col[i] = ss->x[i * (size_t)count + (size_t)k];
        if (!(st = app_obs_series(col, ss->n, &s, err)))
            fprintf(f, ",%.17g,%.17g,%.17g,%.17g", s.mean, s.se_blocks, s.tau, s.n_eff);
    }
    free(col);
    if (st) return st;
    /* One run: the transition estimators of its own moments (order is observable 0), no
     * jackknife. */
    double m1, m2, m4;
    boids_transition t;
    if ((st = boids_order_moments(ss->x, ss->n, (size_t)count, &m1, &m2, &m4, err)) ||
        (st = boids_transition_estimate(1, &m1, &m2, &m4, (double)p->count, &t, err)))
        return st;
    fprintf(f, ",%.17g,%.17g", t.chi, t.binder);
    if (ss->correlation)
        fprintf(
            f, ",%.17g",
            boids_correlation_length(ss->csum, ss->cpairs, (size_t)ss->obs.bins, ss->obs.range));
    if (ss->fluctuations) fprintf(f, ",%.17g", pooled_fluct(ss).alpha);
    fputc('\n', f);
    return BOIDS_OK;
}

static boids_status write_correlation(FILE *f, const sim_stats *ss, const boids_params *p,
                                      boids_error *err) {
    (void)p, (void)err;
    double h = ss->obs.range / (double)ss->obs.bins;
    fprintf(f, "%s\n", correlation_columns);
    for (long b = 0; b < ss->obs.bins; b++) {
        double lo = (double)b * h, hi = (double)(b + 1) * h;
        fprintf(f, "%.17g,%.17g,%.17g,%.17g,%.17g\n", lo, hi, (lo + hi) / 2, ss->cpairs[b],
                ss->cpairs[b] > 0 ? ss->csum[b] / ss->cpairs[b] : NAN);
    }
    return BOIDS_OK;
}

static boids_status write_fluctuations(FILE *f, const sim_stats *ss, const boids_params *p,
                                       boids_error *err) {
    (void)p, (void)err;
    boids_fluct fl = pooled_fluct(ss);
    fprintf(f, "%s\n", fluctuation_columns);
    for (size_t i = 0; i < fl.nlevels; i++) {
        const boids_fluct_level *l = &fl.level[i];
        fprintf(f, "%ld,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%d\n", l->per_axis, l->boxes,
                l->side[0], l->side[1], l->side[2], l->mean, l->sd, l->fitted);
    }
    return BOIDS_OK;
}

boids_status sim_stats_write(const sim_stats *ss, const boids_params *p, boids_error *err) {
    const char *files[3] = {ss->estimates, ss->correlation, ss->fluctuations};
    boids_status (*write[3])(FILE *, const sim_stats *, const boids_params *, boids_error *) = {
        write_estimates, write_correlation, write_fluctuations};
    for (int i = 0; i < 3; i++) {
        if (!files[i]) continue;
        boids_atomic_file a;
        boids_status st = boids_atomic_open(&a, files[i], err);
        if (st) return st;
        if ((st = write[i](a.f, ss, p, err))) {
            boids_atomic_abort(&a);
            return st;
        }
        if ((st = boids_atomic_commit(&a, err))) return st;
    }
    return BOIDS_OK;
}

void sim_stats_describe(const sim_stats *ss, const char *kind, cJSON *out) {
    char *header = NULL;
    size_t size = 0;
    FILE *m = strcmp(kind, "estimates") ? NULL : open_memstream(&header, &size);
    if (m) {
        estimates_header(m, ss);
        fclose(m);
        if (header) header[strcspn(header, "\n")] = '\0';
    }
    const char *columns = !strcmp(kind, "correlation")    ? correlation_columns
                          : !strcmp(kind, "fluctuations") ? fluctuation_columns
                                                          : header;
    if (columns) cJSON_AddItemToObject(out, "columns", app_prov_columns(columns));
    free(header);
    cJSON_AddNumberToObject(out, "burn_in", (double)ss->burn_in);
    cJSON_AddNumberToObject(out, "samples_pooled", (double)ss->n);
    if (!strcmp(kind, "correlation") || ss->obs.range > 0) {
        cJSON_AddNumberToObject(out, "correlation_range", ss->obs.range);
        cJSON_AddNumberToObject(out, "correlation_bins", (double)ss->obs.bins);
    }
    const char *what =
        !strcmp(kind, "estimates")
            ? "boids/estimators.h over the samples at steps >= burn_in: X_mean, X_se_blocks (16 "
              "blocks), X_tau (Sokal window c = 5, samples), X_neff = samples / X_tau; "
              "order_chi = N (<phi^2> - <phi>^2), order_binder = 1 - <phi^4> / (3 <phi^2>^2) of "
              "this run; *_pooled: of the pooled correlation and fluctuations"
        : !strcmp(kind, "correlation")
            ? "the connected velocity correlation C(r) (boids/structure.h) summed over the "
              "samples at steps >= burn_in: pairs and pair sums added, c = sum / pairs (nan: no "
              "pair in the bin)"
            : "number fluctuations (boids/structure.h) over the samples at steps >= burn_in: "
              "mean = N / boxes, sd = sqrt(mean over samples of the level's variance), fitted: "
              "a level of the fit of gnf_alpha_pooled";
    cJSON_AddStringToObject(out, "definition", what);
}

void sim_stats_free(sim_stats *ss) {
    app_obs_free(&ss->obs);
    free(ss->x);
    free(ss->csum);
    free(ss->cpairs);
    ss->x = ss->csum = ss->cpairs = NULL;
}
