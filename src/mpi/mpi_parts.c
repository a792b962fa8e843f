/* SPDX-License-Identifier: MIT */
/* The flock in parts of ids (mpi_parts.h): the initial flock made or read in parts, the state
 * of the split flock brought to its parts, and the whole flock's hash and order computed from
 * the parts in turn, rank 0's first: the operations of one process on the same values in the
 * same order, so the same bits. */
#include "mpi_parts.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flock_part.h"
#include "mpi_flock_impl.h"

enum { TAG_CHAIN = 41 };

boids_status mpi_parts_agree(MPI_Comm comm, boids_status s, boids_error *err) {
    int rank, size, mine, first;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    mine = s ? rank : size;
    MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm);
    if (first == size) return BOIDS_OK;
    if (s) {
        if (rank != 0) fprintf(stderr, "boids-mpi: rank %d: %s\n", rank, err->msg);
        return s;
    }
    return boids_error_set(err, BOIDS_ERR_RUNTIME, "rank %d failed (its message above)", first);
}

/* The part's size on this rank, and a part of no boid refused (more ranks than boids). */
static boids_status part_of(MPI_Comm comm, size_t n, size_t *first, size_t *cnt, boids_error *err) {
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    boids_part_range(n, (size_t)rank, (size_t)size, first, cnt);
    if (*cnt == 0)
        return boids_error_set(err, BOIDS_ERR_INPUT,
                               "%zu boids over %d ranks: every rank needs at least one boid", n,
                               size);
    return BOIDS_OK;
}

boids_status mpi_part_random(MPI_Comm comm, const boids_params *p, uint64_t seed, boids_flock *part,
                             size_t *first, boids_error *err) {
    size_t cnt;
    memset(part, 0, sizeof *part);
    boids_status s = part_of(comm, (size_t)p->count, first, &cnt, err);
    if (!s) s = boids_flock_alloc_dim(part, cnt, p->dim, err);
    if (!s) boids_flock_randomize_from(part, p, seed, *first);
    return mpi_parts_agree(comm, s, err);
}

uint64_t mpi_part_hash(MPI_Comm comm, const boids_flock *part) {
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    const int arrays = 2 * boids_flock_dim(part);
    uint64_t h = BOIDS_HASH_START;
    /* Array by array, each through the ranks in order: rank 0 takes the hash of the arrays
     * before from the last rank. */
    for (int a = 0; a < arrays; a++) {
        if (rank > 0)
            MPI_Recv(&h, 1, MPI_UINT64_T, rank - 1, TAG_CHAIN, comm, MPI_STATUS_IGNORE);
        else if (a > 0 && size > 1)
            MPI_Recv(&h, 1, MPI_UINT64_T, size - 1, TAG_CHAIN, comm, MPI_STATUS_IGNORE);
        h = boids_flock_hash_array(part, a, h);
        if (rank < size - 1)
            MPI_Send(&h, 1, MPI_UINT64_T, rank + 1, TAG_CHAIN, comm);
        else if (a < arrays - 1 && size > 1)
            MPI_Send(&h, 1, MPI_UINT64_T, 0, TAG_CHAIN, comm);
    }
    MPI_Bcast(&h, 1, MPI_UINT64_T, size - 1, comm);
    return h;
}

double mpi_part_order(MPI_Comm comm, const boids_flock *part, int dim, size_t n) {
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    double u[3] = {0, 0, 0};
    if (rank > 0) MPI_Recv(u, 3, MPI_DOUBLE, rank - 1, TAG_CHAIN, comm, MPI_STATUS_IGNORE);
    boids_order_add(part, u);
    if (rank < size - 1) MPI_Send(u, 3, MPI_DOUBLE, rank + 1, TAG_CHAIN, comm);
    MPI_Bcast(u, 3, MPI_DOUBLE, size - 1, comm);
    return boids_order_of(u, dim, n);
}

boids_status mpi_part_load(MPI_Comm comm, const char *path, const boids_params *p,
                           boids_flock *part, size_t *first, size_t *n, long *noise_seed,
                           int *has_hash, uint64_t *hash, boids_error *err) {
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    boids_state_part info = {0};
    boids_status s = boids_state_load_part(path, p, (size_t)rank, (size_t)size, part, &info, err);
    if ((s = mpi_parts_agree(comm, s, err))) {
        boids_flock_free(part);
        return s;
    }
    *first = info.first;
    *n = info.n_total;
    *noise_seed = info.noise_seed;
    *has_hash = info.has_hash;
    *hash = info.hash;
    return BOIDS_OK;
}

boids_status mpi_part_check_hash(MPI_Comm comm, const char *path, const boids_flock *part,
                                 uint64_t want, boids_error *err) {
    const uint64_t h = mpi_part_hash(comm, part);
    boids_status s = boids_state_hash_check(path, want, h, err);
    int root = s != BOIDS_OK; /* rank 0's refusal is every rank's (the same file): one message */
    MPI_Bcast(&root, 1, MPI_INT, 0, comm);
    if (root && !s) s = boids_error_set(err, BOIDS_ERR_INPUT, "%s: refused on rank 0", path);
    return root ? s : mpi_parts_agree(comm, s, err);
}

boids_status mpi_part_gather(MPI_Comm comm, const boids_flock *part, boids_flock *out,
                             boids_error *err) {
    (void)err;
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    int *cnt = rank == 0 ? malloc(2 * (size_t)size * sizeof *cnt) : NULL;
    if (rank == 0 && !cnt) {
        fprintf(stderr, "boids-mpi: rank 0: out of memory\n");
        MPI_Abort(comm, 1);
    }
    int mine = (int)part->n; /* at most 1e9 boids: an int */
    MPI_Gather(&mine, 1, MPI_INT, cnt, 1, MPI_INT, 0, comm);
    if (rank == 0) {
        cnt[size] = 0;
        for (int j = 1; j < size; j++) cnt[size + j] = cnt[size + j - 1] + cnt[j - 1];
    }
    double *const src[6] = {part->x, part->y, part->vx, part->vy, part->z, part->vz};
    double *dst[6] = {0};
    if (out) {
        dst[0] = out->x, dst[1] = out->y, dst[2] = out->vx, dst[3] = out->vy;
        dst[4] = out->z, dst[5] = out->vz;
        out->step = part->step;
    }
    for (int a = 0; a < 2 * boids_flock_dim(part); a++)
        MPI_Gatherv(src[a], mine, MPI_DOUBLE, dst[a], cnt, cnt ? cnt + size : NULL, MPI_DOUBLE, 0,
                    comm);
    free(cnt);
    return BOIDS_OK;
}

/* The parts of n ids over size ranks (boids_part_range's), and the ids of a round of
 * mpi_part_state: those at offsets [lo, hi) from their part's first. */
typedef struct part_ids {
    size_t n, lo, hi;
    int size;
    size_t *first; /* size + 1 entries: each part's first id, then n */
} part_ids;

static boids_status part_ids_make(part_ids *q, size_t n, int size, boids_error *err) {
    q->n = n, q->size = size, q->lo = 0, q->hi = n;
    q->first = malloc(((size_t)size + 1) * sizeof *q->first);
    if (!q->first) return boids_error_set(err, BOIDS_ERR_NOMEM, "out of memory for the parts");
    for (int j = 0; j < size; j++) {
        size_t cnt;
        boids_part_range(n, (size_t)j, (size_t)size, &q->first[j], &cnt);
    }
    q->first[size] = n;
    return BOIDS_OK;
}

/* The rank of the part that holds id g. */
static int owner(const part_ids *q, uint64_t g) {
    int r = (int)(g * (uint64_t)q->size / q->n);
    while (g < q->first[r]) r--;
    while (g >= q->first[r + 1]) r++;
    return r;
}

/* A boids_tile_keep: the ids of the round. */
static int in_round(const void *ctx, uint32_t g) {
    const part_ids *q = ctx;
    const size_t off = g - q->first[owner(q, g)];
    return off >= q->lo && off < q->hi;
}

/* Record r's values into the part's arrays ax at id g - first. */
static void place(double *const ax[6], int dim, const unsigned char *r, size_t first) {
    uint32_t g;
    memcpy(&g, r, sizeof g);
    for (int k = 0; k < 2 * dim; k++) {
        float v;
        memcpy(&v, r + 4 + 4 * (size_t)k, sizeof v);
        ax[k][g - first] = v;
    }
}

static uint32_t rec_id(const unsigned char *r) {
    uint32_t g;
    memcpy(&g, r, sizeof g);
    return g;
}

boids_status mpi_parts_send(MPI_Comm comm, const unsigned char *rec, size_t m, size_t rs,
                            int (*dest)(void *ctx, const unsigned char *r), void *dctx,
                            void (*place)(void *ctx, const unsigned char *r), void *pctx,
                            boids_error *err) {
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    /* The records for this rank are placed at once; the others, by destination, go through
     * one all-to-all. */
    boids_status s = BOIDS_OK;
    int *counts = calloc(4 * (size_t)size, sizeof *counts);
    if (!counts)
        s = boids_error_set(err, BOIDS_ERR_NOMEM, "rank %d: out of memory for its part", rank);
    size_t leave = 0;
    for (size_t i = 0; !s && i < m; i++) {
        const int j = dest(dctx, rec + i * rs);
        counts[j]++;
        leave += j != rank;
    }
    unsigned char *send = malloc(leave * rs + 1);
    if (!s && !send)
        s = boids_error_set(err, BOIDS_ERR_NOMEM, "rank %d: out of memory for its part", rank);
    if ((s = mpi_parts_agree(comm, s, err))) {
        free(counts), free(send);
        return s;
    }
    int *scount = counts, *sdispl = counts + size, *rcount = counts + 2 * size,
        *rdispl = counts + 3 * size;
    scount[rank] = 0;
    for (int j = 1; j < size; j++) sdispl[j] = sdispl[j - 1] + scount[j - 1];
    int *at = rdispl; /* scratch until the counts arrive */
    memcpy(at, sdispl, (size_t)size * sizeof *at);
    for (size_t i = 0; i < m; i++) {
        const unsigned char *r = rec + i * rs;
        const int j = dest(dctx, r);
        if (j == rank)
            place(pctx, r);
        else
            memcpy(send + (size_t)at[j]++ * rs, r, rs);
    }
    MPI_Alltoall(scount, 1, MPI_INT, rcount, 1, MPI_INT, comm);
    rdispl[0] = 0;
    for (int j = 1; j < size; j++) rdispl[j] = rdispl[j - 1] + rcount[j - 1];
    const size_t got = (size_t)rdispl[size - 1] + (size_t)rcount[size - 1];
    unsigned char *recv = malloc(got * rs + 1);
    if (!recv)
        s = boids_error_set(err, BOIDS_ERR_NOMEM, "rank %d: out of memory for its part", rank);
    if ((s = mpi_parts_agree(comm, s, err))) {
        free(counts), free(send), free(recv);
        return s;
    }
    MPI_Datatype rt;
    MPI_Type_contiguous((int)rs, MPI_BYTE, &rt);
    MPI_Type_commit(&rt);
    MPI_Alltoallv(send, scount, sdispl, rt, recv, rcount, rdispl, rt, comm);
    MPI_Type_free(&rt);
    for (size_t i = 0; i < got; i++) place(pctx, recv + i * rs);
    free(counts), free(send), free(recv);
    return BOIDS_OK;
}

/* mpi_parts_send's destination: the rank of the part of a record's id. */
static int part_dest(void *ctx, const unsigned char *r) {
    return owner(ctx, rec_id(r));
}

boids_status mpi_parts_route(MPI_Comm comm, size_t n, const unsigned char *rec, size_t m, size_t rs,
                             void (*place)(void *ctx, const unsigned char *r), void *ctx,
                             boids_error *err) {
    int size;
    MPI_Comm_size(comm, &size);
    part_ids q = {0};
    boids_status s = mpi_parts_agree(comm, part_ids_make(&q, n, size, err), err);
    if (!s) s = mpi_parts_send(comm, rec, m, rs, part_dest, &q, place, ctx, err);
    free(q.first);
    return s;
}

/* The ids a round of mpi_part_state brings to the parts: an eighth of the largest part, so
 * that its buffers (the records read back, sent and received) are an eighth of a tile's, but
 * no fewer than ROUND_MIN, so that small flocks take one round. */
enum { ROUNDS = 8, ROUND_MIN = 1 << 18 };

/* The part's arrays and where they start (mpi_part_state's place). */
typedef struct part_at {
    double *ax[6];
    int dim;
    size_t first;
} part_at;

static void place_state(void *ctx, const unsigned char *r) {
    const part_at *t = ctx;
    place(t->ax, t->dim, r, t->first);
}

boids_status mpi_part_state(boids_backend *b, boids_flock *part, size_t *first, boids_error *err) {
    MPI_Comm comm = mpi_flock_comm(b);
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    const size_t n = boids_backend_n(b), dim = (size_t)mpi_flock_dim(b), rs = 4 + 8 * dim;
    part_ids q = {0};
    size_t cnt;
    boids_part_range(n, (size_t)rank, (size_t)size, first, &cnt);
    boids_status s = BOIDS_OK;
    if (part->n != cnt) {
        boids_flock_free(part);
        s = boids_flock_alloc_dim(part, cnt, (int)dim, err);
    }
    if (size == 1) return s ? s : mpi_flock_gather(b, part, err);
    if (!s) s = part_ids_make(&q, n, size, err);
    if ((s = mpi_parts_agree(comm, s, err))) {
        free(q.first);
        return s;
    }
    part->step = mpi_flock_step(b);
    part_at t = {{part->x, part->y, dim == 3 ? part->z : part->vx, dim == 3 ? part->vx : part->vy,
                  part->vy, part->vz},
                 (int)dim,
                 *first};
    size_t largest = (n + (size_t)size - 1) / (size_t)size, share = largest / ROUNDS + 1;
    if (share < ROUND_MIN) share = ROUND_MIN;
    /* Round after round, the records of every part's ids at offsets [lo, lo + share): this
     * rank's own at once into its part, the others by destination through an all-to-all. */
    for (size_t lo = 0; !s && lo < largest; lo += share) {
        q.lo = lo, q.hi = lo + share;
        const unsigned char *rec = NULL;
        size_t m = 0, rsz;
        s = mpi_parts_agree(comm, mpi_flock_owned(b, in_round, &q, &rec, &m, &rsz, err), err);
        if (!s) s = mpi_parts_send(comm, rec, m, rs, part_dest, &q, place_state, &t, err);
    }
    free(q.first);
    return s;
}
