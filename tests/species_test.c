/* SPDX-License-Identifier: MIT */
/* Species (docs/model.md, "Species") on cpu-ref and cpu: the keys and the assignment by id;
 * steps computed by hand from the published rules (not from rules.h) with two species; the
 * null models (species with equal parameters and a coupling of ones are one kind, bit for
 * bit; a zero coupling off the diagonal keeps two kinds' opposite headings, a coupling of
 * ones mixes them); determinism over thread counts; and the rules between species (flee,
 * chase, avoid) each by the property it is for. Tolerances: the hand steps are a few double
 * operations on cpu-ref (1e-12 covers their rounding, each ~1e-16); cpu computes in float
 * (its bound against cpu-ref after one step, 1e-4 of the lengths here, is float rounding of
 * sums of a few hundred terms, ~1e-7 each, with margin). */
#include <math.h>
#include <string.h>

#include "boids/backend.h"
#include "boids/metrics.h"
#include "backend_compare.h"
#include "check.h"
#include "run_steps.h"
#include "seed003.h"
#include "cpu_ref.h"

static const double TOL = 1e-12;

static void alloc(boids_flock *f, size_t n) {
    boids_error err;
    CHECK(boids_flock_alloc(f, n, &err) == BOIDS_OK, "%s", err.msg);
}

static void copy(boids_flock *to, const boids_flock *from) {
    boids_error err;
    CHECK(boids_flock_copy(to, from, &err) == BOIDS_OK, "%s", err.msg);
}

static int same_bits(const boids_flock *a, const boids_flock *b) {
    size_t n = a->n * sizeof(double);
    return a->n == b->n && !memcmp(a->x, b->x, n) && !memcmp(a->y, b->y, n) &&
           !memcmp(a->vx, b->vx, n) && !memcmp(a->vy, b->vy, n);
}

static void set(boids_params *p, const char *key, const char *value) {
    boids_error err;
    CHECK(boids_params_set(p, key, value, "species_test", &err) == BOIDS_OK, "%s", err.msg);
}

/* The keys: one parser for species keys, ranges refused, the assignment by id, the reach. */
static void test_keys(void) {
    boids_params p = boids_params_default();
    boids_error err;
    CHECK(p.species == 1 && p.coupling[2][3] == 1 && p.rule[1][0] == BOIDS_RULE_NONE,
          "defaults: one species, couplings of ones, no rules");
    CHECK(p.sp[0].max_speed == p.max_speed && p.sp[2].noise == p.noise,
          "a species starts with species 0's values");
    set(&p, "species", "3");
    set(&p, "species_count.1", "5");
    set(&p, "species_count.2", "2");
    set(&p, "max_speed.2", "250");
    set(&p, "coupling.1.0", "0.5");
    set(&p, "rule.2.0", "chase");
    set(&p, "rule_radius.2.0", "90");
    CHECK(p.sp[1].max_speed == 250 && p.coupling[1][0] == 0.5 && p.rule[2][0] == BOIDS_RULE_CHASE,
          "keys land in their fields");
    CHECK(boids_species_of(&p, 0) == 1 && boids_species_of(&p, 4) == 1 &&
              boids_species_of(&p, 5) == 2 && boids_species_of(&p, 6) == 2 &&
              boids_species_of(&p, 7) == 0 && boids_species_of(&p, 1000000) == 0,
          "ids 0..4 species 1, 5..6 species 2, the rest species 0");
    CHECK(boids_params_reach(&p) == 90, "the reach is the chase radius: %g",
          boids_params_reach(&p));
    CHECK(boids_params_validate(&p, &err) == BOIDS_OK, "%s", err.msg);
    CHECK(boids_params_set(&p, "species", "5", "t", &err) != BOIDS_OK, "species above 4 refused");
    CHECK(boids_params_set(&p, "rule.0.1", "eat", "t", &err) != BOIDS_OK &&
              strstr(err.msg, "rule.0.1") != NULL,
          "an unknown rule refused, naming the key: %s", err.msg);
    CHECK(boids_params_set(&p, "coupling.0.4", "1", "t", &err) != BOIDS_OK, "no species 4");
    set(&p, "min_speed.1", "300");
    CHECK(boids_params_validate(&p, &err) != BOIDS_OK && strstr(err.msg, "min_speed.1"),
          "min_speed.1 above max_speed.1 refused: %s", err.msg);
    set(&p, "min_speed.1", "10");
    set(&p, "neighbours", "topological");
    CHECK(boids_params_validate(&p, &err) == BOIDS_OK,
          "species with topological neighbours accepted: %s", err.msg);
    boids_params one = boids_params_default();
    one.species = 1;
    one.sp[0].count = 7;
    CHECK(boids_species_of(&one, 0) == 0, "with species = 1 every boid is species 0");
}

/* The Reynolds parameters of the steps by hand: the open plane, vision radius r, no
 * separation, dt 1; boid 0 of species 1 (max_speed.1 2, max_force.1 0.5, coupling.1.0 0.5),
 * the others species 0 (max_speed 1, max_force 0.25). */
static boids_params two_kinds_by_hand(double r) {
    boids_params p = boids_params_default();
    p.boundary = BOIDS_BOUNDARY_OPEN;
    p.vision_radius = r;
    p.separation_radius = 0;
    p.dt = 1;
    p.max_speed = 1;
    p.min_speed = 0;
    p.max_force = 0.25;
    p.species = 2;
    p.sp[0] = (boids_species){.count = 1,
                              .max_speed = 2,
                              .max_force = 0.5,
                              .vision_radius = r,
                              .separation_weight = 1.5,
                              .alignment_weight = 1,
                              .cohesion_weight = 1,
                              .speed = 1};
    p.coupling[1][0] = 0.5;
    return p;
}

/* Two Reynolds boids in the open plane, boid 0 of species 1 (max_speed.1 2, max_force.1 0.5,
 * coupling.1.0 0.5), boid 1 of species 0 (max_speed 1, max_force 0.25), both seeing each other
 * (vision 10), no separation (radius 0): by hand, steer(t) = unit(t) max_speed - v capped at
 * max_force, alignment target the coupled velocity sum, cohesion the coupled offset sum. */
static void test_reynolds_by_hand(void) {
    boids_params p = two_kinds_by_hand(10);
    boids_flock f;
    alloc(&f, 2);
    f.x[0] = 0, f.y[0] = 0, f.vx[0] = 1, f.vy[0] = 0;
    f.x[1] = 3, f.y[1] = 0, f.vx[1] = 0, f.vy[1] = 1;
    /* Boid 0: alignment target 0.5 (0, 1), steer (0, 2) - (1, 0) = (-1, 2), capped to 0.5;
     * cohesion target 0.5 (3, 0), steer (2, 0) - (1, 0) = (1, 0), capped to (0.5, 0). */
    double ax = -0.5 / sqrt(5) + 0.5, ay = 1.0 / sqrt(5);
    double v0x = 1 + ax, v0y = ay; /* |v| = 1.06 < 2: kept */
    /* Boid 1 (coupling 1): alignment target (1, 0): (1, 0) - (0, 1) = (1, -1) capped to
     * 0.25 / sqrt 2 (1, -1); cohesion target (-3, 0): (-1, 0) - (0, 1), capped likewise. */
    double c = 0.25 / sqrt(2);
    double v1x = 0 + c - c, v1y = 1 - c - c; /* below max_speed 1 */
    run_steps(&p, &f, 1, 0);
    CHECK_NEAR(f.vx[0], v0x, TOL, "boid 0 (species 1) vx");
    CHECK_NEAR(f.vy[0], v0y, TOL, "boid 0 (species 1) vy");
    CHECK_NEAR(f.x[0], v0x, TOL, "boid 0 moved by its new velocity");
    CHECK_NEAR(f.vx[1], v1x, TOL, "boid 1 (species 0) vx");
    CHECK_NEAR(f.vy[1], v1y, TOL, "boid 1 (species 0) vy");
    CHECK_NEAR(f.y[1], v1y, TOL, "boid 1 moved by its new velocity");
    boids_flock_free(&f);
}

/* Two Vicsek agents in reach of each other: agent 0 of species 1 (speed.1 0.5, coupling.1.0
 * 2) heads along u0 + 2 u1; agent 1 of species 0 ignores species 1 (coupling.0.1 0) and keeps
 * its heading at speed 0.2. */
static void test_vicsek_by_hand(void) {
    boids_params p = seed003_three_agent_params(); /* open, R 1.1, speed 0.2, no noise */
    p.species = 2;
    p.sp[0] = (boids_species){.count = 1, .speed = 0.5, .max_speed = 1, .vision_radius = 1.1};
    p.coupling[1][0] = 2;
    p.coupling[0][1] = 0;
    boids_flock f;
    alloc(&f, 2);
    const double a0 = 0.3, a1 = 1.4;
    f.x[0] = 0, f.y[0] = 0, f.vx[0] = 0.5 * cos(a0), f.vy[0] = 0.5 * sin(a0);
    f.x[1] = 0.5, f.y[1] = 0, f.vx[1] = 0.2 * cos(a1), f.vy[1] = 0.2 * sin(a1);
    double h0 = atan2(sin(a0) + 2 * sin(a1), cos(a0) + 2 * cos(a1));
    double x1 = 0.5 + 0.2 * cos(a1);
    run_steps(&p, &f, 1, 0);
    CHECK_NEAR(atan2(f.vy[0], f.vx[0]), h0, TOL, "agent 0 heads along u0 + 2 u1");
    CHECK_NEAR(hypot(f.vx[0], f.vy[0]), 0.5, TOL, "agent 0 at its species' speed");
    CHECK_NEAR(atan2(f.vy[1], f.vx[1]), a1, TOL, "agent 1 ignores species 1");
    CHECK_NEAR(hypot(f.vx[1], f.vy[1]), 0.2, TOL, "agent 1 at species 0's speed");
    CHECK_NEAR(f.x[1], x1, TOL, "positions advance with the old velocity");
    boids_flock_free(&f);
}

/* The steering force of the published rule (seed 000's dirigir): towards t at full speed
 * maxs from velocity v, capped at maxf; computed here, not by rules.h. */
static void hand_steer(const double t[2], const double v[2], double maxs, double maxf,
                       double f[2]) {
    const double m = hypot(t[0], t[1]);
    for (int c = 0; c < 2; c++) f[c] = t[c] / m * maxs - v[c];
    const double fm = hypot(f[0], f[1]);
    if (fm > maxf)
        for (int c = 0; c < 2; c++) f[c] *= maxf / fm;
}

/* Topological neighbours with species, k = 2 at any distance, by hand: boid 0 of species 1
 * (max_speed.1 2, max_force.1 0.5, vision.1 5, coupling.1.0 0.5) and boids 1..3 of species 0
 * (max_speed 1, max_force 0.25, coupling.0.1 0), open plane, no separation. Boid 0's two
 * nearest are 1 (at 3) and 2 (at 6, beyond its vision: k_in_vision is off), not 3 (at 8);
 * boid 1's are 0 (at 3, weighted 0) and 2 (at 6.7), not 3 (at 8.5). */
static void test_topological_by_hand(void) {
    boids_params p = two_kinds_by_hand(5);
    p.neighbours = BOIDS_NEIGHBOURS_TOPOLOGICAL;
    p.k = 2;
    p.coupling[0][1] = 0;
    const double pos[4][2] = {{0, 0}, {3, 0}, {0, 6}, {0, -8}};
    const double vel[4][2] = {{1, 0}, {0, 1}, {-1, 0}, {1, 0}};
    /* Boid 0: alignment target 0.5 v1 + 0.5 v2, cohesion 0.5 (d1 + d2); boid 1: v2 + 0 v0 and
     * d2 + 0 d0 (the offsets from boid 1). */
    const double t[2][2][2] = {{{-0.5, 0.5}, {1.5, 3}}, {{-1, 0}, {-3, 6}}};
    const double maxs[2] = {2, 1}, maxf[2] = {0.5, 0.25};
    for (int threads = 0; threads <= 1; threads++) {
        boids_flock f;
        alloc(&f, 4);
        for (size_t i = 0; i < 4; i++)
            f.x[i] = pos[i][0], f.y[i] = pos[i][1], f.vx[i] = vel[i][0], f.vy[i] = vel[i][1];
        run_steps(&p, &f, 1, threads);
        /* cpu computes in float: 1e-6 covers its rounding of these few operations (~1e-7). */
        const double tol = threads ? 1e-6 : TOL;
        for (int b = 0; b < 2; b++) {
            double fa[2], fc[2], v[2];
            hand_steer(t[b][0], vel[b], maxs[b], maxf[b], fa);
            hand_steer(t[b][1], vel[b], maxs[b], maxf[b], fc);
            for (int c = 0; c < 2; c++) v[c] = vel[b][c] + fa[c] + fc[c];
            CHECK(hypot(v[0], v[1]) < maxs[b], "boid %d stays below its species' speed limit", b);
            CHECK_NEAR(f.vx[b], v[0], tol, "topological boid %d vx (%s)", b,
                       threads ? "cpu" : "cpu-ref");
            CHECK_NEAR(f.vy[b], v[1], tol, "topological boid %d vy (%s)", b,
                       threads ? "cpu" : "cpu-ref");
            CHECK_NEAR(f.x[b], pos[b][0] + v[0], tol, "topological boid %d x", b);
            CHECK_NEAR(f.y[b], pos[b][1] + v[1], tol, "topological boid %d y", b);
        }
        boids_flock_free(&f);
    }
}

/* Vicsek agents with topological neighbours, k = 2, by hand: agent 0 of species 1 (speed.1
 * 0.5, coupling.1.0 0.5) heads along u0 + 0.5 u1 + 0.5 u2 (its two nearest; agent 3 at 1.0 is
 * third); agents 1 and 3 of species 0 (coupling.0.1 0) have agents 0 and 2 as their two
 * nearest and head along their own heading plus u2's. */
static void test_vicsek_topological_by_hand(void) {
    boids_params p = seed003_three_agent_params(); /* open, R 1.1, speed 0.2, no noise */
    p.neighbours = BOIDS_NEIGHBOURS_TOPOLOGICAL;
    p.k = 2;
    p.species = 2;
    p.sp[0] = (boids_species){.count = 1, .speed = 0.5, .max_speed = 1, .vision_radius = 1.1};
    p.coupling[1][0] = 0.5;
    p.coupling[0][1] = 0;
    const double x[4] = {0, 0.5, 0, -1}, y[4] = {0, 0, 0.8, 0}, a[4] = {0.3, 1.4, -2.0, 2.5};
    const double sp[4] = {0.5, 0.2, 0.2, 0.2};
    for (int threads = 0; threads <= 1; threads++) {
        boids_flock f;
        alloc(&f, 4);
        for (size_t i = 0; i < 4; i++)
            f.x[i] = x[i], f.y[i] = y[i], f.vx[i] = sp[i] * cos(a[i]), f.vy[i] = sp[i] * sin(a[i]);
        run_steps(&p, &f, 1, threads);
        /* cpu computes in float: 1e-6 covers its rounding of a few operations (~1e-7). */
        const double tol = threads ? 1e-6 : TOL;
        const double h0 = atan2(sin(a[0]) + 0.5 * sin(a[1]) + 0.5 * sin(a[2]),
                                cos(a[0]) + 0.5 * cos(a[1]) + 0.5 * cos(a[2]));
        CHECK_NEAR(atan2(f.vy[0], f.vx[0]), h0, tol, "agent 0: u0 + 0.5 (u1 + u2) (%s)",
                   threads ? "cpu" : "cpu-ref");
        CHECK_NEAR(hypot(f.vx[0], f.vy[0]), 0.5, tol, "agent 0 at its species' speed");
        for (int i = 1; i <= 3; i += 2) {
            const double h = atan2(sin(a[i]) + sin(a[2]), cos(a[i]) + cos(a[2]));
            CHECK_NEAR(atan2(f.vy[i], f.vx[i]), h, tol, "agent %d: its own and u2, not u0 (%s)", i,
                       threads ? "cpu" : "cpu-ref");
        }
        CHECK_NEAR(f.x[1], x[1] + sp[1] * cos(a[1]), tol,
                   "positions advance with the old velocity");
        boids_flock_free(&f);
    }
}

/* A flock of p's count from seed. */
static void flock_of(const boids_params *p, boids_flock *f, uint64_t seed) {
    alloc(f, (size_t)p->count);
    boids_flock_randomize(f, p, seed);
}

/* Null model: species whose parameters are species 0's, coupled by ones, are one kind: the
 * same bits as species = 1, on cpu-ref and cpu (its scalar species kernel against its SIMD
 * one, which give the same bits), Reynolds and Vicsek, metric and topological neighbours (k =
 * 7; Reynolds at any distance, Vicsek with k_in_vision). */
static void test_ones_are_one_kind(void) {
    boids_params rey, vic;
    boids_error err;
    CHECK(boids_preset_apply(&rey, "classic", &err) == BOIDS_OK, "%s", err.msg);
    CHECK(boids_preset_apply(&vic, "vicsek", &err) == BOIDS_OK, "%s", err.msg);
    vic.count = 300;
    vic.noise_seed = 5;
    const boids_params *models[2] = {&rey, &vic};
    for (int m = 0; m < 4; m++)
        for (int threads = 0; threads <= 2; threads += 2) {
            boids_params one = *models[m % 2];
            if (m >= 2) {
                one.neighbours = BOIDS_NEIGHBOURS_TOPOLOGICAL;
                one.k = 7;
                one.k_in_vision = m == 3;
            }
            boids_params two = one;
            set(&two, "species", "3");
            set(&two, "species_count.1", "17");
            set(&two, "species_count.2", "30");
            boids_flock a, b;
            flock_of(&one, &a, 11);
            copy(&b, &a);
            run_steps(&one, &a, 30, threads);
            run_steps(&two, &b, 30, threads);
            CHECK(same_bits(&a, &b), "%s%s on %s: three species like one kind are one kind",
                  m % 2 ? "vicsek" : "reynolds", m >= 2 ? " topological" : "",
                  threads ? "cpu" : "cpu-ref");
            boids_flock_free(&a);
            boids_flock_free(&b);
        }
}

/* Mean heading (atan2 of the summed unit velocities) of boids [b, e). */
static double mean_heading(const boids_flock *f, size_t b, size_t e) {
    double sx = 0, sy = 0;
    for (size_t i = b; i < e; i++) {
        double m = hypot(f->vx[i], f->vy[i]);
        sx += f->vx[i] / m, sy += f->vy[i] / m;
    }
    return atan2(sy, sx);
}

/* Null model: two Vicsek kinds in the same box, 200 heading +x (species 1) and 200 +y
 * (species 0), no noise. With a zero coupling off the diagonal each sums only its own kind's
 * identical headings and keeps its heading exactly; with ones they mix into one heading. */
static void test_zero_coupling_keeps_kinds_apart(void) {
    boids_params p;
    boids_error err;
    CHECK(boids_preset_apply(&p, "vicsek", &err) == BOIDS_OK, "%s", err.msg);
    p.noise = 0;
    p.species = 2;
    p.sp[0] = (boids_species){
        .count = 200, .speed = p.speed, .max_speed = p.max_speed, .vision_radius = p.vision_radius};
    for (int threads = 0; threads <= 1; threads++)
        for (int coupled = 0; coupled <= 1; coupled++) {
            p.coupling[0][1] = p.coupling[1][0] = coupled;
            boids_flock f;
            flock_of(&p, &f, 3);
            for (size_t i = 0; i < f.n; i++) {
                f.vx[i] = i < 200 ? p.speed : 0;
                f.vy[i] = i < 200 ? 0 : p.speed;
            }
            run_steps(&p, &f, 100, threads);
            double h1 = mean_heading(&f, 0, 200), h0 = mean_heading(&f, 200, 400);
            if (!coupled) {
                /* Each sums n equal unit vectors: the heading stays that of one, up to the
                 * rounding of atan2, cos and sin (cos(pi / 2) is 6e-17, not 0) a step, far
                 * below 1e-5 rad over 100 steps in float. */
                double worst = 0;
                for (size_t i = 0; i < f.n; i++)
                    worst = fmax(worst, fabs(atan2(f.vy[i], f.vx[i]) - (i < 200 ? 0 : M_PI / 2)));
                CHECK(worst < 1e-5, "uncoupled kinds keep their headings: %g rad off (%s)", worst,
                      threads ? "cpu" : "cpu-ref");
            } else {
                /* From 90 degrees apart; at density 4 (some 12 neighbours each) 100 steps mix
                 * them to within a few degrees: 0.1 rad is far below the start's 1.57. */
                CHECK(fabs(h1 - h0) < 0.1, "coupled kinds mix: %g rad apart (%s)", h1 - h0,
                      threads ? "cpu" : "cpu-ref");
            }
            boids_flock_free(&f);
        }
}

/* Same seed, same bits: species with rules on cpu for 1 and 2 threads, cpu-ref likewise. */
static boids_params hawks_params(void) {
    boids_params p;
    boids_error err;
    CHECK(boids_preset_apply(&p, "classic", &err) == BOIDS_OK, "%s", err.msg);
    set(&p, "species", "2");
    set(&p, "species_count.1", "3");
    set(&p, "max_speed.1", "3.5");
    set(&p, "max_force.1", "0.1");
    set(&p, "alignment_weight.1", "0");
    set(&p, "cohesion_weight.1", "0");
    set(&p, "coupling.0.1", "0");
    set(&p, "rule.1.0", "chase");
    set(&p, "rule_radius.1.0", "120");
    set(&p, "rule_weight.1.0", "2");
    set(&p, "rule.0.1", "flee");
    set(&p, "rule_radius.0.1", "60");
    set(&p, "rule_weight.0.1", "3");
    return p;
}

/* cpu-ref on `threads` threads. */
static void run_ref(const boids_params *p, boids_flock *f, unsigned steps, int threads) {
    boids_error err;
    boids_backend *b = boids_cpu_ref_create(f, &err);
    CHECK(b != NULL && boids_cpu_ref_set_threads(b, threads) == 0, "%s", err.msg);
    if (!b) return;
    CHECK(boids_backend_step(b, p, steps, &err) == BOIDS_OK, "%s", err.msg);
    CHECK(boids_backend_download(b, f, &err) == BOIDS_OK, "%s", err.msg);
    boids_backend_destroy(b);
}

static void test_determinism(void) {
    boids_params p = hawks_params();
    for (int run = 0; run < 4; run++) {
        const int backend = run % 2;
        p.neighbours = run < 2 ? BOIDS_NEIGHBOURS_METRIC : BOIDS_NEIGHBOURS_TOPOLOGICAL;
        boids_flock a, b;
        p.count = backend ? 2500 : 200; /* cpu threads only above 2048 boids */
        flock_of(&p, &a, 9);
        copy(&b, &a);
        if (backend) {
            run_steps(&p, &a, 10, 1);
            run_steps(&p, &b, 10, 2);
        } else {
            run_ref(&p, &a, 20, 1);
            run_ref(&p, &b, 20, 2);
        }
        CHECK(same_bits(&a, &b), "%s, %s: same seed, same bits",
              backend ? "cpu, 1 and 2 threads" : "cpu-ref, 1 and 2 threads",
              run < 2 ? "metric" : "topological");
        boids_flock_free(&a);
        boids_flock_free(&b);
    }
}

/* The neighbours query: each boid's by its own species' radius (species 1 sees 120, species 0
 * 50), the same sets on cpu and cpu-ref (random states put no pair within float rounding of
 * a radius but with a chance of about 1e-4: tests/dim3_test.c's argument), and more of them
 * for species 1's boids than species 0's. */
static void test_neighbours_by_species(void) {
    for (int run = 0; run < 4; run++) {
        const int model = run % 2;
        boids_params p = hawks_params();
        p.model = model;
        p.sp[0].vision_radius = 120;
        if (run >= 2) { /* the k = 12 nearest within its species' radius: some 4 within 50 */
            p.neighbours = BOIDS_NEIGHBOURS_TOPOLOGICAL;
            p.k = 12;
            p.k_in_vision = 1;
        }
        boids_flock f;
        flock_of(&p, &f, 6);
        boids_error err;
        boids_backend *r = boids_cpu_ref_create(&f, &err), *c = boids_cpu_create(&f, 1, &err);
        CHECK(r && c, "%s", err.msg);
        uint32_t cnt[80];
        uint64_t h[80];
        CHECK(boids_backend_neighbours(r, &p, cnt, h, &err) == BOIDS_OK, "%s", err.msg);
        double mean[2] = {0, 0};
        for (size_t i = 0; i < f.n; i++) mean[i >= 3] += cnt[i] / (i >= 3 ? 77.0 : 3.0);
        CHECK(mean[0] > 2 * mean[1], "%s%s: species 1 (R 120) sees more: %g against %g",
              model ? "vicsek" : "reynolds", run >= 2 ? " topological" : "", mean[0], mean[1]);
        size_t diffs = compare_neighbour_sets(r, c, &p, f.n, &err);
        CHECK(diffs == 0, "%s%s: %zu neighbour sets differ between cpu and cpu-ref",
              model ? "vicsek" : "reynolds", run >= 2 ? " topological" : "", diffs);
        boids_backend_destroy(r), boids_backend_destroy(c);
        boids_flock_free(&f);
    }
}

/* cpu against cpu-ref after one step of p, within float rounding. */
static void test_cpu_matches_cpu_ref_of(const boids_params *pp, int run) {
    boids_params p = *pp;
    boids_flock a, b;
    flock_of(&p, &a, 4);
    copy(&b, &a);
    run_steps(&p, &a, 1, 0);
    run_steps(&p, &b, 1, 1);
    double worst = 0;
    for (size_t i = 0; i < a.n; i++) {
        worst = fmax(worst, fabs(a.x[i] - b.x[i]) + fabs(a.y[i] - b.y[i]));
        worst = fmax(worst, fabs(a.vx[i] - b.vx[i]) + fabs(a.vy[i] - b.vy[i]));
    }
    CHECK(worst < 1e-4, "cpu within float rounding of cpu-ref after one step (%s): %g",
          run == 0   ? "metric"
          : run == 1 ? "topological"
                     : "vicsek topological",
          worst);
    boids_flock_free(&a);
    boids_flock_free(&b);
}

/* cpu against cpu-ref after one step of the hawks, within float rounding: metric, and
 * topological (k = 7 at any distance; cpu sums the selection nearest first, cpu-ref in id
 * order: the same rounding bound), Reynolds and (two Vicsek kinds, coupled by 0.5) Vicsek. */
static void test_cpu_matches_cpu_ref(void) {
    for (int run = 0; run < 3; run++) {
        boids_params p = hawks_params();
        if (run >= 1) p.neighbours = BOIDS_NEIGHBOURS_TOPOLOGICAL;
        if (run == 2) {
            p.model = BOIDS_MODEL_VICSEK;
            p.coupling[0][1] = p.coupling[1][0] = 0.5;
        }
        test_cpu_matches_cpu_ref_of(&p, run);
    }
}

/* Periodic distance in the classic world (400 x 400). */
static double wdist(const boids_params *p, const boids_flock *f, size_t i, size_t j) {
    double dx = fabs(f->x[i] - f->x[j]), dy = fabs(f->y[i] - f->y[j]);
    dx = fmin(dx, p->width - dx), dy = fmin(dy, p->height - dy);
    return hypot(dx, dy);
}

/* The mean over boids [b, e) of the distance to the nearest boid of [ob, oe); and the smallest. */
static double nearest_other(const boids_params *p, const boids_flock *f, size_t b, size_t e,
                            size_t ob, size_t oe, double *min) {
    double sum = 0;
    *min = INFINITY;
    for (size_t i = b; i < e; i++) {
        double m = INFINITY;
        for (size_t j = ob; j < oe; j++) m = fmin(m, wdist(p, f, i, j));
        sum += m;
        *min = fmin(*min, m);
    }
    return sum / (double)(e - b);
}

/* The classic flock with 3 predators (species 1, ids 0..2) that fly straight, ignoring the
 * flock (no rule weights towards it, coupling 0, no separation), so that their path is the
 * same whatever the flock does. */
static boids_params straight_predators(void) {
    boids_params p;
    boids_error err;
    CHECK(boids_preset_apply(&p, "classic", &err) == BOIDS_OK, "%s", err.msg);
    set(&p, "species", "2");
    set(&p, "species_count.1", "3");
    set(&p, "separation_weight.1", "0");
    set(&p, "alignment_weight.1", "0");
    set(&p, "cohesion_weight.1", "0");
    set(&p, "coupling.1.0", "0");
    return p;
}

/* The mean over the boids [b, e) flagged in `near` of the distance to the nearest of [ob, oe). */
static double mean_nearest_of(const boids_params *p, const boids_flock *f,
                              const unsigned char *near, size_t b, size_t e, size_t ob, size_t oe) {
    double sum = 0;
    size_t n = 0;
    for (size_t i = b; i < e; i++) {
        if (!near[i]) continue;
        double m = INFINITY;
        for (size_t j = ob; j < oe; j++) m = fmin(m, wdist(p, f, i, j));
        sum += m, n++;
    }
    return sum / (double)n;
}

/* flee: the predators fly the same straight paths with and without the rule; the prey that
 * start within the rule's radius of one get farther from them with flee than without, and
 * farther than they started (without, the predators, faster on average, close on them). */
static void test_flee(int threads) {
    boids_params p = straight_predators();
    set(&p, "rule_radius.0.1", "80");
    set(&p, "rule_weight.0.1", "3");
    double d[2], d0 = 0;
    for (int flee = 0; flee <= 1; flee++) {
        set(&p, "rule.0.1", flee ? "flee" : "none");
        boids_flock f;
        flock_of(&p, &f, 21);
        unsigned char near[80] = {0};
        double mn;
        for (size_t i = 3; i < f.n; i++) near[i] = nearest_other(&p, &f, i, i + 1, 0, 3, &mn) < 80;
        d0 = mean_nearest_of(&p, &f, near, 3, f.n, 0, 3);
        run_steps(&p, &f, 20, threads);
        d[flee] = mean_nearest_of(&p, &f, near, 3, f.n, 0, 3);
        boids_flock_free(&f);
    }
    CHECK(d[1] > d0 && d[1] > d[0] + 5,
          "flee (%s): the prey near a predator got away: %g -> %g "
          "(without the rule %g)",
          threads ? "cpu" : "cpu-ref", d0, d[1], d[0]);
}

/* chase: one chaser (species 1, faster: 4 against 3) closes on the nearest prey within 150:
 * after 30 steps it is within a quarter of its start's distance, and nearer than the same
 * chaser without the rule. With topological neighbours (`topo`, k = 7 with k_in_vision) the
 * rule still acts on every boid within its radius. */
static void test_chase(int threads, int topo) {
    boids_params p = straight_predators();
    if (topo) {
        p.neighbours = BOIDS_NEIGHBOURS_TOPOLOGICAL;
        p.k = 7;
        p.k_in_vision = 1;
    }
    set(&p, "species_count.1", "1");
    set(&p, "max_speed.1", "4");
    set(&p, "max_force.1", "0.2");
    set(&p, "rule_radius.1.0", "150");
    set(&p, "rule_weight.1.0", "2");
    double d[2], d0 = 0, mn;
    for (int chase = 0; chase <= 1; chase++) {
        set(&p, "rule.1.0", chase ? "chase" : "none");
        boids_flock f;
        flock_of(&p, &f, 21);
        d0 = nearest_other(&p, &f, 0, 1, 1, f.n, &mn);
        run_steps(&p, &f, 30, threads);
        d[chase] = nearest_other(&p, &f, 0, 1, 1, f.n, &mn);
        boids_flock_free(&f);
    }
    CHECK(d[1] < d0 / 4 && d[1] < d[0],
          "chase (%s%s): the chaser closed in: %g -> %g "
          "(without the rule %g)",
          threads ? "cpu" : "cpu-ref", topo ? ", topological" : "", d0, d[1], d[0]);
}

/* avoid: two flocks of 40 (coupling 0 between them) that avoid each other within 30. The
 * rule is a steering force (capped at max_force 0.05 times its weight 5 a step, against
 * speeds up to 3: some 12 steps to turn round), not a wall, so boids that meet head-on come
 * closer than the radius before they turn; the checks: from step 100 on, every 50 steps, the
 * smallest distance between the two kinds stays above a third of the radius, 10 (separation
 * alone lets them pass within 3 to 12 of each other), and above what it is without the rule. */
static void test_avoid(int threads) {
    boids_params p;
    boids_error err;
    CHECK(boids_preset_apply(&p, "classic", &err) == BOIDS_OK, "%s", err.msg);
    set(&p, "species", "2");
    set(&p, "species_count.1", "40");
    set(&p, "coupling.0.1", "0");
    set(&p, "coupling.1.0", "0");
    set(&p, "rule_radius.0.1", "30");
    set(&p, "rule_radius.1.0", "30");
    set(&p, "rule_weight.0.1", "5");
    set(&p, "rule_weight.1.0", "5");
    double mins[2][4];
    for (int avoid = 0; avoid <= 1; avoid++) {
        set(&p, "rule.0.1", avoid ? "avoid" : "none");
        set(&p, "rule.1.0", avoid ? "avoid" : "none");
        boids_flock f;
        flock_of(&p, &f, 21);
        run_steps(&p, &f, 50, threads);
        for (int k = 0; k < 4; k++) {
            run_steps(&p, &f, 50, threads);
            nearest_other(&p, &f, 0, 40, 40, 80, &mins[avoid][k]);
        }
        boids_flock_free(&f);
    }
    for (int k = 0; k < 4; k++)
        CHECK(mins[1][k] > 10 && mins[1][k] > mins[0][k],
              "avoid (%s), step %d: the kinds' closest pair %g apart (without the rule %g)",
              threads ? "cpu" : "cpu-ref", 100 + 50 * k, mins[1][k], mins[0][k]);
}

/* Each species' order (boids_order_species) of a hand-made flock of 9: species 1 (ids 0, 1)
 * an opposite pair, order 0 exactly; species 2 given no ids (count 0), order 0; species 0 the
 * rest (ids 2 .. 8), all along (3, 4) at several speeds, order 1, then with one of its seven
 * turned back, 5 / 7. The unit vectors are (+-1, 0) and (+-0.6, +-0.8): TOL covers the
 * rounding of 0.6 and 0.8 summed seven times. Then species 1 holding 10 ids of a flock of 9:
 * every boid is species 1, species 0 has none. */
static void test_order_by_species(void) {
    boids_params p = boids_params_default();
    set(&p, "species", "3");
    set(&p, "species_count.1", "2");
    set(&p, "species_count.2", "0");
    boids_flock f;
    alloc(&f, 9);
    const double v[9][2] = {{2, 0}, {-5, 0},    {3, 4}, {3, 4},  {3, 4},
                            {3, 4}, {0.3, 0.4}, {6, 8}, {30, 40}};
    for (size_t i = 0; i < 9; i++) f.x[i] = f.y[i] = 1, f.vx[i] = v[i][0], f.vy[i] = v[i][1];
    CHECK(boids_species_count(&p, 9, 1) == 2 && boids_species_count(&p, 9, 2) == 0 &&
              boids_species_count(&p, 9, 0) == 7 && boids_species_count(&p, 9, 3) == 0,
          "the counts: 2, 0, 7 and none beyond the species");
    double o[BOIDS_MAX_SPECIES] = {-1, -1, -1, -1};
    boids_order_species(&f, &p, o);
    CHECK_NEAR(o[0], 1, TOL, "species 0, all along (3, 4): order 1");
    CHECK(o[1] == 0, "species 1, an opposite pair: order exactly 0 (%g)", o[1]);
    CHECK(o[2] == 0 && o[3] == -1, "species 2 without boids: 0 (%g); no species 3 written", o[2]);
    f.vx[8] = -30, f.vy[8] = -40; /* one of species 0's seven turned back */
    boids_order_species(&f, &p, o);
    CHECK_NEAR(o[0], 5.0 / 7.0, TOL, "species 0 with one of seven reversed: 5/7 (%g)", o[0]);
    CHECK_NEAR(boids_order(&f), 5.0 / 9.0, TOL, "the whole flock's order: |(3, 4)| / 9");
    set(&p, "species", "2");
    set(&p, "species_count.1", "10");
    CHECK(boids_species_count(&p, 9, 1) == 9 && boids_species_count(&p, 9, 0) == 0,
          "species 1 of 10 ids over 9 boids: all 9, species 0 none");
    boids_order_species(&f, &p, o);
    CHECK_NEAR(o[1], boids_order(&f), TOL, "species 1 is the whole flock: its order");
    CHECK(o[0] == 0, "species 0 without boids: 0 (%g)", o[0]);
    boids_flock_free(&f);
}

/* Each species' clusters (boids_clusters_species) of a hand-made flock of 7 in a 1000 x 1000
 * world, vision_radius 10: species 1 ids 0 .. 2, species 2 none, species 0 ids 3 .. 6. Pairs 5
 * apart: (0, 1) of species 1, (3, 4) of species 0, and (2, 5) mixed; 6 alone. The whole flock:
 * 4 components, the largest 2 of 7. By species the mixed pair is two: species 0 has {3, 4},
 * {5}, {6} (3, the largest 2 of its 4), species 1 {0, 1}, {2} (2, the largest 2 of its 3).
 * Counts and shares of integers: exact. Then 6 moved beside 5 and 2: species 0's {5, 6}. */
static void test_clusters_by_species(void) {
    boids_params p = boids_params_default();
    set(&p, "width", "1000");
    set(&p, "height", "1000");
    set(&p, "vision_radius", "10");
    set(&p, "species", "3");
    set(&p, "species_count.1", "3");
    set(&p, "species_count.2", "0");
    boids_flock f;
    alloc(&f, 7);
    const double x[7][2] = {{300, 300}, {305, 300}, {500, 500}, {100, 100},
                            {105, 100}, {505, 500}, {700, 700}};
    for (size_t i = 0; i < 7; i++) f.x[i] = x[i][0], f.y[i] = x[i][1], f.vx[i] = 1, f.vy[i] = 0;
    boids_metrics m;
    boids_error err = {0};
    CHECK(boids_metrics_compute(&f, &p, &m, &err) == BOIDS_OK, "metrics: %s", err.msg);
    CHECK(m.clusters == 4 && m.largest_cluster == 2.0 / 7.0,
          "the whole flock: 4 clusters (%g), the largest 2/7 (%g)", m.clusters, m.largest_cluster);
    double c[BOIDS_MAX_SPECIES] = {-1, -1, -1, -1}, l[BOIDS_MAX_SPECIES] = {-1, -1, -1, -1};
    CHECK(boids_clusters_species(&f, &p, c, l, &err) == BOIDS_OK, "by species: %s", err.msg);
    CHECK(c[0] == 3 && l[0] == 2.0 / 4.0, "species 0: 3 clusters (%g), the largest 2/4 (%g)", c[0],
          l[0]);
    CHECK(c[1] == 2 && l[1] == 2.0 / 3.0, "species 1: 2 clusters (%g), the largest 2/3 (%g)", c[1],
          l[1]);
    CHECK(c[2] == 0 && l[2] == 0 && c[3] == -1 && l[3] == -1,
          "species 2 without boids: 0 and 0 (%g, %g); no species 3 written", c[2], l[2]);
    f.x[6] = 510, f.y[6] = 500; /* 5 from 5 (species 0), 10 from 2: no pair at d = R */
    CHECK(boids_clusters_species(&f, &p, c, l, &err) == BOIDS_OK, "by species: %s", err.msg);
    CHECK(c[0] == 2 && l[0] == 2.0 / 4.0 && c[1] == 2 && l[1] == 2.0 / 3.0,
          "6 beside 5: species 0 {3, 4}, {5, 6} (%g, %g), species 1 as before (%g, %g)", c[0], l[0],
          c[1], l[1]);
    CHECK(boids_metrics_compute(&f, &p, &m, &err) == BOIDS_OK && m.clusters == 3 &&
              m.largest_cluster == 3.0 / 7.0,
          "the whole flock: {2, 5, 6} one of 3 (%g, %g)", m.clusters, m.largest_cluster);
    boids_flock_free(&f);
}

int main(void) {
    test_order_by_species();
    test_clusters_by_species();
    test_keys();
    test_reynolds_by_hand();
    test_vicsek_by_hand();
    test_topological_by_hand();
    test_vicsek_topological_by_hand();
    test_ones_are_one_kind();
    test_zero_coupling_keeps_kinds_apart();
    test_determinism();
    test_cpu_matches_cpu_ref();
    test_neighbours_by_species();
    for (int threads = 0; threads <= 1; threads++) {
        test_flee(threads);
        test_chase(threads, 0);
        test_chase(threads, 1);
        test_avoid(threads);
    }
    return CHECK_DONE("species_test");
}
