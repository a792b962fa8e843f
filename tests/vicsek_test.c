/* SPDX-License-Identifier: MIT */
/* Seed 003's worked checks of the Vicsek model on the exact reference (cpu-ref):
 * the three-agent example, circular means and the zero-sum convention, and topological
 * tie-breaking by id. Tolerances: cpu-ref computes in double, and each expected value
 * comes from a handful of operations (sums of unit vectors, atan2, one multiply-add), so
 * 1e-12 leaves room for their rounding (each ~1e-16) and nothing else. */
#include <math.h>
#include <string.h>

#include "boids/backend.h"
#include "check.h"
#include "seed003.h"

static const double TOL = 1e-12;

static void set_agents(boids_flock *f, const double *x, const double *y, const double *deg,
                       double speed) {
    for (size_t i = 0; i < f->n; i++) {
        f->x[i] = x[i];
        f->y[i] = y[i];
        f->vx[i] = speed * cos(deg[i] * M_PI / 180);
        f->vy[i] = speed * sin(deg[i] * M_PI / 180);
    }
}

static double heading_deg(const boids_flock *f, size_t i) {
    return atan2(f->vy[i], f->vx[i]) * 180 / M_PI;
}

static void step_once(const boids_params *p, boids_flock *f) {
    boids_error err;
    boids_backend *b = boids_cpu_ref_create(f, &err);
    CHECK(b != NULL, "%s", err.msg);
    if (!b) return;
    CHECK(boids_backend_step(b, p, 1, &err) == BOIDS_OK, "%s", err.msg);
    CHECK(boids_backend_download(b, f, &err) == BOIDS_OK, "%s", err.msg);
    boids_backend_destroy(b);
}

/* Seed 003's line of three agents at x = 0, 1, 2 on y = 0, moving at 0.2 with the headings
 * deg (degrees), into f (allocated here). */
static void three_agents(boids_flock *f, const double deg[3]) {
    boids_error err;
    const double x[] = {0, 1, 2}, y[] = {0, 0, 0};
    CHECK(boids_flock_alloc(f, 3, &err) == BOIDS_OK, "%s", err.msg);
    set_agents(f, x, y, deg, 0.2);
}

static const double EAST_NORTH_WEST[3] = {0, 90, 180};

static void test_three_agents(void) {
    boids_params p = seed003_three_agent_params();
    boids_flock f;
    three_agents(&f, EAST_NORTH_WEST);
    CHECK_NEAR(boids_order(&f), 1.0 / 3, TOL, "initial polarization 1/3");
    step_once(&p, &f);
    const double want_deg[] = {45, 90, 135}, want_x[] = {0.2, 1, 1.8}, want_y[] = {0, 0.2, 0};
    for (int i = 0; i < 3; i++) {
        CHECK_NEAR(heading_deg(&f, i), want_deg[i], 1e-10, "agent %d heading (degrees)", i);
        CHECK_NEAR(f.x[i], want_x[i], TOL, "agent %d x: moved with its old velocity", i);
        CHECK_NEAR(f.y[i], want_y[i], TOL, "agent %d y: moved with its old velocity", i);
        CHECK_NEAR(hypot(f.vx[i], f.vy[i]), 0.2, TOL, "agent %d keeps the constant speed", i);
    }
    CHECK_NEAR(boids_order(&f), (1 + sqrt(2.0)) / 3, TOL, "polarization (1 + sqrt 2) / 3");
    /* With a radius that covers everyone, all three take the common mean, 90 degrees. */
    boids_flock_free(&f);
    three_agents(&f, EAST_NORTH_WEST);
    p.vision_radius = 3;
    step_once(&p, &f);
    for (int i = 0; i < 3; i++)
        CHECK_NEAR(heading_deg(&f, i), 90, 1e-10, "agent %d: global mean heading", i);
    CHECK_NEAR(boids_order(&f), 1.0, TOL, "all aligned: polarization 1");
    boids_flock_free(&f);
}

static void test_circular_means(void) {
    boids_params p = seed003_three_agent_params();
    p.vision_radius = 10;
    boids_error err;
    boids_flock f;
    /* 350, 0 and 10 degrees: the circular mean is 0 (the arithmetic mean would be 120). */
    three_agents(&f, (const double[]){350, 0, 10});
    step_once(&p, &f);
    for (int i = 0; i < 3; i++)
        CHECK_NEAR(heading_deg(&f, i), 0, 1e-10, "agent %d: mean of 350, 0, 10 is 0", i);
    boids_flock_free(&f);
    /* Two opposite headings: the vector sum is zero, so each keeps its previous heading. */
    boids_flock_alloc(&f, 2, &err);
    const double x2[] = {0, 1}, y2[] = {0, 0}, deg2[] = {30, 210};
    set_agents(&f, x2, y2, deg2, 0.2);
    step_once(&p, &f);
    CHECK_NEAR(heading_deg(&f, 0), 30, 1e-10, "zero sum keeps the previous heading (30)");
    CHECK_NEAR(heading_deg(&f, 1), -150, 1e-10, "zero sum keeps the previous heading (210)");
    boids_flock_free(&f);
}

/* Topological k = 1 in the three-agent line: the middle agent's nearest others tie at
 * distance 1; the tie goes to the smaller id (the left agent), so its heading becomes the
 * mean of 90 and 0 degrees, 45. The ends each pick the middle agent. */
static void test_topological_ties(void) {
    boids_params p = seed003_three_agent_params();
    p.neighbours = BOIDS_NEIGHBOURS_TOPOLOGICAL;
    p.k = 1;
    boids_error err;
    boids_flock f;
    three_agents(&f, EAST_NORTH_WEST);
    boids_backend *b = boids_cpu_ref_create(&f, &err);
    uint32_t count[3];
    uint64_t hash[3];
    CHECK(boids_backend_neighbours(b, &p, count, hash, &err) == BOIDS_OK, "%s", err.msg);
    CHECK(count[1] == 1 && hash[1] == boids_neighbour_set_hash(0),
          "middle agent's single neighbour is id 0 (tie broken by id)");
    boids_backend_destroy(b);
    step_once(&p, &f);
    CHECK_NEAR(heading_deg(&f, 0), 45, 1e-10, "left agent: itself and the middle");
    CHECK_NEAR(heading_deg(&f, 1), 45, 1e-10, "middle agent: itself and the left (tie by id)");
    CHECK_NEAR(heading_deg(&f, 2), 135, 1e-10, "right agent: itself and the middle");
    boids_flock_free(&f);
}

/* Noise: with eta > 0 every new heading lies within eta/2 of the noiseless mean, the
 * variates are uniform in [0, 1) and reproducible from (noise_seed, step, id). */
static void test_noise(void) {
    double sum = 0, lo = 1, hi = 0;
    const int n = 100000;
    for (int i = 0; i < n; i++) {
        double u = boids_noise_u(12345, 7, (uint32_t)i);
        sum += u;
        lo = u < lo ? u : lo;
        hi = u > hi ? u : hi;
    }
    /* Mean of n uniforms: standard error 1 / sqrt(12 n) ~ 0.0009; 5 SE. */
    CHECK_NEAR(sum / n, 0.5, 5 / sqrt(12.0 * n), "noise variates have mean 1/2");
    CHECK(lo >= 0 && hi < 1 && lo < 0.001 && hi > 0.999, "variates span [0, 1): %g..%g", lo, hi);
    CHECK(boids_noise_u(1, 2, 3) == boids_noise_u(1, 2, 3), "same inputs, same variate");
    CHECK(boids_noise_u(1, 2, 3) != boids_noise_u(2, 2, 3), "the seed changes the variate");

    boids_params p = seed003_three_agent_params();
    p.noise = 1.0;
    boids_flock f;
    three_agents(&f, EAST_NORTH_WEST);
    step_once(&p, &f);
    const double mean[] = {45, 90, 135};
    for (int i = 0; i < 3; i++) {
        double dev = heading_deg(&f, i) - mean[i];
        CHECK(fabs(dev) <= 0.5 * 180 / M_PI + 1e-9, "agent %d: noise %g degrees beyond eta/2", i,
              dev);
    }
    boids_flock_free(&f);
}

int main(void) {
    test_three_agents();
    test_circular_means();
    test_topological_ties();
    test_noise();
    return CHECK_DONE("vicsek_test");
}
