/* SPDX-License-Identifier: MIT */
/* boids-mpi sim's --trajectory written by every rank at once from its part of the flock, in
 * any of the formats of `boids sim` (output/trajectory.h), byte for byte one process's: the
 * .npy array through the MPI backend's writer (mpi_parts.h), the GSD file and the ParaView
 * collection's frames through their writers in src/app/output (output/out_at.h: one piece of
 * code makes the bytes of a file written whole or in parts) and MPI-IO. Rank 0 makes the
 * temporary files and folders, writes the bytes that are no boid's and renames them. Every
 * call is collective but abort (each rank alone). */
#ifndef BOIDS_APP_MPI_TRAJ_PARTS_H
#define BOIDS_APP_MPI_TRAJ_PARTS_H

#include <mpi.h>

#include "mpi_parts.h"
#include "output/gsd.h"
#include "output/vtk.h"

typedef struct traj_parts {
    MPI_Comm comm;
    int open, rank;
    int gsd, vtk; /* neither: the .npy array */
    mpi_traj npy;
    app_gsd g;           /* every rank's: the same index */
    boids_atomic_file a; /* the GSD file's temporary name, rank 0's */
    MPI_File fh;         /* the GSD file */
    app_vtk v;           /* rank 0's: the folder and the index */
    size_t n;
    int f8;
} traj_parts;

/* The arguments of app_traj_open (output/trajectory.h). */
boids_status traj_parts_open(MPI_Comm comm, traj_parts *t, const char *path, size_t frames,
                             size_t n, int dim, int f8, double dt, const double *side,
                             boids_error *err);
/* The boids' species of a GSD or ParaView trajectory (app_traj_set_species), every rank
 * alike. */
void traj_parts_set_species(traj_parts *t, const boids_params *p);
/* The next frame, the flock after `step` steps: this rank's part (ids first ..). */
boids_status traj_parts_frame(traj_parts *t, const boids_flock *part, size_t first,
                              unsigned long step, boids_error *err);
/* Renamed onto its target once every frame was written (fewer: a failure, nothing kept). */
boids_status traj_parts_close(traj_parts *t, boids_error *err);
/* Not collective: rank 0 removes what it made. */
void traj_parts_abort(traj_parts *t);

#endif
