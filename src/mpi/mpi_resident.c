/* SPDX-License-Identifier: MIT */
/* The step of a split flock whose local backend keeps its tile resident (tile.h's resident
 * calls; the cpu and gpu backends): the rank's boids stay in the backend, in its layout, from
 * step to step, and only what moved crosses between the rank and its backend. One step:
 *   1. the plan (mflock_plan: the box, the geometry, the rows counted by the backend, the
 *      cut in keys, within rows and cells where it pays: mpi_cut.c);
 *   2. the split: the backend gives back the boids whose key is another tile's, and copies
 *      of its edge rows (tile.h: its first and last, and the next at an end within a row);
 *   3. migration: those boids go to the ranks of their keys (all-to-all) and the arrivals
 *      join the backend's; those of them in the tile's edge rows join the halo sent;
 *   4. the halo: to every tile whose window holds edge rows of this one (the two beside for
 *      whole rows) the boids of those rows, theirs back, without blocking; the backend takes
 *      them with the window;
 *   5. one step of the tile's cells in the backend.
 * Compared with the window path (mpi_flock.c), no pass of the rank runs over all its boids:
 * the backend's own passes (count, split) and its step do. The halo is not overlapped with
 * the interior rows here: the backend steps its tile in one piece. */
#include <stdlib.h>

#include "mpi_flock_impl.h"

/* A failure of the local backend, on this rank only. */
static boids_status local_failure(mflock *c, boids_status s) {
    c->shared_failure = 0;
    return s;
}

/* The tile of a record under the cut in keys of grid g: its row's, or where the cut ends
 * tiles within that row, its key's (its cell and id). */
static int tile_of_rec(const mflock *c, const grid_geomd *g, const unsigned char *rec,
                       uint32_t row) {
    const uint64_t P = g->ncells / g->n[c->dim - 1];
    const int j = boids_tile_of_key(c->ccut, c->size, (uint64_t)row * P, 0);
    const boids_tile_key hi = c->ccut[j + 1];
    if (hi.cell >= (uint64_t)(row + 1) * P) return j; /* the whole row is tile j's */
    float x[3];
    for (int a = 0; a < c->dim; a++) x[a] = rec_get(rec, a);
    return boids_tile_of_key(c->ccut, c->size, boids_tile_cell(g, x), rec_gid(rec));
}

/* The boids that left, by destination rank, into c->buf; sent and received; the arrivals in
 * c->rbuf (*arrive of them). */
static boids_status migrate_records(mflock *c, const grid_geomd *g, const boids_tile_moves *mv,
                                    size_t *arrive, boids_error *err) {
    const int K = c->size;
    memset(c->scount, 0, (size_t)K * sizeof *c->scount);
    int *dest = malloc((mv->nleave ? mv->nleave : 1) * sizeof *dest);
    if (!dest || !grow(&c->buf, &c->buf_cap, mv->nleave, c->rs)) {
        free(dest);
        return nomem(c, "migration", err);
    }
    for (size_t i = 0; i < mv->nleave; i++)
        c->scount[dest[i] = tile_of_rec(c, g, mv->leave + i * c->rs, mv->leave_row[i])]++;
    c->sdispl[0] = 0;
    for (int j = 1; j < K; j++) c->sdispl[j] = c->sdispl[j - 1] + c->scount[j - 1];
    int *at = c->rdispl; /* scratch: the next slot per destination */
    memcpy(at, c->sdispl, (size_t)K * sizeof *at);
    for (size_t i = 0; i < mv->nleave; i++)
        memcpy(rec_at(c, c->buf, (size_t)at[dest[i]]++), mv->leave + i * c->rs, c->rs);
    free(dest);
    const mflock_clock t = mflock_now();
    MPI_Alltoall(c->scount, 1, MPI_INT, c->rcount, 1, MPI_INT, c->comm);
    size_t n = 0;
    for (int j = 0; j < K; j++) {
        c->rdispl[j] = (int)n;
        n += (size_t)c->rcount[j];
    }
    if (!grow(&c->rbuf, &c->rbuf_cap, n, c->rs)) return nomem(c, "migration", err);
    MPI_Alltoallv(c->buf, c->scount, c->sdispl, c->rec_type, c->rbuf, c->rcount, c->rdispl,
                  c->rec_type, c->comm);
    mflock_waited(c, t);
    c->st.migrated += (double)mv->nleave;
    *arrive = n;
    return BOIDS_OK;
}

/* Tile j's rows [r[0], r[1]) and edge rows (tile.h: [r[0], r[2]) and [r[3], r[1])), and its
 * window w, under the cut in keys of grid g. */
static void tile_rows(const mflock *c, const grid_geomd *g, int j, uint32_t r[4], boids_tile *w) {
    const uint32_t nrows = g->n[c->dim - 1];
    const uint64_t P = g->ncells / nrows;
    boids_tile_edge_rows(c->ccut[j], c->ccut[j + 1], P, &r[0], &r[1], &r[2]);
    boids_tile_window_cells(c->ccut, c->size, j, nrows, P, g->wrap, w);
}

/* Whether tile j's window w holds row v. */
static int window_holds(const boids_tile *w, uint32_t nrows, uint32_t v) {
    return boids_tile_window_row(w, nrows, v) < w->rows;
}

/* Whether tile i sends a halo to tile j (i != j): an edge row of i in j's window wj. */
static int sends_to(const uint32_t ri[4], const boids_tile *wj, uint32_t nrows) {
    for (uint32_t v = ri[0]; v < ri[2]; v++) /* its first edge rows, then its last */
        if (window_holds(wj, nrows, v)) return 1;
    for (uint32_t v = ri[3] > ri[2] ? ri[3] : ri[2]; v < ri[1]; v++)
        if (window_holds(wj, nrows, v)) return 1;
    return 0;
}

/* The halo this tile sends, into c->ebuf: the owned boids of its edge rows (the split's and
 * the arrivals' among them), each once: *nedge records. */
static boids_status edge_records(mflock *c, const boids_tile_moves *mv, const grid_geomd *g,
                                 size_t arrive, size_t *nedge, boids_error *err) {
    uint32_t r[4];
    boids_tile w;
    tile_rows(c, g, c->rank, r, &w);
    const size_t most = mv->nedge[0] + mv->nedge[1] + arrive;
    if (!grow(&c->ebuf, &c->ebuf_cap, most, c->rs)) return nomem(c, "the halo", err);
    size_t n = 0;
    for (int k = 0; k < 2; k++)
        for (size_t i = 0; i < mv->nedge[k]; i++) {
            const unsigned char *rec = mv->edge[k] + i * c->rs;
            /* a boid of both edges (rows of both) is sent with the first */
            if (k == 1 && boids_tile_row(g, rec_get(rec, c->dim - 1)) < r[2]) continue;
            memcpy(rec_at(c, c->ebuf, n++), rec, c->rs);
        }
    for (size_t i = 0; i < arrive; i++) {
        const unsigned char *rec = rec_at(c, c->rbuf, i);
        const uint32_t v = boids_tile_row(g, rec_get(rec, c->dim - 1));
        if (v < r[2] || v >= r[3]) memcpy(rec_at(c, c->ebuf, n++), rec, c->rs);
    }
    *nedge = n;
    return BOIDS_OK;
}

/* The halo: to every tile whose window holds edge rows of this one, the boids of those rows
 * (the tiles beside it for a cut of whole rows; more where tiles end within rows); theirs
 * received into c->rbuf (*nhalo records), without blocking. */
static boids_status exchange_halo(mflock *c, const grid_geomd *g, size_t nedge, size_t *nhalo,
                                  boids_error *err) {
    const int K = c->size;
    const uint32_t nrows = g->n[c->dim - 1];
    uint32_t mine[4];
    boids_tile wmine;
    tile_rows(c, g, c->rank, mine, &wmine);
    /* This tile's edge records by destination, into c->buf: for each tile, those of its rows
     * that the tile's window holds. */
    size_t total = 0;
    MPI_Request *req = malloc((size_t)K * sizeof *req);
    if (!req || !grow(&c->buf, &c->buf_cap, nedge * (size_t)(K > 1 ? K - 1 : 1), c->rs)) {
        free(req);
        return nomem(c, "the halo", err);
    }
    int nreq = 0;
    mflock_clock t = mflock_now();
    for (int j = 0; j < K; j++) {
        uint32_t rj[4];
        boids_tile wj;
        if (j == c->rank) continue;
        tile_rows(c, g, j, rj, &wj);
        if (!sends_to(mine, &wj, nrows)) continue;
        const size_t from = total;
        for (size_t i = 0; i < nedge; i++) {
            const unsigned char *rec = rec_at(c, c->ebuf, i);
            if (window_holds(&wj, nrows, boids_tile_row(g, rec_get(rec, c->dim - 1))))
                memcpy(rec_at(c, c->buf, total++), rec, c->rs);
        }
        MPI_Isend(rec_at(c, c->buf, from), (int)(total - from), c->rec_type, j, TAG_DOWN, c->comm,
                  &req[nreq++]);
    }
    c->st.halo_bytes += (double)(total * c->rs);
    size_t n = 0;
    boids_status s = BOIDS_OK;
    for (int i = 0; i < K && !s; i++) {
        uint32_t ri[4];
        boids_tile wi;
        if (i == c->rank) continue;
        tile_rows(c, g, i, ri, &wi);
        if (!sends_to(ri, &wmine, nrows)) continue;
        size_t got = 0;
        if (!(s = receive(c, i, TAG_DOWN, &c->tmp, &c->tmp_cap, &got, err))) {
            if (!grow(&c->rbuf, &c->rbuf_cap, n + got, c->rs)) {
                s = nomem(c, "the halo", err);
                break;
            }
            if (got) memcpy(rec_at(c, c->rbuf, n), c->tmp, got * c->rs);
            n += got;
        }
    }
    MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE);
    free(req);
    mflock_waited(c, t);
    *nhalo = n;
    return s;
}

boids_status mflock_resident_step(mflock *c, const boids_params *p, boids_error *err) {
    const mflock_clock t0 = mflock_now(), wait0 = mflock_waits(c);
    boids_status s;
    if (!c->started) { /* the boids of the records made at creation */
        if ((s = boids_backend_tile_start(c->local, c->own, c->m, c->n_global, c->step, err)))
            return local_failure(c, s);
        c->started = 1;
        free(c->own), free(c->row); /* the backend holds the boids now, and counts their rows */
        c->own = NULL, c->row = NULL;
        c->own_cap = c->row_cap = 0;
    }
    boids_tile t;
    grid_geomd g;
    if ((s = mflock_plan(c, p, &t, &g, err))) return s;
    boids_tile_moves mv;
    size_t arrive = 0, nedge = 0, nhalo = 0;
    const double t1 = MPI_Wtime();
    if ((s = boids_backend_tile_split(c->local, c->ccut[c->rank], c->ccut[c->rank + 1], &mv, err)))
        return local_failure(c, s);
    c->st.local += MPI_Wtime() - t1;
    if ((s = migrate_records(c, &g, &mv, &arrive, err)) ||
        (s = edge_records(c, &mv, &g, arrive, &nedge, err)))
        return s;
    c->m = c->m - mv.nleave + arrive;
    const double t2 = MPI_Wtime();
    if ((s = boids_backend_tile_add(c->local, c->rbuf, arrive, err))) return local_failure(c, s);
    c->st.local += MPI_Wtime() - t2;
    if ((s = exchange_halo(c, &g, nedge, &nhalo, err))) return s;
    boids_tile w = t;
    boids_tile_window_cells(c->ccut, c->size, c->rank, g.n[c->dim - 1], g.ncells / g.n[c->dim - 1],
                            g.wrap, &w);
    const double t3 = MPI_Wtime();
    if ((s = boids_backend_tile_halo(c->local, &w, c->rbuf, nhalo, err)) ||
        (s = boids_backend_step(c->local, p, 1, err)))
        return local_failure(c, s);
    c->st.local += MPI_Wtime() - t3;
    c->view = NULL;
    mflock_done(c, t0, wait0);
    return BOIDS_OK;
}

boids_status mflock_resident_sync(mflock *c, boids_tile_keep keep, const void *ctx,
                                  boids_error *err) {
    if (c->started) {
        boids_status s = boids_backend_tile_owned(c->local, keep, ctx, &c->view, &c->nview, err);
        return s ? local_failure(c, s) : BOIDS_OK;
    }
    /* The window path, or before the first step: the records here are the boids. */
    c->view = c->own, c->nview = c->m;
    if (!keep) return BOIDS_OK;
    size_t k = 0;
    for (size_t i = 0; i < c->m; i++) k += keep(ctx, rec_gid(rec_at(c, c->own, i))) != 0;
    if (!grow(&c->tmp, &c->tmp_cap, k, c->rs)) return nomem(c, "its boids", err);
    for (size_t i = 0, j = 0; i < c->m; i++)
        if (keep(ctx, rec_gid(rec_at(c, c->own, i))))
            memcpy(rec_at(c, c->tmp, j++), rec_at(c, c->own, i), c->rs);
    c->view = c->tmp, c->nview = k;
    return BOIDS_OK;
}
