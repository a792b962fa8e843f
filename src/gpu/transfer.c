/* SPDX-License-Identifier: MIT */
/* The flock in and out of the GPU: download and upload through bounded host buffers; tile
 * mode's upload (src/core/tile.h), whose global ids the download maps back to the local boids
 * (the id map); and the neighbour queries of verification. */
#include <stdlib.h>
#include <string.h>

#include "pipeline.h"

/* ---- transfers --------------------------------------------------------------------------- */

/* Transfers go through host buffers of XFER boids at a time, so that the host holds no
 * second copy of a large flock (10M boids would need 200 MB more). */
enum { XFER = 1 << 16 };

/* Boid s of f in the state layout of shaders/state.glsl: the plane's vec4 (x, y, vx, vy) in
 * a; the box's position vec4 (x, y, z, 0) in a and velocity vec4 (vx, vy, vz, 0) in v. */
static void pack(const boids_flock *f, size_t s, float *a, float *v) {
    if (f->z) {
        a[0] = (float)f->x[s], a[1] = (float)f->y[s], a[2] = (float)f->z[s], a[3] = 0;
        v[0] = (float)f->vx[s], v[1] = (float)f->vy[s], v[2] = (float)f->vz[s], v[3] = 0;
    } else {
        a[0] = (float)f->x[s], a[1] = (float)f->y[s], a[2] = (float)f->vx[s];
        a[3] = (float)f->vy[s];
    }
}

/* pack's inverse, into boid k of f. */
static void unpack(boids_flock *f, size_t k, const float *a, const float *v) {
    if (f->z) {
        f->x[k] = a[0], f->y[k] = a[1], f->z[k] = a[2];
        f->vx[k] = v[0], f->vy[k] = v[1], f->vz[k] = v[2];
    } else {
        f->x[k] = a[0], f->y[k] = a[1], f->vx[k] = a[2], f->vy[k] = a[3];
    }
}

/* The slot of global id `id` in the map: where it is, or the empty slot where it goes. */
static size_t map_slot(const gpu_backend *g, uint32_t id) {
    size_t k = boids_mix32(id) & (g->map_cap - 1);
    while (g->map[k] && g->gid[g->map[k] - 1] != id) k = (k + 1) & (g->map_cap - 1);
    return k;
}

/* The map of the n global ids gid (2 n slots or more: short probes). */
static boids_status map_build(gpu_backend *g, size_t n, boids_error *err) {
    size_t cap = 16;
    while (cap < 2 * n) cap *= 2;
    if (cap > g->map_cap) {
        uint32_t *m = realloc(g->map, cap * sizeof *m);
        if (!m)
            return boids_error_set(err, BOIDS_ERR_NOMEM, "GPU tile: out of memory (%zu boids)", n);
        g->map = m;
        g->map_cap = cap;
    }
    memset(g->map, 0, g->map_cap * sizeof *g->map);
    for (size_t i = 0; i < n; i++) g->map[map_slot(g, g->gid[i])] = (uint32_t)i + 1;
    return BOIDS_OK;
}

/* The boid of the state whose id buffers hold id: id itself, or in tile mode the local boid
 * of that global id (the map); n when there is none. */
static size_t local_index(const gpu_backend *g, uint32_t id) {
    if (!g->tiled) return id < g->base.n ? id : g->base.n;
    const uint32_t v = g->map[map_slot(g, id)];
    return v ? v - 1 : g->base.n;
}

boids_status gpu_download(boids_backend *b, boids_flock *out, boids_error *err) {
    gpu_backend *g = as_gpu(b);
    size_t n = b->n;
    if (out->n != n)
        return boids_error_set(err, BOIDS_ERR_INPUT, "GPU download: flock has %zu boids, not %zu",
                               out->n, n);
    const int box = b->dim == 3;
    float *s = malloc(32 * XFER);
    uint32_t *id = malloc(4 * XFER);
    boids_status st = BOIDS_OK;
    if (!s || !id)
        st = boids_error_set(err, BOIDS_ERR_NOMEM, "GPU download: out of memory (%zu boids)", n);
    float *v = s ? s + 4 * XFER : NULL;
    for (size_t i0 = 0; st == BOIDS_OK && i0 < n; i0 += XFER) {
        size_t m = n - i0 < XFER ? n - i0 : XFER;
        gpu_read(g->state[0], 16 * i0, 16 * m, s);
        if (box) gpu_read(g->vel[0], 16 * i0, 16 * m, v);
        gpu_read(g->ids[0], 4 * i0, 4 * m, id);
        if ((st = gpu_check(g, "read-back", err))) break;
        for (size_t i = 0; i < m; i++) {
            size_t k = local_index(g, id[i]);
            if (k >= n) {
                st = boids_error_set(err, BOIDS_ERR_RUNTIME,
                                     "GPU download: corrupt id %u at index %zu", id[i], i0 + i);
                break;
            }
            unpack(out, k, s + 4 * i, v + 4 * i);
        }
    }
    out->step = g->t;
    free(s);
    free(id);
    return st;
}

/* Replaces the state by in, boid i with id gid[i] (gid NULL: i). A tile's buffers are
 * reserved an eighth larger where the device allows, so that the per-step uploads of a
 * tile whose count drifts do not reallocate them each time. */
static boids_status upload_state(gpu_backend *g, const boids_flock *in, const uint32_t *gid,
                                 boids_error *err) {
    boids_status st = BOIDS_ERR_LIMIT;
    if (gid && in->n > g->cap_n) st = gpu_ensure_boids(g, in->n + in->n / 8, err);
    if (st != BOIDS_OK) st = gpu_ensure_boids(g, in->n, err);
    if (st != BOIDS_OK) return st;
    size_t n = in->n;
    const int box = g->base.dim == 3;
    float *s = malloc(32 * XFER);
    uint32_t *id = malloc(4 * XFER);
    if (!s || !id) {
        free(s);
        free(id);
        return boids_error_set(err, BOIDS_ERR_NOMEM, "GPU upload: out of memory (%zu boids)", n);
    }
    float *v = s + 4 * XFER;
    for (size_t i0 = 0; i0 < n; i0 += XFER) {
        size_t m = n - i0 < XFER ? n - i0 : XFER;
        for (size_t i = 0; i < m; i++) {
            pack(in, i0 + i, s + 4 * i, v + 4 * i);
            id[i] = gid ? gid[i0 + i] : (uint32_t)(i0 + i);
        }
        gpu_put(g->state[0], 16 * i0, 16 * m, s);
        if (box) gpu_put(g->vel[0], 16 * i0, 16 * m, v);
        gpu_put(g->ids[0], 4 * i0, 4 * m, id);
    }
    free(s);
    free(id);
    g->base.n = n;
    g->t = in->step;
    g->primed = 0;
    gpu_clear_cut(g);
    return gpu_check(g, "upload", err);
}

boids_status gpu_upload(boids_backend *b, const boids_flock *in, boids_error *err) {
    gpu_backend *g = as_gpu(b);
    g->tiled = g->res_on = 0;
    return upload_state(g, in, NULL, err);
}

/* ---- tile mode (src/core/tile.h) ----------------------------------------------------------- */

boids_status gpu_tile_geom(const boids_backend *b, const boids_params *p, const boids_tile *t,
                           grid_geomd *gg, boids_error *err) {
    boids_status st = boids_gpu_check_params(p, err);
    return st ? st : gpu_world_grid(as_gpu(b), p, t->n_global, gg, err);
}

boids_status gpu_upload_tile(boids_backend *b, const boids_flock *in, const boids_tile *t,
                             boids_error *err) {
    gpu_backend *g = as_gpu(b);
    boids_status st = gpu_build_tiled(g, err);
    if (st != BOIDS_OK) return st;
    if (in->n > g->gid_cap) {
        uint32_t *gid = realloc(g->gid, in->n * sizeof *gid);
        if (!gid)
            return boids_error_set(err, BOIDS_ERR_NOMEM, "GPU tile: out of memory (%zu boids)",
                                   in->n);
        g->gid = gid;
        g->gid_cap = in->n;
    }
    g->tiled = g->res_on = 0; /* until the state is the window's */
    if ((st = upload_state(g, in, t->gid, err))) return st;
    memcpy(g->gid, t->gid, in->n * sizeof *g->gid);
    if ((st = map_build(g, in->n, err))) return st;
    g->tile = *t;
    g->tile.gid = g->gid;
    g->tiled = 1;
    return BOIDS_OK;
}

/* ---- neighbours (verification) ------------------------------------------------------------ */

boids_status gpu_neighbours(boids_backend *b, const boids_params *p, uint32_t *count,
                            uint64_t *set_hash, boids_error *err) {
    gpu_backend *g = as_gpu(b);
    size_t n = b->n;
    boids_status st;
    if (g->nbr_n != n) {
        uint32_t *h = malloc(8 * n);
        if (!h) return boids_error_set(err, BOIDS_ERR_NOMEM, "out of memory");
        for (size_t i = 0; i < n; i++) {
            uint64_t v = boids_neighbour_set_hash((uint32_t)i);
            h[2 * i] = (uint32_t)v;
            h[2 * i + 1] = (uint32_t)(v >> 32);
        }
        if ((st = gpu_alloc_buffer(&g->nbr_count, (GLsizeiptr)(4 * n), "neighbour counts", n,
                                   err)) ||
            (st =
                 gpu_alloc_buffer(&g->nbr_hash, (GLsizeiptr)(8 * n), "neighbour hashes", n, err)) ||
            (st = gpu_alloc_buffer(&g->id_hash, (GLsizeiptr)(8 * n), "id hashes", n, err))) {
            free(h);
            return st;
        }
        glBindBuffer(GL_SHADER_STORAGE_BUFFER, g->id_hash);
        glBufferSubData(GL_SHADER_STORAGE_BUFFER, 0, (GLsizeiptr)(8 * n), h);
        glBindBuffer(GL_SHADER_STORAGE_BUFFER, 0);
        free(h);
        g->nbr_n = n;
    }
    /* Not a step: keep it out of the stage timings. */
    int timing = g->opt.timing;
    g->opt.timing = 0;
    st = gpu_set_params(g, p, err);
    if (st == BOIDS_OK) st = gpu_sort_by_cell(g, err);
    g->opt.timing = timing;
    if (st != BOIDS_OK) return st;
    gpu_bind_src(g, 1);
    gpu_ssbo(BOIDS_GPU_B_NBR_COUNT, g->nbr_count);
    gpu_ssbo(BOIDS_GPU_B_NBR_HASH, g->nbr_hash);
    gpu_ssbo(BOIDS_GPU_B_ID_HASH, g->id_hash);
    gpu_ssbo(BOIDS_GPU_B_LOOP_CUT, g->cut);
    gpu_dispatch_boids(
        g,
        g->prog[p->neighbours == BOIDS_NEIGHBOURS_TOPOLOGICAL ? P_NEIGHBOURS_TOPO : P_NEIGHBOURS]);
    glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
    if ((st = gpu_check(g, "neighbours", err)) || (st = gpu_check_cut(g, "neighbours query", err)))
        return st;
    uint32_t *h = malloc(8 * n);
    if (!h) return boids_error_set(err, BOIDS_ERR_NOMEM, "out of memory");
    gpu_read(g->nbr_count, 0, 4 * n, count);
    gpu_read(g->nbr_hash, 0, 8 * n, h);
    if (!(st = gpu_check(g, "read-back", err)))
        for (size_t i = 0; i < n; i++)
            set_hash[i] = (uint64_t)h[2 * i] | (uint64_t)h[2 * i + 1] << 32;
    free(h);
    return st;
}
