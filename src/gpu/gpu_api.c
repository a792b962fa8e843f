/* SPDX-License-Identifier: MIT */
/* The public entry points of the GPU pipeline that take a backend, a flock or need loaded
 * GL functions: checks in front of the GPU step (src/gpu/pipeline.h; see src/gpu/gpu_impl.h). */
#define BOIDS_BACKEND_CHECKS 1
#include <glad/gl.h>

#include <stdio.h>
#include <string.h>

#include "gpu_impl.h"

/* 1 when GL functions of a 4.3 context were loaded (boids_gl_create or boids_gl_load). */
static int gl_loaded(void) {
    return GLAD_GL_VERSION_4_3 && glad_glGetIntegerv != NULL;
}

static const char no_gl[] = "no OpenGL 4.3 functions loaded: make a context with boids_gl_create, "
                            "or make yours current and call boids_gl_load first";

boids_backend *boids_gpu_create(boids_gl *gl, const boids_flock *initial,
                                const boids_gpu_options *opt, boids_error *err) {
    const char *bad = boids_flock_bad_arrays(initial);
    if (!bad && initial->n == 0) bad = "the flock has no boids";
    if (bad || (!gl && !gl_loaded())) {
        boids_gl_destroy(gl); /* ownership passed to us, also on failure */
        if (bad)
            boids_error_set(err, BOIDS_ERR_INPUT, "boids_gpu_create: %s", bad);
        else
            boids_error_set(err, BOIDS_ERR_RUNTIME, "boids_gpu_create: %s", no_gl);
        return NULL;
    }
    return boids_gpu_create_unchecked(gl, initial, opt, err);
}

size_t boids_gpu_max_count(char *why, size_t size) {
    if (!gl_loaded()) {
        if (why && size) snprintf(why, size, "%s", no_gl);
        return 0;
    }
    return boids_gpu_max_count_unchecked(why, size);
}

boids_status boids_gpu_check_params(const boids_params *p, boids_error *err) {
    if (!p) return boids_error_set(err, BOIDS_ERR_INPUT, "GPU backend: the parameters are NULL");
    return boids_gpu_check_params_unchecked(p, err);
}

/* The getters below have no error return: a backend of another kind is a programmer
 * mistake, asserted in debug builds and answered with zeros otherwise. */

unsigned boids_gpu_state_buffer(const boids_backend *b) {
    BOIDS_ASSERT(boids_backend_is_gpu(b));
    return boids_backend_is_gpu(b) ? boids_gpu_state_buffer_unchecked(b) : 0;
}

unsigned boids_gpu_id_buffer(const boids_backend *b) {
    BOIDS_ASSERT(boids_backend_is_gpu(b));
    return boids_backend_is_gpu(b) ? boids_gpu_id_buffer_unchecked(b) : 0;
}

unsigned boids_gpu_velocity_buffer(const boids_backend *b) {
    BOIDS_ASSERT(boids_backend_is_gpu(b));
    return boids_backend_is_gpu(b) ? boids_gpu_velocity_buffer_unchecked(b) : 0;
}

void boids_gpu_grid(const boids_backend *b, unsigned *ncx, unsigned *ncy) {
    BOIDS_ASSERT(boids_backend_is_gpu(b) && ncx && ncy);
    unsigned x = 0, y = 0;
    if (boids_backend_is_gpu(b)) boids_gpu_grid_unchecked(b, &x, &y);
    if (ncx) *ncx = x;
    if (ncy) *ncy = y;
}

boids_gpu_timing boids_gpu_timings(const boids_backend *b) {
    BOIDS_ASSERT(boids_backend_is_gpu(b));
    if (boids_backend_is_gpu(b)) return boids_gpu_timings_unchecked(b);
    boids_gpu_timing none;
    memset(&none, 0, sizeof none);
    return none;
}

void boids_gpu_timings_reset(boids_backend *b) {
    BOIDS_ASSERT(boids_backend_is_gpu(b));
    if (boids_backend_is_gpu(b)) boids_gpu_timings_reset_unchecked(b);
}
