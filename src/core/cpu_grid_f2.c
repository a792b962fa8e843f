/* SPDX-License-Identifier: MIT */
/* The grid CPU path for the plane: its backend, grid build and k-nearest selection
 * (cpu_grid_parts.h) in rules.h's instance of dimension 2 in float (the _f2 names). */
#define RULES_INSTANCE_FLOAT
#define RULES_INSTANCE_DIM  2
#define RULES_INSTANCE_FILE "cpu_grid_parts.h"
#include "rules_instances.h"
