/* SPDX-License-Identifier: MIT */
/* Estimators of a time series and of a transition (definitions in include/boids/estimators.h).
 *
 * The autocorrelation is summed lag by lag while Sokal's window rule is tested, so only the
 * lags up to the chosen window are ever computed: O(n W) with W about c tau, no storage. */
#include "boids/estimators.h"

#include <math.h>
#include <stdlib.h>

/* C(t) of x (mean m, n samples), the biased estimator: divided by n, not n - t. */
static double autocov(const double *x, size_t n, double m, size_t t) {
    double s = 0;
    for (size_t i = 0; i + t < n; i++) s += (x[i] - m) * (x[i + t] - m);
    return s / (double)n;
}

/* tau, W and whether the window rule was met. rho = 0 for a constant series (C(0) = 0). */
static void integrated_time(const double *x, size_t n, double m, double c0,
                            boids_series_stats *out) {
    double tau = 1;
    size_t w = 0;
    int reached = 0;
    for (size_t t = 1; t < n; t++) {
        if (c0 > 0) tau += 2 * autocov(x, n, m, t) / c0;
        w = t;
        if ((double)t >= BOIDS_TAU_C * tau) {
            reached = 1;
            break;
        }
    }
    /* A sum below 1/n (an alternation, or lags that cancel to rounding noise, which once
     * gave n_eff = 1.8e16) is not a time: the floor of the header. */
    const double least = 1 / (double)n;
    out->tau = tau > least ? tau : least;
    out->window = w;
    out->window_reached = reached;
}

/* The standard error of the mean from B contiguous blocks of the newest B L samples. */
static void block_error(const double *x, size_t n, boids_series_stats *out) {
    size_t b = n < 2 * (size_t)BOIDS_SERIES_BLOCKS ? n / 2 : (size_t)BOIDS_SERIES_BLOCKS;
    out->blocks = b;
    if (b < 2) {
        out->se_blocks = NAN;
        return;
    }
    size_t len = n / b, skip = n - b * len;
    double means[BOIDS_SERIES_BLOCKS], sum = 0;
    for (size_t k = 0; k < b; k++) {
        double s = 0;
        for (size_t i = 0; i < len; i++) s += x[skip + k * len + i];
        means[k] = s / (double)len;
        sum += means[k];
    }
    double mean = sum / (double)b, ss = 0;
    for (size_t k = 0; k < b; k++) ss += (means[k] - mean) * (means[k] - mean);
    out->se_blocks = sqrt(ss / (double)(b - 1) / (double)b);
}

boids_status boids_series_analyse(const double *x, size_t n, boids_series_stats *out,
                                  boids_error *err) {
    if (!x || !out)
        return boids_error_set(err, BOIDS_ERR_INPUT, "series: the %s is NULL",
                               !x ? "series" : "output");
    if (n == 0) return boids_error_set(err, BOIDS_ERR_INPUT, "series: no samples");
    double sum = 0;
    int constant = 1;
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(x[i]))
            return boids_error_set(err, BOIDS_ERR_INPUT, "series: sample %zu is %g, not finite", i,
                                   x[i]);
        sum += x[i];
        constant &= x[i] == x[0];
    }
    *out = (boids_series_stats){.n = n, .mean = sum / (double)n};
    /* Equal samples by comparison, not by C(0): the mean's rounding would leave a C(0) of
     * 1e-32 and a tau made of rounding noise. */
    out->var = constant ? 0 : autocov(x, n, out->mean, 0);
    integrated_time(x, n, out->mean, out->var, out);
    out->n_eff = (double)n / out->tau;
    block_error(x, n, out);
    if (constant && out->blocks >= 2) out->se_blocks = 0;
    return BOIDS_OK;
}

boids_status boids_order_moments(const double *x, size_t n, size_t stride, double *m1, double *m2,
                                 double *m4, boids_error *err) {
    if (!x || !m1 || !m2 || !m4)
        return boids_error_set(err, BOIDS_ERR_INPUT, "order moments: a pointer is NULL");
    if (n == 0 || stride == 0)
        return boids_error_set(err, BOIDS_ERR_INPUT, "order moments: no samples");
    double sum = 0;
    int constant = 1;
    for (size_t i = 0; i < n; i++) {
        double v = x[i * stride];
        if (!isfinite(v))
            return boids_error_set(err, BOIDS_ERR_INPUT,
                                   "order moments: sample %zu is %g, not finite", i, v);
        sum += v;
        constant &= v == x[0];
    }
    double m = sum / (double)n, var = 0, var2 = 0;
    if (!constant)
        for (size_t i = 0; i < n; i++) var += (x[i * stride] - m) * (x[i * stride] - m);
    double q = m * m + var / (double)n;
    if (!constant)
        for (size_t i = 0; i < n; i++) {
            double d = x[i * stride] * x[i * stride] - q;
            var2 += d * d;
        }
    *m1 = m;
    *m2 = q;
    *m4 = q * q + var2 / (double)n;
    return BOIDS_OK;
}

/* The runs' within-run variances w[r] = m2[r] - m1[r]^2 (checked >= 0 by the caller) summed
 * over the runs but `skip` (runs: none skipped), plus the spread of their means about the
 * mean of those runs, each over the runs counted: N times it is chi. Two passes; exactly 0
 * when every run counted has w = 0 and one mean. */
static double pooled_variance(size_t runs, const double *m1, const double *w, size_t skip) {
    double k = (double)(runs - (skip < runs)), s1 = 0, sw = 0;
    int same = 1;
    size_t first = skip == 0 ? 1 : 0;
    for (size_t r = 0; r < runs; r++)
        if (r != skip) {
            s1 += m1[r];
            sw += w[r];
            same &= m1[r] == m1[first];
        }
    double mean = s1 / k, spread = 0;
    if (!same)
        for (size_t r = 0; r < runs; r++)
            if (r != skip) spread += (m1[r] - mean) * (m1[r] - mean);
    return sw / k + spread / k;
}

/* binder of the moments M_2, M_4. */
static double binder_of(double m2, double m4) {
    return m2 != 0 ? 1 - m4 / (3 * m2 * m2) : NAN;
}

boids_status boids_transition_estimate(size_t runs, const double *m1, const double *m2,
                                       const double *m4, double n, boids_transition *out,
                                       boids_error *err) {
    if (!m1 || !m2 || !m4 || !out)
        return boids_error_set(err, BOIDS_ERR_INPUT, "transition: the %s is NULL",
                               !m1   ? "first moments"
                               : !m2 ? "second moments"
                               : !m4 ? "fourth moments"
                                     : "output");
    if (runs == 0) return boids_error_set(err, BOIDS_ERR_INPUT, "transition: no runs");
    if (!(n >= 1) || !isfinite(n))
        return boids_error_set(err, BOIDS_ERR_INPUT, "transition: N = %g is not at least 1", n);
    double s1 = 0, s2 = 0, s4 = 0;
    for (size_t r = 0; r < runs; r++) {
        if (!isfinite(m1[r]) || !isfinite(m2[r]) || !isfinite(m4[r]))
            return boids_error_set(err, BOIDS_ERR_INPUT,
                                   "transition: run %zu's moments (%g, %g, %g) are not finite", r,
                                   m1[r], m2[r], m4[r]);
        /* A variance below 0: moments of no series (edited, or of a one-pass sum). */
        if (m2[r] < m1[r] * m1[r] || m4[r] < m2[r] * m2[r])
            return boids_error_set(err, BOIDS_ERR_INPUT,
                                   "transition: run %zu's moments contradict each other: %s "
                                   "(m1 %.17g, m2 %.17g, m4 %.17g)",
                                   r, m2[r] < m1[r] * m1[r] ? "m2 < m1^2" : "m4 < m2^2", m1[r],
                                   m2[r], m4[r]);
        s1 += m1[r];
        s2 += m2[r];
        s4 += m4[r];
    }
    double *w = malloc(runs * sizeof *w);
    if (!w) return boids_error_set(err, BOIDS_ERR_NOMEM, "out of memory");
    for (size_t r = 0; r < runs; r++) w[r] = m2[r] - m1[r] * m1[r];
    double k = (double)runs;
    *out = (boids_transition){.m1 = s1 / k, .m2 = s2 / k, .m4 = s4 / k};
    out->chi = n * pooled_variance(runs, m1, w, runs);
    out->binder = binder_of(out->m2, out->m4);
    out->chi_se = out->binder_se = NAN;
    if (runs >= 2) {
        /* Two passes over the leave-one-out values: their mean, then the spread about it. */
        double chi_bar = 0, binder_bar = 0, chi_ss = 0, binder_ss = 0;
        for (int pass = 0; pass < 2; pass++)
            for (size_t r = 0; r < runs; r++) {
                double chi = n * pooled_variance(runs, m1, w, r);
                double binder = binder_of((s2 - m2[r]) / (k - 1), (s4 - m4[r]) / (k - 1));
                if (pass == 0) {
                    chi_bar += chi / k;
                    binder_bar += binder / k;
                } else {
                    chi_ss += (chi - chi_bar) * (chi - chi_bar);
                    binder_ss += (binder - binder_bar) * (binder - binder_bar);
                }
            }
        out->chi_se = sqrt((k - 1) / k * chi_ss);
        out->binder_se = sqrt((k - 1) / k * binder_ss);
    }
    free(w);
    return BOIDS_OK;
}
