/* SPDX-License-Identifier: MIT */
/* How a flock split over MPI ranks enters and leaves the split without any rank holding the
 * whole of it (mpi_parts.c, mpi_io.c): the initial flock made or read in parts, the state in
 * parts of ids for the outputs, the whole flock's hash and order computed from the parts in
 * id order (so that they have the bits of one process), and the state files and the .npy
 * trajectory written by every rank at once with MPI-IO, byte for byte those of one process
 * (the GSD and ParaView trajectories: src/app/mpi/traj_parts.h, with mpi_parts_open).
 *
 * The parts: rank r of K holds the ids boids_part_range(N, r, K) (src/core/flock_part.h), in
 * id order. Every function here is collective over comm: every rank calls it, in the same
 * order; a failure of one rank's own (memory, a file) is returned on every rank. */
#ifndef BOIDS_MPI_PARTS_H
#define BOIDS_MPI_PARTS_H

#include <mpi.h>
#include <stdint.h>

#include "atomic_file.h"
#include "boids/backend.h"
#include "boids/flock.h"
#include "boids/metrics.h"
#include "boids/structure.h"

/* s as every rank knows it: BOIDS_OK when every rank's s is; else this rank's failure, or on
 * a rank that did not fail one naming the first rank that did (which prints its message on
 * stderr, as mpi_flock_create's ranks do). */
boids_status mpi_parts_agree(MPI_Comm comm, boids_status s, boids_error *err);

/* This rank's part of the random initial flock of p->count boids from seed (the bits of
 * boids_flock_randomize); *first: the id of its first boid. */
boids_status mpi_part_random(MPI_Comm comm, const boids_params *p, uint64_t seed, boids_flock *part,
                             size_t *first, boids_error *err);

/* This rank's part of the state file path, with boids_state_load_seeded's checks but that of
 * the sidecar's flock_hash, which comes back in *hash (*has_hash: the sidecar gives one) for
 * mpi_part_check_hash; *first its first id, *n the state's N, *noise_seed the sidecar's (-1:
 * none). A .npy state is read by each rank for its part alone; a CSV (its lines have no
 * fixed length) by each rank twice, every line checked, then its part's lines kept. */
boids_status mpi_part_load(MPI_Comm comm, const char *path, const boids_params *p,
                           boids_flock *part, size_t *first, size_t *n, long *noise_seed,
                           int *has_hash, uint64_t *hash, boids_error *err);

/* The state loaded from path in parts refused (boids_state_load's message) unless the whole
 * flock's hash is want. */
boids_status mpi_part_check_hash(MPI_Comm comm, const char *path, const boids_flock *part,
                                 uint64_t want, boids_error *err);

/* boids_flock_hash of the whole flock whose parts the ranks hold, on every rank. */
uint64_t mpi_part_hash(MPI_Comm comm, const boids_flock *part);

/* The state of the split flock b (mpi_flock.h) in parts: this rank's ids in id order into
 * *part (allocated or reused here; free with boids_flock_free), at the flock's step, *first
 * its first id. */
boids_status mpi_part_state(boids_backend *b, boids_flock *part, size_t *first, boids_error *err);

/* Each of this rank's m records of rs bytes sent to rank dest(dctx, record), where
 * place(pctx, record) takes it: the records for this rank at once, the others as they arrive
 * (in no particular order). mpi_parts_route: each record (a uint32 id first, of a flock of n
 * boids) to the rank whose part holds its id. */
boids_status mpi_parts_send(MPI_Comm comm, const unsigned char *rec, size_t m, size_t rs,
                            int (*dest)(void *ctx, const unsigned char *r), void *dctx,
                            void (*place)(void *ctx, const unsigned char *r), void *pctx,
                            boids_error *err);
boids_status mpi_parts_route(MPI_Comm comm, size_t n, const unsigned char *rec, size_t m, size_t rs,
                             void (*place)(void *ctx, const unsigned char *r), void *ctx,
                             boids_error *err);

/* The whole flock of the parts (in rank order) into out on rank 0 (allocated with the whole
 * flock's N and dim: the sum of the parts), out NULL on the others. */
boids_status mpi_part_gather(MPI_Comm comm, const boids_flock *part, boids_flock *out,
                             boids_error *err);

/* boids_order of the whole flock of n boids whose parts the ranks hold, on every rank. */
double mpi_part_order(MPI_Comm comm, const boids_flock *part, int dim, size_t n);

/* boids_order_species of that flock under p into out[0 .. species - 1] on every rank: each
 * species' sums added part after part in id order (part: this rank's, boids_part_range's ids
 * of the n), as one process adds them. */
void mpi_part_order_species(MPI_Comm comm, const boids_flock *part, const boids_params *p, size_t n,
                            double *out);

/* boids_metrics_compute of the split flock b (mpi_flock.h), with the bits of one process and
 * no rank holding more than its tile, a halo and its part (mpi_metrics.c says how), in two
 * calls: the sums over the boids in id order (order, milling) from the parts (part: this
 * rank's, of the whole flock's n boids), on every rank; the pair metrics (nn_distance,
 * neighbours, clusters, largest_cluster) and with fl non-NULL boids_number_fluctuations
 * from the ranks' tiles, on rank 0. initial: before any step, this rank's part of the
 * initial state, whose values b's float state rounds (the tiles then take them from the
 * parts); NULL after. More than one rank. */
void mpi_part_order_milling(MPI_Comm comm, const boids_flock *part, const boids_params *p, size_t n,
                            boids_metrics *out);
/* With clusters and largest non-NULL (species > 1), also boids_clusters_species of the flock
 * into them on rank 0, from the same tiles (mpi_clusters.c). */
boids_status mpi_tile_observe(boids_backend *b, const boids_flock *initial, const boids_params *p,
                              boids_metrics *out, boids_fluct *fl, double *clusters,
                              double *largest, boids_error *err);

/* The components of the split flock from each rank's set of n boids (its own first, then its
 * halo: mpi_metrics.c's module comment): their ids, label[j] the set index of boid j's
 * component root (boids_metrics_local, boids_metrics_labels), which own boids went to another
 * rank's halo. mpi_components: on rank 0, k[s] the components whose root's species under p
 * (boids_species_of; p NULL: all species 0) is s, big[s] the boids of the largest of them
 * (BOIDS_MAX_SPECIES each). mpi_components_species: boids_clusters_species of the n boids
 * (set: the set's positions) into clusters and largest on rank 0. mpi_by_gid: the order of
 * uint32_t ids for qsort and bsearch. */
typedef struct mpi_comp_set {
    size_t n, own;
    const uint32_t *gid, *label;
    const unsigned char *sent;
} mpi_comp_set;
boids_status mpi_components(MPI_Comm comm, const mpi_comp_set *t, const boids_params *p,
                            uint64_t *k, uint64_t *big, boids_error *err);
boids_status mpi_components_species(MPI_Comm comm, const boids_flock *set, const mpi_comp_set *t,
                                    const boids_params *p, size_t n, double *clusters,
                                    double *largest, boids_error *err);
int mpi_by_gid(const void *a, const void *b);

/* The sums of n doubles over the parts in id order, on every rank: add(ctx, sum) adds this
 * rank's part to sum after the ranks before it have added theirs (rank 0's first). */
void mpi_parts_chain(MPI_Comm comm, double *sum, int n, void (*add)(void *ctx, double *sum),
                     void *ctx);

/* boids_velocity_correlation_add of the whole flock of n boids whose parts the ranks hold
 * (part: this rank's), added to sum and pairs (bins each) on rank 0 (NULL elsewhere), with
 * one process's bits and no rank holding more than the boids of its rows of the
 * correlation's grid and the row beside each (mpi_corr.c says how). range and bins are the
 * same on every rank. */
boids_status mpi_part_correlation_add(MPI_Comm comm, const boids_flock *part, const boids_params *p,
                                      size_t n, double range, size_t bins, double *sum,
                                      double *pairs, boids_error *err);

/* boids_state_save_seeded(path, whole flock, noise_seed) with the parts of an N-boid flock
 * written by their ranks at once (MPI-IO), rank 0 writing the header and the sidecar: the
 * bytes of one process's file, each file complete or absent. */
boids_status mpi_part_save(MPI_Comm comm, const char *path, const boids_flock *part, size_t first,
                           size_t n, long noise_seed, boids_error *err);

/* Rank 0 makes the temporary file of path (*a, tracked for the signal handler; its FILE
 * closed: the bytes go in by name) and every rank opens it with MPI-IO into *fh, for writing.
 * On a failure nothing is left open. Rank 0 renames it (boids_atomic_commit) once every rank
 * closed *fh. */
boids_status mpi_parts_open(MPI_Comm comm, const char *path, boids_atomic_file *a, MPI_File *fh,
                            boids_error *err);

/* A trajectory .npy (src/app/output/npy.h's layout: frames x N x 2 dim, '<f4' or '<f8') whose
 * frames every rank writes at once, its rows at their offsets: the bytes of one process's. */
typedef struct mpi_traj {
    MPI_Comm comm;
    MPI_File fh;
    boids_atomic_file a; /* rank 0's temporary file */
    const char *path;
    size_t frames, n, written;
    int cols, f8, open;
    MPI_Offset data; /* the header's bytes */
} mpi_traj;

boids_status mpi_traj_open(MPI_Comm comm, mpi_traj *t, const char *path, size_t frames, size_t n,
                           int dim, int f8, boids_error *err);
/* The next frame: this rank's part (ids first ..) of the state. */
boids_status mpi_traj_frame(mpi_traj *t, const boids_flock *part, size_t first, boids_error *err);
/* Renamed onto its target once every frame was written by every rank. */
boids_status mpi_traj_close(mpi_traj *t, boids_error *err);
/* Not collective: rank 0 removes the temporary file. */
void mpi_traj_abort(mpi_traj *t);

#endif
