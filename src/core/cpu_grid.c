/* SPDX-License-Identifier: MIT */
/* cpu: the fast CPU path, for the plane and the box (written once over the dimension D,
 * cpu_grid_impl.h). Float state in structure-of-arrays, its sorted snapshot in records, a
 * uniform grid rebuilt by a counting sort every step, OpenMP threads, and a SIMD neighbour
 * kernel.
 *
 * One step:
 *   1. cell of every boid (the previous move's, where it wrote them), per-thread counts;
 *   2. exclusive prefix sum over cells (in parallel blocks), giving each thread's write
 *      offset in each cell;
 *   3. scatter of the whole state into the snapshot buffer, ordered by cell (so the
 *      neighbours of a cell are a few contiguous ranges: the rows along x of its 3^D
 *      block), then each cell's boids ordered by id;
 *   4. for every boid, the neighbour sums over that block read from the snapshot (passes of
 *      consecutive slots), then rules_accel / rules_integrate, written into the other buffer
 *      (ping-pong): every boid decides from the same snapshot.
 *
 * Cells hold their boids in id order and each boid's sums are made by one thread over a
 * candidate order fixed by the grid, so the result is bit-identical for any number of
 * threads and whatever the order of the state in memory (a resumed run equals a straight
 * one).
 *
 * Tile mode (tile.h, boids_backend_upload_tile): the state is a window of the whole flock,
 * its boids in any order (gid: their global ids). The grid is the whole flock's
 * (grid_window_geom: cap from n_global, on the open boundary the tile's box) with the window's
 * rows along the last axis; cells hold their boids in global id order (cpu_grid_build.c) and the
 * topological ties compare global ids, and candidates come in the same offset order as in
 * the whole grid; offsets use the world's wrap of the global positions, the SIMD kernels' skip of
 * rules_wrap is decided from the global row (steer_groups); the Vicsek noise draws with the
 * global id. Only the steered rows are steered, the others copied (steered_cells). The
 * cells of a tile are computed by the scalar code (grid_tile_cells, the same cells as the AVX2
 * cell kernel's), which also refuses a boid outside the window.
 *
 * Files: this one (the backend, the per-cell steering loop and the scalar kernels, the
 * step), cpu_grid_build.c (the grid build: steps 1 to 3 and the candidate ranges of a
 * cell), cpu_grid_simd.c (the SIMD kernels, built for AVX2 and AVX-512: 8 or 16 boids at a
 * time, the scalar kernels' bits), cpu_grid_topo.c (the topological steps and the k-nearest
 * shell search), cpu_grid_threads.c (how many threads run a step, and which strips each
 * steers); cpu_grid_impl.h between them. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "cpu_grid_impl.h"
#include "cpu_grid.h"
#include "cpu_avx2.h"
#include "clock.h"

enum { PARALLEL_MIN = 2048 }; /* below this many boids, threads cost more than they save */

/* Cells along x steered as one unit of work (steer_strip): their boids fill SIMD passes
 * one after the other, a pass spanning cells where they hold fewer boids than its width.
 * In the plane a cell holds about 8 boids (25 in a formed flock), in the box (cells of R^3)
 * less than one: 32 cells (a hundred boids or more) in the plane, and in the box 128 (about
 * a row of a million boids' grid, some 80 boids), so that few passes are partial. */
#define STRIP(width) (D == 2 ? 2 * (width) : 8 * (width))

typedef struct cpu_grid {
    cpu_grid_hooks h; /* the backend and the test hooks */
    int threads;      /* resolved: >= 1 */
    state cur;        /* the state */
    snapshot snap;    /* cur sorted by cell, the step's snapshot */
    grid_cells cells; /* the grid: cur's cells, snap's cell starts (cpu_grid_build.c) */
    float *u[D];      /* Vicsek: unit heading of each snapshot slot (the sums' terms) */
    cand *cand;       /* topological: per thread, selection buffers of k entries for one boid
                         and for each of MAX_LANES lanes (grid_steer_topo) */
    size_t cand_cap;  /* entries allocated in cand */
    size_t cap;       /* boids the state buffers (cur, snap, cell_of, u) hold */
    uint32_t t;       /* steps since upload: the Vicsek noise stream's step index */
    int tiled;        /* tile mode (tile.h): the state is the window `tile` */
    boids_tile tile;  /* its gid points to gid */
    uint32_t *gid;    /* the global ids of the local boids */
    size_t gid_cap;   /* entries allocated in gid */
    int run_threads;  /* threads of the current step (or neighbours query) */
    thread_pick pick;
    strip_split split; /* which thread steers which strips (cpu_grid_threads.c) */
    grid_resident res; /* the resident tile (cpu_grid_resident.c) */
    int cells_ready;   /* cells.cell_of holds the cells of cur in grid cells_geom (the move's) */
    int uploaded;      /* no step since the last load (the thread pick does not time it) */
    geom cells_geom;
} cpu_grid;

/* In cpu_grid_resident.c: the table of operations, a resident step's next cells and end. */
static const boids_backend_ops ops;
static boids_status resident_keep(cpu_grid *c, boids_error *err);
static void resident_next(cpu_grid *c, const geom *g, const grid_win *w, cell_out *co);
static void resident_candidates(cpu_grid *c, const geom *g, const grid_win *w);
static void resident_free(grid_resident *r);

static int max_threads(void) {
#ifdef _OPENMP
    return omp_get_max_threads();
#else
    return 1;
#endif
}

/* The SIMD kernels' width: 16 (AVX-512), 8 (AVX2), or 0 (the scalar kernels). */
static int use_simd(const cpu_grid *c) {
    if (!BOIDS_AVX2 || !c->h.have_avx2 || c->h.force_scalar) return 0;
    return c->h.have_avx512 && !c->h.force_avx2 ? MAX_LANES : LANES;
}

/* ---- metric steering: one per-cell loop for both models ------------------------------ */

/* Neighbour sums of the boid in slot i of the snapshot: the rules called per candidate.
 * The sums, ranges and arrays are locals: through pointers, each int store into the sums
 * could alias the ranges' bounds and force their reload for every candidate. */
static void reynolds_scalar(const snapshot *s, const grid_k *k, const cell_group *q, uint32_t i,
                            grid_acc *out) {
    grid_acc acc;
    RULES_FN(rules_acc_init)(&acc);
    const float *const rec = s->r;
    float p[D], v[D];
    snap_get(s, i, p, v);
    const range *const r = q->r;
    const int nr = q->nr;
    for (int w = 0; w < nr; w++)
        for (uint32_t j = r[w].b, e = r[w].e; j < e; j++) {
            if (j == i) continue;
            const float *const pj = rec + (size_t)j * REC;
            float d[D];
            RULES_FN(rules_offset)(k, p, pj, d);
            const float dist2 = RULES_FN(rules_dot)(d, d);
            if (!RULES_FN(rules_sees)(k, d, dist2, v)) continue;
            RULES_FN(rules_acc_add)(k, &acc, d, dist2, pj + D);
        }
    *out = acc;
}

/* Reynolds, one group: the neighbour sums, then rules_accel / rules_integrate (all lanes
 * at once in SIMD unless the interaction table has entries). */
static inline void reynolds_group(const steer_ctx *x, const cell_group *q) {
    grid_acc acc[MAX_LANES];
#if BOIDS_AVX2
    if (x->simd && !x->k->tab) {
        (x->simd == MAX_LANES
             ? RULES_FN(grid_reynolds_move_avx512)
             : RULES_FN(grid_reynolds_move_avx2))(&x->snap, &x->out, x->k, q, x->cells);
        return;
    }
    if (x->simd)
        (x->simd == MAX_LANES ? RULES_FN(grid_reynolds_avx512)
                              : RULES_FN(grid_reynolds_avx2))(&x->snap, x->k, q, acc);
    else
#endif
        for (uint32_t l = 0; l < q->lanes; l++)
            reynolds_scalar(&x->snap, x->k, q, q->i0 + l, &acc[l]);
    for (uint32_t l = 0; l < q->lanes; l++) {
        const uint32_t i = q->i0 + l;
        float p[D], v[D];
        snap_get(&x->snap, i, p, v);
        grid_move(x->k, &acc[l], p, v);
        state_put(&x->out, i, p, v);
    }
}

/* Unit heading of every snapshot slot, computed once per step (grid_unit: a resting boid
 * adds nothing, 0, which leaves a sum unchanged since sums start at +0). */
static void unit_headings(cpu_grid *c, int threads) {
    const snapshot snap = c->snap;
    float *const *const u = c->u;
    const long n = (long)c->h.base.n;
#pragma omp parallel for schedule(static) num_threads(threads) if (threads > 1)
    for (long i = 0; i < n; i++) {
        float p[D], v[D], h[D];
        snap_get(&snap, (uint32_t)i, p, v);
        grid_unit(v, h);
        for (int a = 0; a < D; a++) u[a][i] = h[a];
    }
}

/* Vicsek heading sum of the boid in slot i over the candidate ranges, itself included
 * (the 3^D block holds every pair with float dist2 <= R^2). */
static void vicsek_scalar(const steer_ctx *x, const cell_group *q, uint32_t i, float sum[D],
                          int32_t *ocnt) {
    const snapshot *const s = &x->snap;
    float d[D], acc[D], ui[D], uj[D];
    const float *const p = snap_rec(s, i);
    for (int a = 0; a < D; a++) acc[a] = 0, ui[a] = x->u[a][i];
    const range *const r = q->r;
    const int nr = q->nr;
    int32_t n = 0;
    for (int w = 0; w < nr; w++)
        for (uint32_t j = r[w].b, e = r[w].e; j < e; j++) {
            if (j != i) {
                RULES_FN(rules_offset)(x->k, p, snap_rec(s, j), d);
                if (!(RULES_FN(rules_dot)(d, d) <= x->k->vision2)) continue;
            }
            for (int a = 0; a < D; a++) uj[a] = x->u[a][j];
            RULES_FN(vicsek_term)(x->k, ui, uj, acc); /* += uj, or signed by ui (nematic) */
            n++;
        }
    for (int a = 0; a < D; a++) sum[a] = acc[a];
    *ocnt = n;
}

/* Vicsek, one group: the heading sums, then the moves. */
static inline void vicsek_group(const steer_ctx *x, const cell_group *q) {
    float sum[D][MAX_LANES];
    int32_t cnt[MAX_LANES];
#if BOIDS_AVX2
    if (x->simd && !x->k->nematic) /* the kernels sum polar headings; nematic: scalar */
        (x->simd == MAX_LANES ? RULES_FN(grid_vicsek_avx512)
                              : RULES_FN(grid_vicsek_avx2))(&x->snap, x->u, x->k, q, sum, cnt);
    else
#endif
        for (uint32_t l = 0; l < q->lanes; l++) {
            float s[D];
            vicsek_scalar(x, q, q->i0 + l, s, &cnt[l]);
            for (int a = 0; a < D; a++) sum[a][l] = s[a];
        }
    for (uint32_t l = 0; l < q->lanes; l++) {
        float s[D];
        for (int a = 0; a < D; a++) s[a] = sum[a][l];
        vicsek_move(&x->snap, &x->out, x->k, x->p, x->t, x->gid, q->i0 + l, s, cnt[l]);
    }
}

/* The boids of a group: the SIMD kernels' width, or LANES for the scalar ones. */
static inline uint32_t group_width(const steer_ctx *x) {
    return x->simd ? (uint32_t)x->simd : LANES;
}

/* Steers the boids in slots [b, e) of the snapshot, in groups of up to its width that share the
 * candidate ranges r of their cell (or run of span cells along x from coordinates k). The
 * model is a branch per group to a kernel inlined here (no call through a pointer). */
static void steer_groups(const steer_ctx *x, const geom *g, const range *r, int nr,
                         const uint32_t k[D], uint32_t span, uint32_t b, uint32_t e, int vicsek) {
    if (x->ks) {
        species_group(x, &(cell_group){r, nr, {0}, b, e - b}, vicsek);
        return;
    }
    cell_group q = {r, nr, {0}, 0, 0};
    group_wraps(g, x->win, k, span, q.wrap);
    const uint32_t width = group_width(x);
    for (q.i0 = b; q.i0 < e; q.i0 += width) {
        q.lanes = e - q.i0 < width ? e - q.i0 : width;
        if (x->cand)
            topo_group(x, g, &q, k, span);
        else if (vicsek)
            vicsek_group(x, &q);
        else
            reynolds_group(x, &q);
    }
}

/* Whether the cells ca .. cb along x (of one row) may share a group: the rows of their run's
 * block (grid_cell_ranges' span) list each cell once, which fails only where a periodic row
 * has fewer than 5 cells or the run reaches both ends' columns (the block of a run from
 * column 0 takes the last column, that of a run to the last column takes column 0). The
 * extra columns change no boid's sums: they are two cells or more from the boids of the
 * other cells, more than R away (grid_geom.h), also across the seam, so every boid accepts
 * the same neighbours, in the same order (row by row, slot by slot); offsets take rules_wrap
 * where a cell of the run needs it (steer_groups), which changes none that does not. */
static int run_ok(const geom *g, uint32_t ca, uint32_t cb) {
    const uint32_t n = g->n[0];
    if (ca == cb || !g->wrap) return 1;
    return n >= 5 && !(ca == 0 && cb + 2 >= n) && !(cb + 1 == n && ca <= 1);
}

/* Steers the boids of the len cells from coordinates k along x, in passes of the width
 * over consecutive slots: a pass takes the next boids in slot order, whatever their cells,
 * and scans the block of the run of cells it spans (run_ok's condition: where the run may
 * not span them, the pass ends at the last cell it may span, or with its first cell). A
 * pass that spans cells scans a few more candidates than one cell's block, for fewer
 * partial passes (their candidates scanned, and their move made, for a few lanes). Which
 * boids share a pass changes no boid's sums. */
static void steer_strip(const steer_ctx *x, const geom *g, const uint32_t *start,
                        const uint32_t k[D], uint32_t len, int vicsek) {
    const size_t c0 = cell_index(g, k);
    const uint32_t *const st = start + c0; /* the strip's cell starts */
    range r[MAX_RANGES];
    uint32_t kc[D];
    for (int a = 0; a < D; a++) kc[a] = k[a];
    const uint32_t width = group_width(x), end = st[len] < x->slot_hi ? st[len] : x->slot_hi;
    uint32_t q = 0; /* the cell of slot i */
    for (uint32_t i = st[0] > x->slot_lo ? st[0] : x->slot_lo; i < end;) {
        while (st[q + 1] <= i) q++;
        uint32_t e = end - i < width ? end : i + width, qb = q; /* qb: the cell of slot e - 1 */
        while (st[qb + 1] < e) qb++;
        if (!run_ok(g, k[0] + q, k[0] + qb)) {
            while (!run_ok(g, k[0] + q, k[0] + qb)) qb--; /* a few columns back at most */
            e = st[qb + 1];
        }
        kc[0] = k[0] + q;
        const uint32_t span = qb - q + 1;
        steer_groups(x, g, r, RULES_FN(grid_cell_ranges)(g, x->win, start, kc, span, r), kc, span,
                     i, e, vicsek);
        i = e;
    }
}

/* The cells [*c0, *c1) whose boids a step moves, and their slots [*s0, *s1): all of them, or
 * in tile mode those of the steered rows [steer_lo, steer_hi) less the cells skipped at their
 * ends (a row along the last axis is ncells / n[D-1] cells; grid_window_geom checked the
 * skips) and the boids of the end cells outside the ids (id_lo, id_hi: each cell holds its
 * boids in global id order). */
static void steered_slots(const cpu_grid *c, const geom *g, size_t *c0, size_t *c1, uint32_t *s0,
                          uint32_t *s1) {
    *c0 = 0, *c1 = g->ncells;
    if (c->tiled) boids_tile_steered_cells(&c->tile, g->ncells / g->n[D - 1], "cpu", c0, c1, NULL);
    const uint32_t *const start = c->cells.start;
    *s0 = start[*c0], *s1 = start[*c1];
    if (!c->tiled || *c0 == *c1) return;
    if (c->tile.id_lo)
        *s0 = boids_tile_slot_from(c->snap.id, c->gid, *s0, start[*c0 + 1], c->tile.id_lo);
    if (c->tile.id_hi)
        *s1 = boids_tile_slot_from(c->snap.id, c->gid, start[*c1 - 1], *s1, c->tile.id_hi);
    if (*s1 < *s0) *s1 = *s0; /* one cell cut at both ends */
}

/* steered_slots; the other slots' boids keep their state: copied from snap into cur. */
static void steered_cells(cpu_grid *c, const geom *g, size_t *c0, size_t *c1, uint32_t *s0,
                          uint32_t *s1) {
    steered_slots(c, g, c0, c1, s0, s1);
    if (!c->tiled) return;
    const size_t b = c->res.keep_b = *s0, e = c->res.keep_e = *s1, n = c->h.base.n;
    if (c->res.on) return;                      /* a resident tile drops its halo */
    const size_t kept[2][2] = {{0, b}, {e, n}}; /* the slots before and after the steered */
    for (int k = 0; k < 2; k++)
        for (size_t i = kept[k][0]; i < kept[k][1]; i++) {
            float p[D], v[D];
            snap_get(&c->snap, (uint32_t)i, p, v);
            state_put(&c->cur, (uint32_t)i, p, v);
        }
}

/* Whether this step's move can write the cells of the new state for the next step's build:
 * the SIMD Reynolds move of every boid (metric, no interaction table) of a whole flock in
 * the world's grid (or of a resident tile, for its next count: resident_next), which the
 * next step keeps unless the parameters change (on the open boundary the grid follows the
 * flock: not there). */
static int next_cells(const cpu_grid *c, const geom *g, const boids_params *p, const grid_k *k,
                      int simd) {
    int ok = BOIDS_AVX2 && simd && !k->tab && (!c->tiled || c->res.on) &&
             p->model == BOIDS_MODEL_REYNOLDS && p->boundary != BOIDS_BOUNDARY_OPEN;
    for (int a = 0; a < D; a++) ok = ok && g->n[a] <= INT32_MAX;
    return ok;
}

/* Metric neighbours, either model, and topological ones with the SIMD kernels and one
 * species (topo_group): steers every boid of the snapshot (in tile mode those of the steered
 * rows) and writes the new state into cur, slot for slot. The one per-cell loop: strips of
 * STRIP cells along x in parallel (steer_strip), each cell's candidate ranges found once, its
 * boids in groups of the width that share them. Which boids share a group changes no boid's
 * sums, so neither does the grouping nor the thread count. */
static void steer_strips(cpu_grid *c, const geom *g, const grid_win *win, const grid_k *k,
                         const boids_params *p) {
    grid_k ks[BOIDS_MAX_SPECIES]; /* species: scalar, each species' constants */
    if (p->species > 1) RULES_FN(rules_k_species)(ks, k, p);
    const int simd = p->species > 1 ? 0 : use_simd(c);
    const int topo = p->neighbours == BOIDS_NEIGHBOURS_TOPOLOGICAL;
    cell_out co = cell_out_of(g, c->cells.cell_of);
    const int next = !topo && next_cells(c, g, p, k, simd);
    if (next && c->tiled) resident_next(c, g, win, &co); /* the cells in the whole grid */
    if ((c->cells_ready = next && !c->tiled)) c->cells_geom = *g;
    steer_ctx x = {c->snap,
                   c->cur,
                   c->u,
                   k,
                   p,
                   c->t,
                   simd,
                   win,
                   c->tiled ? c->gid : NULL,
                   next ? &co : NULL,
                   p->species > 1 ? ks : NULL,
                   c->cells.start,
                   topo ? c->cand : NULL,
                   0,
                   0};
    const int vicsek = p->model == BOIDS_MODEL_VICSEK;
    size_t c0, c1;
    steered_cells(c, g, &c0, &c1, &x.slot_lo, &x.slot_hi);
    const uint32_t strip = STRIP(group_width(&x));
    const size_t per_row = (g->n[0] + strip - 1) / strip;
    /* The strips that hold the cells [c0, c1): those at the ends are cut to them below. */
    const size_t w0 = per_row * (c0 / g->n[0]) + c0 % g->n[0] / strip;
    const size_t w1 =
        c1 > c0 ? per_row * ((c1 - 1) / g->n[0]) + (c1 - 1) % g->n[0] / strip + 1 : w0;
    const uint32_t *const start = c->cells.start;
    const int threads = c->run_threads;
    strip_split *const sp = &c->split;
    const strip_map m = {start, per_row, g->n[0], strip};
    if (threads > 1) split_begin(sp, threads, w0, w1, &m);
    if (threads > 1 && c->h.skew_split) split_skew(sp, c->t);
#pragma omp parallel num_threads(threads) if (threads > 1)
    {
        const int t = thread_num(), nt = num_threads(), mine = nt > 1 && nt == sp->n;
        const size_t a = mine ? sp->at[t] : w0 + (w1 - w0) * (size_t)t / (size_t)nt;
        const size_t e = mine ? sp->at[t + 1] : w0 + (w1 - w0) * (size_t)(t + 1) / (size_t)nt;
        const double t0 = mine ? mono_seconds() : 0;
        for (size_t w = a; w < e; w++) {
            uint32_t k[D];
            const size_t line = w / per_row * g->n[0]; /* the cell at the line's x = 0 */
            cell_coords(g, line, k);
            k[0] = (uint32_t)(w % per_row) * strip;
            uint32_t len = g->n[0] - k[0] < strip ? g->n[0] - k[0] : strip;
            if (line + k[0] < c0) len -= (uint32_t)(c0 - line) - k[0], k[0] = (uint32_t)(c0 - line);
            if (line + k[0] + len > c1) len = (uint32_t)(c1 - line) - k[0];
            steer_strip(&x, g, start, k, len, vicsek);
        }
        if (mine) sp->sec[t] = mono_seconds() - t0;
    }
    if (threads > 1 && sp->n == threads) split_cut(sp, &m, c->h.base.n, &c->cells);
}

/* Topological neighbours without the SIMD kernels or with species (cpu_grid_topo.c): in tile
 * mode the steered rows. */
static void steer_topo(cpu_grid *c, const geom *g, const grid_win *win, const grid_k *k,
                       const boids_params *p) {
    steer_ctx x = {
        c->snap, c->cur, c->u,           k,    p, c->t, use_simd(c), win, c->tiled ? c->gid : NULL,
        NULL,    NULL,   c->cells.start, NULL, 0, 0};
    size_t c0, c1;
    steered_cells(c, g, &c0, &c1, &x.slot_lo, &x.slot_hi);
    RULES_FN(grid_steer_topo)(&x, g, c0, c1, c->cand, c->run_threads);
}

/* ---- step ------------------------------------------------------------------------- */

static boids_status tile_geom(const boids_backend *b, const boids_params *p, const boids_tile *t,
                              grid_geomd *g, boids_error *err) {
    (void)b;
    return RULES_FN(grid_whole_geom)(p, t, g, err);
}

/* The grid of the step: cur sorted by cell into snap (cpu_grid_build.c). */
static void grid_build(cpu_grid *c, const geom *g, int threads) {
    const int have = c->tiled || (c->cells_ready && same_geom(&c->cells_geom, g));
    RULES_FN(grid_build)
    (&c->cells, &c->cur, &c->snap, c->h.base.n, have, c->tiled ? c->gid : NULL, g, use_simd(c),
     threads);
    c->cells_ready = 0; /* until a move writes them */
}

/* Grid geometry for the current state (on the open boundary it follows the flock; in tile
 * mode the window's) and the rows it numbers, room for it; also the topological selection
 * buffers. */
static boids_status prepare(cpu_grid *c, const boids_params *p, geom *g, grid_win *w,
                            int *build_threads, boids_error *err) {
    boids_status st;
    if (c->tiled) {
        st = RULES_FN(grid_window_geom)(&c->tile, p, g, w, err);
    } else {
        grid_boxd bb;
        const int open = p->boundary == BOIDS_BOUNDARY_OPEN;
        if (open) bb = RULES_FN(grid_flock_box)(&c->cur, c->h.base.n, c->run_threads);
        st = boids_grid_geomd_init(g, D, p, open ? &bb : NULL, boids_grid_geom_cap(c->h.base.n),
                                   err);
        *w = (grid_win){0, g->n[D - 1], g->wrap};
    }
    if (st) return st;
    if (p->neighbours == BOIDS_NEIGHBOURS_TOPOLOGICAL) {
        if (p->k < 1 || p->k > 1000)
            return boids_error_set(err, BOIDS_ERR_INPUT, "cpu: k = %ld is outside [1, 1000]", p->k);
        size_t need = (size_t)c->threads * (size_t)p->k * (MAX_LANES + 1);
        if (need > c->cand_cap) {
            cand *b = realloc(c->cand, need * sizeof *b);
            if (!b)
                return boids_error_set(err, BOIDS_ERR_NOMEM,
                                       "cpu: out of memory for the k = %ld selection", p->k);
            c->cand = b;
            c->cand_cap = need;
        }
    }
    return RULES_FN(grid_reserve)(&c->cells, g, c->h.base.n, c->run_threads, build_threads, err);
}

/* What a step and a neighbours query begin with: prepare, then the constants of p with
 * the interaction table in (NULL: none) into k and tab. */
static boids_status begin(cpu_grid *c, const boids_params *p, const boids_interact *in, geom *g,
                          grid_win *w, int *build_threads, grid_k *k, grid_table *tab,
                          boids_error *err) {
    boids_status st = prepare(c, p, g, w, build_threads, err);
    if (!st) grid_k_init(k, tab, p, in);
    return st;
}

static boids_status step(boids_backend *b, const boids_params *p, unsigned steps,
                         boids_error *err) {
    cpu_grid *c = (cpu_grid *)b;
    const int open = p->boundary == BOIDS_BOUNDARY_OPEN;
    const int vicsek = p->model == BOIDS_MODEL_VICSEK;
    const int topo = p->neighbours == BOIDS_NEIGHBOURS_TOPOLOGICAL;
    const int parallel = c->threads > 1 && b->n >= PARALLEL_MIN;
    const int adapt = parallel && !c->h.fixed_threads;
    c->run_threads = parallel ? c->threads : 1; /* room for the most threads */
    geom g;
    grid_win w;
    int build_threads;
    grid_k k;
    grid_table tab;
    boids_status st = begin(c, p, &b->inter, &g, &w, &build_threads, &k, &tab, err);
    if (st) return st;
    /* backend.c steps a tile once per upload: its whole flock's box does not follow. */
    for (unsigned s = 0; s < steps; s++, c->t++) {
        const int all = parallel && (!adapt || pick_all(&c->pick));
        const double t0 = adapt ? mono_seconds() : 0;
        c->run_threads = all ? c->threads : 1;
        c->split.excess = 0; /* until a steering on the cut measures it */
        if (open && s > 0 && (st = prepare(c, p, &g, &w, &build_threads, err))) return st;
        if (c->tiled &&
            (st = RULES_FN(grid_tile_cells)(&c->cells, &c->cur, b->n, c->res.known, &c->tile, &g,
                                            &w, use_simd(c), c->run_threads, err)))
            return st;
        c->res.known = 0; /* cell_of holds cells now */
        grid_build(c, &g, build_threads < c->run_threads ? build_threads : c->run_threads);
        if (c->res.on) resident_candidates(c, &g, &w);
        if (vicsek) unit_headings(c, c->run_threads);
        if (topo && !(BOIDS_AVX2 && use_simd(c) && p->species <= 1))
            steer_topo(c, &g, &w, &k, p);
        else
            steer_strips(c, &g, &w, &k, p);
        /* Judged as if the steering's cut were even, which it will be (strip_split); and not
         * the first step after an upload: it pays for the state's new order and, in a new
         * backend, for the kernel's first touch of its buffers (100 ms at 1M boids against
         * 35), which would make that step's thread count lose the next try. */
        if (adapt && !c->uploaded)
            pick_record(&c->pick, all, mono_seconds() - t0 - c->split.excess);
        c->uploaded = 0;
        /* cur now holds the new state in the snapshot's slot order: its ids are snap's. */
        uint32_t *id = c->cur.id;
        c->cur.id = c->snap.id;
        c->snap.id = id;
    }
    return c->res.on ? resident_keep(c, err) : BOIDS_OK;
}

/* ---- neighbours, download, upload ---------------------------------------------------- */

static boids_status neighbours(boids_backend *b, const boids_params *p, uint32_t *count,
                               uint64_t *set_hash, boids_error *err) {
    cpu_grid *c = (cpu_grid *)b;
    c->run_threads = b->n >= PARALLEL_MIN ? c->threads : 1;
    geom g;
    grid_win w;
    int build_threads;
    grid_k k;
    grid_table tab;
    boids_status st = prepare(c, p, &g, &w, &build_threads, err);
    if (st) return st;
    grid_k_init(&k, &tab, p, NULL); /* the neighbours of the rules, without the table */
    grid_k ks[BOIDS_MAX_SPECIES];   /* species: each boid by its species' radius */
    if (p->species > 1) RULES_FN(rules_k_species)(ks, &k, p);
    grid_build(c, &g, build_threads); /* fills snap only: the state in cur is unchanged */
    const snapshot s = c->snap;
    const uint32_t *const start = c->cells.start;
    const int vicsek = p->model == BOIDS_MODEL_VICSEK;
    const int topo = p->neighbours == BOIDS_NEIGHBOURS_TOPOLOGICAL;
    const uint32_t kmax = topo ? (uint32_t)p->k : 0;
    cand *const buf = c->cand;
    const int threads = c->run_threads;
    const long chunk = (long)cell_chunk(g.ncells, threads);
#pragma omp parallel num_threads(threads) if (threads > 1)
    {
        topo_q q = {&s,
                    &k,
                    kmax,
                    vicsek,
                    p->k_in_vision != 0,
                    &w,
                    0,
                    topo ? buf + (size_t)thread_num() * kmax : NULL,
                    0,
                    NULL};
#pragma omp for schedule(dynamic, chunk)
        for (size_t cell = 0; cell < g.ncells; cell++) {
            const uint32_t b0 = start[cell], b1 = start[cell + 1];
            if (b0 == b1) continue;
            uint32_t kc[D];
            cell_coords(&g, cell, kc);
            range r[MAX_RANGES];
            const int nr = RULES_FN(grid_cell_ranges)(&g, &w, start, kc, 1, r);
            for (uint32_t i = b0; i < b1; i++) {
                uint32_t n = 0;
                uint64_t h = 0;
                const grid_k *ki =
                    p->species > 1 ? &ks[RULES_FN(rules_species_of)(ks, s.id[i])] : &k;
                if (topo) {
                    q.i = i, q.k = ki;
                    RULES_FN(grid_topo_select)(&q, &g, start, kc);
                    for (uint32_t a = 0; a < q.m; a++)
                        h += boids_neighbour_set_hash((uint32_t)q.best[a].id);
                    n = q.m;
                } else {
                    float x[D], v[D];
                    snap_get(&s, i, x, v);
                    for (int w = 0; w < nr; w++)
                        for (uint32_t j = r[w].b; j < r[w].e; j++) {
                            if (j == i) continue;
                            float xj[D], vj[D], d[D];
                            snap_get(&s, j, xj, vj);
                            RULES_FN(rules_offset)(ki, x, xj, d);
                            const float dist2 = RULES_FN(rules_dot)(d, d);
                            if (vicsek ? !(dist2 <= ki->vision2)
                                       : !RULES_FN(rules_sees)(ki, d, dist2, v))
                                continue;
                            n++;
                            h += boids_neighbour_set_hash(s.id[j]);
                        }
                }
                count[s.id[i]] = n;
                set_hash[s.id[i]] = h;
            }
        }
    }
    return BOIDS_OK;
}

/* The flock's position and velocity arrays, axis by axis. */
static void flock_axes(const boids_flock *f, double *p[D], double *v[D]) {
    double *const fp[3] = {f->x, f->y, f->z}, *const fv[3] = {f->vx, f->vy, f->vz};
    for (int a = 0; a < D; a++) p[a] = fp[a], v[a] = fv[a];
}

static boids_status download(boids_backend *b, boids_flock *out, boids_error *err) {
    cpu_grid *c = (cpu_grid *)b;
    if (out->n != b->n)
        return boids_error_set(err, BOIDS_ERR_INPUT, "download: flock has %zu boids, backend %zu",
                               out->n, b->n);
    double *p[D], *v[D];
    flock_axes(out, p, v);
    const state s = c->cur;
    for (size_t i = 0; i < b->n; i++) {
        const uint32_t id = s.id[i];
        for (int a = 0; a < D; a++) p[a][id] = s.p[a][i], v[a][id] = s.v[a][i];
    }
    out->step = c->t;
    return BOIDS_OK;
}

/* Bytes per boid: two states, the cell of each slot, the unit headings. */
enum {
    PER_BOID = 2 * (2 * D * sizeof(float) + sizeof(uint32_t)) + sizeof(uint32_t) + D * sizeof(float)
};

/* Makes the state buffers hold n boids or more; keeps them when they do (spare: a tile is
 * uploaded every step, its size changing a little, so room for an eighth more then). */
static boids_status reserve(cpu_grid *c, size_t n, int spare, boids_error *err) {
    if (n <= c->cap) return BOIDS_OK;
    /* Ids and cell starts are 32-bit: they halve the memory traffic of the sort. */
    if (n >= UINT32_MAX || n > SIZE_MAX / PER_BOID)
        return boids_error_set(err, BOIDS_ERR_LIMIT,
                               "cpu: %zu boids is beyond this path's limit of %u", n,
                               (unsigned)(UINT32_MAX - 1));
    const size_t cap =
        spare && n + n / 8 < UINT32_MAX && n + n / 8 <= SIZE_MAX / PER_BOID ? n + n / 8 : n;
    state cur;
    snapshot snap;
    uint32_t *cell_of = malloc(cap * sizeof *cell_of);
    float *unit = malloc(D * cap * sizeof *unit);
    const int ok = states_alloc(&cur, &snap, cap);
    if (!cell_of || !unit || !ok) {
        free(cell_of);
        free(unit);
        if (ok) states_free(&cur, &snap);
        return boids_error_set(err, BOIDS_ERR_NOMEM, "cpu: out of memory for %zu boids (%zu MiB)",
                               n, cap * PER_BOID >> 20);
    }
    states_free(&c->cur, &c->snap);
    free(c->cells.cell_of);
    free(c->u[0]);
    c->cur = cur;
    c->snap = snap;
    c->cells.cell_of = cell_of;
    for (int a = 0; a < D; a++) c->u[a] = unit + (size_t)a * cap;
    c->cap = cap;
    return BOIDS_OK;
}

/* The state of flock in (local ids 0 .. n - 1), into buffers that hold it. */
static boids_status load(cpu_grid *c, const boids_flock *in, int spare, boids_error *err) {
    const size_t n = in->n;
    if (n == 0)
        return boids_error_set(err, BOIDS_ERR_INPUT, "cpu: a flock needs at least one boid");
    boids_status st = reserve(c, n, spare, err);
    if (st) return st;
    double *p[D], *v[D];
    flock_axes(in, p, v);
    const state cur = c->cur;
    for (size_t i = 0; i < n; i++) {
        for (int a = 0; a < D; a++) cur.p[a][i] = (float)p[a][i], cur.v[a][i] = (float)v[a][i];
        cur.id[i] = (uint32_t)i;
    }
    c->h.base.n = n;
    c->cells_ready = 0;
    c->cells.cut_n = 0; /* new slots: an even share until a step cuts them */
    c->uploaded = 1;
    c->t = in->step; /* the noise stream goes on from the state's step, as in cpu-ref */
    return BOIDS_OK;
}

static boids_status upload(boids_backend *b, const boids_flock *in, boids_error *err) {
    cpu_grid *c = (cpu_grid *)b;
    boids_status st = load(c, in, 0, err);
    if (!st) c->tiled = c->res.on = 0, c->res.known = c->res.next = 0;
    return st;
}

/* Tile mode: the window's boids with their global ids (backend.c checked t). */
static boids_status upload_tile(boids_backend *b, const boids_flock *in, const boids_tile *t,
                                boids_error *err) {
    cpu_grid *c = (cpu_grid *)b;
    if (in->n > c->gid_cap) {
        uint32_t *g = realloc(c->gid, in->n * sizeof *g);
        if (!g)
            return boids_error_set(err, BOIDS_ERR_NOMEM, "cpu: out of memory for %zu ids", in->n);
        c->gid = g;
        c->gid_cap = in->n;
    }
    boids_status st = load(c, in, 1, err);
    if (st) return st;
    memcpy(c->gid, t->gid, in->n * sizeof *c->gid);
    c->tile = *t;
    c->tile.gid = c->gid;
    c->tiled = 1;
    c->res.on = 0;
    c->res.known = c->res.next = 0;
    return BOIDS_OK;
}

static void destroy(boids_backend *b) {
    cpu_grid *c = (cpu_grid *)b;
    states_free(&c->cur, &c->snap);
    free(c->cells.cell_of);
    free(c->u[0]);
    free(c->cand);
    free(c->gid);
    free(c->cells.start);
    free(c->cells.hist);
    free(c->cells.block);
    free(c->cells.cut);
    split_free(&c->split);
    resident_free(&c->res);
    free(c);
}

boids_backend *RULES_FN(cpu_grid_create)(const boids_flock *initial, int threads,
                                         boids_error *err) {
    cpu_grid *c = calloc(1, sizeof *c);
    if (!c) {
        boids_error_set(err, BOIDS_ERR_NOMEM, "out of memory");
        return NULL;
    }
    c->h.base.ops = &ops;
    c->h.base.dim = D;
    c->h.have_avx2 = cpu_has_avx2();
    c->h.have_avx512 = cpu_has_avx512();
    c->threads = threads > 0 ? threads : max_threads();
    if (c->threads < 1) c->threads = 1;
    c->run_threads = 1;
    c->pick = (thread_pick){{-1, -1}, 1, PROBE_MIN, PROBE_MIN};
    c->cells.block = malloc((size_t)c->threads * sizeof *c->cells.block);
    c->cells.cut = malloc(((size_t)c->threads + 1) * sizeof *c->cells.cut);
    if (!c->cells.block || !c->cells.cut || !split_alloc(&c->split, c->threads)) {
        destroy(&c->h.base);
        boids_error_set(err, BOIDS_ERR_NOMEM, "out of memory");
        return NULL;
    }
    if (upload(&c->h.base, initial, err)) {
        destroy(&c->h.base);
        return NULL;
    }
    return &c->h.base;
}

int RULES_FN(cpu_grid_is)(const boids_backend *b) {
    return b && b->ops == &ops;
}
