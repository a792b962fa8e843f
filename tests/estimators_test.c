/* SPDX-License-Identifier: MIT */
/* The estimators of boids/estimators.h against series whose answers are known in closed
 * form: an AR(1) process (tau = (1 + a) / (1 - a), the standard error of its mean), independent
 * samples (tau = 1), a constant phi (chi = 0, Binder 2/3) and a 2-component Gaussian phi
 * (Binder 1/3), the jackknife against a leave-one-out recomputation done here by hand, and
 * the floors that rounding must not cross (tau >= 1/n, chi >= 0, chi = 0 for a constant phi).
 * Each check names the property and the reason for its tolerance. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "boids/estimators.h"
#include "boids/rng.h"
#include "check.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

/* A standard normal deviate (Box-Muller; 1 - u keeps the logarithm's argument above 0). */
static double gauss(boids_rng *r) {
    double u = 1 - boids_rng_random(r), v = boids_rng_random(r);
    return sqrt(-2 * log(u)) * cos(2 * M_PI * v);
}

static boids_series_stats analyse(const double *x, size_t n) {
    boids_series_stats st;
    boids_error err;
    boids_status s = boids_series_analyse(x, n, &st, &err);
    CHECK(s == BOIDS_OK, "boids_series_analyse failed: %s", err.msg);
    return st;
}

/* x_{t+1} = a x_t + e_t, e_t ~ N(0, 1), started from the stationary law N(0, 1 / (1 - a^2)). */
static void ar1(double *x, size_t n, double a, uint64_t seed) {
    boids_rng r;
    boids_rng_seed(&r, seed);
    x[0] = gauss(&r) / sqrt(1 - a * a);
    for (size_t t = 1; t < n; t++) x[t] = a * x[t - 1] + gauss(&r);
}

static void test_ar1_tau_and_block_error(void) {
    enum { N = 200000 };
    const double a = 0.8, tau = (1 + a) / (1 - a), var = 1 / (1 - a * a);
    double *x = malloc(N * sizeof *x);
    ar1(x, N, a, 22);
    boids_series_stats st = analyse(x, N);
    /* The estimator's relative standard deviation at W ~ 5 tau is about
     * sqrt(2 (2W + 1) / n) = 3 % here; the window's truncation bias is a^W ~ 1e-4. */
    CHECK_NEAR(st.tau / tau, 1, 0.05, "AR(1) a = 0.8: tau = 9 within 5 %% (relative sd ~3 %%)");
    CHECK(st.window_reached && st.window >= BOIDS_TAU_C * st.tau && st.window < 2 * 5 * tau,
          "Sokal's window met, W = %zu for tau %g", st.window, st.tau);
    CHECK_NEAR(st.n_eff, N / st.tau, 1e-9 * N, "n_eff = n / tau");
    CHECK(st.blocks == BOIDS_SERIES_BLOCKS, "%zu blocks", st.blocks);
    /* The exact standard error of the mean is sqrt(var tau / n). Blocks of 12500 samples are
     * ~1400 tau long, so their means are nearly independent; the error left is that of a
     * standard deviation from 16 values, relative sd 1 / sqrt(2 (16 - 1)) = 0.18: a factor
     * within [0.45, 1.55] is three of those. */
    double exact = sqrt(var * tau / N);
    CHECK(st.se_blocks > 0.45 * exact && st.se_blocks < 1.55 * exact,
          "se_blocks %g against the exact AR(1) standard error %g (3 sd of a 16-block sd)",
          st.se_blocks, exact);
    /* The naive sqrt(var / n) is 3 times too small for this series: the blocks are not. */
    CHECK(st.se_blocks > 2 * sqrt(st.var / N), "se_blocks %g above the naive %g", st.se_blocks,
          sqrt(st.var / N));
    free(x);
}

static void test_independent_samples(void) {
    enum { N = 100000 };
    double *x = malloc(N * sizeof *x);
    boids_rng r;
    boids_rng_seed(&r, 7);
    for (size_t i = 0; i < N; i++) x[i] = boids_rng_random(&r);
    boids_series_stats st = analyse(x, N);
    /* Relative sd sqrt(2 (2 W + 1) / n) with W ~ 5: 0.015; 0.1 is more than 6 of them. */
    CHECK_NEAR(st.tau, 1, 0.1, "iid uniform: tau ~ 1 (estimator sd 0.015)");
    CHECK(st.window_reached && st.window == 5, "iid: the window stops at W = 5 (%zu)", st.window);
    /* Uniform [0, 1): variance 1/12, estimated to a relative 1 / sqrt(n / 0.8) ~ 0.3 %. */
    CHECK_NEAR(st.var, 1.0 / 12, 0.02 / 12, "iid uniform: C(0) = 1/12 within 2 %%");
    free(x);
}

static void test_edges(void) {
    double c[40];
    for (int i = 0; i < 40; i++) c[i] = 0.3;
    boids_series_stats st = analyse(c, 40);
    CHECK(st.var == 0 && st.tau == 1 && st.n_eff == 40 && st.se_blocks == 0,
          "constant: var 0, tau 1, n_eff n, se 0 (%g %g %g %g)", st.var, st.tau, st.n_eff,
          st.se_blocks);
    CHECK(st.window == 5 && st.window_reached, "constant: rho = 0 stops the window at c");
    st = analyse(c, 1);
    CHECK(st.tau == 1 && st.n_eff == 1 && isnan(st.se_blocks) && st.blocks == 0 && st.window == 0 &&
              !st.window_reached && st.mean == 0.3,
          "n = 1: tau 1, n_eff 1, se NaN, window not reached");
    double two[2] = {1, 2};
    st = analyse(two, 2);
    CHECK(st.blocks == 1 && isnan(st.se_blocks) && st.mean == 1.5 && st.var == 0.25,
          "n = 2: one block, se NaN (%zu, %g)", st.blocks, st.se_blocks);
    /* 1, 2: rho(1) = -1/2, tau(1) = 0: the alternation's floor 1/n. */
    CHECK(st.tau == 0.5 && st.window == 1 && st.window_reached, "n = 2: tau %g", st.tau);
    double alt[64];
    for (int i = 0; i < 64; i++) alt[i] = i % 2 ? 1 : -1;
    st = analyse(alt, 64);
    CHECK(st.tau == 1.0 / 64 && st.tau > 0, "alternating: tau floored at 1/n (%g)", st.tau);
    /* 2 B samples and one more: 16 blocks of 2, the oldest sample left out. */
    double ramp[33];
    for (int i = 0; i < 33; i++) ramp[i] = i;
    st = analyse(ramp, 33);
    CHECK(st.blocks == 16, "33 samples: 16 blocks (%zu)", st.blocks);
    /* Block means 1.5, 3.5, ..., 31.5, 2 apart: sd 2 sqrt(B (B + 1) / 12), over sqrt(B). */
    CHECK_NEAR(st.se_blocks, 2 * sqrt(16.0 * 17 / 12) / 4, 1e-12,
               "ramp: se of the block means i + 0.5 (2 apart), rounding only");
    boids_error err;
    c[7] = NAN;
    CHECK(boids_series_analyse(c, 40, &st, &err) == BOIDS_ERR_INPUT &&
              strstr(err.msg, "sample 7") != NULL,
          "a NaN sample is refused, naming its index: %s", err.msg);
    CHECK(boids_series_analyse(c, 0, &st, &err) == BOIDS_ERR_INPUT, "n = 0 refused");
    CHECK(boids_series_analyse(NULL, 3, &st, &err) == BOIDS_ERR_INPUT, "NULL x refused");
}

static boids_transition transition(size_t runs, const double *m1, const double *m2,
                                   const double *m4, double n) {
    boids_transition t;
    boids_error err;
    boids_status s = boids_transition_estimate(runs, m1, m2, m4, n, &t, &err);
    CHECK(s == BOIDS_OK, "boids_transition_estimate failed: %s", err.msg);
    return t;
}

static void test_transition_constant_and_gaussian(void) {
    /* phi = 0.5 in every sample of three runs: moments exact in binary. */
    double m1[3] = {0.5, 0.5, 0.5}, m2[3] = {0.25, 0.25, 0.25}, m4[3] = {0.0625, 0.0625, 0.0625};
    boids_transition t = transition(3, m1, m2, m4, 1000);
    CHECK(t.chi == 0 && t.chi_se == 0, "constant phi: chi 0 (%g +- %g)", t.chi, t.chi_se);
    /* 1 - (1/3 rounded) is 2/3 up to the two roundings of the formula. */
    CHECK_NEAR(t.binder, 2.0 / 3, 2.3e-16, "constant phi: binder 2/3 (two roundings)");
    CHECK(t.binder_se == 0, "constant phi: binder_se 0 (%g)", t.binder_se);
    t = transition(1, m1, m2, m4, 1000);
    CHECK(isnan(t.chi_se) && isnan(t.binder_se), "one run: no jackknife error");
    double z[1] = {0};
    t = transition(1, z, z, z, 10);
    CHECK(isnan(t.binder) && t.chi == 0, "M_2 = 0: binder NaN");

    /* phi = |g|, g ~ N(0, I_2), in 10 runs of 10^4 samples. phi^2 / 2 is exponential, so
     * by the delta method the estimated binder has sd 2 / (3 sqrt(n)) = 0.0021 at n = 10^5:
     * 0.01 is 4.7 of them. */
    enum { RUNS = 10, PER = 10000 };
    double g1[RUNS], g2[RUNS], g4[RUNS];
    boids_rng r;
    boids_rng_seed(&r, 2004);
    for (int k = 0; k < RUNS; k++) {
        double s1 = 0, s2 = 0, s4 = 0;
        for (int i = 0; i < PER; i++) {
            double a = gauss(&r), b = gauss(&r), q = a * a + b * b;
            s1 += sqrt(q);
            s2 += q;
            s4 += q * q;
        }
        g1[k] = s1 / PER, g2[k] = s2 / PER, g4[k] = s4 / PER;
    }
    t = transition(RUNS, g1, g2, g4, 400);
    CHECK_NEAR(t.binder, 1.0 / 3, 0.01, "2-component Gaussian phi: binder 1/3 (sd 0.0021)");
    /* The jackknife over 10 runs estimates that sd to a relative 1 / sqrt(2 * 9) = 0.24:
     * [0.3, 1.7] is three of those. */
    double sd = 2 / (3 * sqrt((double)RUNS * PER));
    CHECK(t.binder_se > 0.3 * sd && t.binder_se < 1.7 * sd,
          "binder_se %g against the delta method's %g", t.binder_se, sd);
    /* chi = N var(phi) with var(|g|) = 2 - pi / 2 for the Rayleigh law; the pooled variance
     * of 10^5 samples has relative sd ~0.5 %, 3 % is six of them. */
    CHECK_NEAR(t.chi / (400 * (2 - M_PI / 2)), 1, 0.03, "Gaussian phi: chi = N var(phi)");
}

/* The jackknife's errors against leave-one-out estimates recomputed here, one call each. */
static void test_jackknife_brute_force(void) {
    enum { R = 7 };
    double m1[R], m2[R], m4[R];
    boids_rng r;
    boids_rng_seed(&r, 3);
    for (int k = 0; k < R; k++) {
        m1[k] = boids_rng_uniform(&r, 0.2, 0.8);
        m2[k] = m1[k] * m1[k] + boids_rng_uniform(&r, 0.001, 0.05);
        m4[k] = m2[k] * m2[k] + boids_rng_uniform(&r, 0.001, 0.05);
    }
    boids_transition all = transition(R, m1, m2, m4, 256);
    double chi[R], binder[R], cbar = 0, bbar = 0;
    for (int k = 0; k < R; k++) {
        double a1[R - 1], a2[R - 1], a4[R - 1];
        for (int i = 0, j = 0; i < R; i++)
            if (i != k) a1[j] = m1[i], a2[j] = m2[i], a4[j++] = m4[i];
        boids_transition t = transition(R - 1, a1, a2, a4, 256);
        chi[k] = t.chi, binder[k] = t.binder;
        cbar += chi[k] / R, bbar += binder[k] / R;
    }
    double cs = 0, bs = 0;
    for (int k = 0; k < R; k++) {
        cs += (chi[k] - cbar) * (chi[k] - cbar);
        bs += (binder[k] - bbar) * (binder[k] - bbar);
    }
    /* Same formula, moments summed in another order: rounding only. */
    CHECK_NEAR(all.chi_se, sqrt((R - 1.0) / R * cs), 1e-10 * all.chi_se,
               "chi_se = the leave-one-out jackknife (rounding)");
    CHECK_NEAR(all.binder_se, sqrt((R - 1.0) / R * bs), 1e-10 * all.binder_se,
               "binder_se = the leave-one-out jackknife (rounding)");
    double s1 = 0, s2 = 0;
    for (int k = 0; k < R; k++) s1 += m1[k], s2 += m2[k];
    CHECK_NEAR(all.chi, 256 * (s2 / R - (s1 / R) * (s1 / R)), 1e-12,
               "chi = N (M_2 - M_1^2) of the pooled moments (rounding)");
    boids_transition t;
    boids_error err;
    m4[4] = INFINITY;
    CHECK(boids_transition_estimate(R, m1, m2, m4, 256, &t, &err) == BOIDS_ERR_INPUT &&
              strstr(err.msg, "run 4") != NULL,
          "a moment not finite is refused, naming the run: %s", err.msg);
    CHECK(boids_transition_estimate(0, m1, m2, m4, 256, &t, &err) == BOIDS_ERR_INPUT,
          "no runs refused");
    CHECK(boids_transition_estimate(2, m1, m2, m4, 0.5, &t, &err) == BOIDS_ERR_INPUT,
          "N below 1 refused");
}

/* What rounding must not do: a tau summed to a residue (0 < tau < 1/n, once n_eff = 1.8e16)
 * stops at the floor 1/n; a constant phi gives chi = 0 exactly, whatever the sums round to;
 * no series gives a negative chi; moments that no series has are refused. */
static void test_rounding_floors(void) {
    /* 0, 0, 0.75: rho(1) = -1/2 exactly, so tau(1) = 1 + 2 rho(1) is 0 plus rounding (1.1e-16
     * here, which n / tau made 2.7e16 samples of 3). */
    double res[3] = {0, 0, 0.75};
    boids_series_stats st = analyse(res, 3);
    CHECK(st.tau == 1.0 / 3 && st.n_eff == 3 / (1.0 / 3),
          "a tau that sums to a rounding residue stops at the floor 1/n (%g, n_eff %g)", st.tau,
          st.n_eff);
    /* phi = 0.1 in every sample (7 of them: 0.1 * 7 is not exact in binary, nor is the mean
     * it gives) of 3 runs: every moment from boids_order_moments, chi exactly 0. */
    double c[7], m1[3], m2[3], m4[3];
    boids_error err;
    for (int i = 0; i < 7; i++) c[i] = 0.1;
    for (int k = 0; k < 3; k++)
        CHECK(boids_order_moments(c, 7, 1, &m1[k], &m2[k], &m4[k], &err) == BOIDS_OK,
              "order moments: %s", err.msg);
    boids_transition t = transition(3, m1, m2, m4, 400);
    CHECK(t.chi == 0 && t.chi_se == 0, "constant 0.1: chi exactly 0 (%g +- %g)", t.chi, t.chi_se);
    t = transition(1, m1, m2, m4, 400);
    CHECK(t.chi == 0, "constant 0.1, one run: chi exactly 0 (%g)", t.chi);
    /* Short series of values in [0, 1], most of them nearly constant (where the one-pass
     * M_2 - M_1^2 goes below 0): m2 >= m1^2 and m4 >= m2^2 to the last bit, chi >= 0, and the
     * moments those of the samples up to rounding (1e-15: a few ulps of values <= 1). */
    boids_rng r;
    boids_rng_seed(&r, 30);
    int below = 0;
    for (int trial = 0; trial < 2000; trial++) {
        double x[9], base = boids_rng_random(&r), p1, p2, p4, o1 = 0, o2 = 0, o4 = 0;
        size_t n = 2 + (size_t)trial % 8;
        for (size_t i = 0; i < n; i++) {
            x[i] = trial % 2 ? base + 1e-9 * boids_rng_random(&r) : boids_rng_random(&r);
            if (x[i] > 1) x[i] = 1;
            o1 += x[i], o2 += x[i] * x[i], o4 += x[i] * x[i] * x[i] * x[i];
        }
        o1 /= (double)n, o2 /= (double)n, o4 /= (double)n;
        below += o2 - o1 * o1 < 0;
        CHECK(boids_order_moments(x, n, 1, &p1, &p2, &p4, &err) == BOIDS_OK, "%s", err.msg);
        CHECK(p2 >= p1 * p1 && p4 >= p2 * p2, "trial %d: m2 %.17g >= m1^2 %.17g, m4 %.17g >= m2^2",
              trial, p2, p1 * p1, p4);
        CHECK(fabs(p1 - o1) <= 1e-15 && fabs(p2 - o2) <= 1e-15 && fabs(p4 - o4) <= 1e-15,
              "trial %d: the moments of the samples (rounding)", trial);
        t = transition(1, &p1, &p2, &p4, 400);
        CHECK(t.chi >= 0, "trial %d: chi %g >= 0", trial, t.chi);
    }
    CHECK(below > 0, "the trials include series where the one-pass sum goes below 0 (%d)", below);
    /* A strided series (observable 0 of 2 interleaved): the same moments as its copy. */
    double two[6] = {0.2, 9, 0.4, 9, 0.9, 9}, one[3] = {0.2, 0.4, 0.9}, q1, q2, q4, s1, s2, s4;
    CHECK(boids_order_moments(two, 3, 2, &q1, &q2, &q4, &err) == BOIDS_OK &&
              boids_order_moments(one, 3, 1, &s1, &s2, &s4, &err) == BOIDS_OK && q1 == s1 &&
              q2 == s2 && q4 == s4,
          "stride 2 reads every second sample");
    /* Moments of no series: a variance below 0 would be a negative chi. */
    double a1[2] = {0.5, 0.5}, a2[2] = {0.25, 0.2}, a4[2] = {0.0625, 0.04};
    CHECK(boids_transition_estimate(2, a1, a2, a4, 400, &t, &err) == BOIDS_ERR_INPUT &&
              strstr(err.msg, "run 1") && strstr(err.msg, "m2 < m1^2"),
          "m2 below m1^2 refused, naming the run: %s", err.msg);
    a2[1] = 0.25, a4[1] = 0.06;
    CHECK(boids_transition_estimate(2, a1, a2, a4, 400, &t, &err) == BOIDS_ERR_INPUT &&
              strstr(err.msg, "run 1") && strstr(err.msg, "m4 < m2^2"),
          "m4 below m2^2 refused, naming the run: %s", err.msg);
    c[3] = NAN;
    CHECK(boids_order_moments(c, 7, 1, &q1, &q2, &q4, &err) == BOIDS_ERR_INPUT &&
              strstr(err.msg, "sample 3"),
          "a sample not finite refused, naming it: %s", err.msg);
}

int main(void) {
    test_ar1_tau_and_block_error();
    test_independent_samples();
    test_edges();
    test_transition_constant_and_gaussian();
    test_jackknife_brute_force();
    test_rounding_floors();
    return CHECK_DONE("estimators_test");
}
