/* SPDX-License-Identifier: MIT */
#include "follow3.h"

#include "follow.h"

#include <stdlib.h>
#include <string.h>

#include <glad/gl.h>

#include "prelude.h"

#define RULES_REAL     float
#define RULES_DIM      3
#define RULES_FN(name) name##_f3
#include "../core/rules.h"
#include "follow3_host.h"
#undef RULES_REAL
#undef RULES_DIM
#undef RULES_FN

#define RULES_REAL     double
#define RULES_DIM      3
#define RULES_FN(name) name##_d3
#include "../core/rules.h"
#include "follow3_host.h"
#undef RULES_REAL
#undef RULES_DIM
#undef RULES_FN

enum { RESULT_WORDS = 16 }; /* the Result block of view_follow3.comp (std430): 64 bytes */
#define NO_BOID 0xFFFFFFFFu /* the pick's start: no boid yet */

struct follow3_pass {
    follow_gl gl;
    int u_pass, u_eye, u_ray, u_id;
};

follow3_pass *follow3_create(boids_error *err) {
    follow3_pass *f = calloc(1, sizeof *f);
    if (!f) {
        boids_error_set(err, BOIDS_ERR_NOMEM, "out of memory");
        return NULL;
    }
    if (follow_gl_init(&f->gl, "view_follow3.comp", 4 * RESULT_WORDS, err)) {
        free(f);
        return NULL;
    }
    f->u_pass = glGetUniformLocation(f->gl.prog, "u_pass");
    f->u_eye = glGetUniformLocation(f->gl.prog, "u_eye");
    f->u_ray = glGetUniformLocation(f->gl.prog, "u_ray");
    f->u_id = glGetUniformLocation(f->gl.prog, "u_id");
    return f;
}

void follow3_destroy(follow3_pass *f) {
    if (!f) return;
    follow_gl_free(&f->gl);
    free(f);
}

unsigned follow3_seen_buffer(const follow3_pass *f) {
    return f->gl.seen;
}

/* follow_gl_bind, and the state's position, velocity and id buffers. */
static void setup(follow3_pass *f, const follow3_state *s, const boids_params *p,
                  const uint32_t init[RESULT_WORDS]) {
    follow_gl_bind(&f->gl, p, s->n, init);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, BOIDS_GPU_B_SRC_STATE, s->pos);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, BOIDS_GPU_B_SRC_VEL, s->vel);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, BOIDS_GPU_B_SRC_ID, s->ids);
}

static void pass(const follow3_pass *f, unsigned pass, size_t n) {
    glUniform1ui(f->u_pass, pass);
    size_t groups = (n + 255) / 256;
    glDispatchCompute(pass == 4 ? 1u : groups < 4096 ? (unsigned)groups : 4096u, 1, 1);
    /* the next pass, the read-back, and boid3.vert's fetches of the marks */
    glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT | GL_BUFFER_UPDATE_BARRIER_BIT |
                    GL_TEXTURE_FETCH_BARRIER_BIT);
}

int follow3_pick(follow3_pass *f, const follow3_state *s, const boids_params *p, const float eye[3],
                 const float dir[3], uint32_t *id) {
    static const uint32_t init[RESULT_WORDS] = {NO_BOID, NO_BOID};
    if (s->n == 0) return 0;
    setup(f, s, p, init);
    glUniform3fv(f->u_eye, 1, eye);
    glUniform3fv(f->u_ray, 1, dir);
    pass(f, 0, s->n);
    pass(f, 1, s->n);
    uint32_t out[RESULT_WORDS];
    follow_gl_read(&f->gl, out);
    if (out[1] == NO_BOID) return 0;
    *id = out[1];
    return 1;
}

boids_status follow3_run(follow3_pass *f, const follow3_state *s, const boids_params *p,
                         uint32_t id, follow3_result *out, boids_error *err) {
    static const uint32_t init[RESULT_WORDS] = {0};
    memset(out, 0, sizeof *out);
    boids_status st = follow_gl_reserve(&f->gl, s->n, err);
    if (st || s->n == 0) return st;
    setup(f, s, p, init);
    glUniform1ui(f->u_id, id);
    pass(f, 2, s->n);
    pass(f, 3, s->n);
    /* Topological: pass 3 clears the marks, pass 4 selects (within the shaders' k limit,
     * which the gpu backend's steps hold to as well). */
    if (p->neighbours == BOIDS_NEIGHBOURS_TOPOLOGICAL && p->k <= BOIDS_GPU_MAX_K_SHADER)
        pass(f, 4, s->n);
    uint32_t r[RESULT_WORDS];
    follow_gl_read(&f->gl, r);
    out->found = r[2] != 0;
    out->count = r[3];
    out->slot = r[4];
    memcpy(out->state, &r[8], 3 * sizeof(float));
    memcpy(out->state + 3, &r[12], 3 * sizeof(float));
    return BOIDS_OK;
}

static int by_index(const void *a, const void *b) {
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

size_t follow3_host(const boids_flock *fl, const boids_params *p, size_t i, int single,
                    uint32_t *nb) {
    if (!fl->z || i >= fl->n) return 0;
    size_t m = single ? host3_marks_f3(fl, p, i, nb) : host3_marks_d3(fl, p, i, nb);
    /* the topological selection is kept nearest first */
    qsort(nb, m, sizeof *nb, by_index);
    return m;
}
