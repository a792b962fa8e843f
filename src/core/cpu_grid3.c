/* SPDX-License-Identifier: MIT */
/* cpu in three dimensions: the grid path for 3-D flocks (boids_cpu_create hands a flock with
 * z arrays here). Float state in structure-of-arrays, a uniform grid of cells at least
 * vision_radius (plus a float margin, grid_geom.h) wide rebuilt by a counting sort every
 * step, OpenMP threads over cells, scalar kernels (the rules of rules.h called per
 * candidate).
 *
 * One step:
 *   1. the grid: the world's cells (wrap, walls) or cells over the flock's bounding box (open),
 *      at most about 4 per boid; the cell of every boid; a counting sort of the whole state
 *      into the snapshot, and each cell's boids ordered by id;
 *   2. for every boid, the sums over the 27 cells around its own (each cell once, also when
 *      an axis has fewer than 3 cells) in a candidate order fixed by the grid, or the k
 *      nearest found by searching shells of cells outward; then rules_accel /
 *      rules_integrate (or the Vicsek update), the interaction table's points and spheres
 *      included, into the other buffer, slot for slot.
 *
 * Every boid's sums run over an order fixed by the state alone (cells in id order), on one
 * thread, so the result has the same bits for any thread count and for a resumed run. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "backend_impl.h"
#include "cpu_grid.h"
#include "grid_geom.h"

#define RULES_REAL     float
#define RULES_DIM      3
#define RULES_FN(name) name##_f3
#include "rules.h"

enum { PARALLEL_MIN = 2048 }; /* below this many boids, threads cost more than they save */

/* One copy of the state: positions, velocities and the id of the boid in each slot. */
typedef struct state3 {
    float *p[3], *v[3]; /* x y z, vx vy vz */
    uint32_t *id;
} state3;

/* The grid: n[a] cells along axis a of 1 / s[a] (float) from the origin o[a]. */
typedef struct geom3 {
    uint32_t n[3];
    size_t ncells;
    float s[3];
    float o[3];   /* 0, or the corner of the flock's box (a float position: x - o exact) */
    int wrap;     /* the cells tile a periodic world */
    double reach; /* cells r + 1 or more apart are at d2 > (r * reach)^2 (see grid_geom) */
} geom3;

typedef struct cpu3 {
    boids_backend base;
    int threads; /* >= 1 */
    state3 cur, snap;
    uint32_t *cell_of; /* cell of each slot of cur */
    uint32_t *start;   /* ncells + 1 cell starts in snap */
    size_t start_cap;
    float *unit; /* Vicsek: 3 per snapshot slot, vicsek_add's terms */
    uint32_t t;  /* steps since upload: the Vicsek noise stream's step index */
} cpu3;

/* A topological candidate: distance, original id (the tie-break), slot in the snapshot. */
typedef struct cand3 {
    float d2;
    uint32_t id, slot;
} cand3;

static void state_free(state3 *s) {
    free(s->p[0]);
    memset(s, 0, sizeof *s);
}

static int state_alloc(state3 *s, size_t n) {
    float *block = malloc(n * 6 * sizeof(float) + n * sizeof(uint32_t));
    if (!block) return 0;
    for (int a = 0; a < 3; a++) {
        s->p[a] = block + (size_t)a * n;
        s->v[a] = block + (size_t)(3 + a) * n;
    }
    s->id = (uint32_t *)(void *)(block + 6 * n);
    return 1;
}

/* ---- geometry -------------------------------------------------------------------------- */

/* The rounding margin of grid_geom.c: 16 float ulps of the largest extent, >= R / 1024. */
static double margin_for(double radius, double ext) {
    return fmax(radius / 1024, 16 * FLT_EPSILON * ext);
}

static void reach_of(geom3 *g, double margin) {
    double w = INFINITY;
    for (int a = 0; a < 3; a++)
        if (g->n[a] > 1) w = fmin(w, 1.0 / (double)g->s[a]);
    g->reach = isinf(w) ? 0 : fmax(0, w - margin);
}

/* Fewer cells until their product is at most cap: scaled by the cube root first, then the
 * axis with the most cells halved. */
static void cap_cells(double n[3], double cap) {
    double total = n[0] * n[1] * n[2];
    if (total > cap) {
        double f = cbrt(total / cap);
        for (int a = 0; a < 3; a++) n[a] = fmax(1, floor(n[a] / f));
    }
    while (n[0] * n[1] * n[2] > cap) {
        int a = n[0] >= n[1] && n[0] >= n[2] ? 0 : n[1] >= n[2] ? 1 : 2;
        n[a] = floor(n[a] / 2);
    }
}

/* The world's cells (wrap, walls): W / n wide, as many of at least R + margin as fit. */
static void world_geom(geom3 *g, const boids_params *p, double cap) {
    const double side[3] = {p->width, p->height, p->depth};
    const double margin = margin_for(p->vision_radius, fmax(fmax(side[0], side[1]), side[2]));
    double n[3];
    for (int a = 0; a < 3; a++) n[a] = fmax(1, floor(side[a] / (p->vision_radius + margin)));
    cap_cells(n, cap);
    for (int a = 0; a < 3; a++) {
        g->n[a] = (uint32_t)n[a];
        g->s[a] = (float)(n[a] / side[a]);
        g->o[a] = 0;
    }
    g->wrap = p->boundary == BOIDS_BOUNDARY_WRAP;
    reach_of(g, margin);
}

/* Cells over the flock's bounding box (open boundary), origin at its corner: cells of
 * 1 / s >= R + margin in float, widened until they fit in cap. */
static void box_geom(geom3 *g, const cpu3 *c, double radius, double cap) {
    float lo[3], hi[3], am = 0;
    for (int a = 0; a < 3; a++) {
        lo[a] = INFINITY, hi[a] = -INFINITY;
        for (size_t i = 0; i < c->base.n; i++) {
            const float x = c->cur.p[a][i];
            lo[a] = x < lo[a] ? x : lo[a];
            hi[a] = x > hi[a] ? x : hi[a];
            am = fabsf(x) > am ? fabsf(x) : am;
        }
    }
    double ext = 0;
    for (int a = 0; a < 3; a++) ext = fmax(ext, (double)hi[a] - lo[a]);
    const double margin = margin_for(radius, fmax(ext, am));
    double rc = radius + margin, n[3];
    float s;
    for (;;) {
        s = (float)(1.0 / rc);
        if ((double)s * rc > 1) s = nextafterf(s, 0); /* cells no narrower than rc */
        for (int a = 0; a < 3; a++) n[a] = floor(((double)hi[a] - lo[a]) * (double)s) + 1;
        if (n[0] * n[1] * n[2] <= cap) break;
        rc *= fmax(1.25, cbrt(n[0] * n[1] * n[2] / cap));
    }
    for (int a = 0; a < 3; a++) {
        g->n[a] = (uint32_t)n[a];
        g->s[a] = s;
        g->o[a] = lo[a];
    }
    g->wrap = 0;
    reach_of(g, margin);
}

static void geometry(geom3 *g, const cpu3 *c, const boids_params *p) {
    const double cap = boids_grid_geom_cap(c->base.n);
    if (p->boundary == BOIDS_BOUNDARY_OPEN)
        box_geom(g, c, p->vision_radius, cap);
    else
        world_geom(g, p, cap);
    g->ncells = (size_t)g->n[0] * g->n[1] * g->n[2];
}

/* ---- grid build ------------------------------------------------------------------------ */

/* Orders the boids of snapshot slots [b, e) by id (insertion sort: a cell holds a few boids,
 * mostly in order already). */
static void cell_sort_by_id(const state3 *s, uint32_t b, uint32_t e) {
    for (uint32_t i = b + 1; i < e; i++) {
        const uint32_t id = s->id[i];
        if (s->id[i - 1] < id) continue;
        float p[3], v[3];
        for (int a = 0; a < 3; a++) p[a] = s->p[a][i], v[a] = s->v[a][i];
        uint32_t j = i;
        for (; j > b && s->id[j - 1] > id; j--) {
            for (int a = 0; a < 3; a++) s->p[a][j] = s->p[a][j - 1], s->v[a][j] = s->v[a][j - 1];
            s->id[j] = s->id[j - 1];
        }
        for (int a = 0; a < 3; a++) s->p[a][j] = p[a], s->v[a][j] = v[a];
        s->id[j] = id;
    }
}

/* Cells of every boid (in parallel), then a counting sort of cur into snap (serial: a few
 * passes over the state, small beside the steering), then each cell in id order. */
static boids_status grid_build(cpu3 *c, const geom3 *g, int threads, boids_error *err) {
    const size_t n = c->base.n, nc = g->ncells;
    boids_status st = grid_reserve_starts(&c->start, &c->start_cap, nc, err);
    if (st) return st;
    const state3 cur = c->cur, snap = c->snap;
    uint32_t *const cell_of = c->cell_of, *const start = c->start;
#pragma omp parallel for schedule(static) num_threads(threads) if (threads > 1)
    for (long i = 0; i < (long)n; i++) {
        uint32_t k[3];
        for (int a = 0; a < 3; a++) k[a] = grid_cell_coord(cur.p[a][i] - g->o[a], g->s[a], g->n[a]);
        cell_of[i] = (k[2] * g->n[1] + k[1]) * g->n[0] + k[0];
    }
    memset(start, 0, (nc + 1) * sizeof *start);
    for (size_t i = 0; i < n; i++) start[cell_of[i] + 1]++;
    for (size_t q = 0; q < nc; q++) start[q + 1] += start[q];
    for (size_t i = 0; i < n; i++) {
        const uint32_t d = start[cell_of[i]]++;
        for (int a = 0; a < 3; a++) snap.p[a][d] = cur.p[a][i], snap.v[a][d] = cur.v[a][i];
        snap.id[d] = cur.id[i];
    }
    for (size_t q = nc; q > 0; q--) start[q] = start[q - 1]; /* back to the starts */
    start[0] = 0;
#pragma omp parallel for schedule(dynamic, 256) num_threads(threads) if (threads > 1)
    for (long q = 0; q < (long)nc; q++) cell_sort_by_id(&snap, start[q], start[q + 1]);
    return BOIDS_OK;
}

/* ---- candidates ------------------------------------------------------------------------ */

/* The distinct cell coordinates around coordinate c of an axis of n cells, in ascending
 * offset order: all of them for n <= 3, else c - 1, c, c + 1 (periodically under wrap,
 * clipped otherwise). Returns how many (<= 3). */
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

/* The candidate slots of a cell: its 27-cell block as snapshot ranges, in z, y, x order,
 * adjacent ranges merged (which keeps the order). This order is the summation order of
 * every boid of the cell. Returns the number of ranges (<= 27). */
static int cell_ranges(const geom3 *g, const uint32_t *start, const uint32_t k[3],
                       grid_range r[27]) {
    uint32_t cx[3], cy[3], cz[3];
    const int nx = axis_cells(g->wrap, k[0], g->n[0], cx);
    const int ny = axis_cells(g->wrap, k[1], g->n[1], cy);
    const int nz = axis_cells(g->wrap, k[2], g->n[2], cz);
    int nr = 0;
    for (int z = 0; z < nz; z++)
        for (int y = 0; y < ny; y++)
            for (int x = 0; x < nx; x++) {
                const size_t cell = ((size_t)cz[z] * g->n[1] + cy[y]) * g->n[0] + cx[x];
                nr = grid_range_add(r, nr, start[cell], start[cell + 1]);
            }
    return nr;
}

/* What one step's steering reads and writes. */
typedef struct ctx3 {
    state3 snap, out;
    const float *unit;
    const rules_k_f3 *k;
    const boids_params *p;
    uint32_t t;
    cand3 *best; /* topological: this thread's k entries */
} ctx3;

/* Offset and squared distance from slot i to slot j. */
static inline float offset3(const ctx3 *x, uint32_t i, uint32_t j, float d[3]) {
    const state3 *s = &x->snap;
    const float pi[3] = {s->p[0][i], s->p[1][i], s->p[2][i]};
    const float pj[3] = {s->p[0][j], s->p[1][j], s->p[2][j]};
    rules_offset_f3(x->k, pi, pj, d);
    return rules_dot_f3(d, d);
}

/* Is slot j a metric neighbour of slot i (d2 < R^2 and the cone for Reynolds; d2 <= R^2 for
 * Vicsek)? */
static inline int metric_hit(const ctx3 *x, int vicsek, uint32_t i, uint32_t j, float d[3],
                             float *d2) {
    if (j == i) return 0;
    *d2 = offset3(x, i, j, d);
    if (vicsek) return *d2 <= x->k->vision2;
    const state3 *s = &x->snap;
    const float vi[3] = {s->v[0][i], s->v[1][i], s->v[2][i]};
    return rules_sees_f3(x->k, d, *d2, vi);
}

/* ---- topological selection ----------------------------------------------------------- */

static inline int cand_before(float d2, uint32_t id, const cand3 *b) {
    return d2 < b->d2 || (d2 == b->d2 && id < b->id);
}

/* Offers the boids of snapshot slots [b, e) to slot i's selection of *m of kmax. */
static void topo_scan(const ctx3 *x, uint32_t i, uint32_t b, uint32_t e, uint32_t kmax,
                      uint32_t *m) {
    const int vicsek = x->p->model == BOIDS_MODEL_VICSEK, in_vision = x->p->k_in_vision != 0;
    const state3 *s = &x->snap;
    for (uint32_t j = b; j < e; j++) {
        if (j == i) continue;
        float d[3];
        const float d2 = offset3(x, i, j, d);
        const uint32_t id = s->id[j];
        if (*m == kmax && !cand_before(d2, id, &x->best[kmax - 1])) continue;
        if (in_vision && !(vicsek ? d2 <= x->k->vision2 : d2 < x->k->vision2)) continue;
        const float vi[3] = {s->v[0][i], s->v[1][i], s->v[2][i]};
        if (!vicsek && !rules_in_fov_f3(x->k, d, d2, vi)) continue;
        uint32_t pos = *m < kmax ? (*m)++ : *m - 1;
        for (; pos > 0 && cand_before(d2, id, &x->best[pos - 1]); pos--)
            x->best[pos] = x->best[pos - 1];
        x->best[pos] = (cand3){d2, id, j};
    }
}

/* Offsets along an axis that name distinct cells (see cpu_grid_topo.c's axis_span). */
static void axis_span(int wrap, uint32_t c, uint32_t n, long *lo, long *hi) {
    *lo = wrap ? -(long)((n - 1) / 2) : -(long)c;
    *hi = wrap ? (long)(n / 2) : (long)(n - 1 - c);
}

static inline uint32_t axis_cell(int wrap, uint32_t c, uint32_t n, long d) {
    long v = (long)c + d;
    if (wrap) v = (v % (long)n + (long)n) % (long)n;
    return (uint32_t)v;
}

/* The k nearest candidates of slot i in cell k into x->best (returns how many), exactly
 * the first k in (d2, id) order: shells of cells at Chebyshev offset r = 0, 1, ... are
 * searched until the k-th is nearer than any unvisited boid can be, (r * reach)^2
 * (cpu_grid_topo.c's argument, in three axes). With k_in_vision only r <= 1 can hold any. */
static uint32_t topo_select(const ctx3 *x, const geom3 *g, const uint32_t *start, uint32_t i,
                            const uint32_t k[3]) {
    long lo[3], hi[3], rmax = 0;
    for (int a = 0; a < 3; a++) {
        axis_span(g->wrap, k[a], g->n[a], &lo[a], &hi[a]);
        rmax = -lo[a] > rmax ? -lo[a] : rmax;
        rmax = hi[a] > rmax ? hi[a] : rmax;
    }
    if (x->p->k_in_vision && rmax > 1) rmax = 1;
    const uint32_t kmax = (uint32_t)x->p->k;
    uint32_t m = 0;
    for (long r = 0; r <= rmax; r++) {
        const long x0 = lo[0] > -r ? lo[0] : -r, x1 = hi[0] < r ? hi[0] : r;
        for (long dz = lo[2] > -r ? lo[2] : -r; dz <= (hi[2] < r ? hi[2] : r); dz++)
            for (long dy = lo[1] > -r ? lo[1] : -r; dy <= (hi[1] < r ? hi[1] : r); dy++) {
                const size_t row = ((size_t)axis_cell(g->wrap, k[2], g->n[2], dz) * g->n[1] +
                                    axis_cell(g->wrap, k[1], g->n[1], dy)) *
                                   g->n[0];
                if (dz == -r || dz == r || dy == -r || dy == r) { /* a full row of the shell */
                    for (long dx = x0; dx <= x1; dx++) {
                        const size_t cell = row + axis_cell(g->wrap, k[0], g->n[0], dx);
                        topo_scan(x, i, start[cell], start[cell + 1], kmax, &m);
                    }
                    continue;
                }
                if (-r >= lo[0]) { /* else its two ends */
                    const size_t cell = row + axis_cell(g->wrap, k[0], g->n[0], -r);
                    topo_scan(x, i, start[cell], start[cell + 1], kmax, &m);
                }
                if (r <= hi[0]) {
                    const size_t cell = row + axis_cell(g->wrap, k[0], g->n[0], r);
                    topo_scan(x, i, start[cell], start[cell + 1], kmax, &m);
                }
            }
        if (m == kmax && r >= 1) {
            const double bound = (double)r * g->reach;
            if ((double)x->best[m - 1].d2 < bound * bound) break;
        }
    }
    return m;
}

/* ---- steering ------------------------------------------------------------------------- */

/* Writes slot i's new state into the out buffer. */
static inline void put(const ctx3 *x, uint32_t i, const float p[3], const float v[3]) {
    for (int a = 0; a < 3; a++) x->out.p[a][i] = p[a], x->out.v[a][i] = v[a];
}

static inline void get(const state3 *s, uint32_t i, float p[3], float v[3]) {
    for (int a = 0; a < 3; a++) p[a] = s->p[a][i], v[a] = s->v[a][i];
}

/* Adds neighbour j to Reynolds sums. */
static inline void reynolds_add(const ctx3 *x, rules_acc_f3 *a, uint32_t j, const float d[3],
                                float d2) {
    const state3 *s = &x->snap;
    const float vj[3] = {s->v[0][j], s->v[1][j], s->v[2][j]};
    rules_acc_add_f3(x->k, a, d, d2, vj);
}

/* Adds slot j's unit heading to a Vicsek sum. */
static inline void vicsek_add(const ctx3 *x, float sum[3], uint32_t j) {
    for (int a = 0; a < 3; a++) sum[a] += x->unit[3 * (size_t)j + a];
}

static void reynolds_move(const ctx3 *x, uint32_t i, const rules_acc_f3 *acc) {
    float p[3], v[3], a[3];
    get(&x->snap, i, p, v);
    rules_accel_f3(x->k, acc, p, v, a);
    rules_integrate_f3(x->k, a, p, v);
    put(x, i, p, v);
}

/* The Vicsek move of slot i: old velocity for the position, the new direction from the sum
 * of n headings and the two noise variates of (noise_seed, step, original id). */
static void vicsek_move(const ctx3 *x, uint32_t i, const float sum[3], long n) {
    float p[3], v[3];
    get(&x->snap, i, p, v);
    const uint64_t seed = (uint64_t)x->p->noise_seed;
    const float u1 = (float)boids_noise_u(seed, x->t, x->snap.id[i]); /* 24 bits: exact */
    const float u2 = (float)boids_noise_u2(seed, x->t, x->snap.id[i]);
    vicsek_update_f3(x->k, sum, n, u1, u2, (float)x->p->noise, (float)x->p->speed, p, v);
    put(x, i, p, v);
}

/* Slot i's Reynolds sums over the candidate ranges, then its move. Everything the loop
 * reads is held in locals (the arrays, the constants, the sums): through the context's
 * pointers, each store into the sums could alias them and force their reload for every
 * candidate (cpu_grid.c's reynolds_scalar says the same). */
static void reynolds_metric_boid(const ctx3 *x, const grid_range *r, int nr, uint32_t i) {
    const rules_k_f3 k = *x->k;
    const float *const px = x->snap.p[0], *const py = x->snap.p[1], *const pz = x->snap.p[2];
    const float *const vx = x->snap.v[0], *const vy = x->snap.v[1], *const vz = x->snap.v[2];
    const float xi = px[i], yi = py[i], zi = pz[i], vxi = vx[i], vyi = vy[i], vzi = vz[i];
    rules_acc_f3 acc;
    rules_acc_init_f3(&acc);
    for (int w = 0; w < nr; w++)
        for (uint32_t j = r[w].b, e = r[w].e; j < e; j++) {
            if (j == i) continue;
            const float pi[3] = {xi, yi, zi}, pj[3] = {px[j], py[j], pz[j]};
            const float vi[3] = {vxi, vyi, vzi}, vj[3] = {vx[j], vy[j], vz[j]};
            float d[3];
            rules_offset_f3(&k, pi, pj, d);
            const float d2 = rules_dot_f3(d, d);
            if (!rules_sees_f3(&k, d, d2, vi)) continue;
            rules_acc_add_f3(&k, &acc, d, d2, vj);
        }
    reynolds_move(x, i, &acc);
}

/* Slot i's Vicsek heading sum over the candidate ranges, itself included in candidate
 * order, then its move; locals as above. */
static void vicsek_metric_boid(const ctx3 *x, const grid_range *r, int nr, uint32_t i) {
    const rules_k_f3 k = *x->k;
    const float *const px = x->snap.p[0], *const py = x->snap.p[1], *const pz = x->snap.p[2];
    const float *const unit = x->unit;
    const float xi = px[i], yi = py[i], zi = pz[i];
    float sum[3] = {0, 0, 0};
    long n = 0;
    for (int w = 0; w < nr; w++)
        for (uint32_t j = r[w].b, e = r[w].e; j < e; j++) {
            if (j != i) {
                const float pi[3] = {xi, yi, zi}, pj[3] = {px[j], py[j], pz[j]};
                float d[3];
                rules_offset_f3(&k, pi, pj, d);
                if (!(rules_dot_f3(d, d) <= k.vision2)) continue;
            }
            sum[0] += unit[3 * (size_t)j];
            sum[1] += unit[3 * (size_t)j + 1];
            sum[2] += unit[3 * (size_t)j + 2];
            n++;
        }
    vicsek_move(x, i, sum, n);
}

/* Slot i with its k nearest, summed in their (d2, id) order (itself first for Vicsek). */
static void steer_topo_boid(const ctx3 *x, const geom3 *g, const uint32_t *start, uint32_t i,
                            const uint32_t k[3]) {
    const uint32_t m = topo_select(x, g, start, i, k);
    if (x->p->model == BOIDS_MODEL_VICSEK) {
        float sum[3] = {0, 0, 0};
        vicsek_add(x, sum, i);
        for (uint32_t a = 0; a < m; a++) vicsek_add(x, sum, x->best[a].slot);
        vicsek_move(x, i, sum, (long)m + 1);
        return;
    }
    rules_acc_f3 acc;
    rules_acc_init_f3(&acc);
    for (uint32_t a = 0; a < m; a++) {
        float d[3];
        const float d2 = offset3(x, i, x->best[a].slot, d);
        reynolds_add(x, &acc, x->best[a].slot, d, d2);
    }
    reynolds_move(x, i, &acc);
}

/* The coordinates of a cell index. */
static void cell_coords(const geom3 *g, size_t cell, uint32_t k[3]) {
    k[0] = (uint32_t)(cell % g->n[0]);
    k[1] = (uint32_t)(cell / g->n[0] % g->n[1]);
    k[2] = (uint32_t)(cell / ((size_t)g->n[0] * g->n[1]));
}

/* Every boid of the snapshot, cells shared among the threads; the k-nearest buffers are
 * allocated per thread here. */
static boids_status steer(cpu3 *c, const geom3 *g, const rules_k_f3 *k, const boids_params *p,
                          int threads, boids_error *err) {
    const int topo = p->neighbours == BOIDS_NEIGHBOURS_TOPOLOGICAL;
    const int vicsek = p->model == BOIDS_MODEL_VICSEK;
    const uint32_t *const start = c->start;
    int failed = 0;
#pragma omp parallel num_threads(threads) if (threads > 1) reduction(| : failed)
    {
        ctx3 x = {c->snap, c->cur, c->unit, k, p, c->t, NULL};
        if (topo && !(x.best = malloc((size_t)p->k * sizeof *x.best))) failed = 1;
#pragma omp for schedule(dynamic, 16)
        for (long cell = 0; cell < (long)g->ncells; cell++) {
            const uint32_t b0 = start[cell], b1 = start[cell + 1];
            if (b0 == b1 || (topo && !x.best)) continue;
            uint32_t kc[3];
            cell_coords(g, (size_t)cell, kc);
            grid_range r[27];
            const int nr = topo ? 0 : cell_ranges(g, start, kc, r);
            for (uint32_t i = b0; i < b1; i++) {
                if (topo)
                    steer_topo_boid(&x, g, start, i, kc);
                else if (vicsek)
                    vicsek_metric_boid(&x, r, nr, i);
                else
                    reynolds_metric_boid(&x, r, nr, i);
            }
        }
        free(x.best);
    }
    if (failed)
        return boids_error_set(err, BOIDS_ERR_NOMEM, "cpu: out of memory for the k = %ld selection",
                               p->k);
    return BOIDS_OK;
}

/* Unit heading of every snapshot slot, as vicsek_add computes it. */
static void unit_headings(cpu3 *c, int threads) {
    const state3 s = c->snap;
    float *const u = c->unit;
#pragma omp parallel for schedule(static) num_threads(threads) if (threads > 1)
    for (long i = 0; i < (long)c->base.n; i++) {
        float *ui = u + 3 * (size_t)i;
        ui[0] = ui[1] = ui[2] = 0;
        const float v[3] = {s.v[0][i], s.v[1][i], s.v[2][i]};
        vicsek_add_f3(v, ui);
    }
}

static int run_threads(const cpu3 *c) {
    return c->base.n >= PARALLEL_MIN ? c->threads : 1;
}

static boids_status step(boids_backend *b, const boids_params *p, unsigned steps,
                         boids_error *err) {
    cpu3 *c = (cpu3 *)b;
    if (p->neighbours == BOIDS_NEIGHBOURS_TOPOLOGICAL && (p->k < 1 || p->k > 1000))
        return boids_error_set(err, BOIDS_ERR_INPUT, "cpu: k = %ld is outside [1, 1000]", p->k);
    const int threads = run_threads(c);
    rules_k_f3 k;
    rules_table_f3 tab;
    rules_k_init_f3(&k, p);
    rules_k_set_interact_f3(&k, &tab, &b->inter);
    for (unsigned s = 0; s < steps; s++, c->t++) {
        geom3 g;
        geometry(&g, c, p);
        boids_status st = grid_build(c, &g, threads, err);
        if (!st && p->model == BOIDS_MODEL_VICSEK) unit_headings(c, threads);
        if (!st) st = steer(c, &g, &k, p, threads, err);
        if (st) return st;
        /* cur now holds the new state in the snapshot's slot order: its ids are snap's. */
        uint32_t *id = c->cur.id;
        c->cur.id = c->snap.id;
        c->snap.id = id;
    }
    return BOIDS_OK;
}

/* ---- neighbours, download, upload ---------------------------------------------------- */

/* Slot i's neighbour count and id-set hash, as its step would see them. */
static void neighbour_boid(const ctx3 *x, const geom3 *g, const uint32_t *start, uint32_t i,
                           const uint32_t kc[3], uint32_t *count, uint64_t *hash) {
    uint32_t n = 0;
    uint64_t h = 0;
    if (x->p->neighbours == BOIDS_NEIGHBOURS_TOPOLOGICAL) {
        n = topo_select(x, g, start, i, kc);
        for (uint32_t a = 0; a < n; a++) h += boids_neighbour_set_hash(x->best[a].id);
    } else {
        grid_range r[27];
        const int nr = cell_ranges(g, start, kc, r);
        const int vicsek = x->p->model == BOIDS_MODEL_VICSEK;
        for (int w = 0; w < nr; w++)
            for (uint32_t j = r[w].b; j < r[w].e; j++) {
                float d[3], d2;
                if (!metric_hit(x, vicsek, i, j, d, &d2)) continue;
                n++;
                h += boids_neighbour_set_hash(x->snap.id[j]);
            }
    }
    count[x->snap.id[i]] = n;
    hash[x->snap.id[i]] = h;
}

static boids_status neighbours(boids_backend *b, const boids_params *p, uint32_t *count,
                               uint64_t *set_hash, boids_error *err) {
    cpu3 *c = (cpu3 *)b;
    const int threads = run_threads(c), topo = p->neighbours == BOIDS_NEIGHBOURS_TOPOLOGICAL;
    geom3 g;
    geometry(&g, c, p);
    boids_status st = grid_build(c, &g, threads, err); /* fills snap only */
    if (st) return st;
    rules_k_f3 k;
    rules_k_init_f3(&k, p);
    int failed = 0;
#pragma omp parallel num_threads(threads) if (threads > 1) reduction(| : failed)
    {
        ctx3 x = {c->snap, c->cur, c->unit, &k, p, c->t, NULL};
        if (topo && !(x.best = malloc((size_t)p->k * sizeof *x.best))) failed = 1;
#pragma omp for schedule(dynamic, 16)
        for (long cell = 0; cell < (long)g.ncells; cell++) {
            if (topo && !x.best) continue;
            uint32_t kc[3];
            cell_coords(&g, (size_t)cell, kc);
            for (uint32_t i = c->start[cell]; i < c->start[cell + 1]; i++)
                neighbour_boid(&x, &g, c->start, i, kc, count, set_hash);
        }
        free(x.best);
    }
    if (failed)
        return boids_error_set(err, BOIDS_ERR_NOMEM, "cpu: out of memory for the k = %ld selection",
                               p->k);
    return BOIDS_OK;
}

static boids_status download(boids_backend *b, boids_flock *out, boids_error *err) {
    cpu3 *c = (cpu3 *)b;
    (void)err;
    double *dst[6] = {out->x, out->y, out->z, out->vx, out->vy, out->vz};
    for (size_t i = 0; i < c->base.n; i++) {
        const uint32_t id = c->cur.id[i];
        for (int a = 0; a < 3; a++) {
            dst[a][id] = c->cur.p[a][i];
            dst[3 + a][id] = c->cur.v[a][i];
        }
    }
    out->step = c->t;
    return BOIDS_OK;
}

static boids_status upload(boids_backend *b, const boids_flock *in, boids_error *err) {
    cpu3 *c = (cpu3 *)b;
    const size_t n = in->n;
    const size_t per_boid =
        2 * (6 * sizeof(float) + sizeof(uint32_t)) + sizeof(uint32_t) + 3 * sizeof(float);
    if (n >= UINT32_MAX || n > SIZE_MAX / per_boid)
        return boids_error_set(err, BOIDS_ERR_LIMIT,
                               "cpu: %zu boids is beyond this path's limit of %u", n,
                               (unsigned)(UINT32_MAX - 1));
    state3 cur, snap;
    uint32_t *cell_of = malloc(n * sizeof *cell_of);
    float *unit = malloc(3 * n * sizeof *unit);
    int ok_cur = state_alloc(&cur, n), ok_snap = state_alloc(&snap, n);
    if (!cell_of || !unit || !ok_cur || !ok_snap) {
        free(cell_of);
        free(unit);
        if (ok_cur) state_free(&cur);
        if (ok_snap) state_free(&snap);
        return boids_error_set(err, BOIDS_ERR_NOMEM, "cpu: out of memory for %zu boids (%zu MiB)",
                               n, n * per_boid >> 20);
    }
    const double *src[6] = {in->x, in->y, in->z, in->vx, in->vy, in->vz};
    for (size_t i = 0; i < n; i++) {
        for (int a = 0; a < 3; a++) {
            cur.p[a][i] = (float)src[a][i];
            cur.v[a][i] = (float)src[3 + a][i];
        }
        cur.id[i] = (uint32_t)i;
    }
    state_free(&c->cur);
    state_free(&c->snap);
    free(c->cell_of);
    free(c->unit);
    c->cur = cur;
    c->snap = snap;
    c->cell_of = cell_of;
    c->unit = unit;
    c->base.n = n;
    c->t = in->step; /* the noise stream goes on from the state's step, as in cpu-ref */
    return BOIDS_OK;
}

static void destroy(boids_backend *b) {
    cpu3 *c = (cpu3 *)b;
    state_free(&c->cur);
    state_free(&c->snap);
    free(c->cell_of);
    free(c->unit);
    free(c->start);
    free(c);
}

static const boids_backend_ops ops = {"cpu", destroy, step, download, upload, neighbours};

boids_backend *boids_cpu3_create(const boids_flock *initial, int threads, boids_error *err) {
    cpu3 *c = calloc(1, sizeof *c);
    if (!c) {
        boids_error_set(err, BOIDS_ERR_NOMEM, "out of memory");
        return NULL;
    }
    c->base.ops = &ops;
    c->base.dim = 3;
#ifdef _OPENMP
    c->threads = threads > 0 ? threads : omp_get_max_threads();
#else
    c->threads = 1;
    (void)threads;
#endif
    if (c->threads < 1) c->threads = 1;
    if (upload(&c->base, initial, err)) {
        destroy(&c->base);
        return NULL;
    }
    return &c->base;
}

int boids_cpu3_is(const boids_backend *b) {
    return b && b->ops == &ops;
}
