/* SPDX-License-Identifier: MIT */
/* Tiles (tile.h): the bounding box over several local flocks, the cut of the grid's rows
 * into tiles and their windows, and the refusal of parameters that no halo bounds. The backend
 * entry points (boids_backend_tile_geom, boids_backend_upload_tile) are with the other checked
 * backend functions in backend.c. */
#include "tile.h"

#include <math.h>
#include <stdio.h>

#include "boids/flock.h"

void boids_tile_box_empty(grid_boxd *b) {
    for (int a = 0; a < 3; a++) b->lo[a] = INFINITY, b->hi[a] = -INFINITY;
    b->amax = 0;
}

/* The comparisons of cpu_grid.c's flock_bbox over the float state: min and max are exact, so
 * any split of the flock gives the same box. */
void boids_tile_box_add(grid_boxd *b, const boids_flock *f) {
    const double *const x[3] = {f->x, f->y, f->z};
    const int dim = boids_flock_dim(f);
    for (size_t i = 0; i < f->n; i++) {
        float v[3];
        for (int a = 0; a < dim; a++) v[a] = (float)x[a][i];
        boids_tile_box_point(b, dim, v);
    }
}

/* The most tiles a grid of nrows rows admits (see boids_tile_cut). */
static uint32_t max_tiles(uint32_t nrows, int wrap) {
    if (wrap) return nrows >= 4 ? nrows : 1;
    return nrows;
}

boids_status boids_tile_cut(const uint64_t *count, uint32_t nrows, int wrap, int k, uint32_t *cut,
                            boids_error *err) {
    if (!count || !cut)
        return boids_error_set(err, BOIDS_ERR_INPUT, "boids_tile_cut: the arrays are NULL");
    if (nrows == 0 || k < 1)
        return boids_error_set(err, BOIDS_ERR_INPUT,
                               "boids_tile_cut: %d tiles of %u rows (need at least one of each)", k,
                               nrows);
    const uint32_t most = max_tiles(nrows, wrap);
    if ((uint32_t)k > most)
        return boids_error_set(
            err, BOIDS_ERR_INPUT,
            "the grid has %u rows along its last axis (y in the plane, z in the box): at most %u "
            "rank%s, not %d (every tile needs at least one row%s); use fewer ranks or a larger "
            "world/smaller vision_radius (with species: the largest vision and rule radius)",
            nrows, most, most == 1 ? "" : "s", k,
            wrap ? ", and under wrap its two halo rows and itself must fit in the "
                   "grid, which takes 4 rows or more"
                 : "");
    /* Under wrap a tile and its two halo rows must be distinct rows. */
    const uint32_t widest = wrap && k > 1 ? nrows - 2 : nrows;
    uint64_t total = 0;
    for (uint32_t r = 0; r < nrows; r++) total += count[r];
    cut[0] = 0;
    uint32_t r = 0;   /* the row the next boundary is searched from */
    uint64_t sum = 0; /* boids in rows [0, r) */
    for (int j = 1; j < k; j++) {
        /* The rows tile j - 1 may end at, so that the tiles left each get one row and no
         * tile is wider than `widest`. */
        const uint32_t left = (uint32_t)(k - j);
        uint32_t lo = cut[j - 1] + 1, hi = nrows - left;
        if (cut[j - 1] + widest < hi) hi = cut[j - 1] + widest;
        if ((uint64_t)left * widest < nrows && nrows - left * widest > lo)
            lo = nrows - left * widest;
        /* The boundary nearest the even share j * total / k. */
        const double target = (double)total * (double)j / (double)k;
        while (r < lo) sum += count[r++];
        while (r < hi && (double)(sum + count[r]) <= target) sum += count[r++];
        if (r < hi && target - (double)sum > (double)(sum + count[r]) - target) sum += count[r++];
        cut[j] = r;
    }
    cut[k] = nrows;
    return BOIDS_OK;
}

int boids_tile_of_row(const uint32_t *cut, int k, uint32_t row) {
    int lo = 0, hi = k - 1; /* the last tile whose first row is <= row */
    while (lo < hi) {
        const int mid = lo + (hi - lo + 1) / 2;
        if (cut[mid] <= row)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

void boids_tile_window(const uint32_t *cut, int k, int j, uint32_t nrows, int wrap, boids_tile *t) {
    const uint32_t lo = cut[j], hi = cut[j + 1];
    if (k == 1) {
        t->row_lo = 0, t->rows = nrows, t->steer_lo = 0, t->steer_hi = nrows;
    } else if (wrap) {
        t->row_lo = lo == 0 ? nrows - 1 : lo - 1;
        t->rows = hi - lo + 2, t->steer_lo = 1, t->steer_hi = 1 + hi - lo;
    } else {
        const uint32_t a = lo > 0 ? lo - 1 : 0, b = hi < nrows ? hi + 1 : nrows;
        t->row_lo = a, t->rows = b - a, t->steer_lo = lo - a, t->steer_hi = hi - a;
    }
}

boids_status boids_tile_check_window(const boids_tile *t, uint32_t nrows, int wrap, const char *who,
                                     int *whole, boids_error *err) {
    if (t->rows > nrows || t->row_lo >= nrows || (!wrap && t->row_lo + t->rows > nrows))
        return boids_error_set(err, BOIDS_ERR_INPUT,
                               "%s: the tile's window of %u rows from row %u does not fit the "
                               "grid's %u rows along its last axis%s",
                               who, t->rows, t->row_lo, nrows,
                               wrap ? "" : " (no wrap: it must end by the last row)");
    *whole = wrap && t->row_lo == 0 && t->rows == nrows;
    const int below = t->steer_lo > 0 || *whole || (!wrap && t->row_lo == 0);
    const int above = t->steer_hi < t->rows || *whole || (!wrap && t->row_lo + t->rows == nrows);
    if (t->steer_lo < t->steer_hi && (!below || !above))
        return boids_error_set(err, BOIDS_ERR_INPUT,
                               "%s: the tile's window (%u rows from row %u) lacks the halo row "
                               "%s its steered rows [%u, %u)",
                               who, t->rows, t->row_lo, below ? "above" : "below", t->steer_lo,
                               t->steer_hi);
    return BOIDS_OK;
}

const char *boids_tile_refusal(const boids_params *p) {
    if (p->neighbours == BOIDS_NEIGHBOURS_TOPOLOGICAL && !p->k_in_vision)
        return "topological neighbours without k_in_vision have no bounded reach (a boid's k "
               "nearest may be any distance away, beyond any halo a tile could hold); set "
               "k_in_vision=1 to keep them within vision_radius";
    return NULL;
}
