/* SPDX-License-Identifier: MIT */
/* Internals of the grid CPU path (`cpu`), shared by its four files:
 *   cpu_grid.c        the backend: state buffers, the per-cell steering loop with the
 *                     scalar kernels (Reynolds, Vicsek), the step, the neighbours query;
 *   cpu_grid_build.c  the grid build: geometry, the counting sort of the state into cell
 *                     order, the candidate ranges of a cell;
 *   cpu_grid_avx2.c   the AVX2 kernels (built with -mavx2, only with BOIDS_AVX2);
 *   cpu_grid_topo.c   the topological neighbours: the k-nearest search (shell search over
 *                     the cells, the rules' selection) and the steering over them.
 *
 * The four are written once over the dimension D = RULES_DIM (2: the plane, 3: the box)
 * and compiled once for each, in rules.h's instance of that dimension in float
 * (rules_instances.h): cpu_grid_f2.c and cpu_grid_f3.c compile the first three
 * (cpu_grid_parts.h), cpu_grid_avx2_f2.c and cpu_grid_avx2_f3.c the kernels.
 * Positions and velocities are arrays over the axes, components in the order x, y, z; the
 * grid's cells are numbered with x fastest, and a cell's candidates are the rows (along x)
 * of its 3^D block, higher axes outermost. What differs by dimension lives in the one
 * section below ("the rules of the dimension") and in the names of the functions the files
 * share, which carry the instance's suffix (RULES_FN: _f2, _f3).
 * Not part of the public API. */
#ifndef BOIDS_CPU_GRID_IMPL_H
#define BOIDS_CPU_GRID_IMPL_H

#ifdef __clang__
/* `omp simd` marks the tile passes' short comparison loops, which gcc vectorises; clang may
 * unroll one first and then report that it could not vectorise it (-Wpass-failed): a missed
 * hint, not an error. */
#pragma clang diagnostic ignored "-Wpass-failed"
#endif

#include <stdint.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "backend_impl.h"
#include "grid_geom.h"

#ifndef RULES_DIM
#error "include cpu_grid_impl.h in rules.h's instance in float (rules_instances.h)"
#endif
#define D RULES_DIM

/* A loop over the axes, unrolled where it is compiled, so that the arrays over the axes of
 * the kernels' loops stay in registers. */
#define GRID_AXES(a) _Pragma("GCC unroll 3") for (int a = 0; a < D; a++)

/* BOIDS_AVX2=1 (the CMake option of that name, x86-64 only) builds cpu_grid_avx2.c with
 * -mavx2; without it only the scalar kernels are compiled, for any processor. */
#ifndef BOIDS_AVX2
#define BOIDS_AVX2 0
#endif

/* ---- the rules of the dimension ---------------------------------------------------------
 * The grid path's names for rules.h's instance of this dimension in float (the files call
 * RULES_FN(rules_offset) and the like directly). */
typedef RULES_FN(rules_k) grid_k;         /* per-step constants */
typedef RULES_FN(rules_acc) grid_acc;     /* one boid's neighbour sums */
typedef RULES_FN(rules_table) grid_table; /* the interaction table the constants point to */

static inline void grid_k_init(grid_k *k, grid_table *t, const boids_params *p,
                               const boids_interact *in) {
    RULES_FN(rules_k_init)(k, p);
    RULES_FN(rules_k_set_interact)(k, t, in);
}

/* Sums made elsewhere (the SIMD kernels) into a: n neighbours, velocities mv, offsets c,
 * separation terms sep, separated. */
static inline void grid_acc_set(grid_acc *a, long n, const float mv[D], const float c[D],
                                const float sep[D], int separated) {
    a->n = n;
    for (int b = 0; b < D; b++) a->mv[b] = mv[b], a->off[b] = c[b], a->sep[b] = sep[b];
    a->separated = separated;
}

/* rules_accel then rules_integrate: the boid at (p, v) moved in place. */
static inline void grid_move(const grid_k *k, const grid_acc *a, float p[D], float v[D]) {
    float acc[D];
    RULES_FN(rules_accel)(k, a, p, v, acc);
    RULES_FN(rules_integrate)(k, acc, p, v);
}

/* The unit heading of velocity v that the Vicsek sums add (0 at rest). The one difference
 * by dimension here: the plane's is the quotient itself, as the plane's grid has always
 * held it (a -0 stays -0: the first term of a topological sum), the box's is vicsek_add's
 * term added to a zero sum (never -0). */
static inline void grid_unit(const float v[D], float u[D]) {
#if D == 2
    const float s = (float)sqrt(v[0] * v[0] + v[1] * v[1]);
    u[0] = s > 0 ? v[0] / s : 0;
    u[1] = s > 0 ? v[1] / s : 0;
#else
    for (int a = 0; a < D; a++) u[a] = 0;
    RULES_FN(vicsek_add)(v, u);
#endif
}

/* The Vicsek move from heading sum s of n headings, with the noise of (seed, step, id): one
 * variate turns the plane's angle, two place the box's direction in its cone. */
static inline void grid_vicsek(const grid_k *k, const boids_params *p, uint32_t t, uint32_t id,
                               const float s[D], long n, float x[D], float v[D]) {
    const uint64_t seed = (uint64_t)p->noise_seed;
    const float u1 = (float)boids_noise_u(seed, t, id); /* 24 bits: exact */
    const float u2 = D == 2 ? 0 : (float)boids_noise_u2(seed, t, id);
    RULES_FN(vicsek_update)(k, s, n, u1, u2, (float)p->noise, (float)p->speed, x, v);
}

/* ---- the grid path's data ------------------------------------------------------------- */

/* Boids per SIMD pass: one AVX2 register of floats (the scalar kernels' groups too), or
 * one AVX-512 register (MAX_LANES), the width a step's kernels use (steer_ctx.simd). */
enum { LANES = 8, MAX_LANES = 16 };

/* One copy of the state: positions, velocities and the id of the boid in each slot. */
typedef struct state {
    float *p[D], *v[D];
    uint32_t *id;
} state;

/* Floats of a snapshot record: a boid's position, then its velocity. */
enum { REC = 2 * D };

/* The step's snapshot: the state sorted by cell, each slot one record of REC floats, so
 * that the kernels read a candidate's position and velocity from one cache line (of one
 * stream, where the arrays of a state are 2 D streams), and the scatter writes each boid to
 * one place; and the id of the boid in each slot. */
typedef struct snapshot {
    float *r; /* REC floats per slot */
    uint32_t *id;
} snapshot;

/* The record of slot i. */
static inline float *snap_rec(const snapshot *s, size_t i) {
    return s->r + i * REC;
}

/* The grid of one step (grid_geom.h, over D axes): the cell of a position x along axis a is
 * grid_cell_coord(x - o[a], s[a], n[a]), cells numbered with axis 0 fastest. */
typedef grid_geomd geom;

/* The rows along the last axis that a step's grid numbers: all the rows of the world's grid,
 * or a tile's window (tile.h): rows lo, lo + 1, ... of the global grid's n, periodically
 * under wrap. The window's own rows are a plain range (they wrap only when they are the
 * whole grid), while offsets between boids keep the world's wrap. */
typedef struct grid_win {
    uint32_t lo; /* the global row of the grid's row 0 */
    uint32_t n;  /* rows of the global grid */
    int wrap;    /* the grid's rows wrap: the whole grid of a periodic world */
} grid_win;

/* The global row of row r of the grid. */
static inline uint32_t grid_win_row(const grid_win *w, uint32_t r) {
    const uint64_t v = (uint64_t)r + w->lo;
    return (uint32_t)(v >= w->n ? v - w->n : v);
}

/* Whether the offsets along one axis from a cell at coordinate c (of n) to its candidates
 * can need rules_wrap. Away from the seam, with n >= 5, candidates are less than 2 cells
 * (2/5 of the side, plus rounding) away, below half the side: rules_wrap would return the
 * offset unchanged, so the SIMD kernels may skip it and still match the scalar ones bit for
 * bit. */
static inline int needs_wrap(int wrap, uint32_t c, uint32_t n) {
    return wrap && (n < 5 || c == 0 || c == n - 1);
}

/* The axes on which the offsets from the run of span cells along x from coordinates k to
 * their candidates can need rules_wrap (a cell_group's wrap flags); the last axis by its
 * global row: a window's rows are not the world's. */
static inline void group_wraps(const geom *g, const grid_win *win, const uint32_t k[D],
                               uint32_t span, int wrap[D]) {
    for (int a = 0; a < D - 1; a++) wrap[a] = needs_wrap(g->wrap, k[a], g->n[a]);
    wrap[0] = wrap[0] || needs_wrap(g->wrap, k[0] + span - 1, g->n[0]);
    wrap[D - 1] = needs_wrap(g->wrap, grid_win_row(win, k[D - 1]), win->n);
}

/* Whether the grid's axis a wraps (its cells' neighbours across the seam). */
static inline int grid_axis_wraps(const geom *g, const grid_win *w, int a) {
    return a == D - 1 ? w->wrap : g->wrap;
}

static inline int thread_num(void) {
#ifdef _OPENMP
    return omp_get_thread_num();
#else
    return 0;
#endif
}

static inline int num_threads(void) {
#ifdef _OPENMP
    return omp_get_num_threads();
#else
    return 1;
#endif
}

static inline void state_put(const state *s, uint32_t i, const float p[D], const float v[D]) {
    for (int a = 0; a < D; a++) s->p[a][i] = p[a], s->v[a][i] = v[a];
}

static inline void snap_get(const snapshot *s, uint32_t i, float p[D], float v[D]) {
    const float *const r = snap_rec(s, i);
    for (int a = 0; a < D; a++) p[a] = r[a], v[a] = r[D + a];
}

/* The index of the cell of coordinates k (axis 0 fastest). */
static inline size_t cell_index(const geom *g, const uint32_t k[D]) {
    size_t cell = k[D - 1];
    for (int a = D - 2; a >= 0; a--) cell = cell * g->n[a] + k[a];
    return cell;
}

static inline void cell_coords(const geom *g, size_t cell, uint32_t k[D]) {
    for (int a = 0; a < D; a++) {
        k[a] = (uint32_t)(cell % g->n[a]);
        cell /= g->n[a];
    }
}

/* A contiguous range [b, e) of snapshot slots (grid_geom.h). */
typedef grid_range range;

enum { MAX_RANGES = 2 * (D == 2 ? 3 : 9) }; /* two column intervals per row of the block */

/* Up to LANES (MAX_LANES with the AVX-512 kernels) boids of consecutive slots, steered
 * together: they share the candidates of
 * their cells (one cell, or a run of cells along x, whose blocks' rows are merged). */
typedef struct cell_group {
    const range *r;     /* candidate ranges: the rows of the block, in summation order */
    int nr;             /* number of ranges (<= MAX_RANGES) */
    int wrap[D];        /* whether an offset along the axis can need rules_wrap */
    uint32_t i0, lanes; /* the boids in slots [i0, i0 + lanes), lanes <= the width */
} cell_group;

/* ---- the grid build (cpu_grid_build.c) ------------------------------------------------
 * The cell list of a step: the state cur sorted by cell into the snapshot, cell by cell,
 * each cell's boids in id order; start[c] .. start[c + 1] the slots of cell c. */
typedef struct grid_cells {
    uint32_t *cell_of; /* cell of each slot of cur (the caller allocates it with cur) */
    uint32_t *start;   /* ncells + 1 cell starts in the snapshot */
    size_t start_cap;  /* entries allocated in start */
    uint32_t *hist;    /* per-thread cell counts, then write offsets */
    size_t hist_cap;   /* entries allocated in hist */
    uint32_t *block;   /* per-thread totals of the prefix sum (one per thread, the caller's) */
    uint32_t *cut;     /* cut_n + 1 slot boundaries of cur: thread t counts and scatters slots
                          [cut[t], cut[t + 1]) (those its steering wrote: strip_split), where
                          cut_n is the build's thread count; else an even share (the caller's,
                          room for one more than the threads) */
    int cut_n;
} grid_cells;

/* Bounding box of the finite positions of the state cur of n boids; and those positions added
 * to a box b (boids_tile_box_point's semantics: an empty axis stays empty). */
grid_boxd RULES_FN(grid_flock_box)(const state *cur, size_t n, int threads);
void RULES_FN(grid_box_add)(const state *cur, size_t n, int threads, grid_boxd *b);

/* The geometry of the whole flock of tile t (the world's grid, or on the open boundary the
 * grid over t's box); and the grid of t's window and the rows it numbers. */
boids_status RULES_FN(grid_whole_geom)(const boids_params *p, const boids_tile *t, geom *g,
                                       boids_error *err);
boids_status RULES_FN(grid_window_geom)(const boids_tile *t, const boids_params *p, geom *g,
                                        grid_win *w, boids_error *err);

/* Room in gc for grid g of a state of n boids built on up to `threads` threads; the number
 * of threads the build may use into *build_threads (each has a histogram of the cells). */
boids_status RULES_FN(grid_reserve)(grid_cells *gc, const geom *g, size_t n, int threads,
                                    int *build_threads, boids_error *err);

/* Tile mode: the cell of every boid of the window cur (n boids of tile t) in the window's
 * grid into gc->cell_of; refuses a boid outside the window. The first `known` slots' cells in
 * the whole flock's grid are in cell_of already (a resident tile's count made them), the
 * others' are computed (by the AVX2 cell kernel where simd). */
boids_status RULES_FN(grid_tile_cells)(grid_cells *gc, const state *cur, size_t n, size_t known,
                                       const boids_tile *t, const geom *g, const grid_win *w,
                                       int simd, int threads, boids_error *err);

/* The counting sort of the n boids of cur into snap, cells in order, each cell's boids by
 * id, or in tile mode by gid's global ids (by the ids themselves where gid is NULL: a
 * resident tile). have_cells: cell_of holds the cells of cur in g already (tile mode's, made
 * by grid_tile_cells, or those the previous step's move wrote); else they are computed, by
 * the AVX2 cell kernel where simd. */
void RULES_FN(grid_build)(grid_cells *gc, const state *cur, const snapshot *snap, size_t n,
                          int have_cells, const uint32_t *gid, const geom *g, int simd,
                          int threads);

/* The candidate slots of the cells k .. k + (span - 1) along x: the rows of their 3^D
 * block as ranges of the snapshot, in summation order. Returns their number. */
int RULES_FN(grid_cell_ranges)(const geom *g, const grid_win *w, const uint32_t *start,
                               const uint32_t k[D], uint32_t span, range r[MAX_RANGES]);

/* Where a step's move writes the cells of the new positions, for the next build
 * (grid_build's have_cells): the grid's origin, scales and cells per axis (each at most
 * INT32_MAX), and cell_of, indexed by slot. */
typedef struct cell_out {
    uint32_t *cell_of;
    float o[D], s[D];
    uint32_t n[D];
} cell_out;

/* The grid g's constants for the SIMD cell computations, writing into cell_of. */
static inline cell_out cell_out_of(const geom *g, uint32_t *cell_of) {
    cell_out co = {cell_of, {0}, {0}, {0}};
    for (int a = 0; a < D; a++) {
        co.o[a] = (float)g->o[a]; /* exact: 0 or a float box corner */
        co.s[a] = g->s[a];
        co.n[a] = g->n[a];
    }
    return co;
}

#if BOIDS_AVX2
/* The SIMD kernels (cpu_grid_simd.c), once per width: _avx2 (8 lanes, -mavx2) and _avx512
 * (16 lanes, -mavx512f -mavx512dq).
 *
 * grid_reynolds: Reynolds neighbour sums of the group's boids into out[0 .. lanes):
 * operation for operation those of the scalar kernel (cpu_grid.c), so the results are
 * bit-identical.
 * grid_reynolds_move: the group's neighbour sums as grid_reynolds makes them, then its
 * boids moved by rules_accel and rules_integrate, operation for operation on each lane, into
 * slots [i0, i0 + lanes) of out. Only for constants without an interaction table (k->tab
 * NULL): its points and obstacles stay with the scalar functions. Where co is not NULL, also
 * the cells of the new positions (as grid_build computes them) into co->cell_of.
 * grid_vicsek: Vicsek heading sums and neighbour counts of the group's boids, itself
 * included, in candidate order as the scalar kernel adds them. u: the unit headings, per
 * axis. */
#define GRID_SIMD_KERNELS(w)                                                                       \
    void RULES_FN(grid_reynolds_##w)(const snapshot *s, const grid_k *k, const cell_group *q,      \
                                     grid_acc out[MAX_LANES]);                                     \
    void RULES_FN(grid_reynolds_move_##w)(const snapshot *s, const state *out, const grid_k *k,    \
                                          const cell_group *q, const cell_out *co);                \
    void RULES_FN(grid_vicsek_##w)(const snapshot *s, float *const u[D], const grid_k *k,          \
                                   const cell_group *q, float sum[D][MAX_LANES],                   \
                                   int32_t cnt[MAX_LANES]);
GRID_SIMD_KERNELS(avx2)
GRID_SIMD_KERNELS(avx512)
#undef GRID_SIMD_KERNELS

/* The cell of the boids in slots [i0, i1) of s (as grid_build computes it with
 * grid_cell_coord) into co->cell_of[i0 .. i1). Only for grids of at most INT32_MAX cells
 * per side. */
void RULES_FN(grid_cell_of_avx2)(const state *s, size_t i0, size_t i1, const cell_out *co);
#endif

/* The cells of the boids in slots [i0, i1) of cur in the grid of co into co->cell_of: by the
 * AVX2 cell kernel where simd (a grid of at most INT32_MAX cells per side), else by
 * grid_cell_coord, with the same cells (cpu_grid_build.c). */
void RULES_FN(grid_cells_of)(const state *cur, size_t i0, size_t i1, const cell_out *co, int simd);

/* A topological candidate (rules_topo.h): distance, original id (the tie-break), slot in the
 * snapshot (at). */
typedef RULES_FN(rules_nearest) cand;

/* What one step's steering reads and writes. */
typedef struct steer_ctx {
    snapshot snap;   /* reads the snapshot, */
    state out;       /* writes the new state slot for slot */
    float *const *u; /* Vicsek: unit heading of each snapshot slot, per axis */
    const grid_k *k;
    const boids_params *p;
    uint32_t t;            /* Vicsek: the noise stream's step index */
    int simd;              /* the SIMD kernels' width, 8 or 16 (same bits as the scalar ones);
                            * 0: the scalar kernels */
    const grid_win *win;   /* the rows the grid numbers */
    const uint32_t *gid;   /* tile mode: the global id of each local id (the noise's); else NULL */
    const cell_out *cells; /* the SIMD Reynolds move writes the new cells there (or NULL) */
    const grid_k *ks; /* species > 1: each species' constants (cpu_grid_species.c); else NULL */
    const uint32_t *start; /* the snapshot's cell starts */
    cand *cand; /* topological neighbours with the SIMD kernels: per thread, k entries for one
                 * boid and k for each of MAX_LANES lanes (topo_group); else NULL */
    uint32_t slot_lo, slot_hi; /* the snapshot slots the step moves, of its steered cells: all
                                * of them but where a tile begins or ends within a cell */
} steer_ctx;

/* The Vicsek move of slot i from its heading sum: old velocity for the position, new
 * heading plus the noise of (noise_seed, step, original id), as cpu-ref draws it; the
 * original id is gid's in tile mode (gid NULL: the local one). */
static inline void vicsek_move(const snapshot *snap, const state *out, const grid_k *k,
                               const boids_params *p, uint32_t t, const uint32_t *gid, uint32_t i,
                               const float sum[D], long n) {
    float x[D], v[D];
    snap_get(snap, i, x, v);
    grid_vicsek(k, p, t, gid ? gid[snap->id[i]] : snap->id[i], sum, n, x, v);
    state_put(out, i, x, v);
}

/* Units of work handed to a thread at a time: enough chunks per thread to balance dense
 * clusters. */
static inline size_t cell_chunk(size_t units, int threads) {
    size_t c = units / ((size_t)threads * 64);
    return c < 16 ? 16 : c;
}

/* One boid's k-nearest query and its selection. */
typedef struct topo_q {
    const snapshot *s;
    const grid_k *k;
    uint32_t kmax;       /* k */
    int vicsek;          /* no fov; radius test dist2 <= R^2 */
    int in_vision;       /* k_in_vision */
    const grid_win *win; /* the rows the grid numbers */
    uint32_t i;          /* the boid's slot */
    cand *best;          /* kmax entries, ordered by (dist2, id) */
    uint32_t m;          /* entries in best */
    const uint32_t *gid; /* tile mode: the id of local id j is gid[j] (ties and best's ids);
                          * NULL: the local ids */
} topo_q;

#if BOIDS_AVX2
/* The selections of the lanes of group q (cpu_grid_simd.c, _avx2 and _avx512): into
 * best + l * kmax and m[l] for lane l, the first kmax candidates in (dist2, id) order among
 * those of q's ranges that topo_scan would offer to the boid of that lane (ties by gid's ids
 * where gid is not NULL). Returns the lanes whose selection is made: not those offered a
 * dist2 that is not below +inf (the scalar search then makes theirs). */
#define GRID_TOPO_LANES(w)                                                                         \
    unsigned RULES_FN(grid_topo_lanes_##w)(                                                        \
        const snapshot *s, const grid_k *k, const cell_group *q, const uint32_t *gid,              \
        uint32_t kmax, int vicsek, int in_vision, cand *best, uint32_t m[MAX_LANES]);
GRID_TOPO_LANES(avx2)
GRID_TOPO_LANES(avx512)
#undef GRID_TOPO_LANES
#endif

/* Selects the k nearest candidates of the boid in slot q->i, in the cell of coordinates c
 * of the grid g whose cell starts in the snapshot are start, into q->best (q->m of them):
 * exactly the first k in (dist2, id) order over all candidates. */
void RULES_FN(grid_topo_select)(topo_q *q, const geom *g, const uint32_t *start,
                                const uint32_t c[D]);

/* Topological neighbours, either model: steers the boids of cells [c0, nc) of the grid g
 * (x->start its cell starts in x->snap); buf: a selection buffer of k entries per thread. */
void RULES_FN(grid_steer_topo)(const steer_ctx *x, const geom *g, size_t c0, size_t nc, cand *buf,
                               int threads);

/* The backend of this dimension (cpu_grid.c); and whether b is one. */
boids_backend *RULES_FN(cpu_grid_create)(const boids_flock *initial, int threads, boids_error *err);
int RULES_FN(cpu_grid_is)(const boids_backend *b);

/* The resident tile of a cpu backend (cpu_grid_resident.c). */
typedef struct grid_resident {
    int on;                /* resident mode: cur.id holds global ids */
    size_t nown;           /* the owned boids: slots [0, nown) of cur (the halo's follow) */
    size_t n_global;       /* the whole flock's N */
    size_t keep_b, keep_e; /* after a step's steer: the steered rows' snapshot slots */
    unsigned char *out;    /* records given back (split, owned) */
    size_t out_cap;        /* records it holds */
    uint32_t *row;         /* the rows of the boids that left */
    size_t row_cap;
    uint64_t *rows; /* the last tile_count's owned boids per row (nrows entries) */
    uint32_t nrows, rows_cap;
    uint32_t plane; /* the cells of a row of the last tile_count's grid */
    int next;       /* the last step's move wrote the owned boids' cells in grid next_g */
    geom next_g;
    size_t known; /* slots [0, known) have their cell of that grid in cells.cell_of */
    uint64_t *sq; /* the last step's candidates of its steered rows, per row */
    uint32_t sq_n, sq_cap, sq_row0; /* rows in sq (0: none), allocated, the first's global row */
    geom sq_g;                      /* the whole flock's grid they are of */
    uint32_t *blk;                  /* two planes of block sums (resident_candidates) */
    size_t blk_cap;
} grid_resident;

/* What the test hooks of cpu_grid.h set, at the start of both dimensions' backends. */
typedef struct cpu_grid_hooks {
    boids_backend base;
    int force_scalar;  /* the scalar kernels even where AVX2 runs */
    int force_avx2;    /* the AVX2 kernels even where AVX-512 runs */
    int fixed_threads; /* no thread_pick: every step on all threads */
    int skew_split;    /* strip_split's cuts drawn at random every step (any cut, same bits) */
    int have_avx2;     /* the processor runs the AVX2 kernels */
    int have_avx512;   /* ... and the AVX-512 ones */
} cpu_grid_hooks;

#endif
