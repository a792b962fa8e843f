/* cpu: the fast CPU path. Float state in structure-of-arrays, a uniform grid rebuilt by a
 * counting sort every step, OpenMP threads, and a SIMD neighbour kernel.
 *
 * One step:
 *   1. cell of every boid, per-thread histograms of the cells;
 *   2. exclusive prefix sum over cells (in parallel blocks), giving each thread's write
 *      offset in each cell;
 *   3. stable scatter of the whole state into the snapshot buffer, ordered by cell (so the
 *      neighbours of a cell are a few contiguous ranges: rows of the 3x3 block);
 *   4. for every boid, the neighbour sums over the 3x3 block read from the snapshot, then
 *      rules_accel / rules_integrate, written into the other buffer (ping-pong): every boid
 *      decides from the same snapshot.
 *
 * The sort is stable and each boid's sums are made by one thread over a candidate order
 * fixed by the grid, so the result is bit-identical for any number of threads.
 *
 * The SIMD kernel evaluates 8 boids of one cell against each candidate (they share the
 * candidate list), so each boid still sums its neighbours one after the other in candidate
 * order: it performs exactly the float operations of rules_offset, rules_sees and
 * rules_acc_add, with blends in place of branches. It is written with AVX2 intrinsics and
 * not left to the auto-vectoriser because, under the core's strict IEEE flags (trapping
 * math, errno-setting sqrt, no contraction), GCC does not vectorise that loop. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "boids/backend.h"
#include "cpu_grid.h"
#include "grid_geom.h"

#define RULES_REAL     float
#define RULES_FN(name) name##_f
#include "rules.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define HAVE_AVX2_KERNEL 1
#else
#define HAVE_AVX2_KERNEL 0
#endif

enum {
    LANES = 8,                /* boids per SIMD pass: one AVX2 register of floats */
    PARALLEL_MIN = 2048,      /* below this many boids, threads cost more than they save */
    HIST_MIN_BUDGET = 1 << 20 /* per-thread histogram entries allowed whatever N */
};

/* One copy of the state: positions, velocities and the id of the boid in each slot. */
typedef struct state {
    float *x, *y, *vx, *vy;
    uint32_t *id;
} state;

/* A topological candidate: distance, original id (the tie-break), slot in the snapshot. */
typedef struct cand {
    float d2;
    uint32_t id, slot;
} cand;

typedef struct cpu_grid {
    boids_backend base;
    int threads;      /* resolved: >= 1 */
    int force_scalar; /* test hook */
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
} cpu_grid;

typedef struct range {
    uint32_t b, e;
} range;

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
 * the summation order of every boid of the cell. Returns the number of ranges (<= 6). */
static int cell_ranges(const grid_geom *g, const uint32_t *start, uint32_t cx, uint32_t cy,
                       range r[6]) {
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
        cols[0][1] = cx + 2 < g->ncx ? cx + 2 : g->ncx;
        ncols = 1;
    }
    int nr = 0;
    for (uint32_t i = 0; i < nrows; i++) {
        size_t row = (size_t)rows[i] * g->ncx;
        for (uint32_t c = 0; c < ncols; c++) {
            uint32_t b = start[row + cols[c][0]], e = start[row + cols[c][1]];
            if (b == e) continue;
            if (nr > 0 && r[nr - 1].e == b)
                r[nr - 1].e = e;
            else
                r[nr++] = (range){b, e};
        }
    }
    return nr;
}

/* ---- grid build: counting sort of cur into snap ----------------------------------- */

static boids_status grid_reserve(cpu_grid *c, const grid_geom *g, int *build_threads,
                                 boids_error *err) {
    size_t n = c->base.n, nc = g->ncells;
    if (nc + 1 > c->start_cap) {
        uint32_t *s = realloc(c->start, (nc + 1) * sizeof *s);
        if (!s)
            return boids_error_set(err, BOIDS_ERR_NOMEM, "cpu: out of memory for %zu cells", nc);
        c->start = s;
        c->start_cap = nc + 1;
    }
    /* Each build thread has its own histogram: limit their number so that the histograms
     * stay within a few times the state's size. */
    int t = n >= PARALLEL_MIN ? c->threads : 1;
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

/* Stable: within a cell, boids keep their order in cur, whatever the number of threads. */
static void grid_build(cpu_grid *c, const grid_geom *g, int threads) {
    const size_t n = c->base.n, nc = g->ncells;
    const state cur = c->cur, snap = c->snap;
    uint32_t *const cell_of = c->cell_of, *const start = c->start, *const hist = c->hist;
    uint32_t *const block = c->block;
    const float ox = (float)g->ox, oy = (float)g->oy; /* exact: 0 or a float box corner */
#pragma omp parallel num_threads(threads) if (threads > 1)
    {
        const int t = thread_num(), nt = num_threads();
        uint32_t *const h = hist + (size_t)t * nc;
        memset(h, 0, nc * sizeof *h);
        const size_t i0 = n * (size_t)t / (size_t)nt, i1 = n * (size_t)(t + 1) / (size_t)nt;
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

/* ---- neighbour kernels ---------------------------------------------------------------- */

/* Neighbour sums of the boid in slot i of the snapshot: rules.h called per candidate. */
static void accumulate_scalar(const state *s, const rules_k_f *k, const range *r, int nr,
                              uint32_t i, rules_acc_f *a) {
    rules_acc_init_f(a);
    const float x = s->x[i], y = s->y[i], vx = s->vx[i], vy = s->vy[i];
    for (int q = 0; q < nr; q++)
        for (uint32_t j = r[q].b; j < r[q].e; j++) {
            if (j == i) continue;
            float dx, dy;
            rules_offset_f(k, x, y, s->x[j], s->y[j], &dx, &dy);
            float d2 = dx * dx + dy * dy;
            if (!rules_sees_f(k, dx, dy, d2, vx, vy)) continue;
            rules_acc_add_f(k, a, dx, dy, d2, s->vx[j], s->vy[j]);
        }
}

/* rules_wrap on 8 lanes, branch-free: d - side where d > half, d + side where d < -half. */
__attribute__((target("avx2"))) static inline __m256 wrap8(__m256 d, __m256 side, __m256 half,
                                                           __m256 neg_half) {
    __m256 r = _mm256_blendv_ps(d, _mm256_sub_ps(d, side), _mm256_cmp_ps(d, half, _CMP_GT_OQ));
    return _mm256_blendv_ps(r, _mm256_add_ps(d, side), _mm256_cmp_ps(d, neg_half, _CMP_LT_OQ));
}

#if HAVE_AVX2_KERNEL
/* Neighbour sums of the boids in slots [i0, i0 + lanes) of the snapshot (lanes <= 8; the
 * spare lanes repeat the first boid and are ignored). Operation for operation the same as
 * accumulate_scalar: d = x_j - x_i wrapped by rules_wrap's comparisons, d2 = dx*dx + dy*dy,
 * the fov test dot >= cos(fov/2) * sqrt(vv * d2) (a float sqrt equals rules.h's double
 * sqrt rounded to float: double rounding is exact for sqrt), and each sum updated by a
 * blend of (sum + term), never by adding a masked zero (which would turn -0 into +0). */
__attribute__((target("avx2"))) static void accumulate_avx2(const state *s, const rules_k_f *k,
                                                            const range *r, int nr, int wrap_x,
                                                            int wrap_y, uint32_t i0, uint32_t lanes,
                                                            rules_acc_f out[LANES]) {
    float lx[LANES], ly[LANES], lvx[LANES], lvy[LANES];
    int32_t self[LANES];
    for (uint32_t l = 0; l < LANES; l++) {
        uint32_t i = i0 + (l < lanes ? l : 0);
        lx[l] = s->x[i];
        ly[l] = s->y[i];
        lvx[l] = s->vx[i];
        lvy[l] = s->vy[i];
        self[l] = (int32_t)i;
    }
    const __m256 xi = _mm256_loadu_ps(lx), yi = _mm256_loadu_ps(ly);
    const __m256 vxi = _mm256_loadu_ps(lvx), vyi = _mm256_loadu_ps(lvy);
    const __m256i selfv = _mm256_loadu_si256((const __m256i *)(const void *)self);
    const __m256 zero = _mm256_setzero_ps();
    const __m256 vv = _mm256_add_ps(_mm256_mul_ps(vxi, vxi), _mm256_mul_ps(vyi, vyi));
    const __m256 vv0 = _mm256_cmp_ps(vv, zero, _CMP_EQ_OQ);
    const __m256 W = _mm256_set1_ps(k->width), H = _mm256_set1_ps(k->height);
    const __m256 hw = _mm256_set1_ps(k->half_w), nhw = _mm256_set1_ps(-k->half_w);
    const __m256 hh = _mm256_set1_ps(k->half_h), nhh = _mm256_set1_ps(-k->half_h);
    const __m256 v2 = _mm256_set1_ps(k->vision2), s2 = _mm256_set1_ps(k->sep2);
    const __m256 cf = _mm256_set1_ps(k->cos_half_fov);
    const int full_fov = k->full_fov;
    __m256 mvx = zero, mvy = zero, cx = zero, cy = zero, sx = zero, sy = zero, sep = zero;
    __m256i cnt = _mm256_setzero_si256();
    for (int q = 0; q < nr; q++)
        for (uint32_t j = r[q].b; j < r[q].e; j++) {
            __m256 dx = _mm256_sub_ps(_mm256_set1_ps(s->x[j]), xi);
            __m256 dy = _mm256_sub_ps(_mm256_set1_ps(s->y[j]), yi);
            if (wrap_x) dx = wrap8(dx, W, hw, nhw);
            if (wrap_y) dy = wrap8(dy, H, hh, nhh);
            const __m256 d2 = _mm256_add_ps(_mm256_mul_ps(dx, dx), _mm256_mul_ps(dy, dy));
            const __m256 is_self =
                _mm256_castsi256_ps(_mm256_cmpeq_epi32(selfv, _mm256_set1_epi32((int32_t)j)));
            __m256 m = _mm256_andnot_ps(is_self, _mm256_cmp_ps(d2, v2, _CMP_LT_OQ));
            if (!full_fov) {
                const __m256 dot = _mm256_add_ps(_mm256_mul_ps(vxi, dx), _mm256_mul_ps(vyi, dy));
                const __m256 lim = _mm256_mul_ps(cf, _mm256_sqrt_ps(_mm256_mul_ps(vv, d2)));
                const __m256 ok =
                    _mm256_or_ps(_mm256_or_ps(vv0, _mm256_cmp_ps(d2, zero, _CMP_EQ_OQ)),
                                 _mm256_cmp_ps(dot, lim, _CMP_GE_OQ));
                m = _mm256_and_ps(m, ok);
            }
            mvx = _mm256_blendv_ps(mvx, _mm256_add_ps(mvx, _mm256_set1_ps(s->vx[j])), m);
            mvy = _mm256_blendv_ps(mvy, _mm256_add_ps(mvy, _mm256_set1_ps(s->vy[j])), m);
            cx = _mm256_blendv_ps(cx, _mm256_add_ps(cx, dx), m);
            cy = _mm256_blendv_ps(cy, _mm256_add_ps(cy, dy), m);
            cnt = _mm256_sub_epi32(cnt, _mm256_castps_si256(m)); /* a true lane is -1 */
            const __m256 sm = _mm256_and_ps(m, _mm256_and_ps(_mm256_cmp_ps(zero, d2, _CMP_LT_OQ),
                                                             _mm256_cmp_ps(d2, s2, _CMP_LT_OQ)));
            sx = _mm256_blendv_ps(sx, _mm256_sub_ps(sx, _mm256_div_ps(dx, d2)), sm);
            sy = _mm256_blendv_ps(sy, _mm256_sub_ps(sy, _mm256_div_ps(dy, d2)), sm);
            sep = _mm256_or_ps(sep, sm);
        }
    float omvx[LANES], omvy[LANES], ocx[LANES], ocy[LANES], osx[LANES], osy[LANES];
    int32_t ocnt[LANES];
    _mm256_storeu_ps(omvx, mvx);
    _mm256_storeu_ps(omvy, mvy);
    _mm256_storeu_ps(ocx, cx);
    _mm256_storeu_ps(ocy, cy);
    _mm256_storeu_ps(osx, sx);
    _mm256_storeu_ps(osy, sy);
    _mm256_storeu_si256((__m256i *)(void *)ocnt, cnt);
    const int sepbits = _mm256_movemask_ps(sep);
    for (uint32_t l = 0; l < lanes; l++) {
        out[l].n = ocnt[l];
        out[l].mvx = omvx[l];
        out[l].mvy = omvy[l];
        out[l].cx = ocx[l];
        out[l].cy = ocy[l];
        out[l].sx = osx[l];
        out[l].sy = osy[l];
        out[l].separated = (sepbits >> l) & 1;
    }
}

/* Vicsek heading sums of the boids in slots [i0, i0 + lanes): like accumulate_avx2, each
 * lane adds the unit headings of its candidates one after the other in candidate order,
 * exactly as accumulate_vicsek_scalar does: accepted when d2 <= R^2 (the seed's "no mayor
 * que R") or when the candidate is the boid itself (always included, whatever its
 * position). */
__attribute__((target("avx2"))) static void
vicsek_avx2(const state *s, const float *ux, const float *uy, const rules_k_f *k, const range *r,
            int nr, int wrap_x, int wrap_y, uint32_t i0, uint32_t lanes, float osx[LANES],
            float osy[LANES], int32_t ocnt[LANES]) {
    float lx[LANES], ly[LANES];
    int32_t self[LANES];
    for (uint32_t l = 0; l < LANES; l++) {
        uint32_t i = i0 + (l < lanes ? l : 0);
        lx[l] = s->x[i];
        ly[l] = s->y[i];
        self[l] = (int32_t)i;
    }
    const __m256 xi = _mm256_loadu_ps(lx), yi = _mm256_loadu_ps(ly);
    const __m256i selfv = _mm256_loadu_si256((const __m256i *)(const void *)self);
    const __m256 zero = _mm256_setzero_ps();
    const __m256 W = _mm256_set1_ps(k->width), H = _mm256_set1_ps(k->height);
    const __m256 hw = _mm256_set1_ps(k->half_w), nhw = _mm256_set1_ps(-k->half_w);
    const __m256 hh = _mm256_set1_ps(k->half_h), nhh = _mm256_set1_ps(-k->half_h);
    const __m256 v2 = _mm256_set1_ps(k->vision2);
    __m256 sx = zero, sy = zero;
    __m256i cnt = _mm256_setzero_si256();
    for (int q = 0; q < nr; q++)
        for (uint32_t j = r[q].b; j < r[q].e; j++) {
            __m256 dx = _mm256_sub_ps(_mm256_set1_ps(s->x[j]), xi);
            __m256 dy = _mm256_sub_ps(_mm256_set1_ps(s->y[j]), yi);
            if (wrap_x) dx = wrap8(dx, W, hw, nhw);
            if (wrap_y) dy = wrap8(dy, H, hh, nhh);
            const __m256 d2 = _mm256_add_ps(_mm256_mul_ps(dx, dx), _mm256_mul_ps(dy, dy));
            const __m256 is_self =
                _mm256_castsi256_ps(_mm256_cmpeq_epi32(selfv, _mm256_set1_epi32((int32_t)j)));
            const __m256 m = _mm256_or_ps(is_self, _mm256_cmp_ps(d2, v2, _CMP_LE_OQ));
            sx = _mm256_blendv_ps(sx, _mm256_add_ps(sx, _mm256_set1_ps(ux[j])), m);
            sy = _mm256_blendv_ps(sy, _mm256_add_ps(sy, _mm256_set1_ps(uy[j])), m);
            cnt = _mm256_sub_epi32(cnt, _mm256_castps_si256(m)); /* a true lane is -1 */
        }
    _mm256_storeu_ps(osx, sx);
    _mm256_storeu_ps(osy, sy);
    _mm256_storeu_si256((__m256i *)(void *)ocnt, cnt);
}

static int cpu_has_avx2(void) {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") != 0;
}
#else
static int cpu_has_avx2(void) {
    return 0;
}
#endif

/* ---- step ------------------------------------------------------------------------- */

/* Cells handed to a thread at a time: enough chunks per thread to balance dense clusters. */
static size_t cell_chunk(size_t ncells, int threads) {
    size_t c = ncells / ((size_t)threads * 64);
    return c < 16 ? 16 : c;
}

/* Reynolds, metric neighbours: steers every boid of the snapshot and writes the new state
 * into cur, slot for slot. */
static void steer_reynolds(cpu_grid *c, const grid_geom *g, const rules_k_f *k) {
    const size_t nc = g->ncells;
    const state snap = c->snap, out = c->cur;
    const uint32_t *const start = c->start;
    const int threads = c->base.n >= PARALLEL_MIN ? c->threads : 1;
    const int simd = HAVE_AVX2_KERNEL && c->have_avx2 && !c->force_scalar;
    const long chunk = (long)cell_chunk(nc, threads);
#pragma omp parallel for schedule(dynamic, chunk) num_threads(threads) if (threads > 1)
    for (size_t cell = 0; cell < nc; cell++) {
        const uint32_t b0 = start[cell], b1 = start[cell + 1];
        if (b0 == b1) continue;
        range r[6];
        const uint32_t cx = (uint32_t)(cell % g->ncx), cy = (uint32_t)(cell / g->ncx);
        const int nr = cell_ranges(g, start, cx, cy, r);
        const int wrap_x = needs_wrap(g->wrap, cx, g->ncx),
                  wrap_y = needs_wrap(g->wrap, cy, g->ncy);
        for (uint32_t i0 = b0; i0 < b1; i0 += LANES) {
            const uint32_t lanes = b1 - i0 < LANES ? b1 - i0 : LANES;
            rules_acc_f acc[LANES];
#if HAVE_AVX2_KERNEL
            if (simd)
                accumulate_avx2(&snap, k, r, nr, wrap_x, wrap_y, i0, lanes, acc);
            else
#endif
                for (uint32_t l = 0; l < lanes; l++)
                    accumulate_scalar(&snap, k, r, nr, i0 + l, &acc[l]);
            for (uint32_t l = 0; l < lanes; l++) {
                const uint32_t i = i0 + l;
                float x = snap.x[i], y = snap.y[i], vx = snap.vx[i], vy = snap.vy[i], ax, ay;
                rules_accel_f(k, &acc[l], x, y, vx, vy, &ax, &ay);
                rules_integrate_f(k, ax, ay, &x, &y, &vx, &vy);
                out.x[i] = x;
                out.y[i] = y;
                out.vx[i] = vx;
                out.vy[i] = vy;
            }
        }
    }
    (void)simd;
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

/* Vicsek heading sum of the boid in slot i over the candidate ranges, itself included. */
static void vicsek_scalar(const state *s, const float *ux, const float *uy, const rules_k_f *k,
                          const range *r, int nr, uint32_t i, float *osx, float *osy,
                          int32_t *ocnt) {
    float sx = 0, sy = 0;
    int32_t n = 0;
    for (int q = 0; q < nr; q++)
        for (uint32_t j = r[q].b; j < r[q].e; j++) {
            if (j != i) {
                float dx, dy;
                rules_offset_f(k, s->x[i], s->y[i], s->x[j], s->y[j], &dx, &dy);
                if (!(dx * dx + dy * dy <= k->vision2)) continue;
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
static void vicsek_move(const state *snap, const state *out, const rules_k_f *k,
                        const boids_params *p, uint32_t t, uint32_t i, float sx, float sy, long n) {
    float x = snap->x[i], y = snap->y[i], vx = snap->vx[i], vy = snap->vy[i];
    float u = (float)boids_noise_u((uint64_t)p->noise_seed, t, snap->id[i]); /* 24 bits: exact */
    vicsek_update_f(k, sx, sy, n, u, (float)p->noise, (float)p->speed, &x, &y, &vx, &vy);
    out->x[i] = x;
    out->y[i] = y;
    out->vx[i] = vx;
    out->vy[i] = vy;
}

/* Vicsek, metric neighbours (the 3x3 block holds every pair with float d2 <= R^2). */
static void steer_vicsek(cpu_grid *c, const grid_geom *g, const rules_k_f *k,
                         const boids_params *p) {
    const size_t nc = g->ncells;
    const state snap = c->snap, out = c->cur;
    const float *const ux = c->ux, *const uy = c->uy;
    const uint32_t *const start = c->start;
    const uint32_t t = c->t;
    const int threads = c->base.n >= PARALLEL_MIN ? c->threads : 1;
    const int simd = HAVE_AVX2_KERNEL && c->have_avx2 && !c->force_scalar;
    const long chunk = (long)cell_chunk(nc, threads);
#pragma omp parallel for schedule(dynamic, chunk) num_threads(threads) if (threads > 1)
    for (size_t cell = 0; cell < nc; cell++) {
        const uint32_t b0 = start[cell], b1 = start[cell + 1];
        if (b0 == b1) continue;
        range r[6];
        const uint32_t cx = (uint32_t)(cell % g->ncx), cy = (uint32_t)(cell / g->ncx);
        const int nr = cell_ranges(g, start, cx, cy, r);
        const int wrap_x = needs_wrap(g->wrap, cx, g->ncx),
                  wrap_y = needs_wrap(g->wrap, cy, g->ncy);
        for (uint32_t i0 = b0; i0 < b1; i0 += LANES) {
            const uint32_t lanes = b1 - i0 < LANES ? b1 - i0 : LANES;
            float sx[LANES], sy[LANES];
            int32_t cnt[LANES];
#if HAVE_AVX2_KERNEL
            if (simd)
                vicsek_avx2(&snap, ux, uy, k, r, nr, wrap_x, wrap_y, i0, lanes, sx, sy, cnt);
            else
#endif
                for (uint32_t l = 0; l < lanes; l++)
                    vicsek_scalar(&snap, ux, uy, k, r, nr, i0 + l, &sx[l], &sy[l], &cnt[l]);
            for (uint32_t l = 0; l < lanes; l++)
                vicsek_move(&snap, &out, k, p, t, i0 + l, sx[l], sy[l], cnt[l]);
        }
    }
    (void)simd;
}

/* ---- topological neighbours ----------------------------------------------------------- */

/* The offsets along one axis (of n cells, from cell c) that name distinct cells: under wrap
 * each cell once, by its shortest periodic offset; otherwise those inside the grid. */
static void axis_span(int wrap, uint32_t c, uint32_t n, long *lo, long *hi) {
    if (wrap) {
        *lo = -(long)((n - 1) / 2);
        *hi = (long)(n / 2);
    } else {
        *lo = -(long)c;
        *hi = (long)(n - 1 - c);
    }
}

static inline uint32_t axis_cell(int wrap, uint32_t c, uint32_t n, long d) {
    long v = (long)c + d;
    if (wrap) v = (v % (long)n + (long)n) % (long)n;
    return (uint32_t)v;
}

/* Is (d2, id) before the candidate b in the selection order (distance, then id)? */
static inline int cand_before(float d2, uint32_t id, const cand *b) {
    return d2 < b->d2 || (d2 == b->d2 && id < b->id);
}

typedef struct topo_q {
    const state *s;
    const rules_k_f *k;
    uint32_t kmax; /* k */
    int vicsek;    /* no fov; radius test d2 <= R^2 */
    int in_vision; /* k_in_vision */
    uint32_t i;    /* the boid's slot */
    cand *best;    /* kmax entries, ordered by (d2, id) */
    uint32_t m;    /* entries in best */
} topo_q;

/* Offers every boid of a snapshot range to the selection. Everything the loop reads is
 * held in locals: the stores into best would otherwise make the compiler reload it all
 * (they may alias) for every candidate. */
static void topo_scan(topo_q *q, uint32_t b, uint32_t e) {
    const float *const xs = q->s->x, *const ys = q->s->y;
    const uint32_t *const ids = q->s->id;
    const rules_k_f *const k = q->k;
    const uint32_t self = q->i, kmax = q->kmax;
    const float x = xs[self], y = ys[self], vx = q->s->vx[self], vy = q->s->vy[self];
    const float vision2 = k->vision2;
    const int vicsek = q->vicsek, in_vision = q->in_vision;
    cand *const best = q->best;
    uint32_t m = q->m;
    /* The current k-th: a candidate must come before it once the selection is full. */
    float wd2 = m == kmax ? best[m - 1].d2 : INFINITY;
    uint32_t wid = m == kmax ? best[m - 1].id : UINT32_MAX;
    for (uint32_t j = b; j < e; j++) {
        if (j == self) continue;
        float dx, dy;
        rules_offset_f(k, x, y, xs[j], ys[j], &dx, &dy);
        const float d2 = dx * dx + dy * dy;
        if (m == kmax && !(d2 < wd2 || (d2 == wd2 && ids[j] < wid))) continue;
        if (in_vision && !(vicsek ? d2 <= vision2 : d2 < vision2)) continue;
        if (!vicsek && !rules_in_fov_f(k, dx, dy, d2, vx, vy)) continue;
        const uint32_t id = ids[j];
        uint32_t pos = m < kmax ? m++ : m - 1;
        for (; pos > 0 && cand_before(d2, id, &best[pos - 1]); pos--) best[pos] = best[pos - 1];
        best[pos] = (cand){d2, id, j};
        if (m == kmax) {
            wd2 = best[m - 1].d2;
            wid = best[m - 1].id;
        }
    }
    q->m = m;
}

/* Selects the k nearest candidates of the boid in slot i (cell cx, cy) into q->best by
 * searching rings of cells outward: ring r holds the cells r apart (Chebyshev, periodic
 * under wrap). After rings 0..r every unvisited boid is at d2 > (r * reach)^2 (grid_geom.h), so
 * once k are held and the k-th is below that, no unvisited boid can come before it, not
 * even by a tie on the id: the selection is exactly the first k in (d2, id) order over all
 * candidates. With k_in_vision only the 3x3 block can hold candidates. */
static void topo_select(topo_q *q, const grid_geom *g, const uint32_t *start, uint32_t cx,
                        uint32_t cy) {
    long xlo, xhi, ylo, yhi;
    axis_span(g->wrap, cx, g->ncx, &xlo, &xhi);
    axis_span(g->wrap, cy, g->ncy, &ylo, &yhi);
    long rmax = -xlo;
    if (xhi > rmax) rmax = xhi;
    if (-ylo > rmax) rmax = -ylo;
    if (yhi > rmax) rmax = yhi;
    if (q->in_vision && rmax > 1) rmax = 1;
    q->m = 0;
    for (long r = 0; r <= rmax; r++) {
        const long y0 = ylo > -r ? ylo : -r, y1 = yhi < r ? yhi : r;
        const long x0 = xlo > -r ? xlo : -r, x1 = xhi < r ? xhi : r;
        for (long dy = y0; dy <= y1; dy++) {
            const size_t row = (size_t)axis_cell(g->wrap, cy, g->ncy, dy) * g->ncx;
            if (dy == -r || dy == r) { /* a full row of the ring */
                for (long dx = x0; dx <= x1; dx++) {
                    const size_t cell = row + axis_cell(g->wrap, cx, g->ncx, dx);
                    topo_scan(q, start[cell], start[cell + 1]);
                }
            } else { /* its two sides */
                if (-r >= xlo) {
                    const size_t cell = row + axis_cell(g->wrap, cx, g->ncx, -r);
                    topo_scan(q, start[cell], start[cell + 1]);
                }
                if (r <= xhi) {
                    const size_t cell = row + axis_cell(g->wrap, cx, g->ncx, r);
                    topo_scan(q, start[cell], start[cell + 1]);
                }
            }
        }
        if (q->m == q->kmax && r >= 1) {
            const double bound = (double)r * g->reach;
            if ((double)q->best[q->m - 1].d2 < bound * bound) break;
        }
    }
}

/* Topological neighbours, either model: select, then sum over the selection in its
 * (d2, id) order, which does not depend on the threads. */
static void steer_topo(cpu_grid *c, const grid_geom *g, const rules_k_f *k, const boids_params *p) {
    const size_t nc = g->ncells;
    const state snap = c->snap, out = c->cur;
    const float *const ux = c->ux, *const uy = c->uy;
    const uint32_t *const start = c->start;
    const uint32_t t = c->t, kmax = (uint32_t)p->k;
    const int vicsek = p->model == BOIDS_MODEL_VICSEK;
    const int threads = c->base.n >= PARALLEL_MIN ? c->threads : 1;
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
                topo_select(&q, g, start, cx, cy);
                if (vicsek) {
                    float sx = ux[i], sy = uy[i]; /* itself, then the k */
                    for (uint32_t a = 0; a < q.m; a++) {
                        sx += ux[q.best[a].slot];
                        sy += uy[q.best[a].slot];
                    }
                    vicsek_move(&snap, &out, k, p, t, i, sx, sy, (long)q.m + 1);
                    continue;
                }
                rules_acc_f acc;
                rules_acc_init_f(&acc);
                const float x = snap.x[i], y = snap.y[i], vx = snap.vx[i], vy = snap.vy[i];
                for (uint32_t a = 0; a < q.m; a++) {
                    const uint32_t j = q.best[a].slot;
                    float dx, dy;
                    rules_offset_f(k, x, y, snap.x[j], snap.y[j], &dx, &dy);
                    rules_acc_add_f(k, &acc, dx, dy, dx * dx + dy * dy, snap.vx[j], snap.vy[j]);
                }
                float nx = x, ny = y, nvx = vx, nvy = vy, ax, ay;
                rules_accel_f(k, &acc, x, y, vx, vy, &ax, &ay);
                rules_integrate_f(k, ax, ay, &nx, &ny, &nvx, &nvy);
                out.x[i] = nx;
                out.y[i] = ny;
                out.vx[i] = nvx;
                out.vy[i] = nvy;
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
    const int threads = c->base.n >= PARALLEL_MIN ? c->threads : 1;
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

static boids_status step(boids_backend *b, const boids_params *p, unsigned steps,
                         boids_error *err) {
    cpu_grid *c = (cpu_grid *)b;
    const int open = p->boundary == BOIDS_BOUNDARY_OPEN;
    const int vicsek = p->model == BOIDS_MODEL_VICSEK;
    const int topo = p->neighbours == BOIDS_NEIGHBOURS_TOPOLOGICAL;
    const int threads = c->base.n >= PARALLEL_MIN ? c->threads : 1;
    grid_geom g;
    int build_threads;
    boids_status st = prepare(c, p, &g, &build_threads, err);
    if (st) return st;
    rules_k_f k;
    rules_k_init_f(&k, p);
    for (unsigned s = 0; s < steps; s++, c->t++) {
        if (open && s > 0 && (st = prepare(c, p, &g, &build_threads, err))) return st;
        grid_build(c, &g, build_threads);
        if (vicsek) unit_headings(c, threads);
        if (topo)
            steer_topo(c, &g, &k, p);
        else if (vicsek)
            steer_vicsek(c, &g, &k, p);
        else
            steer_reynolds(c, &g, &k);
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
    grid_geom g;
    int build_threads;
    boids_status st = prepare(c, p, &g, &build_threads, err);
    if (st) return st;
    rules_k_f k;
    rules_k_init_f(&k, p);
    grid_build(c, &g, build_threads); /* fills snap only: the state in cur is unchanged */
    const state s = c->snap;
    const uint32_t *const start = c->start;
    const int vicsek = p->model == BOIDS_MODEL_VICSEK;
    const int topo = p->neighbours == BOIDS_NEIGHBOURS_TOPOLOGICAL;
    const uint32_t kmax = topo ? (uint32_t)p->k : 0;
    cand *const buf = c->cand;
    const int threads = c->base.n >= PARALLEL_MIN ? c->threads : 1;
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
            const int nr = cell_ranges(&g, start, cx, cy, r);
            for (uint32_t i = b0; i < b1; i++) {
                uint32_t n = 0;
                uint64_t h = 0;
                if (topo) {
                    q.i = i;
                    topo_select(&q, &g, start, cx, cy);
                    for (uint32_t a = 0; a < q.m; a++) h += boids_neighbour_set_hash(q.best[a].id);
                    n = q.m;
                } else {
                    for (int w = 0; w < nr; w++)
                        for (uint32_t j = r[w].b; j < r[w].e; j++) {
                            if (j == i) continue;
                            float dx, dy;
                            rules_offset_f(&k, s.x[i], s.y[i], s.x[j], s.y[j], &dx, &dy);
                            const float d2 = dx * dx + dy * dy;
                            if (vicsek ? !(d2 <= k.vision2)
                                       : !rules_sees_f(&k, dx, dy, d2, s.vx[i], s.vy[i]))
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
    c->t = 0; /* the noise stream restarts with the state, as in cpu-ref */
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
    cpu_grid *c = calloc(1, sizeof *c);
    if (!c) {
        boids_error_set(err, BOIDS_ERR_NOMEM, "out of memory");
        return NULL;
    }
    c->base.ops = &ops;
    c->threads = threads > 0 ? threads : max_threads();
    if (c->threads < 1) c->threads = 1;
    c->have_avx2 = cpu_has_avx2();
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
    if (!b || b->ops != &ops) return NULL;
    const cpu_grid *c = (const cpu_grid *)b;
    return HAVE_AVX2_KERNEL && c->have_avx2 && !c->force_scalar ? "avx2" : "scalar";
}

int boids_cpu_force_scalar(boids_backend *b, int on) {
    if (!b || b->ops != &ops) return -1;
    ((cpu_grid *)b)->force_scalar = on != 0;
    return 0;
}
