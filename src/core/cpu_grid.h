/* SPDX-License-Identifier: MIT */
/* Internal hooks of the grid CPU path (`cpu`), for its tests and the benchmark. Not part of
 * the public API. */
#ifndef BOIDS_CPU_GRID_H
#define BOIDS_CPU_GRID_H

#include "boids/backend.h"

/* The neighbour kernel a `cpu` backend (2-D or 3-D) uses: "avx512" (16 boids of a cell or
 * a run of cells per SIMD pass) or "avx2" (8) when the processor has it, "scalar" (the rules
 * called per neighbour) otherwise. NULL if b is not a `cpu` backend. */
const char *boids_cpu_kernel_name(const boids_backend *b);

/* on != 0 forces the scalar kernel, which calls rules_offset / rules_sees / rules_acc_add
 * per neighbour in the same order as the SIMD kernel: the tests check that both give
 * bit-identical states. Returns 0, or -1 if b is not a `cpu` backend. */
int boids_cpu_force_scalar(boids_backend *b, int on);

/* on != 0 forces the AVX2 kernels where the AVX-512 ones would run (the tests compare the
 * two widths' bits). Returns 0, or -1 if b is not a `cpu` backend. */
int boids_cpu_force_avx2(boids_backend *b, int on);

/* on != 0 runs every step on the backend's full thread count, never on one thread for
 * speed (see thread_pick in cpu_grid_threads.c): the tests that compare thread counts use it, so
 * that each count really runs. Returns 0, or -1 if b is not a `cpu` backend. */
int boids_cpu_fixed_threads(boids_backend *b, int on);

/* on != 0 cuts the strips of each step between the threads at random (strip_split in
 * cpu_grid_threads.c; empty parts and one part of every strip among the cuts) instead of by
 * their measured times: the tests check that any cut gives the same bits. Returns 0, or -1 if
 * b is not a `cpu` backend. */
int boids_cpu_skew_split(boids_backend *b, int on);

#endif
