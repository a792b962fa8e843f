/* SPDX-License-Identifier: MIT */
/* Observables of a flock state (definitions in include/boids/metrics.h).
 *
 * Everything that looks at pairs goes through one uniform grid whose cells are at least
 * vision_radius wide, so that the boids within vision_radius of a boid lie in its own cell
 * and the 8 around it: the geometry of the cpu path (grid_geom.h), which tiles the periodic
 * world exactly or covers the flock's bounding box, with at most about 4N cells. Per-boid
 * results are computed in parallel into arrays and summed in id order, so the result does
 * not depend on the number of threads (nor on the grid: minima, counts and components). */
#include "boids/metrics.h"
#include "check.h"
#include "grid_geom.h"
#include "metrics3.h"

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

/* Circular mean of coordinates on a circle of circumference `side`: each coordinate is an
 * angle theta = 2 pi x / side; the mean angle is atan2(sum sin, sum cos), mapped back into
 * [0, side). atan2(0, 0) = 0 when the mean vector vanishes (see the header). */
double boids_metrics_circular_mean(const double *x, size_t n, double side) {
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

void boids_metrics_centre(const boids_flock *f, const boids_params *p, double *cx, double *cy) {
    if (!cx || !cy) return;
    *cx = *cy = 0;
    if (boids_flock_bad_arrays(f) || !p || f->n == 0) return;
    if (p->boundary == BOIDS_BOUNDARY_WRAP) {
        *cx = boids_metrics_circular_mean(f->x, f->n, p->width);
        *cy = boids_metrics_circular_mean(f->y, f->n, p->height);
        return;
    }
    double sx = 0, sy = 0;
    for (size_t i = 0; i < f->n; i++) {
        sx += f->x[i];
        sy += f->y[i];
    }
    *cx = sx / (double)f->n;
    *cy = sy / (double)f->n;
}

/* ---- the grid ------------------------------------------------------------------------ */

typedef struct grid {
    grid_geom geom; /* cell size, origin, reach */
    int wrap;
    long nx, ny;         /* cells per axis (geom's) */
    double w, h, hw, hh; /* world and half world, for the shortest image */
    size_t *start;       /* nx * ny + 1 offsets into the slots */
    uint32_t *ids;       /* boid id in each slot: sorted by cell, id order within a cell */
    double *sx, *sy;     /* positions by slot, so that a cell's boids are contiguous in memory
                            (random access by id costs a cache miss per pair at large N) */
} grid;

/* Cell along one axis of the position v: (v - origin) * s in double (positions are double
 * here; the geometry's margin covers float rounding, far above this). Periodically folded
 * under wrap, clamped to the edge cells otherwise. */
static long cell_index(const grid *g, double v, double origin, float s, long n) {
    long k = (long)floor((v - origin) * (double)s);
    if (g->wrap) {
        k %= n;
        if (k < 0) k += n;
        return k;
    }
    return k < 0 ? 0 : k >= n ? n - 1 : k;
}

static void grid_free(grid *g) {
    free(g->start);
    free(g->ids);
    free(g->sx);
    free(g->sy);
}

/* Bounding box of the positions (finite: boids_metrics_compute checks them). */
static grid_bbox flock_bbox(const boids_flock *f) {
    grid_bbox b = {f->x[0], f->y[0], f->x[0], f->y[0], 0};
    for (size_t i = 0; i < f->n; i++) {
        b.x0 = fmin(b.x0, f->x[i]);
        b.x1 = fmax(b.x1, f->x[i]);
        b.y0 = fmin(b.y0, f->y[i]);
        b.y1 = fmax(b.y1, f->y[i]);
        b.amax = fmax(b.amax, fmax(fabs(f->x[i]), fabs(f->y[i])));
    }
    return b;
}

/* The cells: the periodic world's, or over the flock's bounding box otherwise. */
static boids_status grid_geometry(grid *g, const boids_flock *f, const boids_params *p,
                                  boids_error *err) {
    g->wrap = p->boundary == BOIDS_BOUNDARY_WRAP;
    g->w = p->width;
    g->h = p->height;
    g->hw = p->width / 2;
    g->hh = p->height / 2;
    grid_bbox bb;
    if (!g->wrap) bb = flock_bbox(f);
    boids_status s =
        boids_grid_geom_init(&g->geom, p, g->wrap ? NULL : &bb, boids_grid_geom_cap(f->n), err);
    if (s) return s;
    g->nx = (long)g->geom.ncx;
    g->ny = (long)g->geom.ncy;
    return BOIDS_OK;
}

/* Counting sort of the boids by cell into the slots, stable in id order. */
static boids_status grid_sort(grid *g, const boids_flock *f, boids_error *err) {
    const size_t n = f->n, ncells = g->geom.ncells;
    g->start = calloc(ncells + 1, sizeof *g->start);
    g->ids = malloc(n * sizeof *g->ids);
    g->sx = malloc(n * sizeof *g->sx);
    g->sy = malloc(n * sizeof *g->sy);
    size_t *cell = malloc(n * sizeof *cell), *fill = malloc(ncells * sizeof *fill);
    if (!g->start || !g->ids || !g->sx || !g->sy || !cell || !fill) {
        free(cell);
        free(fill);
        grid_free(g);
        return boids_error_set(err, BOIDS_ERR_NOMEM,
                               "metrics: out of memory for %zu boids and %zu cells", n, ncells);
    }
    for (size_t i = 0; i < n; i++) {
        long kx = cell_index(g, f->x[i], g->geom.ox, g->geom.sx, g->nx);
        long ky = cell_index(g, f->y[i], g->geom.oy, g->geom.sy, g->ny);
        cell[i] = (size_t)ky * (size_t)g->nx + (size_t)kx;
        g->start[cell[i] + 1]++;
    }
    for (size_t c = 0; c < ncells; c++) g->start[c + 1] += g->start[c];
    for (size_t c = 0; c < ncells; c++) fill[c] = g->start[c];
    for (size_t i = 0; i < n; i++) {
        size_t k = fill[cell[i]]++;
        g->ids[k] = (uint32_t)i;
        g->sx[k] = f->x[i];
        g->sy[k] = f->y[i];
    }
    free(cell);
    free(fill);
    return BOIDS_OK;
}

static boids_status grid_build(grid *g, const boids_flock *f, const boids_params *p,
                               boids_error *err) {
    *g = (grid){0};
    boids_status s = grid_geometry(g, f, p, err);
    return s ? s : grid_sort(g, f, err);
}

/* The range of cell offsets [lo, hi] along one axis that names each reachable cell once:
 * with wrap, the n distinct offsets -(n-1)/2 .. n/2 (so a world only 1 or 2 cells wide is
 * not visited twice); otherwise the cells that exist. */
static void offset_range(const grid *g, long c, long n, long *lo, long *hi) {
    if (g->wrap) {
        *lo = -((n - 1) / 2);
        *hi = n / 2;
    } else {
        *lo = -c;
        *hi = n - 1 - c;
    }
}

static size_t cell_at(const grid *g, long cx, long cy) {
    if (g->wrap) {
        cx %= g->nx;
        if (cx < 0) cx += g->nx;
        cy %= g->ny;
        if (cy < 0) cy += g->ny;
    }
    return (size_t)cy * (size_t)g->nx + (size_t)cx;
}

/* Squared distance between the boids in slots a and b under the boundary. The offset is
 * taken from a to b as in the rules, so every path measures a pair the same way. */
static double pair_d2(const grid *g, size_t a, size_t b) {
    double dx = g->sx[b] - g->sx[a], dy = g->sy[b] - g->sy[a];
    if (g->wrap) {
        dx = wrap_diff(dx, g->w, g->hw);
        dy = wrap_diff(dy, g->h, g->hh);
    }
    return dx * dx + dy * dy;
}

/* Smallest of best and the squared distances from slot a to the other boids of cell c. */
static double cell_min_d2(const grid *g, size_t a, size_t c, double best) {
    for (size_t k = g->start[c]; k < g->start[c + 1]; k++) {
        if (k == a) continue;
        double d2 = pair_d2(g, a, k);
        if (d2 < best) best = d2;
    }
    return best;
}

/* Squared distance from slot a (in cell cx, cy) to its nearest other boid: rings of cells
 * at Chebyshev offset r = 0, 1, 2, ... After ring r, a boid not yet seen lies in a cell at
 * offset at least r + 1 along some axis not yet exhausted, so at least r cells (less a
 * rounding margin) away along it: the search stops once the best distance is within that
 * bound, or when every cell has been seen. */
static double nearest_d2(const grid *g, size_t a, long cx, long cy) {
    long lox, hix, loy, hiy;
    offset_range(g, cx, g->nx, &lox, &hix);
    offset_range(g, cy, g->ny, &loy, &hiy);
    double best = INFINITY;
    for (long r = 0;; r++) {
        long y0 = -r > loy ? -r : loy, y1 = r < hiy ? r : hiy;
        long x0 = -r > lox ? -r : lox, x1 = r < hix ? r : hix;
        for (long dy = y0; dy <= y1; dy++) {
            if (dy == -r || dy == r) {
                for (long dx = x0; dx <= x1; dx++)
                    best = cell_min_d2(g, a, cell_at(g, cx + dx, cy + dy), best);
            } else {
                if (-r >= lox) best = cell_min_d2(g, a, cell_at(g, cx - r, cy + dy), best);
                if (r > 0 && r <= hix) best = cell_min_d2(g, a, cell_at(g, cx + r, cy + dy), best);
            }
        }
        int xdone = r >= -lox && r >= hix, ydone = r >= -loy && r >= hiy;
        if (xdone && ydone) return best;
        const double bound = (double)r * g->geom.reach;
        if (bound > 0 && best <= bound * bound) return best;
    }
}

/* The cells of the 3 x 3 block around (cx, cy), each once (see offset_range); returns how
 * many (at most 9). */
static int block_cells(const grid *g, long cx, long cy, size_t cells[9]) {
    long lox, hix, loy, hiy;
    offset_range(g, cx, g->nx, &lox, &hix);
    offset_range(g, cy, g->ny, &loy, &hiy);
    int m = 0;
    for (long dy = loy > -1 ? loy : -1; dy <= (hiy < 1 ? hiy : 1); dy++)
        for (long dx = lox > -1 ? lox : -1; dx <= (hix < 1 ? hix : 1); dx++)
            cells[m++] = cell_at(g, cx + dx, cy + dy);
    return m;
}

/* Number of other boids within vision_radius (d^2 < R^2) of slot a. */
static long neighbour_count(const grid *g, size_t a, long cx, long cy, double r2) {
    size_t cells[9];
    int m = block_cells(g, cx, cy, cells);
    long count = 0;
    for (int q = 0; q < m; q++)
        for (size_t k = g->start[cells[q]]; k < g->start[cells[q] + 1]; k++)
            if (k != a && pair_d2(g, a, k) < r2) count++;
    return count;
}

/* Union-find over slots with path halving and union by size. */
static uint32_t uf_find(uint32_t *parent, uint32_t a) {
    while (parent[a] != a) {
        parent[a] = parent[parent[a]];
        a = parent[a];
    }
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

/* Components of the graph "distance < vision_radius": each pair of slots a < b found in the
 * 3 x 3 cells is joined once. */
static boids_status clusters(const grid *g, size_t n, double r2, double *count, double *largest,
                             boids_error *err) {
    uint32_t *parent = malloc(n * sizeof *parent), *size = malloc(n * sizeof *size);
    if (!parent || !size) {
        free(parent);
        free(size);
        return boids_error_set(err, BOIDS_ERR_NOMEM, "metrics: out of memory for %zu boids", n);
    }
    for (size_t i = 0; i < n; i++) {
        parent[i] = (uint32_t)i;
        size[i] = 1;
    }
    for (long cy = 0; cy < g->ny; cy++)
        for (long cx = 0; cx < g->nx; cx++) {
            size_t own = (size_t)cy * (size_t)g->nx + (size_t)cx;
            if (g->start[own] == g->start[own + 1]) continue;
            size_t cells[9];
            int m = block_cells(g, cx, cy, cells);
            for (size_t a = g->start[own]; a < g->start[own + 1]; a++)
                for (int q = 0; q < m; q++)
                    for (size_t b = g->start[cells[q]]; b < g->start[cells[q] + 1]; b++)
                        if (b > a && pair_d2(g, a, b) < r2)
                            uf_union(parent, size, (uint32_t)a, (uint32_t)b);
        }
    size_t roots = 0, big = 0;
    for (size_t i = 0; i < n; i++)
        if (parent[i] == i) {
            roots++;
            if (size[i] > big) big = size[i];
        }
    *count = (double)roots;
    *largest = (double)big / (double)n;
    free(parent);
    free(size);
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
    for (size_t i = 0; i < n; i++)
        if (!isfinite(f->x[i]) || !isfinite(f->y[i]) || !isfinite(f->vx[i]) || !isfinite(f->vy[i]))
            return boids_error_set(err, BOIDS_ERR_INPUT, "metrics: boid %zu is not finite", i);
    if (f->z) return boids_metrics_compute3(f, p, out, err);

    out->order = boids_order(f);

    double cx, cy;
    boids_metrics_centre(f, p, &cx, &cy);
    int wrap = p->boundary == BOIDS_BOUNDARY_WRAP;
    double hw = p->width / 2, hh = p->height / 2, l = 0;
    for (size_t i = 0; i < n; i++) {
        double rx = f->x[i] - cx, ry = f->y[i] - cy;
        if (wrap) {
            rx = wrap_diff(rx, p->width, hw);
            ry = wrap_diff(ry, p->height, hh);
        }
        double r = sqrt(rx * rx + ry * ry);
        double v = sqrt(f->vx[i] * f->vx[i] + f->vy[i] * f->vy[i]);
        if (r == 0 || v == 0) continue; /* at the centre or not moving: contributes 0 */
        l += (rx * f->vy[i] - ry * f->vx[i]) / (r * v);
    }
    out->milling = fabs(l) / (double)n;

    grid g;
    boids_status s = grid_build(&g, f, p, err);
    if (s) return s;
    double *nn = malloc(n * sizeof *nn);
    long *cnt = malloc(n * sizeof *cnt);
    if (!nn || !cnt) {
        free(nn);
        free(cnt);
        grid_free(&g);
        return boids_error_set(err, BOIDS_ERR_NOMEM, "metrics: out of memory for %zu boids", n);
    }
    double r2 = p->vision_radius * p->vision_radius;
    long ncells = g.nx * g.ny;
    /* Per-boid results go to the boid's id, and are summed in id order below. */
#pragma omp parallel for schedule(dynamic, 256) if (n > 16384)
    for (long c = 0; c < ncells; c++) {
        long kx = c % g.nx, ky = c / g.nx;
        for (size_t a = g.start[c]; a < g.start[c + 1]; a++) {
            nn[g.ids[a]] = n > 1 ? sqrt(nearest_d2(&g, a, kx, ky)) : NAN;
            cnt[g.ids[a]] = neighbour_count(&g, a, kx, ky, r2);
        }
    }
    double snn = 0, scnt = 0;
    for (size_t i = 0; i < n; i++) {
        snn += nn[i];
        scnt += (double)cnt[i];
    }
    out->nn_distance = n > 1 ? snn / (double)n : NAN;
    out->neighbours = scnt / (double)n;
    s = clusters(&g, n, r2, &out->clusters, &out->largest_cluster, err);
    free(nn);
    free(cnt);
    grid_free(&g);
    return s;
}
