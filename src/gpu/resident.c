/* SPDX-License-Identifier: MIT */
/* The GPU's resident tile (src/core/tile.h's resident calls): the tile's owned boids stay in
 * the state buffers, slots [0, nown) of state 0, from step to step, and only what moves
 * crosses to the host: the boids that leave the tile and copies of its first and last rows
 * (read back), the arrivals and the halo (written after the owned boids), and, when the cut
 * asks, the cells and ids of the owned boids of a few rows or cells (found on the device by
 * the select pass; each row's count of boids is read back at every step). The passes over the
 * owned boids are shaders/tile_res.comp's; after a step the owned boids, which are the
 * steered rows' and so one contiguous range of the sorted state, are moved to the front (only
 * the few displaced by the halo below them move) and the halo is dropped. The records are tile.h's:
 * the global id, then dim float positions and dim float velocities. */
#include <stdlib.h>
#include <string.h>

#include "pipeline.h"

enum { PASS_ROWS, PASS_COUNT, PASS_WRITE, PASS_SELECT }; /* tile_res.comp's u_pass */
enum { AUX_HEAD = 8 };       /* the counters before the rows in the aux buffer */
enum { XFER_REC = 1 << 16 }; /* records converted at a time */

static size_t rec_bytes(const gpu_backend *g) {
    return BOIDS_TILE_REC(g->base.dim);
}

static boids_status nomem(const char *what, size_t n, boids_error *err) {
    return boids_error_set(err, BOIDS_ERR_NOMEM, "GPU tile: out of memory for %s (%zu)", what, n);
}

/* Makes *p hold n elements of size elem on the host (growing by half again). */
static int host_grow(void *pp, size_t *cap, size_t n, size_t elem) {
    void **p = pp;
    if (n <= *cap && *p) return 1;
    size_t c = n + n / 2 + 16;
    void *q = realloc(*p, c * elem);
    if (!q) return 0;
    *p = q, *cap = c;
    return 1;
}

/* A GL buffer of at least bytes (its contents lost). */
static boids_status res_buffer(GLuint *buf, size_t *cap, size_t bytes, const char *what,
                               boids_error *err) {
    if (bytes <= *cap && *buf) return BOIDS_OK;
    size_t c = bytes + bytes / 2 + 64;
    boids_status st = gpu_alloc_buffer(buf, (GLsizeiptr)c, what, bytes, err);
    if (!st) *cap = c;
    return st;
}

/* The arrays of state k: positions (the plane's whole state), the box's velocities (0 in
 * the plane), ids; and the bytes a boid in each. */
static const size_t slot_bytes[3] = {16, 16, 4};

static void state_arrays(const gpu_backend *g, int k, GLuint out[3]) {
    out[0] = g->state[k], out[1] = g->base.dim == 3 ? g->vel[k] : 0, out[2] = g->ids[k];
}

/* Copies slots [from, from + n) of the arrays src to [to, to + n) of dst (0: no array). */
static void copy_arrays(const GLuint src[3], const GLuint dst[3], size_t from, size_t to,
                        size_t n) {
    if (n == 0) return;
    for (int k = 0; k < 3; k++) {
        if (!src[k]) continue;
        glBindBuffer(GL_COPY_READ_BUFFER, src[k]);
        glBindBuffer(GL_COPY_WRITE_BUFFER, dst[k]);
        glCopyBufferSubData(GL_COPY_READ_BUFFER, GL_COPY_WRITE_BUFFER,
                            (GLintptr)(slot_bytes[k] * from), (GLintptr)(slot_bytes[k] * to),
                            (GLsizeiptr)(slot_bytes[k] * n));
    }
    glBindBuffer(GL_COPY_READ_BUFFER, 0);
    glBindBuffer(GL_COPY_WRITE_BUFFER, 0);
}

/* Copies slots [from, from + n) of state a to [to, to + n) of state b. */
static void copy_slots(const gpu_backend *g, int a, int b, size_t from, size_t to, size_t n) {
    GLuint src[3], dst[3];
    state_arrays(g, a, src);
    state_arrays(g, b, dst);
    copy_arrays(src, dst, from, to, n);
}

/* Room for need boids in the state buffers (an eighth more), the owned boids (slots
 * [0, nown) of state 0) kept through the reallocation in temporary buffers (the
 * reallocation keeps each buffer's name, not its contents). */
static boids_status res_reserve(gpu_backend *g, size_t need, boids_error *err) {
    if (need <= g->cap_n) return BOIDS_OK;
    const size_t n = g->nown;
    GLuint state[3], keep[3] = {0, 0, 0};
    state_arrays(g, 0, state);
    boids_status st = BOIDS_OK;
    for (int k = 0; k < 3 && !st; k++)
        if (state[k] && n)
            st = gpu_alloc_buffer(&keep[k], (GLsizeiptr)(slot_bytes[k] * n), "a resident tile", n,
                                  err);
    if (!st) copy_arrays(state, keep, 0, 0, n);
    if (!st) st = gpu_ensure_boids(g, need + need / 8, err);
    if (!st) copy_arrays(keep, state, 0, 0, n);
    for (int k = 0; k < 3; k++)
        if (keep[k]) glDeleteBuffers(1, &keep[k]);
    return st ? st : gpu_check(g, "resident tile: growing the state", err);
}

/* Writes the m records rec into state 0 from slot at on. */
static boids_status put_records(gpu_backend *g, size_t at, const unsigned char *rec, size_t m,
                                boids_error *err) {
    const int dim = g->base.dim;
    const size_t rs = rec_bytes(g);
    float *s = malloc(32 * XFER_REC);
    uint32_t *id = malloc(4 * XFER_REC);
    if (!s || !id) {
        free(s), free(id);
        return nomem("its records", m, err);
    }
    float *v = s + 4 * XFER_REC;
    for (size_t i0 = 0; i0 < m; i0 += XFER_REC) {
        const size_t k = m - i0 < XFER_REC ? m - i0 : XFER_REC;
        for (size_t i = 0; i < k; i++) {
            const unsigned char *r = rec + (i0 + i) * rs;
            float x[6];
            memcpy(&id[i], r, 4);
            memcpy(x, r + 4, 8 * (size_t)dim);
            float *a = s + 4 * i, *b = v + 4 * i;
            if (dim == 3) {
                a[0] = x[0], a[1] = x[1], a[2] = x[2], a[3] = 0;
                b[0] = x[3], b[1] = x[4], b[2] = x[5], b[3] = 0;
            } else {
                a[0] = x[0], a[1] = x[1], a[2] = x[2], a[3] = x[3];
            }
        }
        gpu_put(g->state[0], 16 * (at + i0), 16 * k, s);
        if (dim == 3) gpu_put(g->vel[0], 16 * (at + i0), 16 * k, v);
        gpu_put(g->ids[0], 4 * (at + i0), 4 * k, id);
    }
    free(s), free(id);
    return gpu_check(g, "resident tile: writing records", err);
}

boids_status gpu_tile_start(boids_backend *b, const unsigned char *rec, size_t m, size_t n_global,
                            uint32_t step, boids_error *err) {
    gpu_backend *g = as_gpu(b);
    boids_status st = gpu_build_tiled(g, err);
    if (!st && !g->rprog) st = gpu_build_program("tile_res.comp", b->dim, &g->rprog, err);
    if (st) return st;
    g->tiled = 0;
    g->nown = 0;
    b->n = 0;
    if ((st = res_reserve(g, m ? m : 1, err)) || (st = put_records(g, 0, rec, m, err))) return st;
    b->n = g->nown = m;
    g->t = step;
    g->primed = 0;
    g->res_on = 1;
    memset(&g->tile, 0, sizeof g->tile);
    g->tile.n_global = n_global;
    gpu_clear_cut(g);
    return BOIDS_OK;
}

/* Sets the resident program's uniforms for pass `pass` and the parameter block's n and split
 * (the state's layout, shaders/state.glsl) for nown boids, binds its buffers, and runs it. */
static void run_pass(gpu_backend *g, int pass) {
    const GLuint prog = g->rprog;
    glProgramUniform1ui(prog, glGetUniformLocation(prog, "u_pass"), (GLuint)pass);
    const uint32_t head[2] = {(uint32_t)g->nown, (uint32_t)g->split};
    glBindBuffer(GL_UNIFORM_BUFFER, g->ubo);
    glBufferSubData(GL_UNIFORM_BUFFER, (GLintptr)offsetof(boids_gpu_params, n), sizeof head[0],
                    &head[0]);
    glBufferSubData(GL_UNIFORM_BUFFER, (GLintptr)offsetof(boids_gpu_params, split), sizeof head[1],
                    &head[1]);
    glBindBuffer(GL_UNIFORM_BUFFER, 0);
    glBindBufferBase(GL_UNIFORM_BUFFER, BOIDS_GPU_UBO_PARAMS, g->ubo);
    g->base.n = g->nown;
    gpu_bind_src(g, 0);
    gpu_bind_dst(g, 1);
    gpu_ssbo(BOIDS_GPU_B_TILE_AUX, g->raux);
    gpu_ssbo(BOIDS_GPU_B_TILE_OUT, g->rout);
    gpu_dispatch_boids(g, prog);
    glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT | GL_BUFFER_UPDATE_BARRIER_BIT);
}

/* Zeroes the first words of buffer buf (the aux buffer's counters, the select pass's
 * counts). */
static void zero_words(GLuint buf, size_t words) {
    uint32_t zero = 0;
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, buf);
    glClearBufferSubData(GL_SHADER_STORAGE_BUFFER, GL_R32UI, 0, (GLsizeiptr)(4 * words),
                         GL_RED_INTEGER, GL_UNSIGNED_INT, &zero);
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, 0);
}

void gpu_tile_box(boids_backend *b, grid_boxd *box) {
    /* The GPU's grid is the world's on every boundary (gpu_tile_geom), so its steps do not
     * read the box; it is still the owned boids' as tile.h describes, read back. */
    gpu_backend *g = as_gpu(b);
    const int dim = b->dim;
    float *s = malloc(16 * XFER_REC);
    if (!s) return;
    for (size_t i0 = 0; i0 < g->nown; i0 += XFER_REC) {
        const size_t k = g->nown - i0 < XFER_REC ? g->nown - i0 : XFER_REC;
        gpu_read(g->state[0], 16 * i0, 16 * k, s);
        for (size_t i = 0; i < k; i++) boids_tile_box_point(box, dim, s + 4 * i);
    }
    free(s);
}

boids_status gpu_tile_count(boids_backend *b, const grid_geomd *gg, uint64_t *count,
                            uint64_t *pairs, boids_error *err) {
    (void)pairs; /* no cost model here: the cut follows the boids per row */
    gpu_backend *g = as_gpu(b);
    const int last = gg->dim - 1;
    if (gg->o[last] != 0)
        return boids_error_set(err, BOIDS_ERR_INPUT,
                               "GPU tile_count: a grid whose origin is not 0 (the GPU's grid is "
                               "the world's)");
    const uint32_t nrows = gg->n[last];
    g->rplane = (uint64_t)gg->n[0] * (last == 2 ? gg->n[1] : 1);
    g->rnrows = nrows;
    if (g->rplane * nrows > UINT32_MAX)
        return boids_error_set(err, BOIDS_ERR_INPUT,
                               "GPU tile_count: a grid of %llu cells (the GPU's tiles number "
                               "them in 32 bits)",
                               (unsigned long long)(g->rplane * nrows));
    const size_t words = AUX_HEAD + g->nown + nrows;
    boids_status st = res_buffer(&g->raux, &g->raux_cap, 4 * words, "a tile's rows", err);
    if (!st && !host_grow(&g->rhist, &g->rhist_cap, nrows, sizeof *g->rhist))
        st = nomem("the row counts", nrows, err);
    if (st) return st;
    zero_words(g->raux, words);
    const GLuint prog = g->rprog;
    glProgramUniform1ui(prog, glGetUniformLocation(prog, "u_nrows"), nrows);
    glProgramUniform1ui(prog, glGetUniformLocation(prog, "u_plane"), (GLuint)g->rplane);
    glProgramUniform3f(prog, glGetUniformLocation(prog, "u_inv"), gg->s[0], gg->s[1], gg->s[2]);
    glProgramUniform3ui(prog, glGetUniformLocation(prog, "u_n"), gg->n[0], gg->n[1], gg->n[2]);
    run_pass(g, PASS_ROWS);
    gpu_read(g->raux, 4 * (AUX_HEAD + g->nown), 4 * (size_t)nrows, g->rhist);
    for (uint32_t r = 0; r < nrows; r++) count[r] += g->rhist[r];
    return gpu_check(g, "tile_count", err);
}

boids_status gpu_tile_split(boids_backend *b, boids_tile_key lo, boids_tile_key hi,
                            boids_tile_moves *out, boids_error *err) {
    gpu_backend *g = as_gpu(b); /* ids only where deterministic: backend.c checked */
    const uint64_t lo_cell = lo.cell, hi_cell = boids_tile_key_end(hi);
    if (hi_cell > g->rplane * g->rnrows)
        return boids_error_set(err, BOIDS_ERR_INPUT,
                               "GPU tile_split: the cells [%llu, %llu) go beyond the grid's %llu",
                               (unsigned long long)lo_cell, (unsigned long long)hi_cell,
                               (unsigned long long)(g->rplane * g->rnrows));
    uint32_t r0, r1, e[2]; /* the tile's edge rows (tile.h) */
    boids_tile_edge_rows(lo, hi, g->rplane, &r0, &r1, e);
    const GLuint prog = g->rprog;
    glProgramUniform1ui(prog, glGetUniformLocation(prog, "u_lo"), (GLuint)lo_cell);
    glProgramUniform1ui(prog, glGetUniformLocation(prog, "u_hi"), (GLuint)hi_cell);
    glProgramUniform1ui(prog, glGetUniformLocation(prog, "u_id_lo"), lo.id);
    glProgramUniform1ui(prog, glGetUniformLocation(prog, "u_id_hi"), hi.id);
    glProgramUniform1ui(prog, glGetUniformLocation(prog, "u_e0"), (GLuint)(e[0] * g->rplane));
    glProgramUniform1ui(prog, glGetUniformLocation(prog, "u_e1"), (GLuint)(e[1] * g->rplane));
    zero_words(g->raux, AUX_HEAD);
    run_pass(g, PASS_COUNT);
    uint32_t c[4];
    gpu_read(g->raux, 0, sizeof c, c);
    const size_t nleave = c[0], ne0 = c[2], ne1 = c[3], total = nleave + ne0 + ne1;
    const size_t rs = rec_bytes(g), words = total * rs / 4;
    boids_status st =
        res_buffer(&g->rout, &g->rout_cap, 4 * (words + nleave), "a tile's moves", err);
    if (!st && (!host_grow(&g->rrec, &g->rrec_cap, total * rs, 1) ||
                !host_grow(&g->rrow, &g->rrow_cap, nleave, sizeof *g->rrow)))
        st = nomem("a tile's moves", total, err);
    if (st) return st;
    const GLuint at[3] = {0, (GLuint)nleave, (GLuint)(nleave + ne0)};
    glProgramUniform1uiv(prog, glGetUniformLocation(prog, "u_at"), 3, at);
    glProgramUniform1ui(prog, glGetUniformLocation(prog, "u_rows"), (GLuint)words);
    zero_words(g->raux, AUX_HEAD);
    run_pass(g, PASS_WRITE); /* the staying boids compacted into state 1 */
    gpu_read(g->raux, 0, sizeof c, c);
    if (c[1] + nleave != g->nown)
        return boids_error_set(err, BOIDS_ERR_RUNTIME,
                               "GPU tile_split: %u boids stay and %zu leave of %zu owned", c[1],
                               nleave, g->nown);
    g->nown = c[1];
    copy_slots(g, 1, 0, 0, 0, g->nown);
    if (total) gpu_read(g->rout, 0, total * rs, g->rrec);
    if (nleave) gpu_read(g->rout, 4 * words, 4 * nleave, g->rrow);
    b->n = g->nown;
    const unsigned char *e0 = g->rrec + nleave * rs, *e1 = e0 + ne0 * rs;
    *out = (boids_tile_moves){g->rrec, g->rrow, nleave, {e0, e1}, {ne0, ne1}};
    return gpu_check(g, "tile_split", err);
}

/* The select pass over the owned boids for the ns rows (by_cell 0) or cells (1) sel, which
 * are ascending (the pass searches them), in turns of BOIDS_GPU_TILE_SEL; its counter zeroed
 * first. */
static void select_pass(gpu_backend *g, const uint32_t *sel, size_t ns, int by_cell) {
    const GLuint prog = g->rprog;
    glProgramUniform1ui(prog, glGetUniformLocation(prog, "u_by_cell"), (GLuint)by_cell);
    zero_words(g->raux, AUX_HEAD);
    for (size_t at = 0; at < ns && g->nown; at += BOIDS_GPU_TILE_SEL) {
        const size_t n = ns - at < BOIDS_GPU_TILE_SEL ? ns - at : BOIDS_GPU_TILE_SEL;
        glProgramUniform1uiv(prog, glGetUniformLocation(prog, "u_sel"), (GLsizei)n, sel + at);
        glProgramUniform1ui(prog, glGetUniformLocation(prog, "u_nsel"), (GLuint)n);
        glProgramUniform1ui(prog, glGetUniformLocation(prog, "u_sel_at"), (GLuint)at);
        run_pass(g, PASS_SELECT);
    }
}

/* The rows' cells counted on the device (the select pass), so that a row's plane of counts
 * crosses to the host, not every owned boid's cell. */
boids_status gpu_tile_row_cells(boids_backend *b, const uint32_t *rows, uint32_t nr,
                                uint32_t *count, boids_error *err) {
    gpu_backend *g = as_gpu(b);
    const size_t P = (size_t)g->rplane;
    /* The rows' checks alone (no boid counted): beyond the grid, named twice. */
    boids_status st =
        boids_tile_count_row_cells(NULL, 0, g->rplane, g->rnrows, rows, nr, count, "GPU", err);
    if (st || nr == 0) return st;
    uint32_t *sel = malloc((size_t)nr * sizeof *sel), *got = malloc((size_t)nr * P * sizeof *got);
    if (!sel || !got) {
        free(sel), free(got);
        return nomem("the rows' cell counts", (size_t)nr * P, err);
    }
    memcpy(sel, rows, (size_t)nr * sizeof *sel);
    qsort(sel, nr, sizeof *sel, boids_tile_cmp_u32);
    if (!(st = res_buffer(&g->rout, &g->rout_cap, 4 * (size_t)nr * P, "the rows' cell counts",
                          err))) {
        zero_words(g->rout, (size_t)nr * P);
        select_pass(g, sel, nr, 0);
        gpu_read(g->rout, 0, 4 * (size_t)nr * P, got);
        for (uint32_t i = 0; i < nr; i++) {
            /* the place of rows[i] in sel, the ascending order the pass counted in */
            const uint32_t *const row = got + (size_t)boids_tile_of_row(sel, (int)nr, rows[i]) * P;
            for (size_t x = 0; x < P; x++) count[(size_t)i * P + x] += row[x];
        }
    }
    free(sel), free(got);
    return st ? st : gpu_check(g, "tile_row_cells", err);
}

/* The cells' boids found on the device (the select pass): their cells and ids cross to the
 * host, not every owned boid's. */
boids_status gpu_tile_cell_ids(boids_backend *b, const uint64_t *cells, uint32_t nc, uint32_t *ids,
                               size_t cap, size_t *m, boids_error *err) {
    gpu_backend *g = as_gpu(b);
    const uint64_t ncells = g->rplane * g->rnrows;
    /* The cells' checks alone (no boid listed): within the grid and ascending, as the pass
     * searches them. */
    boids_status st =
        boids_tile_list_cell_ids(NULL, NULL, 0, ncells, cells, nc, ids, cap, m, "GPU", err);
    if (st) return st;
    uint32_t *sel = malloc((nc ? nc : 1) * sizeof *sel);
    if (!sel) return nomem("the cells asked for", nc, err);
    for (uint32_t i = 0; i < nc; i++) sel[i] = (uint32_t)cells[i]; /* below ncells: 32 bits */
    st = res_buffer(&g->rout, &g->rout_cap, 8 * (g->nown ? g->nown : 1), "the cells' boids", err);
    if (!st) select_pass(g, sel, nc, 1);
    free(sel);
    if (st) return st;
    uint32_t c[AUX_HEAD];
    gpu_read(g->raux, 0, sizeof c, c);
    const size_t k = c[4];
    uint32_t *cell = malloc((k ? 2 * k : 1) * sizeof *cell); /* the cells, then the ids */
    if (!cell) return nomem("the cells' boids", k, err);
    if (k) gpu_read(g->rout, 0, 4 * k, cell);
    if (k) gpu_read(g->rout, 4 * g->nown, 4 * k, cell + k);
    st = boids_tile_list_cell_ids(cell, cell + k, k, ncells, cells, nc, ids, cap, m, "GPU", err);
    free(cell);
    return st ? st : gpu_check(g, "tile_cell_ids", err);
}

boids_status gpu_tile_add(boids_backend *b, const unsigned char *rec, size_t m, boids_error *err) {
    gpu_backend *g = as_gpu(b);
    b->n = g->nown; /* a halo not stepped is dropped */
    boids_status st = res_reserve(g, g->nown + m, err);
    if (!st) st = put_records(g, g->nown, rec, m, err);
    if (st) return st;
    b->n = g->nown += m;
    return BOIDS_OK;
}

boids_status gpu_tile_halo(boids_backend *b, const boids_tile *t, const unsigned char *rec,
                           size_t m, boids_error *err) {
    gpu_backend *g = as_gpu(b);
    b->n = g->nown; /* this halo replaces the last */
    boids_status st = res_reserve(g, g->nown + m, err);
    if (!st) st = put_records(g, g->nown, rec, m, err);
    if (st) return st;
    b->n = g->nown + m;
    g->tile = *t;
    g->tile.gid = NULL; /* the ids on the device are the global ones */
    g->tiled = 1;
    g->primed = 0;
    return BOIDS_OK;
}

/* The steered slots [se[0], se[1]) of the cells [c0, c1) narrowed to the ids of a tile that
 * ends within a cell: of cell c0 those from id_lo on, of cell c1 - 1 those below id_hi (the
 * deterministic step orders each cell by id; backend.c refuses ids in the fast mode, whose
 * ops have no tile_cell_ids). */
static boids_status keep_ids(gpu_backend *g, size_t c0, size_t c1, GLuint se[2], boids_error *err) {
    GLuint in[2]; /* where cell c0 ends and cell c1 - 1 begins */
    gpu_read(g->scan, (size_t)g->lvl_out[0] + 4 * (c0 + 1), 4, &in[0]);
    gpu_read(g->scan, (size_t)g->lvl_out[0] + 4 * (c1 - 1), 4, &in[1]);
    const GLuint from[2] = {se[0], in[1]}, to[2] = {in[0], se[1]};
    const uint32_t id[2] = {g->tile.id_lo, g->tile.id_hi};
    for (int e = 0; e < 2; e++) {
        if (!id[e] || to[e] <= from[e]) continue;
        const size_t n = to[e] - from[e];
        uint32_t *ids = malloc(n * sizeof *ids);
        if (!ids) return nomem("the ids of a cut cell", n, err);
        gpu_read(g->ids[0], 4 * (size_t)from[e], 4 * n, ids);
        const GLuint at = boids_tile_slot_from(ids, NULL, 0, (uint32_t)n, id[e]);
        free(ids);
        if (e == 0)
            se[0] = from[0] + at;
        else
            se[1] = from[1] + at;
    }
    if (se[1] < se[0]) se[1] = se[0];
    return BOIDS_OK;
}

boids_status gpu_tile_keep(gpu_backend *g, boids_error *err) {
    /* The steered cells (tile.h: the steered rows less the cells skipped at their ends): one
     * range of slots. */
    const size_t row_cells = (size_t)g->ncx * (g->base.dim == 3 ? g->ncy : 1);
    size_t c0, c1;
    boids_status st = boids_tile_steered_cells(&g->tile, row_cells, "GPU tile", &c0, &c1, err);
    if (st) return st;
    GLuint se[2];
    gpu_read(g->scan, (size_t)g->lvl_out[0] + 4 * c0, 4, &se[0]);
    gpu_read(g->scan, (size_t)g->lvl_out[0] + 4 * c1, 4, &se[1]);
    if (c1 > c0 && (g->tile.id_lo || g->tile.id_hi) && (st = keep_ids(g, c0, c1, se, err)))
        return st;
    if ((size_t)(se[1] - se[0]) != g->nown)
        return boids_error_set(err, BOIDS_ERR_INPUT,
                               "GPU tile: the steered cells hold %u boids, but the tile owns "
                               "%zu: an owned boid is in a halo cell or a halo boid in a "
                               "steered cell",
                               se[1] - se[0], g->nown);
    /* To the front. The order of the owned boids is free (the next step sorts them by cell,
     * and by id within a cell where it is deterministic), so only the last of them move, into
     * the halo's slots before them: [se1 - k, se1) to [0, k), ranges that do not overlap. */
    const size_t k = se[0] < g->nown ? se[0] : g->nown;
    copy_slots(g, 0, 0, se[1] - k, 0, k);
    g->base.n = g->nown;
    g->tiled = 0;
    g->primed = 0;
    return gpu_check(g, "resident tile: after the step", err);
}

boids_status gpu_tile_owned(boids_backend *b, boids_tile_keep keep, const void *ctx,
                            const unsigned char **rec, size_t *m, boids_error *err) {
    gpu_backend *g = as_gpu(b);
    const int dim = b->dim;
    const size_t rs = rec_bytes(g);
    float *s = malloc(32 * XFER_REC);
    uint32_t *id = malloc(4 * XFER_REC);
    boids_status st = BOIDS_OK;
    if (!s || !id) st = nomem("its records", g->nown, err);
    size_t k = 0;
    for (size_t i0 = 0; !st && i0 < g->nown; i0 += XFER_REC) {
        const size_t c = g->nown - i0 < XFER_REC ? g->nown - i0 : XFER_REC;
        gpu_read(g->state[0], 16 * i0, 16 * c, s);
        if (dim == 3) gpu_read(g->vel[0], 16 * i0, 16 * c, s + 4 * XFER_REC);
        gpu_read(g->ids[0], 4 * i0, 4 * c, id);
        if (!host_grow(&g->rrec, &g->rrec_cap, (k + c) * rs, 1)) {
            st = nomem("its records", g->nown, err);
            break;
        }
        for (size_t i = 0; i < c; i++) {
            if (keep && !keep(ctx, id[i])) continue;
            unsigned char *r = g->rrec + k++ * rs;
            const float *a = s + 4 * i, *v = s + 4 * XFER_REC + 4 * i;
            const float x[6] = {a[0], a[1], a[2], dim == 3 ? v[0] : a[3], v[1], v[2]};
            memcpy(r, &id[i], 4);
            memcpy(r + 4, x, 8 * (size_t)dim);
        }
    }
    free(s), free(id);
    if (st) return st;
    *rec = g->rrec;
    *m = k;
    return gpu_check(g, "tile_owned", err);
}
