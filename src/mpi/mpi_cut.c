/* SPDX-License-Identifier: MIT */
/* The cut of the split flock (mflock_cut, called by every step's plan in mpi_flock.c): whole
 * rows by boids_tile_cut over the rows' weights, and, where the local backend steps tiles
 * that begin or end within a row (the cpu and gpu backends' resident tiles), each boundary then
 * moved within its row, to the cell where the weights before it reach its even share.
 *
 * The cut within rows. The rows' weights (each rank's model units at its measured time per
 * unit, summed over the ranks) say in which row each even share j * total / K falls; those
 * rows and the rows beside them are counted per cell by the ranks that own their boids
 * (boids_backend_tile_row_cells) and summed (one more all-reduce, only when a cut is made).
 * In each such row the cost model gives every cell its load (B for each boid, plus its boids
 * times the boids of its 3^D block, as the backend counts a row's pairs) and the row's weight
 * is shared over its cells in proportion; the boundary goes to the cell where the weights
 * before it come nearest the share. Every rank computes the same cut from the same reduced
 * numbers. The cut changes no bit (tile.h: any cut of cells in row order gives one process's).
 *
 * When. A cut is made when there is none, the grid's rows changed, or the slowest tile's load
 * is above MPI_FLOCK_IMBALANCE times the mean; it is taken when the grid changed, at the first
 * cut within rows, or when it lowers the slowest tile's load by MPI_FLOCK_GAIN. A tile's load
 * under the cut in force is its rank's own weighted units (reduced with the rows'); under a
 * new cut, its rows' weights with the shares of the rows it ends within. */
#include <stdio.h>
#include <stdlib.h>

#include "mpi_flock_impl.h"

/* The load of tile j under a cut of whole rows, from the whole flock's row weights. */
static uint64_t rows_load(const mflock *c, const uint32_t *cut, int j) {
    uint64_t s = 0;
    for (uint32_t r = cut[j]; r < cut[j + 1]; r++) s += c->hist_all[r];
    return s;
}

/* The slowest tile's load under the cut in force (load[j]: rank j's own weighted units when
 * the cut ends tiles within rows; else from the rows) and the loads' sum. */
static uint64_t current_max(const mflock *c, const uint64_t *load, uint64_t *total) {
    uint64_t max = 0;
    *total = 0;
    for (int j = 0; j < c->size; j++) {
        const uint64_t l = c->within ? load[j] : rows_load(c, c->cut, j);
        max = l > max ? l : max;
        *total += l;
    }
    return max;
}

/* The cells beside u on an axis of n cells (across the seam under wrap), each once and never u:
 * out[0 .. return). */
static int beside(uint32_t u, uint32_t n, int wrap, uint32_t out[2]) {
    int m = 0;
    if (u > 0 || (wrap && n > 1)) out[m++] = u > 0 ? u - 1 : n - 1;
    const uint32_t up = u + 1 < n ? u + 1 : 0;
    if ((u + 1 < n || wrap) && up != u && (m == 0 || up != out[0])) out[m++] = up;
    return m;
}

/* The boids of the 3^D block of cell q of a row (its cells' counts in row, those of the rows
 * below and above in lo and hi, NULL beyond a wall or edge), each cell once. */
static uint64_t block_sum(const grid_geomd *g, const uint32_t *lo, const uint32_t *row,
                          const uint32_t *hi, uint64_t q) {
    uint32_t xs[3], ys[3];
    int nx = 0, ny = 0;
    const uint32_t x = (uint32_t)(q % g->n[0]), y = g->dim == 3 ? (uint32_t)(q / g->n[0]) : 0;
    xs[nx++] = x;
    nx += beside(x, g->n[0], g->wrap, xs + 1);
    ys[ny++] = y;
    if (g->dim == 3) ny += beside(y, g->n[1], g->wrap, ys + 1);
    const uint32_t *const rows[3] = {lo, row, hi};
    uint64_t s = 0;
    for (int k = 0; k < 3; k++)
        for (int b = 0; rows[k] && b < ny; b++)
            for (int a = 0; a < nx; a++) s += rows[k][(uint64_t)ys[b] * g->n[0] + xs[a]];
    return s;
}

/* Index of row r in the sorted list rows[0 .. n), or -1. */
static long row_index(const uint32_t *rows, uint32_t n, uint32_t r);

/* The shares of row v's weight wv in its cells, in proportion to the cost model's load of
 * each (B for each boid plus its boids times its block's), into cw[0 .. P): from the cell
 * counts of the rows rows[0 .. nr) (count, P a row), which hold v and the rows beside it. */
static void row_shares(const grid_geomd *g, const uint32_t *rows, uint32_t nr,
                       const uint32_t *count, uint32_t v, double wv, double *cw) {
    const uint32_t nrows = g->n[g->dim - 1];
    const uint64_t P = g->ncells / nrows;
    const long i = row_index(rows, nr, v);
    const uint32_t *const here = i >= 0 ? count + (uint64_t)i * P : NULL;
    const uint32_t rl = v > 0 ? v - 1 : nrows - 1, rh = v + 1 < nrows ? v + 1 : 0;
    const int has_lo = (v > 0 || g->wrap) && rl != v;
    const int has_hi = (v + 1 < nrows || g->wrap) && rh != v && !(has_lo && rh == rl);
    const long il = has_lo ? row_index(rows, nr, rl) : -1,
               ih = has_hi ? row_index(rows, nr, rh) : -1;
    const uint32_t *const lo = il >= 0 ? count + (uint64_t)il * P : NULL;
    const uint32_t *const hi = ih >= 0 ? count + (uint64_t)ih * P : NULL;
    const double boid = MPI_FLOCK_BOID_COST(g->dim);
    double sum = 0;
    for (uint64_t q = 0; q < P; q++) {
        cw[q] =
            here && here[q] ? (double)here[q] * (boid + (double)block_sum(g, lo, here, hi, q)) : 0;
        sum += cw[q];
    }
    for (uint64_t q = 0; q < P; q++) cw[q] = sum > 0 ? wv * cw[q] / sum : wv / (double)P;
}

static long row_index(const uint32_t *rows, uint32_t n, uint32_t r) {
    long lo = 0, hi = (long)n - 1;
    while (lo <= hi) {
        const long mid = lo + (hi - lo) / 2;
        if (rows[mid] == r) return mid;
        if (rows[mid] < r)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return -1;
}

static int cmp_u32(const void *a, const void *b) {
    const uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* The cut within rows (see the top) into cells[0 .. K], and each tile's estimated load into
 * load; *fits 0 when no such cut fits (a tile with its halo rows wider than a wrap grid, or
 * more tiles than cells): then the caller keeps the row cut. Collective (an all-reduce of
 * whether every rank counted, then of the rows' cell counts). */
static boids_status cells_cut(mflock *c, const grid_geomd *g, uint64_t *cells, uint64_t *load,
                              int *fits, boids_error *err) {
    const int K = c->size;
    const uint32_t nrows = g->n[g->dim - 1];
    const uint64_t P = g->ncells / nrows;
    const uint64_t *const w = c->hist_all;
    double total = 0;
    for (uint32_t r = 0; r < nrows; r++) total += (double)w[r];
    /* The row of each even share, and the rows beside them: the rows counted per cell. */
    uint32_t *at = malloc((size_t)K * sizeof *at), *rows = malloc(3 * (size_t)K * sizeof *rows);
    double *at_before = malloc((size_t)K * sizeof *at_before); /* the weights before at[j] */
    if (!at || !rows || !at_before) {
        free(at), free(rows), free(at_before);
        return nomem(c, "the cut", err);
    }
    uint32_t nr = 0, r = 0;
    double before = 0; /* the weights of the rows before r */
    for (int j = 1; j < K; j++) {
        const double share = total * (double)j / (double)K;
        while (r + 1 < nrows && before + (double)w[r] <= share) before += (double)w[r++];
        at[j] = r, at_before[j] = before;
        const uint32_t near[3] = {r > 0     ? r - 1
                                  : g->wrap ? nrows - 1
                                            : r,
                                  r,
                                  r + 1 < nrows ? r + 1
                                  : g->wrap     ? 0
                                                : r};
        for (int k = 0; k < 3; k++) rows[nr++] = near[k];
    }
    qsort(rows, nr, sizeof *rows, cmp_u32);
    uint32_t u = 0;
    for (uint32_t i = 0; i < nr; i++)
        if (u == 0 || rows[i] != rows[u - 1]) rows[u++] = rows[i];
    nr = u;
    uint32_t *mine = calloc(2 * (size_t)nr * P + 1, sizeof *mine);
    double *cw = malloc((P + 1) * sizeof *cw);
    boids_status s = mine && cw ? BOIDS_OK : nomem(c, "the cut's cells", err);
    if (!s) {
        s = boids_backend_tile_row_cells(c->local, rows, nr, mine, err);
        if (s) c->shared_failure = 0;
    }
    int ok = !s; /* every rank counted: all of them go on to the same cut */
    int all_ok;
    mflock_clock t0 = mflock_now();
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, c->comm);
    uint32_t *const count = mine + (size_t)nr * P; /* the whole flock's, summed */
    if (all_ok) MPI_Allreduce(mine, count, (int)((size_t)nr * P), MPI_UINT32_T, MPI_SUM, c->comm);
    mflock_waited(c, t0);
    if (!all_ok && !s) { /* every rank knows: each can stop on its own */
        c->shared_failure = 1;
        s = boids_error_set(err, BOIDS_ERR_RUNTIME, "another rank could not count its cells");
    }
    if (s) {
        free(at), free(rows), free(at_before), free(mine), free(cw);
        return s;
    }
    /* Each boundary within its row: the cells' shares of the row's weight, cumulated. */
    cells[0] = 0, cells[K] = g->ncells;
    for (int j = 1; j < K; j++) {
        const uint32_t rj = at[j];
        row_shares(g, rows, nr, count, rj, (double)w[rj], cw);
        const double share = total * (double)j / (double)K - at_before[j];
        uint64_t q = 0;
        double acc = 0; /* the weight of the row's cells [0, q) */
        while (q < P) {
            const double next = acc + cw[q];
            if (next > share) {
                if (next - share < share - acc) acc = next, q++;
                break;
            }
            acc = next, q++;
        }
        cells[j] = (uint64_t)rj * P + q;
    }
    /* Each tile one cell at least; under wrap its rows with its two halo rows in the grid. */
    *fits = 1;
    for (int j = 1; j < K; j++) {
        if (cells[j] <= cells[j - 1]) cells[j] = cells[j - 1] + 1;
        if (cells[j] > g->ncells - (uint64_t)(K - j)) *fits = 0;
    }
    for (int j = 0; j < K && *fits && g->wrap; j++) {
        uint32_t r0, r1, e[2];
        boids_tile_edge_rows(cells[j], cells[j + 1], P, &r0, &r1, e);
        *fits = r1 - r0 + 2 <= nrows;
    }
    /* The tiles' loads: their whole rows' weights, and the shares of the rows they end in. */
    for (int j = 0; j < K && *fits; j++) {
        uint32_t r0, r1, e[2];
        boids_tile_edge_rows(cells[j], cells[j + 1], P, &r0, &r1, e);
        double l = 0;
        for (uint32_t v = r0; v < r1; v++) {
            const uint64_t a = v == r0 ? cells[j] - (uint64_t)v * P : 0;
            const uint64_t b = v + 1 == r1 ? cells[j + 1] - (uint64_t)v * P : P;
            if (a == 0 && b == P) {
                l += (double)w[v];
                continue;
            }
            row_shares(g, rows, nr, count, v, (double)w[v], cw); /* a row a boundary ends in */
            for (uint64_t q = a; q < b; q++) l += cw[q];
        }
        load[j] = (uint64_t)l;
    }
    free(at), free(rows), free(at_before), free(mine), free(cw);
    return BOIDS_OK;
}

boids_status mflock_cut(mflock *c, const grid_geomd *g, const uint64_t *own_load,
                        boids_error *err) {
    const int K = c->size;
    const uint32_t nrows = g->n[g->dim - 1];
    const uint64_t P = g->ncells / nrows;
    uint64_t total = 0, max = 0;
    if (c->have_cut && !c->within) { /* whole rows: their cells in this grid */
        for (int j = 0; j < K; j++) c->ccut[j] = c->cut[j] * P;
        c->ccut[K] = g->ncells;
    }
    /* The same grid for the cut in force: the same rows, and for a cut within rows the same
     * cells a row (the open boundary's grid follows the flock). */
    const int same_rows = c->have_cut && nrows == c->nrows && (!c->within || P == c->plane);
    if (same_rows) max = current_max(c, own_load, &total);
    const int first_within = c->cells && c->started && !c->cells_tried;
    if (same_rows && !first_within && (double)max <= MPI_FLOCK_IMBALANCE * (double)total / K)
        return BOIDS_OK;
    uint32_t *cand = malloc((size_t)(K + 1) * sizeof *cand);
    uint64_t *ccand = malloc(2 * ((size_t)K + 1) * sizeof *ccand), *load = ccand + K + 1;
    if (!cand || !ccand) {
        free(cand), free(ccand);
        return nomem(c, "the cut", err);
    }
    boids_status s = boids_tile_cut(c->hist_all, nrows, g->wrap, K, cand, err);
    if (s) {
        free(cand), free(ccand);
        c->shared_failure = 1;
        if (!c->have_cut) return s; /* the first cut: the split refused as it is made */
        char why[sizeof err->msg];  /* vsnprintf may not read the buffer it writes */
        memcpy(why, err->msg, sizeof why);
        return boids_error_set(err, BOIDS_ERR_RUNTIME, "step %u: %s", (unsigned)c->step, why);
    }
    int within = 0;
    uint64_t cand_max = 0;
    for (int j = 0; j < K; j++) {
        ccand[j] = cand[j] * P;
        const uint64_t l = rows_load(c, cand, j);
        cand_max = l > cand_max ? l : cand_max;
    }
    ccand[K] = g->ncells;
    if (c->cells && c->started) { /* the tiles may end within rows */
        int fits = 0;
        c->cells_tried = 1;
        if ((s = cells_cut(c, g, ccand + 0, load, &fits, err))) {
            free(cand), free(ccand);
            return s;
        }
        if (fits) {
            within = 1, cand_max = 0;
            for (int j = 0; j < K; j++) cand_max = load[j] > cand_max ? load[j] : cand_max;
        } else { /* back to the rows */
            for (int j = 0; j < K; j++) ccand[j] = cand[j] * P;
            ccand[K] = g->ncells;
        }
    }
    /* Another cut of the same rows only when it lowers the slowest tile's load by
     * MPI_FLOCK_GAIN: the measured costs move from step to step, so a smaller gain would move
     * boids back and forth. */
    if (!same_rows || first_within || (double)cand_max < (1 - MPI_FLOCK_GAIN) * (double)max) {
        memcpy(c->cut, cand, (size_t)(K + 1) * sizeof *cand);
        memcpy(c->ccut, ccand, (size_t)(K + 1) * sizeof *ccand);
        c->rate_skip = MPI_FLOCK_WARM; /* the cells that moved arrive cold */
        c->st.rebalances += c->have_cut;
        c->have_cut = 1;
        c->nrows = nrows;
        c->plane = P;
        c->within = within;
    }
    free(cand), free(ccand);
    return BOIDS_OK;
}
