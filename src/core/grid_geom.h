/* SPDX-License-Identifier: MIT */
/* The uniform grid's geometry: one formula for the cell size, the cells per side and the
 * topological ring search's reach, used by the cpu path (cpu_grid*.c), the GPU pipeline
 * (src/gpu/grid.c) and the observables (metrics.c). Internal to the library.
 *
 * Why a margin: positions are float in the cpu and GPU paths, and the cell of x is
 * floor((x - ox) * s) with a float s, so a boid can land one cell off near a cell edge. A
 * pair the float distance test accepts is within the radius R up to a few ulps of the
 * coordinates; cells a margin wider than R keep every such pair in adjacent cells, so the
 * 3x3 block around a boid's cell never misses a neighbour. */
#ifndef BOIDS_GRID_GEOM_H
#define BOIDS_GRID_GEOM_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "boids/error.h"
#include "boids/params.h"

typedef struct grid_geom {
    uint32_t ncx, ncy; /* cells per side, >= 1 */
    size_t ncells;     /* ncx * ncy */
    float sx, sy;      /* cells per length unit: the cell of x is floor((x - ox) * sx) */
    double ox, oy;     /* corner of cell (0, 0): 0 for the world grid, the box's corner for a
                        * box grid (x - ox is then exact for float positions) */
    int wrap;          /* the cells tile a periodic world: column ncx - 1 touches column 0 */
    double margin;     /* how much wider than R a cell is made, for float rounding */
    /* Boids whose cells are r + 1 or more apart along an axis (periodically under wrap) are
     * at a float distance dist2 > (r * reach)^2: the float cell width less the margin. An
     * axis of one cell separates no cells and does not count; 0 if no axis does. */
    double reach;
} grid_geom;

/* Bounding box of a flock's finite positions, for a grid over the flock (open plane). */
typedef struct grid_bbox {
    double x0, y0, x1, y1;
    double amax; /* largest |coordinate|: the rounding of x - x0 is an ulp of it */
} grid_bbox;

/* The cells a grid of n boids may have: about 4 per boid, so that a tiny radius in a huge
 * world (or a scattered flock on the open plane) bounds memory and the per-step clearing
 * cost; cells then grow, which stays correct because a cell only has to be >= R wide. */
double boids_grid_geom_cap(size_t n);

/* Geometry for parameters p (width, height, vision_radius, boundary), at most max_cells
 * cells. bb NULL: the world grid, ncx x ncy cells of W / ncx by H / ncy tiling [0, W] x
 * [0, H] exactly (wrap and walls; the GPU also on the open plane, where it clamps to the
 * edge cells). bb given: a grid over the box, origin at its corner, cells of 1 / s (float)
 * with R + margin <= 1 / s. Every cell is at least R + margin wide up to float rounding
 * of s, as many cells as fit (before the cap). BOIDS_ERR_INPUT if the world or R is not
 * positive and at most 1e30. */
boids_status boids_grid_geom_init(grid_geom *g, const boids_params *p, const grid_bbox *bb,
                                  double max_cells, boids_error *err);

/* Cell coordinate of a float position relative to the origin (x - ox), scaled by s, on an
 * axis of n cells: x == W (possible after wrap) and any rounding past the last cell go
 * into the last cell; negatives and NaN into the first. */
static inline uint32_t grid_cell_coord(float x, float s, uint32_t n) {
    float f = x * s;
    if (!(f > 0)) return 0;
    if (!(f < (float)n)) return n - 1;
    uint32_t c = (uint32_t)f;
    return c < n ? c : n - 1;
}

/* A contiguous range [b, e) of snapshot slots, as the 2-D and the 3-D cpu grids gather a
 * cell block's candidates. */
typedef struct grid_range {
    uint32_t b, e;
} grid_range;

/* Appends the slots [b, e) to the nr ranges of r, extending the last one when they follow
 * it (neighbouring cells of one row are adjacent in the sorted snapshot); an empty range
 * adds nothing. Returns the new number of ranges. */
static inline int grid_range_add(grid_range *r, int nr, uint32_t b, uint32_t e) {
    if (b == e) return nr;
    if (nr > 0 && r[nr - 1].e == b)
        r[nr - 1].e = e;
    else
        r[nr++] = (grid_range){b, e};
    return nr;
}

/* Makes *start hold at least ncells + 1 cell starts (*cap counts what it holds). */
static inline boids_status grid_reserve_starts(uint32_t **start, size_t *cap, size_t ncells,
                                               boids_error *err) {
    if (ncells + 1 <= *cap) return BOIDS_OK;
    uint32_t *s = realloc(*start, (ncells + 1) * sizeof *s);
    if (!s)
        return boids_error_set(err, BOIDS_ERR_NOMEM, "cpu: out of memory for %zu cells", ncells);
    *start = s;
    *cap = ncells + 1;
    return BOIDS_OK;
}

/* ---- the same geometry over the dimension ---------------------------------------------
 * The one formula behind boids_grid_geom_init, for dim 2 or 3 (axes x, y, z; entries beyond
 * dim unused): the cpu path and the GPU pipeline call it directly. */
typedef struct grid_geomd {
    int dim;
    uint32_t n[3]; /* cells along each axis, >= 1 */
    size_t ncells; /* their product */
    float s[3];    /* cells per length unit: the cell of x along a is floor((x - o[a]) * s[a]) */
    double o[3];   /* corner of cell 0: 0 for the world grid, the box's corner for a box grid */
    int wrap;      /* the cells tile a periodic world */
    double margin; /* how much wider than R a cell is made, for float rounding */
    double reach;  /* see grid_geom */
} grid_geomd;

/* Bounding box of a flock's finite positions (lo[a] <= hi[a]), for a grid over the flock. */
typedef struct grid_boxd {
    double lo[3], hi[3];
    double amax; /* largest |coordinate| */
} grid_boxd;

/* bb NULL: the world's grid (width, height, depth); bb given: cells over the box, of one
 * float size 1 / s >= R + margin on every axis, widened until they fit in max_cells (by
 * the dim-th root of the excess, at least 1.25 times). BOIDS_ERR_INPUT as
 * boids_grid_geom_init, over the dim sides. */
boids_status boids_grid_geomd_init(grid_geomd *g, int dim, const boids_params *p,
                                   const grid_boxd *bb, double max_cells, boids_error *err);

#endif
