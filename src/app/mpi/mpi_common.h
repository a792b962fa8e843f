/* SPDX-License-Identifier: MIT */
/* What the MPI commands of boids-mpi share (sweep_mpi.c, sim_mpi.c): the two meetings of
 * every rank before any work (mpi_agree.c), so that no rank waits forever for one that
 * stopped, and no rank runs another model than rank 0's. */
#ifndef BOIDS_APP_MPI_COMMON_H
#define BOIDS_APP_MPI_COMMON_H

#include "boids/error.h"

/* Every rank parsed its command line, or none goes on: returns rc where this rank failed,
 * 2 on the others (rank 0 names the first rank that stopped), APP_RUN when all parsed. */
int mpi_parsed(int rc);

/* Every rank set up (st: how that went here), and set up as rank 0: this rank's setup text
 * (NULL after a failure) is compared with rank 0's. A rank that failed prints its own
 * message; a rank whose text differs prints the first line that differs, its and rank
 * 0's; every rank then returns a failure naming the first such rank (BOIDS_ERR_INPUT for a
 * different setup). what names the work in messages ("sweep", "run"). */
boids_status mpi_agree(boids_status st, const char *setup, const char *what, boids_error *err);

#endif
