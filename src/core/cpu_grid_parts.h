/* SPDX-License-Identifier: MIT */
/* The parts of the grid CPU path written over one dimension, compiled together for each
 * (cpu_grid_f2.c, cpu_grid_f3.c) in rules.h's instance of that dimension in float, which
 * rules_instances.h includes this file after; the plane's also has the entry points of both
 * (cpu_grid_hooks.c). The SIMD kernels (cpu_grid_simd.c) are compiled apart, with their
 * -m flags. cpu_grid_resident.c, the resident tile, comes after the backend whose struct and
 * state buffers it uses, and holds the backend's table of operations. */
#include "cpu_grid_threads.c"
#include "cpu_grid_build.c"
#include "cpu_grid_species.c"
#include "cpu_grid_topo.c"
#include "cpu_grid.c"
#include "cpu_grid_resident.c"
#include "cpu_grid_hooks.c"
