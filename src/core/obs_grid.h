/* SPDX-License-Identifier: MIT */
/* The uniform grid that the observables of a state look at pairs through: metrics.c
 * (neighbours, nearest neighbours, clusters) and structure.c (the velocity correlation).
 * Internal to the library; written once over the dimension.
 *
 * Positions are double, cells are at least a radius R wide (made 2^-20 wider, so that the
 * rounding of a cell index cannot put a pair within R two cells apart), over the periodic
 * world or the flock's bounding box, with at most about 4N cells: the boids within R of a
 * boid lie in the 3^dim cells around its own. The slots hold the boids sorted by cell (a
 * counting sort, stable in id order), so a cell's boids are contiguous in memory. */
#ifndef BOIDS_OBS_GRID_H
#define BOIDS_OBS_GRID_H

#include <stddef.h>
#include <stdint.h>

#include "boids/error.h"
#include "boids/flock.h"
#include "boids/params.h"

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

static inline axes axes_of(const boids_flock *f, const boids_params *p, int dim) {
    return (axes){dim, {f->x, f->y, f->z}, {f->vx, f->vy, f->vz}, {p->width, p->height, p->depth}};
}

/* The checks every observable of a state starts with, each message starting with who:
 * NULL p or f, f's arrays incomplete, an empty flock, a non-finite value (naming the boid):
 * BOIDS_ERR_INPUT; more than 2^32 - 1 boids (the slots' ids): BOIDS_ERR_LIMIT. */
boids_status boids_obs_check_flock(const boids_flock *f, const boids_params *p, const char *who,
                                   boids_error *err);

/* BOIDS_ERR_INPUT (the message starting with who) unless every side of the flock's axes and
 * the radius r (named r_name; NULL: no radius) are positive and at most 1e30. */
boids_status boids_obs_check_world(const axes *ax, double r, const char *r_name, const char *who,
                                   boids_error *err);

/* The smallest and largest coordinate of n >= 1 boids along axis a. */
void boids_obs_extent(const axes *ax, size_t n, int a, double *lo, double *hi);

/* Cells over the flock's axes; an axis the flock does not have (z in the plane) has one
 * cell and offset 0, so that every loop runs over three axes in both dimensions. */
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

/* The grid of cells at least r wide over f's n >= 1 boids (at most 2^32 - 1) in the world
 * of p: a periodic world's n cells of side / n >= r (1 + 2^-20) per axis, or cells of
 * r (1 + 2^-20) over the flock's extent; widened until there are at most about 4N
 * (boids_grid_geom_cap). Out of memory: BOIDS_ERR_NOMEM, the message starting with who. */
boids_status boids_obs_grid_build(grid *g, const boids_flock *f, const boids_params *p,
                                  const axes *ax, double r, const char *who, boids_error *err);
void boids_obs_grid_free(grid *g);

/* boids_obs_grid_build in pieces, for a flock held in parts: the geometry (no cells filled)
 * of the grid of n boids whose coordinates along axis a lie in [lo[a], hi[a]] (the whole
 * flock's extent); the row (the cell coordinate along the last axis: the rows are the
 * slabs of cells that the cell index runs through one after another) of the coordinate x
 * along it; and the cells of the window of `rows` of the rows from row0 (wrap: around the
 * seam) filled with those of the n boids of ax that lie in it (ids: indices into ax's
 * arrays, in their order within a cell), n[last] becoming `rows`. */
void boids_obs_grid_frame(grid *g, size_t n, const boids_params *p, const axes *ax,
                          const double lo[3], const double hi[3], double r);
long boids_obs_row_of(const grid *g, double x);
boids_status boids_obs_grid_window(grid *g, const axes *ax, size_t n, long row0, long rows,
                                   const char *who, boids_error *err);

/* The cell coordinates of the point x (dim coordinates) in g, clamped to the grid without
 * wrap. */
void boids_obs_cell_of(const grid *g, const double *x, long k[3]);

static inline size_t cell_index(const grid *g, const long k[3]) {
    return ((size_t)k[2] * (size_t)g->n[1] + (size_t)k[1]) * (size_t)g->n[0] + (size_t)k[0];
}

/* The cell coordinates of cell number c. */
static inline void cell_coords(const grid *g, long c, long k[3]) {
    k[0] = c % g->n[0];
    k[1] = c / g->n[0] % g->n[1];
    k[2] = c / (g->n[0] * g->n[1]);
}

/* The pair loops take the dimension as an argument, always a constant 2 or 3 where their
 * callers call them, so that the compiler makes each loop over the axes a fixed one. */
#if defined(__GNUC__)
#define PAIR_FN static inline __attribute__((always_inline))
#else
#define PAIR_FN static inline
#endif

/* Squared distance from point pa (dim coordinates) to slot b under the boundary, and
 * pair_dist2 between slots a and b. The offset is taken from a to b as in the rules, so
 * every path measures a pair the same way. */
PAIR_FN double point_dist2(const grid *g, int dim, const double *pa, size_t b) {
    const double *pb = g->pos + (size_t)dim * b;
    double dist2 = 0;
    for (int c = 0; c < dim; c++) {
        double d = pb[c] - pa[c];
        if (g->wrap) d = wrap_diff(d, g->side[c], g->half[c]);
        dist2 += d * d;
    }
    return dist2;
}

PAIR_FN double pair_dist2(const grid *g, int dim, size_t a, size_t b) {
    return point_dist2(g, dim, g->pos + (size_t)dim * a, b);
}

/* The range of cell offsets [lo, hi] along axis a from cell coordinate c that names each
 * reachable cell once: with wrap, the n distinct offsets -(n-1)/2 .. n/2 (so a world only
 * 1 or 2 cells wide is not visited twice); otherwise the cells that exist. */
static inline void offset_range(const grid *g, int a, long c, long *lo, long *hi) {
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

#endif
