/* SPDX-License-Identifier: MIT */
/* boids-mpi: the commands that run over MPI ranks (this folder):
 *   mpirun -n K boids-mpi sim   [the options of boids sim]    one flock split over the ranks
 *   mpirun -n K boids-mpi sweep [the options of boids sweep]  a sweep's runs over the ranks
 * Exit codes as boids: 0 ok, 1 a run failed, 2 bad usage or input. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "atomic_file.h"
#include "cli/cli.h"
#include "mpi/mpi_run.h"

static const char usage[] =
    "usage: mpirun -n K boids-mpi COMMAND [OPTIONS]\n"
    "Commands:\n"
    "  sim    one flock split over the ranks, with the bits of `boids sim`\n"
    "  sweep  the runs of `boids sweep` spread over the ranks\n"
    "`boids-mpi COMMAND --help` describes each and which rank writes what.\n";

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    /* A rank ended by a signal (mpirun's SIGTERM when the job is stopped, or another rank
     * died) removes the temporary files it made, as boids does. */
    boids_atomic_cleanup_on_signals();
    int rank, rc;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int help = argc == 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"));
    if (argc >= 2 && !strcmp(argv[1], "sweep")) {
        rc = boids_mpi_sweep(argc - 1, argv + 1);
    } else if (argc >= 2 && !strcmp(argv[1], "sim")) {
        rc = boids_mpi_sim(argc - 1, argv + 1);
    } else {
        if (rank == 0) app_help_text(help ? stdout : stderr, usage);
        rc = help ? 0 : 2;
    }
    MPI_Finalize();
    return rc;
}
