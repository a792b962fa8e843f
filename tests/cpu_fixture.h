/* SPDX-License-Identifier: MIT */
/* Shared by the cpu backend's test programs: a named scenario, creating a backend, and the
 * check that the result has the same bits for any thread count and either kernel. Each
 * program includes this once, after check.h. */
#ifndef BOIDS_TEST_CPU_FIXTURE_H
#define BOIDS_TEST_CPU_FIXTURE_H

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "boids/backend.h"
#include "check.h"
#include "cpu_grid.h"
#include "cpu_ref.h"

typedef struct scenario {
    const char *name;
    boids_params p;
    boids_flock f;
} scenario;

static void die(const char *what, const boids_error *err) {
    fprintf(stderr, "%s: %s\n", what, err->msg);
    exit(1);
}

static boids_backend *make_cpu(const boids_flock *f, int threads) {
    boids_error err;
    boids_backend *b = boids_cpu_create(f, threads, &err);
    if (!b) die("boids_cpu_create", &err);
    boids_cpu_fixed_threads(b, 1); /* each thread count runs as asked */
    return b;
}

/* Hash of the state after b runs s's parameters for `steps` steps; destroys b. */
static uint64_t hash_after(boids_backend *b, const scenario *s, unsigned steps) {
    boids_error err;
    boids_flock out;
    if (boids_flock_alloc_dim(&out, s->f.n, boids_flock_dim(&s->f), &err)) die("alloc", &err);
    if (boids_backend_step(b, &s->p, steps, &err)) die(s->name, &err);
    if (boids_backend_download(b, &out, &err)) die(s->name, &err);
    uint64_t h = boids_flock_hash(&out);
    boids_flock_free(&out);
    boids_backend_destroy(b);
    return h;
}

/* Hash of the state after `steps` steps on `threads` threads with the kernel: 0 the
 * processor's (AVX-512, AVX2 or scalar), 1 the scalar one, 2 AVX2 even where AVX-512 runs. */
static uint64_t run_hash(const scenario *s, int threads, int kernel, unsigned steps) {
    boids_backend *b = make_cpu(&s->f, threads);
    boids_cpu_force_scalar(b, kernel == 1);
    boids_cpu_force_avx2(b, kernel == 2);
    return hash_after(b, s, steps);
}

/* cpu-ref's state hash after `steps` steps on `threads` threads (scalar != 0: scalar scan);
 * inline: not every program that includes this uses it. */
static inline uint64_t cpu_ref_hash(const scenario *s, int threads, int scalar, unsigned steps) {
    boids_error err;
    boids_backend *b = boids_cpu_ref_create(&s->f, &err);
    if (!b) die("boids_cpu_ref_create", &err);
    boids_cpu_ref_set_threads(b, threads);
    boids_cpu_ref_force_scalar(b, scalar);
    return hash_after(b, s, steps);
}

/* The same bits for 1 to 4 threads, for any cut of the steering between them, and for the
 * scalar and SIMD kernels (both widths where the processor runs AVX-512). */
static void check_same_bits(const scenario *s, unsigned steps) {
    uint64_t ref = run_hash(s, 1, 0, steps);
    for (int t = 2; t <= 4; t++) {
        uint64_t h = run_hash(s, t, 0, steps);
        CHECK(h == ref, "%s: %d threads give %016" PRIx64 ", 1 thread %016" PRIx64, s->name, t, h,
              ref);
    }
    boids_backend *k = make_cpu(&s->f, 3);
    boids_cpu_skew_split(k, 1); /* the threads' strips cut at random every step */
    uint64_t hk = hash_after(k, s, steps);
    CHECK(hk == ref,
          "%s: 3 threads, strips cut at random, give %016" PRIx64 ", 1 thread %016" PRIx64, s->name,
          hk, ref);
    uint64_t hs = run_hash(s, 2, 1, steps);
    CHECK(hs == ref, "%s: scalar kernel gives %016" PRIx64 ", SIMD kernel %016" PRIx64, s->name, hs,
          ref);
    uint64_t ha = run_hash(s, 2, 2, steps);
    CHECK(ha == ref, "%s: AVX2 kernel gives %016" PRIx64 ", the processor's %016" PRIx64, s->name,
          ha, ref);
    printf("%-28s n=%-6zu same bits for 1-4 threads, any cut, every kernel over %u steps\n",
           s->name, s->f.n, steps);
}

#endif
