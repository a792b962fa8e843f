/* SPDX-License-Identifier: MIT */
/* Prints the final-state hash of fixed runs on the CPU backends. The test compares the
 * output of this program built at -O0 and at -O2 (and two runs of each): the core is built
 * with -ffp-contract=off and without fast-math, so the bits must not depend on either. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "boids/backend.h"

static int run(const char *preset, const char *backend, size_t n, unsigned steps, int threads) {
    boids_params p;
    boids_error err;
    boids_flock f;
    if (boids_preset_apply(&p, preset, &err) || boids_flock_alloc(&f, n, &err)) {
        fprintf(stderr, "%s\n", err.msg);
        return 1;
    }
    boids_flock_randomize(&f, &p, 2024);
    boids_backend *b = strcmp(backend, "cpu") == 0 ? boids_cpu_create(&f, threads, &err)
                                                   : boids_cpu_ref_create(&f, &err);
    if (!b || boids_backend_step(b, &p, steps, &err) || boids_backend_download(b, &f, &err)) {
        fprintf(stderr, "%s: %s\n", backend, err.msg);
        return 1;
    }
    printf("%s %s threads=%d n=%zu steps=%u hash=%016" PRIx64 "\n", preset, backend, threads, n,
           steps, boids_flock_hash(&f));
    boids_backend_destroy(b);
    boids_flock_free(&f);
    return 0;
}

int main(void) {
    int bad = 0;
    bad |= run("classic", "cpu-ref", 80, 300, 0);
    bad |= run("lab", "cpu-ref", 300, 100, 0);
    bad |= run("lab", "cpu", 5000, 100, 1);
    bad |= run("lab", "cpu", 5000, 100, 2);
    bad |= run("flock", "cpu", 3000, 100, 0);
    return bad;
}
