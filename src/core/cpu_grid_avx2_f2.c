/* SPDX-License-Identifier: MIT */
/* The grid CPU path's AVX2 kernels for the plane (cpu_grid_avx2.c) in rules.h's instance of
 * dimension 2 in float; built with -mavx2, only with BOIDS_AVX2. */
#define RULES_INSTANCE_FLOAT
#define RULES_INSTANCE_DIM  2
#define RULES_INSTANCE_FILE "cpu_grid_avx2.c"
#include "rules_instances.h"
