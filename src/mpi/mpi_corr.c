/* SPDX-License-Identifier: MIT */
/* The velocity correlation of the split flock without a gather (mpi_parts.h,
 * mpi_part_correlation_add), with the bits of one process (src/core/structure.c, whose
 * pieces are in obs_part.h):
 *
 * - the fluctuations u = (v - V) / s: whether any velocity differs from boid 0's, then the
 *   mean velocity V and the spread s, sums over the boids in id order through the parts
 *   rank after rank (mpi_parts_chain), known to every rank;
 * - the pair sums follow the correlation's grid (cells at least range wide over the whole
 *   flock: its N and its extent, a minimum and a maximum over the parts, exact), in runs of
 *   cells within the rows of its last axis, summed apart and added in run order. The rows
 *   go to the ranks in rank order, in contiguous groups of about the same estimated pair
 *   work (the boids of a row times those of it and the rows beside it, counted over the
 *   parts); each part's boids (id, position, velocity) go to every rank whose rows or the row
 *   beside them (around the seam under wrap) they are in, arriving in rank order, which is
 *   id order; each rank sums its rows' runs, then adds them in order to the running sums it
 *   receives from the rank before it (rank 0 starting from the caller's) and sends them on;
 *   the last rank's reach rank 0. A rank sums its runs before the running sums reach it, so
 *   the ranks work at once (a rank whose runs' bins exceed one batch of the core's, 2^21
 *   doubles, sums its later batches once the running sums have reached it). Each rank makes
 *   the boids' u from their velocities, V and s as one process does.
 *
 * A rank holds its part, its rows' boids and the rows beside them: when the range is a large
 * share of the world the rows are few and wide, a rank's rows and their neighbours may be
 * most of the flock (the default range of --correlation, half the smallest side of a wrap
 * world, makes one row: one rank holds the whole flock and sums every pair, as one process
 * does). That is inherent in summing pairs within the range where they lie. */
#include "mpi_parts.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "flock_part.h"
#include "obs_part.h"

enum { TAG_RUNS = 44 };

typedef struct moments {
    const boids_flock *part;
    int dim;
    const double *mean;
} moments;

static void add_mean(void *ctx, double *s) {
    const moments *m = ctx;
    boids_corr_mean_add(m->part, m->dim, s);
}

static void add_spread(void *ctx, double *ss) {
    const moments *m = ctx;
    boids_corr_spread_add(m->part, m->dim, m->mean, ss);
}

/* The running sums (sum, then pairs: 2 bins doubles) as they pass through the ranks. */
typedef struct runs_chain {
    MPI_Comm comm;
    int rank, got;
    size_t bins;
    double *run;
} runs_chain;

/* Before this rank adds its first run: the sums of the rows before its own. */
static void receive(void *ctx) {
    runs_chain *c = ctx;
    if (c->rank > 0 && !c->got)
        MPI_Recv(c->run, (int)(2 * c->bins), MPI_DOUBLE, c->rank - 1, TAG_RUNS, c->comm,
                 MPI_STATUS_IGNORE);
    c->got = 1;
}

/* Whether row r is in rank j's window: its rows cut[j] .. cut[j + 1] - 1 and the one
 * beside each (wrap: around the seam; every row when that covers them all). */
static int in_window(const long *cut, int j, long r, long all, int wrap) {
    const long a = cut[j], b = cut[j + 1];
    if (a == b) return 0;
    if (!wrap) return r >= a - 1 && r <= b;
    if (b - a + 2 >= all) return 1;
    return (r - (a - 1) + all) % all < b - a + 2;
}

/* The estimated pair work of row r: its boids times those of it and the rows beside it
 * (each row once), plus its boids. */
static double row_work(const long *count, long all, int wrap, long r) {
    const long lo = r > 0 ? r - 1 : wrap ? all - 1 : r, hi = r + 1 < all ? r + 1 : wrap ? 0 : r;
    double near = (double)count[r];
    if (lo != r) near += (double)count[lo];
    if (hi != r && hi != lo) near += (double)count[hi];
    return (double)count[r] * (near + 1);
}

/* The ranks' rows, cut[0 .. size]: rank j sums the rows cut[j] .. cut[j + 1] - 1, whole
 * groups of `group` rows, about the same work each (every rank computes the cut from the same
 * integers). */
static void cut_rows(const long *count, long all, long group, int wrap, int size, long *cut) {
    double total = 0, sum = 0;
    for (long r = 0; r < all; r++) total += row_work(count, all, wrap, r);
    int j = 1;
    cut[0] = 0;
    for (long r = 0; r < all && j < size; r++) {
        sum += row_work(count, all, wrap, r);
        const long end = r + 1 < all ? r + 1 : all; /* a group ends after row r */
        if (end % group && end < all) continue;
        while (j < size && sum >= total * (double)j / (double)size) cut[j++] = end;
    }
    while (j <= size) cut[j++] = all;
}

/* A boid as it travels: its id, position and velocity (dim doubles each). */
static size_t rec_bytes(int dim) {
    return 4 + 16 * (size_t)dim;
}

/* The boids of this rank's part (its first id: first) to the ranks whose windows they are in
 * (row: each one's row), the boids received into *set (allocated here; free set->x), in id
 * order. */
static boids_status spread_boids(MPI_Comm comm, const boids_flock *part, int dim, const long *row,
                                 const long *cut, long all, int wrap, size_t first,
                                 boids_flock *set, boids_error *err) {
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    const size_t rs = rec_bytes(dim);
    const double *pos[3] = {part->x, part->y, part->z}, *vel[3] = {part->vx, part->vy, part->vz};
    int *cnt = calloc(4 * (size_t)size, sizeof *cnt);
    boids_status s = cnt ? BOIDS_OK : boids_error_set(err, BOIDS_ERR_NOMEM, "out of memory");
    size_t out = 0;
    for (size_t i = 0; !s && i < part->n; i++)
        for (int j = 0; j < size; j++)
            if (in_window(cut, j, row[i], all, wrap)) cnt[j]++, out++;
    unsigned char *send = s ? NULL : malloc(out * rs + 1);
    if (!s && !send)
        s = boids_error_set(err, BOIDS_ERR_NOMEM,
                            "velocity correlation: out of memory for %zu boids to send", out);
    if ((s = mpi_parts_agree(comm, s, err))) {
        free(cnt), free(send);
        return s;
    }
    int *sc = cnt, *sd = cnt + size, *rc = cnt + 2 * size, *rd = cnt + 3 * size;
    for (int j = 1; j < size; j++) sd[j] = sd[j - 1] + sc[j - 1];
    memcpy(rd, sd, (size_t)size * sizeof *rd); /* scratch: where each goes */
    for (int j = 0; j < size; j++)             /* each rank's boids in id order */
        for (size_t i = 0; i < part->n; i++) {
            if (!in_window(cut, j, row[i], all, wrap)) continue;
            unsigned char *r = send + (size_t)rd[j]++ * rs;
            const uint32_t id = (uint32_t)(first + i);
            memcpy(r, &id, 4);
            for (int a = 0; a < dim; a++) {
                memcpy(r + 4 + 8 * (size_t)a, &pos[a][i], 8);
                memcpy(r + 4 + 8 * (size_t)(dim + a), &vel[a][i], 8);
            }
        }
    MPI_Alltoall(sc, 1, MPI_INT, rc, 1, MPI_INT, comm);
    rd[0] = 0;
    for (int j = 1; j < size; j++) rd[j] = rd[j - 1] + rc[j - 1];
    const size_t got = (size_t)rd[size - 1] + (size_t)rc[size - 1];
    unsigned char *recv = malloc(got * rs + 1);
    double *block = malloc(2 * (size_t)dim * got * sizeof *block + 1);
    if (!recv || !block)
        s = boids_error_set(err, BOIDS_ERR_NOMEM,
                            "velocity correlation: out of memory for %zu boids", got);
    if (!(s = mpi_parts_agree(comm, s, err))) {
        MPI_Datatype rt;
        MPI_Type_contiguous((int)rs, MPI_BYTE, &rt);
        MPI_Type_commit(&rt);
        MPI_Alltoallv(send, sc, sd, rt, recv, rc, rd, rt, comm);
        MPI_Type_free(&rt);
        free(send);
        send = NULL;
        double *ax[6];
        for (int a = 0; a < 2 * dim; a++) ax[a] = block + (size_t)a * got;
        *set = (boids_flock){.n = got, .x = ax[0], .y = ax[1], .vx = ax[dim], .vy = ax[dim + 1]};
        if (dim == 3) set->z = ax[2], set->vz = ax[5];
        for (size_t i = 0; i < got; i++) /* from the ranks in rank order: id order */
            for (int a = 0; a < 2 * dim; a++)
                memcpy(&ax[a][i], recv + i * rs + 4 + 8 * (size_t)a, 8);
        block = NULL;
    }
    free(cnt), free(send), free(recv), free(block);
    return s;
}

boids_status mpi_part_correlation_add(MPI_Comm comm, const boids_flock *part, const boids_params *p,
                                      size_t n, double range, size_t bins, double *sum,
                                      double *pairs, boids_error *err) {
    static const char who[] = "velocity correlation";
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    const int dim = p->dim, wrap = p->boundary == BOIDS_BOUNDARY_WRAP;
    boids_status s = boids_corr_check(n, p, range, bins, who, err);
    if (s) return s; /* the same on every rank */
    /* the fluctuations: boid 0's velocity from the part that holds it, then V and s */
    int holder = 0;
    size_t first, cnt;
    for (;; holder++) {
        boids_part_range(n, (size_t)holder, (size_t)size, &first, &cnt);
        if (cnt > 0) break;
    }
    const double *vel[3] = {part->vx, part->vy, part->vz};
    double v0[3] = {0, 0, 0}, mean[3] = {0, 0, 0}, ss = 0;
    for (int a = 0; rank == holder && a < dim; a++) v0[a] = vel[a][0];
    MPI_Bcast(v0, 3, MPI_DOUBLE, holder, comm);
    int differs = boids_corr_differs(part, dim, v0);
    MPI_Allreduce(MPI_IN_PLACE, &differs, 1, MPI_INT, MPI_LOR, comm);
    if (!differs) return BOIDS_OK;
    moments m = {part, dim, mean};
    mpi_parts_chain(comm, mean, dim, add_mean, &m);
    for (int a = 0; a < dim; a++) mean[a] /= (double)n;
    mpi_parts_chain(comm, &ss, 1, add_spread, &m);
    const double scale = sqrt(ss / (double)n);
    if (!(scale > 0)) return BOIDS_OK;
    /* the grid over the whole flock's extent: -max and min in one MPI_MIN */
    const double *pos[3] = {part->x, part->y, part->z};
    double ext[6] = {INFINITY, INFINITY, INFINITY, INFINITY, INFINITY, INFINITY};
    for (int a = 0; a < dim; a++)
        for (size_t i = 0; i < part->n; i++)
            ext[a] = fmin(ext[a], pos[a][i]), ext[3 + a] = fmin(ext[3 + a], -pos[a][i]);
    MPI_Allreduce(MPI_IN_PLACE, ext, 6, MPI_DOUBLE, MPI_MIN, comm);
    const double lo[3] = {ext[0], ext[1], ext[2]}, hi[3] = {-ext[3], -ext[4], -ext[5]};
    long *row = malloc(part->n * sizeof *row + 1), *cut = malloc(((size_t)size + 1) * sizeof *cut);
    runs_chain c = {comm, rank, 0, bins, calloc(2 * bins, sizeof(double))};
    if (!row || !cut || !c.run) s = boids_error_set(err, BOIDS_ERR_NOMEM, "%s: out of memory", who);
    long group;
    const long all =
        boids_corr_rows_of(n, p, lo, hi, range, bins, &group, pos[dim - 1], s ? 0 : part->n, row);
    long *count = s ? NULL : calloc((size_t)all, sizeof *count);
    if (!s && !count) s = boids_error_set(err, BOIDS_ERR_NOMEM, "%s: out of memory", who);
    boids_flock set = {0};
    if (!(s = mpi_parts_agree(comm, s, err))) {
        for (size_t i = 0; i < part->n; i++) count[row[i]]++;
        MPI_Allreduce(MPI_IN_PLACE, count, (int)all, MPI_LONG, MPI_SUM, comm);
        cut_rows(count, all, group, wrap, size, cut);
        boids_part_range(n, (size_t)rank, (size_t)size, &first, &cnt);
        s = spread_boids(comm, part, dim, row, cut, all, wrap, first, &set, err);
    }
    free(row), free(count);
    if (s) {
        free(cut), free(c.run);
        return s;
    }
    /* the runs of this rank's rows, added to the running sums in turn */
    if (rank == 0) {
        memcpy(c.run, sum, bins * sizeof *sum);
        memcpy(c.run + bins, pairs, bins * sizeof *pairs);
    }
    s = boids_corr_rows_add(&set, p, n, lo, hi, mean, scale, range, cut[rank], cut[rank + 1], bins,
                            c.run, c.run + bins, receive, &c, err);
    free(set.x), free(cut);
    /* a rank that failed still passes the sums on: every rank then learns of it */
    const int len = (int)(2 * bins);
    receive(&c);
    if (size > 1 && rank < size - 1) MPI_Send(c.run, len, MPI_DOUBLE, rank + 1, TAG_RUNS, comm);
    if (size > 1 && rank == size - 1) MPI_Send(c.run, len, MPI_DOUBLE, 0, TAG_RUNS, comm);
    if (size > 1 && rank == 0)
        MPI_Recv(c.run, len, MPI_DOUBLE, size - 1, TAG_RUNS, comm, MPI_STATUS_IGNORE);
    if (!(s = mpi_parts_agree(comm, s, err)) && rank == 0) {
        memcpy(sum, c.run, bins * sizeof *sum);
        memcpy(pairs, c.run + bins, bins * sizeof *pairs);
    }
    free(c.run);
    return s;
}
