/* SPDX-License-Identifier: MIT */
/* Shader units embedded at build time (src/embed_shaders.cmake writes the tables from the
 * list in src/shaders.cmake) and their composition with the prelude. */
#ifndef BOIDS_GPU_SHADERS_H
#define BOIDS_GPU_SHADERS_H

#include "boids/error.h"

typedef struct boids_gpu_shader {
    const char *name;           /* the unit: its main file under shaders/, e.g. "steer.comp" */
    const char *const *sources; /* file contents after the prelude, in order; NULL-terminated */
} boids_gpu_shader;

/* The compute step's units; terminated by {NULL, NULL}. */
extern const boids_gpu_shader boids_gpu_shaders[];

/* Compiles unit `name` of `table` on the current context: the prelude (prelude.h), then its
 * sources; the stage follows the name's extension (.vert, .frag, else compute). Sets *out
 * to the shader object; fails when the unit is missing or does not compile. */
boids_status boids_gpu_compile(const boids_gpu_shader *table, const char *name, unsigned *out,
                               boids_error *err);

#endif
