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
 * numbers. The cut changes no bit (tile.h: any cut of keys in row order gives one process's).
 *
 * Within cells (c->ids: the resident tiles of cpu and gpu --deterministic, --mpi-cut boids).
 * A cell may hold more than a tile's share (a flock drawn to one point), and no cut of whole
 * cells balances it. There the boundary goes to the boid of the cell where the share falls:
 * the cell's weight is its boids' in equal parts (they have the same block), the share gives
 * how many of them come before the boundary, m, and the ids of the cell's boids, listed by
 * the ranks that own them (boids_backend_tile_cell_ids) and gathered (one all-gather of the
 * counts and one of the ids, only for the cells cut), give the key: the cell and its
 * (m+1)-th id.
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

/* The keys of a cut of whole rows (K tiles, P cells a row, ncells in all). */
static void rows_keys(const uint32_t *cut, int K, uint64_t P, uint64_t ncells,
                      boids_tile_key *keys) {
    for (int j = 0; j < K; j++) keys[j] = (boids_tile_key){(uint64_t)cut[j] * P, 0};
    keys[K] = (boids_tile_key){ncells, 0};
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

/* Index of row r in the sorted list rows[0 .. n), or -1. */
static long row_index(const uint32_t *rows, uint32_t n, uint32_t r);

/* The shares of row v's weight wv in its cells, in proportion to the cost model's load of
 * each (B for each boid plus its boids times its block's), into cw[0 .. P): from the cell
 * counts of the rows rows[0 .. nr) (count, P a row), which hold v and the rows beside it;
 * blk: scratch of 2P entries. */
static void row_shares(const grid_geomd *g, const uint32_t *rows, uint32_t nr,
                       const uint32_t *count, uint32_t v, double wv, double *cw, uint32_t *blk) {
    const uint32_t nrows = g->n[g->dim - 1];
    const uint64_t P = g->ncells / nrows;
    const long i = row_index(rows, nr, v);
    const uint32_t *const here = i >= 0 ? count + (uint64_t)i * P : NULL;
    uint32_t rl, rh; /* the rows beside v */
    boids_tile_beside(v, nrows, g->wrap, &rl, &rh);
    const long il = rl != UINT32_MAX ? row_index(rows, nr, rl) : -1,
               ih = rh != UINT32_MAX ? row_index(rows, nr, rh) : -1;
    const uint32_t *const lo = il >= 0 ? count + (uint64_t)il * P : NULL;
    const uint32_t *const hi = ih >= 0 ? count + (uint64_t)ih * P : NULL;
    for (uint64_t q = 0; q < P; q++)
        blk[q] = (here ? here[q] : 0) + (lo ? lo[q] : 0) + (hi ? hi[q] : 0);
    const uint32_t *const b = boids_tile_block_row(blk, blk + P, P, g->n, g->dim, g->wrap);
    const double boid = MPI_FLOCK_BOID_COST(g->dim);
    double sum = 0;
    for (uint64_t q = 0; q < P; q++) {
        cw[q] = here && here[q] ? (double)here[q] * (boid + (double)b[q]) : 0;
        sum += cw[q];
    }
    for (uint64_t q = 0; q < P; q++) cw[q] = sum > 0 ? wv * cw[q] / sum : wv / (double)P;
}

static long row_index(const uint32_t *rows, uint32_t n, uint32_t r) {
    if (n == 0) return -1;
    /* The last entry at most r (the search of a cut's rows, over the list as a cut). */
    const int i = boids_tile_of_row(rows, (int)n, r);
    return rows[i] == r ? i : -1;
}

/* The weight before key k (in row v = k.cell / P, the rows before it summing to before): the
 * row's cells' shares cw of its weight before k.cell, and of k.cell the share of its boids
 * before the id, below of them (count, P a row, the row's cell counts). */
static double key_weight(boids_tile_key k, uint64_t P, double before, const double *cw,
                         const uint32_t *count, uint32_t below) {
    const uint64_t q = k.cell % P;
    double w = before;
    for (uint64_t i = 0; i < q; i++) w += cw[i];
    if (k.id && count && count[q]) w += cw[q] * (double)below / (double)count[q];
    return w;
}

/* The global ids of the boids of the cells cells[0 .. nc) (ascending, distinct) on every rank:
 * this rank's (its own counts of each in own[0 .. nc)) gathered, each cell's sorted, into
 * *ids, the cells in turn. Collective. */
static boids_status gather_ids(mflock *c, const uint64_t *cells, uint32_t nc, const uint32_t *own,
                               uint32_t **ids, boids_error *err) {
    const int K = c->size;
    size_t mine = 0;
    for (uint32_t q = 0; q < nc; q++) mine += own[q];
    uint32_t *per = malloc((size_t)K * nc * sizeof *per); /* each rank's count of each cell */
    int *cnt = malloc(2 * (size_t)K * sizeof *cnt), *const displ = cnt ? cnt + K : NULL;
    uint32_t *got = malloc((mine ? mine : 1) * sizeof *got), *all = NULL, *out = NULL;
    size_t *run = malloc(((size_t)K + 1) * sizeof *run); /* a cell's runs, one a rank */
    boids_status s = per && cnt && got && run ? BOIDS_OK : nomem(c, "the cut's ids", err);
    size_t m = 0, total = 0;
    if (!s && (s = boids_backend_tile_cell_ids(c->local, cells, nc, got, mine, &m, err)))
        c->shared_failure = 0;
    int ok = !s, all_ok;
    mflock_clock t0 = mflock_now();
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, c->comm);
    if (all_ok) {
        MPI_Allgather(own, (int)nc, MPI_UINT32_T, per, (int)nc, MPI_UINT32_T, c->comm);
        for (int r = 0; r < K; r++) {
            size_t n = 0;
            for (uint32_t q = 0; q < nc; q++) n += per[(size_t)r * nc + q];
            cnt[r] = (int)n, displ[r] = (int)total;
            total += n;
        }
        all = malloc((total ? total : 1) * sizeof *all);
        out = malloc((total ? total : 1) * sizeof *out);
        ok = all && out; /* the same sizes on every rank: all of them go on, or none */
        MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, c->comm);
        if (all_ok)
            MPI_Allgatherv(got, (int)m, MPI_UINT32_T, all, cnt, displ, MPI_UINT32_T, c->comm);
    }
    mflock_waited(c, t0);
    if (!all_ok && !s) {
        c->shared_failure = 1;
        s = boids_error_set(err, BOIDS_ERR_RUNTIME, "a rank could not list its cells' ids");
    }
    if (!s) { /* cell by cell: each rank's ids of it (ascending), then merged */
        size_t o = 0;
        for (uint32_t q = 0; q < nc; q++)
            for (int r = 0; r < K; r++) {
                size_t at = (size_t)displ[r];
                for (uint32_t i = 0; i < q; i++) at += per[(size_t)r * nc + i];
                const size_t n = per[(size_t)r * nc + q];
                memcpy(out + o, all + at, n * sizeof *out);
                o += n;
            }
        o = 0;
        for (uint32_t q = 0; q < nc; q++) { /* all is the merge's scratch now */
            for (int r = 0; r < K; r++) run[r] = o, o += per[(size_t)r * nc + q];
            run[K] = o;
            boids_tile_merge_runs(out, all, run, K);
        }
        *ids = out, out = NULL;
    }
    free(per), free(cnt), free(got), free(all), free(out), free(run);
    return s;
}

/* The cut within rows (see the top) into cut[0 .. K], and each tile's estimated load into
 * load; *fits 0 when no such cut fits (a tile with its halo rows wider than a wrap grid, or
 * more tiles than cells): then the caller keeps the row cut. Within cells too where c->ids:
 * a boundary then goes to the boid of its cell where the share falls. Collective (an
 * all-reduce of whether every rank counted, then of the rows' cell counts; with ids, the ids
 * of the cells cut). */
static boids_status cells_cut(mflock *c, const grid_geomd *g, boids_tile_key *cut, uint64_t *load,
                              int *fits, boids_error *err) {
    const int K = c->size;
    const uint32_t nrows = g->n[g->dim - 1];
    const uint64_t P = g->ncells / nrows;
    const uint64_t *const w = c->hist_all;
    double total = 0;
    for (uint32_t r = 0; r < nrows; r++) total += (double)w[r];
    /* The row of each even share, and the rows beside them: the rows counted per cell. */
    uint32_t *at = malloc((size_t)K * sizeof *at), *rows = malloc(3 * (size_t)K * sizeof *rows);
    uint32_t *below = calloc((size_t)K + 1, sizeof *below);    /* a cut cell's boids before it */
    double *at_before = malloc((size_t)K * sizeof *at_before); /* the weights before at[j] */
    uint64_t *idcell = malloc((size_t)K * sizeof *idcell);     /* the cells cut by ids */
    uint32_t *idown = malloc((size_t)K * sizeof *idown);       /* this rank's boids of each */
    if (!at || !rows || !below || !at_before || !idcell || !idown) {
        free(at), free(rows), free(below), free(at_before), free(idcell), free(idown);
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
    qsort(rows, nr, sizeof *rows, boids_tile_cmp_u32);
    uint32_t u = 0;
    for (uint32_t i = 0; i < nr; i++)
        if (u == 0 || rows[i] != rows[u - 1]) rows[u++] = rows[i];
    nr = u;
    uint32_t *mine = calloc(2 * (size_t)nr * P + 1, sizeof *mine), *ids = NULL;
    double *cw = malloc((P + 1) * sizeof *cw);
    uint32_t *blk = malloc(2 * P * sizeof *blk); /* row_shares' scratch */
    boids_status s = mine && cw && blk ? BOIDS_OK : nomem(c, "the cut's cells", err);
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
    /* Each boundary within its row: the cells' shares of the row's weight, cumulated; the
     * share falls in cell q. Within it, with ids, the boids before the boundary: below[j]. */
    uint32_t nid = 0;
    cut[0] = (boids_tile_key){0, 0}, cut[K] = (boids_tile_key){g->ncells, 0};
    for (int j = 1; j < K && !s; j++) {
        const uint32_t rj = at[j];
        const uint32_t *const here = count + (uint64_t)row_index(rows, nr, rj) * P;
        row_shares(g, rows, nr, count, rj, (double)w[rj], cw, blk);
        const double share = total * (double)j / (double)K - at_before[j];
        uint64_t q = 0;
        double acc = 0; /* the weight of the row's cells [0, q) */
        while (q < P && acc + cw[q] <= share) acc += cw[q++];
        if (q < P && c->ids && here[q] > 1) {
            const double f = (share - acc) / cw[q]; /* in [0, 1) */
            const uint32_t m = (uint32_t)(f * here[q] + 0.5);
            if (m == here[q]) {
                q++;
            } else if (m > 0) {
                below[j] = m;
                if (nid == 0 || idcell[nid - 1] != (uint64_t)rj * P + q) {
                    idcell[nid] = (uint64_t)rj * P + q;
                    idown[nid++] = mine[(uint64_t)row_index(rows, nr, rj) * P + q];
                }
            }
        } else if (q < P && share - acc > acc + cw[q] - share) {
            q++; /* whole cells: the boundary nearest the share */
        }
        cut[j] = (boids_tile_key){(uint64_t)rj * P + q, 0};
    }
    if (!s && nid > 0 && !(s = gather_ids(c, idcell, nid, idown, &ids, err))) {
        size_t o = 0; /* the ids of cell idcell[i] begin at ids[o] */
        uint32_t i = 0;
        for (int j = 1; j < K; j++) {
            if (!below[j]) continue;
            while (idcell[i] != cut[j].cell) {
                const uint32_t *const cnt =
                    count + (uint64_t)row_index(rows, nr, (uint32_t)(idcell[i] / P)) * P;
                o += cnt[idcell[i] % P];
                i++;
            }
            cut[j].id = ids[o + below[j]];
        }
    }
    if (s) {
        free(at), free(rows), free(below), free(at_before), free(idcell), free(idown);
        free(mine), free(cw), free(ids), free(blk);
        return s;
    }
    /* Each tile one boid's key at least; under wrap its rows with its two halo rows in the
     * grid. */
    *fits = 1;
    for (int j = 1; j < K; j++) {
        const boids_tile_key a = cut[j - 1], b = cut[j];
        if (b.cell < a.cell || (b.cell == a.cell && b.id <= a.id))
            cut[j] = (boids_tile_key){a.cell + 1, 0}, below[j] = 0;
        if (cut[j].cell > g->ncells - (uint64_t)(K - j)) *fits = 0;
    }
    for (int j = 0; j < K && *fits && g->wrap; j++) {
        uint32_t r0, r1, e[2];
        boids_tile_edge_rows(cut[j], cut[j + 1], P, &r0, &r1, e);
        *fits = r1 - r0 + 2 <= nrows;
    }
    /* The tiles' loads: the weights between their boundaries. */
    double prev = 0;
    uint32_t v = 0;
    before = 0;
    for (int j = 1; j <= K && *fits; j++) {
        double at_j = total;
        if (j < K) {
            const uint32_t rj = (uint32_t)(cut[j].cell / P);
            while (v < rj) before += (double)w[v++];
            const long i = row_index(rows, nr, rj);
            row_shares(g, rows, nr, count, rj, (double)w[rj], cw, blk);
            at_j = key_weight(cut[j], P, before, cw, i >= 0 ? count + (uint64_t)i * P : NULL,
                              below[j]);
        }
        load[j - 1] = at_j > prev ? (uint64_t)(at_j - prev) : 0;
        prev = at_j;
    }
    free(at), free(rows), free(below), free(at_before), free(idcell), free(idown);
    free(mine), free(cw), free(ids), free(blk);
    return BOIDS_OK;
}

/* No cut admits the ranks (why: boids_tile_cut's message): at the split's first cut the run
 * is refused (status s, the message with tail), later the step fails; every rank knows. */
static boids_status cut_refused(mflock *c, boids_status s, const char *why, const char *tail,
                                boids_error *err) {
    c->shared_failure = 1;
    if (!c->have_cut) return boids_error_set(err, s, "%s%s", why, tail);
    return boids_error_set(err, BOIDS_ERR_RUNTIME, "step %u: %s", (unsigned)c->step, why);
}

boids_status mflock_cut(mflock *c, const grid_geomd *g, const uint64_t *own_load,
                        boids_error *err) {
    const int K = c->size;
    const uint32_t nrows = g->n[g->dim - 1];
    const uint64_t P = g->ncells / nrows;
    uint64_t total = 0, max = 0;
    if (c->have_cut && !c->within) /* whole rows: their cells in this grid */
        rows_keys(c->cut, K, P, g->ncells, c->ccut);
    /* The same grid for the cut in force: the same rows, and for a cut within rows the same
     * cells a row (the open boundary's grid follows the flock). */
    const int same_rows = c->have_cut && nrows == c->nrows && (!c->within || P == c->plane);
    if (same_rows) max = current_max(c, own_load, &total);
    const int first_within = c->cells && c->started && !c->cells_tried;
    if (same_rows && !first_within && (double)max <= MPI_FLOCK_IMBALANCE * (double)total / K)
        return BOIDS_OK;
    uint32_t *cand = malloc((size_t)(K + 1) * sizeof *cand);
    boids_tile_key *ccand = malloc(((size_t)K + 1) * sizeof *ccand);
    uint64_t *load = malloc(((size_t)K + 1) * sizeof *load);
    if (!cand || !ccand || !load) {
        free(cand), free(ccand), free(load);
        return nomem(c, "the cut", err);
    }
    boids_status s = boids_tile_cut(c->hist_all, nrows, g->wrap, K, cand, err);
    /* More ranks than whole rows admit: where tiles may end within rows they may still be cut,
     * at cells; until the backends hold their tiles (the split's first plan) the ranks keep
     * their parts of the ids, and the first step cuts. */
    const int past_rows = s == BOIDS_ERR_INPUT && c->cells;
    char why[sizeof err->msg]; /* vsnprintf may not read the buffer it writes */
    memcpy(why, err->msg, sizeof why);
    if ((s && !past_rows) || (past_rows && !c->started)) {
        free(cand), free(ccand), free(load);
        return past_rows ? BOIDS_OK : cut_refused(c, s, why, "", err); /* else no cut yet */
    }
    int within = 0;
    uint64_t cand_max = 0;
    if (!past_rows) rows_keys(cand, K, P, g->ncells, ccand);
    for (int j = 0; j < K && !past_rows; j++) {
        const uint64_t l = rows_load(c, cand, j);
        cand_max = l > cand_max ? l : cand_max;
    }
    if (c->cells && c->started) { /* the tiles may end within rows */
        int fits = 0;
        c->cells_tried = 1;
        if ((s = cells_cut(c, g, ccand, load, &fits, err))) {
            free(cand), free(ccand), free(load);
            return s;
        }
        if (fits) {
            within = 1, cand_max = 0;
            for (int j = 0; j < K; j++) cand_max = load[j] > cand_max ? load[j] : cand_max;
        } else if (past_rows) { /* neither rows nor cells admit the ranks */
            free(cand), free(ccand), free(load);
            return cut_refused(c, BOIDS_ERR_INPUT, why, "; a cut within rows does not fit either",
                               err);
        } else { /* back to the rows */
            rows_keys(cand, K, P, g->ncells, ccand);
        }
    }
    if (past_rows) { /* the rows the cut's tiles begin in (whole rows admit no cut here) */
        for (int j = 0; j < K; j++) cand[j] = (uint32_t)(ccand[j].cell / P);
        cand[K] = nrows;
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
        c->in_cells = 0;
        for (int j = 1; j < K; j++) c->in_cells |= ccand[j].id != 0;
    }
    free(cand), free(ccand), free(load);
    return BOIDS_OK;
}
