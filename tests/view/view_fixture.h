/* SPDX-License-Identifier: MIT */
/* Shared by the viewer's GL test programs (follow_test.c, render_test.c, scene_test.c): the
 * debug context, made at the start and checked at the end for GL errors, and reading a
 * buffer back. Each program includes this once. */
#ifndef BOIDS_TEST_VIEW_FIXTURE_H
#define BOIDS_TEST_VIEW_FIXTURE_H

#include <stdint.h>

#include <glad/gl.h>

#include "../gpu/gpu_fixture.h"

/* The debug context into gl; 0 when none can be made (*code: the test's exit code). */
static inline int view_fixture_open(const char *test, int *code) {
    boids_error err;
    gl = boids_gl_create(1, &err);
    if (!gl) *code = no_gpu_exit(test, err.msg);
    return gl != NULL;
}

/* No GL error in the context's debug log; the context destroyed; the test's exit code. */
static inline int view_fixture_close(const char *test) {
    const boids_gl_debug *log = boids_gl_debug_log(gl);
    CHECK(log->errors == 0, "GL errors: %lu (%s)", log->errors, log->last_error);
    boids_gl_destroy(gl);
    return CHECK_DONE(test);
}

/* bytes of GL buffer buf into out. */
static inline void read_buffer(unsigned buf, size_t bytes, void *out) {
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, buf);
    glGetBufferSubData(GL_SHADER_STORAGE_BUFFER, 0, (GLsizeiptr)bytes, out);
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, 0);
}

#endif
