/* SPDX-License-Identifier: MIT */
/* Internal hooks of the exact reference path (`cpu-ref`), for its tests and the benchmark.
 * Not part of the public API. Every setting gives the same bits: the hooks exist so that
 * the tests can check that it does. */
#ifndef BOIDS_CPU_REF_H
#define BOIDS_CPU_REF_H

#include "boids/backend.h"

/* The threads a `cpu-ref` backend shares its boids among: threads <= 0 (the default) takes
 * OpenMP's default. Returns 0, or -1 if b is not a `cpu-ref` backend. */
int boids_cpu_ref_set_threads(boids_backend *b, int threads);

/* on != 0 forces the scalar pair scan (rules_offset per pair) in place of the AVX2 one,
 * which the processor may lack. Returns 0, or -1 if b is not a `cpu-ref` backend. */
int boids_cpu_ref_force_scalar(boids_backend *b, int on);

#endif
