/* SPDX-License-Identifier: MIT */
#include "render/follow.h"

#include <stdlib.h>
#include <string.h>

#include <glad/gl.h>

#include "prelude.h"
#include "render/render.h"

/* follow_host in each precision (f: the cpu grid's float, d: cpu-ref's double) and
 * dimension. */
#define RULES_INSTANCE_FILE "render/follow_host.h"
#include "../core/rules_instances.h"
#undef RULES_INSTANCE_FILE

enum { RESULT_WORDS = 16 }; /* the Result block of view_follow.comp (std430): 64 bytes */
#define NO_BOID 0xFFFFFFFFu /* the pick's start: no boid yet */

/* The pass's program, the result block it reads back, the marks (one uint per slot, grown
 * to the largest n asked for) and its copy of the step's uniform block. */
struct follow_pass {
    int dim;
    unsigned prog, result, seen, ubo;
    size_t seen_cap;
    int u_pass, u_from, u_ray, u_id;
};

follow_pass *follow_create(int dim, boids_error *err) {
    follow_pass *f = render_calloc(sizeof *f, "out of memory", err);
    if (!f) return NULL;
    f->dim = dim == 3 ? 3 : 2;
    const char *const names[] = {"view_follow.comp"};
    if (!(f->prog = render_program(names, 1, f->dim, err))) {
        free(f);
        return NULL;
    }
    glGenBuffers(1, &f->result);
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, f->result);
    glBufferData(GL_SHADER_STORAGE_BUFFER, 4 * RESULT_WORDS, NULL, GL_DYNAMIC_READ);
    glGenBuffers(1, &f->seen);
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, f->seen);
    glBufferData(GL_SHADER_STORAGE_BUFFER, 4, NULL, GL_DYNAMIC_COPY);
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, 0);
    glGenBuffers(1, &f->ubo);
    glBindBuffer(GL_UNIFORM_BUFFER, f->ubo);
    glBufferData(GL_UNIFORM_BUFFER, sizeof(boids_gpu_params), NULL, GL_DYNAMIC_DRAW);
    glBindBuffer(GL_UNIFORM_BUFFER, 0);
    f->u_pass = glGetUniformLocation(f->prog, "u_pass");
    f->u_from = glGetUniformLocation(f->prog, "u_from");
    f->u_ray = glGetUniformLocation(f->prog, "u_ray");
    f->u_id = glGetUniformLocation(f->prog, "u_id");
    return f;
}

void follow_destroy(follow_pass *f) {
    if (!f) return;
    const GLuint bufs[3] = {f->result, f->seen, f->ubo};
    glDeleteProgram(f->prog);
    glDeleteBuffers(3, bufs);
    free(f);
}

unsigned follow_seen_buffer(const follow_pass *f) {
    return f->seen;
}

/* Grows the marks to n uints (never shrinks them); out of GPU memory is BOIDS_ERR_NOMEM. */
static boids_status reserve(follow_pass *f, size_t n, boids_error *err) {
    if (n <= f->seen_cap) return BOIDS_OK;
    boids_status st = render_buffers_alloc(&f->seen, 1, 4 * n, "the follow marks", n, err);
    if (st) return st;
    f->seen_cap = n;
    return BOIDS_OK;
}

/* Uses the program and binds the result block (set to init), the marks, the state and our
 * copy of the step's uniform block, made from p for n boids as the pipeline makes its own
 * (the grid's fields stay 0: the passes search no grid); the pipeline binds its own block
 * again at its next call. */
static void setup(follow_pass *f, const follow_state *s, const boids_params *p,
                  const uint32_t init[RESULT_WORDS]) {
    boids_gpu_params u;
    boids_gpu_params_init(&u, p);
    u.n = (uint32_t)s->n;
    glBindBuffer(GL_UNIFORM_BUFFER, f->ubo);
    glBufferSubData(GL_UNIFORM_BUFFER, 0, sizeof u, &u);
    glBindBuffer(GL_UNIFORM_BUFFER, 0);
    glBindBufferBase(GL_UNIFORM_BUFFER, BOIDS_GPU_UBO_PARAMS, f->ubo);
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, f->result);
    glBufferSubData(GL_SHADER_STORAGE_BUFFER, 0, 4 * RESULT_WORDS, init);
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, 0);
    glUseProgram(f->prog);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, BOIDS_GPU_B_FOLLOW, f->result);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, BOIDS_GPU_B_SEEN, f->seen);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, BOIDS_GPU_B_SRC_STATE, s->pos);
    if (f->dim == 3) glBindBufferBase(GL_SHADER_STORAGE_BUFFER, BOIDS_GPU_B_SRC_VEL, s->vel);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, BOIDS_GPU_B_SRC_ID, s->ids);
}

static void pass(const follow_pass *f, unsigned pass, size_t n) {
    glUniform1ui(f->u_pass, pass);
    size_t groups = (n + 255) / 256;
    glDispatchCompute(pass == 4 ? 1u : groups < 4096 ? (unsigned)groups : 4096u, 1, 1);
    /* the next pass, the read-back, and boid.vert's fetches of the marks */
    glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT | GL_BUFFER_UPDATE_BARRIER_BIT |
                    GL_TEXTURE_FETCH_BARRIER_BIT);
}

static void read_result(const follow_pass *f, uint32_t out[RESULT_WORDS]) {
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, f->result);
    glGetBufferSubData(GL_SHADER_STORAGE_BUFFER, 0, 4 * RESULT_WORDS, out);
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, 0);
}

int follow_pick(follow_pass *f, const follow_state *s, const boids_params *p, const float from[3],
                const float dir[3], uint32_t *id) {
    static const uint32_t init[RESULT_WORDS] = {NO_BOID, NO_BOID};
    if (s->n == 0) return 0;
    setup(f, s, p, init);
    if (f->dim == 3) {
        glUniform3fv(f->u_from, 1, from);
        glUniform3fv(f->u_ray, 1, dir);
    } else {
        glUniform2fv(f->u_from, 1, from);
    }
    pass(f, 0, s->n);
    pass(f, 1, s->n);
    uint32_t out[RESULT_WORDS];
    read_result(f, out);
    if (out[1] == NO_BOID) return 0;
    *id = out[1];
    return 1;
}

boids_status follow_run(follow_pass *f, const follow_state *s, const boids_params *p, uint32_t id,
                        follow_result *out, boids_error *err) {
    static const uint32_t init[RESULT_WORDS] = {0};
    memset(out, 0, sizeof *out);
    boids_status st = reserve(f, s->n, err);
    if (st || s->n == 0) return st;
    setup(f, s, p, init);
    glUniform1ui(f->u_id, id);
    pass(f, 2, s->n);
    pass(f, 3, s->n);
    /* Topological: pass 3 clears the marks, pass 4 selects; the selection holds at most the
     * shaders' k limit (the gpu backend refuses more; for a cpu backend beyond it nothing
     * is marked). */
    if (p->neighbours == BOIDS_NEIGHBOURS_TOPOLOGICAL && p->k <= BOIDS_GPU_MAX_K_SHADER)
        pass(f, 4, s->n);
    uint32_t r[RESULT_WORDS];
    read_result(f, r);
    out->found = r[2] != 0;
    out->count = r[3];
    out->slot = r[4];
    memcpy(out->pos, &r[8], (size_t)f->dim * sizeof(float));
    memcpy(out->vel, &r[12], (size_t)f->dim * sizeof(float));
    return BOIDS_OK;
}

static int by_index(const void *a, const void *b) {
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

size_t follow_host(const boids_flock *fl, const boids_params *p, size_t i, int single,
                   uint32_t *nb) {
    if (i >= fl->n) return 0;
    size_t m = fl->z ? (single ? host_marks_f3(fl, p, i, nb) : host_marks_d3(fl, p, i, nb))
                     : (single ? host_marks_f2(fl, p, i, nb) : host_marks_d2(fl, p, i, nb));
    /* the topological selection is kept nearest first */
    qsort(nb, m, sizeof *nb, by_index);
    return m;
}
