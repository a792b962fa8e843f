/* SPDX-License-Identifier: MIT */
/* Steps a flock in place on cpu-ref or the cpu backend, for the model tests (after check.h:
 * a failure is a CHECK). */
#ifndef BOIDS_TEST_RUN_STEPS_H
#define BOIDS_TEST_RUN_STEPS_H

#include "boids/backend.h"
#include "check.h"

/* steps steps of f: threads 0 on cpu-ref, else the cpu backend with that many threads. */
static inline void run_steps(const boids_params *p, boids_flock *f, unsigned steps, int threads) {
    boids_error err;
    boids_backend *b = threads ? boids_cpu_create(f, threads, &err) : boids_cpu_ref_create(f, &err);
    CHECK(b != NULL, "%s", err.msg);
    if (!b) return;
    CHECK(boids_backend_step(b, p, steps, &err) == BOIDS_OK, "%s", err.msg);
    CHECK(boids_backend_download(b, f, &err) == BOIDS_OK, "%s", err.msg);
    boids_backend_destroy(b);
}

#endif
