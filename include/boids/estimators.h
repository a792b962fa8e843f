/* SPDX-License-Identifier: MIT */
/* Estimators of a time series and of a transition: what a researcher needs to put an honest
 * error bar on a run average and to locate an order-disorder transition (seed 003, 246.8-9:
 * "a long trajectory with strong autocorrelation is not many independent observations").
 *
 * A series is the samples of one observable in one run, in sample order (equally spaced in
 * time). For x_0 .. x_{n-1} with mean m:
 *
 *   C(t)     = (1/n) sum_{i=0}^{n-1-t} (x_i - m)(x_{i+t} - m)      (the biased estimator)
 *   rho(t)   = C(t) / C(0)
 *   tau(W)   = 1 + 2 sum_{t=1}^{W} rho(t)
 *   tau      = tau(W) for the smallest W >= 1 with W >= BOIDS_TAU_C * tau(W) (Sokal's
 *              automatic windowing, c = 5); no such W below n: W = n - 1 and
 *              window_reached = 0 (the series is too short to estimate tau: say so).
 *              tau(W) below 1/n comes only from strong anticorrelation at short lags (a
 *              series that alternates from sample to sample, or a sum that cancels to
 *              rounding noise); tau is then 1/n, the least a mean of n samples can vary
 *              (its value is then the alternation's, not a rate): tau >= 1/n always.
 *   n_eff    = n / tau, the number of independent samples the series is worth: at most
 *              n^2 (the floor), never a rounding residue's 1e16.
 *   se_blocks: the n samples cut into B contiguous blocks of L = floor(n / B) samples,
 *              B = BOIDS_SERIES_BLOCKS (n < 2 B: B = floor(n / 2) blocks of 2), the first
 *              n - B L samples (the oldest) left out; se = sd(block means) / sqrt(B) with
 *              the B - 1 standard deviation; NaN with fewer than 2 blocks (n < 4). Honest
 *              when L is several tau: with shorter blocks the block means are correlated
 *              and se understates the error (compare with sqrt(var * tau / n)).
 *
 * tau is in samples (multiply by the sample interval for steps); 1 for independent samples.
 * A constant series (C(0) = 0): rho = 0, so tau = 1, n_eff = n, se_blocks = 0 (NaN below
 * 4 samples). n = 1: tau = 1, n_eff = 1, window 0 not reached, se_blocks = NaN. The mean is
 * the samples' sum in order divided by n (a run average as boids sweep always took it).
 *
 * A transition (phi the order parameter, pooled over the samples after burn-in of R runs
 * with the same sample count, so a pooled moment is the mean of the runs' moments):
 *
 *   M_k      = (1/R) sum_r mean_r(phi^k)
 *   chi      = N (M_2 - M_1^2)               susceptibility, computed as the equal sum
 *              N ((1/R) sum_r (m2[r] - m1[r]^2) + (1/R) sum_r (m1[r] - M_1)^2): the runs'
 *              own variances and the spread of their means, each >= 0 (a second pass over
 *              the runs), so chi >= 0 and exactly 0 when every run's series is constant
 *              at the same value, where the one-pass M_2 - M_1^2 leaves -1e-13.
 *   binder   = 1 - M_4 / (3 M_2^2)           Binder cumulant: 2/3 for a sharp nonzero
 *              phi (ordered); for N independent random headings (disordered) 1/3 + 1/(3N)
 *              in 2-D and 4/9 + 2/(9N) in 3-D (the limits of 2- and 3-component Gaussian
 *              phi); M_2 = 0: NaN.
 *   chi_se, binder_se: jackknife over runs (leave one run out, R - 1 prefactor); NaN when
 *              R < 2.
 *
 * Ownership: plain values; the functions allocate nothing the caller frees. Threads:
 * reentrant. */
#ifndef BOIDS_ESTIMATORS_H
#define BOIDS_ESTIMATORS_H

#include <stddef.h>

#include "boids/api.h"
#include "boids/error.h"

BOIDS_BEGIN_DECLS

#define BOIDS_TAU_C 5.0
enum { BOIDS_SERIES_BLOCKS = 16 };

typedef struct boids_series_stats {
    size_t n;           /* samples */
    double mean;        /* (1/n) sum x_i */
    double var;         /* C(0) = (1/n) sum (x_i - mean)^2 */
    double tau;         /* integrated autocorrelation time, samples */
    size_t window;      /* the W the rule chose */
    int window_reached; /* 1: W >= c tau(W) was met below n; 0: the series is too short */
    double n_eff;       /* n / tau */
    double se_blocks;   /* standard error of the mean from blocks */
    size_t blocks;      /* B used */
} boids_series_stats;

/* The statistics of x[0 .. n-1] into *out. NULL x or out, n = 0, or a non-finite x_i
 * (naming its index): BOIDS_ERR_INPUT. O(n W) time, no allocation. */
boids_status boids_series_analyse(const double *x, size_t n, boids_series_stats *out,
                                  boids_error *err);

typedef struct boids_transition {
    double m1, m2, m4;  /* pooled moments of phi */
    double chi, chi_se; /* N (M_2 - M_1^2) and its jackknife error */
    double binder, binder_se;
} boids_transition;

/* The transition estimators of R runs from their moments m1[r], m2[r], m4[r] (means over
 * run r's samples of phi, phi^2, phi^4), for a flock of n boids. A NULL pointer, R = 0,
 * n < 1 (or not finite), a moment not finite, or moments that no series gives: m2[r] <
 * m1[r]^2 or m4[r] < m2[r]^2 (a variance below 0; naming the run): BOIDS_ERR_INPUT.
 * boids_order_moments makes moments that pass, to the last bit. The
 * jackknife's leave-one-out moments are (R M_k - m_k[r]) / (R - 1); its error is
 * sqrt((R - 1) / R sum_r (theta_(r) - mean_r theta_(r))^2). */
boids_status boids_transition_estimate(size_t runs, const double *m1, const double *m2,
                                       const double *m4, double n, boids_transition *out,
                                       boids_error *err);

/* The moments of one run's series x[0], x[stride], ... (n samples) for the transition:
 * *m1 its mean (the samples' sum in order over n, as boids_series_analyse's mean), and
 * *m2, *m4 the means of phi^2 and phi^4 in two passes, m2 = m1^2 + (1/n) sum (x - m1)^2 and
 * m4 = m2^2 + (1/n) sum (x^2 - m2)^2 (equal to them in exact arithmetic), so that m2 >= m1^2
 * and m4 >= m2^2 hold in floating point too, with equality for a constant series.
 * BOIDS_ERR_INPUT for a NULL pointer, n = 0 or a sample not finite. */
boids_status boids_order_moments(const double *x, size_t n, size_t stride, double *m1, double *m2,
                                 double *m4, boids_error *err);

BOIDS_END_DECLS

#endif
