/* SPDX-License-Identifier: MIT */
/* The trajectory of `boids sim --trajectory FILE`, in the format its name asks for: a VTK
 * collection for a name ending in ".pvd" (vtk.h, for ParaView), a GSD file for one ending in
 * ".gsd" (gsd.h: HOOMD-blue's schema, for OVITO, freud and MDAnalysis), else a NumPy .npy
 * array (npy.h). Each streams one frame at a time and is complete or absent. */
#ifndef BOIDS_APP_TRAJECTORY_H
#define BOIDS_APP_TRAJECTORY_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "output/gsd.h"
#include "output/npy.h"
#include "output/vtk.h"

typedef struct app_traj {
    int open; /* 0: no trajectory (a zeroed struct), 1: open */
    int vtk;  /* 1: the VTK collection */
    int gsd;  /* 1: the GSD file (neither: the .npy array) */
    const char *path;
    size_t frames, n, written; /* declared at the opening; frames passed to the writer */
    int dim;
    app_npy npy;
    app_vtk pvd;
    app_gsd g;
} app_traj;

/* Opens path for frames frames of n boids of dimension dim, float64 (f8) or float32; dt: the
 * time a step, for the VTK frames' times (step * dt); side: the world's dim sides, for the
 * GSD box. The errors of app_npy_open, app_vtk_open or app_gsd_open. */
boids_status app_traj_open(app_traj *t, const char *path, size_t frames, size_t n, int dim, int f8,
                           double dt, const double *side, boids_error *err);

/* The boids' species, before the first frame: a GSD trajectory's types (app_gsd_set_species),
 * a ParaView one's species array (app_vtk_set_species); the .npy carries none (a boid's
 * species follows from its id and the sidecar's parameters). */
void app_traj_set_species(app_traj *t, const boids_params *p);

/* Appends the flock after `step` steps (the .npy array keeps no step: its sidecar says them). */
boids_status app_traj_frame(app_traj *t, const boids_flock *f, unsigned long step,
                            boids_error *err);

/* Commits the trajectory once every frame was written (fewer: BOIDS_ERR_RUNTIME, nothing
 * kept). */
boids_status app_traj_close(app_traj *t, boids_error *err);

/* Removes what was written; a closed or zeroed trajectory: nothing to do. */
void app_traj_abort(app_traj *t);

/* Adds to a sidecar's "output" object the format of the trajectory path (which need not be
 * open): format, dtype, shape and layout. */
void app_traj_describe(cJSON *out, const char *path, size_t frames, size_t n, int dim, int f8);

#endif
