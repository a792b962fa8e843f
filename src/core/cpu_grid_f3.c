/* SPDX-License-Identifier: MIT */
/* The grid CPU path for the box: its backend, grid build and k-nearest selection
 * (cpu_grid_parts.h) in rules.h's instance of dimension 3 in float (the _f3 names). */
#define RULES_INSTANCE_FLOAT
#define RULES_INSTANCE_DIM  3
#define RULES_INSTANCE_FILE "cpu_grid_parts.h"
#include "rules_instances.h"
