/* SPDX-License-Identifier: MIT */
/* One flock over MPI ranks (mpi_flock.h): the tiles, the exchanges, the gather; the plan of
 * every step (the box, the rows, the cut by measured time) and the window path below, for a
 * local backend that keeps no tile resident (the resident path is mpi_resident.c's).
 *
 * A rank holds its boids as records (global id, then the float position and velocity: the
 * values the float backends hold, so nothing is rounded again), in an order of its own that
 * follows the grid's (the backends order each cell by id: the order of the records changes
 * no bit, only how well the backend's passes over them use the caches). One step:
 *   1. the whole flock's geometry (boids_backend_tile_geom; on the open boundary from the
 *      bounding box, reduced over the ranks: min and max are exact in any order);
 *   2. each row's load by the cost model (its boids, the candidates they test:
 *      MPI_FLOCK_BOID_COST) weighted by its rank's measured work per unit of the model,
 *      summed over the ranks with every rank's work of the last step on the wall and the
 *      CPU clocks (the weights on the one --mpi-balance chose); a new cut when the slowest
 *      tile is above MPI_FLOCK_IMBALANCE times the mean, or the rows changed (the open grid
 *      follows the flock); every rank computes the same cut from the same integers;
 *   3. migration: the boids whose row is in another tile go to its rank (all-to-all);
 *   4. the halo: each tile's first and last rows go to the ranks of the rows beside it,
 *      sent and received without blocking (every rank posts its sends before it waits);
 *   5. the window (the tile's rows and the halo rows) onto the rank's backend
 *      (boids_backend_upload_tile), one step of the tile's rows, and their boids back.
 * Messages carry records as bytes: every rank runs the same binary on the same kind of
 * processor (a homogeneous cluster), as the sweep's messages assume. */
#define BOIDS_BACKEND_CHECKS 1 /* no renaming of the constructors: this file makes none */
#include "mpi_flock_impl.h"

#include <stdio.h>
#include <stdlib.h>

/* A record's place in the grid's order (its cell, then its index), for resort. */
typedef struct place {
    uint64_t cell;
    size_t i;
} place;

/* One record from src to dst (a constant size for each dimension: an inlined copy). */
static inline void rec_copy(const mflock *c, unsigned char *dst, const unsigned char *src) {
    if (c->dim == 2)
        memcpy(dst, src, 4 + 8 * 2);
    else
        memcpy(dst, src, 4 + 8 * 3);
}

static int cmp_place(const void *a, const void *b) {
    const place *x = a, *y = b;
    if (x->cell != y->cell) return x->cell < y->cell ? -1 : 1;
    return (x->i > y->i) - (x->i < y->i);
}

/* The flock's axes as arrays: positions then velocities. */
static void flock_axes(const boids_flock *f, double *a[6]) {
    a[0] = f->x, a[1] = f->y, a[2] = f->z;
    a[3] = f->vx, a[4] = f->vy, a[5] = f->vz;
}

/* Axis k (0 .. 2 dim) of flock f: positions x y (z), then velocities. */
static double *axis_of(const mflock *c, const boids_flock *f, int k) {
    double *a[6];
    flock_axes(f, a);
    return k < c->dim ? a[k] : a[3 + k - c->dim];
}

/* ---- the cut -------------------------------------------------------------------------- */

/* The row of every owned boid in grid g. */
static boids_status owned_rows(mflock *c, const grid_geomd *g, boids_error *err) {
    if (!grow(&c->row, &c->row_cap, c->m, sizeof *c->row)) return nomem(c, "rows", err);
    for (size_t i = 0; i < c->m; i++)
        c->row[i] = boids_tile_row(g, rec_get(rec_at(c, c->own, i), c->dim - 1));
    return BOIDS_OK;
}

/* The whole flock's box on the open boundary, reduced over the ranks, into t. */
static boids_status plan_box(mflock *c, boids_tile *t, boids_error *err) {
    grid_boxd mine, all;
    boids_tile_box_empty(&mine);
    if (c->started) {
        boids_status s = boids_backend_tile_box(c->local, &mine, err);
        if (s) return s;
    } else {
        for (size_t i = 0; i < c->m; i++) {
            const unsigned char *r = rec_at(c, c->own, i);
            float x[3];
            for (int a = 0; a < c->dim; a++) x[a] = rec_get(r, a);
            boids_tile_box_point(&mine, c->dim, x);
        }
    }
    mflock_clock t1 = mflock_now();
    MPI_Allreduce(mine.lo, all.lo, 3, MPI_DOUBLE, MPI_MIN, c->comm);
    MPI_Allreduce(mine.hi, all.hi, 3, MPI_DOUBLE, MPI_MAX, c->comm);
    MPI_Allreduce(&mine.amax, &all.amax, 1, MPI_DOUBLE, MPI_MAX, c->comm);
    mflock_waited(c, t1);
    for (int a = c->dim; a < 3; a++) all.lo[a] = all.hi[a] = 0;
    t->has_box = 1;
    t->box = all;
    return BOIDS_OK;
}

/* Adds the slowest of the ranks' work of the last step (ns) to *max and their mean to *mean,
 * in seconds; returns that mean. */
static double add_imbalance(const mflock *c, const uint64_t *work, double *max, double *mean) {
    uint64_t most = 0, sum = 0;
    for (int j = 0; j < c->size; j++) {
        most = work[j] > most ? work[j] : most;
        sum += work[j];
    }
    *max += 1e-9 * (double)most;
    *mean += 1e-9 * (double)sum / c->size;
    return 1e-9 * (double)sum / c->size;
}

/* The imbalance of the last step from every rank's work on the wall clock, then on the CPU
 * clock (ns), the same numbers on every rank, summed over the steps; and the heaviest row's
 * share of the rows' weights (a tile holds at least that row, so no cut of whole rows
 * balances a row above 1 / K of them), summed weighted by the step's mean work. */
static void plan_imbalance(mflock *c, const uint64_t *work, const uint64_t *row, uint32_t nrows) {
    if (c->st.steps == 0) return; /* no step measured yet */
    const double work_mean = add_imbalance(c, work, &c->st.work_max, &c->st.work_mean);
    add_imbalance(c, work + c->size, &c->st.cpu_max, &c->st.cpu_mean);
    double total = 0, heaviest = 0;
    for (uint32_t r = 0; r < nrows; r++) {
        total += (double)row[r];
        heaviest = (double)row[r] > heaviest ? (double)row[r] : heaviest;
    }
    c->st.heaviest_row += total > 0 ? work_mean * heaviest / total : 0;
}

boids_status mflock_plan(mflock *c, const boids_params *p, boids_tile *t, grid_geomd *g,
                         boids_error *err) {
    const int K = c->size, D = c->dim;
    *t = (boids_tile){.n_global = c->n_global};
    boids_status s;
    if (p->boundary == BOIDS_BOUNDARY_OPEN && (s = plan_box(c, t, err))) {
        c->shared_failure = 0;
        return s;
    }
    if ((s = boids_backend_tile_geom(c->local, p, t, g, err))) {
        c->shared_failure = 1; /* the same parameters on every rank: the same answer */
        return s;
    }
    const uint32_t nrows = g->n[D - 1];
    /* Reduced: the row weights, every rank's wall work, its CPU work, its weighted units;
     * then this rank's pairs per row (the cost model's, MPI_FLOCK_BOID_COST), not reduced. */
    const size_t nh = nrows + 3 * (size_t)K;
    if (!grow(&c->hist, &c->hist_cap, nh + nrows, sizeof *c->hist) ||
        !grow(&c->hist_all, &c->hist_all_cap, nh, sizeof *c->hist_all))
        return nomem(c, "the row counts", err);
    uint64_t *const pairs = c->hist + nh;
    memset(c->hist, 0, (nh + nrows) * sizeof *c->hist);
    if (c->started) {
        if ((s = boids_backend_tile_count(c->local, g, c->hist, pairs, err))) {
            c->shared_failure = 0;
            return s;
        }
    } else { /* the window path, and the first step: the boids alone */
        if ((s = owned_rows(c, g, err))) return s;
        for (size_t i = 0; i < c->m; i++) c->hist[c->row[i]]++;
    }
    /* Each row's load in the model's units (candidates), weighted by this rank's measured
     * time per unit, as integers scaled so that the sum over the rows and the ranks is at
     * most 2^62 (the sum of the ranks' weighted units, reduced first); this rank's units, for
     * the next measure. A rate measured on units of another kind (the boids alone, before
     * the backend held the tile and counted the pairs) is not carried over, and the next
     * MPI_FLOCK_WARM steps are not measured. */
    int with_pairs = 0;
    for (uint32_t r = 0; r < nrows; r++) with_pairs |= pairs[r] != 0;
    if (with_pairs != c->units_pairs)
        c->rate = -1, c->rate_skip = MPI_FLOCK_WARM, c->units_pairs = with_pairs;
    /* seconds per unit: measured, or 1 ns until then (the cut follows the model alone) */
    const double w = c->rate > 0 ? c->rate : 1e-9, boid = MPI_FLOCK_BOID_COST(D);
    double units = 0, all;
    for (uint32_t r = 0; r < nrows; r++) {
        pairs[r] = (uint64_t)(boid * (double)c->hist[r] + (double)pairs[r]); /* load */
        units += (double)pairs[r];
    }
    const double mine = w * units;
    mflock_clock t0 = mflock_now();
    MPI_Allreduce(&mine, &all, 1, MPI_DOUBLE, MPI_SUM, c->comm);
    mflock_waited(c, t0);
    const double scale = all > 0 ? 0x1p62 / all : 0;
    uint64_t own = 0;
    for (uint32_t r = 0; r < nrows; r++) {
        c->hist[r] = (uint64_t)(w * (double)pairs[r] * scale);
        own += c->hist[r];
    }
    c->units = units;
    c->hist[nrows + (size_t)c->rank] = c->last_work_ns;
    c->hist[nrows + (size_t)(K + c->rank)] = c->last_cpu_ns;
    c->hist[nrows + (size_t)(2 * K + c->rank)] = own;
    mflock_clock t1 = mflock_now();
    MPI_Allreduce(c->hist, c->hist_all, (int)nh, MPI_UINT64_T, MPI_SUM, c->comm);
    mflock_waited(c, t1);
    plan_imbalance(c, c->hist_all + nrows, c->hist_all, nrows);
    return mflock_cut(c, g, c->hist_all + nrows + 2 * (size_t)K, err);
}

void mflock_done(mflock *c, mflock_clock t0, mflock_clock wait0) {
    const mflock_clock now = mflock_now();
    const double work = (now.wall - t0.wall) - (c->st.wait - wait0.wall);
    const double cpu = (now.cpu - t0.cpu) - (c->wait_cpu - wait0.cpu);
    c->last_work_ns = work > 0 ? (uint64_t)(work * 1e9) : 0;
    c->last_cpu_ns = cpu > 0 ? (uint64_t)(cpu * 1e9) : 0;
    c->st.work += work;
    c->st.work_cpu += cpu;
    if (c->units > 0 && c->rate_skip > 0) {
        c->rate_skip--;
    } else if (c->units > 0) { /* seconds per unit, an average that follows the last steps */
        const double r = (c->balance_cpu ? cpu : work) / c->units;
        c->rate = c->rate < 0 ? r : 0.75 * c->rate + 0.25 * r;
    }
    c->st.boids_sum += (double)c->m;
    if ((double)c->m < c->st.boids_min) c->st.boids_min = (double)c->m;
    if ((double)c->m > c->st.boids_max) c->st.boids_max = (double)c->m;
    c->step++;
    c->st.steps += 1;
    c->st.within += c->within;
    c->st.within_cells += c->in_cells;
    c->st.seconds += now.wall - t0.wall;
    mflock_warm_check(c);
}

/* ---- the step ------------------------------------------------------------------------- */

/* Migration: every owned boid whose row is another tile's goes to that rank; the boids that
 * arrive join the owned ones. */
static boids_status migrate(mflock *c, const grid_geomd *g, boids_error *err) {
    const int K = c->size;
    memset(c->scount, 0, (size_t)K * sizeof *c->scount);
    const uint32_t lo = c->cut[c->rank], hi = c->cut[c->rank + 1];
    for (size_t i = 0; i < c->m; i++)
        c->scount[c->row[i] >= lo && c->row[i] < hi ? c->rank
                                                    : boids_tile_of_row(c->cut, K, c->row[i])]++;
    const size_t leave = c->m - (size_t)c->scount[c->rank];
    c->scount[c->rank] = 0;
    c->sdispl[0] = 0;
    for (int j = 1; j < K; j++) c->sdispl[j] = c->sdispl[j - 1] + c->scount[j - 1];
    if (!grow(&c->buf, &c->buf_cap, leave, c->rs)) return nomem(c, "migration", err);
    /* Leaving boids by destination; each hole they leave is filled by the last staying boid,
     * so that the slab is not shifted (its order is free) and the rest stays in place. */
    int *at = c->rdispl; /* scratch: the next slot per destination */
    memcpy(at, c->sdispl, (size_t)K * sizeof *at);
    size_t keep = c->m;
    for (size_t i = 0; i < keep;) {
        if (c->row[i] >= lo && c->row[i] < hi) {
            i++;
            continue;
        }
        const int j = boids_tile_of_row(c->cut, K, c->row[i]);
        rec_copy(c, rec_at(c, c->buf, (size_t)at[j]++), rec_at(c, c->own, i));
        keep--; /* the last record takes the hole (it is looked at next) */
        if (keep != i) {
            rec_copy(c, rec_at(c, c->own, i), rec_at(c, c->own, keep));
            c->row[i] = c->row[keep];
        }
    }
    mflock_clock t = mflock_now();
    MPI_Alltoall(c->scount, 1, MPI_INT, c->rcount, 1, MPI_INT, c->comm);
    size_t arrive = 0;
    for (int j = 0; j < K; j++) {
        c->rdispl[j] = (int)arrive;
        arrive += (size_t)c->rcount[j];
    }
    if (!grow(&c->rbuf, &c->rbuf_cap, arrive, c->rs) ||
        !grow(&c->own, &c->own_cap, keep + arrive, c->rs) ||
        !grow(&c->row, &c->row_cap, keep + arrive, sizeof *c->row))
        return nomem(c, "migration", err);
    MPI_Alltoallv(c->buf, c->scount, c->sdispl, c->rec_type, c->rbuf, c->rcount, c->rdispl,
                  c->rec_type, c->comm);
    mflock_waited(c, t);
    c->st.migrated += (double)leave;
    /* The arrivals after the staying boids: the order of the records is free (the backend
     * orders each cell by id), and kept from step to step, so that it stays close to the
     * grid's (see resort). */
    if (arrive) /* rbuf is freed after the first migration: none may have come */
        memcpy(rec_at(c, c->own, keep), c->rbuf, arrive * c->rs);
    for (size_t i = keep; i < keep + arrive; i++)
        c->row[i] = boids_tile_row(g, rec_get(rec_at(c, c->own, i), c->dim - 1));
    c->m = keep + arrive;
    return BOIDS_OK;
}

/* The window into c->lf: the owned boids idx[0 .. nidx) (idx NULL: all of them), then the
 * halos a (na records) and b (nb); c->nlown and c->lidx say which owned boids lead it. */
static boids_status window(mflock *c, const size_t *idx, size_t nidx, const unsigned char *a,
                           size_t na, const unsigned char *b, size_t nb, boids_error *err) {
    const size_t mine = idx ? nidx : c->m, n = mine + na + nb;
    if (n > c->lf_cap) {
        boids_flock_free(&c->lf);
        c->lf_cap = 0;
        if (boids_flock_alloc_dim(&c->lf, n + n / 2 + 16, c->dim, err)) {
            c->shared_failure = 0;
            return err->status;
        }
        c->lf_cap = n + n / 2 + 16;
    }
    if (!grow(&c->lgid, &c->lgid_cap, n, sizeof *c->lgid)) return nomem(c, "the window", err);
    double *ax[6];
    const int nk = 2 * c->dim;
    for (int k = 0; k < nk; k++) ax[k] = axis_of(c, &c->lf, k);
    for (size_t o = 0; o < mine; o++) {
        const size_t i = idx ? idx[o] : o;
        const unsigned char *r = rec_at(c, c->own, i);
        c->lgid[o] = rec_gid(r);
        for (int k = 0; k < nk; k++) ax[k][o] = rec_get(r, k);
    }
    c->nlown = mine;
    c->lidx = idx;
    size_t o = mine;
    const unsigned char *halo[2] = {a, b};
    const size_t nhalo[2] = {na, nb};
    for (int h = 0; h < 2; h++)
        for (size_t j = 0; j < nhalo[h]; j++, o++) {
            const unsigned char *r = halo[h] + j * c->rs;
            c->lgid[o] = rec_gid(r);
            for (int k = 0; k < nk; k++) ax[k][o] = rec_get(r, k);
        }
    c->lf.n = n;
    c->lf.step = c->step;
    return BOIDS_OK;
}

/* A window: global rows row_lo .. row_lo + rows - 1 (periodically), of which the window
 * rows [steer_lo, steer_hi) move: the owned rows [wa, wb) of the tile. */
typedef struct span {
    uint32_t row_lo, rows, steer_lo, steer_hi, wa, wb;
} span;

/* One step of window w holding the owned rows [ra, rb) and the halos a, b: the new state of
 * the owned boids of the rows it moves into c->next. */
static boids_status step_window(mflock *c, const boids_params *p, const boids_tile *whole, span w,
                                const size_t *idx, size_t nidx, const unsigned char *a, size_t na,
                                const unsigned char *b, size_t nb, boids_error *err) {
    boids_status s = window(c, idx, nidx, a, na, b, nb, err);
    if (s || c->nlown == 0) return s; /* no boid of this rank to move */
    const uint32_t wa = w.wa, wb = w.wb, row_lo = w.row_lo, rows = w.rows, steer_lo = w.steer_lo,
                   steer_hi = w.steer_hi;
    boids_tile t = *whole;
    t.row_lo = row_lo;
    t.rows = rows;
    t.steer_lo = steer_lo;
    t.steer_hi = steer_hi;
    t.gid = c->lgid;
    const double t0 = MPI_Wtime();
    if ((s = boids_backend_upload_tile(c->local, &c->lf, &t, err)) ||
        (s = boids_backend_step(c->local, p, 1, err)) ||
        (s = boids_backend_download(c->local, &c->lf, err))) {
        c->shared_failure = 0;
        return s;
    }
    c->st.local += MPI_Wtime() - t0;
    double *ax[6];
    for (int k = 0; k < 2 * c->dim; k++) ax[k] = axis_of(c, &c->lf, k);
    for (size_t j = 0; j < c->nlown; j++) {
        const size_t i = c->lidx ? c->lidx[j] : j, o = j;
        const uint32_t r = c->row[i];
        if (r < wa || r >= wb) continue;
        unsigned char *dst = rec_at(c, c->next, i);
        const uint32_t gid = c->lgid[o];
        memcpy(dst, &gid, sizeof gid);
        for (int k = 0; k < 2 * c->dim; k++) rec_set(dst, k, (float)ax[k][o]);
    }
    return BOIDS_OK;
}

/* Every RESORT steps the owned records are put in the grid's cell order: the boids drift
 * from cell to cell, and a window in cell order lets the backend's grid build and download
 * run along memory instead of across it (a third of a step's time at 500k boids per rank on
 * the 2-core development machine, and twice the step's time in all). */
enum { RESORT = 64 };

static boids_status resort(mflock *c, const grid_geomd *g, boids_error *err) {
    place *pl = malloc((c->m ? c->m : 1) * sizeof *pl);
    if (!pl || !grow(&c->tmp, &c->tmp_cap, c->m, c->rs)) {
        free(pl);
        return nomem(c, "the grid order", err);
    }
    for (size_t i = 0; i < c->m; i++) {
        const unsigned char *r = rec_at(c, c->own, i);
        uint64_t cell = 0;
        for (int a = c->dim - 1; a >= 0; a--)
            cell =
                cell * g->n[a] + grid_cell_coord(rec_get(r, a) - (float)g->o[a], g->s[a], g->n[a]);
        pl[i] = (place){cell, i};
    }
    qsort(pl, c->m, sizeof *pl, cmp_place);
    for (size_t i = 0; i < c->m; i++) {
        rec_copy(c, rec_at(c, c->tmp, i), rec_at(c, c->own, pl[i].i));
        c->row[i] = boids_tile_row(g, rec_get(rec_at(c, c->tmp, i), c->dim - 1));
    }
    free(pl);
    unsigned char *x = c->own;
    size_t xc = c->own_cap;
    c->own = c->tmp, c->own_cap = c->tmp_cap;
    c->tmp = x, c->tmp_cap = xc;
    return BOIDS_OK;
}

static boids_status step_one(mflock *c, const boids_params *p, boids_error *err) {
    const int K = c->size, D = c->dim;
    const mflock_clock t0 = mflock_now(), wait0 = mflock_waits(c);
    boids_tile t;
    grid_geomd g;
    boids_status s = mflock_plan(c, p, &t, &g, err);
    if (s) return s;
    const uint32_t nrows = g.n[D - 1];
    if ((s = migrate(c, &g, err))) return s;
    if ((c->st.steps == 0 || c->step % RESORT == 0) && (s = resort(c, &g, err))) return s;
    /* The new state, record for record (every owned boid is in the moved rows of one
     * window below, which writes it). */
    if (!grow(&c->next, &c->next_cap, c->m, c->rs)) return nomem(c, "the new state", err);

    /* The boids of the tile's two first and two last rows, by index: the halo the other
     * ranks need, and the border windows. */
    const uint32_t lo = c->cut[c->rank], hi = c->cut[c->rank + 1], T = hi - lo;
    const uint32_t edge_row[4] = {lo, lo + 1, hi - 2, hi - 1};
    size_t nedge[4] = {0, 0, 0, 0}, at[4];
    for (size_t i = 0; i < c->m; i++) /* counted first: the lists take what they hold */
        for (int e = 0; e < 4; e++) nedge[e] += c->row[i] == edge_row[e];
    at[0] = 0;
    for (int e = 1; e < 4; e++) at[e] = at[e - 1] + nedge[e - 1];
    if (!grow(&c->edge, &c->edge_cap, at[3] + nedge[3], sizeof *c->edge))
        return nomem(c, "the border rows", err);
    const size_t *edge[4] = {c->edge, c->edge + at[1], c->edge + at[2], c->edge + at[3]};
    for (size_t i = 0; i < c->m; i++)
        for (int e = 0; e < 4; e++)
            if (c->row[i] == edge_row[e]) c->edge[at[e]++] = i;

    /* The halo: the rows beside the tile, from the ranks that own them, sent first. */
    const int has_lo = g.wrap || lo > 0, has_hi = g.wrap || hi < nrows;
    const int lower = has_lo ? boids_tile_of_row(c->cut, K, (lo + nrows - 1) % nrows) : -1;
    const int upper = has_hi ? boids_tile_of_row(c->cut, K, hi % nrows) : -1;
    const size_t nfirst = has_lo ? nedge[0] : 0, nlast = has_hi ? nedge[3] : 0;
    if (!grow(&c->buf, &c->buf_cap, nfirst + nlast, c->rs)) return nomem(c, "the halo", err);
    unsigned char *first = c->buf, *last = c->buf + nfirst * c->rs;
    for (size_t j = 0; j < nfirst; j++)
        rec_copy(c, first + j * c->rs, rec_at(c, c->own, edge[0][j]));
    for (size_t j = 0; j < nlast; j++) rec_copy(c, last + j * c->rs, rec_at(c, c->own, edge[3][j]));
    MPI_Request req[2];
    int nreq = 0;
    mflock_clock t1 = mflock_now();
    if (has_lo) MPI_Isend(first, (int)nfirst, c->rec_type, lower, TAG_DOWN, c->comm, &req[nreq++]);
    if (has_hi) MPI_Isend(last, (int)nlast, c->rec_type, upper, TAG_UP, c->comm, &req[nreq++]);
    mflock_waited(c, t1);
    c->st.halo_bytes += (double)((nfirst + nlast) * c->rs);
    /* The interior rows, whose neighbours are all owned, while the halo travels. */
    const int overlap = c->overlap && T >= 3;
    if (overlap && (s = step_window(c, p, &t, (span){lo, T, 1, T - 1, lo + 1, hi - 1}, NULL, 0,
                                    NULL, 0, NULL, 0, err)))
        return s;
    size_t nbelow = 0, nabove = 0;
    t1 = mflock_now();
    if (has_lo && (s = receive(c, lower, TAG_UP, &c->rbuf, &c->rbuf_cap, &nbelow, err))) return s;
    if (has_hi && (s = receive(c, upper, TAG_DOWN, &c->tmp, &c->tmp_cap, &nabove, err))) return s;
    MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE);
    mflock_waited(c, t1);
    const uint32_t below = (uint32_t)has_lo, above = (uint32_t)has_hi;
    const uint32_t start = has_lo ? (lo + nrows - 1) % nrows : lo;
    if (overlap) { /* then the first and the last row, each with its halo */
        if (!grow(&c->pair, &c->pair_cap, nedge[0] + nedge[1] + nedge[2] + nedge[3],
                  sizeof *c->pair))
            return nomem(c, "the border rows", err);
        size_t *a = c->pair, *b = c->pair + nedge[0] + nedge[1];
        /* An empty border row's list may be unallocated: copy only what there is. */
        const size_t off[4] = {0, nedge[0], 0, nedge[2]};
        for (int k = 0; k < 4; k++)
            if (nedge[k]) memcpy((k < 2 ? a : b) + off[k], edge[k], nedge[k] * sizeof *a);
        if ((s = step_window(c, p, &t, (span){start, 2 + below, below, below + 1, lo, lo + 1}, a,
                             nedge[0] + nedge[1], c->rbuf, nbelow, NULL, 0, err)) ||
            (s = step_window(c, p, &t, (span){hi - 2, 2 + above, 1, 2, hi - 1, hi}, b,
                             nedge[2] + nedge[3], NULL, 0, c->tmp, nabove, err)))
            return s;
    } else { /* the whole tile with both halos at once */
        boids_tile w;
        boids_tile_window(c->cut, K, c->rank, nrows, g.wrap, &w);
        if ((s = step_window(c, p, &t, (span){w.row_lo, w.rows, w.steer_lo, w.steer_hi, lo, hi},
                             NULL, 0, c->rbuf, nbelow, c->tmp, nabove, err)))
            return s;
    }
    unsigned char *x = c->own;
    size_t xc = c->own_cap;
    c->own = c->next, c->own_cap = c->next_cap;
    c->next = x, c->next_cap = xc;
    mflock_done(c, t0, wait0);
    return BOIDS_OK;
}

/* ---- the backend's operations ------------------------------------------------------- */

static boids_status op_step(boids_backend *b, const boids_params *p, unsigned steps,
                            boids_error *err) {
    mflock *c = (mflock *)b;
    if (c->single && c->warmup > c->st.steps && steps > c->warmup - c->st.steps) {
        const unsigned first = c->warmup - (unsigned)c->st.steps; /* the warm-up's end */
        boids_status s = op_step(b, p, first, err);
        return s ? s : op_step(b, p, steps - first, err);
    }
    if (c->single) {
        const mflock_clock t0 = mflock_now();
        boids_status s = boids_backend_step(c->local, p, steps, err);
        c->shared_failure = 1; /* one rank: every rank knows */
        if (s) return s;
        c->step += steps;
        c->st.steps += steps;
        const mflock_clock t1 = mflock_now();
        c->st.seconds += t1.wall - t0.wall;
        c->st.local += t1.wall - t0.wall;
        c->st.work += t1.wall - t0.wall;
        c->st.work_cpu += t1.cpu - t0.cpu;
        c->st.boids_sum += (double)steps * (double)c->n_global;
        c->st.boids_min = c->st.boids_max = (double)c->n_global;
        mflock_warm_check(c);
        return BOIDS_OK;
    }
    for (unsigned i = 0; i < steps; i++) {
        boids_status s = c->resident ? mflock_resident_step(c, p, err) : step_one(c, p, err);
        if (s) return s;
    }
    return BOIDS_OK;
}

boids_status mpi_flock_gather(boids_backend *b, boids_flock *out, boids_error *err) {
    mflock *c = (mflock *)b;
    if (c->single) return boids_backend_download(c->local, out, err);
    boids_status s = mflock_resident_sync(c, NULL, NULL, err);
    int ok = s == BOIDS_OK, all; /* every rank brought its boids back, or none gathers */
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, c->comm);
    if (!all) {
        c->shared_failure = 1;
        return s ? s : boids_error_set(err, BOIDS_ERR_RUNTIME, "a rank could not read its tile");
    }
    if (c->rank != 0) {
        uint64_t m = c->nview;
        MPI_Send(&m, 1, MPI_UINT64_T, 0, TAG_GATHER, c->comm);
        for (size_t i = 0; i < c->nview; i += GATHER_CHUNK) {
            size_t k = c->nview - i < GATHER_CHUNK ? c->nview - i : GATHER_CHUNK;
            MPI_Send(c->view + i * c->rs, (int)k, c->rec_type, 0, TAG_GATHER, c->comm);
        }
        return BOIDS_OK;
    }
    double *ax[6];
    for (int k = 0; k < 2 * c->dim; k++) ax[k] = axis_of(c, out, k);
    for (size_t i = 0; i < c->nview; i++) {
        const unsigned char *r = c->view + i * c->rs;
        for (int k = 0; k < 2 * c->dim; k++) ax[k][rec_gid(r)] = rec_get(r, k);
    }
    if (!grow(&c->rbuf, &c->rbuf_cap, GATHER_CHUNK < c->n_global ? GATHER_CHUNK : c->n_global,
              c->rs))
        return nomem(c, "the gather", err);
    for (int j = 1; j < c->size; j++) {
        uint64_t m;
        MPI_Recv(&m, 1, MPI_UINT64_T, j, TAG_GATHER, c->comm, MPI_STATUS_IGNORE);
        for (uint64_t i = 0; i < m; i += GATHER_CHUNK) {
            int k = (int)(m - i < GATHER_CHUNK ? m - i : GATHER_CHUNK);
            MPI_Recv(c->rbuf, k, c->rec_type, j, TAG_GATHER, c->comm, MPI_STATUS_IGNORE);
            for (int q = 0; q < k; q++) {
                const unsigned char *r = rec_at(c, c->rbuf, (size_t)q);
                for (int a = 0; a < 2 * c->dim; a++) ax[a][rec_gid(r)] = rec_get(r, a);
            }
        }
    }
    out->step = c->step;
    return BOIDS_OK;
}

static boids_status op_download(boids_backend *b, boids_flock *out, boids_error *err) {
    return mpi_flock_gather(b, out, err);
}

static boids_status op_upload(boids_backend *b, const boids_flock *in, boids_error *err) {
    (void)b;
    (void)in;
    return boids_error_set(err, BOIDS_ERR_INPUT,
                           "a flock split over MPI ranks takes its state when it is made");
}

static void op_destroy(boids_backend *b) {
    mflock *c = (mflock *)b;
    boids_backend_destroy(c->local);
    MPI_Type_free(&c->rec_type);
    boids_flock_free(&c->lf);
    /* the buffers that grow with the flock, freed alike */
    void *scratch[] = {c->own, c->row,    c->cut,  c->ccut, c->hist, c->hist_all, c->buf, c->rbuf,
                       c->tmp, c->scount, c->lgid, c->next, c->edge, c->pair,     c->ebuf};
    for (size_t i = 0; i < sizeof scratch / sizeof *scratch; i++) free(scratch[i]);
    free(c);
}

#define MFLOCK_OPS(backend_name)                                                                   \
    {                                                                                              \
        .name = backend_name, .destroy = op_destroy, .step = op_step, .download = op_download,     \
        .upload = op_upload                                                                        \
    }
static const boids_backend_ops ops_cpu = MFLOCK_OPS("cpu"), ops_gpu = MFLOCK_OPS("gpu");

void mpi_flock_set_overlap(boids_backend *b, int on) {
    ((mflock *)b)->overlap = on;
}

/* Whether the cut may end tiles within rows, and within cells: the resident path, on a
 * backend that steps such tiles, unless asked for less. */
static void cells_follow(mflock *c) {
    c->cells =
        c->resident && c->cut_how != MPI_FLOCK_CUT_ROWS && boids_backend_tile_within_rows(c->local);
    c->ids =
        c->cells && c->cut_how == MPI_FLOCK_CUT_BOIDS && boids_backend_tile_within_cells(c->local);
}

void mpi_flock_set_window(boids_backend *b, int on) {
    mflock *c = (mflock *)b;
    if (!c->started) c->resident = !on && !c->single && boids_backend_tile_resident(c->local);
    cells_follow(c);
}

void mpi_flock_set_cut(boids_backend *b, int how) {
    mflock *c = (mflock *)b;
    if (!c->started) c->cut_how = how;
    cells_follow(c);
}

void mpi_flock_set_balance_cpu(boids_backend *b, int on) {
    ((mflock *)b)->balance_cpu = on;
}

int mpi_flock_balance_cpu(const boids_backend *b) {
    return ((const mflock *)b)->balance_cpu;
}

int mpi_flock_failure_shared(const boids_backend *b) {
    return ((const mflock *)b)->shared_failure;
}

boids_status mpi_flock_owned(boids_backend *b, boids_tile_keep keep, const void *ctx,
                             const unsigned char **rec, size_t *m, size_t *rs, boids_error *err) {
    mflock *c = (mflock *)b;
    *rs = c->rs;
    if (c->single) { /* the local backend holds the whole flock, in id order */
        boids_status s = BOIDS_OK;
        if (c->lf_cap < c->n_global) {
            boids_flock_free(&c->lf);
            c->lf_cap = 0;
            if ((s = boids_flock_alloc_dim(&c->lf, c->n_global, c->dim, err))) return s;
            c->lf_cap = c->n_global;
        }
        c->lf.n = c->n_global;
        if ((s = boids_backend_download(c->local, &c->lf, err))) return s;
        if (!grow(&c->own, &c->own_cap, c->n_global, c->rs)) return nomem(c, "its boids", err);
        double *ax[6];
        for (int k = 0; k < 2 * c->dim; k++) ax[k] = axis_of(c, &c->lf, k);
        for (size_t i = 0; i < c->n_global; i++) {
            unsigned char *r = rec_at(c, c->own, i);
            const uint32_t gid = (uint32_t)i;
            memcpy(r, &gid, sizeof gid);
            for (int k = 0; k < 2 * c->dim; k++) rec_set(r, k, (float)ax[k][i]);
        }
        c->m = c->n_global;
    }
    boids_status s = mflock_resident_sync(c, keep, ctx, err);
    if (s) return s;
    *rec = c->view;
    *m = c->nview;
    return BOIDS_OK;
}

void mpi_flock_get_stats(const boids_backend *b, mpi_flock_stats *s, mpi_flock_stats *warm) {
    const mflock *c = (const mflock *)b;
    const mpi_flock_stats *w = &c->st0;
    *s = c->st;
    if (warm) *warm = *w;
    if (w->steps > 0) { /* the sums since the warm-up (its end restarted the least and most) */
#define SINCE(f) s->f -= w->f
        SINCE(steps), SINCE(seconds), SINCE(wait), SINCE(local), SINCE(work), SINCE(work_cpu);
        SINCE(halo_bytes), SINCE(migrated), SINCE(boids_sum), SINCE(rebalances);
        SINCE(work_max), SINCE(work_mean), SINCE(cpu_max), SINCE(cpu_mean), SINCE(heaviest_row);
        SINCE(within), SINCE(within_cells);
#undef SINCE
    }
    if (s->steps == 0) s->boids_min = s->boids_max = 0;
    if (warm && warm->steps == 0) warm->boids_min = warm->boids_max = 0;
}

void mpi_flock_set_warmup(boids_backend *b, uint32_t steps) {
    ((mflock *)b)->warmup = steps;
}

uint32_t mpi_flock_step(const boids_backend *b) {
    return ((const mflock *)b)->step;
}

int mpi_flock_dim(const boids_backend *b) {
    return ((const mflock *)b)->dim;
}

MPI_Comm mpi_flock_comm(const boids_backend *b) {
    return ((const mflock *)b)->comm;
}

/* The first tiles: this rank's part of the flock (ids first ..) as records, then the cut of
 * the whole flock and every boid sent to its tile's rank, as a step does. */
static boids_status first_tiles(mflock *c, const boids_params *p, const boids_flock *part,
                                size_t first, boids_error *err) {
    if (!grow(&c->own, &c->own_cap, part->n, c->rs)) return nomem(c, "its boids", err);
    double *ax[6];
    for (int k = 0; k < 2 * c->dim; k++) ax[k] = axis_of(c, part, k);
    for (size_t i = 0; i < part->n; i++) {
        unsigned char *r = rec_at(c, c->own, i);
        uint32_t gid = (uint32_t)(first + i);
        memcpy(r, &gid, sizeof gid);
        for (int k = 0; k < 2 * c->dim; k++) rec_set(r, k, (float)ax[k][i]);
    }
    c->m = part->n;
    boids_tile t;
    grid_geomd g;
    boids_status s = mflock_plan(c, p, &t, &g, err);
    if (!s && c->have_cut) s = migrate(c, &g, err); /* else the first step cuts (mpi_cut.c) */
    /* The first migration moved about (K - 1) / K of the boids; a step's moves a few rows'
     * worth: its buffers start again from nothing rather than stay the flock's size. */
    free(c->buf), free(c->rbuf);
    c->buf = c->rbuf = NULL;
    c->buf_cap = c->rbuf_cap = 0;
    return s;
}

boids_backend *mpi_flock_create(MPI_Comm comm, boids_backend *local, const boids_params *p,
                                const boids_flock *part, size_t first, size_t n, const char *prog,
                                boids_error *err) {
    mflock *c = calloc(1, sizeof *c);
    if (!c) {
        boids_backend_destroy(local);
        boids_error_set(err, BOIDS_ERR_NOMEM, "out of memory");
        return NULL;
    }
    c->local = local;
    c->comm = comm;
    MPI_Comm_rank(comm, &c->rank);
    MPI_Comm_size(comm, &c->size);
    c->dim = boids_flock_dim(part);
    c->rs = 4 + 8 * (size_t)c->dim;
    c->n_global = n;
    c->step = part->step;
    c->single = c->size == 1;
    c->st.boids_min = (double)n;
    c->overlap = 1;
    c->rate = -1;
    c->rate_skip = MPI_FLOCK_WARM;
    c->resident = !c->single && boids_backend_tile_resident(local);
    MPI_Type_contiguous((int)c->rs, MPI_BYTE, &c->rec_type);
    MPI_Type_commit(&c->rec_type);
    c->base.ops = strcmp(boids_backend_name(local), "gpu") ? &ops_cpu : &ops_gpu;
    c->base.n = n;
    c->base.dim = c->dim;
    boids_status s = BOIDS_OK;
    const char *why = boids_tile_refusal(p);
    if (c->single) {
        /* one rank steps the whole flock as one process does */
    } else if (why) {
        s = boids_error_set(err, BOIDS_ERR_INPUT, "%s", why);
    } else if (n > UINT32_MAX) {
        s = boids_error_set(err, BOIDS_ERR_LIMIT, "%zu boids: the ids are 32-bit (at most %u)", n,
                            UINT32_MAX);
    } else {
        const size_t K = (size_t)c->size;
        c->cut = calloc(K + 1, sizeof *c->cut);
        c->ccut = calloc(K + 1, sizeof *c->ccut);
        c->scount = calloc(4 * K, sizeof *c->scount);
        cells_follow(c);
        if (!c->cut || !c->ccut || !c->scount) {
            s = boids_error_set(err, BOIDS_ERR_NOMEM, "out of memory");
        } else {
            c->sdispl = c->scount + K, c->rcount = c->scount + 2 * K, c->rdispl = c->scount + 3 * K;
            s = first_tiles(c, p, part, first, err);
        }
    }
    /* Every rank made it, or none goes on. */
    int mine = s ? c->rank : c->size, bad;
    MPI_Allreduce(&mine, &bad, 1, MPI_INT, MPI_MIN, comm);
    if (bad < c->size) {
        if (!s)
            boids_error_set(err, BOIDS_ERR_RUNTIME,
                            "rank %d could not set up its tile (its message above)", bad);
        else if (c->rank != 0 && bad != 0)
            fprintf(stderr, "%s: rank %d: %s\n", prog, c->rank, err->msg);
        op_destroy(&c->base);
        return NULL;
    }
    return &c->base;
}
