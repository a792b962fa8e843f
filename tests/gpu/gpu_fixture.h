/* SPDX-License-Identifier: MIT */
/* Shared by the GPU test programs: the debug context and the helpers several of them need.
 * Each program includes this once. */
#ifndef BOIDS_TEST_GPU_FIXTURE_H
#define BOIDS_TEST_GPU_FIXTURE_H

#include <stdio.h>
#include <stdlib.h>

#include "../check.h"
#include "../require_gpu.h"
#include "boids/gpu.h"

/* The debug context of the test program (made in main). */
static boids_gl *gl;

/* A failure the test cannot go on from: the message, then exit 1. */
static inline void die(const char *what, const boids_error *err) {
    fprintf(stderr, "%s: %s\n", what, err->msg);
    exit(1);
}

/* n boids at random (boids_flock_randomize) in the world of p, of its dimension. */
static inline boids_flock random_flock(const boids_params *p, size_t n, uint64_t seed) {
    boids_error err;
    boids_flock f;
    if (boids_flock_alloc_dim(&f, n, p->dim, &err)) die("alloc", &err);
    boids_flock_randomize(&f, p, seed);
    return f;
}

/* Options with per-stage error checks against the context's debug log. */
static boids_gpu_options checked(int deterministic) {
    boids_gpu_options o = boids_gpu_options_default();
    o.deterministic = deterministic;
    o.check = 1;
    o.log = boids_gl_debug_log(gl);
    return o;
}

/* A gpu backend on init with the checked options; a failure is a failed check and NULL. */
static inline boids_backend *checked_backend(int deterministic, const boids_flock *init) {
    boids_error err;
    boids_gpu_options o = checked(deterministic);
    boids_backend *b = boids_gpu_create(NULL, init, &o, &err);
    CHECK(b != NULL, "create: %s", err.msg);
    return b;
}

/* Runs `steps` steps from init (2-D or 3-D) in a fresh backend; returns the hash of the state
 * (id order). */
static inline uint64_t run_hash(const boids_params *p, const boids_flock *init, int deterministic,
                                unsigned steps) {
    boids_error err;
    boids_backend *b = checked_backend(deterministic, init);
    if (!b) return 0;
    boids_flock out;
    boids_flock_alloc_dim(&out, init->n, boids_flock_dim(init), &err);
    CHECK(boids_backend_step(b, p, steps, &err) == BOIDS_OK, "step: %s", err.msg);
    CHECK(boids_backend_download(b, &out, &err) == BOIDS_OK, "download: %s", err.msg);
    uint64_t h = boids_flock_hash(&out);
    boids_flock_free(&out);
    boids_backend_destroy(b);
    return h;
}

#endif
