/* SPDX-License-Identifier: MIT */
/* No boid enters an obstacle on the GPU backend, in the plane (circles and segments) and in
 * the box (spheres): the scenarios and the checks of tests/obstacle_fixture.h and
 * tests/obstacle3_fixture.h, in float, since the shaders decide the rule's predicates bit for
 * bit as rules.h does in float (gpu_rules_glsl_test, gpu_rules3_glsl_test). Per dimension:
 * STEPS Reynolds steps in deterministic mode, a fifth of that in fast mode and a fifth as
 * Vicsek steps; and deterministic mode stays deterministic with a table (two runs, one state
 * hash). STEPS is 10,000 in the plane, 5,000 in the box, half the CPU test's 10,000: llvmpipe
 * spends about 2 ms of wall time on a 3-D step with the download and the check (a plane step
 * about 1 ms of CPU), and the CPU test runs the same float predicates for 10,000 steps. Fast
 * mode runs fewer steps because the rule is decided per boid from its own state, so the
 * summation order fast mode changes does not touch it. Argument: the plane's STEPS (the
 * box's is half of it). Exit 77 (skip) when no GL 4.3 context can be made. */
#include <inttypes.h>
#include <stdlib.h>

#include "gpu_fixture.h"
#include "../obstacle_fixture.h"
#include "../obstacle3_fixture.h"

/* The two fixtures' scenario by dimension. */
static boids_params scenario_params(int dim, int vicsek) {
    return dim == 3 ? obst3_params(vicsek) : obst_params(vicsek);
}

static void scenario_flock(int dim, boids_flock *f, const boids_params *p, uint64_t seed) {
    if (dim == 3)
        obst3_flock(f, p, seed);
    else
        obst_flock(f, p, seed);
}

static void scenario_table(int dim, boids_interact *t, const boids_params *p, unsigned step) {
    if (dim == 3)
        obst3_table(t, p, step);
    else
        obst_table(t, p, step);
}

static unsigned move_every(int dim) {
    return dim == 3 ? MOVE3_EVERY : MOVE_EVERY;
}

/* `steps` checked steps of backend b from f, by the fixture of the dimension. */
static void checked_run(int dim, const char *name, const boids_params *p, const boids_flock *f,
                        boids_backend *b, unsigned steps) {
    if (dim == 3) {
        obst3_check c;
        obst3_check_init(&c, name, 1, p, f);
        if (b) obst3_run(&c, b, f, steps);
        obst3_check_done(&c);
    } else {
        obst_check c;
        obst_check_init(&c, name, 1, p, f);
        if (b) obst_run(&c, b, f, steps);
        obst_check_done(&c);
    }
}

/* `steps` steps in deterministic mode, `fast` in fast mode (0: not run). */
static void run_model(int dim, int vicsek, unsigned steps, unsigned fast) {
    boids_params p = scenario_params(dim, vicsek);
    boids_flock f;
    scenario_flock(dim, &f, &p, 7);
    for (int det = 1; det >= 0; det--) {
        if (!det && !fast) break;
        char name[64];
        snprintf(name, sizeof name, "%sgpu %s%s", dim == 3 ? "3-D " : "",
                 det ? "deterministic" : "fast", vicsek ? " vicsek" : "");
        boids_backend *b = checked_backend(det, &f);
        checked_run(dim, name, &p, &f, b, det ? steps : fast);
        boids_backend_destroy(b);
    }
    boids_flock_free(&f);
}

/* Deterministic mode, twice from one state with the moving table: one hash. */
static void deterministic_with_table(int dim, unsigned steps) {
    boids_params p = scenario_params(dim, 0);
    boids_flock f, out;
    boids_error err;
    scenario_flock(dim, &f, &p, 9);
    boids_flock_alloc_dim(&out, f.n, dim, &err);
    uint64_t h[2] = {0, 1};
    boids_interact t;
    const unsigned every = move_every(dim);
    for (int k = 0; k < 2; k++) {
        boids_backend *b = checked_backend(1, &f);
        if (!b) break;
        for (unsigned s = 0; s < steps; s += every) {
            scenario_table(dim, &t, &p, s);
            boids_backend_set_interact(b, &t, &err);
            CHECK(boids_backend_step(b, &p, every, &err) == BOIDS_OK, "step: %s", err.msg);
        }
        boids_backend_download(b, &out, &err);
        h[k] = boids_flock_hash(&out);
        boids_backend_destroy(b);
    }
    printf("%sgpu deterministic with a table, %u steps: 0x%016" PRIx64 ", 0x%016" PRIx64 "\n",
           dim == 3 ? "3-D " : "", steps, h[0], h[1]);
    CHECK(h[0] == h[1], "%d-D deterministic mode with a table: two runs, two hashes", dim);
    boids_flock_free(&f);
    boids_flock_free(&out);
}

int main(int argc, char **argv) {
    unsigned steps = argc > 1 ? (unsigned)strtoul(argv[1], NULL, 10) : 10000;
    boids_error err;
    gl = boids_gl_create(1, &err);
    if (!gl) return no_gpu_exit("obstacle_gpu_test", err.msg);
    for (int dim = 2; dim <= 3; dim++) {
        unsigned s = dim == 3 ? steps / 2 : steps;
        run_model(dim, 0, s, s / 5);
        run_model(dim, 1, s / 5, 0);
        deterministic_with_table(dim, 300);
    }
    const boids_gl_debug *log = boids_gl_debug_log(gl);
    CHECK(log->errors == 0, "GL errors: %lu (%s)", log->errors, log->last_error);
    boids_gl_destroy(gl);
    return CHECK_DONE("obstacle_gpu_test");
}
