/* SPDX-License-Identifier: MIT */
/* Storage buffers: GL errors, allocation of the per-boid buffers, their bindings as the
 * shaders' blocks (shaders/state.glsl), and the host's reads and writes. */
#include "pipeline.h"

/* ---- errors ---------------------------------------------------------------------------- */

static const char *gl_error_name(GLenum e) {
    switch (e) {
    case GL_INVALID_ENUM:
        return "GL_INVALID_ENUM";
    case GL_INVALID_VALUE:
        return "GL_INVALID_VALUE";
    case GL_INVALID_OPERATION:
        return "GL_INVALID_OPERATION";
    case GL_INVALID_FRAMEBUFFER_OPERATION:
        return "GL_INVALID_FRAMEBUFFER_OPERATION";
    case GL_OUT_OF_MEMORY:
        return "GL_OUT_OF_MEMORY";
    default:
        return "GL error";
    }
}

/* With opt.check: a GL error or a new debug error message after `what` is a failure. */
boids_status gpu_check(gpu_backend *g, const char *what, boids_error *err) {
    if (!g->opt.check) return BOIDS_OK;
    GLenum e = glGetError();
    if (e != GL_NO_ERROR) {
        while (glGetError() != GL_NO_ERROR) continue;
        return boids_error_set(err, BOIDS_ERR_RUNTIME, "GPU %s: %s (0x%x)", what, gl_error_name(e),
                               (unsigned)e);
    }
    if (g->opt.log && g->opt.log->errors != g->log_errors) {
        g->log_errors = g->opt.log->errors;
        return boids_error_set(err, BOIDS_ERR_RUNTIME, "GPU %s: GL debug error: %s", what,
                               g->opt.log->last_error);
    }
    return BOIDS_OK;
}

/* ---- allocation ------------------------------------------------------------------------- */

/* (Re)allocates buffer *buf with size bytes; GL_OUT_OF_MEMORY becomes BOIDS_ERR_LIMIT. */
boids_status gpu_alloc_buffer(GLuint *buf, GLsizeiptr size, const char *what, size_t n,
                              boids_error *err) {
    while (glGetError() != GL_NO_ERROR) continue;
    if (!*buf) glGenBuffers(1, buf);
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, *buf);
    glBufferData(GL_SHADER_STORAGE_BUFFER, size > 0 ? size : 16, NULL, GL_DYNAMIC_COPY);
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, 0);
    GLenum e = glGetError();
    if (e == GL_OUT_OF_MEMORY)
        return boids_error_set(err, BOIDS_ERR_LIMIT,
                               "GPU backend: out of GPU memory allocating %.1f MiB for %s (%zu)",
                               (double)size / 1048576.0, what, n);
    if (e != GL_NO_ERROR)
        return boids_error_set(err, BOIDS_ERR_RUNTIME, "GPU backend: allocating %s: %s", what,
                               gl_error_name(e));
    return BOIDS_OK;
}

boids_status gpu_ensure_boids(gpu_backend *g, size_t n, boids_error *err) {
    boids_status st = gpu_check_count(n, err);
    if (st != BOIDS_OK || n <= g->cap_n) return st;
    const int dim3 = g->base.dim == 3;
    if (dim3 && (GLint64)(16 * n) > g->block)
        return boids_error_set(err, BOIDS_ERR_LIMIT,
                               "GPU backend: N = %zu 3-D boids exceeds the device limit "
                               "(GL_MAX_SHADER_STORAGE_BLOCK_SIZE = %lld bytes holds the "
                               "positions of %lld); the largest N that fits in 3-D is %lld",
                               n, (long long)g->block, (long long)(g->block / 16),
                               (long long)(g->block / 16));
    int nbuf = g->opt.deterministic ? 3 : 2;
    for (int i = 0; i < nbuf; i++) {
        if ((st =
                 gpu_alloc_buffer(&g->state[i], (GLsizeiptr)(16 * n), "the boid states", n, err)) ||
            (dim3 && (st = gpu_alloc_buffer(&g->vel[i], (GLsizeiptr)(16 * n), "the boid velocities",
                                            n, err))) ||
            (st = gpu_alloc_buffer(&g->ids[i], (GLsizeiptr)(4 * n), "the boid ids", n, err)))
            return st;
    }
    if ((st = gpu_alloc_buffer(&g->rank, (GLsizeiptr)(4 * n), "the cell ranks", n, err))) return st;
    g->cap_n = n;
    return BOIDS_OK;
}

/* ---- bindings ----------------------------------------------------------------------------- */

void gpu_ssbo(GLuint binding, GLuint buf) {
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, binding, buf);
}
void gpu_ssbo_range(GLuint binding, GLuint buf, GLintptr off, size_t count_u32) {
    glBindBufferRange(GL_SHADER_STORAGE_BUFFER, binding, buf, off, (GLsizeiptr)(4 * count_u32));
}

/* Binds the state buffer buf, N vec4, as the two blocks of shaders/state.glsl: slots
 * [0, split) at binding lo and the rest at binding hi. Below the split the second block is
 * never read; it is bound to the buffer's first slot so that no binding is left empty. */
static void bind_state(const gpu_backend *g, GLuint lo, GLuint hi, GLuint buf) {
    size_t n = g->base.n;
    if (n <= g->split) {
        glBindBufferRange(GL_SHADER_STORAGE_BUFFER, lo, buf, 0, (GLsizeiptr)(16 * n));
        glBindBufferRange(GL_SHADER_STORAGE_BUFFER, hi, buf, 0, 16);
    } else {
        glBindBufferRange(GL_SHADER_STORAGE_BUFFER, lo, buf, 0, (GLsizeiptr)(16 * g->split));
        glBindBufferRange(GL_SHADER_STORAGE_BUFFER, hi, buf, (GLintptr)(16 * g->split),
                          (GLsizeiptr)(16 * (n - g->split)));
    }
}

/* Binds state k, as the state a stage reads (dst 0) or writes (dst 1): the 2-D vec4 state as
 * bind_state's two blocks; in 3-D the positions and velocities (N vec4 each, one block each)
 * at the two halves' binding points (shaders/state.glsl); the ids. */
static void bind_states(const gpu_backend *g, int k, int dst) {
    static const GLuint lo[2] = {BOIDS_GPU_B_SRC_STATE, BOIDS_GPU_B_DST_STATE};
    static const GLuint hi[2] = {BOIDS_GPU_B_SRC_STATE_HI, BOIDS_GPU_B_DST_STATE_HI};
    static const GLuint vel[2] = {BOIDS_GPU_B_SRC_VEL, BOIDS_GPU_B_DST_VEL};
    static const GLuint ids[2] = {BOIDS_GPU_B_SRC_ID, BOIDS_GPU_B_DST_ID};
    if (g->base.dim == 3) {
        gpu_ssbo_range(lo[dst], g->state[k], 0, 4 * g->base.n);
        gpu_ssbo_range(vel[dst], g->vel[k], 0, 4 * g->base.n);
    } else {
        bind_state(g, lo[dst], hi[dst], g->state[k]);
    }
    gpu_ssbo(ids[dst], g->ids[k]);
}

void gpu_bind_src(const gpu_backend *g, int k) {
    bind_states(g, k, 0);
}

void gpu_bind_dst(const gpu_backend *g, int k) {
    bind_states(g, k, 1);
}

/* ---- host reads and writes --------------------------------------------------------------- */

void gpu_put(GLuint buf, size_t off, size_t bytes, const void *data) {
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, buf);
    glBufferSubData(GL_SHADER_STORAGE_BUFFER, (GLintptr)off, (GLsizeiptr)bytes, data);
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, 0);
}

void gpu_read(GLuint buf, size_t off, size_t bytes, void *out) {
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, buf);
    glGetBufferSubData(GL_SHADER_STORAGE_BUFFER, (GLintptr)off, (GLsizeiptr)bytes, out);
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, 0);
}
