/* SPDX-License-Identifier: MIT */
/* No boid enters an obstacle on the GPU backend, in the plane or the box (the scenario and the
 * checks of tests/obstacle_fixture.h, in float: the shaders decide the rule's predicates bit
 * for bit as rules.h does in float): STEPS Reynolds steps in deterministic mode, a fifth of
 * that in fast mode and a fifth as Vicsek steps; and deterministic mode stays deterministic
 * with a table (two runs, one state hash). STEPS defaults to 10,000 in the plane and 5,000 in
 * the box: llvmpipe spends about 1 ms of CPU a planar step with the download (4 ms wall on
 * the loaded 2-core machine) and about 2 ms of wall time a 3-D one, and the rule is decided
 * per boid from its own state by shader functions that decide as rules.h in float does, bit
 * for bit (the rules-against-GLSL tests), while the CPU test runs that float path for 10,000
 * steps in both; the summation order fast mode changes does not touch it. Arguments: the
 * dimension (default 2) and STEPS. Exit 77 (skip) when no GL 4.3 context can be made. */
#include <inttypes.h>
#include <stdlib.h>

#include "gpu_fixture.h"
#include "../obstacle_fixture.h"

/* `steps` steps in deterministic mode, `fast` in fast mode (0: not run). */
static void run_model(int dim, int vicsek, unsigned steps, unsigned fast) {
    boids_params p = obst_params(dim, vicsek);
    boids_flock f;
    obst_flock(&f, &p, 7);
    for (int det = 1; det >= 0; det--) {
        if (!det && !fast) break;
        char name[64];
        snprintf(name, sizeof name, "%sgpu %s%s", dim == 3 ? "3-D " : "",
                 det ? "deterministic" : "fast", vicsek ? " vicsek" : "");
        obst_check c;
        obst_check_init(&c, name, 1, &p, &f);
        boids_backend *b = checked_backend(det, &f);
        if (b) obst_run(&c, b, &f, det ? steps : fast);
        obst_check_done(&c);
        boids_backend_destroy(b);
    }
    boids_flock_free(&f);
}

/* Deterministic mode, twice from one state with the moving table: one hash. */
static void deterministic_with_table(int dim, unsigned steps) {
    boids_params p = obst_params(dim, 0);
    boids_flock f, out;
    boids_error err;
    obst_flock(&f, &p, 9);
    boids_flock_alloc_dim(&out, f.n, dim, &err);
    uint64_t h[2] = {0, 1};
    boids_interact t;
    for (int k = 0; k < 2; k++) {
        boids_backend *b = checked_backend(1, &f);
        if (!b) break;
        for (unsigned s = 0; s < steps; s += MOVE_EVERY) {
            obst_table(&t, &p, s);
            boids_backend_set_interact(b, &t, &err);
            CHECK(boids_backend_step(b, &p, MOVE_EVERY, &err) == BOIDS_OK, "step: %s", err.msg);
        }
        boids_backend_download(b, &out, &err);
        h[k] = boids_flock_hash(&out);
        boids_backend_destroy(b);
    }
    printf("%d-D gpu deterministic with a table, %u steps: 0x%016" PRIx64 ", 0x%016" PRIx64 "\n",
           dim, steps, h[0], h[1]);
    CHECK(h[0] == h[1], "%d-D deterministic mode with a table: two runs, two hashes", dim);
    boids_flock_free(&f);
    boids_flock_free(&out);
}

int main(int argc, char **argv) {
    const int dim = argc > 1 && atoi(argv[1]) == 3 ? 3 : 2;
    const unsigned steps = argc > 2   ? (unsigned)strtoul(argv[2], NULL, 10)
                           : dim == 3 ? 5000
                                      : 10000;
    boids_error err;
    gl = boids_gl_create(1, &err);
    if (!gl) return no_gpu_exit("obstacle_gpu_test", err.msg);
    run_model(dim, 0, steps, steps / 5);
    run_model(dim, 1, steps / 5, 0);
    deterministic_with_table(dim, 300);
    const boids_gl_debug *log = boids_gl_debug_log(gl);
    CHECK(log->errors == 0, "GL errors: %lu (%s)", log->errors, log->last_error);
    boids_gl_destroy(gl);
    return CHECK_DONE("obstacle_gpu_test");
}
