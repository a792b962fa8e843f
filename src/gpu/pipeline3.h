/* SPDX-License-Identifier: MIT */
/* The 3-D parts of the GPU pipeline that need no ifs inside pipeline.c's stages: the grid of
 * a 3-D world, its interaction block, and the transfers of the 3-D state layout (state3.glsl:
 * positions vec4 (x, y, z, 0) and velocities vec4 (vx, vy, vz, 0) in two buffers, uint ids in a
 * third). src/gpu/pipeline.c picks the 3-D shader units and calls these for dim = 3. */
#ifndef BOIDS_GPU_PIPELINE3_H
#define BOIDS_GPU_PIPELINE3_H

#include <stddef.h>

#include "boids/flock.h"
#include "prelude.h"

/* The grid of a 3-D world (grid_geom.h's boids_grid_geom3_init, at most max_cells) into the
 * uniform block's grid fields (ncx, ncy, ncz, ncells, inv_cell_*, reach2); sets *ncells. */
boids_status boids_gpu3_grid(boids_gpu_params *u, const boids_params *p, double max_cells,
                             size_t *ncells, boids_error *err);

/* Fills the interaction block for table t (NULL: none) in the 3-D world of p, as rules3.h's
 * rules3_k_set_interact puts it into the float rules3_table (layout: prelude.h). */
void boids_gpu3_interact_init(boids_gpu_interact *u, const boids_params *p,
                              const boids_interact *t);

/* Writes flock `in` (3-D) into buffers pos, vel, ids (already large enough), boid i at
 * slot i with id i. */
boids_status boids_gpu3_upload(unsigned pos, unsigned vel, unsigned ids, const boids_flock *in,
                               boids_error *err);

/* Reads n boids back from pos, vel, ids into `out` by id (out->n == n). */
boids_status boids_gpu3_download(unsigned pos, unsigned vel, unsigned ids, size_t n,
                                 boids_flock *out, boids_error *err);

#endif
