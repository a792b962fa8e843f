/* SPDX-License-Identifier: MIT */
/* The grid CPU path's SIMD kernels (cpu_grid_simd.c) at the AVX2 width, 8 lanes, for the
 * plane in rules.h's instance of dimension 2 in float; built with -mavx2, only with
 * BOIDS_AVX2. */
#define SIMD_W 8
#define RULES_INSTANCE_FLOAT
#define RULES_INSTANCE_DIM  2
#define RULES_INSTANCE_FILE "cpu_grid_simd.c"
#include "rules_instances.h"
