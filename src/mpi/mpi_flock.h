/* SPDX-License-Identifier: MIT */
/* One flock over the ranks of an MPI communicator, behind the backend interface, so that a
 * program's step loop (boids-mpi sim's is `boids sim`'s) runs it unchanged (mpi_flock.c;
 * src/core/tile.h says why the split run has the bits of one process).
 *
 * Each rank owns the boids of a range of the flock's grid cells in row order (its tile: whole
 * rows, or on the backends' resident tiles a range that may end within rows) and steps
 * them on its own backend (cpu or gpu) each step, after four exchanges: the bounding box
 * (open boundary), the boids per row (for the cut, rebalanced when a tile holds more than
 * MPI_FLOCK_IMBALANCE times the mean), the boids that left their tile (migration), and the
 * halo (the edge rows of the tiles whose windows hold them, by non-blocking point-to-point
 * messages).
 * Every operation is collective: every rank calls it, in the same order. */
#ifndef BOIDS_MPI_FLOCK_H
#define BOIDS_MPI_FLOCK_H

#include <mpi.h>
#include <stdint.h>

#include "boids/backend.h"
#include "tile.h"

/* A new cut is made when the slowest tile's load is more than this times the mean: a tile's
 * load is its boids at the cost each rank measured per boid of its own in the last steps
 * (the boids alone before any step). The cut of whole rows then gives every tile at most the
 * mean plus one row's load. */
#define MPI_FLOCK_IMBALANCE 1.1

/* The steps after the split starts, after the cost model's units change (the backend's
 * first counts of the pairs) or after a new cut, whose times the cut does not take: the
 * first steps of a tile pay for its new order and first touches (cpu_grid.c: 100 ms against
 * 35 at 1M boids), as the rows a new cut moves do, and a cut made from them moved rows that
 * the steady steps then found uneven. */
#define MPI_FLOCK_WARM 2

/* The cost model the measured times weigh (mpi_flock.c): a row's load is B candidates for
 * each of its boids (a boid's own work: its place in the grid, its move) plus the candidates
 * its boids test (boids_backend_tile_count's pairs: each cell's boids times its 3^dim block's).
 * B from the cpu benchmark of this project's 2-core machine (bench/README,
 * 1M boids, random start and formed flock): in the plane 28.1 and 41.9 ns a boid-step at about
 * 67 and 196 candidates a boid, 0.11 ns a candidate and 21 ns a boid, so about 200; in the box
 * 55.7 and 77.6 ns at about 18 and 334, 0.07 ns and 54 ns, so about 800. */
#define MPI_FLOCK_BOID_COST(dim) ((dim) == 2 ? 200u : 800u)

/* A new cut of the same rows is taken only when it lowers the slowest tile's load by this
 * share (a cut of other rows, when the grid changed, always). */
#define MPI_FLOCK_GAIN 0.05

/* The split flock of n boids (every rank with the same n), of which this rank brings part:
 * the boids first .. first + part->n - 1 (any range; together the ranks bring each boid
 * once, at the same step), stepped on each rank by local: with one rank, part is the whole
 * flock and local must hold it and steps it alone; with more, local may hold anything of the
 * flock's dimension (it is replaced by the rank's window each step). part is copied.
 * Takes local (destroyed with the split flock, or on failure). Collective. NULL on failure,
 * the same on every rank for a refusal of the model or the cut (err says why); a rank
 * other than 0 whose own setup failed also prints its message on stderr, after prog (the
 * program's name), since rank 0's err names only the rank. */
boids_backend *mpi_flock_create(MPI_Comm comm, boids_backend *local, const boids_params *p,
                                const boids_flock *part, size_t first, size_t n, const char *prog,
                                boids_error *err);

/* on = 1 (the default): each step moves the tile's interior rows while the halo is on its
 * way, then the border rows; 0: waits for the halo, then moves the tile at once. The same
 * bits either way (boids-mpi sim --mpi-no-overlap; the benchmark compares them). */
void mpi_flock_set_overlap(boids_backend *b, int on);

/* The rank's own boids at the current step, or those of them whose global id keep(ctx, id)
 * keeps (all without keep): *m records of rs bytes (gid, dim float positions, dim float
 * velocities), in no particular order; valid until the next step or the next call of this or
 * mpi_flock_gather. Not collective. A backend that keeps its tile resident writes them into
 * its own buffer only when this is called (no copy is kept between steps): a caller that
 * reads a share at a time holds a buffer of that share, not of the tile. */
boids_status mpi_flock_owned(boids_backend *b, boids_tile_keep keep, const void *ctx,
                             const unsigned char **rec, size_t *m, size_t *rs, boids_error *err);

/* on = 1: the window path even where the local backend keeps tiles resident (each step
 * uploads the tile and its halo rows, as for the gpu backend): the same bits, for the
 * benchmark's comparison and the tests. Before the first step only. */
void mpi_flock_set_window(boids_backend *b, int on);

/* Where a cut may end tiles (boids-mpi sim --mpi-cut), at most: within a cell, at the boid
 * where a tile's even share falls (BOIDS, the default, where the local backend steps such
 * tiles: the resident tiles of cpu and of gpu in its deterministic mode), within a row at a
 * cell (CELLS; the gpu backend's --fast tiles at most), or at whole rows (ROWS; every backend).
 * mpi_cut.c; the same bits every way, for the benchmark's comparisons. Before the first step. */
enum { MPI_FLOCK_CUT_BOIDS, MPI_FLOCK_CUT_CELLS, MPI_FLOCK_CUT_ROWS };
void mpi_flock_set_cut(boids_backend *b, int how);

/* Whether the cut weighs each rank's rows by its CPU time per unit of the cost model (on) or
 * its wall time (off, the default): on for ranks that share cores with each other, where the
 * wall clock counts the time a rank waits for a core. The same on every rank; the same bits either
 * way (boids-mpi sim --mpi-balance). Before the first step. */
void mpi_flock_set_balance_cpu(boids_backend *b, int on);
int mpi_flock_balance_cpu(const boids_backend *b);

/* The whole state into out on rank 0 (out->n the flock's N, id order); the other ranks
 * pass NULL and send theirs. Collective. */
boids_status mpi_flock_gather(boids_backend *b, boids_flock *out, boids_error *err);

/* The communicator the flock is split over, the flock's step and its dimension. */
MPI_Comm mpi_flock_comm(const boids_backend *b);
uint32_t mpi_flock_step(const boids_backend *b);
int mpi_flock_dim(const boids_backend *b);

/* Whether the last failure of b is known to every rank (all returned it): then every rank
 * can stop on its own; else the others wait for this one, which must end the job. */
int mpi_flock_failure_shared(const boids_backend *b);

/* What the exchanges cost on this rank, since creation. */
typedef struct mpi_flock_stats {
    double steps;      /* steps taken */
    double seconds;    /* wall time in the steps */
    double wait;       /* of which in MPI calls (waiting for the other ranks and the network) */
    double local;      /* of which in the rank's backend (its calls in the step) */
    double work;       /* of which not in MPI calls: the rank's own work */
    double work_cpu;   /* that work in CPU seconds of the process (all its threads): what
                        * it costs, whatever else shares the cores */
    double halo_bytes; /* halo bytes sent */
    double migrated;   /* boids sent to another tile */
    double boids_min, boids_max, boids_sum; /* boids owned, over the steps */
    double rebalances;                      /* new cuts after the first */
    /* The imbalance, the same on every rank: over the steps (all but the last, whose work
     * no later step reduces), the sums of the slowest rank's work and of the ranks' mean.
     * (work_max - work_mean) / work_max is the share of the step time lost to imbalance.
     * The same on the ranks' CPU clocks: the share of their work lost, whatever else shares
     * their cores (ranks time-sharing cores wait for a core on the wall clock). */
    double work_max, work_mean;
    double cpu_max, cpu_mean;
    /* Over the same steps, the heaviest row's share of the cut's weights (the cost model times
     * the measured rates), each step's weighted by its mean work (work_mean's terms):
     * heaviest_row / work_mean is their mean. Above 1 / K no cut of whole rows can balance
     * the flock (a tile holds at least that row). */
    double heaviest_row;
    double within;       /* steps whose cut ended tiles within rows (mpi_flock_set_cut) */
    double within_cells; /* and within cells, at a boid */
} mpi_flock_stats;

/* The stats since creation, or, after mpi_flock_set_warmup's steps, of the steps since then,
 * and in *warm (may be NULL) the warm-up's own (zeros until it ends). */
void mpi_flock_get_stats(const boids_backend *b, mpi_flock_stats *s, mpi_flock_stats *warm);

/* Leaves the first `steps` steps out of mpi_flock_get_stats (a steady-state timing: the first
 * steps carry the flock from its parts by id to the cut's tiles and build the tiles). Before
 * the first step. */
void mpi_flock_set_warmup(boids_backend *b, uint32_t steps);

#endif
