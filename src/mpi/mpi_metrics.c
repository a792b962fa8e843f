/* SPDX-License-Identifier: MIT */
/* The split flock's metrics and number fluctuations without a gather (mpi_parts.h,
 * mpi_part_order_milling and mpi_tile_observe): no rank holds more than its tile, its halo
 * and its part of the ids.
 *
 * - order and milling are sums over the boids in id order: the parts add them in turn, rank
 *   0's first (mpi_part_order; milling's centre sums, then its angular momentum).
 * - neighbours, nn_distance and the clusters look at pairs: each rank measures its own boids
 *   over its tile and a halo through the grid boids_metrics_compute uses (obs_part.h), so
 *   each boid's count and nearest distance are the same doubles. The halo: the cut axis (the
 *   last: the tiles are slabs of whole rows) in strips at least H = vision_radius
 *   (1 + 2^-16) wide, each rank's occupied strips known to all; a boid goes to every other
 *   rank with a boid in its strip or the two beside it, so a rank's halo holds every boid
 *   within H of its own. A nearest neighbour at vision_radius or farther may lie beyond it:
 *   those boids' positions go to every rank (in rounds of at most ROUND points in all),
 *   each rank finds its nearest boid to each, and the minimum over the ranks (exact: a
 *   minimum of the same doubles) is the boid's. The counts and distances then go to the
 *   parts of their ids and are summed in id order as one process sums them.
 * - components (mpi_clusters.c; also each species', of the pairs of one species alone): each
 *   rank joins the pairs within vision_radius over its tile and halo; a component without a
 *   halo boid is the whole flock's (a boid of the tile within reach of another rank's boid
 *   has it in its halo); the others reach rank 0 as pairs of ids (each halo boid with its
 *   component's root, each boid sent as halo with its own) and the components' sizes,
 *   joined there. Counts and sizes are integers: the result is exact.
 * - number fluctuations: the finest level's box counts by groups of whole rows, each group
 *   summed and coarsened by one rank, rank 0 making the coarse levels (fluct below); all
 *   integers, so the levels are one process's. */
#include "mpi_parts.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "boids/metrics.h"
#include "flock_part.h"
#include "mpi_flock.h"
#include "obs_part.h"

enum { TAG_CHAIN = 42, ROUND = 1 << 16 };

/* The sums of n doubles in id order through the ranks, rank 0's part first, on every rank
 * (add(ctx, sum) adds this rank's part). */
void mpi_parts_chain(MPI_Comm comm, double *sum, int n, void (*add)(void *ctx, double *sum),
                     void *ctx) {
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    if (rank > 0) MPI_Recv(sum, n, MPI_DOUBLE, rank - 1, TAG_CHAIN, comm, MPI_STATUS_IGNORE);
    add(ctx, sum);
    if (rank < size - 1) MPI_Send(sum, n, MPI_DOUBLE, rank + 1, TAG_CHAIN, comm);
    MPI_Bcast(sum, n, MPI_DOUBLE, size - 1, comm);
}

typedef struct mill_ctx {
    const boids_flock *part;
    const boids_params *p;
    const double *c;
} mill_ctx;

static void add_centre(void *ctx, double *s) {
    const mill_ctx *m = ctx;
    boids_milling_centre_add(m->part, m->p, s);
}

static void add_turn(void *ctx, double *l) {
    const mill_ctx *m = ctx;
    boids_milling_add(m->part, m->p, m->c, l);
}

static double milling(MPI_Comm comm, const boids_flock *part, const boids_params *p, int dim,
                      size_t n) {
    double s[6] = {0, 0, 0, 0, 0, 0}, c[3] = {0, 0, 0}, l[3] = {0, 0, 0};
    mill_ctx m = {part, p, c};
    mpi_parts_chain(comm, s, 6, add_centre, &m);
    boids_milling_centre_of(s, p, dim, n, c);
    mpi_parts_chain(comm, l, 3, add_turn, &m);
    return boids_milling_of(l, dim, n);
}

/* ---- the tile's pair metrics --------------------------------------------------------- */

static uint32_t rec_gid(const unsigned char *r) {
    uint32_t g;
    memcpy(&g, r, sizeof g);
    return g;
}

static double rec_val(const unsigned char *r, int k) {
    float v;
    memcpy(&v, r + 4 + 4 * (size_t)k, sizeof v);
    return v;
}

/* The strips of the cut axis that say which boids go to which rank's halo: nb strips at
 * least H = vision_radius (1 + 2^-16) wide over [lo, lo + nb w] (the world, or on the open
 * plane the flock's extent), and for each rank the strips its boids are in. A boid goes to
 * the halo of every other rank with a boid in its strip or the two beside it (around the
 * seam under wrap): every boid within H of a rank's boid does, and a few more. (A boid that
 * crossed its tile's border in the last step stays its tile's until the next step's
 * migration, so a rank's boids are not one range of the axis.) */
typedef struct strips {
    double lo, w;
    long nb;
    int wrap;
    unsigned char *occ; /* occ[j * nb + k]: rank j has a boid in strip k */
} strips;

static long strip_of(const strips *st, double y) {
    const double k = floor((y - st->lo) / st->w);
    return k < 0 ? 0 : k >= (double)st->nb ? st->nb - 1 : (long)k;
}

/* Whether a boid in strip k goes to rank j's halo. */
static int near_rank(const strips *st, int j, long k) {
    const unsigned char *o = st->occ + (size_t)j * (size_t)st->nb;
    for (long d = -1; d <= 1; d++) {
        long q = k + d;
        if (st->wrap) q = (q + st->nb) % st->nb;
        if (q >= 0 && q < st->nb && o[q]) return 1;
    }
    return 0;
}

/* A boid's position as the pair metrics take it: its id, then dim doubles. */
static size_t pos_bytes(int dim) {
    return 4 + 8 * (size_t)dim;
}

static double pos_val(const unsigned char *r, int a) {
    double v;
    memcpy(&v, r + 4 + 8 * (size_t)a, sizeof v);
    return v;
}

/* What a rank holds for its pair metrics: its boids and its halo as one set (own first; the
 * positions alone: the pair metrics read no velocity, so the set's velocity arrays are its
 * position arrays, finite as the checks want), the ids of the set's boids, which own boids
 * went to another rank's halo, and the per-boid results. */
typedef struct tile_set {
    boids_flock set;
    size_t own;
    uint32_t *gid;
    unsigned char *sent;
    long *cnt;
    double *nn2;
    uint32_t *label;
} tile_set;

static void tile_free(tile_set *t) {
    free(t->set.x); /* one block */
    free(t->gid), free(t->sent), free(t->cnt), free(t->nn2), free(t->label);
}

/* Position record r as boid i of the set. */
static void set_boid(tile_set *t, int dim, size_t i, const unsigned char *r) {
    double *const ax[3] = {t->set.x, t->set.y, t->set.z};
    t->gid[i] = rec_gid(r);
    for (int a = 0; a < dim; a++) ax[a][i] = pos_val(r, a);
}

/* The fetch of the own boids' positions from the parts (own_positions): requests (id, rank)
 * to the parts, answered with (id, rank, positions) to the asking rank. */
typedef struct fetch {
    size_t got;
    int dim;
    unsigned char *req, *own; /* the requests to this rank's part; the position records here */
} fetch;

static void take_request(void *ctx, const unsigned char *r) {
    fetch *f = ctx;
    memcpy(f->req + 8 * f->got++, r, 8);
}

static int asking_rank(void *ctx, const unsigned char *r) {
    (void)ctx;
    int32_t to;
    memcpy(&to, r + 4, sizeof to);
    return to;
}

static void take_answer(void *ctx, const unsigned char *r) {
    fetch *f = ctx;
    unsigned char *o = f->own + pos_bytes(f->dim) * f->got++;
    memcpy(o, r, 4);
    memcpy(o + 4, r + 8, 8 * (size_t)f->dim);
}

/* A boids_tile_keep: the ids of one share (those equal to it modulo SHARES). */
enum { SHARES = 8 };

static int in_share(const void *ctx, uint32_t g) {
    return g % SHARES == *(const uint32_t *)ctx;
}

/* This rank's boids as *m position records into *own (allocated here): read back from b a
 * share of the ids at a time (the backend's buffer for them is a share's, not the tile's),
 * their positions from the records, or with part (the parts hold values that the records
 * rounded: the initial state) from the parts. */
static boids_status own_positions(MPI_Comm comm, boids_backend *b, int dim, const boids_flock *part,
                                  size_t n, unsigned char **own, size_t *m, boids_error *err) {
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    const size_t pr = pos_bytes(dim), ar = pr + 4, each = part ? 8 : pr;
    const unsigned char *rec;
    size_t k, rs, total = 0;
    boids_status s = BOIDS_OK;
    for (uint32_t q = 0; !s && q < SHARES; q++) /* how many */
        if (!(s = mpi_flock_owned(b, in_share, &q, &rec, &k, &rs, err))) total += k;
    unsigned char *out = s ? NULL : malloc(total * pr + 1), *ask = part ? out : NULL;
    if (!s && !out) s = boids_error_set(err, BOIDS_ERR_NOMEM, "out of memory for its boids");
    size_t at = 0;
    for (uint32_t q = 0; !s && q < SHARES; q++) { /* the positions, or the ids to ask for */
        if ((s = mpi_flock_owned(b, in_share, &q, &rec, &k, &rs, err))) break;
        for (size_t i = 0; i < k && at < total; i++, at++) {
            unsigned char *o = out + at * each;
            const int32_t me = rank;
            memcpy(o, rec + i * rs, 4);
            if (part) memcpy(o + 4, &me, 4);
            for (int a = 0; !part && a < dim; a++) {
                const double v = rec_val(rec + i * rs, a);
                memcpy(o + 4 + 8 * (size_t)a, &v, sizeof v);
            }
        }
    }
    *own = out, *m = at;
    if ((s = mpi_parts_agree(comm, s, err)) || !part) return s;
    /* the initial state: each rank's ids asked of the parts, answered with their positions */
    size_t first, cnt;
    boids_part_range(n, (size_t)rank, (size_t)size, &first, &cnt);
    unsigned char *asked = malloc(8 * at + 1);
    fetch f = {0, dim, malloc(8 * cnt + 8), out};
    unsigned char *answer = malloc(ar * cnt + 1);
    if (!asked || !f.req || !answer)
        s = boids_error_set(err, BOIDS_ERR_NOMEM, "out of memory for the initial positions");
    if (asked) memcpy(asked, ask, 8 * at);
    if (!(s = mpi_parts_agree(comm, s, err)))
        s = mpi_parts_route(comm, n, asked, at, 8, take_request, &f, err);
    const double *pos[3] = {part->x, part->y, part->z};
    for (size_t i = 0; !s && i < f.got; i++) { /* every id of the part is asked once */
        const uint32_t g = rec_gid(f.req + 8 * i);
        memcpy(answer + ar * i, f.req + 8 * i, 8);
        for (int a = 0; a < dim; a++)
            memcpy(answer + ar * i + 8 + 8 * (size_t)a, &pos[a][g - first], 8);
    }
    const size_t got = f.got;
    f.got = 0;
    if (!s) s = mpi_parts_send(comm, answer, got, ar, asking_rank, NULL, take_answer, &f, err);
    free(f.req), free(asked), free(answer);
    return s;
}

/* The halo: this rank's boids near another rank's strips go there (st); the set made of the
 * own position records and the halo's. */
static boids_status make_set(MPI_Comm comm, const unsigned char *rec, size_t m, int dim,
                             const boids_params *p, const strips *st, tile_set *t,
                             boids_error *err) {
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    const size_t rs = pos_bytes(dim);
    const int cut = dim - 1;
    (void)p;
    boids_status s = BOIDS_OK;
    int *counts = calloc(4 * (size_t)size, sizeof *counts);
    t->sent = calloc(m + 1, 1);
    if (!counts || !t->sent) s = boids_error_set(err, BOIDS_ERR_NOMEM, "out of memory");
    size_t out = 0;
    for (size_t i = 0; !s && i < m; i++) {
        const long k = strip_of(st, pos_val(rec + i * rs, cut));
        for (int j = 0; j < size; j++)
            if (j != rank && near_rank(st, j, k)) counts[j]++, out++, t->sent[i] = 1;
    }
    unsigned char *send = s ? NULL : malloc(out * rs + 1);
    if (!s && !send) s = boids_error_set(err, BOIDS_ERR_NOMEM, "out of memory for the halo");
    if ((s = mpi_parts_agree(comm, s, err))) {
        free(counts), free(send);
        return s;
    }
    int *scount = counts, *sdispl = counts + size, *rcount = counts + 2 * size,
        *rdispl = counts + 3 * size;
    for (int j = 1; j < size; j++) sdispl[j] = sdispl[j - 1] + scount[j - 1];
    memcpy(rdispl, sdispl, (size_t)size * sizeof *rdispl); /* scratch: where each goes */
    for (size_t i = 0; i < m; i++) {
        const unsigned char *r = rec + i * rs;
        const long k = strip_of(st, pos_val(r, cut));
        for (int j = 0; t->sent[i] && j < size; j++)
            if (j != rank && near_rank(st, j, k)) memcpy(send + (size_t)rdispl[j]++ * rs, r, rs);
    }
    MPI_Alltoall(scount, 1, MPI_INT, rcount, 1, MPI_INT, comm);
    rdispl[0] = 0;
    for (int j = 1; j < size; j++) rdispl[j] = rdispl[j - 1] + rcount[j - 1];
    const size_t halo = (size_t)rdispl[size - 1] + (size_t)rcount[size - 1], all = m + halo;
    unsigned char *recv = malloc(halo * rs + 1);
    double *block = malloc((size_t)dim * all * sizeof *block + 1);
    t->own = m;
    t->set = (boids_flock){.n = all, .x = block, .y = block + all};
    if (dim == 3) t->set.z = block + 2 * all;
    t->set.vx = t->set.x, t->set.vy = t->set.y, t->set.vz = t->set.z;
    t->gid = malloc(all * sizeof *t->gid + 1);
    t->cnt = malloc((m + 1) * sizeof *t->cnt);
    t->nn2 = malloc((m + 1) * sizeof *t->nn2);
    t->label = malloc(all * sizeof *t->label + 1);
    if (!recv || !block || !t->gid || !t->cnt || !t->nn2 || !t->label)
        s = boids_error_set(err, BOIDS_ERR_NOMEM, "out of memory for %zu boids and halo", all);
    int ok = !s, every;
    MPI_Allreduce(&ok, &every, 1, MPI_INT, MPI_MIN, comm);
    if (every) {
        MPI_Datatype rt;
        MPI_Type_contiguous((int)rs, MPI_BYTE, &rt);
        MPI_Type_commit(&rt);
        MPI_Alltoallv(send, scount, sdispl, rt, recv, rcount, rdispl, rt, comm);
        MPI_Type_free(&rt);
        for (size_t i = 0; i < m; i++) set_boid(t, dim, i, rec + i * rs);
        for (size_t i = 0; i < halo; i++) set_boid(t, dim, m + i, recv + i * rs);
    }
    free(counts), free(send), free(recv);
    return mpi_parts_agree(comm, every ? BOIDS_OK : s ? s : BOIDS_ERR_NOMEM, err);
}

/* The index in t's set of the boid gid (ids: the set's (gid, index) pairs sorted), or
 * SIZE_MAX. */
static size_t find_gid(const uint32_t *ids, size_t n, uint32_t gid) {
    const uint32_t *hit = bsearch(&gid, ids, n, 2 * sizeof *ids, mpi_by_gid);
    return hit ? hit[1] : SIZE_MAX;
}

/* The nearest neighbours not settled within the halo (nn2 >= R^2): every rank's in rounds,
 * each lowered to the smallest over the ranks. */
static boids_status far_nearest(MPI_Comm comm, tile_set *t, const boids_params *p, int dim,
                                boids_error *err) {
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    const double r2 = p->vision_radius * p->vision_radius;
    size_t open = 0;
    for (size_t i = 0; i < t->own; i++) open += !(t->nn2[i] < r2);
    unsigned long mine = open, most;
    MPI_Allreduce(&mine, &most, 1, MPI_UNSIGNED_LONG, MPI_MAX, comm);
    if (most == 0) return BOIDS_OK;
    const size_t all = t->set.n;
    const int per = size < ROUND ? ROUND / size : 1;   /* points a rank sends in a round */
    uint32_t *ids = malloc(2 * all * sizeof *ids + 1); /* (gid, index) by gid */
    int *cnt = malloc(2 * (size_t)size * sizeof *cnt);
    const size_t most_in = (size_t)size * (size_t)per; /* a round's points at the most */
    size_t *at = malloc((size_t)per * sizeof *at);
    double *q = malloc(most_in * (size_t)dim * sizeof *q);
    double *best = malloc(most_in * sizeof *best);
    uint32_t *qid = malloc(most_in * sizeof *qid);
    size_t *skip = malloc(most_in * sizeof *skip);
    double *mq = malloc((size_t)per * (size_t)dim * sizeof *mq);
    uint32_t *mid = malloc((size_t)per * sizeof *mid);
    boids_status s = BOIDS_OK;
    if (!ids || !cnt || !at || !q || !best || !qid || !skip || !mq || !mid)
        s = boids_error_set(err, BOIDS_ERR_NOMEM, "out of memory for the far nearest neighbours");
    if (!(s = mpi_parts_agree(comm, s, err))) {
        for (size_t j = 0; j < all; j++) ids[2 * j] = t->gid[j], ids[2 * j + 1] = (uint32_t)j;
        qsort(ids, all, 2 * sizeof *ids, mpi_by_gid);
    }
    const double *pos[3] = {t->set.x, t->set.y, t->set.z};
    size_t next = 0; /* the next own boid to look at */
    for (unsigned long done = 0; !s && done < most; done += (unsigned long)per) {
        int k = 0;
        for (; next < t->own && k < per; next++) {
            if (t->nn2[next] < r2) continue;
            at[k] = next;
            mid[k] = t->gid[next];
            for (int a = 0; a < dim; a++) mq[(size_t)k * (size_t)dim + (size_t)a] = pos[a][next];
            k++;
        }
        MPI_Allgather(&k, 1, MPI_INT, cnt, 1, MPI_INT, comm);
        int *displ = cnt + size, total = 0;
        for (int j = 0; j < size; j++) displ[j] = total, total += cnt[j];
        MPI_Allgatherv(mid, k, MPI_UINT32_T, qid, cnt, displ, MPI_UINT32_T, comm);
        for (int j = 0; j < size; j++) cnt[j] *= dim, displ[j] *= dim;
        MPI_Allgatherv(mq, k * dim, MPI_DOUBLE, q, cnt, displ, MPI_DOUBLE, comm);
        for (int i = 0; i < total; i++) {
            best[i] = INFINITY;
            skip[i] = find_gid(ids, all, qid[i]);
        }
        s = boids_metrics_nearest(&t->set, p, q, skip, (size_t)total, best, err);
        if ((s = mpi_parts_agree(comm, s, err))) break;
        MPI_Allreduce(MPI_IN_PLACE, best, total, MPI_DOUBLE, MPI_MIN, comm);
        const int from = displ[rank] / dim;
        for (int i = 0; i < k; i++)
            if (best[from + i] < t->nn2[at[i]]) t->nn2[at[i]] = best[from + i];
    }
    free(ids), free(cnt), free(at), free(q), free(best), free(qid), free(skip), free(mq), free(mid);
    return s;
}

/* Each own boid's count and nearest distance, summed at its part in id order: records of
 * (id, squared distance, count as uint32: at most N - 1). */
typedef struct boid_val {
    double *nn2;
    uint32_t *cnt;
    size_t first, n; /* the part's first id and its boids */
} boid_val;

enum { VAL_BYTES = 4 + 8 + 4 };

static void place_val(void *ctx, const unsigned char *r) {
    const boid_val *v = ctx;
    const size_t i = rec_gid(r) - v->first;
    memcpy(&v->nn2[i], r + 4, 8);
    memcpy(&v->cnt[i], r + 12, 4);
}

static void add_vals(void *ctx, double *sum) {
    const boid_val *v = ctx;
    for (size_t i = 0; i < v->n; i++) sum[0] += sqrt(v->nn2[i]), sum[1] += (double)v->cnt[i];
}

static boids_status part_sums(MPI_Comm comm, const tile_set *t, size_t n, size_t first, size_t cnt,
                              boids_metrics *out, boids_error *err) {
    unsigned char *rec = malloc(t->own * VAL_BYTES + 1);
    boid_val v = {malloc((cnt + 1) * sizeof *v.nn2), malloc((cnt + 1) * sizeof *v.cnt), first, cnt};
    boids_status s = BOIDS_OK;
    if (!rec || !v.nn2 || !v.cnt) s = boids_error_set(err, BOIDS_ERR_NOMEM, "out of memory");
    for (size_t i = 0; !s && i < t->own; i++) {
        const uint32_t c = (uint32_t)t->cnt[i];
        memcpy(rec + i * VAL_BYTES, &t->gid[i], 4);
        memcpy(rec + i * VAL_BYTES + 4, &t->nn2[i], 8);
        memcpy(rec + i * VAL_BYTES + 12, &c, 4);
    }
    if (!(s = mpi_parts_agree(comm, s, err)))
        s = mpi_parts_route(comm, n, rec, t->own, VAL_BYTES, place_val, &v, err);
    free(rec);
    if (!s) {
        double sum[2] = {0, 0};
        mpi_parts_chain(comm, sum, 2, add_vals, &v);
        out->nn_distance = n > 1 ? sum[0] / (double)n : NAN;
        out->neighbours = sum[1] / (double)n;
    }
    free(v.nn2), free(v.cnt);
    return s;
}

/* The components (module comment): clusters and largest_cluster on rank 0. */
static boids_status components(MPI_Comm comm, const tile_set *t, size_t n, boids_metrics *out,
                               boids_error *err) {
    int rank;
    MPI_Comm_rank(comm, &rank);
    const mpi_comp_set c = {t->set.n, t->own, t->gid, t->label, t->sent};
    uint64_t k[BOIDS_MAX_SPECIES] = {0}, big[BOIDS_MAX_SPECIES] = {0};
    boids_status s = mpi_components(comm, &c, NULL, k, big, err);
    if (!s && rank == 0) {
        out->clusters = (double)k[0];
        out->largest_cluster = (double)big[0] / (double)n;
    }
    return s;
}

/* log2 of a power of two. */
static int log2_of(long m) {
    int l = 0;
    while ((1L << l) < m) l++;
    return l;
}

static size_t power(long m, int dim) {
    return (size_t)m * (size_t)m * (dim == 3 ? (size_t)m : 1);
}

/* The number fluctuations from the ranks' own boids (own: m position records): each rank
 * counts its boids into the finest level's rows they fall in (the tiles are slabs along the
 * last axis, the rows' axis: a band of rows); the rows go, summed, to the rank of their
 * group (G groups of whole rows, G a power of two, at least the ranks where the level has
 * that many rows), which coarsens each group alone down to G rows and adds the sums of each
 * level; rank 0 takes the sums and the G rows of level G, from which it makes the coarser
 * levels. Every count and sum is an integer: the levels are one process's. */
static boids_status fluct(MPI_Comm comm, const unsigned char *own, size_t m, const boids_params *p,
                          int dim, size_t n, boids_fluct *out, boids_error *err) {
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    const long mm = boids_fluct_finest(n, dim);
    *out = (boids_fluct){0};
    out->alpha = NAN;
    if (mm == 1) return BOIDS_OK;
    const size_t pr = pos_bytes(dim), row = power(mm, dim) / (size_t)mm;
    const double side[3] = {p->width, p->height, p->depth};
    double lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0}, w[3] = {0, 0, 0};
    for (int a = 0; a < dim; a++) {
        lo[a] = 0, w[a] = side[a], hi[a] = -INFINITY;
        if (p->boundary != BOIDS_BOUNDARY_OPEN) continue;
        lo[a] = INFINITY;
        for (size_t i = 0; i < m; i++)
            lo[a] = fmin(lo[a], pos_val(own + i * pr, a)),
            hi[a] = fmax(hi[a], pos_val(own + i * pr, a));
    }
    if (p->boundary == BOIDS_BOUNDARY_OPEN) { /* the whole flock's bounding box */
        MPI_Allreduce(MPI_IN_PLACE, lo, 3, MPI_DOUBLE, MPI_MIN, comm);
        MPI_Allreduce(MPI_IN_PLACE, hi, 3, MPI_DOUBLE, MPI_MAX, comm);
        for (int a = 0; a < dim; a++) w[a] = hi[a] - lo[a];
    }
    long band[2] = {mm, -1}, *bands = malloc(2 * (size_t)size * sizeof *bands);
    for (size_t i = 0; i < m; i++) {
        double x[3] = {0, 0, 0};
        for (int a = 0; a < dim; a++) x[a] = pos_val(own + i * pr, a);
        const long r = (long)(boids_fluct_box(x, dim, lo, w, mm) / row);
        band[0] = r < band[0] ? r : band[0], band[1] = r > band[1] ? r : band[1];
    }
    long groups = 2;
    while (groups < size && groups < mm) groups *= 2;
    const long per = mm / groups; /* rows a group */
    /* rank j's rows: [first(j), first(j + 1)) */
#define FIRST_ROW(j) ((long)((long)(j)*groups / size) * per)
    const long j0 = FIRST_ROW(rank), j1 = FIRST_ROW(rank + 1), mine_rows = j1 - j0;
    const long bl = band[1] >= band[0] ? band[1] - band[0] + 1 : 0;
    const int levels = log2_of(mm);
    const size_t grow_g = power(groups, dim) / (size_t)groups; /* level G: a row's boxes */
    uint32_t *counts = calloc((size_t)bl * row + 1, sizeof *counts);
    uint32_t *mine = calloc((size_t)mine_rows * row + 1, sizeof *mine);
    /* a group's coarser levels, in turn (the first: half its rows, half a row's boxes) */
    uint32_t *a = malloc(((size_t)per * row / 2 + 1) * sizeof *a);
    uint32_t *b = malloc(((size_t)per * row / 2 + 1) * sizeof *b);
    uint32_t *gout = malloc((size_t)(mine_rows / per) * grow_g * sizeof *gout + 1);
    int *cnt = calloc(6 * (size_t)size, sizeof *cnt);
    uint64_t sums[BOIDS_FLUCT_MAX_LEVELS] = {0};
    boids_status s = BOIDS_OK;
    if (!bands || !counts || !mine || !a || !b || !gout || !cnt)
        s = boids_error_set(err, BOIDS_ERR_NOMEM, "number fluctuations: out of memory");
    if (!(s = mpi_parts_agree(comm, s, err))) {
        for (size_t i = 0; i < m; i++) {
            double x[3] = {0, 0, 0};
            for (int k = 0; k < dim; k++) x[k] = pos_val(own + i * pr, k);
            counts[boids_fluct_box(x, dim, lo, w, mm) - (size_t)band[0] * row]++;
        }
        MPI_Allgather(band, 2, MPI_LONG, bands, 2, MPI_LONG, comm);
        int *sc = cnt, *sd = cnt + size, *rc = cnt + 2 * size, *rd = cnt + 3 * size;
        long *from = (long *)malloc(2 * (size_t)size * sizeof *from); /* each source's rows */
        size_t got = 0;
        for (int j = 0; j < size; j++) { /* mine to rank j; rank j's to me */
            const long o0 = band[0] > FIRST_ROW(j) ? band[0] : FIRST_ROW(j);
            const long o1 = band[1] + 1 < FIRST_ROW(j + 1) ? band[1] + 1 : FIRST_ROW(j + 1);
            sc[j] = o1 > o0 ? (int)((size_t)(o1 - o0) * row) : 0;
            sd[j] = o1 > o0 ? (int)((size_t)(o0 - band[0]) * row) : 0;
            const long f0 = bands[2 * j] > j0 ? bands[2 * j] : j0;
            const long f1 = bands[2 * j + 1] + 1 < j1 ? bands[2 * j + 1] + 1 : j1;
            rc[j] = f1 > f0 ? (int)((size_t)(f1 - f0) * row) : 0;
            rd[j] = (int)got;
            got += (size_t)rc[j];
            if (from) from[2 * j] = f0;
        }
        uint32_t *recv = malloc(got * sizeof *recv + 1);
        s = recv && from
                ? BOIDS_OK
                : boids_error_set(err, BOIDS_ERR_NOMEM, "number fluctuations: out of memory");
        if (!(s = mpi_parts_agree(comm, s, err))) {
            MPI_Alltoallv(counts, sc, sd, MPI_UINT32_T, recv, rc, rd, MPI_UINT32_T, comm);
            for (int j = 0; j < size; j++)
                for (int k = 0; k < rc[j]; k++)
                    mine[(size_t)(from[2 * j] - j0) * row + (size_t)k] += recv[rd[j] + k];
        }
        free(recv), free(from);
    }
    size_t nout = 0;
    for (long g0 = j0; !s && g0 < j1; g0 += per) { /* each group: levels mm .. G */
        const uint32_t *cur = mine + (size_t)(g0 - j0) * row;
        long rows = per, ml = mm;
        uint32_t *next = a, *other = b;
        for (int l = levels - 1;; l--, ml /= 2) {
            const size_t boxes = power(ml, dim);
            sums[l] += boids_fluct_sum(cur, (size_t)rows * (boxes / (size_t)ml), n / boxes);
            if (ml == groups) break;
            boids_fluct_coarsen(cur, next, rows, ml / 2, dim);
            rows /= 2, cur = next, next = other, other = (uint32_t *)cur;
        }
        memcpy(gout + nout, cur, grow_g * sizeof *gout);
        nout += grow_g;
    }
    uint32_t *whole = NULL; /* level G on rank 0 */
    if (!(s = mpi_parts_agree(comm, s, err))) {
        MPI_Reduce(rank == 0 ? MPI_IN_PLACE : sums, sums, levels, MPI_UINT64_T, MPI_SUM, 0, comm);
        int *gc = cnt + 4 * size, *gd = cnt + 5 * size, k = (int)nout;
        MPI_Gather(&k, 1, MPI_INT, gc, 1, MPI_INT, 0, comm);
        for (int j = 1; rank == 0 && j < size; j++) gd[j] = gd[j - 1] + gc[j - 1];
        if (rank == 0 && !(whole = malloc(power(groups, dim) * sizeof *whole)))
            s = boids_error_set(err, BOIDS_ERR_NOMEM, "number fluctuations: out of memory");
        if (!(s = mpi_parts_agree(comm, s, err)))
            MPI_Gatherv(gout, k, MPI_UINT32_T, whole, gc, gd, MPI_UINT32_T, 0, comm);
    }
    if (!s && rank == 0 && !(s = boids_fluct_from_counts(whole, n, groups, dim, w, out, err))) {
        out->nlevels = (size_t)levels;
        for (long ml = 2 * groups; ml <= mm; ml *= 2)
            boids_fluct_level_set(&out->level[log2_of(ml) - 1], sums[log2_of(ml) - 1],
                                  power(ml, dim), n, ml, dim, w);
        boids_fluct_fit(out);
    }
#undef FIRST_ROW
    free(bands), free(counts), free(mine), free(a), free(b), free(gout), free(cnt), free(whole);
    return mpi_parts_agree(comm, s, err);
}

typedef struct species_ctx {
    const boids_flock *part;
    const boids_params *p;
    size_t first;
} species_ctx;

static void add_species(void *ctx, double *u) {
    const species_ctx *c = ctx;
    boids_order_species_add(c->part, c->p, c->first, (double(*)[3])u);
}

void mpi_part_order_species(MPI_Comm comm, const boids_flock *part, const boids_params *p, size_t n,
                            double *out) {
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    species_ctx c = {part, p, 0};
    size_t cnt;
    boids_part_range(n, (size_t)rank, (size_t)size, &c.first, &cnt);
    double u[BOIDS_MAX_SPECIES][3] = {{0}};
    mpi_parts_chain(comm, &u[0][0], 3 * BOIDS_MAX_SPECIES, add_species, &c);
    for (int s = 0; s < p->species && s < BOIDS_MAX_SPECIES; s++)
        out[s] = boids_order_of(u[s], p->dim, boids_species_count(p, n, s));
}

void mpi_part_order_milling(MPI_Comm comm, const boids_flock *part, const boids_params *p, size_t n,
                            boids_metrics *out) {
    out->order = mpi_part_order(comm, part, boids_flock_dim(part), n);
    out->milling = milling(comm, part, p, boids_flock_dim(part), n);
}

boids_status mpi_tile_observe(boids_backend *b, const boids_flock *initial, const boids_params *p,
                              boids_metrics *out, boids_fluct *fl, double *clusters,
                              double *largest, boids_error *err) {
    MPI_Comm comm = mpi_flock_comm(b);
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    const size_t n = boids_backend_n(b);
    const int dim = p->dim;
    tile_set t = {0};
    unsigned char *own = NULL;
    size_t m = 0;
    strips st = {0, 1, 1, p->boundary == BOIDS_BOUNDARY_WRAP, NULL};
    boids_status s = own_positions(comm, b, dim, initial, n, &own, &m, err);
    if (!s) { /* the strips over the world, or the flock's extent on the open plane */
        const double side = dim == 3 ? p->depth : p->height, h = p->vision_radius * (1 + 0x1p-16);
        double lo = 0, hi = side;
        if (p->boundary == BOIDS_BOUNDARY_OPEN) {
            double ext[2] = {INFINITY, INFINITY}; /* -max: one MPI_MIN for both */
            for (size_t i = 0; i < m; i++) {
                const double y = pos_val(own + i * pos_bytes(dim), dim - 1);
                ext[0] = fmin(ext[0], y), ext[1] = fmin(ext[1], -y);
            }
            MPI_Allreduce(MPI_IN_PLACE, ext, 2, MPI_DOUBLE, MPI_MIN, comm);
            lo = ext[0], hi = -ext[1];
        }
        const double nb = floor((hi - lo) / (h * (1 + 0x1p-16)));
        st.nb = nb < 1 ? 1 : nb > 65536 ? 65536 : (long)nb;
        st.lo = lo, st.w = (hi - lo) / (double)st.nb;
        if (!(st.w > 0)) st.w = 1; /* every boid at one coordinate: one strip */
        st.occ = calloc((size_t)size * (size_t)st.nb, 1);
        s = st.occ ? BOIDS_OK : boids_error_set(err, BOIDS_ERR_NOMEM, "out of memory");
        if (!(s = mpi_parts_agree(comm, s, err))) {
            unsigned char *mine = st.occ + (size_t)rank * (size_t)st.nb;
            for (size_t i = 0; i < m; i++)
                mine[strip_of(&st, pos_val(own + i * pos_bytes(dim), dim - 1))] = 1;
            MPI_Allgather(MPI_IN_PLACE, (int)st.nb, MPI_UNSIGNED_CHAR, st.occ, (int)st.nb,
                          MPI_UNSIGNED_CHAR, comm);
            s = make_set(comm, own, m, dim, p, &st, &t, err);
        }
    }
    if (!s && fl) s = fluct(comm, own, m, p, dim, n, fl, err);
    free(own), free(st.occ);
    if (!s && t.set.n) s = boids_metrics_local(&t.set, t.own, p, t.cnt, t.nn2, t.label, err);
    if (!(s = mpi_parts_agree(comm, s, err))) s = far_nearest(comm, &t, p, dim, err);
    size_t first, cnt;
    boids_part_range(n, (size_t)rank, (size_t)size, &first, &cnt);
    if (!s) s = components(comm, &t, n, out, err);
    const mpi_comp_set c = {t.set.n, t.own, t.gid, t.label, t.sent};
    if (!s && clusters && largest)
        s = mpi_components_species(comm, &t.set, &c, p, n, clusters, largest, err);
    free(t.set.x), free(t.label), free(t.sent); /* what the sums need no more */
    t.set.x = NULL, t.label = NULL, t.sent = NULL;
    if (!s) s = part_sums(comm, &t, n, first, cnt, out, err);
    tile_free(&t);
    return s;
}
