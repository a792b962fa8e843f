/* SPDX-License-Identifier: MIT */
/* The split flock's components (mpi_metrics.c's module comment says how), for the whole flock
 * (every pair within vision_radius) and for each species (the pairs of boids of one species
 * alone): each rank's set joined locally (boids_metrics_local, boids_metrics_labels), the
 * components touching a halo joined on rank 0 from pairs of ids. A component of the species'
 * graph holds boids of one species, its root's (boids_species_of of the root's id, known on
 * every rank: species are id ranges), so the counts go to that species. */
#include "mpi_parts.h"

#include <stdlib.h>

#include "flock_part.h"
#include "obs_part.h"

int mpi_by_gid(const void *a, const void *b) {
    const uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* The union-find of the joined components on rank 0 (over node indices). */
static uint32_t find(uint32_t *parent, uint32_t a) {
    while (parent[a] != a) a = parent[a] = parent[parent[a]];
    return a;
}

static size_t node_of(const uint32_t *nodes, size_t n, uint32_t gid) {
    const uint32_t *hit = bsearch(&gid, nodes, n, sizeof *nodes, mpi_by_gid);
    return (size_t)(hit - nodes);
}

/* A component of root id gid, of b boids, counted in k and big at its species under p. */
static void count(const boids_params *p, uint32_t gid, uint64_t b, uint64_t *k, uint64_t *big) {
    const int s = boids_species_of(p, gid);
    k[s]++;
    big[s] = b > big[s] ? b : big[s];
}

/* Every rank's pairs of ids (same component) and components (root id, boids) gathered on
 * rank 0 and joined: their count added to k, the largest's boids to big (by species). */
static boids_status join_roots(MPI_Comm comm, const uint32_t *pairs, int np, const uint32_t *reps,
                               int nr, const boids_params *p, uint64_t *k, uint64_t *big,
                               boids_error *err) {
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    int mine[2] = {2 * np, 2 * nr}, *cnt = NULL;
    boids_status s = BOIDS_OK;
    if (rank == 0 && !(cnt = malloc(6 * (size_t)size * sizeof *cnt)))
        s = boids_error_set(err, BOIDS_ERR_NOMEM, "out of memory");
    if ((s = mpi_parts_agree(comm, s, err))) return s;
    int *np_all = cnt, *nr_all = cnt ? cnt + size : NULL, *dp = cnt ? cnt + 2 * size : NULL,
        *dr = cnt ? cnt + 3 * size : NULL, *both = cnt ? cnt + 4 * size : NULL;
    MPI_Gather(mine, 2, MPI_INT, both, 2, MPI_INT, 0, comm);
    size_t tp = 0, tr = 0;
    if (rank == 0)
        for (int j = 0; j < size; j++) {
            np_all[j] = both[2 * j], nr_all[j] = both[2 * j + 1];
            dp[j] = (int)tp, dr[j] = (int)tr;
            tp += (size_t)np_all[j], tr += (size_t)nr_all[j];
        }
    uint32_t *ap = rank == 0 ? malloc(tp * sizeof *ap + 1) : NULL;
    uint32_t *ar = rank == 0 ? malloc(tr * sizeof *ar + 1) : NULL;
    uint32_t *nodes = rank == 0 ? malloc((tp + tr) * sizeof *nodes + 1) : NULL;
    uint32_t *parent = rank == 0 ? malloc((tp + tr) * sizeof *parent + 1) : NULL;
    uint64_t *sz = rank == 0 ? calloc(tp + tr + 1, sizeof *sz) : NULL;
    if (rank == 0 && (!ap || !ar || !nodes || !parent || !sz))
        s = boids_error_set(err, BOIDS_ERR_NOMEM, "out of memory for %zu pairs", tp / 2);
    if (!(s = mpi_parts_agree(comm, s, err))) {
        MPI_Gatherv(pairs, 2 * np, MPI_UINT32_T, ap, np_all, dp, MPI_UINT32_T, 0, comm);
        MPI_Gatherv(reps, 2 * nr, MPI_UINT32_T, ar, nr_all, dr, MPI_UINT32_T, 0, comm);
    }
    if (!s && rank == 0) {
        size_t nn = 0;
        for (size_t i = 0; i < tp; i++) nodes[nn++] = ap[i];
        for (size_t i = 0; i < tr; i += 2) nodes[nn++] = ar[i];
        qsort(nodes, nn, sizeof *nodes, mpi_by_gid);
        size_t u = 0;
        for (size_t i = 0; i < nn; i++)
            if (u == 0 || nodes[i] != nodes[u - 1]) nodes[u++] = nodes[i];
        for (size_t i = 0; i < u; i++) parent[i] = (uint32_t)i;
        for (size_t i = 0; i < tp; i += 2) {
            const uint32_t a = find(parent, (uint32_t)node_of(nodes, u, ap[i]));
            const uint32_t b = find(parent, (uint32_t)node_of(nodes, u, ap[i + 1]));
            if (a != b) parent[a < b ? b : a] = a < b ? a : b;
        }
        for (size_t i = 0; i < tr; i += 2)
            sz[find(parent, (uint32_t)node_of(nodes, u, ar[i]))] += ar[i + 1];
        for (size_t i = 0; i < u; i++)
            if (sz[i]) count(p, nodes[i], sz[i], k, big);
    }
    free(cnt), free(ap), free(ar), free(nodes), free(parent), free(sz);
    return s;
}

boids_status mpi_components(MPI_Comm comm, const mpi_comp_set *t, const boids_params *p,
                            uint64_t *k, uint64_t *big, boids_error *err) {
    const size_t all = t->n;
    uint32_t *own = calloc(all + 1, sizeof *own); /* own boids of each root */
    unsigned char *halo = calloc(all + 1, 1);     /* the root's component has a halo boid */
    uint32_t *pairs = malloc(2 * all * sizeof *pairs + 1), *reps = malloc(2 * all * sizeof *reps);
    boids_status s = BOIDS_OK;
    if (!own || !halo || !pairs || !reps)
        s = boids_error_set(err, BOIDS_ERR_NOMEM, "out of memory");
    /* the components wholly here, and the largest of them, by species */
    uint64_t local[2][BOIDS_MAX_SPECIES] = {{0}};
    int np = 0, nr = 0;
    if (!s) {
        for (size_t i = 0; i < t->own; i++) own[t->label[i]]++;
        for (size_t j = t->own; j < all; j++) halo[t->label[j]] = 1;
        for (size_t r = 0; r < all; r++) {
            if (!own[r]) continue;
            if (!halo[r])
                count(p, t->gid[r], own[r], local[0], local[1]);
            else
                reps[2 * nr] = t->gid[r], reps[2 * nr + 1] = own[r], nr++;
        }
        for (size_t j = 0; j < all; j++) { /* the halo boids, and the own ones sent as halo */
            const uint32_t r = t->label[j];
            if (!own[r] || !halo[r] || (j < t->own && !t->sent[j])) continue;
            pairs[2 * np] = t->gid[j], pairs[2 * np + 1] = t->gid[r], np++;
        }
    }
    s = mpi_parts_agree(comm, s, err);
    if (!s) {
        MPI_Reduce(local[0], k, BOIDS_MAX_SPECIES, MPI_UINT64_T, MPI_SUM, 0, comm);
        MPI_Reduce(local[1], big, BOIDS_MAX_SPECIES, MPI_UINT64_T, MPI_MAX, 0, comm);
        s = join_roots(comm, pairs, np, reps, nr, p, k, big, err);
    }
    free(own), free(halo), free(pairs), free(reps);
    return s;
}

boids_status mpi_components_species(MPI_Comm comm, const boids_flock *set, const mpi_comp_set *t,
                                    const boids_params *p, size_t n, double *clusters,
                                    double *largest, boids_error *err) {
    int rank;
    MPI_Comm_rank(comm, &rank);
    unsigned char *kind = calloc(t->n + 1, 1);
    uint32_t *label = calloc(t->n + 1, sizeof *label);
    boids_status s =
        kind && label ? BOIDS_OK : boids_error_set(err, BOIDS_ERR_NOMEM, "out of memory");
    for (size_t j = 0; !s && j < t->n; j++) kind[j] = (unsigned char)boids_species_of(p, t->gid[j]);
    if (!s && t->n) s = boids_metrics_labels(set, p, kind, label, err);
    mpi_comp_set c = *t;
    c.label = label;
    uint64_t k[BOIDS_MAX_SPECIES] = {0}, big[BOIDS_MAX_SPECIES] = {0};
    if (!(s = mpi_parts_agree(comm, s, err))) s = mpi_components(comm, &c, p, k, big, err);
    for (int q = 0; !s && rank == 0 && q < p->species && q < BOIDS_MAX_SPECIES; q++) {
        const size_t m = boids_species_count(p, n, q);
        clusters[q] = (double)k[q];
        largest[q] = m ? (double)big[q] / (double)m : 0;
    }
    free(kind), free(label);
    return s;
}
