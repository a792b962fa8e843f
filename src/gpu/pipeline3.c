/* SPDX-License-Identifier: MIT */
/* The GPU pipeline's 3-D grid, interaction block and state transfers (pipeline3.h). */
#include <glad/gl.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "grid_geom.h"
#include "pipeline3.h"

#define RULES_REAL     float
#define RULES_DIM      3
#define RULES_FN(name) name##_f3
#include "rules.h"

boids_status boids_gpu3_grid(boids_gpu_params *u, const boids_params *p, double max_cells,
                             size_t *ncells, boids_error *err) {
    grid_geom3 gg;
    boids_status st = boids_grid_geom3_init(&gg, p, max_cells, err);
    if (st != BOIDS_OK) return st;
    u->ncx = gg.n[0];
    u->ncy = gg.n[1];
    u->ncz = gg.n[2];
    u->ncells = (uint32_t)gg.ncells;
    u->inv_cell_w = gg.s[0];
    u->inv_cell_h = gg.s[1];
    u->inv_cell_d = gg.s[2];
    /* The ring search's bound as pipeline.c's ring_reach2: squared, shrunk by 2^-20. */
    u->reach2 = (float)(gg.reach * gg.reach * (1 - 1.0 / 1048576));
    *ncells = gg.ncells;
    return BOIDS_OK;
}

void boids_gpu3_interact_init(boids_gpu_interact *u, const boids_params *p,
                              const boids_interact *t) {
    rules_k_f3 k;
    rules_table_f3 tab;
    rules_k_init_f3(&k, p);
    rules_k_set_interact_f3(&k, &tab, t);
    memset(u, 0, sizeof *u);
    if (!k.tab) return;
    u->counts[0] = (uint32_t)tab.npred;
    u->counts[1] = (uint32_t)tab.nattr;
    u->counts[2] = (uint32_t)tab.nobst;
    for (int i = 0; i < tab.npred + tab.nattr; i++) {
        const rules_point_f3 *q = &tab.pts[i];
        const float v[4] = {q->x, q->y, q->r2, q->w};
        memcpy(u->pts[i], v, sizeof v);
        u->pts_z[i] = q->z;
    }
    for (int i = 0; i < tab.nobst; i++) {
        const rules_obst_f3 *o = &tab.obst[i];
        const float a[4] = {o->x0, o->y0, o->x0, o->y0}, b[4] = {o->x0, o->y0, o->r, o->r2};
        u->kinds[i] = 1;
        u->bounds[i] = o->bound;
        memcpy(u->obs_a[i], a, sizeof a);
        memcpy(u->obs_b[i], b, sizeof b);
        u->obs_z[i] = o->z0;
    }
}

/* Transfers go through host buffers of XFER boids at a time, as in pipeline.c, so that the
 * host holds no second copy of a large flock. */
enum { XFER = 1 << 16 };

static void put(GLuint buf, size_t off, size_t bytes, const void *data) {
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, buf);
    glBufferSubData(GL_SHADER_STORAGE_BUFFER, (GLintptr)off, (GLsizeiptr)bytes, data);
}

static void get(GLuint buf, size_t off, size_t bytes, void *data) {
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, buf);
    glGetBufferSubData(GL_SHADER_STORAGE_BUFFER, (GLintptr)off, (GLsizeiptr)bytes, data);
}

boids_status boids_gpu3_upload(unsigned pos, unsigned vel, unsigned ids, const boids_flock *in,
                               boids_error *err) {
    const size_t n = in->n;
    float *pv = malloc(32 * XFER);
    uint32_t *id = malloc(4 * XFER);
    if (!pv || !id) {
        free(pv);
        free(id);
        return boids_error_set(err, BOIDS_ERR_NOMEM, "GPU upload: out of memory (%zu boids)", n);
    }
    float *v = pv + 4 * XFER;
    for (size_t i0 = 0; i0 < n; i0 += XFER) {
        const size_t m = n - i0 < XFER ? n - i0 : XFER;
        for (size_t i = 0; i < m; i++) {
            const size_t s = i0 + i;
            float *a = pv + 4 * i, *b = v + 4 * i;
            a[0] = (float)in->x[s], a[1] = (float)in->y[s], a[2] = (float)in->z[s], a[3] = 0;
            b[0] = (float)in->vx[s], b[1] = (float)in->vy[s], b[2] = (float)in->vz[s], b[3] = 0;
            id[i] = (uint32_t)s;
        }
        put(pos, 16 * i0, 16 * m, pv);
        put(vel, 16 * i0, 16 * m, v);
        put(ids, 4 * i0, 4 * m, id);
    }
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, 0);
    free(pv);
    free(id);
    return BOIDS_OK;
}

boids_status boids_gpu3_download(unsigned pos, unsigned vel, unsigned ids, size_t n,
                                 boids_flock *out, boids_error *err) {
    float *pv = malloc(32 * XFER);
    uint32_t *id = malloc(4 * XFER);
    boids_status st = BOIDS_OK;
    if (!pv || !id)
        st = boids_error_set(err, BOIDS_ERR_NOMEM, "GPU download: out of memory (%zu boids)", n);
    float *v = pv + 4 * XFER;
    for (size_t i0 = 0; st == BOIDS_OK && i0 < n; i0 += XFER) {
        const size_t m = n - i0 < XFER ? n - i0 : XFER;
        get(pos, 16 * i0, 16 * m, pv);
        get(vel, 16 * i0, 16 * m, v);
        get(ids, 4 * i0, 4 * m, id);
        for (size_t i = 0; i < m; i++) {
            const uint32_t k = id[i];
            if (k >= n) {
                st = boids_error_set(err, BOIDS_ERR_RUNTIME,
                                     "GPU download: corrupt id %u at index %zu", k, i0 + i);
                break;
            }
            const float *a = pv + 4 * i, *b = v + 4 * i;
            out->x[k] = a[0], out->y[k] = a[1], out->z[k] = a[2];
            out->vx[k] = b[0], out->vy[k] = b[1], out->vz[k] = b[2];
        }
    }
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, 0);
    free(pv);
    free(id);
    return st;
}
