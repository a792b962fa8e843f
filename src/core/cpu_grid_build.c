/* SPDX-License-Identifier: MIT */
/* cpu: the grid build, the cell list of one step (cpu_grid_impl.h, over the dimension D).
 * The grid's geometry for the state (the world's, the flock's box on the open boundary, a
 * tile's window), the cell of every boid, per-thread histograms of the cells, their prefix
 * sum and the scatter of the state into the snapshot in cell order, each cell's boids in id
 * order; and the candidate ranges of a cell, the rows of its 3^D block. The steering
 * (cpu_grid.c) and the k-nearest selection (cpu_grid_topo.c) read the snapshot through the
 * cell starts made here. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_grid_impl.h"

/* Per-thread histogram entries allowed whatever N (grid_reserve); the cells a thread may
 * list as scattered to outside its own (grid_build: beyond them every cell is ordered). */
enum { HIST_MIN_BUDGET = 1 << 20, FOREIGN_CAP = 4096, LARGE_CELL = 256 };

/* The distinct coordinates around c on an axis of n cells, in ascending offset order: all
 * of them for n <= 3, else c - 1, c, c + 1 (periodically under wrap, clipped otherwise).
 * Returns how many (<= 3). */
static int axis_cells(int wrap, uint32_t c, uint32_t n, uint32_t out[3]) {
    int m = 0;
    if (n <= 3) {
        for (uint32_t v = 0; v < n; v++) out[m++] = v;
    } else if (wrap) {
        out[m++] = c == 0 ? n - 1 : c - 1;
        out[m++] = c;
        out[m++] = c + 1 == n ? 0 : c + 1;
    } else {
        for (uint32_t v = c == 0 ? 0 : c - 1; v <= c + 1 && v < n; v++) out[m++] = v;
    }
    return m;
}

/* The candidate slots of the cells k .. k + (span - 1) along x: the rows along x of their
 * 3^D block as contiguous ranges of the snapshot, rows in (z,) y order, each cell visited
 * once even when an axis has less than 3 cells, empty ranges dropped and adjacent ones
 * merged (which keeps the visiting order). This order is the summation order of every boid
 * of the cells. A span above 1 only for cells that run_ok admits (see steer_strip).
 * Returns the number of ranges (<= MAX_RANGES). */
int RULES_FN(grid_cell_ranges)(const geom *g, const grid_win *w, const uint32_t *start,
                               const uint32_t k[D], uint32_t span, range r[MAX_RANGES]) {
    uint32_t rows[D][3];
    int nrow[D], idx[D];
    for (int a = 1; a < D; a++) {
        nrow[a] = axis_cells(grid_axis_wraps(g, w, a), k[a], g->n[a], rows[a]);
        idx[a] = 0;
    }
    const uint32_t cx = k[0], ncx = g->n[0];
    uint32_t cols[2][2], ncols = 0; /* column intervals [a, b) */
    if (ncx <= 3) {
        cols[0][0] = 0;
        cols[0][1] = ncx;
        ncols = 1;
    } else if (g->wrap && cx == 0) {
        cols[0][0] = ncx - 1;
        cols[0][1] = ncx;
        cols[1][0] = 0;
        cols[1][1] = span + 1;
        ncols = 2;
    } else if (g->wrap && cx + span == ncx) {
        cols[0][0] = cx - 1;
        cols[0][1] = ncx;
        cols[1][0] = 0;
        cols[1][1] = 1;
        ncols = 2;
    } else {
        cols[0][0] = cx == 0 ? 0 : cx - 1;
        cols[0][1] = cx + span + 1 < ncx ? cx + span + 1 : ncx;
        ncols = 1;
    }
    int nr = 0;
    for (;;) {
        size_t row = 0;
        for (int a = D - 1; a >= 1; a--) row = row * g->n[a] + rows[a][idx[a]];
        row *= ncx;
        for (uint32_t c = 0; c < ncols; c++)
            nr = grid_range_add(r, nr, start[row + cols[c][0]], start[row + cols[c][1]]);
        int a = 1;
        for (; a < D; a++) {
            if (++idx[a] < nrow[a]) break;
            idx[a] = 0;
        }
        if (a == D) break;
    }
    return nr;
}

/* ---- the state buffers -------------------------------------------------------------- */

/* The state and the snapshot in one block each: 2 D floats a boid (the state's arrays, the
 * snapshot's records), then the ids (both 4-byte types). A step swaps their ids, so both
 * blocks are freed together. */
static void states_free(state *cur, snapshot *snap) {
    free(cur->p[0]);
    free(snap->r);
    memset(cur, 0, sizeof *cur);
    memset(snap, 0, sizeof *snap);
}

static int states_alloc(state *cur, snapshot *snap, size_t n) {
    const size_t bytes = n * 2 * D * sizeof(float) + n * sizeof(uint32_t);
    float *block = malloc(bytes), *rec = malloc(bytes);
    if (!block || !rec) {
        free(block), free(rec);
        return 0;
    }
    for (int a = 0; a < D; a++) {
        cur->p[a] = block + (size_t)a * n;
        cur->v[a] = block + (size_t)(D + a) * n;
    }
    cur->id = (uint32_t *)(void *)(block + 2 * D * n);
    snap->r = rec;
    snap->id = (uint32_t *)(void *)(rec + 2 * D * n);
    return 1;
}

/* ---- grid build: counting sort of cur into snap ----------------------------------- */

boids_status RULES_FN(grid_reserve)(grid_cells *gc, const geom *g, size_t n, int threads,
                                    int *build_threads, boids_error *err) {
    const size_t nc = g->ncells;
    boids_status st = grid_reserve_starts(&gc->start, &gc->start_cap, nc, err);
    if (st) return st;
    /* Each build thread has its own histogram: limit their number so that the histograms
     * stay within a few times the state's size. */
    int t = threads;
    size_t budget = n * 4 > HIST_MIN_BUDGET ? n * 4 : HIST_MIN_BUDGET;
    while (t > 1 && (size_t)t * nc > budget) t--;
    size_t need = (size_t)t * (nc + FOREIGN_CAP + 1); /* the histograms, then the lists */
    if (need > gc->hist_cap) {
        uint32_t *h = realloc(gc->hist, need * sizeof *h);
        if (!h)
            return boids_error_set(err, BOIDS_ERR_NOMEM, "cpu: out of memory for %zu cells", nc);
        gc->hist = h;
        gc->hist_cap = need;
    }
    *build_threads = t;
    return BOIDS_OK;
}

/* The id a boid is ordered by: its own, or in tile mode its global one (gid[id]), so that a
 * window may hold its boids in any order and still sum them as the whole flock does. */
static inline uint32_t order_key(const uint32_t *gid, uint32_t id) {
    return gid ? gid[id] : id;
}

/* Moves the boid of snapshot slot i down to its place by id (order_key) among slots [b, i),
 * which are in id order. */
static void insert_by_id(const snapshot *s, const uint32_t *gid, uint32_t b, uint32_t i) {
    const uint32_t id = s->id[i], key = order_key(gid, id);
    float r[REC];
    memcpy(r, snap_rec(s, i), sizeof r);
    uint32_t j = i;
    for (; j > b && order_key(gid, s->id[j - 1]) > key; j--) {
        memcpy(snap_rec(s, j), snap_rec(s, j - 1), sizeof r);
        s->id[j] = s->id[j - 1];
    }
    memcpy(snap_rec(s, j), r, sizeof r);
    s->id[j] = id;
}

/* A boid's id (order_key) and its slot, for the sort of a large cell. */
typedef struct id_slot {
    uint32_t key, slot;
} id_slot;

/* Orders snapshot slots [b, e) by id as a sort of (id, slot) pairs and one permutation of
 * the state through a copy: for a large cell out of order, where insertion would move whole
 * runs (a cell that two tiles share holds the halo's part after the owned part, all of its
 * ids below or above theirs). 0 without memory for it (the caller then inserts). */
static int cell_sort_large(const snapshot *s, const uint32_t *gid, uint32_t b, uint32_t e) {
    const size_t n = e - b;
    id_slot *k = malloc(n * sizeof *k);
    float *f = malloc(n * REC * sizeof *f);
    if (!k || !f) {
        free(k), free(f);
        return 0;
    }
    for (size_t i = 0; i < n; i++)
        k[i] = (id_slot){order_key(gid, s->id[b + i]), (uint32_t)(b + i)};
    qsort(k, n, sizeof *k, boids_tile_cmp_u32); /* by key, the first member */
    for (size_t i = 0; i < n; i++) memcpy(f + i * REC, snap_rec(s, k[i].slot), REC * sizeof *f);
    memcpy(snap_rec(s, b), f, n * REC * sizeof *f);
    uint32_t *const t = (uint32_t *)(void *)f; /* the ids' copy, in the records' room */
    for (size_t i = 0; i < n; i++) t[i] = s->id[k[i].slot];
    memcpy(s->id + b, t, n * sizeof *t);
    free(k), free(f);
    return 1;
}

/* Orders the boids of snapshot slots [b, e) by id (order_key). Insertion sort: a cell holds
 * a few boids, most of them in order, so this is nearly one comparison per boid; a cell of
 * more than LARGE_CELL boids out of order is sorted (cell_sort_large). Ids are distinct, so
 * either gives the same order. */
static void cell_sort_by_id(const snapshot *s, const uint32_t *gid, uint32_t b, uint32_t e) {
    uint32_t i = b + 1;
    while (i < e && order_key(gid, s->id[i - 1]) < order_key(gid, s->id[i])) i++;
    if (i >= e || (e - b > LARGE_CELL && cell_sort_large(s, gid, b, e))) return;
    for (; i < e; i++)
        if (order_key(gid, s->id[i - 1]) > order_key(gid, s->id[i])) insert_by_id(s, gid, b, i);
}

/* The cells of the boids in slots [i0, i1) of cur in the grid of co into co->cell_of: by the
 * AVX2 cell kernel where simd, else by grid_cell_coord (the same cells). */
void RULES_FN(grid_cells_of)(const state *cur, size_t i0, size_t i1, const cell_out *co, int simd) {
#if BOIDS_AVX2
    if (simd) {
        RULES_FN(grid_cell_of_avx2)(cur, i0, i1, co);
        return;
    }
#endif
    (void)simd;
    const float *p[D];
    GRID_AXES(a) p[a] = cur->p[a];
    for (size_t i = i0; i < i1; i++) {
        uint32_t cell = grid_cell_coord(p[D - 1][i] - co->o[D - 1], co->s[D - 1], co->n[D - 1]);
        for (int a = D - 2; a >= 0; a--)
            cell = cell * co->n[a] + grid_cell_coord(p[a][i] - co->o[a], co->s[a], co->n[a]);
        co->cell_of[i] = cell;
    }
}

/* The cells of the boids in slots [i0, i1) of cur into cell_of (unless have_cells: they are
 * there), counted into the histogram h; block by block, so that the counts read cells still
 * in the first-level cache. */
static void count_cells(const state *cur, size_t i0, size_t i1, int have_cells, int simd,
                        const geom *g, uint32_t *cell_of, uint32_t *h) {
    enum { BLOCK = 512 };
    const cell_out co = cell_out_of(g, cell_of);
    for (size_t b = i0; b < i1; b += BLOCK) {
        const size_t e = i1 - b < BLOCK ? i1 : b + BLOCK;
        if (!have_cells) RULES_FN(grid_cells_of)(cur, b, e, &co, simd);
        for (size_t i = b; i < e; i++) h[cell_of[i]]++;
    }
}

/* The boids of slots [i0, i1) of cur into snap at the write offsets h of their cells, each
 * cell of [home0, home1) in id order as it fills: there this thread's slots come first (from
 * start[c], grid_build), so a boid whose id is below its predecessor's moves down among them
 * at once, while they are still in the cache (most arrive in order: those that stayed in the
 * cell keep the previous step's). A cell outside, where another thread writes first, or of
 * more than LARGE_CELL boids (sorted after, not boid by boid: cell_sort_by_id), is listed in
 * foreign (foreign[0] the count, up to FOREIGN_CAP cells; FOREIGN_CAP + 1 when
 * more were met). The arrays' pointers are locals (in the state they would be reloaded for
 * every boid, and the loop over the axes kept). */
static void scatter(const state *cur, const snapshot *snap, size_t i0, size_t i1,
                    const uint32_t *cell_of, uint32_t *h, const uint32_t *start,
                    const uint32_t *gid, size_t home0, size_t home1, uint32_t *foreign) {
    const float *cp[D], *cv[D];
    GRID_AXES(a) cp[a] = cur->p[a], cv[a] = cur->v[a];
    float *const sr = snap->r;
    const uint32_t *const cid = cur->id;
    uint32_t *const sid = snap->id;
    uint32_t listed = 0;
    for (size_t i = i0; i < i1; i++) {
        const uint32_t c = cell_of[i], d = h[c]++, id = cid[i];
        float *const r = sr + (size_t)d * REC;
        GRID_AXES(a) r[a] = cp[a][i], r[D + a] = cv[a][i];
        sid[d] = id;
        const int large = start[c + 1] - start[c] > LARGE_CELL;
        if (c - home0 >= home1 - home0 || large) { /* another thread's cell, or a large one */
            if (large && d != start[c]) continue;  /* listed at its first slot */
            if (listed < FOREIGN_CAP) foreign[1 + listed] = c;
            listed += listed <= FOREIGN_CAP;
            continue;
        }
        /* The slot before, or this one (compared with itself: in order) at the cell's start. */
        const uint32_t before = sid[d - (d > start[c])];
        if (order_key(gid, before) > order_key(gid, id)) insert_by_id(snap, gid, start[c], d);
    }
    foreign[0] = listed;
}

/* The first slot of thread u's part of cur among nt (grid_build's; n for u = nt). */
static size_t part_first(const grid_cells *gc, size_t n, int u, int nt) {
    if (u >= nt) return n;
    if (gc->cut_n != nt) return n * (size_t)u / (size_t)nt;
    return u == 0 ? 0 : gc->cut[u] < n ? gc->cut[u] : n;
}

/* The first cell whose start is at least slot s (nc if none): strip_at_slot over strips of
 * one cell. */
static size_t cell_at_slot(const uint32_t *start, size_t nc, size_t s) {
    const strip_map cells = {start, 1, 1, 1};
    return strip_at_slot(&cells, 0, nc, (double)s);
}

/* Within a cell, boids end in id order: the summation order of every boid, hence the
 * result, depends on the state alone, not on the order in which cur holds it (a resumed run
 * starts in id order, a running one in the previous step's cell order), nor on the number
 * of threads. In tile mode the cells are tile_cells' (the scalar cell computation, with the
 * window's rows), already in cell_of (have_cells). */
void RULES_FN(grid_build)(grid_cells *gc, const state *cur_s, const snapshot *snap_s, size_t n,
                          int have_cells, const uint32_t *gid, const geom *g, int simd,
                          int threads) {
    const size_t nc = g->ncells;
    const state cur = *cur_s;
    const snapshot snap = *snap_s;
    uint32_t *const cell_of = gc->cell_of, *const start = gc->start, *const hist = gc->hist;
    uint32_t *const block = gc->block;
    for (int a = 0; a < D; a++) simd = simd && g->n[a] <= INT32_MAX;
#pragma omp parallel num_threads(threads) if (threads > 1)
    {
        const int t = thread_num(), nt = num_threads();
        uint32_t *const h = hist + (size_t)t * nc;
        uint32_t *const foreign = hist + (size_t)nt * nc; /* grid_reserve's lists */
        memset(h, 0, nc * sizeof *h);
        /* Any cut gives the same snapshot (each cell is ordered by id at the end). */
        const size_t i0 = part_first(gc, n, t, nt), i1 = part_first(gc, n, t + 1, nt);
        count_cells(&cur, i0, i1, have_cells, simd, g, cell_of, h);
#pragma omp barrier
        /* Prefix sum over cells, in nt blocks of cells: block totals, then offsets. */
        const size_t c0 = nc * (size_t)t / (size_t)nt, c1 = nc * (size_t)(t + 1) / (size_t)nt;
        uint32_t sum = 0;
        for (size_t cell = c0; cell < c1; cell++)
            for (int u = 0; u < nt; u++) sum += hist[(size_t)u * nc + cell];
        block[t] = sum;
#pragma omp barrier
        /* A cell is its home thread's, the one whose part of cur holds the cell's start slot
         * (most of a thread's boids go to its home cells when cur is in cell order), and
         * its slots come first there; the other threads' follow in thread order. */
        uint32_t run = 0;
        for (int u = 0; u < t; u++) run += block[u];
        int home = 0;
        for (size_t cell = c0; cell < c1; cell++) {
            start[cell] = run;
            while (home + 1 < nt && part_first(gc, n, home + 1, nt) <= run) home++;
            uint32_t *const own = &hist[(size_t)home * nc + cell];
            const uint32_t v = *own;
            *own = run;
            run += v;
            for (int u = 0; u < nt; u++) {
                if (u == home) continue;
                const uint32_t w = hist[(size_t)u * nc + cell];
                hist[(size_t)u * nc + cell] = run;
                run += w;
            }
        }
        if (t == nt - 1) start[nc] = (uint32_t)n;
#pragma omp barrier
        /* This thread's home cells: those whose start is in its part. */
        const size_t s0 = t > 0 ? cell_at_slot(start, nc, i0) : 0;
        const size_t s1 = t < nt - 1 ? cell_at_slot(start, nc, i1) : nc;
        uint32_t *const mine = foreign + (size_t)t * (FOREIGN_CAP + 1);
        scatter(&cur, &snap, i0, i1, cell_of, h, start, gid, s0, s1, mine);
#pragma omp barrier
        /* The cells where more than one thread wrote: each ordered by its home thread. */
        int over = 0;
        for (int u = 0; u < nt; u++) over |= foreign[(size_t)u * (FOREIGN_CAP + 1)] > FOREIGN_CAP;
        for (int u = 0; u < nt && !over; u++) {
            const uint32_t *const list = foreign + (size_t)u * (FOREIGN_CAP + 1);
            for (uint32_t k = 1; k <= list[0]; k++)
                if (list[k] >= s0 && list[k] < s1)
                    cell_sort_by_id(&snap, gid, start[list[k]], start[list[k] + 1]);
        }
        for (size_t cell = over ? s0 : s1; cell < s1; cell++) /* too many listed: every cell */
            if (start[cell + 1] - start[cell] > 1)
                cell_sort_by_id(&snap, gid, start[cell], start[cell + 1]);
    }
}

/* ---- geometry ----------------------------------------------------------------------- */

/* Adds the finite positions of cur, the state of count boids, to b as boids_tile_box_point
 * does (min and max are exact: any thread count gives the same box). */
void RULES_FN(grid_box_add)(const state *cur, size_t count, int threads, grid_boxd *b) {
    const state s = *cur;
    const long n = (long)count;
    for (int a = 0; a < D; a++) {
        const float *const x = s.p[a];
        float lo = INFINITY, hi = -INFINITY, m = 0;
#pragma omp parallel for schedule(static) num_threads(threads) if (threads > 1) reduction(min      \
                                                                                          : lo)    \
    reduction(max                                                                                  \
              : hi, m)
        for (long i = 0; i < n; i++) {
            if (!isfinite(x[i])) continue;
            lo = x[i] < lo ? x[i] : lo;
            hi = x[i] > hi ? x[i] : hi;
            m = fabsf(x[i]) > m ? fabsf(x[i]) : m;
        }
        if (lo < b->lo[a]) b->lo[a] = lo;
        if (hi > b->hi[a]) b->hi[a] = hi;
        if (m > b->amax) b->amax = m;
    }
}

/* Bounding box of the finite positions of cur, the state of count boids. No finite position
 * along an axis: 0 there. */
grid_boxd RULES_FN(grid_flock_box)(const state *cur, size_t count, int threads) {
    grid_boxd b;
    boids_tile_box_empty(&b);
    RULES_FN(grid_box_add)(cur, count, threads, &b);
    for (int a = 0; a < 3; a++)
        if (!(b.lo[a] <= b.hi[a])) b.lo[a] = b.hi[a] = 0;
    return b;
}

/* The geometry of the whole flock of tile t (tile.h): the world grid, or on the open boundary
 * the grid over t's box, an axis without a finite position at 0 as in grid_flock_box. */
boids_status RULES_FN(grid_whole_geom)(const boids_params *p, const boids_tile *t, geom *g,
                                       boids_error *err) {
    grid_boxd bb = t->box;
    const int open = p->boundary == BOIDS_BOUNDARY_OPEN;
    if (open && !t->has_box)
        return boids_error_set(err, BOIDS_ERR_INPUT,
                               "cpu: a tile on the open boundary needs the whole flock's box");
    for (int a = 0; a < D; a++)
        if (!(bb.lo[a] <= bb.hi[a])) bb.lo[a] = bb.hi[a] = 0;
    return boids_grid_geomd_init(g, D, p, open ? &bb : NULL, boids_grid_geom_cap(t->n_global), err);
}

/* The window's grid: the whole flock's, with the window's rows along the last axis, and the
 * rows it numbers. Refuses a window the grid cannot hold and steered rows whose halo rows
 * are not in the window (tile.h). */
boids_status RULES_FN(grid_window_geom)(const boids_tile *t, const boids_params *p, geom *g,
                                        grid_win *w, boids_error *err) {
    boids_status st = RULES_FN(grid_whole_geom)(p, t, g, err);
    if (st) return st;
    const uint32_t n = g->n[D - 1];
    int whole;
    if ((st = boids_tile_check_window(t, n, g->wrap, "cpu", &whole, err))) return st;
    size_t c0, c1;
    if ((st = boids_tile_steered_cells(t, g->ncells / n, "cpu", &c0, &c1, err))) return st;
    *w = (grid_win){t->row_lo, n, whole};
    g->ncells = g->ncells / n * t->rows;
    g->n[D - 1] = t->rows;
    return BOIDS_OK;
}

/* The cell of every boid in the window's grid into cell_of: its cell in the whole flock's
 * grid (the first `known` slots have it in cell_of already, the others get it by
 * grid_cells_of), moved to the window's rows by whole rows, as grid_build would compute it
 * with the window row of its global row. BOIDS_ERR_INPUT naming the first boid outside the
 * window. */
boids_status RULES_FN(grid_tile_cells)(grid_cells *gc, const state *cur_s, size_t count,
                                       size_t known, const boids_tile *t, const geom *g,
                                       const grid_win *w, int simd, int threads, boids_error *err) {
    enum { BLOCK = 4096 };
    const state cur = *cur_s;
    uint32_t *const cell_of = gc->cell_of;
    const long n = (long)count, nk = (long)(known < count ? known : count);
    cell_out co = cell_out_of(g, cell_of);
    co.n[D - 1] = w->n; /* the whole grid's rows: at most 2^30 cells (boids_grid_geom_cap) */
    const uint32_t plane = (uint32_t)(g->ncells / g->n[D - 1]), lim = g->n[D - 1] * plane;
    const uint32_t base = t->row_lo * plane, wrapped = (w->n - t->row_lo) * plane;
    size_t out = 0; /* boids outside the window */
#pragma omp parallel num_threads(threads) if (threads > 1)
    {
#pragma omp for schedule(static)
        for (long b = nk; b < n; b += BLOCK) RULES_FN(grid_cells_of)
        (&cur, (size_t)b, (size_t)(n - b < BLOCK ? n : b + BLOCK), &co, simd);
#pragma omp for simd schedule(static) reduction(+ : out)
        for (long i = 0; i < n; i++) { /* boids_tile_window_row, by whole rows of cells */
            const uint32_t c = cell_of[i], wc = c >= base ? c - base : c + wrapped;
            out += wc >= lim;
            cell_of[i] = wc;
        }
    }
    if (!out) return BOIDS_OK;
    for (long i = 0; i < n; i++) { /* the first boid outside: its row from its position */
        const uint32_t row = grid_cell_coord(cur.p[D - 1][i] - co.o[D - 1], co.s[D - 1], w->n);
        if (boids_tile_window_row(t, w->n, row) < g->n[D - 1]) continue;
        return boids_error_set(err, BOIDS_ERR_INPUT,
                               "cpu: boid %u of the tile is in global row %u, outside the "
                               "window's rows %u to %u",
                               t->gid ? t->gid[cur.id[i]] : cur.id[i], row, w->lo,
                               (uint32_t)(((uint64_t)w->lo + g->n[D - 1] - 1) % w->n));
    }
    return BOIDS_OK;
}

/* Whether grids a and b are the same (the cells of one hold in the other). */
static int same_geom(const geom *a, const geom *b) {
    int same = a->ncells == b->ncells && a->wrap == b->wrap;
    for (int i = 0; i < D; i++)
        same = same && a->n[i] == b->n[i] && a->s[i] == b->s[i] && a->o[i] == b->o[i];
    return same;
}
