/* SPDX-License-Identifier: MIT */
/* The grid build, rebuilt at every step: the grid's geometry (src/core/grid_geom.h) into the
 * uniform block, the layout of the prefix sum over its cells, then the counting sort that
 * orders the state by cell for the steer (clear, count, scan, scatter, and in deterministic
 * mode the sort by id within each cell). In tile mode the grid is a window of the whole
 * flock's (src/core/tile.h). */
#include <math.h>
#include <string.h>

#include "pipeline.h"

/* ---- the grid's geometry ----------------------------------------------------------------- */

/* The topological shell search's bound (shaders/select.glsl): the geometry's reach (see
 * grid_geom.h), squared and shrunk by 2^-20 so that the float product r^2 * reach2 in the
 * shader never rounds above the true bound, nor the float d2 (relative 2^-22 or so) past
 * it. */
static float ring_reach2(double reach) {
    return (float)(reach * reach * (1 - 1.0 / 1048576));
}

/* The whole flock's grid for parameters p and n boids: the world's on every boundary (on the
 * open plane the shaders clamp to the edge cells), at most the device's cells. The
 * topological search's worst case (k nearest far away, or N <= k) visits every cell, and a
 * driver may stop a long loop (llvmpipe: 65,535 iterations per invocation): its cells are
 * capped at the cpu grid's ~4 per boid, which bounds that walk by the flock's size. Its
 * results do not depend on the grid (the selection is exact in (d2, id) order), so they keep
 * their bits; the metric grid keeps its cells, whose order sets its sums. */
boids_status gpu_world_grid(const gpu_backend *g, const boids_params *p, size_t n, grid_geomd *gg,
                            boids_error *err) {
    double max_cells = (double)g->max_cells;
    if (p->neighbours == BOIDS_NEIGHBOURS_TOPOLOGICAL)
        max_cells = fmin(max_cells, boids_grid_geom_cap(n));
    return boids_grid_geomd_init(gg, g->base.dim == 3 ? 3 : 2, p, NULL, max_cells, err);
}

/* The grid gg of dimension dim into the uniform block's grid fields (ncx, ncy, ncz, ncells,
 * inv_cell_*, reach2). The plane has one layer, ncz = 1. */
static void set_grid(boids_gpu_params *u, const grid_geomd *gg, int dim) {
    u->ncx = gg->n[0];
    u->ncy = gg->n[1];
    u->ncz = dim == 3 ? gg->n[2] : 1;
    u->inv_cell_w = gg->s[0];
    u->inv_cell_h = gg->s[1];
    if (dim == 3) u->inv_cell_d = gg->s[2];
    u->reach2 = ring_reach2(gg->reach);
    u->ncells = (uint32_t)gg->ncells;
}

/* Tile mode: the window of g->tile over the whole grid gg (set_grid's fields) in u: the
 * last axis's cells become the window's rows (shaders/grid.glsl), one more cell holds the
 * boids outside the window; sets *ncells to the cells the step counts. BOIDS_ERR_INPUT when
 * the window does not fit the grid these parameters give. */
static boids_status set_window(const gpu_backend *g, boids_gpu_params *u, const grid_geomd *gg,
                               size_t *ncells, boids_error *err) {
    const boids_tile *t = &g->tile;
    const int last = gg->dim - 1;
    const uint32_t nrows = gg->n[last];
    int whole;
    boids_status st = boids_tile_check_window(t, nrows, gg->wrap, "GPU tile", &whole, err);
    if (st) return st;
    size_t c0, c1; /* the steered window cells (a row: ncx cells, ncx x ncy in the box) */
    st = boids_tile_steered_cells(t, (size_t)u->ncx * (last == 2 ? u->ncy : 1), "GPU tile", &c0,
                                  &c1, err);
    if (st) return st;
    u->tile_lo = t->row_lo;
    u->tile_nrows = nrows;
    u->steer_lo = (uint32_t)c0;
    u->steer_hi = (uint32_t)c1;
    u->steer_id_lo = t->id_lo;
    u->steer_id_hi = t->id_hi;
    if (last == 2)
        u->ncz = t->rows;
    else
        u->ncy = t->rows;
    size_t window = (size_t)u->ncx * u->ncy * u->ncz;
    u->ncells = (uint32_t)window;
    *ncells = window + 1;
    return BOIDS_OK;
}

/* ---- the cells and the uniform block ------------------------------------------------------- */

static GLintptr align_up(GLintptr x, GLintptr a) {
    return (x + a - 1) / a * a;
}

/* Lays out the scan levels for ncells + 1 counts (the last, always 0, gives starts[ncells] =
 * N) and grows the cell buffers when needed. */
static boids_status ensure_cells(gpu_backend *g, size_t ncells, boids_error *err) {
    GLintptr off = 0, a = g->ssbo_align;
    size_t n = ncells + 1;
    int k = 0;
    for (;;) {
        size_t nb = (n + BOIDS_GPU_SCAN_BLOCK - 1) / BOIDS_GPU_SCAN_BLOCK;
        g->lvl_n[k] = n;
        g->lvl_out[k] = off;
        off = align_up(off + (GLintptr)(4 * n), a);
        g->lvl_sums[k] = off;
        off = align_up(off + (GLintptr)(4 * nb), a);
        k++;
        if (nb == 1) break;
        n = nb;
    }
    g->nlevels = k;
    g->ncells = ncells;
    boids_status st;
    if (off > g->scan_bytes) {
        if ((st = gpu_alloc_buffer(&g->scan, off, "the grid's prefix sums", ncells, err)))
            return st;
        g->scan_bytes = off;
    }
    if (ncells > g->cap_cells) {
        if ((st = gpu_alloc_buffer(&g->counts, (GLsizeiptr)(4 * (ncells + 1)), "the grid cells",
                                   ncells, err)))
            return st;
        g->cap_cells = ncells;
    }
    return BOIDS_OK;
}

/* The uniform block for a step under p: the rules' constants (blocks.c), the grid's fields
 * (in tile mode the window's), n, the noise's step index and the state's split; the cells
 * laid out for it. A new grid unprimes the fused variant's counts. */
boids_status gpu_set_params(gpu_backend *g, const boids_params *p, boids_error *err) {
    boids_status st = boids_gpu_check_params(p, err);
    if (st != BOIDS_OK) return st;
    boids_gpu_params u;
    boids_gpu_params_init(&u, p);
    grid_geomd gg = {0};
    st = gpu_world_grid(g, p, g->tiled ? g->tile.n_global : g->base.n, &gg, err);
    if (st != BOIDS_OK) return st;
    set_grid(&u, &gg, g->base.dim);
    size_t ncells = gg.ncells;
    if (g->tiled) {
        st = set_window(g, &u, &gg, &ncells, err);
        g->tile_grid = gg;
    }
    if (st == BOIDS_OK) st = ensure_cells(g, ncells, err);
    if (st != BOIDS_OK) return st;
    g->ncx = u.ncx;
    g->ncy = u.ncy;
    g->ncz = u.ncz;
    u.n = (uint32_t)g->base.n;
    u.step = g->t;
    u.split = (uint32_t)(g->split < g->base.n ? g->split : g->base.n);
    const float grid[4] = {(float)u.ncx, (float)u.ncy, u.inv_cell_w, u.inv_cell_h};
    if (memcmp(grid, g->primed_grid, sizeof grid) != 0) g->primed = 0;
    memcpy(g->primed_grid, grid, sizeof grid);
    glBindBuffer(GL_UNIFORM_BUFFER, g->ubo);
    glBufferSubData(GL_UNIFORM_BUFFER, 0, sizeof u, &u);
    glBindBuffer(GL_UNIFORM_BUFFER, 0);
    glBindBufferBase(GL_UNIFORM_BUFFER, BOIDS_GPU_UBO_PARAMS, g->ubo);
    gpu_set_interact(g, p);
    gpu_set_species(g, p);
    return gpu_check(g, "parameter upload", err);
}

/* ---- the counting sort -------------------------------------------------------------------- */

/* Stage 1: zeroes the cell counts, unless the fused steer took them already. */
boids_status gpu_clear_counts(gpu_backend *g, boids_error *err) {
    gpu_stage_begin(g, BOIDS_GPU_STAGE_CLEAR);
    if (!g->primed) {
        const GLuint zero = 0;
        glBindBuffer(GL_SHADER_STORAGE_BUFFER, g->counts);
        glClearBufferSubData(GL_SHADER_STORAGE_BUFFER, GL_R32UI, 0,
                             (GLsizeiptr)(4 * (g->ncells + 1)), GL_RED_INTEGER, GL_UNSIGNED_INT,
                             &zero);
        glBindBuffer(GL_SHADER_STORAGE_BUFFER, 0);
    }
    return gpu_stage_end(g, BOIDS_GPU_STAGE_CLEAR, err);
}

/* Stages 1-4 (and the sort by id): leaves the state of buffer 0 ordered by cell in
 * buffer 1, with counts and starts filled. */
boids_status gpu_sort_by_cell(gpu_backend *g, boids_error *err) {
    boids_status st;

    if ((st = gpu_clear_counts(g, err))) return st;
    gpu_stage_begin(g, BOIDS_GPU_STAGE_COUNT);
    if (!g->primed) { /* else the fused steer counted already: the stage times nothing */
        gpu_bind_src(g, 0);
        gpu_ssbo(BOIDS_GPU_B_RANK, g->rank);
        gpu_ssbo_range(BOIDS_GPU_B_COUNTS, g->counts, 0, g->ncells + 1);
        gpu_dispatch_boids(g, gpu_prog(g, P_COUNT));
    }
    if ((st = gpu_stage_end(g, BOIDS_GPU_STAGE_COUNT, err))) return st;

    gpu_stage_begin(g, BOIDS_GPU_STAGE_SCAN);
    for (int k = 0; k < g->nlevels; k++) {
        size_t nk = g->lvl_n[k];
        size_t nb = (nk + BOIDS_GPU_SCAN_BLOCK - 1) / BOIDS_GPU_SCAN_BLOCK;
        if (k == 0)
            gpu_ssbo_range(BOIDS_GPU_B_SCAN_IN, g->counts, 0, nk);
        else
            gpu_ssbo_range(BOIDS_GPU_B_SCAN_IN, g->scan, g->lvl_sums[k - 1], nk);
        gpu_ssbo_range(BOIDS_GPU_B_SCAN_OUT, g->scan, g->lvl_out[k], nk);
        gpu_ssbo_range(BOIDS_GPU_B_SCAN_SUMS, g->scan, g->lvl_sums[k], nb);
        glUseProgram(g->prog[P_SCAN]);
        glUniform1ui(0, (GLuint)nk);
        glDispatchCompute((GLuint)nb, 1, 1);
        glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
    }
    for (int k = g->nlevels - 2; k >= 0; k--) {
        size_t nk = g->lvl_n[k];
        gpu_ssbo_range(BOIDS_GPU_B_SCAN_OUT, g->scan, g->lvl_out[k], nk);
        gpu_ssbo_range(BOIDS_GPU_B_SCAN_SUMS, g->scan, g->lvl_out[k + 1], g->lvl_n[k + 1]);
        glUseProgram(g->prog[P_SCAN_ADD]);
        glUniform1ui(0, (GLuint)nk);
        glDispatchCompute(gpu_groups(nk, BOIDS_GPU_SCAN_WG), 1, 1);
        glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
    }
    if ((st = gpu_stage_end(g, BOIDS_GPU_STAGE_SCAN, err))) return st;

    /* The starts stay bound for the rest of the step. */
    gpu_ssbo_range(BOIDS_GPU_B_STARTS, g->scan, g->lvl_out[0], g->ncells + 1);

    int det = g->opt.deterministic;
    gpu_stage_begin(g, BOIDS_GPU_STAGE_SCATTER);
    gpu_bind_src(g, 0);
    gpu_bind_dst(g, det ? 2 : 1);
    gpu_ssbo(BOIDS_GPU_B_RANK, g->rank);
    gpu_dispatch_boids(g, gpu_prog(g, P_SCATTER));
    if ((st = gpu_stage_end(g, BOIDS_GPU_STAGE_SCATTER, err))) return st;

    if (det) {
        gpu_stage_begin(g, BOIDS_GPU_STAGE_SORT);
        gpu_bind_src(g, 2);
        gpu_bind_dst(g, 1);
        gpu_dispatch_boids(g, gpu_prog(g, P_SORT));
        if ((st = gpu_stage_end(g, BOIDS_GPU_STAGE_SORT, err))) return st;
    }
    return BOIDS_OK;
}

/* Tile mode, after the sort: refuses a state with boids outside the window (the cell after the
 * window's, at the end of the sorted state), naming the first, its global id and its row as
 * the host's boids_tile_row puts it (the count stage's operations, so the same row). */
boids_status gpu_check_window(gpu_backend *g, boids_error *err) {
    GLuint se[2], id;
    gpu_read(g->scan, (size_t)g->lvl_out[0] + 4 * (g->ncells - 1), sizeof se, se);
    if (se[0] == se[1]) return gpu_check(g, "tile window", err);
    float s[4];
    gpu_read(g->state[1], 16 * (size_t)se[0], sizeof s, s);
    gpu_read(g->ids[1], 4 * (size_t)se[0], sizeof id, &id);
    const grid_geomd *gg = &g->tile_grid;
    return boids_error_set(err, BOIDS_ERR_INPUT,
                           "GPU tile: boid %u (global id) is in row %u, outside the window of "
                           "%u rows from row %u (%u boids outside)",
                           id, boids_tile_row(gg, s[gg->dim - 1]), g->tile.rows, g->tile.row_lo,
                           se[1] - se[0]);
}
