/* SPDX-License-Identifier: MIT */
/* Shader units embedded at build time (src/embed_shaders.cmake writes the tables from the
 * list in src/shaders.cmake) and their composition with the prelude. */
#ifndef BOIDS_GPU_SHADERS_H
#define BOIDS_GPU_SHADERS_H

#include "boids/error.h"

typedef struct boids_gpu_shader {
    const char *name;           /* the unit: its main file under shaders/, e.g. "steer.comp" */
    int dim;                    /* 2 or 3: compiled for the plane or the box; 0: no dimension */
    const char *const *sources; /* file contents after the prelude, in order; NULL-terminated */
} boids_gpu_shader;

/* The compute step's units; terminated by {NULL, 0, NULL}. */
extern const boids_gpu_shader boids_gpu_shaders[];

/* Compiles unit `name` of `table` for dimension `dim` (0: the first unit of that name, of
 * any dimension; a unit of no dimension serves every dim; | BOIDS_GPU_TILE: a unit of the model
 * in tile mode) on the current context: the prelude of its dimension (prelude.h), then its
 * sources; the stage follows the name's extension (.vert,
 * .frag, else compute). Sets *out to the shader object; fails when the unit is missing or does not
 * compile. */
boids_status boids_gpu_compile_dim(const boids_gpu_shader *table, const char *name, int dim,
                                   unsigned *out, boids_error *err);

#endif
