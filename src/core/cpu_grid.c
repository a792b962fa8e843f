/* SPDX-License-Identifier: MIT */
/* cpu: the fast CPU path. Float state in structure-of-arrays, a uniform grid rebuilt by a
 * counting sort every step, OpenMP threads, and a SIMD neighbour kernel.
 *
 * One step:
 *   1. cell of every boid, per-thread histograms of the cells;
 *   2. exclusive prefix sum over cells (in parallel blocks), giving each thread's write
 *      offset in each cell;
 *   3. scatter of the whole state into the snapshot buffer, ordered by cell (so the
 *      neighbours of a cell are a few contiguous ranges: rows of the 3x3 block), then each
 *      cell's boids ordered by id;
 *   4. for every boid, the neighbour sums over the 3x3 block read from the snapshot, then
 *      rules_accel / rules_integrate, written into the other buffer (ping-pong): every boid
 *      decides from the same snapshot.
 *
 * Cells hold their boids in id order and each boid's sums are made by one thread over a
 * candidate order fixed by the grid, so the result is bit-identical for any number of
 * threads and whatever the order of the state in memory (a resumed run equals a straight
 * one).
 *
 * Files: this one (the backend, the grid, the per-cell steering loop and the scalar
 * kernels), cpu_grid_avx2.c (the SIMD kernels: 8 boids of a cell at a time, the scalar
 * kernels' bits), cpu_grid_topo.c (the k-nearest selection); cpu_grid_impl.h between them. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "backend_impl.h"
#include "cpu_grid.h"
#include "cpu_grid_impl.h"
#include "cpu_avx2.h"

enum {
    PARALLEL_MIN = 2048,       /* below this many boids, threads cost more than they save */
    HIST_MIN_BUDGET = 1 << 20, /* per-thread histogram entries allowed whatever N */
    PROBE_MIN = 16,            /* steps between tries of the other thread count: at first, */
    PROBE_MAX = 4096           /* and at most, after tries that lost */
};

/* The thread count of each step: all the threads or one. On a shared machine a thread
 * whose core another process holds stalls every barrier of the step while the others
 * wait for it (20-50x slower than one thread, seen with a busy process on one of two
 * cores): the grid build gives each thread a fixed share (its histogram), which no other
 * thread can take over. So steps are timed and the faster count
 * runs; the other is tried for one step after `interval` steps, an interval that doubles
 * (to PROBE_MAX) each time the try loses, so that lost tries cost at most a few per cent.
 * The results do not depend on the count (same bits). */
typedef struct thread_pick {
    double s[2];       /* seconds per step on [0] one thread, [1] all; < 0: unknown */
    int all;           /* the count that runs: 1 all threads, 0 one */
    uint32_t interval; /* steps between tries of the other count */
    uint32_t left;     /* steps until the next try */
} thread_pick;

typedef struct cpu_grid {
    boids_backend base;
    int threads;       /* resolved: >= 1 */
    int force_scalar;  /* test hook */
    int fixed_threads; /* test hook: no thread_pick, every step on all threads */
    int have_avx2;
    state cur, snap;   /* cur: the state; snap: cur sorted by cell (the step's snapshot) */
    uint32_t *cell_of; /* cell of each slot of cur */
    uint32_t *start;   /* ncells + 1 cell starts in snap */
    size_t start_cap;  /* entries allocated in start */
    uint32_t *hist;    /* per-thread cell counts, then write offsets */
    size_t hist_cap;   /* entries allocated in hist */
    uint32_t *block;   /* per-thread totals of the prefix sum */
    float *ux, *uy;    /* Vicsek: unit heading of each snapshot slot (vicsek_add's terms) */
    cand *cand;        /* topological: per-thread selection buffers of k entries */
    size_t cand_cap;   /* entries allocated in cand */
    uint32_t t;        /* steps since upload: the Vicsek noise stream's step index */
    int run_threads;   /* threads of the current step (or neighbours query) */
    thread_pick pick;
} cpu_grid;

static int max_threads(void) {
#ifdef _OPENMP
    return omp_get_max_threads();
#else
    return 1;
#endif
}

static int thread_num(void) {
#ifdef _OPENMP
    return omp_get_thread_num();
#else
    return 0;
#endif
}

static int num_threads(void) {
#ifdef _OPENMP
    return omp_get_num_threads();
#else
    return 1;
#endif
}

/* ---- state buffers ------------------------------------------------------------------ */

static void state_free(state *s) {
    free(s->x);
    memset(s, 0, sizeof *s);
}

/* One block per state: 4 float arrays then the ids (both 4-byte types). */
static int state_alloc(state *s, size_t n) {
    float *block = malloc(n * 4 * sizeof(float) + n * sizeof(uint32_t));
    if (!block) return 0;
    s->x = block;
    s->y = block + n;
    s->vx = block + 2 * n;
    s->vy = block + 3 * n;
    s->id = (uint32_t *)(void *)(block + 4 * n);
    return 1;
}

/* The candidate slots of cell (cx, cy): the rows of its 3x3 block as contiguous ranges of
 * the snapshot, each cell visited once even when the grid is less than 3 cells wide, empty
 * ranges dropped and adjacent ones merged (which keeps the visiting order). This order is
 * the summation order of every boid of the cell. span 2 gives the rows of the 3x4 block of
 * cells (cx, cy) and (cx + 1, cy), a pair that pair_ok admits: see steer_cells. Returns the
 * number of ranges (<= 6). */
static int cell_ranges(const grid_geom *g, const uint32_t *start, uint32_t cx, uint32_t cy,
                       uint32_t span, range r[6]) {
    uint32_t rows[3], nrows = 0;
    if (g->ncy <= 3) {
        for (uint32_t y = 0; y < g->ncy; y++) rows[nrows++] = y;
    } else if (g->wrap) {
        rows[0] = cy == 0 ? g->ncy - 1 : cy - 1;
        rows[1] = cy;
        rows[2] = cy + 1 == g->ncy ? 0 : cy + 1;
        nrows = 3;
    } else {
        for (uint32_t y = cy == 0 ? 0 : cy - 1; y <= cy + 1 && y < g->ncy; y++) rows[nrows++] = y;
    }
    uint32_t cols[2][2], ncols = 0; /* column intervals [a, b) */
    if (g->ncx <= 3) {
        cols[0][0] = 0;
        cols[0][1] = g->ncx;
        ncols = 1;
    } else if (g->wrap && cx == 0) {
        cols[0][0] = g->ncx - 1;
        cols[0][1] = g->ncx;
        cols[1][0] = 0;
        cols[1][1] = 2;
        ncols = 2;
    } else if (g->wrap && cx == g->ncx - 1) {
        cols[0][0] = cx - 1;
        cols[0][1] = g->ncx;
        cols[1][0] = 0;
        cols[1][1] = 1;
        ncols = 2;
    } else {
        cols[0][0] = cx == 0 ? 0 : cx - 1;
        cols[0][1] = cx + span + 1 < g->ncx ? cx + span + 1 : g->ncx;
        ncols = 1;
    }
    int nr = 0;
    for (uint32_t i = 0; i < nrows; i++) {
        size_t row = (size_t)rows[i] * g->ncx;
        for (uint32_t c = 0; c < ncols; c++) {
            nr = grid_range_add(r, nr, start[row + cols[c][0]], start[row + cols[c][1]]);
        }
    }
    return nr;
}

/* ---- grid build: counting sort of cur into snap ----------------------------------- */

static boids_status grid_reserve(cpu_grid *c, const grid_geom *g, int *build_threads,
                                 boids_error *err) {
    size_t n = c->base.n, nc = g->ncells;
    boids_status st = grid_reserve_starts(&c->start, &c->start_cap, nc, err);
    if (st) return st;
    /* Each build thread has its own histogram: limit their number so that the histograms
     * stay within a few times the state's size. */
    int t = c->run_threads;
    size_t budget = n * 4 > HIST_MIN_BUDGET ? n * 4 : HIST_MIN_BUDGET;
    while (t > 1 && (size_t)t * nc > budget) t--;
    size_t need = (size_t)t * nc;
    if (need > c->hist_cap) {
        uint32_t *h = realloc(c->hist, need * sizeof *h);
        if (!h)
            return boids_error_set(err, BOIDS_ERR_NOMEM, "cpu: out of memory for %zu cells", nc);
        c->hist = h;
        c->hist_cap = need;
    }
    *build_threads = t;
    return BOIDS_OK;
}

/* Orders the boids of snapshot slots [b, e) by id. Insertion sort: a cell holds a few
 * boids, and most of them arrive in order (those that stayed in the cell keep the previous
 * step's id order), so this is nearly one comparison per boid. */
static void cell_sort_by_id(const state *s, uint32_t b, uint32_t e) {
    for (uint32_t i = b + 1; i < e; i++) {
        const uint32_t id = s->id[i];
        if (s->id[i - 1] < id) continue;
        const float x = s->x[i], y = s->y[i], vx = s->vx[i], vy = s->vy[i];
        uint32_t j = i;
        for (; j > b && s->id[j - 1] > id; j--) {
            s->x[j] = s->x[j - 1];
            s->y[j] = s->y[j - 1];
            s->vx[j] = s->vx[j - 1];
            s->vy[j] = s->vy[j - 1];
            s->id[j] = s->id[j - 1];
        }
        s->x[j] = x;
        s->y[j] = y;
        s->vx[j] = vx;
        s->vy[j] = vy;
        s->id[j] = id;
    }
}

/* Within a cell, boids end in id order: the summation order of every boid, hence the
 * result, depends on the state alone, not on the order in which cur holds it (a resumed run
 * starts in id order, a running one in the previous step's cell order), nor on the number
 * of threads. */
static void grid_build(cpu_grid *c, const grid_geom *g, int threads) {
    const size_t n = c->base.n, nc = g->ncells;
    const state cur = c->cur, snap = c->snap;
    uint32_t *const cell_of = c->cell_of, *const start = c->start, *const hist = c->hist;
    uint32_t *const block = c->block;
    const float ox = (float)g->ox, oy = (float)g->oy; /* exact: 0 or a float box corner */
#if BOIDS_AVX2
    const int simd = c->have_avx2 && !c->force_scalar && g->ncx <= INT32_MAX && g->ncy <= INT32_MAX;
#endif
#pragma omp parallel num_threads(threads) if (threads > 1)
    {
        const int t = thread_num(), nt = num_threads();
        uint32_t *const h = hist + (size_t)t * nc;
        memset(h, 0, nc * sizeof *h);
        const size_t i0 = n * (size_t)t / (size_t)nt, i1 = n * (size_t)(t + 1) / (size_t)nt;
#if BOIDS_AVX2
        if (simd) {
            boids_cpu_cells_avx2(&cur, i0, i1, g, cell_of);
            for (size_t i = i0; i < i1; i++) h[cell_of[i]]++;
        } else
#endif
            for (size_t i = i0; i < i1; i++) {
                uint32_t cell = grid_cell_coord(cur.y[i] - oy, g->sy, g->ncy) * g->ncx +
                                grid_cell_coord(cur.x[i] - ox, g->sx, g->ncx);
                cell_of[i] = cell;
                h[cell]++;
            }
#pragma omp barrier
        /* Prefix sum over cells, in nt blocks of cells: block totals, then offsets. */
        const size_t c0 = nc * (size_t)t / (size_t)nt, c1 = nc * (size_t)(t + 1) / (size_t)nt;
        uint32_t sum = 0;
        for (size_t cell = c0; cell < c1; cell++)
            for (int u = 0; u < nt; u++) sum += hist[(size_t)u * nc + cell];
        block[t] = sum;
#pragma omp barrier
        uint32_t run = 0;
        for (int u = 0; u < t; u++) run += block[u];
        for (size_t cell = c0; cell < c1; cell++) {
            start[cell] = run;
            for (int u = 0; u < nt; u++) {
                uint32_t v = hist[(size_t)u * nc + cell];
                hist[(size_t)u * nc + cell] = run;
                run += v;
            }
        }
        if (t == nt - 1) start[nc] = (uint32_t)n;
#pragma omp barrier
        for (size_t i = i0; i < i1; i++) {
            uint32_t d = h[cell_of[i]]++;
            snap.x[d] = cur.x[i];
            snap.y[d] = cur.y[i];
            snap.vx[d] = cur.vx[i];
            snap.vy[d] = cur.vy[i];
            snap.id[d] = cur.id[i];
        }
#pragma omp barrier
        for (size_t cell = c0; cell < c1; cell++)
            cell_sort_by_id(&snap, start[cell], start[cell + 1]);
    }
}

/* Whether the offsets along one axis from a cell at coordinate c (of n) to its candidates
 * can need rules_wrap. Away from the seam, with n >= 5, candidates are less than 2 cells
 * (2/5 of the side, plus rounding) away, below half the side: rules_wrap would return the
 * offset unchanged, so the SIMD kernel may skip it and still match the scalar one bit for
 * bit. */
static inline int needs_wrap(int wrap, uint32_t c, uint32_t n) {
    return wrap && (n < 5 || c == 0 || c == n - 1);
}

/* ---- metric steering: one per-cell loop for both models ------------------------------ */

/* What one step's steering reads and writes. */
typedef struct steer_ctx {
    state snap, out;      /* reads the snapshot, writes the new state slot for slot */
    const float *ux, *uy; /* Vicsek: unit heading of each snapshot slot */
    const rules_k_f2 *k;
    const boids_params *p;
    uint32_t t; /* Vicsek: the noise stream's step index */
    int simd;   /* the AVX2 kernels (same bits as the scalar ones) */
} steer_ctx;

/* Neighbour sums of the boid in slot i of the snapshot: rules.h called per candidate. The
 * sums, ranges and arrays are locals: through pointers, each int store into the sums could
 * alias the ranges' bounds and force their reload for every candidate. */
static void reynolds_scalar(const state *s, const rules_k_f2 *k, const cell_group *q, uint32_t i,
                            rules_acc_f2 *out) {
    rules_acc_f2 a;
    rules_acc_init_f2(&a);
    const float *const xs = s->x, *const ys = s->y, *const vxs = s->vx, *const vys = s->vy;
    const float x = xs[i], y = ys[i], vx = vxs[i], vy = vys[i];
    const range *const r = q->r;
    const int nr = q->nr;
    for (int w = 0; w < nr; w++)
        for (uint32_t j = r[w].b, e = r[w].e; j < e; j++) {
            if (j == i) continue;
            const float pi[2] = {x, y}, pj[2] = {xs[j], ys[j]}, vi[2] = {vx, vy};
            const float vj[2] = {vxs[j], vys[j]};
            float d[2];
            rules_offset_f2(k, pi, pj, d);
            float d2 = d[0] * d[0] + d[1] * d[1];
            if (!rules_sees_f2(k, d, d2, vi)) continue;
            rules_acc_add_f2(k, &a, d, d2, vj);
        }
    *out = a;
}

/* Reynolds, one group: the neighbour sums, then rules_accel / rules_integrate (all 8 lanes
 * at once in AVX2 unless the interaction table has entries). */
static inline void reynolds_group(const steer_ctx *x, const cell_group *q) {
    rules_acc_f2 acc[LANES];
#if BOIDS_AVX2
    if (x->simd && !x->k->tab) {
        boids_cpu_reynolds_move_avx2(&x->snap, &x->out, x->k, q);
        return;
    }
    if (x->simd)
        boids_cpu_reynolds_avx2(&x->snap, x->k, q, acc);
    else
#endif
        for (uint32_t l = 0; l < q->lanes; l++)
            reynolds_scalar(&x->snap, x->k, q, q->i0 + l, &acc[l]);
    for (uint32_t l = 0; l < q->lanes; l++) {
        const uint32_t i = q->i0 + l;
        float p[2] = {x->snap.x[i], x->snap.y[i]}, v[2] = {x->snap.vx[i], x->snap.vy[i]}, a[2];
        rules_accel_f2(x->k, &acc[l], p, v, a);
        rules_integrate_f2(x->k, a, p, v);
        x->out.x[i] = p[0];
        x->out.y[i] = p[1];
        x->out.vx[i] = v[0];
        x->out.vy[i] = v[1];
    }
}

/* Unit heading of every snapshot slot, computed once per step as vicsek_add computes it
 * (a resting boid adds nothing: 0, which leaves a sum unchanged since sums start at +0). */
static void unit_headings(cpu_grid *c, int threads) {
    const state snap = c->snap;
    float *const ux = c->ux, *const uy = c->uy;
    const long n = (long)c->base.n;
#pragma omp parallel for schedule(static) num_threads(threads) if (threads > 1)
    for (long i = 0; i < n; i++) {
        float vx = snap.vx[i], vy = snap.vy[i], v = (float)sqrt(vx * vx + vy * vy);
        ux[i] = v > 0 ? vx / v : 0;
        uy[i] = v > 0 ? vy / v : 0;
    }
}

/* Vicsek heading sum of the boid in slot i over the candidate ranges, itself included
 * (the 3x3 block holds every pair with float d2 <= R^2). */
static void vicsek_scalar(const steer_ctx *x, const cell_group *q, uint32_t i, float *osx,
                          float *osy, int32_t *ocnt) {
    const state *const s = &x->snap;
    const float *const ux = x->ux, *const uy = x->uy, px = s->x[i], py = s->y[i];
    const range *const r = q->r;
    const int nr = q->nr;
    float sx = 0, sy = 0;
    int32_t n = 0;
    for (int w = 0; w < nr; w++)
        for (uint32_t j = r[w].b, e = r[w].e; j < e; j++) {
            if (j != i) {
                const float pi[2] = {px, py}, pj[2] = {s->x[j], s->y[j]};
                float d[2];
                rules_offset_f2(x->k, pi, pj, d);
                if (!(d[0] * d[0] + d[1] * d[1] <= x->k->vision2)) continue;
            }
            sx += ux[j];
            sy += uy[j];
            n++;
        }
    *osx = sx;
    *osy = sy;
    *ocnt = n;
}

/* The Vicsek move of slot i from its heading sum: old velocity for the position, new
 * heading plus the noise of (noise_seed, step, original id), as cpu-ref draws it. */
static void vicsek_move(const state *snap, const state *out, const rules_k_f2 *k,
                        const boids_params *p, uint32_t t, uint32_t i, float sx, float sy, long n) {
    float pos[2] = {snap->x[i], snap->y[i]}, vel[2] = {snap->vx[i], snap->vy[i]};
    const float sum[2] = {sx, sy};
    float u = (float)boids_noise_u((uint64_t)p->noise_seed, t, snap->id[i]); /* 24 bits: exact */
    vicsek_update_f2(k, sum, n, u, 0, (float)p->noise, (float)p->speed, pos, vel);
    out->x[i] = pos[0];
    out->y[i] = pos[1];
    out->vx[i] = vel[0];
    out->vy[i] = vel[1];
}

/* Vicsek, one group: the heading sums, then the moves. */
static inline void vicsek_group(const steer_ctx *x, const cell_group *q) {
    float sx[LANES], sy[LANES];
    int32_t cnt[LANES];
#if BOIDS_AVX2
    if (x->simd)
        boids_cpu_vicsek_avx2(&x->snap, x->ux, x->uy, x->k, q, sx, sy, cnt);
    else
#endif
        for (uint32_t l = 0; l < q->lanes; l++)
            vicsek_scalar(x, q, q->i0 + l, &sx[l], &sy[l], &cnt[l]);
    for (uint32_t l = 0; l < q->lanes; l++)
        vicsek_move(&x->snap, &x->out, x->k, x->p, x->t, q->i0 + l, sx[l], sy[l], cnt[l]);
}

/* Cells handed to a thread at a time: enough chunks per thread to balance dense clusters. */
static size_t cell_chunk(size_t ncells, int threads) {
    size_t c = ncells / ((size_t)threads * 64);
    return c < 16 ? 16 : c;
}

/* Steers the boids in slots [b, e) of the snapshot, in groups of up to LANES that share the
 * candidate ranges r of their cell (or cell pair), starting at column cx, row cy. The model
 * is a branch per group to a kernel inlined here (no call through a pointer). */
static void steer_groups(const steer_ctx *x, const grid_geom *g, const range *r, int nr,
                         uint32_t cx, uint32_t cy, uint32_t b, uint32_t e, int vicsek) {
    cell_group q = {r, nr, needs_wrap(g->wrap, cx, g->ncx), needs_wrap(g->wrap, cy, g->ncy), 0, 0};
    for (q.i0 = b; q.i0 < e; q.i0 += LANES) {
        q.lanes = e - q.i0 < LANES ? e - q.i0 : LANES;
        if (vicsek)
            vicsek_group(x, &q);
        else
            reynolds_group(x, &q);
    }
}

/* Whether cells (cx, cy) and (cx + 1, cy) may share a group: both inside the grid's
 * columns with a column on either side and no periodic seam in reach, so that their
 * candidates are the rows of one 3x4 block (cell_ranges' span 2) whose offsets need no
 * wrap, as for each cell alone. The extra column changes no boid's sums: it is two cells
 * from the boids of the other cell, more than R away (grid_geom.h), so every boid accepts
 * the same neighbours, in the same order (row by row, slot by slot). */
static int pair_ok(const grid_geom *g, uint32_t cx) {
    return cx >= 1 && cx + 2 < g->ncx && !needs_wrap(g->wrap, cx, g->ncx) &&
           !needs_wrap(g->wrap, cx + 1, g->ncx);
}

/* Steers the boids of cells (cx, cy) and, if it exists, (cx + 1, cy). A cell's boids beyond
 * a multiple of LANES form a partial group that scans the whole 3x3 block for a few lanes;
 * when the partial groups of both cells fit in one, they are steered together (the last
 * boids of the first cell and the first of the second are adjacent slots), over the 3x4
 * block: a third more candidates for one group less. */
static void steer_cells(const steer_ctx *x, const grid_geom *g, const uint32_t *start, uint32_t cx,
                        uint32_t cy, int vicsek) {
    const size_t c0 = (size_t)cy * g->ncx + cx;
    const int two = cx + 1 < g->ncx;
    const uint32_t b0 = start[c0], m = start[c0 + 1], e1 = two ? start[c0 + 2] : m;
    const uint32_t r0 = (m - b0) % LANES, r1 = (e1 - m) % LANES;
    range r[6];
    const int pair = two && r0 && r1 && r0 + r1 <= LANES && pair_ok(g, cx);
    const uint32_t end0 = pair ? m - r0 : m, beg1 = pair ? m + r1 : m;
    if (b0 < end0)
        steer_groups(x, g, r, cell_ranges(g, start, cx, cy, 1, r), cx, cy, b0, end0, vicsek);
    if (beg1 < e1)
        steer_groups(x, g, r, cell_ranges(g, start, cx + 1, cy, 1, r), cx + 1, cy, beg1, e1,
                     vicsek);
    if (pair)
        steer_groups(x, g, r, cell_ranges(g, start, cx, cy, 2, r), cx, cy, end0, beg1, vicsek);
}

/* Metric neighbours, either model: steers every boid of the snapshot and writes the new
 * state into cur, slot for slot. The one per-cell loop: pairs of cells of a row in
 * parallel (steer_cells), each cell's candidate ranges found once, its boids in groups of
 * LANES that share them. Which boids share a group changes no boid's sums, so neither
 * does the pairing nor the thread count. */
static void steer_metric(cpu_grid *c, const grid_geom *g, const rules_k_f2 *k,
                         const boids_params *p) {
    const steer_ctx x = {c->snap, c->cur, c->ux, c->uy,
                         k,       p,      c->t,  BOIDS_AVX2 && c->have_avx2 && !c->force_scalar};
    const int vicsek = p->model == BOIDS_MODEL_VICSEK;
    const size_t pairs_x = (g->ncx + 1) / 2, np = pairs_x * g->ncy;
    const uint32_t *const start = c->start;
    const int threads = c->run_threads;
    const long chunk = (long)cell_chunk(np, threads);
#pragma omp parallel for schedule(dynamic, chunk) num_threads(threads) if (threads > 1)
    for (size_t u = 0; u < np; u++)
        steer_cells(&x, g, start, (uint32_t)(u % pairs_x) * 2, (uint32_t)(u / pairs_x), vicsek);
}

/* Topological neighbours, either model: select, then sum over the selection in its
 * (d2, id) order, which does not depend on the threads. */
static void steer_topo(cpu_grid *c, const grid_geom *g, const rules_k_f2 *k,
                       const boids_params *p) {
    const size_t nc = g->ncells;
    const state snap = c->snap, out = c->cur;
    const float *const ux = c->ux, *const uy = c->uy;
    const uint32_t *const start = c->start;
    const uint32_t t = c->t, kmax = (uint32_t)p->k;
    const int vicsek = p->model == BOIDS_MODEL_VICSEK;
    const int threads = c->run_threads;
    const long chunk = (long)cell_chunk(nc, threads);
    cand *const buf = c->cand;
#pragma omp parallel num_threads(threads) if (threads > 1)
    {
        topo_q q = {
            &snap, k, kmax, vicsek, p->k_in_vision != 0, 0, buf + (size_t)thread_num() * kmax, 0};
#pragma omp for schedule(dynamic, chunk)
        for (size_t cell = 0; cell < nc; cell++) {
            const uint32_t cx = (uint32_t)(cell % g->ncx), cy = (uint32_t)(cell / g->ncx);
            for (uint32_t i = start[cell]; i < start[cell + 1]; i++) {
                q.i = i;
                boids_cpu_topo_select(&q, g, start, cx, cy);
                if (vicsek) {
                    float sx = ux[i], sy = uy[i]; /* itself, then the k */
                    for (uint32_t a = 0; a < q.m; a++) {
                        sx += ux[q.best[a].slot];
                        sy += uy[q.best[a].slot];
                    }
                    vicsek_move(&snap, &out, k, p, t, i, sx, sy, (long)q.m + 1);
                    continue;
                }
                rules_acc_f2 acc;
                rules_acc_init_f2(&acc);
                float pi[2] = {snap.x[i], snap.y[i]}, vi[2] = {snap.vx[i], snap.vy[i]}, ai[2];
                for (uint32_t a = 0; a < q.m; a++) {
                    const uint32_t j = q.best[a].slot;
                    const float pj[2] = {snap.x[j], snap.y[j]}, vj[2] = {snap.vx[j], snap.vy[j]};
                    float d[2];
                    rules_offset_f2(k, pi, pj, d);
                    rules_acc_add_f2(k, &acc, d, d[0] * d[0] + d[1] * d[1], vj);
                }
                rules_accel_f2(k, &acc, pi, vi, ai);
                rules_integrate_f2(k, ai, pi, vi);
                out.x[i] = pi[0];
                out.y[i] = pi[1];
                out.vx[i] = vi[0];
                out.vy[i] = vi[1];
            }
        }
    }
}

/* ---- step ------------------------------------------------------------------------- */

/* Bounding box of the finite positions of cur (min and max are exact: any thread count
 * gives the same box). No finite position: a box at the origin. */
static grid_bbox flock_bbox(const cpu_grid *c, int threads) {
    const state s = c->cur;
    const long n = (long)c->base.n;
    float x0 = INFINITY, y0 = INFINITY, x1 = -INFINITY, y1 = -INFINITY, am = 0;
#pragma omp parallel for schedule(static) num_threads(threads) if (threads > 1)                    \
    reduction(min                                                                                  \
              : x0, y0) reduction(max                                                              \
                                  : x1, y1, am)
    for (long i = 0; i < n; i++) {
        const float x = s.x[i], y = s.y[i];
        if (isfinite(x)) {
            x0 = x < x0 ? x : x0;
            x1 = x > x1 ? x : x1;
            am = fabsf(x) > am ? fabsf(x) : am;
        }
        if (isfinite(y)) {
            y0 = y < y0 ? y : y0;
            y1 = y > y1 ? y : y1;
            am = fabsf(y) > am ? fabsf(y) : am;
        }
    }
    grid_bbox b = {x0, y0, x1, y1, am};
    if (!(x0 <= x1)) b.x0 = b.x1 = 0;
    if (!(y0 <= y1)) b.y0 = b.y1 = 0;
    return b;
}

/* Grid geometry for the current state (the open plane's follows the flock) and room for
 * it; also the topological selection buffers. */
static boids_status prepare(cpu_grid *c, const boids_params *p, grid_geom *g, int *build_threads,
                            boids_error *err) {
    const int threads = c->run_threads;
    grid_bbox bb;
    const int open = p->boundary == BOIDS_BOUNDARY_OPEN;
    if (open) bb = flock_bbox(c, threads);
    boids_status st =
        boids_grid_geom_init(g, p, open ? &bb : NULL, boids_grid_geom_cap(c->base.n), err);
    if (st) return st;
    if (p->neighbours == BOIDS_NEIGHBOURS_TOPOLOGICAL) {
        if (p->k < 1 || p->k > 1000)
            return boids_error_set(err, BOIDS_ERR_INPUT, "cpu: k = %ld is outside [1, 1000]", p->k);
        size_t need = (size_t)c->threads * (size_t)p->k;
        if (need > c->cand_cap) {
            cand *b = realloc(c->cand, need * sizeof *b);
            if (!b)
                return boids_error_set(err, BOIDS_ERR_NOMEM,
                                       "cpu: out of memory for the k = %ld selection", p->k);
            c->cand = b;
            c->cand_cap = need;
        }
    }
    return grid_reserve(c, g, build_threads, err);
}

static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Whether the next step runs on all threads: each count once first, then the running one,
 * or the other when its try is due. */
static int pick_all(const thread_pick *k) {
    if (k->s[1] < 0) return 1;
    if (k->s[0] < 0) return 0;
    return k->left == 0 ? !k->all : k->all;
}

/* Records a step of `dt` seconds on all threads (all = 1) or one. The running count's time
 * is smoothed (a single step is noisy on a loaded machine); a try is one step, and wins
 * when it beats that. A running count that becomes clearly slower than the other's last
 * time (contention that began, or ended) has the other tried at once. */
static void pick_record(thread_pick *k, int all, double dt) {
    if (all == k->all) {
        k->s[all] = k->s[all] < 0 ? dt : 0.75 * k->s[all] + 0.25 * dt;
        if (k->left > 0) k->left--;
        if (k->s[!all] >= 0 && k->s[all] > 2 * k->s[!all]) k->left = 0;
        return;
    }
    k->s[all] = dt;
    if (dt < k->s[k->all]) {
        k->all = all;
        k->interval = PROBE_MIN;
    } else {
        k->interval = k->interval * 2 > PROBE_MAX ? PROBE_MAX : k->interval * 2;
    }
    k->left = k->interval;
}

static boids_status step(boids_backend *b, const boids_params *p, unsigned steps,
                         boids_error *err) {
    cpu_grid *c = (cpu_grid *)b;
    const int open = p->boundary == BOIDS_BOUNDARY_OPEN;
    const int vicsek = p->model == BOIDS_MODEL_VICSEK;
    const int topo = p->neighbours == BOIDS_NEIGHBOURS_TOPOLOGICAL;
    const int parallel = c->threads > 1 && c->base.n >= PARALLEL_MIN;
    const int adapt = parallel && !c->fixed_threads;
    c->run_threads = parallel ? c->threads : 1; /* room for the most threads */
    grid_geom g;
    int build_threads;
    boids_status st = prepare(c, p, &g, &build_threads, err);
    if (st) return st;
    rules_k_f2 k;
    rules_table_f2 tab;
    rules_k_init_f2(&k, p);
    rules_k_set_interact_f2(&k, &tab, &b->inter);
    for (unsigned s = 0; s < steps; s++, c->t++) {
        const int all = parallel && (!adapt || pick_all(&c->pick));
        const double t0 = adapt ? now_s() : 0;
        c->run_threads = all ? c->threads : 1;
        if (open && s > 0 && (st = prepare(c, p, &g, &build_threads, err))) return st;
        grid_build(c, &g, build_threads < c->run_threads ? build_threads : c->run_threads);
        if (vicsek) unit_headings(c, c->run_threads);
        if (topo)
            steer_topo(c, &g, &k, p);
        else
            steer_metric(c, &g, &k, p);
        if (adapt) pick_record(&c->pick, all, now_s() - t0);
        /* cur now holds the new state in the snapshot's slot order: its ids are snap's. */
        uint32_t *id = c->cur.id;
        c->cur.id = c->snap.id;
        c->snap.id = id;
    }
    return BOIDS_OK;
}

/* ---- neighbours, download, upload ---------------------------------------------------- */

static boids_status neighbours(boids_backend *b, const boids_params *p, uint32_t *count,
                               uint64_t *set_hash, boids_error *err) {
    cpu_grid *c = (cpu_grid *)b;
    c->run_threads = c->base.n >= PARALLEL_MIN ? c->threads : 1;
    grid_geom g;
    int build_threads;
    boids_status st = prepare(c, p, &g, &build_threads, err);
    if (st) return st;
    rules_k_f2 k;
    rules_k_init_f2(&k, p);
    grid_build(c, &g, build_threads); /* fills snap only: the state in cur is unchanged */
    const state s = c->snap;
    const uint32_t *const start = c->start;
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
                    0,
                    topo ? buf + (size_t)thread_num() * kmax : NULL,
                    0};
#pragma omp for schedule(dynamic, chunk)
        for (size_t cell = 0; cell < g.ncells; cell++) {
            const uint32_t b0 = start[cell], b1 = start[cell + 1];
            if (b0 == b1) continue;
            const uint32_t cx = (uint32_t)(cell % g.ncx), cy = (uint32_t)(cell / g.ncx);
            range r[6];
            const int nr = cell_ranges(&g, start, cx, cy, 1, r);
            for (uint32_t i = b0; i < b1; i++) {
                uint32_t n = 0;
                uint64_t h = 0;
                if (topo) {
                    q.i = i;
                    boids_cpu_topo_select(&q, &g, start, cx, cy);
                    for (uint32_t a = 0; a < q.m; a++) h += boids_neighbour_set_hash(q.best[a].id);
                    n = q.m;
                } else {
                    for (int w = 0; w < nr; w++)
                        for (uint32_t j = r[w].b; j < r[w].e; j++) {
                            if (j == i) continue;
                            const float pi[2] = {s.x[i], s.y[i]}, pj[2] = {s.x[j], s.y[j]};
                            const float vi[2] = {s.vx[i], s.vy[i]};
                            float d[2];
                            rules_offset_f2(&k, pi, pj, d);
                            const float d2 = d[0] * d[0] + d[1] * d[1];
                            if (vicsek ? !(d2 <= k.vision2) : !rules_sees_f2(&k, d, d2, vi))
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

static boids_status download(boids_backend *b, boids_flock *out, boids_error *err) {
    cpu_grid *c = (cpu_grid *)b;
    if (out->n != c->base.n)
        return boids_error_set(err, BOIDS_ERR_INPUT, "download: flock has %zu boids, backend %zu",
                               out->n, c->base.n);
    const state s = c->cur;
    for (size_t i = 0; i < c->base.n; i++) {
        uint32_t id = s.id[i];
        out->x[id] = s.x[i];
        out->y[id] = s.y[i];
        out->vx[id] = s.vx[i];
        out->vy[id] = s.vy[i];
    }
    out->step = c->t;
    return BOIDS_OK;
}

static boids_status upload(boids_backend *b, const boids_flock *in, boids_error *err) {
    cpu_grid *c = (cpu_grid *)b;
    size_t n = in->n;
    if (n == 0)
        return boids_error_set(err, BOIDS_ERR_INPUT, "cpu: a flock needs at least one boid");
    /* Ids and cell starts are 32-bit: they halve the memory traffic of the sort. */
    if (n >= UINT32_MAX || n > SIZE_MAX / (2 * 5 * sizeof(float) + 3 * sizeof(uint32_t)))
        return boids_error_set(err, BOIDS_ERR_LIMIT,
                               "cpu: %zu boids is beyond this path's limit of %u", n,
                               (unsigned)(UINT32_MAX - 1));
    state cur, snap;
    uint32_t *cell_of = malloc(n * sizeof *cell_of);
    float *unit = malloc(2 * n * sizeof *unit);
    int ok_cur = state_alloc(&cur, n), ok_snap = state_alloc(&snap, n);
    if (!cell_of || !unit || !ok_cur || !ok_snap) {
        free(cell_of);
        free(unit);
        if (ok_cur) state_free(&cur);
        if (ok_snap) state_free(&snap);
        return boids_error_set(err, BOIDS_ERR_NOMEM, "cpu: out of memory for %zu boids (%zu MiB)",
                               n, n * (2 * 5 * sizeof(float) + 3 * sizeof(uint32_t)) >> 20);
    }
    for (size_t i = 0; i < n; i++) {
        cur.x[i] = (float)in->x[i];
        cur.y[i] = (float)in->y[i];
        cur.vx[i] = (float)in->vx[i];
        cur.vy[i] = (float)in->vy[i];
        cur.id[i] = (uint32_t)i;
    }
    state_free(&c->cur);
    state_free(&c->snap);
    free(c->cell_of);
    free(c->ux);
    c->cur = cur;
    c->snap = snap;
    c->cell_of = cell_of;
    c->ux = unit;
    c->uy = unit + n;
    c->base.n = n;
    c->t = in->step; /* the noise stream goes on from the state's step, as in cpu-ref */
    return BOIDS_OK;
}

static void destroy(boids_backend *b) {
    cpu_grid *c = (cpu_grid *)b;
    state_free(&c->cur);
    state_free(&c->snap);
    free(c->cell_of);
    free(c->ux);
    free(c->cand);
    free(c->start);
    free(c->hist);
    free(c->block);
    free(c);
}

static const boids_backend_ops ops = {"cpu", destroy, step, download, upload, neighbours};

boids_backend *boids_cpu_create(const boids_flock *initial, int threads, boids_error *err) {
    if (initial->z) return boids_cpu3_create(initial, threads, err);
    cpu_grid *c = calloc(1, sizeof *c);
    if (!c) {
        boids_error_set(err, BOIDS_ERR_NOMEM, "out of memory");
        return NULL;
    }
    c->base.ops = &ops;
    c->threads = threads > 0 ? threads : max_threads();
    if (c->threads < 1) c->threads = 1;
    c->have_avx2 = cpu_has_avx2();
    c->run_threads = 1;
    c->pick = (thread_pick){{-1, -1}, 1, PROBE_MIN, PROBE_MIN};
    c->block = malloc((size_t)c->threads * sizeof *c->block);
    if (!c->block) {
        free(c);
        boids_error_set(err, BOIDS_ERR_NOMEM, "out of memory");
        return NULL;
    }
    if (upload(&c->base, initial, err)) {
        destroy(&c->base);
        return NULL;
    }
    return &c->base;
}

const char *boids_cpu_kernel_name(const boids_backend *b) {
    if (b && b->dim == 3) return boids_cpu3_is(b) ? "scalar" : NULL; /* 3-D: scalar only */
    if (!b || b->ops != &ops) return NULL;
    const cpu_grid *c = (const cpu_grid *)b;
    return BOIDS_AVX2 && c->have_avx2 && !c->force_scalar ? "avx2" : "scalar";
}

int boids_cpu_fixed_threads(boids_backend *b, int on) {
    if (b && b->dim == 3) return boids_cpu3_is(b) ? 0 : -1; /* 3-D: always its full count */
    if (!b || b->ops != &ops) return -1;
    ((cpu_grid *)b)->fixed_threads = on != 0;
    return 0;
}

int boids_cpu_force_scalar(boids_backend *b, int on) {
    if (b && b->dim == 3) return boids_cpu3_is(b) ? 0 : -1; /* 3-D: scalar only */
    if (!b || b->ops != &ops) return -1;
    ((cpu_grid *)b)->force_scalar = on != 0;
    return 0;
}
