/* SPDX-License-Identifier: MIT */
/* Three-dimensional flocks on the exact reference (cpu-ref): the rules of rules.h on small
 * hand-computed cases, a flat 3-D flock (z = vz = 0) stepping to the planar bits, the same
 * bits for every thread count, 3-D state files (round trip, the dim check, resume), and the
 * 3-D Vicsek noise (its cone, the null model E[P^2] = 1/N, order against noise).
 *
 * Tolerances: the hand-computed cases are a few double operations on small integers and
 * square roots, so 1e-12 leaves room for their rounding (each ~1e-16) and nothing else;
 * statistical checks state their standard error where they are made. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "boids/backend.h"
#include "boids/metrics.h"
#include "boids/state_io.h"
#include "backend_compare.h"
#include "check.h"
#include "cpu_grid.h"
#include "cpu_ref.h"

#define RULES_INSTANCE_DOUBLE /* rules.h in double in the box: the _d3 names */
#define RULES_INSTANCE_DIM    3
#include "rules_instances.h"

static const double TOL = 1e-12;

static void die(const char *what, const boids_error *err) {
    fprintf(stderr, "%s: %s\n", what, err->msg);
    exit(1);
}

static boids_params box_params(double side, int boundary) {
    boids_params p = boids_params_default();
    p.dim = 3;
    p.width = p.height = p.depth = side;
    p.boundary = boundary;
    p.predator_x = p.predator_y = p.predator_z = side / 2;
    p.food_x = p.food_y = p.food_z = side / 2;
    return p;
}

/* ---- rules.h on hand-computed cases -------------------------------------------------- */

static void test_box_rules_geometry(void) {
    boids_params p = box_params(100, BOIDS_BOUNDARY_WRAP);
    p.width = 10, p.height = 20, p.depth = 30;
    rules_k_d3 k;
    rules_k_init_d3(&k, &p);
    const double a[3] = {1, 1, 1}, b[3] = {9, 19, 29}, e[3] = {1, 2, 2};
    double d[3];
    rules_offset_d3(&k, a, b, d);
    CHECK(d[0] == -2 && d[1] == -2 && d[2] == -2, "shortest image per axis: %g %g %g", d[0], d[1],
          d[2]);
    rules_offset_d3(&k, b, a, d);
    CHECK(d[0] == 2 && d[1] == 2 && d[2] == 2, "and back across the seams: %g %g %g", d[0], d[1],
          d[2]);
    CHECK(rules_dot_d3(e, e) == 9, "|(1, 2, 2)|^2 = 9");

    p.fov = 180; /* half-angle 90 degrees: cos exactly 0, the inclusive edge is testable */
    rules_k_init_d3(&k, &p);
    CHECK(rules_in_fov_d3(&k, (const double[3]){1, 0, 0}, 1, (const double[3]){0, 0, 1}),
          "90 degrees off the velocity: inside");
    CHECK(
        !rules_in_fov_d3(&k, (const double[3]){1, 0, -0.001}, 1.000001, (const double[3]){0, 0, 1}),
        "just behind: outside");
    CHECK(rules_in_fov_d3(&k, (const double[3]){0, 3, 0}, 9, (const double[3]){0, 0, 0}),
          "a resting boid sees all around");
    p.fov = 270;
    rules_k_init_d3(&k, &p);
    CHECK(!rules_in_fov_d3(&k, (const double[3]){0, 0, -1}, 1, (const double[3]){0, 0, 1}),
          "straight behind: outside a 270 cone");
    CHECK(rules_in_fov_d3(&k, (const double[3]){0, 1, -1}, 2, (const double[3]){0, 0, 1}),
          "135 degrees: on the 270 cone's edge");
}

static void test_box_rules_steer_and_sums(void) {
    boids_params p = box_params(100, BOIDS_BOUNDARY_OPEN);
    p.max_speed = 10, p.max_force = 100, p.separation_radius = 4;
    rules_k_d3 k;
    rules_k_init_d3(&k, &p);
    double f[3];
    rules_steer_d3(&k, (const double[3]){0, 3, 4}, (const double[3]){0, 0, 0}, f);
    CHECK(f[0] == 0 && fabs(f[1] - 6) < TOL && fabs(f[2] - 8) < TOL, "full speed along (0,3,4)");
    k.max_force = 5;
    rules_steer_d3(&k, (const double[3]){0, 3, 4}, (const double[3]){0, 0, 0}, f);
    CHECK_NEAR(f[1], 3, TOL, "capped at max_force 5: (0, 3, 4)");
    CHECK_NEAR(f[2], 4, TOL, "capped at max_force 5: (0, 3, 4)");
    rules_steer_d3(&k, (const double[3]){0, 0, 0}, (const double[3]){1, 2, 3}, f);
    CHECK(f[0] == 0 && f[1] == 0 && f[2] == 0, "a zero target gives zero force");

    rules_acc_d3 a;
    rules_acc_init_d3(&a);
    rules_acc_add_d3(&k, &a, (const double[3]){1, 2, 2}, 9, (const double[3]){5, 6, 7});
    CHECK(a.n == 1 && a.mvx == 5 && a.mvy == 6 && a.mvz == 7, "alignment sums velocities");
    CHECK(a.cx == 1 && a.cy == 2 && a.cz == 2, "cohesion sums offsets");
    CHECK(a.separated, "d2 = 9 < 16: separation");
    CHECK_NEAR(a.sx, -1.0 / 9, TOL, "-d / |d|^2");
    CHECK_NEAR(a.sz, -2.0 / 9, TOL, "-d / |d|^2");
}

static void test_box_rules_walls_and_integrate(void) {
    boids_params p = box_params(100, BOIDS_BOUNDARY_WALLS);
    p.wall_margin = 5, p.wall_weight = 1, p.max_speed = 4, p.min_speed = 1, p.max_force = 100;
    p.dt = 1;
    rules_k_d3 k;
    rules_k_init_d3(&k, &p);
    rules_acc_d3 none;
    rules_acc_init_d3(&none);
    const double pos[3] = {1, 50, 99}, vel[3] = {0, 0, 0};
    double a[3];
    rules_accel_d3(&k, &none, pos, vel, a);
    /* inward (1, 0, -1) at full speed 4: (4, 0, -4) / sqrt 2 */
    CHECK_NEAR(a[0], 4 / sqrt(2), TOL, "pushed in from x = 0");
    CHECK(a[1] == 0, "no push along y in the middle");
    CHECK_NEAR(a[2], -4 / sqrt(2), TOL, "pushed in from z = depth");

    double pp[3] = {50, 50, 99.5}, vv[3] = {3, 0, 4};
    const double acc[3] = {0, 0, 0};
    rules_integrate_d3(&k, acc, pp, vv); /* |v| = 5 > 4: (2.4, 0, 3.2) */
    CHECK_NEAR(pp[0], 52.4, TOL, "moved by the clamped velocity");
    CHECK_NEAR(pp[2], 100 - (99.5 + 3.2 - 100), TOL, "reflected off the z = depth face");
    CHECK_NEAR(vv[2], -3.2, TOL, "vz mirrored by the reflection");
    CHECK_NEAR(vv[0], 2.4, TOL, "vx kept");

    p.boundary = BOIDS_BOUNDARY_WRAP;
    rules_k_init_d3(&k, &p);
    double pw[3] = {50, 50, 0.5}, vw[3] = {0, 0, -2};
    rules_integrate_d3(&k, acc, pw, vw);
    CHECK_NEAR(pw[2], 98.5, TOL, "wrapped through z = 0");
}

/* The angle between unit vectors a and b. */
static double angle(const double a[3], const double b[3]) {
    double d = a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
    return acos(d > 1 ? 1 : d < -1 ? -1 : d);
}

static void test_vicsek3_direction(void) {
    const double v[3] = {0, 0, 0.5};
    const int noflip[3] = {0, 0, 0};
    double d[3];
    const double s[3] = {1, 1, 0};
    vicsek_direction_d3(s, 2, v, 0.3, 0.7, 0, noflip, d);
    CHECK(d[0] == 1 / sqrt(2) && d[1] == 1 / sqrt(2) && d[2] == 0, "noise 0: the mean exactly");
    const double zero[3] = {1e-14, 0, 0};
    vicsek_direction_d3(zero, 2, v, 0.3, 0.7, 0, noflip, d);
    CHECK(d[0] == 0 && d[1] == 0 && d[2] == 1, "a zero sum keeps the previous direction");

    /* The turn is theta with cos theta = 1 - u1 (1 - cos(eta / 2)) from the mean, for mean
     * directions all over the sphere (the poles included, where the basis changes sign). */
    const double means[][3] = {{0, 0, 1}, {0, 0, -1}, {1, 0, 0}, {0.3, -0.4, 0.5}, {-1, 2, -3}};
    const double eta = 1.5;
    for (size_t m = 0; m < sizeof means / sizeof means[0]; m++)
        for (int q = 0; q < 8; q++) {
            double u1 = (q + 0.5) / 8, u2 = (q * 3 % 8 + 0.25) / 8, e[3], t1[3], t2[3];
            double len = sqrt(rules_dot_d3(means[m], means[m]));
            for (int c = 0; c < 3; c++) e[c] = means[m][c] / len;
            vicsek_direction_d3(means[m], 1, v, u1, u2, eta, noflip, d);
            CHECK_NEAR(rules_dot_d3(d, d), 1, TOL, "a unit direction");
            CHECK_NEAR(cos(angle(d, e)), 1 - u1 * (1 - cos(eta / 2)), 1e-9,
                       "turned by theta (acos near 0 loses digits: 1e-9)");
            vicsek3_basis_d3(e, t1, t2);
            CHECK_NEAR(rules_dot_d3(t1, t1), 1, TOL, "t1 unit");
            CHECK_NEAR(t1[0] * t2[0] + t1[1] * t2[1] + t1[2] * t2[2], 0, TOL, "t1 . t2 = 0");
            CHECK_NEAR(t1[0] * e[0] + t1[1] * e[1] + t1[2] * e[2], 0, TOL, "t1 . e = 0");
            double phi = atan2(d[0] * t2[0] + d[1] * t2[1] + d[2] * t2[2],
                               d[0] * t1[0] + d[1] * t1[1] + d[2] * t1[2]);
            CHECK_NEAR(remainder(phi - 2 * M_PI * u2, 2 * M_PI), 0, 1e-9, "azimuth 2 pi u2");
        }
}

/* ---- cpu-ref in 3-D ------------------------------------------------------------------ */

static boids_flock random_flock(const boids_params *p, size_t n, uint64_t seed) {
    boids_error err;
    boids_flock f;
    if (boids_flock_alloc_dim(&f, n, p->dim, &err)) die("alloc", &err);
    boids_flock_randomize(&f, p, seed);
    return f;
}

/* The state of backend b, made from f, after `steps` steps of p; destroys b. */
static boids_flock stepped(boids_backend *b, const boids_flock *f, const boids_params *p,
                           unsigned steps) {
    boids_error err;
    boids_flock out;
    if (boids_flock_alloc_dim(&out, f->n, boids_flock_dim(f), &err)) die("alloc", &err);
    if (boids_backend_step(b, p, steps, &err)) die("step", &err);
    if (boids_backend_download(b, &out, &err)) die("download", &err);
    boids_backend_destroy(b);
    return out;
}

/* The state of f after `steps` steps of p on cpu-ref with `threads` threads (scalar != 0: the
 * scalar pair scan, not AVX2's). */
static boids_flock run_ref_scan(const boids_flock *f, const boids_params *p, unsigned steps,
                                int threads, int scalar) {
    boids_error err;
    boids_backend *b = boids_cpu_ref_create(f, &err);
    if (!b) die("cpu-ref", &err);
    boids_cpu_ref_set_threads(b, threads);
    CHECK(boids_cpu_ref_force_scalar(b, scalar) == 0, "a 3-D cpu-ref takes the scan hook");
    return stepped(b, f, p, steps);
}

static boids_flock run_ref(const boids_flock *f, const boids_params *p, unsigned steps,
                           int threads) {
    return run_ref_scan(f, p, steps, threads, 0);
}

/* A 3-D flock in the plane z = 0 at rest along z gives the planar step's bits: the z terms
 * add exact zeros everywhere (Reynolds; with wrap, predator_z = 0 and the fov cone). */
static void test_flat_flock_is_planar(void) {
    for (int topo = 0; topo < 2; topo++) {
        boids_params p2 = boids_params_default();
        p2.count = 300, p2.fov = 270, p2.predator = 1, p2.food = 1;
        p2.neighbours = topo;
        boids_flock f2 = random_flock(&p2, 300, 11);
        boids_params p3 = p2;
        p3.dim = 3, p3.predator_z = p3.food_z = 0;
        boids_error err;
        boids_flock f3;
        if (boids_flock_alloc_dim(&f3, f2.n, 3, &err)) die("alloc", &err);
        for (size_t i = 0; i < f2.n; i++) {
            f3.x[i] = f2.x[i], f3.y[i] = f2.y[i], f3.vx[i] = f2.vx[i], f3.vy[i] = f2.vy[i];
            f3.z[i] = f3.vz[i] = 0;
        }
        boids_flock a = run_ref(&f2, &p2, 20, 2), b = run_ref(&f3, &p3, 20, 2);
        int same = 1, flat = 1;
        for (size_t i = 0; i < a.n; i++) {
            same &=
                a.x[i] == b.x[i] && a.y[i] == b.y[i] && a.vx[i] == b.vx[i] && a.vy[i] == b.vy[i];
            flat &= b.z[i] == 0 && b.vz[i] == 0;
        }
        CHECK(same && flat, "%s: a flat 3-D flock steps as the plane, bit for bit",
              topo ? "topological" : "metric");
        boids_flock_free(&f2), boids_flock_free(&f3), boids_flock_free(&a), boids_flock_free(&b);
    }
}

static void test_ref_threads(void) {
    const int models[][2] = {{BOIDS_MODEL_REYNOLDS, 0},
                             {BOIDS_MODEL_REYNOLDS, 1},
                             {BOIDS_MODEL_VICSEK, 0},
                             {BOIDS_MODEL_VICSEK, 1}};
    for (size_t m = 0; m < 4; m++) {
        boids_params p = box_params(300, BOIDS_BOUNDARY_WRAP);
        p.model = models[m][0], p.neighbours = models[m][1];
        p.fov = 300, p.noise = 1, p.speed = 100;
        boids_flock f = random_flock(&p, 700, 5);
        boids_flock a = run_ref(&f, &p, 5, 1), b = run_ref(&f, &p, 5, 2);
        boids_flock s = run_ref_scan(&f, &p, 5, 2, 1);
        CHECK(boids_flock_hash(&a) == boids_flock_hash(&b), "model %zu: 1 and 2 threads agree", m);
        CHECK(boids_flock_hash(&a) == boids_flock_hash(&s), "model %zu: scalar scan agrees", m);
        boids_flock_free(&s);
        CHECK(boids_flock_hash(&a) != boids_flock_hash(&f), "model %zu: the state moved", m);
        boids_flock_free(&f), boids_flock_free(&a), boids_flock_free(&b);
    }
}

/* ---- cpu (the 3-D grid) against cpu-ref --------------------------------------------- */

/* The state of f after `steps` steps of p on cpu with `threads` threads, all of them on
 * every step (boids_cpu_fixed_threads); scalar != 0 forces the scalar kernels. */
static boids_flock run_cpu_kernel(const boids_flock *f, const boids_params *p, unsigned steps,
                                  int threads, int scalar) {
    boids_error err;
    boids_backend *b = boids_cpu_create(f, threads, &err);
    if (!b) die("cpu", &err);
    CHECK(boids_cpu_force_scalar(b, scalar) == 0 && boids_cpu_fixed_threads(b, 1) == 0,
          "a 3-D cpu takes the test hooks");
    return stepped(b, f, p, steps);
}

/* run_cpu_kernel with the processor's kernels, which must give the scalar ones' bits. */
static boids_flock run_cpu(const boids_flock *f, const boids_params *p, unsigned steps,
                           int threads) {
    boids_flock out = run_cpu_kernel(f, p, steps, threads, 0);
    boids_flock ref = run_cpu_kernel(f, p, steps, threads, 1);
    CHECK(boids_flock_hash(&out) == boids_flock_hash(&ref),
          "3-D: the default and the scalar kernels agree bit for bit");
    boids_flock_free(&ref);
    return out;
}

/* Neighbour counts and sets of b for p, against cpu-ref's brute force: returns the boids
 * that differ. Random states put no pair within float rounding (~1e-7 relative) of a
 * threshold except with a chance of about 1e-4 per scenario here, so the sets must agree
 * exactly (boids verify handles the float band in general). */
static size_t neighbour_diffs(const boids_flock *f, const boids_params *p) {
    boids_error err;
    boids_backend *r = boids_cpu_ref_create(f, &err), *g = r ? boids_cpu_create(f, 2, &err) : NULL;
    size_t diffs = g ? compare_neighbour_sets(r, g, p, f->n, &err) : (size_t)-1;
    if (diffs == (size_t)-1) die("neighbours", &err);
    boids_backend_destroy(r), boids_backend_destroy(g);
    return diffs;
}

/* cpu against cpu-ref for both models, both neighbour rules and every boundary: the same
 * neighbour sets, one step within float rounding, and the same bits on 1 and 2 threads. */
static void test_cpu_against_ref(void) {
    for (int model = 0; model < 2; model++)
        for (int topo = 0; topo < 2; topo++)
            for (int bnd = 0; bnd < 3; bnd++) {
                boids_params p = box_params(400, bnd);
                p.model = model, p.neighbours = topo, p.fov = 270, p.noise = 0.5, p.speed = 150;
                p.predator = p.food = 1, p.wall_margin = 40, p.wall_weight = 2;
                boids_flock f = random_flock(&p, 2500, 21 + (uint64_t)(6 * model + 3 * topo + bnd));
                const char *what[2][2] = {{"reynolds metric", "reynolds topological"},
                                          {"vicsek metric", "vicsek topological"}};
                size_t nd = neighbour_diffs(&f, &p);
                CHECK(nd == 0, "%s, boundary %d: %zu neighbour sets differ", what[model][topo], bnd,
                      nd);
                boids_flock r = run_ref(&f, &p, 1, 2), a = run_cpu(&f, &p, 1, 1);
                boids_flock b = run_cpu(&f, &p, 1, 2);
                double dp, dv;
                compare_states(&a, &r, &p, &dp, &dv);
                /* Float rounding: positions up to 400 have ulps of 3e-5 and the step adds a
                 * few roundings; velocities up to 180 have ulps of 1.5e-5, and a steering
                 * sum over ~10 neighbours and the normalisations add a few dozen: 1e-3 is
                 * about 30 ulps of either, far below any rule's effect (max_force 6). */
                CHECK(dp < 1e-3 && dv < 1e-3, "%s, boundary %d: one step off by %g / %g",
                      what[model][topo], bnd, dp, dv);
                CHECK(boids_flock_hash(&a) == boids_flock_hash(&b),
                      "%s, boundary %d: 1 and 2 threads agree", what[model][topo], bnd);
                boids_flock_free(&f), boids_flock_free(&r), boids_flock_free(&a);
                boids_flock_free(&b);
            }
}

/* ---- state files --------------------------------------------------------------------- */

static void test_state_round_trip(void) {
    boids_params p = box_params(200, BOIDS_BOUNDARY_WRAP);
    p.model = BOIDS_MODEL_VICSEK, p.noise = 2, p.speed = 50, p.vision_radius = 30;
    p.separation_radius = 0;
    boids_flock f = random_flock(&p, 200, 9);
    char path[] = "/tmp/boids_dim3_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0, "temporary file");
    if (fd < 0) return;
    close(fd);
    boids_error err;
    boids_flock mid = run_ref(&f, &p, 7, 2), back, straight = run_ref(&f, &p, 14, 2);
    CHECK(boids_state_save(path, &mid, &err) == BOIDS_OK, "%s", err.msg);
    CHECK(boids_state_load_for(path, &p, &back, &err) == BOIDS_OK, "%s", err.msg);
    CHECK(boids_flock_dim(&back) == 3 && back.step == 7, "a 3-D state at step 7 comes back");
    CHECK(boids_flock_hash(&back) == boids_flock_hash(&mid), "save/load is exact in 3-D");
    boids_flock resumed = run_ref(&back, &p, 7, 1);
    CHECK(boids_flock_hash(&resumed) == boids_flock_hash(&straight),
          "7 + save/load + 7 steps = 14 steps (the noise stream goes on)");
    boids_params p2 = p;
    p2.dim = 2;
    boids_flock none;
    CHECK(boids_state_load_for(path, &p2, &none, &err) == BOIDS_ERR_INPUT &&
              strstr(err.msg, "3-D") && strstr(err.msg, "dim = 2"),
          "a 3-D state under dim = 2 is refused by name: %s", err.msg);
    boids_flock flat = random_flock(&p2, 5, 1);
    CHECK(boids_state_save(path, &flat, &err) == BOIDS_OK, "%s", err.msg);
    CHECK(boids_state_load_for(path, &p, &none, &err) == BOIDS_ERR_INPUT &&
              strstr(err.msg, "2-D") && strstr(err.msg, "dim = 3"),
          "a 2-D state under dim = 3 is refused by name: %s", err.msg);
    boids_backend *r3 = boids_cpu_ref_create(&back, &err);
    boids_interact table;
    boids_interact_default(&table, &p);
    CHECK(r3 && boids_backend_set_interact(r3, &table, &err) == BOIDS_OK,
          "a table with nothing on is accepted in 3-D");
    table.predators[0].on = 1;
    CHECK(r3 && boids_backend_set_interact(r3, &table, &err) == BOIDS_OK,
          "a 3-D backend takes a point (it has a z): %s", err.msg);
    table.obstacle_count = 1;
    table.obstacles[0] = (boids_obstacle){BOIDS_OBSTACLE_CIRCLE, 10, 10, 0, 0, 5, 0};
    CHECK(r3 && boids_backend_set_interact(r3, &table, &err) == BOIDS_ERR_INPUT &&
              strstr(err.msg, "planar") && strstr(err.msg, "sphere X Y Z R"),
          "a 3-D backend refuses a circle, naming spheres instead: %s", err.msg);
    boids_backend_destroy(r3);
    boids_backend *b = boids_cpu_ref_create(&flat, &err);
    CHECK(b && boids_backend_step(b, &p, 1, &err) == BOIDS_ERR_INPUT && strstr(err.msg, "dim"),
          "a 2-D backend refuses dim = 3 parameters: %s", err.msg);
    boids_backend_destroy(b);
    char sidecar[sizeof path + 5];
    snprintf(sidecar, sizeof sidecar, "%s.json", path);
    remove(sidecar);
    remove(path);
    boids_flock_free(&f), boids_flock_free(&mid), boids_flock_free(&back);
    boids_flock_free(&straight), boids_flock_free(&resumed), boids_flock_free(&flat);
}

/* ---- observables in 3-D -------------------------------------------------------------- */

/* The grid observables against an O(N^2) count are tests/metrics_test.c's, in the plane and
 * in the box. */

/* A ring about the y axis, every boid moving round it the same way: milling 1, order ~0. */
static void test_milling_ring(void) {
    boids_params p = box_params(100, BOIDS_BOUNDARY_WALLS);
    boids_error err;
    boids_flock f;
    if (boids_flock_alloc_dim(&f, 64, 3, &err)) die("alloc", &err);
    for (size_t i = 0; i < f.n; i++) {
        double a = 2 * M_PI * (double)i / (double)f.n;
        f.x[i] = 50 + 20 * cos(a), f.y[i] = 50, f.z[i] = 50 + 20 * sin(a);
        f.vx[i] = -sin(a), f.vy[i] = 0, f.vz[i] = cos(a);
    }
    boids_metrics m;
    CHECK(boids_metrics_compute(&f, &p, &m, &err) == BOIDS_OK, "%s", err.msg);
    CHECK_NEAR(m.milling, 1, 1e-12, "a ring about y mills");
    CHECK_NEAR(m.order, 0, 1e-12, "and has no order");
    boids_flock_free(&f);
}

/* A 90-degree rotation of f about axis a (0 x, 1 y, 2 z) of the cube [0, L)^3. */
static void rotate(boids_flock *f, int a, double L) {
    double *p[3] = {f->x, f->y, f->z}, *v[3] = {f->vx, f->vy, f->vz};
    const int u = (a + 1) % 3, w = (a + 2) % 3; /* (u, w) -> (L - w, u) */
    for (size_t i = 0; i < f->n; i++) {
        double pu = p[u][i], pw = p[w][i], vu = v[u][i], vw = v[w][i];
        p[u][i] = L - pw == L ? 0 : L - pw;
        p[w][i] = pu;
        v[u][i] = -vw;
        v[w][i] = vu;
    }
}

/* In a cubic periodic world a 90-degree rotation about each axis leaves the observables
 * unchanged and commutes with a cpu-ref step, up to rounding: the rotated state's sums are
 * the same numbers in another arrangement, each off by a few ulps (1e-9 is far above). */
static void test_rotation(void) {
    const double L = 200;
    boids_params p = box_params(L, BOIDS_BOUNDARY_WRAP);
    p.fov = 270, p.predator = 1, p.vision_radius = 40; /* the predator at the centre */
    boids_flock f = random_flock(&p, 400, 17);
    boids_error err;
    boids_metrics m0, m1;
    CHECK(boids_metrics_compute(&f, &p, &m0, &err) == BOIDS_OK, "%s", err.msg);
    boids_flock stepped = run_ref(&f, &p, 1, 2);
    for (int a = 0; a < 3; a++) {
        boids_flock r;
        if (boids_flock_copy(&r, &f, &err)) die("copy", &err);
        rotate(&r, a, L);
        CHECK(boids_metrics_compute(&r, &p, &m1, &err) == BOIDS_OK, "%s", err.msg);
        for (int q = 0; q < BOIDS_METRICS_COUNT; q++)
            CHECK_NEAR(boids_metrics_get(&m1, q), boids_metrics_get(&m0, q), 1e-9,
                       "axis %d: %s unchanged by the rotation", a, boids_metrics_names[q]);
        boids_flock rs = run_ref(&r, &p, 1, 2), sr;
        if (boids_flock_copy(&sr, &stepped, &err)) die("copy", &err);
        rotate(&sr, a, L);
        double dp, dv;
        compare_states(&rs, &sr, &p, &dp, &dv);
        CHECK(dp < 1e-9 && dv < 1e-9, "axis %d: the step commutes with the rotation (%g, %g)", a,
              dp, dv);
        boids_flock_free(&r), boids_flock_free(&rs), boids_flock_free(&sr);
    }
    boids_flock_free(&f), boids_flock_free(&stepped);
}

/* ---- Vicsek noise in 3-D ------------------------------------------------------------- */

/* eta = 2 pi draws every new direction uniformly on the sphere, whatever the mean: for N
 * independent unit vectors E[N P^2] = 1 exactly, and E[vz^2 / v0^2] = 1/3. Agents far apart
 * (no neighbours) and 300 steps give 300 samples of N P^2, each of variance about 2/3 (N P^2
 * is nearly chi-squared with 3 degrees of freedom over 3): the standard error of their mean
 * is sqrt(2/3 / 300) = 0.047, and 0.2 is over 4 of them. */
static void test_vicsek3_null_model(void) {
    boids_params p = box_params(1000, BOIDS_BOUNDARY_WRAP);
    p.model = BOIDS_MODEL_VICSEK, p.noise = 2 * M_PI, p.speed = 1, p.vision_radius = 0.001;
    p.separation_radius = 0, p.noise_seed = 3;
    boids_flock f = random_flock(&p, 64, 2);
    boids_error err;
    boids_backend *b = boids_cpu_ref_create(&f, &err);
    if (!b) die("cpu-ref", &err);
    double sum_np2 = 0, sum_z2 = 0;
    const int steps = 300;
    for (int s = 0; s < steps; s++) {
        if (boids_backend_step(b, &p, 1, &err) || boids_backend_download(b, &f, &err))
            die("step", &err);
        double P = boids_order(&f);
        sum_np2 += (double)f.n * P * P;
        for (size_t i = 0; i < f.n; i++) sum_z2 += f.vz[i] * f.vz[i];
    }
    CHECK_NEAR(sum_np2 / steps, 1, 0.2, "E[N P^2] = 1 (standard error 0.047)");
    /* vz^2 of a uniform direction has variance 4/45: over 19200 draws the standard error of
     * the mean is 0.0022; 0.012 is over 5 of them. */
    CHECK_NEAR(sum_z2 / (steps * (double)f.n), 1.0 / 3, 0.012, "E[vz^2] = 1/3");
    boids_backend_destroy(b);
    boids_flock_free(&f);
}

/* Order against noise in a dense periodic box (density 4, R = 1, v0 = 0.03): low noise
 * orders the flock, eta = 2 pi leaves it at the 1/sqrt(N) level of random directions. */
static double vicsek3_order(double eta) {
    boids_params p = box_params(cbrt(250 / 4.0), BOIDS_BOUNDARY_WRAP);
    p.model = BOIDS_MODEL_VICSEK, p.noise = eta, p.speed = 0.03, p.initial_speed = 0.03;
    p.vision_radius = 1, p.separation_radius = 0, p.dt = 1, p.max_speed = 0.03, p.min_speed = 0;
    p.noise_seed = 1;
    boids_flock f = random_flock(&p, 250, 4);
    boids_flock out = run_ref(&f, &p, 150, 2);
    double order = boids_order(&out);
    boids_flock_free(&f), boids_flock_free(&out);
    return order;
}

static void test_vicsek3_order_vs_noise(void) {
    double low = vicsek3_order(0.3), high = vicsek3_order(2 * M_PI);
    CHECK(low > 0.9, "eta 0.3: ordered (order %g)", low);
    /* E[P^2] = 1/N: P is about 1/sqrt(250) = 0.063; 0.25 is four times that. */
    CHECK(high < 0.25, "eta 2 pi: disordered (order %g)", high);
}

int main(void) {
    test_box_rules_geometry();
    test_box_rules_steer_and_sums();
    test_box_rules_walls_and_integrate();
    test_vicsek3_direction();
    test_flat_flock_is_planar();
    test_ref_threads();
    test_cpu_against_ref();
    test_state_round_trip();
    test_milling_ring();
    test_rotation();
    test_vicsek3_null_model();
    test_vicsek3_order_vs_noise();
    return CHECK_DONE("dim3_test");
}
