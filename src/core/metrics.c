/* SPDX-License-Identifier: MIT */
/* Observables of a flock state (definitions in include/boids/metrics.h), one source for
 * the plane and the box: a flock with z arrays is measured over three axes, one without
 * over two, every distance, centre and grid loop running over the flock's axes.
 *
 * Everything that looks at pairs goes through one uniform grid whose cells are at least
 * vision_radius wide (the periodic world's, or over the flock's bounding box, with at most
 * about 4N cells), so that the boids within vision_radius of a boid lie in the 3^dim cells
 * around its own; the nearest neighbour searches shells of cells outward. Positions are
 * double here, and cells are made 2^-20 wider than the radius so that the rounding of a
 * cell index cannot put a pair within the radius two cells apart. Per-boid results are
 * computed in parallel into arrays and summed in id order, so the result does not depend
 * on the number of threads (nor on the grid: minima, counts and components).
 *
 * Each sum runs over the axes in order x, y, z from 0, which is the plane's expression
 * dx * dx + dy * dy to the bit (0 + a is a). What differs by dimension is milling's cross
 * product, a number in the plane and a vector in the box (milling_of below). */
#include "boids/metrics.h"
#include "check.h"
#include "grid_geom.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

const char boids_metrics_columns[] =
    "order,milling,nn_distance,neighbours,clusters,largest_cluster";

const char *const boids_metrics_names[BOIDS_METRICS_COUNT] = {
    "order", "milling", "nn_distance", "neighbours", "clusters", "largest_cluster"};

double boids_metrics_get(const boids_metrics *m, int i) {
    if (!m) return NAN;
    switch (i) {
    case 0:
        return m->order;
    case 1:
        return m->milling;
    case 2:
        return m->nn_distance;
    case 3:
        return m->neighbours;
    case 4:
        return m->clusters;
    case 5:
        return m->largest_cluster;
    }
    return NAN;
}

int boids_metrics_format(const boids_metrics *m, char *buf, size_t size) {
    if (!m) return -1;
    if (!buf) size = 0; /* the length it would have */
    return snprintf(buf, size, "%.17g,%.17g,%.17g,%.17g,%.17g,%.17g", m->order, m->milling,
                    m->nn_distance, m->neighbours, m->clusters, m->largest_cluster);
}

/* Shortest periodic image of a difference d of two coordinates in [0, side]: |d| <= side,
 * so one correction is enough. The same test as the rules' wrap, so that metrics and
 * interactions agree on who is within reach. */
static inline double wrap_diff(double d, double side, double half) {
    if (d > half) return d - side;
    if (d < -half) return d + side;
    return d;
}

/* The flock's axes: positions, velocities and the world's side along x, y (and z). */
typedef struct axes {
    int dim;
    const double *pos[3], *vel[3];
    double side[3];
} axes;

static axes axes_of(const boids_flock *f, const boids_params *p, int dim) {
    return (axes){dim, {f->x, f->y, f->z}, {f->vx, f->vy, f->vz}, {p->width, p->height, p->depth}};
}

/* Circular mean of coordinates on a circle of circumference `side`: each coordinate is an
 * angle theta = 2 pi x / side; the mean angle is atan2(sum sin, sum cos), mapped back into
 * [0, side). atan2(0, 0) = 0 when the mean vector vanishes (see the header). */
static double circular_mean(const double *x, size_t n, double side) {
    double s = 0, c = 0, k = 2.0 * M_PI / side;
    for (size_t i = 0; i < n; i++) {
        s += sin(k * x[i]);
        c += cos(k * x[i]);
    }
    double m = atan2(s, c) / k;
    if (m < 0) m += side;
    if (m >= side) m -= side;
    return m;
}

/* The centre along each of the first ax->dim axes (f valid and not empty). */
static void centre_of(const boids_flock *f, const boids_params *p, const axes *ax, double c[3]) {
    for (int a = 0; a < ax->dim; a++) {
        if (p->boundary == BOIDS_BOUNDARY_WRAP) {
            c[a] = circular_mean(ax->pos[a], f->n, ax->side[a]);
            continue;
        }
        double s = 0;
        for (size_t i = 0; i < f->n; i++) s += ax->pos[a][i];
        c[a] = s / (double)f->n;
    }
}

void boids_metrics_centre(const boids_flock *f, const boids_params *p, double *cx, double *cy) {
    if (!cx || !cy) return;
    *cx = *cy = 0;
    if (boids_flock_bad_arrays(f) || !p || f->n == 0) return;
    const axes ax = axes_of(f, p, 2);
    double c[3];
    centre_of(f, p, &ax, c);
    *cx = c[0];
    *cy = c[1];
}

void boids_metrics_centre3(const boids_flock *f, const boids_params *p, double c[3]) {
    if (!c) return;
    c[0] = c[1] = c[2] = 0;
    if (boids_flock_bad_arrays(f) || !p || f->n == 0 || !f->z) return;
    const axes ax = axes_of(f, p, 3);
    centre_of(f, p, &ax, c);
}

/* Milling |(1/N) sum_i rhat_i x u_i| about the centre (shortest image under wrap). The
 * cross product is where the dimensions differ: in the plane it is the one number
 * r_x u_y - r_y u_x (the z component of the box's vector), whose magnitude is its absolute
 * value; in the box it is a vector of three. */
static double milling_of(const boids_flock *f, const boids_params *p, const axes *ax) {
    const int dim = ax->dim, first = dim == 2 ? 2 : 0; /* the components there are */
    double c[3], l[3] = {0, 0, 0};
    centre_of(f, p, ax, c);
    for (size_t i = 0; i < f->n; i++) {
        double r[3] = {0, 0, 0}, v[3] = {0, 0, 0}, rr = 0, vv = 0;
        for (int a = 0; a < dim; a++) {
            r[a] = ax->pos[a][i] - c[a];
            if (p->boundary == BOIDS_BOUNDARY_WRAP)
                r[a] = wrap_diff(r[a], ax->side[a], ax->side[a] / 2);
            v[a] = ax->vel[a][i];
            rr += r[a] * r[a];
            vv += v[a] * v[a];
        }
        double rl = sqrt(rr), vl = sqrt(vv);
        if (rl == 0 || vl == 0) continue; /* at the centre or not moving: contributes 0 */
        for (int k = first; k < 3; k++) {
            const int s = (k + 1) % 3, t = (k + 2) % 3;
            l[k] += (r[s] * v[t] - r[t] * v[s]) / (rl * vl);
        }
    }
    if (dim == 2) return fabs(l[2]) / (double)f->n;
    return sqrt(l[0] * l[0] + l[1] * l[1] + l[2] * l[2]) / (double)f->n;
}

/* ---- the grid ------------------------------------------------------------------------ */

/* Cells over the flock's axes; an axis the flock does not have (z in the plane) has one
 * cell and offset 0, so that every loop below runs over three axes in both dimensions. */
typedef struct grid {
    int dim, wrap;
    long n[3];               /* cells per axis */
    double o[3], w[3];       /* origin and cell width per axis */
    double side[3], half[3]; /* the world, for the shortest image */
    size_t *start;           /* ncells + 1 offsets into the slots */
    uint32_t *ids;           /* boid id of each slot: by cell, id order within a cell */
    double *pos;             /* dim per slot: positions, a cell's boids contiguous in memory
                                (random access by id costs a cache miss per pair at large N) */
} grid;

static void grid_free(grid *g) {
    free(g->start);
    free(g->ids);
    free(g->pos);
}

/* Cells along each axis: a periodic world's n cells of side / n >= R (1 + 2^-20), or cells
 * of R (1 + 2^-20) over the flock's extent; widened until there are at most about 4N. */
static void grid_geometry(grid *g, const boids_flock *f, const boids_params *p, const axes *ax) {
    const double cap = boids_grid_geom_cap(f->n);
    double rc = p->vision_radius * (1 + 0x1p-20), ext[3] = {0, 0, 0}, n[3] = {1, 1, 1};
    g->dim = ax->dim;
    g->wrap = p->boundary == BOIDS_BOUNDARY_WRAP;
    for (int a = 0; a < 3; a++) {
        g->o[a] = 0;
        g->side[a] = g->half[a] = g->w[a] = 1;
        if (a >= ax->dim) continue;
        g->side[a] = ax->side[a];
        g->half[a] = ax->side[a] / 2;
        double lo = ax->pos[a][0], hi = ax->pos[a][0];
        for (size_t i = 0; i < f->n; i++)
            lo = fmin(lo, ax->pos[a][i]), hi = fmax(hi, ax->pos[a][i]);
        g->o[a] = g->wrap ? 0 : lo;
        ext[a] = g->wrap ? ax->side[a] : hi - lo;
    }
    for (;;) {
        double total = 1;
        for (int a = 0; a < ax->dim; a++) {
            n[a] = g->wrap ? fmax(1, floor(ext[a] / rc)) : floor(ext[a] / rc) + 1;
            total *= n[a];
        }
        if (total <= cap) break;
        rc *= fmax(1.25, pow(total / cap, 1.0 / ax->dim));
    }
    for (int a = 0; a < 3; a++) {
        g->n[a] = (long)n[a];
        if (a < ax->dim) g->w[a] = g->wrap ? ax->side[a] / n[a] : rc;
    }
}

static long cell_coord(const grid *g, int a, double x) {
    long k = (long)floor((x - g->o[a]) / g->w[a]);
    if (g->wrap) {
        k %= g->n[a];
        return k < 0 ? k + g->n[a] : k;
    }
    return k < 0 ? 0 : k >= g->n[a] ? g->n[a] - 1 : k;
}

static inline size_t cell_index(const grid *g, const long k[3]) {
    return ((size_t)k[2] * (size_t)g->n[1] + (size_t)k[1]) * (size_t)g->n[0] + (size_t)k[0];
}

/* The cell coordinates of cell number c. */
static void cell_coords(const grid *g, long c, long k[3]) {
    k[0] = c % g->n[0];
    k[1] = c / g->n[0] % g->n[1];
    k[2] = c / (g->n[0] * g->n[1]);
}

/* Counting sort of the boids by cell into the slots, stable in id order. */
static boids_status grid_build(grid *g, const boids_flock *f, const boids_params *p, const axes *ax,
                               boids_error *err) {
    *g = (grid){0};
    grid_geometry(g, f, p, ax);
    const int dim = ax->dim;
    const size_t n = f->n, nc = (size_t)g->n[0] * (size_t)g->n[1] * (size_t)g->n[2];
    g->start = calloc(nc + 1, sizeof *g->start);
    g->ids = malloc(n * sizeof *g->ids);
    g->pos = malloc((size_t)dim * n * sizeof *g->pos);
    size_t *cell = malloc(n * sizeof *cell);
    if (!g->start || !g->ids || !g->pos || !cell) {
        free(cell);
        grid_free(g);
        return boids_error_set(err, BOIDS_ERR_NOMEM,
                               "metrics: out of memory for %zu boids and %zu cells", n, nc);
    }
    for (size_t i = 0; i < n; i++) {
        long k[3] = {0, 0, 0};
        for (int a = 0; a < dim; a++) k[a] = cell_coord(g, a, ax->pos[a][i]);
        cell[i] = cell_index(g, k);
        g->start[cell[i] + 1]++;
    }
    for (size_t c = 0; c < nc; c++) g->start[c + 1] += g->start[c];
    for (size_t i = 0; i < n; i++) { /* start[c] runs up to start[c + 1] while filling */
        size_t s = g->start[cell[i]]++;
        g->ids[s] = (uint32_t)i;
        for (int a = 0; a < dim; a++) g->pos[(size_t)dim * s + (size_t)a] = ax->pos[a][i];
    }
    for (size_t c = nc; c > 0; c--) g->start[c] = g->start[c - 1];
    g->start[0] = 0;
    free(cell);
    return BOIDS_OK;
}

/* The pair loops below take the dimension as an argument, always a constant 2 or 3 where
 * pairs() calls them, so that the compiler makes each loop over the axes a fixed one. */
#if defined(__GNUC__)
#define PAIR_FN static inline __attribute__((always_inline))
#else
#define PAIR_FN static inline
#endif

/* Squared distance between slots a and b under the boundary. The offset is taken from a to
 * b as in the rules, so every path measures a pair the same way. */
PAIR_FN double pair_d2(const grid *g, int dim, size_t a, size_t b) {
    const double *pa = g->pos + (size_t)dim * a, *pb = g->pos + (size_t)dim * b;
    double d2 = 0;
    for (int c = 0; c < dim; c++) {
        double d = pb[c] - pa[c];
        if (g->wrap) d = wrap_diff(d, g->side[c], g->half[c]);
        d2 += d * d;
    }
    return d2;
}

/* The range of cell offsets [lo, hi] along axis a from cell coordinate c that names each
 * reachable cell once: with wrap, the n distinct offsets -(n-1)/2 .. n/2 (so a world only
 * 1 or 2 cells wide is not visited twice); otherwise the cells that exist. */
static void offset_range(const grid *g, int a, long c, long *lo, long *hi) {
    *lo = g->wrap ? -((g->n[a] - 1) / 2) : -c;
    *hi = g->wrap ? g->n[a] / 2 : g->n[a] - 1 - c;
}

/* The cell at offset d from cell k; offsets from offset_range are within one turn of the
 * world, so one correction folds them (no division: the pair loops call this per cell). */
PAIR_FN size_t cell_at(const grid *g, int dim, const long k[3], const long d[3]) {
    long m[3] = {0, 0, 0};
    for (int a = 0; a < dim; a++) {
        m[a] = k[a] + d[a];
        if (m[a] < 0) m[a] += g->n[a];
        if (m[a] >= g->n[a]) m[a] -= g->n[a];
    }
    return cell_index(g, m);
}

/* Smallest of best and the squared distances from slot s to the other boids of cell c. */
PAIR_FN double cell_min_d2(const grid *g, int dim, size_t s, size_t c, double best) {
    for (size_t b = g->start[c]; b < g->start[c + 1]; b++) {
        if (b == s) continue;
        double d2 = pair_d2(g, dim, s, b);
        if (d2 < best) best = d2;
    }
    return best;
}

static long clampl(long v, long lo, long hi) {
    return v < lo ? lo : v > hi ? hi : v;
}

/* Squared distance from slot s (cell k) to its nearest other boid: shells of cells at
 * Chebyshev offset r = 0, 1, ... (the cells of a shell: those with some offset at +-r;
 * along x only the two ends of a row whose other offsets are inside). After shell r an
 * unseen boid is at least r cells of the narrowest axis away (less 2^-20 for rounding):
 * the search stops once the best is within that, or when every cell has been seen. */
PAIR_FN double nearest_d2(const grid *g, int dim, size_t s, const long k[3]) {
    long lo[3], hi[3], rmax = 0;
    double wmin = INFINITY;
    for (int a = 0; a < 3; a++) {
        offset_range(g, a, k[a], &lo[a], &hi[a]);
        rmax = -lo[a] > rmax ? -lo[a] : rmax;
        rmax = hi[a] > rmax ? hi[a] : rmax;
        if (g->n[a] > 1) wmin = fmin(wmin, g->w[a]);
    }
    double best = INFINITY;
    for (long r = 0; r <= rmax; r++) {
        long d[3];
        for (d[2] = clampl(-r, lo[2], hi[2]); d[2] <= clampl(r, lo[2], hi[2]); d[2]++)
            for (d[1] = clampl(-r, lo[1], hi[1]); d[1] <= clampl(r, lo[1], hi[1]); d[1]++) {
                const int edge = labs(d[1]) == r || labs(d[2]) == r;
                for (d[0] = clampl(-r, lo[0], hi[0]); d[0] <= clampl(r, lo[0], hi[0]);) {
                    if (labs(d[0]) == r || edge)
                        best = cell_min_d2(g, dim, s, cell_at(g, dim, k, d), best);
                    /* inside the shell along y and z: only x = -r and x = +r */
                    d[0] = edge || d[0] >= r ? d[0] + 1 : r;
                }
            }
        const double bound = (double)r * wmin * (1 - 0x1p-20);
        if (isfinite(bound) && bound > 0 && best <= bound * bound) break;
    }
    return best;
}

/* The distinct cells of the 3^dim-cell block around k; returns how many. */
PAIR_FN int block_cells(const grid *g, int dim, const long k[3], size_t out[27]) {
    long lo[3], hi[3], d[3];
    int m = 0;
    for (int a = 0; a < 3; a++) {
        offset_range(g, a, k[a], &lo[a], &hi[a]);
        lo[a] = lo[a] > -1 ? lo[a] : -1;
        hi[a] = hi[a] < 1 ? hi[a] : 1;
    }
    for (d[2] = lo[2]; d[2] <= hi[2]; d[2]++)
        for (d[1] = lo[1]; d[1] <= hi[1]; d[1]++)
            for (d[0] = lo[0]; d[0] <= hi[0]; d[0]++) out[m++] = cell_at(g, dim, k, d);
    return m;
}

/* Union-find over slots with path halving and union by size. */
static uint32_t uf_find(uint32_t *parent, uint32_t a) {
    while (parent[a] != a) a = parent[a] = parent[parent[a]];
    return a;
}

static void uf_union(uint32_t *parent, uint32_t *size, uint32_t a, uint32_t b) {
    a = uf_find(parent, a);
    b = uf_find(parent, b);
    if (a == b) return;
    if (size[a] < size[b]) {
        uint32_t t = a;
        a = b;
        b = t;
    }
    parent[b] = a;
    size[a] += size[b];
}

/* The boids of cell c: each one's number of other boids within vision_radius (d^2 < R^2)
 * and its nearest-neighbour distance, at its id. */
PAIR_FN void cell_stats(const grid *g, int dim, long c, size_t n, double r2, long *cnt,
                        double *nn) {
    long k[3];
    cell_coords(g, c, k);
    size_t cells[27];
    const int m = block_cells(g, dim, k, cells);
    for (size_t a = g->start[c]; a < g->start[c + 1]; a++) {
        long count = 0;
        for (int q = 0; q < m; q++)
            for (size_t b = g->start[cells[q]]; b < g->start[cells[q] + 1]; b++)
                count += b != a && pair_d2(g, dim, a, b) < r2;
        cnt[g->ids[a]] = count;
        nn[g->ids[a]] = n > 1 ? sqrt(nearest_d2(g, dim, a, k)) : NAN;
    }
}

/* Joins each boid of cell c to every later slot within vision_radius in its block. */
PAIR_FN void cell_links(const grid *g, int dim, long c, double r2, uint32_t *parent,
                        uint32_t *size) {
    long k[3];
    cell_coords(g, c, k);
    size_t cells[27];
    const int m = block_cells(g, dim, k, cells);
    for (size_t a = g->start[c]; a < g->start[c + 1]; a++)
        for (int q = 0; q < m; q++)
            for (size_t b = g->start[cells[q]]; b < g->start[cells[q] + 1]; b++)
                if (b > a && pair_d2(g, dim, a, b) < r2)
                    uf_union(parent, size, (uint32_t)a, (uint32_t)b);
}

/* Nearest-neighbour distances, neighbour counts and the components of the graph "distance
 * < vision_radius", each pair of slots a < b in a block joined once. Each cell's work is
 * called with the dimension as a constant. */
static boids_status pairs(const grid *g, size_t n, double r2, boids_metrics *out,
                          boids_error *err) {
    double *nn = malloc(n * sizeof *nn);
    long *cnt = malloc(n * sizeof *cnt);
    uint32_t *parent = malloc(n * sizeof *parent), *size = malloc(n * sizeof *size);
    if (!nn || !cnt || !parent || !size) {
        free(nn), free(cnt), free(parent), free(size);
        return boids_error_set(err, BOIDS_ERR_NOMEM, "metrics: out of memory for %zu boids", n);
    }
    for (size_t i = 0; i < n; i++) parent[i] = (uint32_t)i, size[i] = 1;
    const long nc = g->n[0] * g->n[1] * g->n[2];
    const int plane = g->dim == 2;
    /* Per-boid results go to the boid's id, and are summed in id order below. */
#pragma omp parallel for schedule(dynamic, 64) if (n > 16384)
    for (long c = 0; c < nc; c++) {
        if (plane)
            cell_stats(g, 2, c, n, r2, cnt, nn);
        else
            cell_stats(g, 3, c, n, r2, cnt, nn);
    }
    for (long c = 0; c < nc; c++) { /* components: serial union-find over the slots */
        if (g->start[c] == g->start[c + 1]) continue;
        if (plane)
            cell_links(g, 2, c, r2, parent, size);
        else
            cell_links(g, 3, c, r2, parent, size);
    }
    double snn = 0, scnt = 0;
    size_t roots = 0, big = 0;
    for (size_t i = 0; i < n; i++) {
        snn += nn[i], scnt += (double)cnt[i];
        if (parent[i] == i) roots++, big = size[i] > big ? size[i] : big;
    }
    out->nn_distance = n > 1 ? snn / (double)n : NAN;
    out->neighbours = scnt / (double)n;
    out->clusters = (double)roots;
    out->largest_cluster = (double)big / (double)n;
    free(nn), free(cnt), free(parent), free(size);
    return BOIDS_OK;
}

boids_status boids_metrics_compute(const boids_flock *f, const boids_params *p, boids_metrics *out,
                                   boids_error *err) {
    const char *bad = !p     ? "the parameters are NULL"
                      : !out ? "the output is NULL"
                             : boids_flock_bad_arrays(f);
    if (bad) return boids_error_set(err, BOIDS_ERR_INPUT, "metrics: %s", bad);
    size_t n = f->n;
    if (n == 0) return boids_error_set(err, BOIDS_ERR_INPUT, "metrics: the flock is empty");
    if (n > UINT32_MAX)
        return boids_error_set(err, BOIDS_ERR_LIMIT, "metrics: %zu boids is beyond 2^32 - 1", n);
    const size_t i = boids_flock_first_not_finite(f);
    if (i < n) return boids_error_set(err, BOIDS_ERR_INPUT, "metrics: boid %zu is not finite", i);
    const axes ax = axes_of(f, p, boids_flock_dim(f));
    for (int a = 0; a < ax.dim; a++)
        if (!(ax.side[a] > 0 && ax.side[a] <= 1e30) ||
            !(p->vision_radius > 0 && p->vision_radius <= 1e30))
            return boids_error_set(err, BOIDS_ERR_INPUT,
                                   "metrics: the world's %s = %g and vision_radius = %g must be "
                                   "positive and at most 1e30",
                                   (const char *[]){"width", "height", "depth"}[a], ax.side[a],
                                   p->vision_radius);

    out->order = boids_order(f);
    out->milling = milling_of(f, p, &ax);
    grid g;
    boids_status s = grid_build(&g, f, p, &ax, err);
    if (s) return s;
    s = pairs(&g, n, p->vision_radius * p->vision_radius, out, err);
    grid_free(&g);
    return s;
}
