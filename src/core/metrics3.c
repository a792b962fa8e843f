/* SPDX-License-Identifier: MIT */
/* Observables of a 3-D flock (definitions in include/boids/metrics.h, "In 3-D"): the six
 * numbers of the plane with the cross product of milling a vector, whose magnitude is
 * reported, and every distance in three axes. boids_metrics_compute hands a flock with z
 * arrays here.
 *
 * Pairs go through a uniform grid of cells at least vision_radius wide (the periodic
 * world's, or over the flock's bounding box), so the boids within vision_radius of a boid
 * are in the 27 cells around its own; the nearest neighbour searches shells of cells
 * outward. Positions are double here, and cells are made 2^-20 wider than the radius so
 * that the rounding of a cell index cannot put a pair within the radius two cells apart.
 * Per-boid results are summed in id order, so nothing depends on the thread count. */
#include "check.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "boids/metrics.h"
#include "grid_geom.h"
#include "metrics3.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

typedef struct grid3 {
    int wrap;
    long n[3];               /* cells per axis */
    double o[3], w[3];       /* origin and cell width per axis */
    double side[3], half[3]; /* the world, for the shortest image */
    size_t *start;           /* ncells + 1 offsets into the slots */
    uint32_t *ids;           /* boid id of each slot: by cell, id order within a cell */
    double *pos;             /* 3 per slot: positions, cells contiguous */
} grid3;

void boids_metrics_centre3(const boids_flock *f, const boids_params *p, double c[3]) {
    if (!c) return;
    c[0] = c[1] = c[2] = 0;
    if (boids_flock_bad_arrays(f) || !p || f->n == 0 || !f->z) return;
    const double *axes[3] = {f->x, f->y, f->z};
    const double side[3] = {p->width, p->height, p->depth};
    for (int a = 0; a < 3; a++) {
        if (p->boundary == BOIDS_BOUNDARY_WRAP) {
            c[a] = boids_metrics_circular_mean(axes[a], f->n, side[a]);
            continue;
        }
        double s = 0;
        for (size_t i = 0; i < f->n; i++) s += axes[a][i];
        c[a] = s / (double)f->n;
    }
}

/* |(1/N) sum_i rhat_i x u_i| about the centre (shortest image under wrap). */
static double milling3(const boids_flock *f, const boids_params *p) {
    double c[3], l[3] = {0, 0, 0};
    boids_metrics_centre3(f, p, c);
    const double side[3] = {p->width, p->height, p->depth};
    for (size_t i = 0; i < f->n; i++) {
        double r[3] = {f->x[i] - c[0], f->y[i] - c[1], f->z[i] - c[2]};
        const double v[3] = {f->vx[i], f->vy[i], f->vz[i]};
        if (p->boundary == BOIDS_BOUNDARY_WRAP)
            for (int a = 0; a < 3; a++) r[a] = wrap_diff(r[a], side[a], side[a] / 2);
        double rl = sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2]);
        double vl = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
        if (rl == 0 || vl == 0) continue; /* at the centre or not moving: contributes 0 */
        l[0] += (r[1] * v[2] - r[2] * v[1]) / (rl * vl);
        l[1] += (r[2] * v[0] - r[0] * v[2]) / (rl * vl);
        l[2] += (r[0] * v[1] - r[1] * v[0]) / (rl * vl);
    }
    return sqrt(l[0] * l[0] + l[1] * l[1] + l[2] * l[2]) / (double)f->n;
}

/* ---- the grid ------------------------------------------------------------------------ */

static void grid_free(grid3 *g) {
    free(g->start);
    free(g->ids);
    free(g->pos);
}

/* Cells along each axis: a periodic world's n cells of side / n >= R (1 + 2^-20), or cells
 * of R (1 + 2^-20) over the flock's extent; widened until there are at most about 4N. */
static void grid_geometry(grid3 *g, const boids_flock *f, const boids_params *p) {
    const double *axes[3] = {f->x, f->y, f->z};
    const double side[3] = {p->width, p->height, p->depth};
    const double cap = boids_grid_geom_cap(f->n);
    double rc = p->vision_radius * (1 + 0x1p-20), ext[3];
    g->wrap = p->boundary == BOIDS_BOUNDARY_WRAP;
    for (int a = 0; a < 3; a++) {
        g->side[a] = side[a];
        g->half[a] = side[a] / 2;
        double lo = axes[a][0], hi = axes[a][0];
        for (size_t i = 0; i < f->n; i++) lo = fmin(lo, axes[a][i]), hi = fmax(hi, axes[a][i]);
        g->o[a] = g->wrap ? 0 : lo;
        ext[a] = g->wrap ? side[a] : hi - lo;
    }
    for (;;) {
        double total = 1;
        for (int a = 0; a < 3; a++) {
            g->n[a] = (long)fmax(1, floor(ext[a] / rc));
            if (!g->wrap) g->n[a] = (long)floor(ext[a] / rc) + 1;
            total *= (double)g->n[a];
        }
        if (total <= cap) break;
        rc *= fmax(1.25, cbrt(total / cap));
    }
    for (int a = 0; a < 3; a++) g->w[a] = g->wrap ? side[a] / (double)g->n[a] : rc;
}

static long cell_coord(const grid3 *g, int a, double x) {
    long k = (long)floor((x - g->o[a]) / g->w[a]);
    if (g->wrap) {
        k %= g->n[a];
        return k < 0 ? k + g->n[a] : k;
    }
    return k < 0 ? 0 : k >= g->n[a] ? g->n[a] - 1 : k;
}

static size_t cell_index(const grid3 *g, const long k[3]) {
    return ((size_t)k[2] * (size_t)g->n[1] + (size_t)k[1]) * (size_t)g->n[0] + (size_t)k[0];
}

/* Counting sort of the boids by cell into the slots, stable in id order. */
static boids_status grid_build(grid3 *g, const boids_flock *f, const boids_params *p,
                               boids_error *err) {
    *g = (grid3){0};
    grid_geometry(g, f, p);
    const size_t n = f->n, nc = (size_t)g->n[0] * (size_t)g->n[1] * (size_t)g->n[2];
    g->start = calloc(nc + 1, sizeof *g->start);
    g->ids = malloc(n * sizeof *g->ids);
    g->pos = malloc(3 * n * sizeof *g->pos);
    size_t *cell = malloc(n * sizeof *cell);
    if (!g->start || !g->ids || !g->pos || !cell) {
        free(cell);
        grid_free(g);
        return boids_error_set(err, BOIDS_ERR_NOMEM,
                               "metrics: out of memory for %zu boids and %zu cells", n, nc);
    }
    for (size_t i = 0; i < n; i++) {
        const long k[3] = {cell_coord(g, 0, f->x[i]), cell_coord(g, 1, f->y[i]),
                           cell_coord(g, 2, f->z[i])};
        cell[i] = cell_index(g, k);
        g->start[cell[i] + 1]++;
    }
    for (size_t c = 0; c < nc; c++) g->start[c + 1] += g->start[c];
    for (size_t i = 0; i < n; i++) { /* start[c] runs up to start[c + 1] while filling */
        size_t s = g->start[cell[i]]++;
        g->ids[s] = (uint32_t)i;
        g->pos[3 * s] = f->x[i], g->pos[3 * s + 1] = f->y[i], g->pos[3 * s + 2] = f->z[i];
    }
    for (size_t c = nc; c > 0; c--) g->start[c] = g->start[c - 1];
    g->start[0] = 0;
    free(cell);
    return BOIDS_OK;
}

/* Squared distance between slots a and b (offset from a to b, as the rules take it). */
static double pair_d2(const grid3 *g, size_t a, size_t b) {
    double d2 = 0;
    for (int c = 0; c < 3; c++) {
        double d = g->pos[3 * b + c] - g->pos[3 * a + c];
        if (g->wrap) d = wrap_diff(d, g->side[c], g->half[c]);
        d2 += d * d;
    }
    return d2;
}

/* Offsets along axis a from coordinate c that name distinct cells (see metrics.c). */
static void offset_range(const grid3 *g, int a, long c, long *lo, long *hi) {
    *lo = g->wrap ? -((g->n[a] - 1) / 2) : -c;
    *hi = g->wrap ? g->n[a] / 2 : g->n[a] - 1 - c;
}

static size_t cell_at(const grid3 *g, const long k[3], const long d[3]) {
    long m[3];
    for (int a = 0; a < 3; a++) {
        m[a] = k[a] + d[a];
        if (g->wrap) m[a] = (m[a] % g->n[a] + g->n[a]) % g->n[a];
    }
    return cell_index(g, m);
}

/* Squared distance from slot s (cell k) to its nearest other boid: shells of cells at
 * Chebyshev offset r = 0, 1, ...; after shell r an unseen boid is at least r cells of the
 * narrowest axis away (less 2^-20 for rounding): stop once the best is within that. */
static double nearest_d2(const grid3 *g, size_t s, const long k[3]) {
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
        for (d[2] = lo[2] > -r ? lo[2] : -r; d[2] <= (hi[2] < r ? hi[2] : r); d[2]++)
            for (d[1] = lo[1] > -r ? lo[1] : -r; d[1] <= (hi[1] < r ? hi[1] : r); d[1]++)
                for (d[0] = lo[0] > -r ? lo[0] : -r; d[0] <= (hi[0] < r ? hi[0] : r); d[0]++) {
                    if (labs(d[0]) != r && labs(d[1]) != r && labs(d[2]) != r) continue;
                    size_t c = cell_at(g, k, d);
                    for (size_t b = g->start[c]; b < g->start[c + 1]; b++)
                        if (b != s) best = fmin(best, pair_d2(g, s, b));
                }
        const double bound = (double)r * wmin * (1 - 0x1p-20);
        if (isfinite(bound) && bound > 0 && best <= bound * bound) break;
    }
    return best;
}

/* The distinct cells of the 27-cell block around k; returns how many. */
static int block_cells(const grid3 *g, const long k[3], size_t out[27]) {
    long lo[3], hi[3], d[3];
    int m = 0;
    for (int a = 0; a < 3; a++) {
        offset_range(g, a, k[a], &lo[a], &hi[a]);
        lo[a] = lo[a] > -1 ? lo[a] : -1;
        hi[a] = hi[a] < 1 ? hi[a] : 1;
    }
    for (d[2] = lo[2]; d[2] <= hi[2]; d[2]++)
        for (d[1] = lo[1]; d[1] <= hi[1]; d[1]++)
            for (d[0] = lo[0]; d[0] <= hi[0]; d[0]++) out[m++] = cell_at(g, k, d);
    return m;
}

static uint32_t uf_find(uint32_t *parent, uint32_t a) {
    while (parent[a] != a) a = parent[a] = parent[parent[a]];
    return a;
}

/* Nearest-neighbour distances, neighbour counts and components, per slot. */
static boids_status pairs(const grid3 *g, size_t n, double r2, boids_metrics *out,
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
#pragma omp parallel for schedule(dynamic, 64) if (n > 16384)
    for (long c = 0; c < nc; c++) {
        const long k[3] = {c % g->n[0], c / g->n[0] % g->n[1], c / (g->n[0] * g->n[1])};
        size_t cells[27];
        const int m = block_cells(g, k, cells);
        for (size_t a = g->start[c]; a < g->start[c + 1]; a++) {
            long count = 0;
            for (int q = 0; q < m; q++)
                for (size_t b = g->start[cells[q]]; b < g->start[cells[q] + 1]; b++)
                    count += b != a && pair_d2(g, a, b) < r2;
            cnt[g->ids[a]] = count;
            nn[g->ids[a]] = n > 1 ? sqrt(nearest_d2(g, a, k)) : NAN;
        }
    }
    for (long c = 0; c < nc; c++) { /* components: serial union-find over the slots */
        const long k[3] = {c % g->n[0], c / g->n[0] % g->n[1], c / (g->n[0] * g->n[1])};
        size_t cells[27];
        const int m = block_cells(g, k, cells);
        for (size_t a = g->start[c]; a < g->start[c + 1]; a++)
            for (int q = 0; q < m; q++)
                for (size_t b = g->start[cells[q]]; b < g->start[cells[q] + 1]; b++) {
                    if (b <= a || !(pair_d2(g, a, b) < r2)) continue;
                    uint32_t x = uf_find(parent, (uint32_t)a), y = uf_find(parent, (uint32_t)b);
                    if (x == y) continue;
                    if (size[x] < size[y]) x ^= y, y ^= x, x ^= y;
                    parent[y] = x, size[x] += size[y];
                }
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

boids_status boids_metrics_compute3(const boids_flock *f, const boids_params *p, boids_metrics *out,
                                    boids_error *err) {
    for (size_t i = 0; i < f->n; i++)
        if (!isfinite(f->z[i]) || !isfinite(f->vz[i]))
            return boids_error_set(err, BOIDS_ERR_INPUT, "metrics: boid %zu is not finite", i);
    out->order = boids_order(f);
    out->milling = milling3(f, p);
    grid3 g;
    boids_status s = grid_build(&g, f, p, err);
    if (s) return s;
    s = pairs(&g, f->n, p->vision_radius * p->vision_radius, out, err);
    grid_free(&g);
    return s;
}
