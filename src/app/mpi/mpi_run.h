/* SPDX-License-Identifier: MIT */
/* The commands of boids-mpi (call between MPI_Init and MPI_Finalize; each returns the exit
 * code): argv[0] is the command's name. */
#ifndef BOIDS_APP_MPI_RUN_H
#define BOIDS_APP_MPI_RUN_H

/* `boids sweep` with its runs spread over the ranks (sweep_mpi.c). */
int boids_mpi_sweep(int argc, char **argv);

/* `boids sim` with one flock split over the ranks (sim_mpi.c). */
int boids_mpi_sim(int argc, char **argv);

#endif
