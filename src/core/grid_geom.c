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
static double reach_of(const grid_geom *g) {
    double w = INFINITY;
    if (g->ncx > 1) w = fmin(w, 1.0 / (double)g->sx);
    if (g->ncy > 1) w = fmin(w, 1.0 / (double)g->sy);
    return isinf(w) ? 0 : fmax(0, w - g->margin);
}

/* Cells over the box, origin at its corner: cells of 1/s >= rc in float, widened until
 * they fit in max_cells. */
static void box_grid(grid_geom *g, const grid_bbox *bb, double radius, double max_cells) {
    const double ex = bb->x1 - bb->x0, ey = bb->y1 - bb->y0;
    g->margin = margin_for(radius, fmax(fmax(ex, ey), bb->amax));
    double rc = radius + g->margin, nx, ny;
    float s;
    for (;;) {
        s = (float)(1.0 / rc);
        if ((double)s * rc > 1) s = nextafterf(s, 0); /* cells no narrower than rc */
        nx = floor(ex * (double)s) + 1;
        ny = floor(ey * (double)s) + 1;
        if (nx * ny <= max_cells) break;
        rc *= fmax(1.25, sqrt(nx * ny / max_cells));
    }
    g->ncx = (uint32_t)nx;
    g->ncy = (uint32_t)ny;
    g->sx = g->sy = s;
    g->ox = bb->x0;
    g->oy = bb->y0;
    g->wrap = 0;
}

/* Cells tiling [0, W] x [0, H]: as many of at least R + margin as fit, then fewer (wider)
 * ones past max_cells. In wrap mode the cells tile the world exactly (W / ncx wide); a
 * float s rounded up makes them narrower by an ulp, which the margin (>= R / 1024)
 * absorbs. */
static void world_grid(grid_geom *g, const boids_params *p, double max_cells) {
    g->margin = margin_for(p->vision_radius, fmax(p->width, p->height));
    const double rc = p->vision_radius + g->margin;
    double nx = fmax(1, floor(p->width / rc)), ny = fmax(1, floor(p->height / rc));
    if (nx * ny > max_cells) {
        double f = sqrt(nx * ny / max_cells);
        nx = fmax(1, floor(nx / f));
        ny = fmax(1, floor(ny / f));
    }
    while (nx * ny > max_cells) {
        if (nx >= ny)
            nx = floor(nx / 2);
        else
            ny = floor(ny / 2);
    }
    g->ncx = (uint32_t)nx;
    g->ncy = (uint32_t)ny;
    g->sx = (float)(nx / p->width);
    g->sy = (float)(ny / p->height);
    g->ox = g->oy = 0;
    g->wrap = p->boundary == BOIDS_BOUNDARY_WRAP;
}

boids_status boids_grid_geom_init(grid_geom *g, const boids_params *p, const grid_bbox *bb,
                                  double max_cells, boids_error *err) {
    if (!(p->width > 0 && p->width <= 1e30) || !(p->height > 0 && p->height <= 1e30) ||
        !(p->vision_radius > 0 && p->vision_radius <= 1e30))
        return boids_error_set(err, BOIDS_ERR_INPUT,
                               "grid: world %g x %g and vision radius %g must be positive and "
                               "at most 1e30",
                               p->width, p->height, p->vision_radius);
    if (!(max_cells >= 1)) max_cells = 1;
    if (bb)
        box_grid(g, bb, p->vision_radius, max_cells);
    else
        world_grid(g, p, max_cells);
    g->ncells = (size_t)g->ncx * g->ncy;
    g->reach = reach_of(g);
    return BOIDS_OK;
}

boids_status boids_grid_geom3_init(grid_geom3 *g, const boids_params *p, double max_cells,
                                   boids_error *err) {
    const double side[3] = {p->width, p->height, p->depth};
    for (int a = 0; a < 3; a++)
        if (!(side[a] > 0 && side[a] <= 1e30) ||
            !(p->vision_radius > 0 && p->vision_radius <= 1e30))
            return boids_error_set(err, BOIDS_ERR_INPUT,
                                   "grid: world %g x %g x %g and vision radius %g must be "
                                   "positive and at most 1e30",
                                   side[0], side[1], side[2], p->vision_radius);
    if (!(max_cells >= 1)) max_cells = 1;
    g->margin = margin_for(p->vision_radius, fmax(fmax(side[0], side[1]), side[2]));
    double n[3], total = 1;
    for (int a = 0; a < 3; a++) {
        n[a] = fmax(1, floor(side[a] / (p->vision_radius + g->margin)));
        total *= n[a];
    }
    if (total > max_cells) {
        const double f = cbrt(total / max_cells);
        for (int a = 0; a < 3; a++) n[a] = fmax(1, floor(n[a] / f));
    }
    while (n[0] * n[1] * n[2] > max_cells) {
        const int a = n[0] >= n[1] && n[0] >= n[2] ? 0 : n[1] >= n[2] ? 1 : 2;
        n[a] = floor(n[a] / 2);
    }
    double w = INFINITY;
    for (int a = 0; a < 3; a++) {
        g->n[a] = (uint32_t)n[a];
        g->s[a] = (float)(n[a] / side[a]);
        if (g->n[a] > 1) w = fmin(w, 1.0 / (double)g->s[a]);
    }
    g->ncells = (size_t)g->n[0] * g->n[1] * g->n[2];
    g->reach = isinf(w) ? 0 : fmax(0, w - g->margin);
    return BOIDS_OK;
}
