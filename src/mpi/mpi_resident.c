/* SPDX-License-Identifier: MIT */
/* The step of a split flock whose local backend keeps its tile resident (tile.h's resident
 * calls; the cpu backend): the rank's boids stay in the backend, in its layout, from step to
 * step, and only what moved crosses between the rank and its backend. One step:
 *   1. the plan (mflock_plan: the box, the geometry, the rows counted by the backend, the
 *      cut);
 *   2. the split: the backend gives back the boids whose row is another tile's, and copies
 *      of its first and last rows;
 *   3. migration: those boids go to the ranks of their rows (all-to-all) and the arrivals
 *      join the backend's; those of them in the tile's first or last row join the halo sent;
 *   4. the halo: the first and last rows go to the ranks beside, theirs come back, without
 *      blocking; the backend takes them with the window;
 *   5. one step of the tile's rows in the backend.
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

/* The boids that left, by destination rank, into c->buf; sent and received; the arrivals in
 * c->rbuf (*arrive of them). */
static boids_status migrate_records(mflock *c, const boids_tile_moves *mv, size_t *arrive,
                                    boids_error *err) {
    const int K = c->size;
    memset(c->scount, 0, (size_t)K * sizeof *c->scount);
    int *dest = malloc((mv->nleave ? mv->nleave : 1) * sizeof *dest);
    if (!dest || !grow(&c->buf, &c->buf_cap, mv->nleave, c->rs)) {
        free(dest);
        return nomem(c, "migration", err);
    }
    for (size_t i = 0; i < mv->nleave; i++)
        c->scount[dest[i] = boids_tile_of_row(c->cut, K, mv->leave_row[i])]++;
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

/* The halo this tile sends into c->ebuf: the first row's boids (the split's and the
 * arrivals' among them, *nfirst), then the last row's (*nlast); the same boids twice for a
 * tile of one row. */
static boids_status edge_records(mflock *c, const boids_tile_moves *mv, const grid_geomd *g,
                                 size_t arrive, size_t *nfirst, size_t *nlast, boids_error *err) {
    const uint32_t lo = c->cut[c->rank], last = c->cut[c->rank + 1] - 1;
    size_t n[2] = {mv->nedge[0], mv->nedge[1]};
    for (size_t i = 0; i < arrive; i++) {
        const uint32_t r = boids_tile_row(g, rec_get(rec_at(c, c->rbuf, i), c->dim - 1));
        n[0] += r == lo;
        n[1] += r == last;
    }
    if (!grow(&c->ebuf, &c->ebuf_cap, n[0] + n[1], c->rs)) return nomem(c, "the halo", err);
    unsigned char *e[2] = {c->ebuf, c->ebuf + n[0] * c->rs};
    for (int k = 0; k < 2; k++) {
        if (mv->nedge[k]) memcpy(e[k], mv->edge[k], mv->nedge[k] * c->rs);
        e[k] += mv->nedge[k] * c->rs;
    }
    for (size_t i = 0; i < arrive; i++) {
        const unsigned char *rec = rec_at(c, c->rbuf, i);
        const uint32_t r = boids_tile_row(g, rec_get(rec, c->dim - 1));
        for (int k = 0; k < 2; k++)
            if (r == (k ? last : lo)) {
                memcpy(e[k], rec, c->rs);
                e[k] += c->rs;
            }
    }
    *nfirst = n[0], *nlast = n[1];
    return BOIDS_OK;
}

/* The halo: the tile's first and last rows sent to the ranks beside it, theirs received into
 * c->rbuf (the row below, then the row above: *nhalo records). */
static boids_status exchange_halo(mflock *c, const grid_geomd *g, size_t nfirst, size_t nlast,
                                  size_t *nhalo, boids_error *err) {
    const int K = c->size;
    const uint32_t lo = c->cut[c->rank], hi = c->cut[c->rank + 1], nrows = g->n[c->dim - 1];
    const int has_lo = g->wrap || lo > 0, has_hi = g->wrap || hi < nrows;
    const int lower = has_lo ? boids_tile_of_row(c->cut, K, (lo + nrows - 1) % nrows) : -1;
    const int upper = has_hi ? boids_tile_of_row(c->cut, K, hi % nrows) : -1;
    MPI_Request req[2];
    int nreq = 0;
    mflock_clock t = mflock_now();
    if (has_lo)
        MPI_Isend(c->ebuf, (int)nfirst, c->rec_type, lower, TAG_DOWN, c->comm, &req[nreq++]);
    if (has_hi)
        MPI_Isend(rec_at(c, c->ebuf, nfirst), (int)nlast, c->rec_type, upper, TAG_UP, c->comm,
                  &req[nreq++]);
    c->st.halo_bytes += (double)(((has_lo ? nfirst : 0) + (has_hi ? nlast : 0)) * c->rs);
    size_t nbelow = 0, nabove = 0;
    boids_status s;
    if (has_lo && (s = receive(c, lower, TAG_UP, &c->rbuf, &c->rbuf_cap, &nbelow, err))) return s;
    if (has_hi && (s = receive(c, upper, TAG_DOWN, &c->tmp, &c->tmp_cap, &nabove, err))) return s;
    MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE);
    mflock_waited(c, t);
    if (!grow(&c->rbuf, &c->rbuf_cap, nbelow + nabove, c->rs)) return nomem(c, "the halo", err);
    if (nabove) /* none from above at a wall or an open edge: tmp may be unallocated */
        memcpy(rec_at(c, c->rbuf, nbelow), c->tmp, nabove * c->rs);
    *nhalo = nbelow + nabove;
    return BOIDS_OK;
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
    size_t arrive = 0, nfirst = 0, nlast = 0, nhalo = 0;
    const double t1 = MPI_Wtime();
    const uint64_t plane = (uint64_t)(g.ncells / g.n[c->dim - 1]); /* whole rows */
    if ((s = boids_backend_tile_split(c->local, c->cut[c->rank] * plane,
                                      c->cut[c->rank + 1] * plane, &mv, err)))
        return local_failure(c, s);
    c->st.local += MPI_Wtime() - t1;
    if ((s = migrate_records(c, &mv, &arrive, err)) ||
        (s = edge_records(c, &mv, &g, arrive, &nfirst, &nlast, err)))
        return s;
    c->m = c->m - mv.nleave + arrive;
    const double t2 = MPI_Wtime();
    if ((s = boids_backend_tile_add(c->local, c->rbuf, arrive, err))) return local_failure(c, s);
    c->st.local += MPI_Wtime() - t2;
    if ((s = exchange_halo(c, &g, nfirst, nlast, &nhalo, err))) return s;
    boids_tile w = t;
    boids_tile_window(c->cut, c->size, c->rank, g.n[c->dim - 1], g.wrap, &w);
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
