/* SPDX-License-Identifier: MIT */
/* Trajectories that ParaView (and VTK's own readers) open directly: a VTK XML collection.
 *
 * `run.pvd` is the index, one <DataSet timestep="T" file="run/frame_000000.vtp"/> per frame in
 * order, T the frame's simulation time; the folder `run` beside it (the target's name without
 * ".pvd") holds one PolyData file a frame, frame_K.vtp, K the frame's index with at least six
 * digits (more when the run has a millionth frame, so that names sort as frames do). A frame:
 *   Points            x, y, z of boid i at point i (z = 0 in 2-D), Float32 or Float64
 *   Verts             one vertex cell a point, so that ParaView draws them with no filter
 *   PointData         velocity (vx, vy, vz; vz = 0 in 2-D), same type; id (Int64, i); with
 *                     more than one species (docs/model.md), species (Int32, boid i's)
 *   FieldData         TimeValue (Float64, the time T) and step (Int64)
 * in the appended raw encoding (header_type UInt64, little-endian whatever the host's order),
 * values as the .npy trajectory's (src/core/npy_format.h: the same float32 rounding).
 *
 * Complete or absent: the frames go to a temporary folder beside the target, the index to a
 * temporary file (boids_atomic_file); only when every frame was written does the folder get
 * its name and then the index its own. A run that fails or is stopped by SIGINT, SIGTERM or
 * SIGHUP leaves neither. The folder may already exist only as one this writer made: a folder
 * of regular files named frame_DIGITS.vtp and nothing else (an empty one too), which is
 * replaced whole; anything else under that name (another file, a subfolder, a link, a plain
 * file) is refused (BOIDS_ERR_INPUT), never touched. Memory: one fixed buffer of boids,
 * whatever N and the number of frames. */
#ifndef BOIDS_APP_VTK_H
#define BOIDS_APP_VTK_H

#include <stddef.h>

#include "atomic_file.h"
#include "boids/flock.h"
#include "boids/params.h"
#include "output/out_at.h"

typedef struct app_vtk {
    boids_atomic_file index; /* the .pvd; .f NULL when not open */
    boids_atomic_hook hook;  /* removes the frames made so far on a signal */
    char *dir;               /* the frames' folder: the target without ".pvd" */
    char *tmp;               /* the temporary folder: the index's temporary name + ".d" */
    char *xml_dir;           /* dir's last component, escaped for an XML attribute */
    char *name, *sig_name;   /* frame paths (tmp/frame_K.vtp), the second one the hook's */
    size_t prefix;           /* bytes of tmp/frame_ in both */
    size_t frames, n, written;
    volatile size_t created; /* frame files made in tmp: what the hook removes */
    int f8, dim, digits;
    double dt;
    int species;        /* species above 1: the frames hold each boid's */
    boids_params types; /* what says which boid is of which species */
} app_vtk;

/* Whether path names a VTK collection: it ends in ".pvd". */
int app_vtk_wanted(const char *path);

/* Opens the collection path (ending in ".pvd") for frames frames of n boids of dimension
 * dim (2 or 3), Float64 (f8) or Float32, frame times step * dt. A name with nothing before
 * ".pvd", the folder refused (see above), an unwritable place: BOIDS_ERR_INPUT naming it. */
boids_status app_vtk_open(app_vtk *w, const char *path, size_t frames, size_t n, int dim, int f8,
                          double dt, boids_error *err);

/* The frames' species array: set before the first frame with p's species (above 1: each
 * boid's species, boids_species_of; 1 or p NULL: none, the frames as before). Any writer may
 * set it, opened or not (app_vtk_put_frame's writers that did not open the collection). */
void app_vtk_set_species(app_vtk *w, const boids_params *p);

/* Writes the next frame, the flock f after `step` steps (f->n and its dim those of open, at
 * most `frames` frames: the caller's duty, app_traj_frame checks it). */
boids_status app_vtk_frame(app_vtk *w, const boids_flock *f, unsigned long step, boids_error *err);

/* A frame written by processes that each hold a part of the flock (out_at.h), as
 * app_vtk_frame writes it: the writer that opened the collection names the next frame's
 * file in the temporary folder (counted for removal on a signal: the caller makes it), every
 * writer puts its rows, n the flock's N (the format and species of w, which every writer
 * sets alike: its f8 and app_vtk_set_species), and the opener lists the frame in the index once
 * the file is complete. app_vtk_put_frame returns 0, or -1 when a write failed. */
const char *app_vtk_frame_file(app_vtk *w);
int app_vtk_put_frame(const app_out *o, const app_rows *r, size_t n, const app_vtk *w, double time,
                      unsigned long step);
void app_vtk_frame_listed(app_vtk *w, unsigned long step);
/* The time of the frame after `step` steps (step * dt). */
double app_vtk_time(const app_vtk *w, unsigned long step);

/* Gives the folder and then the index their names once every frame was written (fewer:
 * BOIDS_ERR_RUNTIME, nothing kept). */
boids_status app_vtk_close(app_vtk *w, boids_error *err);

/* Removes the temporary folder and index; the targets are left as they were. */
void app_vtk_abort(app_vtk *w);

#endif
