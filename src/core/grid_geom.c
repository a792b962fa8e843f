/* SPDX-License-Identifier: MIT */
/* The uniform grid's geometry (see grid_geom.h). */
#include "grid_geom.h"

#include <float.h>
#include <math.h>

double boids_grid_geom_cap(size_t n) {
    return fmin(4.0 * (double)n + 4096, (double)(1u << 30));
}

/* The rounding of a float position, of x - ox and of the cell index is a few ulps of the
 * largest coordinate or extent ext: 16 float ulps of it, and never less than R / 1024. */
static double margin_for(double radius, double ext) {
    return fmax(radius / 1024, 16 * FLT_EPSILON * ext);
}

/* reach: see grid_geom. A cell is 1/s wide (the float s is what positions are multiplied
 * by); an axis of one cell (possibly narrower than R) separates no cells. */
static double reach_of(const grid_geomd *g) {
    double w = INFINITY;
    for (int a = 0; a < g->dim; a++)
        if (g->n[a] > 1) w = fmin(w, 1.0 / (double)g->s[a]);
    return isinf(w) ? 0 : fmax(0, w - g->margin);
}

/* The product of the cells along the dim axes, in axis order. */
static double cells_of(const double n[3], int dim) {
    double t = n[0];
    for (int a = 1; a < dim; a++) t *= n[a];
    return t;
}

/* The dim-th root: by how much each axis shrinks when the cells must shrink by x. */
static double root_of(double x, int dim) {
    return dim == 2 ? sqrt(x) : cbrt(x);
}

/* Cells over the box, origin at its corner: cells of 1/s >= rc in float, widened until
 * they fit in max_cells. */
static void box_grid(grid_geomd *g, const grid_boxd *bb, double radius, double max_cells) {
    const int dim = g->dim;
    double ext = bb->hi[0] - bb->lo[0];
    for (int a = 1; a < dim; a++) ext = fmax(ext, bb->hi[a] - bb->lo[a]);
    g->margin = margin_for(radius, fmax(ext, bb->amax));
    double rc = radius + g->margin, n[3] = {1, 1, 1};
    float s;
    for (;;) {
        s = (float)(1.0 / rc);
        if ((double)s * rc > 1) s = nextafterf(s, 0); /* cells no narrower than rc */
        for (int a = 0; a < dim; a++) n[a] = floor((bb->hi[a] - bb->lo[a]) * (double)s) + 1;
        if (cells_of(n, dim) <= max_cells) break;
        rc *= fmax(1.25, root_of(cells_of(n, dim) / max_cells, dim));
    }
    for (int a = 0; a < dim; a++) {
        g->n[a] = (uint32_t)n[a];
        g->s[a] = s;
        g->o[a] = bb->lo[a];
    }
    g->wrap = 0;
}

/* Cells tiling the world: as many of at least R + margin as fit, then fewer (wider) ones
 * past max_cells: scaled by the dim-th root, then the axis with the most cells (the first
 * of equals) halved until they fit. In wrap mode the cells tile the world exactly (W / n
 * wide); a float s rounded up makes them narrower by an ulp, which the margin (>= R / 1024)
 * absorbs. */
static void world_grid(grid_geomd *g, const boids_params *p, double max_cells) {
    const int dim = g->dim;
    const double side[3] = {p->width, p->height, p->depth};
    double ext = side[0];
    for (int a = 1; a < dim; a++) ext = fmax(ext, side[a]);
    const double reach = boids_params_reach(p); /* the vision radius, or species' largest */
    g->margin = margin_for(reach, ext);
    const double rc = reach + g->margin;
    double n[3] = {1, 1, 1};
    for (int a = 0; a < dim; a++) n[a] = fmax(1, floor(side[a] / rc));
    if (cells_of(n, dim) > max_cells) {
        const double f = root_of(cells_of(n, dim) / max_cells, dim);
        for (int a = 0; a < dim; a++) n[a] = fmax(1, floor(n[a] / f));
    }
    while (cells_of(n, dim) > max_cells) {
        int m = 0;
        for (int a = 1; a < dim; a++)
            if (n[a] > n[m]) m = a;
        n[m] = floor(n[m] / 2);
    }
    for (int a = 0; a < dim; a++) {
        g->n[a] = (uint32_t)n[a];
        g->s[a] = (float)(n[a] / side[a]);
        g->o[a] = 0;
    }
    g->wrap = p->boundary == BOIDS_BOUNDARY_WRAP;
}

boids_status boids_grid_geomd_init(grid_geomd *g, int dim, const boids_params *p,
                                   const grid_boxd *bb, double max_cells, boids_error *err) {
    const double side[3] = {p->width, p->height, p->depth};
    const double reach = boids_params_reach(p);
    int ok = reach > 0 && reach <= 1e30;
    for (int a = 0; a < dim; a++) ok = ok && side[a] > 0 && side[a] <= 1e30;
    if (!ok && dim == 2)
        return boids_error_set(err, BOIDS_ERR_INPUT,
                               "grid: world %g x %g and vision radius %g must be positive and "
                               "at most 1e30",
                               side[0], side[1], reach);
    if (!ok)
        return boids_error_set(err, BOIDS_ERR_INPUT,
                               "grid: world %g x %g x %g and vision radius %g must be "
                               "positive and at most 1e30",
                               side[0], side[1], side[2], reach);
    if (!(max_cells >= 1)) max_cells = 1;
    *g = (grid_geomd){.dim = dim, .n = {1, 1, 1}, .s = {1, 1, 1}};
    if (bb)
        box_grid(g, bb, reach, max_cells);
    else
        world_grid(g, p, max_cells);
    g->ncells = (size_t)g->n[0];
    for (int a = 1; a < dim; a++) g->ncells *= g->n[a];
    g->reach = reach_of(g);
    return BOIDS_OK;
}

boids_status boids_grid_geom_init(grid_geom *g, const boids_params *p, const grid_bbox *bb,
                                  double max_cells, boids_error *err) {
    const grid_boxd box = bb ? (grid_boxd){{bb->x0, bb->y0, 0}, {bb->x1, bb->y1, 0}, bb->amax}
                             : (grid_boxd){{0}, {0}, 0};
    grid_geomd d = {0};
    boids_status st = boids_grid_geomd_init(&d, 2, p, bb ? &box : NULL, max_cells, err);
    if (st) return st;
    *g = (grid_geom){d.n[0], d.n[1], d.ncells, d.s[0],   d.s[1],
                     d.o[0], d.o[1], d.wrap,   d.margin, d.reach};
    return BOIDS_OK;
}
