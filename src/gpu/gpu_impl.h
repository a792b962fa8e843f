/* SPDX-License-Identifier: MIT */
/* What the GPU step's files (src/gpu/pipeline.h) include in place of boids/gpu.h: the same
 * declarations, with the entry points that take a backend or a flock renamed to their
 * unchecked versions. The public names are defined by src/gpu/gpu_api.c, which checks the
 * arguments (NULL pointers, a backend of another kind, GL functions not loaded) and then
 * calls these; see src/core/backend_impl.h for the same arrangement in the core. */
#ifndef BOIDS_GPU_IMPL_H
#define BOIDS_GPU_IMPL_H

#ifndef BOIDS_BACKEND_CHECKS
#define boids_gpu_create          boids_gpu_create_unchecked
#define boids_gpu_max_count       boids_gpu_max_count_unchecked
#define boids_gpu_check_params    boids_gpu_check_params_unchecked
#define boids_gpu_state_buffer    boids_gpu_state_buffer_unchecked
#define boids_gpu_id_buffer       boids_gpu_id_buffer_unchecked
#define boids_gpu_velocity_buffer boids_gpu_velocity_buffer_unchecked
#define boids_gpu_grid            boids_gpu_grid_unchecked
#define boids_gpu_timings         boids_gpu_timings_unchecked
#define boids_gpu_timings_reset   boids_gpu_timings_reset_unchecked
#endif

#include "backend_impl.h"

/* Hidden, declared before boids/gpu.h declares them again (see check.h: BOIDS_HIDDEN). */
struct boids_gl;
struct boids_params;
struct boids_gpu_options;
struct boids_gpu_timing;
BOIDS_HIDDEN struct boids_backend *boids_gpu_create_unchecked(struct boids_gl *gl,
                                                              const struct boids_flock *initial,
                                                              const struct boids_gpu_options *opt,
                                                              boids_error *err);
BOIDS_HIDDEN size_t boids_gpu_max_count_unchecked(char *why, size_t size);
BOIDS_HIDDEN boids_status boids_gpu_check_params_unchecked(const struct boids_params *p,
                                                           boids_error *err);
BOIDS_HIDDEN unsigned boids_gpu_state_buffer_unchecked(const struct boids_backend *b);
BOIDS_HIDDEN unsigned boids_gpu_id_buffer_unchecked(const struct boids_backend *b);
BOIDS_HIDDEN unsigned boids_gpu_velocity_buffer_unchecked(const struct boids_backend *b);
BOIDS_HIDDEN void boids_gpu_grid_unchecked(const struct boids_backend *b, unsigned *ncx,
                                           unsigned *ncy);
BOIDS_HIDDEN struct boids_gpu_timing boids_gpu_timings_unchecked(const struct boids_backend *b);
BOIDS_HIDDEN void boids_gpu_timings_reset_unchecked(struct boids_backend *b);

#include "boids/gpu.h"

#endif
