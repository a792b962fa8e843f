/* SPDX-License-Identifier: MIT */
/* The observables' grid (obs_grid.h): its geometry and the counting sort into it. */
#include "obs_grid.h"
#include "check.h"
#include "grid_geom.h"

#include <math.h>
#include <stdlib.h>

boids_status boids_obs_check_flock(const boids_flock *f, const boids_params *p, const char *who,
                                   boids_error *err) {
    const char *bad = !p ? "the parameters are NULL" : boids_flock_bad_arrays(f);
    if (bad) return boids_error_set(err, BOIDS_ERR_INPUT, "%s: %s", who, bad);
    if (f->n == 0) return boids_error_set(err, BOIDS_ERR_INPUT, "%s: the flock is empty", who);
    if (f->n > UINT32_MAX)
        return boids_error_set(err, BOIDS_ERR_LIMIT, "%s: %zu boids is beyond 2^32 - 1", who, f->n);
    const size_t i = boids_flock_first_not_finite(f);
    if (i < f->n)
        return boids_error_set(err, BOIDS_ERR_INPUT, "%s: boid %zu is not finite", who, i);
    return BOIDS_OK;
}

boids_status boids_obs_check_world(const axes *ax, double r, const char *r_name, const char *who,
                                   boids_error *err) {
    static const char *const names[] = {"width", "height", "depth"};
    for (int a = 0; a < ax->dim; a++) {
        if (!r_name && !(ax->side[a] > 0 && ax->side[a] <= 1e30))
            return boids_error_set(err, BOIDS_ERR_INPUT,
                                   "%s: the world's %s = %g must be positive and at most 1e30", who,
                                   names[a], ax->side[a]);
        if (r_name && (!(ax->side[a] > 0 && ax->side[a] <= 1e30) || !(r > 0 && r <= 1e30)))
            return boids_error_set(err, BOIDS_ERR_INPUT,
                                   "%s: the world's %s = %g and %s = %g must be positive and at "
                                   "most 1e30",
                                   who, names[a], ax->side[a], r_name, r);
    }
    return BOIDS_OK;
}

void boids_obs_extent(const axes *ax, size_t n, int a, double *lo, double *hi) {
    *lo = *hi = ax->pos[a][0];
    for (size_t i = 0; i < n; i++) *lo = fmin(*lo, ax->pos[a][i]), *hi = fmax(*hi, ax->pos[a][i]);
}

void boids_obs_grid_free(grid *g) {
    free(g->start);
    free(g->ids);
    free(g->pos);
    g->start = NULL, g->ids = NULL, g->pos = NULL; /* freed twice: nothing */
}

void boids_obs_grid_frame(grid *g, size_t n, const boids_params *p, const axes *ax,
                          const double lo[3], const double hi[3], double r) {
    const double cap = boids_grid_geom_cap(n);
    double rc = r * (1 + 0x1p-20), ext[3] = {0, 0, 0}, m[3] = {1, 1, 1};
    *g = (grid){0};
    g->dim = ax->dim;
    g->wrap = p->boundary == BOIDS_BOUNDARY_WRAP;
    for (int a = 0; a < 3; a++) {
        g->o[a] = 0;
        g->side[a] = g->half[a] = g->w[a] = 1;
        if (a >= ax->dim) continue;
        g->side[a] = ax->side[a];
        g->half[a] = ax->side[a] / 2;
        g->o[a] = g->wrap ? 0 : lo[a];
        ext[a] = g->wrap ? ax->side[a] : hi[a] - lo[a];
    }
    for (;;) {
        double total = 1;
        for (int a = 0; a < ax->dim; a++) {
            m[a] = g->wrap ? fmax(1, floor(ext[a] / rc)) : floor(ext[a] / rc) + 1;
            total *= m[a];
        }
        if (total <= cap) break;
        rc *= fmax(1.25, pow(total / cap, 1.0 / ax->dim));
    }
    for (int a = 0; a < 3; a++) {
        g->n[a] = (long)m[a];
        if (a < ax->dim) g->w[a] = g->wrap ? ax->side[a] / m[a] : rc;
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

void boids_obs_cell_of(const grid *g, const double *x, long k[3]) {
    k[0] = k[1] = k[2] = 0;
    for (int a = 0; a < g->dim; a++) k[a] = cell_coord(g, a, x[a]);
}

long boids_obs_row_of(const grid *g, double x) {
    return cell_coord(g, g->dim - 1, x);
}

boids_status boids_obs_grid_window(grid *g, const axes *ax, size_t n, long row0, long rows,
                                   const char *who, boids_error *err) {
    const int dim = ax->dim, last = dim - 1;
    const long all = g->n[last]; /* the whole grid's rows, which cell_coord wraps with */
    const size_t nc = (size_t)rows * (size_t)(g->n[0] * g->n[1] * g->n[2] / all);
    g->start = calloc(nc + 1, sizeof *g->start);
    g->ids = malloc(n * sizeof *g->ids + 1);
    g->pos = malloc((size_t)dim * n * sizeof *g->pos + 1);
    size_t *cell = malloc(n * sizeof *cell + 1);
    if (!g->start || !g->ids || !g->pos || !cell) {
        free(cell);
        boids_obs_grid_free(g);
        return boids_error_set(err, BOIDS_ERR_NOMEM,
                               "%s: out of memory for %zu boids and %zu cells", who, n, nc);
    }
    for (size_t i = 0; i < n; i++) { /* cell_index does not read n[last] */
        long k[3] = {0, 0, 0};
        for (int a = 0; a < dim; a++) k[a] = cell_coord(g, a, ax->pos[a][i]);
        k[last] -= row0;
        if (k[last] < 0) k[last] += all; /* wrap: the window runs around the seam */
        cell[i] = k[last] < rows ? cell_index(g, k) : SIZE_MAX;
        if (cell[i] != SIZE_MAX) g->start[cell[i] + 1]++;
    }
    for (size_t c = 0; c < nc; c++) g->start[c + 1] += g->start[c];
    for (size_t i = 0; i < n; i++) { /* start[c] runs up to start[c + 1] while filling */
        if (cell[i] == SIZE_MAX) continue;
        size_t s = g->start[cell[i]]++;
        g->ids[s] = (uint32_t)i;
        for (int a = 0; a < dim; a++) g->pos[(size_t)dim * s + (size_t)a] = ax->pos[a][i];
    }
    for (size_t c = nc; c > 0; c--) g->start[c] = g->start[c - 1];
    g->start[0] = 0;
    g->n[last] = rows;
    free(cell);
    return BOIDS_OK;
}

boids_status boids_obs_grid_build(grid *g, const boids_flock *f, const boids_params *p,
                                  const axes *ax, double r, const char *who, boids_error *err) {
    double lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
    for (int a = 0; a < ax->dim; a++) boids_obs_extent(ax, f->n, a, &lo[a], &hi[a]);
    boids_obs_grid_frame(g, f->n, p, ax, lo, hi, r);
    return boids_obs_grid_window(g, ax, f->n, 0, g->n[ax->dim - 1], who, err);
}
