/* SPDX-License-Identifier: MIT */
/* Observables (boids/metrics.h) against the checks of seed 003, sections 246.5 and 246.9,
 * and against an O(N^2) brute force on random states in the plane and in the box (the
 * box's own checks, rings about any axis and rotations, are tests/dim3_test.c's). Each
 * check names the property. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "boids/metrics.h"
#include "boids/rng.h"
#include "check.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

static boids_params world(double w, double h, int boundary, double radius) {
    boids_params p = boids_params_default();
    p.width = w;
    p.height = h;
    p.boundary = boundary;
    p.vision_radius = radius;
    return p;
}

static boids_flock flock_dim(size_t n, int dim) {
    boids_flock f;
    boids_error err;
    if (boids_flock_alloc_dim(&f, n, dim, &err)) {
        fprintf(stderr, "%s\n", err.msg);
        exit(1);
    }
    return f;
}

static boids_flock flock(size_t n) {
    return flock_dim(n, 2);
}

static boids_metrics compute(const boids_flock *f, const boids_params *p) {
    boids_metrics m;
    boids_error err;
    boids_status s = boids_metrics_compute(f, p, &m, &err);
    CHECK(s == BOIDS_OK, "boids_metrics_compute failed: %s", err.msg);
    return m;
}

static void set(boids_flock *f, size_t i, double x, double y, double vx, double vy) {
    f->x[i] = x;
    f->y[i] = y;
    f->vx[i] = vx;
    f->vy[i] = vy;
}

/* Periodic distance of a coordinate from a point on a circle of circumference side. */
static double circ_dist(double a, double b, double side) {
    double d = fabs(a - b);
    return fmin(d, side - d);
}

/* ---- seed 003, 246.4/246.5: the three-agent example ---------------------------------- */
static void test_three_agents_polarization(void) {
    boids_params p = world(100, 100, BOIDS_BOUNDARY_WALLS, 1.1);
    boids_flock f = flock(3);
    double deg = M_PI / 180;
    set(&f, 0, 0, 0, 0.2 * cos(0 * deg), 0.2 * sin(0 * deg));
    set(&f, 1, 1, 0, 0.2 * cos(90 * deg), 0.2 * sin(90 * deg));
    set(&f, 2, 2, 0, 0.2 * cos(180 * deg), 0.2 * sin(180 * deg));
    /* The tolerance: each unit vector is exact to a few ulps (cos 90 deg is 6e-17, not 0). */
    CHECK_NEAR(compute(&f, &p).order, 1.0 / 3.0, 1e-15, "headings 0, 90, 180 give P = 1/3");
    set(&f, 0, 0.2, 0, 0.2 * cos(45 * deg), 0.2 * sin(45 * deg));
    set(&f, 1, 1, 0.2, 0.2 * cos(90 * deg), 0.2 * sin(90 * deg));
    set(&f, 2, 1.8, 0, 0.2 * cos(135 * deg), 0.2 * sin(135 * deg));
    CHECK_NEAR(compute(&f, &p).order, (1 + sqrt(2.0)) / 3, 1e-15,
               "headings 45, 90, 135 give P = (1 + sqrt 2) / 3 ~ 0.8047");
    boids_flock_free(&f);
}

/* ---- 246.9: polarization (and milling, largest cluster) stay within their ranges ----- */
static void test_ranges_on_random_states(void) {
    boids_rng rng;
    boids_rng_seed(&rng, 246);
    for (int trial = 0; trial < 200; trial++) {
        size_t n = 1 + (size_t)(boids_rng_random(&rng) * 300);
        boids_params p = world(50, 30, trial % 2 ? BOIDS_BOUNDARY_WRAP : BOIDS_BOUNDARY_WALLS,
                               0.5 + 10 * boids_rng_random(&rng));
        boids_flock f = flock(n);
        /* Mixed speeds, with about a fifth of the boids at rest (they must add nothing). In
         * a few trials every boid moves the same way, where P = 1 up to rounding. */
        int aligned = trial % 10 == 0;
        for (size_t i = 0; i < n; i++) {
            double a = aligned ? 0.3 : 2 * M_PI * boids_rng_random(&rng);
            double s = boids_rng_random(&rng) < 0.2 ? 0 : 10 * boids_rng_random(&rng);
            set(&f, i, 50 * boids_rng_random(&rng), 30 * boids_rng_random(&rng), s * cos(a),
                s * sin(a));
        }
        boids_metrics m = compute(&f, &p);
        /* Upper bound 1 + 1e-12: each |u_i| is 1 within 2 ulps and a sum of n <= 300 terms
         * adds at most n ulps, far below 1e-12; a wrong normalisation overshoots by O(1). */
        CHECK(m.order >= 0 && m.order <= 1 + 1e-12, "P = %.17g outside [0, 1] (n %zu)", m.order, n);
        CHECK(m.milling >= 0 && m.milling <= 1 + 1e-12, "M = %.17g outside [0, 1]", m.milling);
        CHECK(m.largest_cluster > 0 && m.largest_cluster <= 1, "largest %.17g", m.largest_cluster);
        CHECK(m.clusters >= 1 && m.clusters <= (double)n, "clusters %g of %zu", m.clusters, n);
        CHECK(m.neighbours >= 0 && m.neighbours <= (double)(n - 1), "neighbours %g", m.neighbours);
        CHECK(m.order == boids_order(&f), "order is boids_order");
        boids_flock_free(&f);
    }
}

/* ---- 246.5: the null model E[P^2] = 1/N ---------------------------------------------- */
static void test_null_model(void) {
    /* M independent populations of N independent uniform headings. P^2 has mean exactly
     * 1/N; the sample mean of M values has standard error SE = sd(P^2) / sqrt(M), with
     * sd estimated from the same sample. By the central limit theorem the mean lies within
     * 4 SE of 1/N except with probability 6e-5; the seed is fixed, so the outcome is
     * reproducible, and a bias in the headings or in the normalisation moves the mean by
     * many SE (the control below shows one). */
    const int ns[] = {2, 10, 100, 1000};
    boids_rng rng;
    boids_rng_seed(&rng, 3);
    for (int t = 0; t < 4; t++) {
        size_t n = (size_t)ns[t];
        const int m = 4000;
        boids_flock f = flock(n);
        double s1 = 0, s2 = 0, sp = 0, spp = 0, c1 = 0;
        for (int k = 0; k < m; k++) {
            for (size_t i = 0; i < n; i++) {
                double a = 2 * M_PI * boids_rng_random(&rng);
                f.vx[i] = cos(a);
                f.vy[i] = sin(a);
            }
            /* The order observable is boids_order (checked above); the full set of
             * observables would only cost time here. */
            double pol = boids_order(&f), p2 = pol * pol;
            s1 += p2;
            s2 += p2 * p2;
            sp += pol;
            spp += pol * pol;
            /* Control: headings uniform on a half circle are correlated (they share a mean
             * direction), so E[P^2] = 1/N + (1 - 1/N) 4/pi^2 is far above 1/N. */
            if (k < 200) {
                for (size_t i = 0; i < n; i++) {
                    double a = M_PI * boids_rng_random(&rng);
                    f.vx[i] = cos(a);
                    f.vy[i] = sin(a);
                }
                double q = boids_order(&f);
                c1 += q * q;
            }
        }
        double mean = s1 / m, var = (s2 - m * mean * mean) / (m - 1), se = sqrt(var / m);
        CHECK(fabs(mean - 1.0 / (double)n) <= 4 * se,
              "N %zu: mean P^2 = %.6g, 1/N = %.6g, SE %.3g: more than 4 SE apart", n, mean,
              1.0 / (double)n, se);
        CHECK(c1 / 200 > 1.0 / (double)n + 10 * se,
              "N %zu: half-circle control mean P^2 %.4g not clearly above 1/N", n, c1 / 200);
        /* 246.5: sqrt(E[P^2]) = 1/sqrt(N) is an RMS scale, not the mean of P. For large N,
         * sqrt(N) P tends to a Rayleigh variable with mean sqrt(pi)/2 ~ 0.886, so the mean
         * of P sits about 11% below 1/sqrt(N): with 4000 samples that is about 15 SE, and it
         * can never exceed the RMS (Jensen). */
        double pm = sp / m, pse = sqrt((spp - m * pm * pm) / (m - 1) / m);
        CHECK(pm <= sqrt(mean), "mean P %.6g above RMS %.6g", pm, sqrt(mean));
        if (n >= 100)
            CHECK(1 / sqrt((double)n) - pm > 10 * pse,
                  "N %zu: mean P %.6g is not clearly below 1/sqrt(N) = %.6g (SE %.3g)", n, pm,
                  1 / sqrt((double)n), pse);
        boids_flock_free(&f);
    }
}

/* ---- 246.9: a square periodic world turned by 90 degrees has the same observables ---- */
static void test_rotation_invariance(void) {
    /* (x, y, vx, vy) -> (W - y, x, -vy, vx) is a rotation by +90 degrees about the world's
     * centre followed by the periodic identification. Coordinates are multiples of 2^-10 in
     * a world of side 64, so W - y is exact and every pair offset of the turned state is
     * the exact turned offset: neighbour counts, clusters, order and nearest distances must
     * agree bit for bit. Milling goes through sin/cos of the circular mean, whose rounding
     * differs between the two states by a few ulps of W: the centre moves by ~1e-14, which
     * changes rhat_i by ~1e-14 / |r_i|. With |r_i| >= 1e-2 for all but a handful of boids,
     * and at most 1 of change per boid, 1e-9 holds with a wide margin. */
    const double w = 64;
    boids_params p = world(w, w, BOIDS_BOUNDARY_WRAP, 3);
    boids_rng rng;
    boids_rng_seed(&rng, 90);
    for (int trial = 0; trial < 20; trial++) {
        size_t n = 500;
        boids_flock f = flock(n), g = flock(n);
        for (size_t i = 0; i < n; i++) {
            double x = floor(boids_rng_random(&rng) * w * 1024) / 1024;
            double y = floor(boids_rng_random(&rng) * w * 1024) / 1024;
            double vx = floor((boids_rng_random(&rng) - 0.5) * 4096) / 1024;
            double vy = floor((boids_rng_random(&rng) - 0.5) * 4096) / 1024;
            if (trial % 2 == 0 && i < 200) { /* half the trials: a clustered, milling flock */
                double a = 2 * M_PI * (double)i / 200;
                x = floor((w / 2 + 5 * cos(a)) * 1024) / 1024;
                y = floor((w / 2 + 5 * sin(a)) * 1024) / 1024;
                vx = floor(-sin(a) * 1024) / 1024;
                vy = floor(cos(a) * 1024) / 1024;
            }
            set(&f, i, x, y, vx, vy);
            set(&g, i, w - y, x, -vy, vx);
        }
        boids_metrics a = compute(&f, &p), b = compute(&g, &p);
        CHECK(a.order == b.order, "order %.17g vs %.17g", a.order, b.order);
        CHECK_NEAR(a.milling, b.milling, 1e-9, "milling unchanged by a 90 degree turn");
        CHECK(a.nn_distance == b.nn_distance, "nn %.17g vs %.17g", a.nn_distance, b.nn_distance);
        CHECK(a.neighbours == b.neighbours, "neighbours %.17g vs %.17g", a.neighbours,
              b.neighbours);
        CHECK(a.clusters == b.clusters, "clusters %g vs %g", a.clusters, b.clusters);
        CHECK(a.largest_cluster == b.largest_cluster, "largest %g vs %g", a.largest_cluster,
              b.largest_cluster);
        boids_flock_free(&f);
        boids_flock_free(&g);
    }
}

/* ---- 246.5: a mill has milling 1 and polarization 0 ---------------------------------- */
static void test_ring_mills(void) {
    /* n boids evenly on a circle of radius rho about c, each moving along the tangent
     * (counter-clockwise). By symmetry the centre is c exactly (also by circular mean: the
     * points pair off symmetrically about c), every rhat x u is 1, and the unit tangents
     * sum to 0. The tolerance 1e-12 covers the rounding of cos/sin and of the centre
     * (~1e-16 W / rho per boid, W / rho <= 10 here). Tried in each boundary, and across the
     * periodic corner, where the centre must be found at the corner by the circular mean. */
    struct {
        int boundary;
        double cx, cy;
    } cases[] = {{BOIDS_BOUNDARY_WRAP, 50, 50},
                 {BOIDS_BOUNDARY_WALLS, 50, 50},
                 {BOIDS_BOUNDARY_WRAP, 0, 0},
                 {BOIDS_BOUNDARY_WRAP, 100, 37}};
    for (int c = 0; c < 4; c++) {
        boids_params p = world(100, 100, cases[c].boundary, 4);
        size_t n = 64;
        double rho = 10;
        boids_flock f = flock(n);
        for (size_t i = 0; i < n; i++) {
            double a = 2 * M_PI * (double)i / (double)n;
            double x = fmod(cases[c].cx + rho * cos(a) + 100, 100);
            double y = fmod(cases[c].cy + rho * sin(a) + 100, 100);
            set(&f, i, x, y, -2 * sin(a), 2 * cos(a));
        }
        boids_metrics m = compute(&f, &p);
        CHECK_NEAR(m.milling, 1, 1e-12, "ring %d: tangential ring mills", c);
        CHECK_NEAR(m.order, 0, 1e-12, "ring %d: tangential ring has no polarization", c);
        /* Neighbouring boids on the ring are 2 rho sin(pi / n) ~ 0.98 apart (< R = 4): one
         * cluster holding everyone. */
        CHECK(m.clusters == 1 && m.largest_cluster == 1, "ring %d: %g clusters", c, m.clusters);
        double x, y;
        boids_metrics_centre(&f, &p, &x, &y);
        CHECK(circ_dist(x, fmod(cases[c].cx, 100), 100) < 1e-9 &&
                  circ_dist(y, fmod(cases[c].cy, 100), 100) < 1e-9,
              "ring %d: centre (%.17g, %.17g)", c, x, y);
        /* Reverse every velocity: the mill turns the other way, |L| is the same. */
        for (size_t i = 0; i < n; i++) f.vx[i] = -f.vx[i], f.vy[i] = -f.vy[i];
        CHECK_NEAR(compute(&f, &p).milling, 1, 1e-12, "ring %d: clockwise mill", c);
        boids_flock_free(&f);
    }
}

/* ---- 246.5: alignment without cohesion ----------------------------------------------- */
static void test_far_apart_aligned(void) {
    /* Two boids 30 apart moving east, R = 5: P = 1 though they never interact. In the
     * periodic world of side 100 the other image is 70 away, so the distance is 30. */
    for (int b = 0; b < 2; b++) {
        boids_params p = world(100, 100, b ? BOIDS_BOUNDARY_WALLS : BOIDS_BOUNDARY_WRAP, 5);
        boids_flock f = flock(2);
        set(&f, 0, 10, 50, 3, 0);
        set(&f, 1, 40, 50, 1, 0);
        boids_metrics m = compute(&f, &p);
        CHECK(m.order == 1, "far apart, moving east: P = %.17g", m.order);
        CHECK(m.clusters == 2 && m.largest_cluster == 0.5, "no cohesion: %g clusters, %g",
              m.clusters, m.largest_cluster);
        CHECK(m.neighbours == 0, "no neighbours within R: %g", m.neighbours);
        CHECK(m.nn_distance == 30, "nn distance %.17g", m.nn_distance);
        boids_flock_free(&f);
    }
}

/* ---- 246.2/246.5: periodic geometry at the seam -------------------------------------- */
static void test_seam(void) {
    /* x = 1 and x = W - 1 are 2 apart across the seam of a periodic world: one cluster,
     * nearest distance 2 (exact: 1 - 99 = -98, + 100 = 2 in binary), and the circular
     * mean puts the centre at the seam; the arithmetic mean would say 50. With walls they
     * are 98 apart and the centre is the middle. */
    boids_params p = world(100, 60, BOIDS_BOUNDARY_WRAP, 5);
    boids_flock f = flock(2);
    set(&f, 0, 1, 30, 0, 1);
    set(&f, 1, 99, 30, 0, -1);
    boids_metrics m = compute(&f, &p);
    CHECK(m.nn_distance == 2, "seam: nn distance %.17g", m.nn_distance);
    CHECK(m.clusters == 1 && m.largest_cluster == 1, "seam: %g clusters", m.clusters);
    CHECK(m.neighbours == 1, "seam: %g neighbours", m.neighbours);
    double x, y;
    boids_metrics_centre(&f, &p, &x, &y);
    /* sin(2 pi / 100) + sin(2 pi 99 / 100) cancels to ~1e-16: the centre is within 1e-12
     * of the seam. */
    CHECK(circ_dist(x, 0, 100) < 1e-12, "seam: centre x %.17g is not at the seam", x);
    CHECK_NEAR(y, 30, 1e-12, "seam: centre y");
    /* The two move in opposite vertical directions on opposite sides of the seam centre:
     * a two-boid mill. Boid 0 is at +1 from the centre moving +y: r x u = +1; boid 1 at -1
     * moving -y: also +1. */
    CHECK_NEAR(m.milling, 1, 1e-12, "seam: two-boid mill about the seam");
    p.boundary = BOIDS_BOUNDARY_WALLS;
    m = compute(&f, &p);
    CHECK(m.nn_distance == 98 && m.clusters == 2, "walls: nn %.17g, %g clusters", m.nn_distance,
          m.clusters);
    boids_metrics_centre(&f, &p, &x, &y);
    CHECK(x == 50, "walls: arithmetic centre %.17g", x);
    boids_flock_free(&f);
}

/* ---- clusters on a constructed layout ------------------------------------------------ */
static void test_three_groups(void) {
    /* R = 2. Group A: a chain of 5 boids 1.5 apart (each link < R, ends 6 apart: joined
     * only through the chain, which tests transitivity). Group B: 3 boids within 1 of each
     * other, 20 away. Group C: 2 boids 1.52 apart straddling the periodic corner. Every
     * group is more than R from every other. */
    boids_params p = world(100, 100, BOIDS_BOUNDARY_WRAP, 2);
    boids_flock f = flock(10);
    for (int i = 0; i < 5; i++) set(&f, (size_t)i, 30 + 1.5 * i, 30, 1, 0);
    set(&f, 5, 60, 60, 0, 1);
    set(&f, 6, 60.5, 60.5, 0, 1);
    set(&f, 7, 60, 61, 0, 1);
    set(&f, 8, 0.5, 0.5, -1, 0);
    set(&f, 9, 99.1, 99.9, -1, 0);
    boids_metrics m = compute(&f, &p);
    CHECK(m.clusters == 3, "three groups: %g clusters", m.clusters);
    CHECK(m.largest_cluster == 0.5, "largest is the chain, 5 of 10: %g", m.largest_cluster);
    /* Neighbours: chain 1+2+2+2+1, group B 2 each, group C 1 each: 8 + 6 + 2 = 16. */
    CHECK(m.neighbours == 1.6, "mean neighbours %.17g", m.neighbours);
    /* Without wrap, group C splits (98.6 apart in x): 4 clusters. */
    p.boundary = BOIDS_BOUNDARY_WALLS;
    CHECK(compute(&f, &p).clusters == 4, "walls: the corner pair splits");
    boids_flock_free(&f);
}

/* ---- the grid agrees with an O(N^2) brute force -------------------------------------- */
/* The shortest-image squared distance from boid i to boid j over the flock's axes, summed
 * x, y (z) from 0: the plane's dx * dx + dy * dy to the bit. */
static double bf_dist2(const boids_flock *f, const boids_params *p, size_t i, size_t j) {
    const double *pos[3] = {f->x, f->y, f->z}, side[3] = {p->width, p->height, p->depth};
    double dist2 = 0;
    for (int a = 0; a < boids_flock_dim(f); a++) {
        double d = pos[a][j] - pos[a][i];
        if (p->boundary == BOIDS_BOUNDARY_WRAP) {
            if (d > side[a] / 2)
                d -= side[a];
            else if (d < -side[a] / 2)
                d += side[a];
        }
        dist2 += d * d;
    }
    return dist2;
}

static size_t bf_find(size_t *parent, size_t a) {
    while (parent[a] != a) a = parent[a] = parent[parent[a]];
    return a;
}

static void test_brute_force(void) {
    /* In the plane and in the box: radii from tiny (the nearest-neighbour search walks many
     * shells; the cell cap bites) to wider than the world (1 or 2 cells per axis, where wrap
     * must not visit a cell twice); boundaries wrap, walls and open (a fifth of the boids
     * far outside the world, where the grid covers the flock's extent); clustered and
     * uniform layouts. Same distance formula, same summation order: every value must match
     * exactly. */
    const double radii[] = {0.01, 0.7, 3, 13, 40, 70, 250};
    boids_rng rng;
    boids_rng_seed(&rng, 9);
    int cases = 0;
    for (int dim = 2; dim <= 3; dim++)
        for (int b = 0; b < 3; b++)
            for (int ri = 0; ri < 7; ri++)
                for (int layout = 0; layout < 3; layout++) {
                    size_t n = layout == 2 ? 7 : 900;
                    const int boundary =
                        (int[]){BOIDS_BOUNDARY_WRAP, BOIDS_BOUNDARY_WALLS, BOIDS_BOUNDARY_OPEN}[b];
                    boids_params p = world(120, 80, boundary, radii[ri]);
                    p.dim = dim;
                    p.depth = 60;
                    boids_flock f = flock_dim(n, dim);
                    for (size_t i = 0; i < n; i++) {
                        double x = 120 * boids_rng_random(&rng), y = 80 * boids_rng_random(&rng);
                        if (layout == 1) { /* four tight clumps, two of them across the seam */
                            int k = (int)(i % 4);
                            double cx[] = {1, 119, 60, 30}, cy[] = {40, 40, 79.5, 10};
                            x = fmod(cx[k] + 3 * (boids_rng_random(&rng) - 0.5) + 120, 120);
                            y = fmod(cy[k] + 3 * (boids_rng_random(&rng) - 0.5) + 80, 80);
                        }
                        set(&f, i, x, y, boids_rng_random(&rng) - 0.5,
                            boids_rng_random(&rng) - 0.5);
                        if (dim == 3) {
                            f.z[i] = layout == 1 ? 59 + 2 * boids_rng_random(&rng)
                                                 : 60 * boids_rng_random(&rng);
                            if (f.z[i] >= 60) f.z[i] -= 60; /* a clump across the z seam */
                            f.vz[i] = boids_rng_random(&rng) - 0.5;
                        }
                        if (boundary == BOIDS_BOUNDARY_OPEN && i % 5 == 0) f.x[i] += 500;
                    }
                    boids_metrics m = compute(&f, &p);
                    double r2 = p.vision_radius * p.vision_radius, snn = 0, scnt = 0;
                    size_t *parent = malloc(n * sizeof *parent);
                    for (size_t i = 0; i < n; i++) parent[i] = i;
                    for (size_t i = 0; i < n; i++) {
                        double best = INFINITY;
                        for (size_t j = 0; j < n; j++) {
                            if (j == i) continue;
                            double dist2 = bf_dist2(&f, &p, i, j);
                            if (dist2 < best) best = dist2;
                            if (dist2 < r2) {
                                scnt += 1;
                                parent[bf_find(parent, i)] = bf_find(parent, j);
                            }
                        }
                        snn += sqrt(best);
                    }
                    size_t roots = 0, *size = calloc(n, sizeof *size), big = 0;
                    for (size_t i = 0; i < n; i++) size[bf_find(parent, i)]++;
                    for (size_t i = 0; i < n; i++) {
                        if (parent[i] == i) roots++;
                        if (size[i] > big) big = size[i];
                    }
                    CHECK(m.nn_distance == snn / (double)n,
                          "dim %d b %d R %g layout %d: nn %.17g vs %.17g", dim, b, p.vision_radius,
                          layout, m.nn_distance, snn / (double)n);
                    CHECK(m.neighbours == scnt / (double)n,
                          "dim %d b %d R %g layout %d: neighbours %g vs %g", dim, b,
                          p.vision_radius, layout, m.neighbours, scnt / (double)n);
                    CHECK(m.clusters == (double)roots,
                          "dim %d b %d R %g layout %d: clusters %g vs %zu", dim, b, p.vision_radius,
                          layout, m.clusters, roots);
                    CHECK(m.largest_cluster == (double)big / (double)n,
                          "dim %d b %d R %g layout %d: largest %g vs %zu", dim, b, p.vision_radius,
                          layout, m.largest_cluster, big);
                    free(parent);
                    free(size);
                    boids_flock_free(&f);
                    cases++;
                }
    printf("brute force: %d cases compared\n", cases);
}

/* ---- edge cases ---------------------------------------------------------------------- */
static void test_edges(void) {
    boids_params p = world(100, 100, BOIDS_BOUNDARY_WRAP, 5);
    boids_flock f = flock(1);
    set(&f, 0, 50, 50, 1, 0);
    boids_metrics m = compute(&f, &p);
    CHECK(isnan(m.nn_distance), "one boid: nn distance is NaN, not 0");
    CHECK(m.clusters == 1 && m.largest_cluster == 1 && m.neighbours == 0, "one boid");
    /* A boid exactly at the centre contributes 0 to milling but counts in N. */
    boids_flock_free(&f);
    f = flock(3);
    p.boundary = BOIDS_BOUNDARY_WALLS;
    set(&f, 0, 40, 50, 0, -1);
    set(&f, 1, 60, 50, 0, 1);
    set(&f, 2, 50, 50, 1, 0);
    CHECK_NEAR(compute(&f, &p).milling, 2.0 / 3.0, 1e-15, "centre boid contributes 0");
    f.x[2] = NAN;
    boids_metrics out;
    boids_error err;
    CHECK(boids_metrics_compute(&f, &p, &out, &err) == BOIDS_ERR_INPUT, "NaN is bad input");
    CHECK(strstr(err.msg, "boid 2") != NULL, "message names the boid: %s", err.msg);
    /* Coincident boids are at distance 0: neighbours and one cluster. */
    set(&f, 2, 40, 50, 1, 0);
    m = compute(&f, &p);
    CHECK(m.clusters == 2 && m.neighbours == 2.0 / 3.0, "coincident: %g clusters, %g", m.clusters,
          m.neighbours);
    char buf[256];
    boids_metrics_format(&m, buf, sizeof buf);
    int commas = 0;
    for (char *c = buf; *c; c++) commas += *c == ',';
    CHECK(commas == BOIDS_METRICS_COUNT - 1, "formatter writes 6 values: %s", buf);
    CHECK(!strcmp(boids_metrics_columns,
                  "order,milling,nn_distance,neighbours,clusters,largest_cluster"),
          "column names");
    boids_flock_free(&f);
}

int main(void) {
    test_three_agents_polarization();
    test_ranges_on_random_states();
    test_null_model();
    test_rotation_invariance();
    test_ring_mills();
    test_far_apart_aligned();
    test_seam();
    test_three_groups();
    test_brute_force();
    test_edges();
    return CHECK_DONE("metrics_test");
}
