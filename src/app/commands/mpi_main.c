/* SPDX-License-Identifier: MIT */
/* boids-mpi: `boids sweep` with its runs spread over MPI ranks (sweep_mpi.c):
 *   mpirun -n K boids-mpi sweep [the options of boids sweep]
 * The only command; exit codes as boids: 0 ok, 1 a run failed, 2 bad usage or input. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "sweep.h"

static const char usage[] =
    "usage: mpirun -n K boids-mpi sweep [OPTIONS]\n"
    "Runs `boids sweep` (see boids sweep --help) with its runs spread over the ranks:\n"
    "rank 0 hands them out, largest N first, and writes every output.\n";

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, rc;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int help = argc == 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"));
    if (help || argc < 2 || strcmp(argv[1], "sweep")) {
        if (rank == 0) app_help_text(help ? stdout : stderr, usage);
        rc = help ? 0 : 2;
    } else {
        rc = boids_mpi_sweep(argc - 1, argv + 1);
    }
    MPI_Finalize();
    return rc;
}
