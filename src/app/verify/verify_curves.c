/* SPDX-License-Identifier: MIT */
/* `boids verify`: the order parameter over many steps and seeds, in the run's model and
 * neighbour rule (curve_params): each backend's mean curve against cpu-ref's, within the
 * seed-to-seed spread. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "verify/verify_checks.h"

/* Order curves: each backend runs every seed from cpu-ref's initial state and noise stream,
 * so the test is paired: the mean over the seeds of the backend's order minus cpu-ref's is
 * accepted within ORDER_SE of its standard errors (Student's t with m - 1 = 11 degrees of
 * freedom by default: P(|t| > 6) is about 1e-4, so over the 6 samples after step 0 x 2
 * backends a false failure has a chance below about 1.2e-3 even if every comparison were
 * independent), or when it is within ORDER_FLOOR of 0: curves that have not yet parted
 * (a float and a double run agree for the first steps) differ by rounding, with a standard
 * error as small, whose ratio says nothing (across the 20 cells of the verify matrix every
 * comparison with a ratio above 6 differed by less than 5e-5). Pairing cancels the seed-to-seed
 * spread of the initial states, which in 3-D (order rising slowly from about 0.09, 0.04 standard
 * error over 12 seeds) hides half the alignment weight from a comparison of the two means (3 to 4
 * standard errors); paired, it shows (tests/verify_fault_test.c). */
#define ORDER_SE    6.0
#define ORDER_FLOOR 1e-3
/* The order curves' default N and the Vicsek noise they take where the run has none. */
#define CURVE_COUNT 100
#define CURVE_NOISE 2.0

/* The order curves' parameters: the run's (preset, --config, --set, --model, --neighbours,
 * -k; --curve-preset replaces the preset), with N boids in a world scaled from the
 * preset's to keep its density (each side by (N / count)^(1 / dim)), so that a small,
 * quick flock sees as many neighbours as the preset's; Vicsek with no noise gets
 * CURVE_NOISE, where the order stays below 1 and a backend that aligns or draws noise
 * wrongly moves the curve. */
static boids_status curve_params(const verify_opts *o, boids_params *p, boids_error *err) {
    /* N 0: the preset's N and world, which the curves then scale to their own N. */
    boids_status st =
        verify_params(o, o->curve_preset ? o->curve_preset : o->common.preset, 0, p, err);
    if (st) return st;
    const long n = o->curve_count > 0 ? o->curve_count : CURVE_COUNT;
    const double scale = pow((double)n / (double)p->count, 1.0 / p->dim);
    p->width *= scale;
    p->height *= scale;
    p->depth *= scale;
    p->predator_x *= scale, p->predator_y *= scale, p->predator_z *= scale;
    p->food_x *= scale, p->food_y *= scale, p->food_z *= scale;
    p->count = n;
    if (p->model == BOIDS_MODEL_VICSEK && p->noise == 0) p->noise = CURVE_NOISE;
    return boids_params_validate(p, err);
}

static void print_curve_header(const verify_opts *o, const boids_params *p, int m) {
    const int vicsek = p->model == BOIDS_MODEL_VICSEK;
    char nbr[64] = "metric";
    if (p->neighbours == BOIDS_NEIGHBOURS_TOPOLOGICAL)
        snprintf(nbr, sizeof nbr, "topological k %ld%s", (long)p->k,
                 p->k_in_vision ? " in vision" : "");
    printf("\norder curves: preset %s, model %s, neighbours %s, %d-D, N %ld in ",
           o->curve_preset ? o->curve_preset : o->common.preset, vicsek ? "vicsek" : "reynolds",
           nbr, p->dim, p->count);
    if (p->dim == 3)
        printf("%.0f x %.0f x %.0f", p->width, p->height, p->depth);
    else
        printf("%.0f x %.0f", p->width, p->height);
    printf(" (the preset's density)");
    if (p->species > 1) printf(", %ld species", (long)p->species);
    if (vicsek) printf(", noise %g", p->noise);
    printf(", seeds %llu to %llu (each its own initial state%s); mean (standard error) over "
           "seeds; diff/se: the mean of each seed's difference from cpu-ref over its standard "
           "error; pass: at most %.0f, or a mean difference of at most %g\n",
           (unsigned long long)o->common.seed, (unsigned long long)o->common.seed + (uint64_t)m - 1,
           vicsek ? " and noise stream" : "", ORDER_SE, ORDER_FLOOR);
}

int verify_curves(verify_ctx *c, boids_error *err) {
    const verify_opts *o = c->o;
    boids_params p;
    if (curve_params(o, &p, err)) return -1;
    /* Seed s draws noise stream s (the noise seed the parameters derive from --seed is the
     * first seed's); a --set noise_seed X moves them all: the first seed draws X, the next X + 1.
     * (It once added the derived seed again: seed s drew stream s + 1 with --seed 1.) */
    const long offset = p.noise_seed - (long)(o->common.seed % 9007199254740993ull);
    int nsamp = o->steps / o->every + 1, nb = o->nbackends + 1, m = o->seeds;
    double *ord = calloc((size_t)nb * nsamp * m, sizeof *ord);
    boids_flock f = {0}, out = {0};
    if (!ord) return boids_error_set(err, BOIDS_ERR_NOMEM, "out of memory"), -1;
    int result = -1;
    if (boids_flock_alloc_dim(&f, (size_t)p.count, p.dim, err) ||
        boids_flock_alloc_dim(&out, f.n, p.dim, err))
        goto done;
    for (int b = 0; b < nb; b++) {
        const char *name = b == 0 ? "cpu-ref" : o->backends[b - 1];
        for (int s = 0; s < m; s++) {
            /* Seed s: its own initial state and, for Vicsek, its own noise stream. */
            const uint64_t seed = o->common.seed + (uint64_t)s;
            p.noise_seed = offset + (long)(seed % 9007199254740993ull);
            boids_flock_randomize(&f, &p, seed);
            boids_backend *be = verify_backend_get(c, name, &f, o->common.inter, err);
            if (!be) goto done;
            for (int k = 0; k < nsamp; k++) {
                if (k && boids_backend_step(be, &p, (unsigned)o->every, err)) {
                    verify_backend_put(c, be);
                    goto done;
                }
                if (boids_backend_download(be, &out, err)) {
                    verify_backend_put(c, be);
                    goto done;
                }
                ord[((size_t)b * nsamp + k) * m + s] = boids_order(&out);
            }
            verify_backend_put(c, be);
        }
    }
    print_curve_header(o, &p, m);
    printf("%6s %16s", "step", "cpu-ref");
    for (int b = 1; b < nb; b++) printf(" %16s %6s", o->backends[b - 1], "diff/se");
    printf("\n");
    result = 0;
    for (int k = 0; k < nsamp; k++) {
        double mean[VERIFY_MAX_BACKENDS + 1], var[VERIFY_MAX_BACKENDS + 1];
        for (int b = 0; b < nb; b++) {
            const double *v = &ord[((size_t)b * nsamp + k) * m];
            double s = 0, ss = 0;
            for (int i = 0; i < m; i++) s += v[i];
            mean[b] = s / m;
            for (int i = 0; i < m; i++) ss += (v[i] - mean[b]) * (v[i] - mean[b]);
            var[b] = ss / (m - 1) / m; /* squared standard error of the mean */
        }
        printf("%6d %8.4f (%.4f)", k * o->every, mean[0], sqrt(var[0]));
        for (int b = 1; b < nb; b++) {
            /* Paired: seed i's difference from cpu-ref's curve, from the same initial state
             * and noise stream, so that the seed-to-seed spread of the states cancels. */
            const double *v = &ord[((size_t)b * nsamp + k) * m], *r = &ord[(size_t)k * m];
            double sd = 0, ss = 0;
            for (int i = 0; i < m; i++) sd += v[i] - r[i];
            sd /= m;
            for (int i = 0; i < m; i++) ss += (v[i] - r[i] - sd) * (v[i] - r[i] - sd);
            const double d = fabs(sd), se = sqrt(ss / (m - 1) / m);
            const int pass = d <= ORDER_FLOOR || d <= ORDER_SE * se;
            printf(" %8.4f (%.4f) %6.2f%s", mean[b], sqrt(var[b]), se > 0 ? d / se : 0.0,
                   pass ? "" : " FAIL");
            if (!pass) c->failures++;
        }
        printf("\n");
    }
done:
    free(ord);
    boids_flock_free(&f);
    boids_flock_free(&out);
    return result;
}
