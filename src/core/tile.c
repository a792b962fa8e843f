/* SPDX-License-Identifier: MIT */
/* Tiles (tile.h): the bounding box over several local flocks, the cut of the grid's rows
 * into tiles and their windows, and the refusal of parameters that no halo bounds. The backend
 * entry points (boids_backend_tile_geom, boids_backend_upload_tile) are with the other checked
 * backend functions in backend.c. */
#include "tile.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* The furthest end of a tile that starts at row s, ends at most at e_max and fits the bound
 * (load at most b, at most widest rows); one row at least. */
static uint32_t tile_end(const uint64_t *count, uint32_t s, uint32_t e_max, uint32_t widest,
                         uint64_t b) {
    uint32_t e = s + 1;
    uint64_t sum = count[s];
    while (e < e_max && e - s < widest && sum + count[e] <= b) sum += count[e++];
    return e;
}

/* The earliest start, at least s_min, of a tile that ends at row e and fits the bound. */
static uint32_t tile_start(const uint64_t *count, uint32_t e, uint32_t s_min, uint32_t widest,
                           uint64_t b) {
    uint32_t s = e - 1;
    uint64_t sum = count[s];
    while (s > s_min && e - s < widest && sum + count[s - 1] <= b) sum += count[--s];
    return s;
}

/* first[m] for m = 0 .. k: the earliest row from which the rows to the end can be covered by m
 * tiles that fit the bound, each of one row at least and leaving one row for each of the
 * k - m tiles before (greedy from the end: each tile as long as the bound allows). The rows
 * fit k such tiles when first[k] == 0. */
static void tile_firsts(const uint64_t *count, uint32_t nrows, int k, uint32_t widest, uint64_t b,
                        uint32_t *first) {
    first[0] = nrows;
    for (int m = 1; m <= k; m++)
        first[m] = first[m - 1] > (uint32_t)(k - m)
                       ? tile_start(count, first[m - 1], (uint32_t)(k - m), widest, b)
                       : first[m - 1];
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
    cut[0] = 0;
    cut[k] = nrows;
    if (k == 1) return BOIDS_OK;
    uint32_t *first = malloc(((size_t)k + 1) * sizeof *first);
    if (!first) return boids_error_set(err, BOIDS_ERR_NOMEM, "boids_tile_cut: out of memory");
    /* Under wrap a tile and its two halo rows must be distinct rows. */
    const uint32_t widest = wrap ? nrows - 2 : nrows;
    uint64_t total = 0, heaviest = 0;
    for (uint32_t r = 0; r < nrows; r++) {
        total += count[r];
        heaviest = count[r] > heaviest ? count[r] : heaviest;
    }
    /* The least bound on a tile's load that k tiles of whole rows can keep (bisection: the
     * greedy cover fits a bound exactly when some cut does), in integers, so that every rank
     * finds the same. */
    uint64_t lo = total / (uint64_t)k + (total % (uint64_t)k != 0), hi = total;
    lo = lo > heaviest ? lo : heaviest;
    while (lo < hi) {
        const uint64_t mid = lo + (hi - lo) / 2;
        tile_firsts(count, nrows, k, widest, mid, first);
        if (first[k] == 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    tile_firsts(count, nrows, k, widest, lo, first);
    /* Each boundary nearest its even share j * total / k among those that keep every tile
     * within the bound: no further than the tile before may reach, and no nearer than the
     * tiles after can cover from. */
    uint32_t r = 0;   /* the row the next boundary is searched from */
    uint64_t sum = 0; /* the load of rows [0, r) */
    for (int j = 1; j < k; j++) {
        const uint32_t left = (uint32_t)(k - j);
        const uint32_t e_max = tile_end(count, cut[j - 1], nrows - left, widest, lo);
        uint32_t s_min = first[left] > cut[j - 1] + 1 ? first[left] : cut[j - 1] + 1;
        if (s_min > e_max) s_min = e_max; /* not met: the bound is one some cut keeps */
        const double target = (double)total * (double)j / (double)k;
        while (r < s_min) sum += count[r++];
        while (r < e_max && (double)(sum + count[r]) <= target) sum += count[r++];
        if (r < e_max && target - (double)sum > (double)(sum + count[r]) - target)
            sum += count[r++];
        cut[j] = r;
    }
    free(first);
    return BOIDS_OK;
}

/* The last of the k boundaries cut[0 .. k) at or below x (cut[0] <= x), of 64-bit entries
 * where wide, else 32-bit (binary search). */
static int last_at_most(const void *cut, int wide, int k, uint64_t x) {
    int lo = 0, hi = k - 1;
    while (lo < hi) {
        const int mid = lo + (hi - lo + 1) / 2;
        const uint64_t v = wide ? ((const uint64_t *)cut)[mid] : ((const uint32_t *)cut)[mid];
        if (v <= x)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

int boids_tile_of_row(const uint32_t *cut, int k, uint32_t row) {
    return last_at_most(cut, 0, k, row);
}

/* The window of a tile of rows [lo, hi) (k tiles). */
static void window_rows(uint32_t lo, uint32_t hi, int k, uint32_t nrows, int wrap, boids_tile *t) {
    t->skip_lo = t->skip_hi = 0;
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

void boids_tile_window(const uint32_t *cut, int k, int j, uint32_t nrows, int wrap, boids_tile *t) {
    window_rows(cut[j], cut[j + 1], k, nrows, wrap, t);
}

int boids_tile_of_key(const boids_tile_key *cut, int k, uint64_t cell, uint32_t id) {
    int lo = 0, hi = k - 1; /* the last cut[j] at or below the key (cut[0] is the least) */
    while (lo < hi) {
        const int mid = lo + (hi - lo + 1) / 2;
        if (cut[mid].cell < cell || (cut[mid].cell == cell && cut[mid].id <= id))
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

void boids_tile_window_cells(const boids_tile_key *cut, int k, int j, uint32_t nrows,
                             uint64_t plane, int wrap, boids_tile *t) {
    uint32_t r0, r1, e[2];
    boids_tile_edge_rows(cut[j], cut[j + 1], plane, &r0, &r1, e);
    window_rows(r0, r1, k, nrows, wrap, t);
    t->skip_lo = (uint32_t)(cut[j].cell % plane);
    t->skip_hi = (uint32_t)((plane - boids_tile_key_end(cut[j + 1]) % plane) % plane);
    t->id_lo = cut[j].id, t->id_hi = cut[j + 1].id;
}

uint32_t boids_tile_slot_from(const uint32_t *id, const uint32_t *gid, uint32_t b, uint32_t e,
                              uint32_t x) {
    while (b < e) {
        const uint32_t mid = b + (e - b) / 2, at = gid ? gid[id[mid]] : id[mid];
        if (at < x)
            b = mid + 1;
        else
            e = mid;
    }
    return b;
}

int boids_tile_cmp_u32(const void *a, const void *b) {
    const uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* Runs a[run[i] .. run[i + 1]) for i < k, each ascending and the runs adjacent, into one
 * ascending run in place, merged in pairs over log2(k) passes through tmp (room for them all);
 * run is overwritten. */
void boids_tile_merge_runs(uint32_t *a, uint32_t *tmp, size_t *run, int k) {
    for (; k > 1; k = (k + 1) / 2) {
        for (int i = 0; i < k; i += 2) {
            const size_t b = run[i], m = run[i + 1], e = i + 1 < k ? run[i + 2] : m;
            size_t x = b, y = m, o = b;
            while (x < m && y < e) tmp[o++] = a[y] < a[x] ? a[y++] : a[x++];
            while (x < m) tmp[o++] = a[x++];
            while (y < e) tmp[o++] = a[y++];
            memcpy(a + b, tmp + b, (e - b) * sizeof *a);
            run[i / 2] = b;
        }
        run[(k + 1) / 2] = run[k];
    }
}

boids_status boids_tile_list_cell_ids(const uint32_t *cell, const uint32_t *gid, size_t n,
                                      uint64_t ncells, const uint64_t *cells, uint32_t nc,
                                      uint32_t *ids, size_t cap, size_t *m, const char *who,
                                      boids_error *err) {
    for (uint32_t i = 0; i < nc; i++)
        if (cells[i] >= ncells || (i > 0 && cells[i] <= cells[i - 1]))
            return boids_error_set(err, BOIDS_ERR_INPUT,
                                   "%s: tile_cell_ids: cell %llu is beyond the grid's %llu or not "
                                   "above the one before it",
                                   who, (unsigned long long)cells[i], (unsigned long long)ncells);
    size_t *at = calloc((size_t)nc + 1, sizeof *at); /* each listed cell's first place in ids */
    if (!at)
        return boids_error_set(err, BOIDS_ERR_NOMEM, "%s: out of memory for %u cells", who, nc);
    for (int pass = 0; pass < 2; pass++) { /* counted, then written */
        for (size_t i = 0; i < n; i++) {
            if (nc == 0) break;
            const size_t q = (size_t)last_at_most(cells, 1, (int)nc, cell[i]);
            if (cells[q] != cell[i]) continue;
            if (pass == 0)
                at[q + 1]++;
            else
                ids[at[q]++] = gid[i];
        }
        if (pass == 1) break;
        for (uint32_t q = 0; q < nc; q++) at[q + 1] += at[q];
        if (at[nc] > cap) {
            const size_t held = at[nc];
            free(at);
            return boids_error_set(err, BOIDS_ERR_INPUT,
                                   "%s: tile_cell_ids: the cells hold %zu owned boids, room for "
                                   "%zu",
                                   who, held, cap);
        }
        *m = at[nc]; /* at[q]: where cell q's ids begin, the next to write */
    }
    for (uint32_t q = 0; q < nc; q++) { /* at[q] is now the end of cell q's ids */
        const size_t b = q ? at[q - 1] : 0;
        qsort(ids + b, at[q] - b, sizeof *ids, boids_tile_cmp_u32);
    }
    free(at);
    return BOIDS_OK;
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

boids_status boids_tile_steered_cells(const boids_tile *t, size_t row_cells, const char *who,
                                      size_t *c0, size_t *c1, boids_error *err) {
    *c0 = (size_t)t->steer_lo * row_cells + t->skip_lo;
    *c1 = (size_t)t->steer_hi * row_cells - (t->steer_hi > t->steer_lo ? t->skip_hi : 0);
    if (t->steer_lo == t->steer_hi) {
        *c0 = *c1 = (size_t)t->steer_lo * row_cells;
        return BOIDS_OK;
    }
    if (t->skip_lo >= row_cells || t->skip_hi >= row_cells || *c0 >= *c1)
        return boids_error_set(err, BOIDS_ERR_INPUT,
                               "%s: the tile skips %u cells of its first row and %u of its last "
                               "(rows [%u, %u) of %zu cells each): each must be below a row's "
                               "cells and one cell at least stay steered",
                               who, t->skip_lo, t->skip_hi, t->steer_lo, t->steer_hi, row_cells);
    return BOIDS_OK;
}

boids_status boids_tile_count_row_cells(const uint32_t *cell, size_t n, uint64_t plane,
                                        uint32_t nrows, const uint32_t *rows, uint32_t nr,
                                        uint32_t *count, const char *who, boids_error *err) {
    uint32_t *at = calloc(nrows ? nrows : 1, sizeof *at); /* row -> its place in rows, + 1 */
    if (!at)
        return boids_error_set(err, BOIDS_ERR_NOMEM, "%s: out of memory for %u rows", who, nrows);
    for (uint32_t i = 0; i < nr; i++) {
        if (rows[i] >= nrows || at[rows[i]]) {
            free(at);
            return boids_error_set(err, BOIDS_ERR_INPUT,
                                   "%s: tile_row_cells: row %u is beyond the grid's %u or named "
                                   "twice",
                                   who, rows[i], nrows);
        }
        at[rows[i]] = i + 1;
    }
    for (size_t i = 0; i < n; i++) {
        const uint32_t k = at[cell[i] / plane];
        if (k) count[(size_t)(k - 1) * plane + cell[i] % plane]++;
    }
    free(at);
    return BOIDS_OK;
}

uint32_t *boids_tile_block_row(uint32_t *col, uint32_t *tmp, size_t plane, const uint32_t *n,
                               int dim, int wrap) {
    size_t stride = 1;
    for (int x = 0; x < dim - 1; x++) { /* tmp[q] = col[q] and col beside q along axis x */
        for (size_t q = 0; q < plane; q++) {
            const uint32_t u = (uint32_t)(q / stride % n[x]);
            uint32_t lo, hi;
            boids_tile_beside(u, n[x], wrap, &lo, &hi);
            const size_t base = q - (size_t)u * stride;
            uint32_t s = col[q];
            if (lo != UINT32_MAX) s += col[base + (size_t)lo * stride];
            if (hi != UINT32_MAX) s += col[base + (size_t)hi * stride];
            tmp[q] = s;
        }
        uint32_t *const t = col;
        col = tmp, tmp = t;
        stride *= n[x];
    }
    return col;
}

const char *boids_tile_refusal(const boids_params *p) {
    if (p->neighbours == BOIDS_NEIGHBOURS_TOPOLOGICAL && !p->k_in_vision)
        return "topological neighbours without k_in_vision have no bounded reach (a boid's k "
               "nearest may be any distance away, beyond any halo a tile could hold); set "
               "k_in_vision=1 to keep them within vision_radius";
    return NULL;
}
