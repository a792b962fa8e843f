/* SPDX-License-Identifier: MIT */
/* Number fluctuations and the velocity correlation (boids/structure.h): the correlation's
 * pair sums and counts against an O(N^2) brute force in every boundary, 2-D and 3-D (one
 * code path: each check runs over both dimensions), periodic translations, the null model
 * of independent boids and a clustered state for gnf_alpha, the first zero, and bad input.
 * Each check names the property. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "boids/rng.h"
#include "boids/structure.h"
#include "check.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

#ifdef _OPENMP
#include <omp.h>
#endif

enum { MAX_BINS = 64 };

static boids_params world(int dim, double w, double h, double d, int boundary) {
    boids_params p = boids_params_default();
    p.dim = dim;
    p.width = w;
    p.height = h;
    p.depth = d;
    p.boundary = boundary;
    return p;
}

static double side_of(const boids_params *p, int a) {
    return a == 0 ? p->width : a == 1 ? p->height : p->depth;
}

static double *pos_of(boids_flock *f, int a) {
    return a == 0 ? f->x : a == 1 ? f->y : f->z;
}

static double *vel_of(boids_flock *f, int a) {
    return a == 0 ? f->vx : a == 1 ? f->vy : f->vz;
}

static boids_flock flock_dim(size_t n, int dim) {
    boids_flock f = {0};
    boids_error err;
    CHECK(boids_flock_alloc_dim(&f, n, dim, &err) == BOIDS_OK, "%s", err.msg);
    if (!f.x) exit(CHECK_DONE("structure_test")); /* nothing to measure */
    return f;
}

/* Uniform positions in [lo, lo + side) per axis (lo = -spread * side, the open plane's
 * boids beyond the world), velocities a drift (1, -0.5, 0.25) plus uniform noise. */
static boids_flock random_flock(size_t n, const boids_params *p, double spread, uint64_t seed) {
    boids_flock f = flock_dim(n, p->dim);
    boids_rng r;
    boids_rng_seed(&r, seed);
    const double drift[3] = {1, -0.5, 0.25};
    for (size_t i = 0; i < n; i++)
        for (int a = 0; a < p->dim; a++) {
            const double s = side_of(p, a);
            pos_of(&f, a)[i] = boids_rng_uniform(&r, -spread * s, (1 + spread) * s);
            vel_of(&f, a)[i] = drift[a] + boids_rng_uniform(&r, -1, 1);
        }
    return f;
}

/* Each coordinate rounded down to a multiple of its side / 2^20: with power-of-two sides,
 * sums and differences of such numbers (and their scaling by 2^k) are exact. */
static void lattice(boids_flock *f, const boids_params *p) {
    for (int a = 0; a < p->dim; a++)
        for (size_t i = 0; i < f->n; i++) {
            const double s = side_of(p, a);
            pos_of(f, a)[i] = floor(pos_of(f, a)[i] / s * 0x1p20) * s / 0x1p20;
        }
}

/* ---- the brute force ---------------------------------------------------------------- */

typedef struct corr {
    double sum[MAX_BINS], pairs[MAX_BINS];
    double abs[MAX_BINS]; /* brute force only: sum of |u_i . u_j|, the scale of rounding */
} corr;

/* Every pair i < j, the shortest image per axis in a wrap world: the header's definition
 * written out, with its bin rule. */
static corr brute_force(boids_flock *f, const boids_params *p, double range, size_t bins) {
    corr c = {{0}, {0}, {0}};
    const int dim = p->dim;
    const size_t n = f->n;
    double mean[3] = {0, 0, 0}, ss = 0;
    for (int a = 0; a < dim; a++) {
        for (size_t i = 0; i < n; i++) mean[a] += vel_of(f, a)[i];
        mean[a] /= (double)n;
    }
    for (size_t i = 0; i < n; i++)
        for (int a = 0; a < dim; a++)
            ss += (vel_of(f, a)[i] - mean[a]) * (vel_of(f, a)[i] - mean[a]);
    const double scale = sqrt(ss / (double)n), per = (double)bins / range;
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++) {
            double dist2 = 0, dot = 0;
            for (int a = 0; a < dim; a++) {
                double d = pos_of(f, a)[j] - pos_of(f, a)[i];
                const double s = side_of(p, a);
                if (p->boundary == BOIDS_BOUNDARY_WRAP && d > s / 2) d -= s;
                if (p->boundary == BOIDS_BOUNDARY_WRAP && d < -s / 2) d += s;
                dist2 += d * d;
                dot += (vel_of(f, a)[i] - mean[a]) / scale * ((vel_of(f, a)[j] - mean[a]) / scale);
            }
            if (!(dist2 < range * range)) continue;
            size_t b = (size_t)(sqrt(dist2) * per);
            b = b < bins ? b : bins - 1;
            c.sum[b] += dot;
            c.pairs[b] += 1;
            c.abs[b] += fabs(dot);
        }
    return c;
}

static corr measure(const boids_flock *f, const boids_params *p, double range, size_t bins) {
    corr c = {{0}, {0}, {0}};
    boids_error err;
    boids_status s = boids_velocity_correlation_add(f, p, range, bins, c.sum, c.pairs, &err);
    CHECK(s == BOIDS_OK, "boids_velocity_correlation_add: %s", err.msg);
    return c;
}

/* Counts equal; sums within 1e-12 of the bin's sum of |terms|: the same terms (the same
 * u and products to the bit) added in another order, each addition off by at most half
 * an ulp of the partial sum, which stays below that scale. */
static void same_sums(const corr *got, const corr *want, size_t bins, const char *what) {
    for (size_t b = 0; b < bins; b++) {
        CHECK(got->pairs[b] == want->pairs[b], "%s: bin %zu counts %.0f pairs, brute force %.0f",
              what, b, got->pairs[b], want->pairs[b]);
        CHECK_NEAR(got->sum[b], want->sum[b], 1e-12 * want->abs[b],
                   "%s: bin %zu's sum, summation order only", what, b);
    }
}

static void test_brute_force(void) {
    static const char *const names[] = {"wrap", "walls", "open"};
    for (int dim = 2; dim <= 3; dim++)
        for (int bnd = 0; bnd < 3; bnd++) {
            boids_params p = world(dim, 100, 80, 60, bnd);
            /* the open plane's boids spread beyond the world, which only places them */
            const size_t n = dim == 2 ? 1500 : 1200;
            boids_flock f = random_flock(n, &p, bnd == BOIDS_BOUNDARY_OPEN ? 0.5 : 0, 11 + bnd);
            const double smallest = dim == 2 ? 80 : 60;
            /* range: several cells per axis; 0.4 of the smallest side (2 cells along it in
             * a wrap world, neighbour offsets -1 and +1 name one cell); half of it (1 cell) */
            const double ranges[] = {7.5, 0.4 * smallest, 0.5 * smallest};
            for (int k = 0; k < 3; k++) {
                const size_t bins = k == 0 ? 5 : 17;
                char what[96];
                snprintf(what, sizeof what, "%d-D %s, range %g", dim, names[bnd], ranges[k]);
                corr want = brute_force(&f, &p, ranges[k], bins);
                corr got = measure(&f, &p, ranges[k], bins);
                same_sums(&got, &want, bins, what);
            }
            boids_flock_free(&f);
        }
}

/* Two cells per axis in every direction of a wrap cube and a world of 2 x 1 cells: each
 * distinct cell pair once (a pair seen twice would double its bin's count). */
static void test_few_cells(void) {
    for (int dim = 2; dim <= 3; dim++) {
        boids_params p = world(dim, 50, 40, 40, BOIDS_BOUNDARY_WRAP);
        boids_flock f = random_flock(400, &p, 0, 5);
        const double ranges[] = {16, 20}; /* 3 and 2 cells along x; 2 and 1 along y, z */
        for (int k = 0; k < 2; k++) {
            char what[64];
            snprintf(what, sizeof what, "%d-D wrap, range %g", dim, ranges[k]);
            corr want = brute_force(&f, &p, ranges[k], 8);
            corr got = measure(&f, &p, ranges[k], 8);
            same_sums(&got, &want, 8, what);
        }
        boids_flock_free(&f);
    }
}

/* ---- properties of C(r) ------------------------------------------------------------- */

static void test_equal_velocities_add_nothing(void) {
    for (int dim = 2; dim <= 3; dim++) {
        boids_params p = world(dim, 100, 80, 60, BOIDS_BOUNDARY_WRAP);
        boids_flock f = random_flock(300, &p, 0, 3);
        for (int a = 0; a < dim; a++)
            for (size_t i = 0; i < f.n; i++) vel_of(&f, a)[i] = 0.1 * (a + 1);
        double sum[4] = {1, 2, 3, 4}, pairs[4] = {5, 6, 7, 8};
        boids_error err;
        CHECK(boids_velocity_correlation_add(&f, &p, 30, 4, sum, pairs, &err) == BOIDS_OK, "%s",
              err.msg);
        for (int b = 0; b < 4; b++)
            CHECK(sum[b] == b + 1 && pairs[b] == b + 5,
                  "%d-D: all velocities equal adds nothing to bin %d", dim, b);
        boids_flock_free(&f);
    }
}

/* The left half of a wrap world of width W moving +x, the right half -x: u = +-1 (up to
 * the halves' difference in number), so C(r) = 1 - 2 P(the pair straddles a border). A pair
 * at distance r < W / 2 whose direction makes an angle theta with x straddles one of the
 * two borders with probability r |cos theta| / (W / 2): C(r) = 1 - (4 r / W) E|cos theta|,
 * E|cos theta| = 2 / pi in the plane, 1 / 2 in space. The first zero in the plane is at
 * r = pi W / 8; in space C reaches 0 at r = W / 2, the end of the range. */
static void test_opposite_halves(void) {
    const double W = 100, mean_cos[4] = {0, 0, 2 / M_PI, 0.5};
    for (int dim = 2; dim <= 3; dim++) {
        boids_params p = world(dim, W, W, W, BOIDS_BOUNDARY_WRAP);
        boids_flock f = random_flock(dim == 2 ? 3000 : 6000, &p, 0, 9);
        for (size_t i = 0; i < f.n; i++) {
            for (int a = 0; a < dim; a++) vel_of(&f, a)[i] = 0;
            f.vx[i] = f.x[i] < W / 2 ? 1 : -1;
        }
        corr c = measure(&f, &p, W / 2, 10);
        for (int b = 0; b < 10; b++) {
            /* the mean r of a bin's pairs (their density grows as r^(dim - 1)) */
            const double lo = b * W / 20, hi = lo + W / 20;
            const double r = dim * (pow(hi, dim + 1) - pow(lo, dim + 1)) /
                             ((dim + 1) * (pow(hi, dim) - pow(lo, dim)));
            /* 0.05: the sampling error of a bin's C over random positions, about 0.01 at
             * these N (the halves' boid counts, the boids near the borders) */
            CHECK_NEAR(c.sum[b] / c.pairs[b], 1 - 4 * r / W * mean_cos[dim], 0.05,
                       "%d-D: C of opposite halves at r = %.2f", dim, r);
        }
        const double len = boids_correlation_length(c.sum, c.pairs, 10, W / 2);
        if (dim == 2) /* 1.5: C off by 0.01 moves the zero 0.4 (slope 0.0255) */
            CHECK_NEAR(len, M_PI * W / 8, 1.5, "2-D: the first zero of opposite halves");
        boids_flock_free(&f);
    }
}

/* The interpolation rule on hand-made bins (width w = range / bins). */
static void test_first_zero(void) {
    const double range = 8; /* 4 bins of 2, centres 1, 3, 5, 7 */
    double s1[4] = {3, 1, -1, -2}, p1[4] = {1, 1, 1, 1};
    const double c1 = 1, c2 = -1; /* C at centres 3 and 5 */
    CHECK_NEAR(boids_correlation_length(s1, p1, 4, range), 3 + c1 * (5 - 3) / (c1 - c2), 1e-15,
               "the zero between the last C > 0 and the first C <= 0, linearly (rounding)");
    double s2[4] = {4, 9, -2, 0}, p2[4] = {2, 0, 4, 1}; /* C = 2, -, -0.5, 0 */
    CHECK_NEAR(boids_correlation_length(s2, p2, 4, range), 1 + 2 * (5 - 1) / (2 + 0.5), 1e-15,
               "a bin without pairs is skipped (rounding)");
    double s3[4] = {3, 0, -1, 1}, p3[4] = {1, 2, 1, 1};
    CHECK(boids_correlation_length(s3, p3, 4, range) == 3, "C = 0 exactly is the zero itself");
    double s4[4] = {0, -1, 2, 1}, p4[4] = {0, 3, 1, 1};
    CHECK(boids_correlation_length(s4, p4, 4, range) == 0, "the first bin with pairs C <= 0: 0");
    double s5[4] = {1, 1, 1, 0}, p5[4] = {1, 1, 1, 0};
    CHECK(isnan(boids_correlation_length(s5, p5, 4, range)), "C > 0 over the range: NaN");
    CHECK(isnan(boids_correlation_length(s5, p5, 0, range)), "no bins: NaN");
    CHECK(isnan(boids_correlation_length(NULL, p5, 4, range)), "NULL sum: NaN");
    CHECK(isnan(boids_correlation_length(s5, p5, 4, 0)), "range 0: NaN");
}

/* Rows grouped: 64 bins over the 41672 rows of a 2 x 100000 strip of 12000 boids would be
 * 5.3M doubles of runs, beyond the 2^21 a batch holds, so the runs are made by groups of 3
 * rows; every pair is still visited once (the counts equal) and the sums are the same terms. */
static void test_grouped_rows(void) {
    boids_params p = world(2, 2, 100000, 1, BOIDS_BOUNDARY_WALLS);
    boids_flock f = random_flock(12000, &p, 0, 41);
    corr want = brute_force(&f, &p, 1.5, MAX_BINS), got = measure(&f, &p, 1.5, MAX_BINS);
    same_sums(&got, &want, MAX_BINS, "2 x 100000 strip, rows in groups");
    double pairs = 0;
    for (size_t b = 0; b < MAX_BINS; b++) pairs += got.pairs[b];
    CHECK(pairs > 1000, "the strip has pairs within range: %.0f", pairs);
    boids_flock_free(&f);
}

/* Above 16384 boids the pairs are summed by threads: the same bits for 1, 2 and 3. */
static void test_threads(void) {
#ifdef _OPENMP
    boids_params p = world(2, 1000, 800, 1, BOIDS_BOUNDARY_WRAP);
    boids_flock f = random_flock(30000, &p, 0, 21);
    corr one = {{0}, {0}, {0}};
    for (int t = 1; t <= 3; t++) {
        omp_set_num_threads(t);
        corr c = measure(&f, &p, 12, 6);
        if (t == 1) one = c;
        CHECK(!memcmp(c.sum, one.sum, sizeof c.sum) && !memcmp(c.pairs, one.pairs, sizeof c.pairs),
              "%d threads give 1 thread's bits", t);
    }
    boids_flock_free(&f);
#endif
}

/* ---- periodic images ---------------------------------------------------------------- */

/* Positions on a lattice of side / 2^20 in a world of power-of-two sides, translated by
 * 5/8 of each side mod the side: exact, so every periodic difference and every distance is
 * the same; a level whose boxes (side / m) divide the shift only permutes its box counts. */
static void test_translation(void) {
    for (int dim = 2; dim <= 3; dim++) {
        boids_params p = world(dim, 256, 128, 64, BOIDS_BOUNDARY_WRAP);
        const size_t n = 2000;
        boids_flock f = random_flock(n, &p, 0, 31), g = flock_dim(n, dim);
        lattice(&f, &p);
        for (int a = 0; a < dim; a++)
            for (size_t i = 0; i < n; i++) {
                pos_of(&g, a)[i] = fmod(pos_of(&f, a)[i] + 0.625 * side_of(&p, a), side_of(&p, a));
                vel_of(&g, a)[i] = vel_of(&f, a)[i];
            }
        corr want = brute_force(&f, &p, 30, 12), got = measure(&g, &p, 30, 12);
        same_sums(&got, &want, 12, dim == 2 ? "2-D translated" : "3-D translated");
        boids_fluct a, b;
        boids_error err;
        CHECK(!boids_number_fluctuations(&f, &p, &a, &err), "%s", err.msg);
        CHECK(!boids_number_fluctuations(&g, &p, &b, &err), "%s", err.msg);
        CHECK(a.nlevels == b.nlevels && a.nlevels >= 3, "%d-D: %zu levels", dim, a.nlevels);
        int whole = 0;
        for (size_t l = 0; l < a.nlevels; l++) {
            if (a.level[l].per_axis < 8) continue; /* 5/8 is no whole number of its boxes */
            whole++;
            CHECK(a.level[l].sd == b.level[l].sd, "%d-D level m = %ld: sd %.17g translated %.17g",
                  dim, a.level[l].per_axis, a.level[l].sd, b.level[l].sd);
        }
        CHECK(whole >= 1 && a.level[a.nlevels - 1].per_axis >= 8,
              "%d-D: the finest level is among the %d whole-box levels", dim, whole);
        boids_flock_free(&f);
        boids_flock_free(&g);
    }
}

/* ---- number fluctuations ------------------------------------------------------------ */

static boids_fluct fluct(const boids_flock *f, const boids_params *p) {
    boids_fluct out;
    boids_error err;
    CHECK(boids_number_fluctuations(f, p, &out, &err) == BOIDS_OK, "%s", err.msg);
    return out;
}

/* The levels as the header defines them: m = 2, 4, .. while N / m^d >= 1, the mean N / m^d
 * exactly, the fit flags by the rule. */
static void check_levels(const boids_fluct *g, size_t n, int dim, const char *what) {
    double m = 2;
    for (size_t l = 0; l < g->nlevels; l++, m *= 2) {
        const boids_fluct_level *v = &g->level[l];
        const double boxes = pow(m, dim);
        CHECK(v->per_axis == (long)m && v->boxes == boxes, "%s: level %zu is m = %g", what, l, m);
        CHECK(v->mean == (double)n / boxes, "%s: level m = %g's mean is N / boxes exactly", what,
              m);
        CHECK(v->fitted == (boxes >= 16 && v->mean >= 4 && v->sd > 0),
              "%s: level m = %g fitted = %d by the rule", what, m, v->fitted);
    }
    CHECK(g->nlevels >= 1 && (double)n / pow(m / 2, dim) >= 1 &&
              ((double)n / pow(m, dim) < 1 || m > 4096),
          "%s: the last level is the last with N / m^d >= 1", what);
}

/* Independent uniform boids (Poisson counts but for the fixed total): alpha near 1/2. */
static void test_null_model(void) {
    enum { N = 200000, RUNS = 16 };
    for (int dim = 2; dim <= 3; dim++) {
        boids_params p = world(dim, 1000, 700, 500, BOIDS_BOUNDARY_WRAP);
        boids_flock f = flock_dim(N, dim);
        double alpha = 0;
        boids_fluct g = {0};
        for (int run = 0; run < RUNS; run++) {
            boids_rng r;
            boids_rng_seed(&r, 100 + (uint64_t)run);
            for (size_t i = 0; i < f.n; i++)
                for (int a = 0; a < dim; a++)
                    pos_of(&f, a)[i] = boids_rng_uniform(&r, 0, side_of(&p, a));
            g = fluct(&f, &p);
            check_levels(&g, N, dim, dim == 2 ? "2-D uniform" : "3-D uniform");
            alpha += g.alpha / RUNS;
        }
        /* What to expect: the expected variance <n> (1 - 1/boxes) fitted by the same rule
         * (the fixed total's shift), and the spread of one alpha from that of ln Delta n,
         * 1 / sqrt(2 (boxes - 1)) at a level (a Gaussian sample's), through the slope's
         * least-squares weights; the mean of RUNS alphas spreads sqrt(RUNS) times less. */
        boids_fluct e = g;
        double sx = 0, k = 0, sxx = 0, var = 0;
        for (size_t l = 0; l < e.nlevels; l++) {
            e.level[l].sd = sqrt(e.level[l].mean * (1 - 1 / e.level[l].boxes));
            if (g.level[l].fitted) sx += log(g.level[l].mean), k++;
        }
        const double expect = boids_fluct_fit(&e), mx = sx / k;
        for (size_t l = 0; l < g.nlevels; l++)
            if (g.level[l].fitted) sxx += pow(log(g.level[l].mean) - mx, 2);
        for (size_t l = 0; l < g.nlevels; l++)
            if (g.level[l].fitted)
                var += pow(log(g.level[l].mean) - mx, 2) / (2 * (g.level[l].boxes - 1));
        const double spread = sqrt(var) / sxx, se = spread / sqrt(RUNS);
        printf("%d-D uniform: alpha %.4f over %d runs; expected %.4f, one run's spread %.4f\n", dim,
               alpha, RUNS, expect, spread);
        CHECK(fabs(expect - 0.5) + 4 * se <= 0.03,
              "%d-D: 0.03 covers the shift %.4f and 4 standard errors %.4f", dim, expect - 0.5, se);
        CHECK_NEAR(alpha, 0.5, 0.03, "%d-D: independent boids give gnf_alpha 1/2", dim);
        CHECK_NEAR(alpha, expect, 4 * se, "%d-D: within 4 standard errors of the expected", dim);
        boids_flock_free(&f);
    }
}

/* Every boid in one of a few dense blobs (uniform in balls of radius 0.15 of the side): the
 * boxes smaller than a blob are full or empty, so Delta n grows like <n>. */
static void test_clustered(void) {
    for (int dim = 2; dim <= 3; dim++) {
        boids_params p = world(dim, 1000, 1000, 1000, BOIDS_BOUNDARY_WRAP);
        boids_flock f = flock_dim(200000, dim);
        boids_rng r;
        boids_rng_seed(&r, 77);
        double centre[4][3];
        for (int c = 0; c < 4; c++)
            for (int a = 0; a < dim; a++) centre[c][a] = boids_rng_uniform(&r, 200, 800);
        for (size_t i = 0; i < f.n; i++) {
            double d[3], dd;
            do { /* a point of the unit ball, by rejection */
                dd = 0;
                for (int a = 0; a < dim; a++)
                    d[a] = boids_rng_uniform(&r, -1, 1), dd += d[a] * d[a];
            } while (dd > 1);
            for (int a = 0; a < dim; a++) pos_of(&f, a)[i] = centre[i % 4][a] + 150 * d[a];
        }
        boids_fluct g = fluct(&f, &p);
        check_levels(&g, f.n, dim, dim == 2 ? "2-D blobs" : "3-D blobs");
        printf("%d-D blobs: alpha %.4f\n", dim, g.alpha);
        CHECK(g.alpha > 0.8, "%d-D: blobs give gnf_alpha above 0.8 (%g)", dim, g.alpha);
        boids_flock_free(&f);
    }
}

/* Fewer boids than two fit levels take: alpha NaN, no level fitted. */
static void test_too_few(void) {
    boids_params p = world(2, 100, 100, 1, BOIDS_BOUNDARY_WALLS);
    const size_t counts[] = {1, 3, 255, 256};
    for (int k = 0; k < 4; k++) {
        boids_flock f = random_flock(counts[k], &p, 0, 41);
        boids_fluct g = fluct(&f, &p);
        int fitted = 0;
        for (size_t l = 0; l < g.nlevels; l++) fitted += g.level[l].fitted;
        if (counts[k] < 256)
            CHECK(isnan(g.alpha) && fitted == 0, "N = %zu: alpha NaN (%g), %d fitted", counts[k],
                  g.alpha, fitted);
        else
            CHECK(isfinite(g.alpha) && fitted == 2, "N = 256: 2 fit levels (%d), alpha %g", fitted,
                  g.alpha);
        CHECK(g.nlevels == (counts[k] < 4     ? 0u
                            : counts[k] < 256 ? 3u
                                              : 4u),
              "N = %zu: %zu levels", counts[k], g.nlevels);
        boids_flock_free(&f);
    }
    CHECK(isnan(boids_fluct_fit(NULL)), "boids_fluct_fit(NULL) is NaN");
}

/* The open plane's boxes cover the flock's bounding box: a flock far from the world's
 * place, scaled, has the same levels as in a walled world of its own extent. */
static void test_open_frame(void) {
    for (int dim = 2; dim <= 3; dim++) {
        boids_params walls = world(dim, 64, 64, 64, BOIDS_BOUNDARY_WALLS);
        boids_params open = world(dim, 64, 64, 64, BOIDS_BOUNDARY_OPEN);
        boids_flock f = random_flock(5000, &walls, 0, 51), g = flock_dim(f.n, dim);
        lattice(&f, &walls);
        for (int a = 0; a < dim; a++) { /* the corners at 0 and 64: the box is the world */
            pos_of(&f, a)[0] = 0, pos_of(&f, a)[1] = 64;
            for (size_t i = 0; i < f.n; i++) pos_of(&g, a)[i] = 4 * pos_of(&f, a)[i] - 1024;
        }
        boids_fluct a = fluct(&f, &walls), b = fluct(&g, &open);
        CHECK(a.nlevels == b.nlevels, "%d-D: the same levels", dim);
        for (size_t l = 0; l < a.nlevels; l++)
            CHECK(a.level[l].sd == b.level[l].sd && b.level[l].side[0] == 4 * a.level[l].side[0],
                  "%d-D level %zu: the open frame is the flock's box", dim, l);
        boids_flock_free(&f);
        boids_flock_free(&g);
    }
}

/* ---- bad input ---------------------------------------------------------------------- */

static void expect_refusal(boids_status got, const boids_error *err, const char *word,
                           const char *what) {
    CHECK(got == BOIDS_ERR_INPUT && strstr(err->msg, word), "%s: refused naming '%s' (%d: %s)",
          what, word, got, err->msg);
}

static void test_bad_input(void) {
    boids_params p = world(2, 100, 80, 1, BOIDS_BOUNDARY_WRAP);
    boids_flock f = random_flock(50, &p, 0, 61), one = random_flock(1, &p, 0, 62);
    double sum[4] = {0}, pairs[4] = {0};
    boids_error err;
    expect_refusal(boids_velocity_correlation_add(&f, &p, 0, 4, sum, pairs, &err), &err, "range",
                   "range 0");
    expect_refusal(boids_velocity_correlation_add(&f, &p, 40.5, 4, sum, pairs, &err), &err,
                   "half the wrap world's height", "range beyond half the smallest side");
    expect_refusal(boids_velocity_correlation_add(&f, &p, NAN, 4, sum, pairs, &err), &err, "range",
                   "range NaN");
    expect_refusal(boids_velocity_correlation_add(&f, &p, 10, 0, sum, pairs, &err), &err, "bins",
                   "bins 0");
    expect_refusal(boids_velocity_correlation_add(&f, &p, 10, 100001, sum, pairs, &err), &err,
                   "bins", "bins 100001");
    expect_refusal(boids_velocity_correlation_add(&one, &p, 10, 4, sum, pairs, &err), &err, "N = 1",
                   "one boid");
    boids_params walls = p;
    walls.boundary = BOIDS_BOUNDARY_WALLS; /* no half side there, but the 1e30 bound */
    CHECK(boids_velocity_correlation_add(&f, &walls, 60, 4, sum, pairs, &err) == BOIDS_OK,
          "walls: a range beyond half the side is fine: %s", err.msg);
    expect_refusal(boids_velocity_correlation_add(&f, &walls, 2e30, 4, sum, pairs, &err), &err,
                   "range", "range 2e30");
    memset(sum, 0, sizeof sum), memset(pairs, 0, sizeof pairs);
    f.y[7] = NAN;
    expect_refusal(boids_velocity_correlation_add(&f, &p, 10, 4, sum, pairs, &err), &err, "boid 7",
                   "a NaN coordinate");
    for (int b = 0; b < 4; b++) CHECK(sum[b] == 0 && pairs[b] == 0, "a refusal adds nothing");
    boids_fluct g;
    expect_refusal(boids_number_fluctuations(&f, &p, &g, &err), &err, "boid 7",
                   "fluctuations: a NaN coordinate");
    boids_flock empty = {0};
    expect_refusal(boids_number_fluctuations(&empty, &p, &g, &err), &err, "empty",
                   "fluctuations: an empty flock");
    boids_flock_free(&f);
    boids_flock_free(&one);
}

int main(void) {
    test_brute_force();
    test_few_cells();
    test_grouped_rows();
    test_equal_velocities_add_nothing();
    test_opposite_halves();
    test_first_zero();
    test_threads();
    test_translation();
    test_null_model();
    test_clustered();
    test_too_few();
    test_open_frame();
    test_bad_input();
    return CHECK_DONE("structure_test");
}
