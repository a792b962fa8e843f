/* Shader sources embedded at build time (src/embed_shaders.cmake writes the table). */
#ifndef BOIDS_GPU_SHADERS_H
#define BOIDS_GPU_SHADERS_H

typedef struct boids_gpu_shader {
    const char *name;   /* file name under shaders/, e.g. "steer.comp" */
    const char *source; /* NUL-terminated file content */
} boids_gpu_shader;

/* Terminated by {NULL, NULL}. */
extern const boids_gpu_shader boids_gpu_shaders[];

#endif
