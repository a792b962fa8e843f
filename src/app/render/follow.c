/* SPDX-License-Identifier: MIT */
#include "follow.h"

#include <stdlib.h>
#include <string.h>

#include <glad/gl.h>

#include "prelude.h"
#include "render.h"

enum { RESULT_BYTES = 48 }; /* the Result block of view_follow.comp (std430) */

struct follow_pass {
    follow_gl gl;
    int u_pass, u_point, u_id;
};

follow_pass *follow_create(boids_error *err) {
    follow_pass *f = calloc(1, sizeof *f);
    if (!f) {
        boids_error_set(err, BOIDS_ERR_NOMEM, "out of memory");
        return NULL;
    }
    if (follow_gl_init(&f->gl, "view_follow.comp", RESULT_BYTES, err)) {
        free(f);
        return NULL;
    }
    f->u_pass = glGetUniformLocation(f->gl.prog, "u_pass");
    f->u_point = glGetUniformLocation(f->gl.prog, "u_point");
    f->u_id = glGetUniformLocation(f->gl.prog, "u_id");
    return f;
}

boids_status follow_gl_init(follow_gl *g, const char *shader, size_t result_bytes,
                            boids_error *err) {
    memset(g, 0, sizeof *g);
    g->result_bytes = result_bytes;
    const char *const names[] = {shader};
    if (!(g->prog = render_program(names, 1, err)))
        return err->status ? err->status : BOIDS_ERR_RUNTIME;
    glGenBuffers(1, &g->result);
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, g->result);
    glBufferData(GL_SHADER_STORAGE_BUFFER, (GLsizeiptr)result_bytes, NULL, GL_DYNAMIC_READ);
    glGenBuffers(1, &g->seen);
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, g->seen);
    glBufferData(GL_SHADER_STORAGE_BUFFER, 4, NULL, GL_DYNAMIC_COPY);
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, 0);
    glGenBuffers(1, &g->ubo);
    glBindBuffer(GL_UNIFORM_BUFFER, g->ubo);
    glBufferData(GL_UNIFORM_BUFFER, sizeof(boids_gpu_params), NULL, GL_DYNAMIC_DRAW);
    glBindBuffer(GL_UNIFORM_BUFFER, 0);
    return BOIDS_OK;
}

void follow_gl_free(follow_gl *g) {
    const GLuint bufs[3] = {g->result, g->seen, g->ubo};
    glDeleteProgram(g->prog);
    glDeleteBuffers(3, bufs);
    memset(g, 0, sizeof *g);
}

boids_status follow_gl_reserve(follow_gl *g, size_t n, boids_error *err) {
    if (n <= g->seen_cap) return BOIDS_OK;
    while (glGetError() != GL_NO_ERROR) continue;
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, g->seen);
    glBufferData(GL_SHADER_STORAGE_BUFFER, (GLsizeiptr)(4 * n), NULL, GL_DYNAMIC_COPY);
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, 0);
    if (glGetError() != GL_NO_ERROR)
        return boids_error_set(err, BOIDS_ERR_NOMEM,
                               "out of GPU memory for the follow marks of %zu boids", n);
    g->seen_cap = n;
    return BOIDS_OK;
}

void follow_destroy(follow_pass *f) {
    if (!f) return;
    follow_gl_free(&f->gl);
    free(f);
}

unsigned follow_seen_buffer(const follow_pass *f) {
    return f->gl.seen;
}

void follow_gl_bind(const follow_gl *g, const boids_params *p, size_t n, const void *init) {
    boids_gpu_params u;
    boids_gpu_params_init(&u, p);
    u.n = (uint32_t)n;
    glBindBuffer(GL_UNIFORM_BUFFER, g->ubo);
    glBufferSubData(GL_UNIFORM_BUFFER, 0, sizeof u, &u);
    glBindBuffer(GL_UNIFORM_BUFFER, 0);
    glBindBufferBase(GL_UNIFORM_BUFFER, BOIDS_GPU_UBO_PARAMS, g->ubo);
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, g->result);
    glBufferSubData(GL_SHADER_STORAGE_BUFFER, 0, (GLsizeiptr)g->result_bytes, init);
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, 0);
    glUseProgram(g->prog);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, BOIDS_GPU_B_FOLLOW, g->result);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, BOIDS_GPU_B_SEEN, g->seen);
}

void follow_gl_read(const follow_gl *g, void *out) {
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, g->result);
    glGetBufferSubData(GL_SHADER_STORAGE_BUFFER, 0, (GLsizeiptr)g->result_bytes, out);
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, 0);
}

/* follow_gl_bind, and the state (vec4 x, y, vx, vy) and id buffers. */
static void setup(follow_pass *f, unsigned state, unsigned ids, size_t n, const boids_params *p,
                  const uint32_t init[RESULT_BYTES / 4]) {
    follow_gl_bind(&f->gl, p, n, init);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, BOIDS_GPU_B_SRC_STATE, state);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, BOIDS_GPU_B_SRC_ID, ids);
}

static void pass(unsigned pass, size_t n, unsigned uniform) {
    glUniform1ui(uniform, pass);
    glDispatchCompute(pass == 4 ? 1u : (unsigned)((n + 255) / 256), 1, 1);
    glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT | GL_BUFFER_UPDATE_BARRIER_BIT);
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
    follow_gl_read(&f->gl, out);
    return out[1] == 0xFFFFFFFFu ? 0 : out[1];
}

boids_status follow_run(follow_pass *f, unsigned state, unsigned ids, size_t n,
                        const boids_params *p, uint32_t id, int *found, float state_out[4],
                        unsigned *count, boids_error *err) {
    static const uint32_t init[RESULT_BYTES / 4] = {0};
    if (follow_gl_reserve(&f->gl, n, err)) return err->status;
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
    follow_gl_read(&f->gl, out);
    *found = out[2] != 0;
    *count = out[3];
    memcpy(state_out, &out[8], 4 * sizeof(float));
    return BOIDS_OK;
}
