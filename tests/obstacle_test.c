/* SPDX-License-Identifier: MIT */
/* No boid enters an obstacle over a 10,000-step run on cpu-ref and on cpu, and over 2,000
 * steps of the Vicsek model (the scenario and the checks are tests/obstacle_fixture.h's), in
 * the plane (circles and segments) or the box (spheres); and cpu with the table has the same
 * bits at 1, 2 and 3 threads (in the plane 4,000 boids for 200 steps, in the box 2,500 for
 * 100: below 2,048 boids the cpu backend runs one thread whatever it is given; more of either
 * mostly adds OpenMP's waiting on the loaded 2-core machine). Arguments: the dimension
 * (default 2) and the Reynolds steps (default 10000). */
#include <inttypes.h>
#include <stdlib.h>

#include "boids/backend.h"
#include "cpu_ref.h"
#include "obstacle_fixture.h"

static boids_backend *make(int cpu_ref, int threads, const boids_flock *f) {
    boids_error err;
    boids_backend *b = cpu_ref ? boids_cpu_ref_create(f, &err) : boids_cpu_create(f, threads, &err);
    if (!b) {
        fprintf(stderr, "create: %s\n", err.msg);
        exit(1);
    }
    if (cpu_ref) boids_cpu_ref_set_threads(b, threads);
    return b;
}

static void run_model(int dim, int vicsek, unsigned steps) {
    boids_params p = obst_params(dim, vicsek);
    boids_flock f;
    obst_flock(&f, &p, 7);
    for (int ref = 1; ref >= 0; ref--) {
        obst_check c;
        char name[64];
        snprintf(name, sizeof name, "%s%s%s", dim == 3 ? "3-D " : "", ref ? "cpu-ref" : "cpu",
                 vicsek ? " vicsek" : "");
        obst_check_init(&c, name, !ref, &p, &f);
        boids_backend *b = make(ref, 1, &f);
        obst_run(&c, b, &f, steps);
        obst_check_done(&c);
        boids_backend_destroy(b);
    }
    boids_flock_free(&f);
}

/* The scenario's world scaled to keep the density at n boids (the plane: 4,000, 464 x 290
 * by sqrt(10); the box: 2,500, 240 x 200 x 160 by the cube root of 2500 / 400), the table
 * moving as in the long runs: the state hash after `steps` steps at 1, 2 and 3 threads. */
static void threads_same_bits(int dim, int vicsek, unsigned steps) {
    boids_params p = obst_params(dim, vicsek);
    size_t n = 4000;
    if (dim == 3)
        p.width = 442, p.height = 368, p.depth = 295, n = 2500;
    else
        p.width = 1467, p.height = 917;
    boids_flock f;
    boids_error err;
    if (boids_flock_alloc_dim(&f, n, dim, &err)) abort();
    boids_flock_randomize(&f, &p, 11);
    uint64_t h[3];
    boids_interact t;
    for (int k = 0; k < 3; k++) {
        boids_backend *b = make(0, k + 1, &f);
        for (unsigned s = 0; s < steps; s += MOVE_EVERY) {
            obst_table(&t, &p, s);
            boids_backend_set_interact(b, &t, &err);
            CHECK(boids_backend_step(b, &p, MOVE_EVERY, &err) == BOIDS_OK, "step: %s", err.msg);
        }
        boids_flock out;
        boids_flock_alloc_dim(&out, f.n, dim, &err);
        boids_backend_download(b, &out, &err);
        h[k] = boids_flock_hash(&out);
        boids_flock_free(&out);
        boids_backend_destroy(b);
    }
    printf("%d-D cpu %s with a table, %u steps: 1 thread 0x%016" PRIx64 ", 2: 0x%016" PRIx64
           ", 3: 0x%016" PRIx64 "\n",
           dim, vicsek ? "vicsek" : "reynolds", steps, h[0], h[1], h[2]);
    CHECK(h[0] == h[1] && h[0] == h[2], "%d-D cpu with a table: thread counts give other bits",
          dim);
    boids_flock_free(&f);
}

int main(int argc, char **argv) {
    const int dim = argc > 1 && atoi(argv[1]) == 3 ? 3 : 2;
    const unsigned steps = argc > 2 ? (unsigned)strtoul(argv[2], NULL, 10) : 10000;
    run_model(dim, 0, steps);
    run_model(dim, 1, steps / 5);
    threads_same_bits(dim, 0, dim == 3 ? 100 : 200);
    threads_same_bits(dim, 1, dim == 3 ? 100 : 200);
    return CHECK_DONE("obstacle_test");
}
