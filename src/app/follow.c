/* SPDX-License-Identifier: MIT */
#include "follow.h"

#include <stdlib.h>
#include <string.h>

#include <glad/gl.h>

#include "prelude.h"
#include "render.h"

enum { RESULT_BYTES = 48 }; /* the Result block of view_follow.comp (std430) */

struct follow_pass {
    unsigned prog, result, seen, ubo;
    size_t seen_cap;
    int u_pass, u_point, u_id;
};

follow_pass *follow_create(boids_error *err) {
    follow_pass *f = calloc(1, sizeof *f);
    if (!f) {
        boids_error_set(err, BOIDS_ERR_NOMEM, "out of memory");
        return NULL;
    }
    static const char *const names[] = {"view_follow.comp"};
    if (!(f->prog = render_program(names, 1, err))) {
        free(f);
        return NULL;
    }
    f->u_pass = glGetUniformLocation(f->prog, "u_pass");
    f->u_point = glGetUniformLocation(f->prog, "u_point");
    f->u_id = glGetUniformLocation(f->prog, "u_id");
    follow_gl_make(&f->result, RESULT_BYTES, &f->seen, &f->ubo);
    return f;
}

void follow_gl_make(unsigned *result, size_t result_bytes, unsigned *seen, unsigned *ubo) {
    glGenBuffers(1, result);
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, *result);
    glBufferData(GL_SHADER_STORAGE_BUFFER, (GLsizeiptr)result_bytes, NULL, GL_DYNAMIC_READ);
    glGenBuffers(1, seen);
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, *seen);
    glBufferData(GL_SHADER_STORAGE_BUFFER, 4, NULL, GL_DYNAMIC_COPY);
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, 0);
    glGenBuffers(1, ubo);
    glBindBuffer(GL_UNIFORM_BUFFER, *ubo);
    glBufferData(GL_UNIFORM_BUFFER, sizeof(boids_gpu_params), NULL, GL_DYNAMIC_DRAW);
    glBindBuffer(GL_UNIFORM_BUFFER, 0);
}

void follow_gl_free(unsigned prog, unsigned result, unsigned seen, unsigned ubo) {
    const GLuint bufs[3] = {result, seen, ubo};
    glDeleteProgram(prog);
    glDeleteBuffers(3, bufs);
}

void follow_destroy(follow_pass *f) {
    if (!f) return;
    follow_gl_free(f->prog, f->result, f->seen, f->ubo);
    free(f);
}

unsigned follow_seen_buffer(const follow_pass *f) {
    return f->seen;
}

/* Binds the program, the buffers and our copy of the step's uniform block, made from p as
 * the pipeline makes its own (the grid's fields stay 0: the pass does not use the grid). The
 * pipeline binds its block again at its next call. */
static void setup(follow_pass *f, unsigned state, unsigned ids, size_t n, const boids_params *p,
                  const uint32_t init[RESULT_BYTES / 4]) {
    boids_gpu_params u;
    boids_gpu_params_init(&u, p);
    u.n = (uint32_t)n;
    glBindBuffer(GL_UNIFORM_BUFFER, f->ubo);
    glBufferSubData(GL_UNIFORM_BUFFER, 0, sizeof u, &u);
    glBindBuffer(GL_UNIFORM_BUFFER, 0);
    glBindBufferBase(GL_UNIFORM_BUFFER, BOIDS_GPU_UBO_PARAMS, f->ubo);
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, f->result);
    glBufferSubData(GL_SHADER_STORAGE_BUFFER, 0, RESULT_BYTES, init);
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, 0);
    glUseProgram(f->prog);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, BOIDS_GPU_B_SRC_STATE, state);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, BOIDS_GPU_B_SRC_ID, ids);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, BOIDS_GPU_B_FOLLOW, f->result);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, BOIDS_GPU_B_SEEN, f->seen);
}

static void pass(unsigned pass, size_t n, unsigned uniform) {
    glUniform1ui(uniform, pass);
    glDispatchCompute(pass == 4 ? 1u : (unsigned)((n + 255) / 256), 1, 1);
    glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT | GL_BUFFER_UPDATE_BARRIER_BIT);
}

static void read_result(follow_pass *f, uint32_t out[RESULT_BYTES / 4]) {
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, f->result);
    glGetBufferSubData(GL_SHADER_STORAGE_BUFFER, 0, RESULT_BYTES, out);
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, 0);
}

uint32_t follow_nearest(follow_pass *f, unsigned state, unsigned ids, size_t n,
                        const boids_params *p, double x, double y) {
    static const uint32_t init[RESULT_BYTES / 4] = {0xFFFFFFFFu, 0xFFFFFFFFu};
    if (n == 0) return 0;
    setup(f, state, ids, n, p, init);
    glUniform2f(f->u_point, (float)x, (float)y);
    pass(0, n, f->u_pass);
    pass(1, n, f->u_pass);
    uint32_t out[RESULT_BYTES / 4];
    read_result(f, out);
    return out[1] == 0xFFFFFFFFu ? 0 : out[1];
}

boids_status follow_run(follow_pass *f, unsigned state, unsigned ids, size_t n,
                        const boids_params *p, uint32_t id, int *found, float state_out[4],
                        unsigned *count, boids_error *err) {
    static const uint32_t init[RESULT_BYTES / 4] = {0};
    if (n > f->seen_cap) {
        while (glGetError() != GL_NO_ERROR) continue;
        glBindBuffer(GL_SHADER_STORAGE_BUFFER, f->seen);
        glBufferData(GL_SHADER_STORAGE_BUFFER, (GLsizeiptr)(4 * n), NULL, GL_DYNAMIC_COPY);
        glBindBuffer(GL_SHADER_STORAGE_BUFFER, 0);
        if (glGetError() != GL_NO_ERROR)
            return boids_error_set(err, BOIDS_ERR_NOMEM,
                                   "out of GPU memory for the follow marks of %zu boids", n);
        f->seen_cap = n;
    }
    *found = 0;
    *count = 0;
    if (n == 0) return BOIDS_OK;
    setup(f, state, ids, n, p, init);
    glUniform1ui(f->u_id, id);
    pass(2, n, f->u_pass);
    pass(3, n, f->u_pass);
    /* Topological: pass 3 clears the marks, pass 4 selects; the selection holds at most
     * the shaders' k limit (the gpu backend refuses more; for a cpu backend beyond it
     * nothing is marked). */
    if (p->neighbours == BOIDS_NEIGHBOURS_TOPOLOGICAL && p->k <= BOIDS_GPU_MAX_K_SHADER)
        pass(4, n, f->u_pass);
    uint32_t out[RESULT_BYTES / 4];
    read_result(f, out);
    *found = out[2] != 0;
    *count = out[3];
    memcpy(state_out, &out[8], 4 * sizeof(float));
    return BOIDS_OK;
}
