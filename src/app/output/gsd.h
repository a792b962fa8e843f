/* SPDX-License-Identifier: MIT */
/* Trajectories in the GSD file format (version 2.0 of its file layer) with the HOOMD-blue
 * schema (version 1.4), which OVITO, freud, MDAnalysis and HOOMD-blue itself read: written
 * here from the published description of the format, with no GSD library.
 *
 * The file: a 256-byte header, then the data chunks frame after frame, then the index (one
 * 32-byte entry a chunk, sorted by frame and then by the name's id) and the name list (the
 * names in alphabetical order, so that their ids follow it, each ended by a zero byte, padded
 * with zeros to whole 64-byte segments). Every integer is little-endian whatever the host's
 * order. Chunks:
 *   frame 0 only     configuration/box (float32 6: Lx, Ly, Lz, 0, 0, 0; Lz = 0 in 2-D, as
 *                    HOOMD marks a 2-D box), configuration/dimensions (uint8 2 or 3),
 *                    particles/N (uint32), particles/types (int8 1 x 5: "boid"),
 *                    particles/typeid (uint32 N: 0)
 *   every frame      configuration/step (uint64), particles/position and particles/velocity
 *                    (float32 N x 3; z = 0 in 2-D)
 * Readers take a chunk missing from a frame from frame 0, as the schema says.
 *
 * Positions: the schema's box is centred on the origin, the world is [0, W) x [0, H) (x
 * [0, D)): a boid at x is written at float32(x) - float32(W / 2), computed in float32, so
 * that the .npy trajectory's float32 values (npy_put_value) minus the half sides give these
 * bits exactly. Under the open boundary the box is the world the flock started in, and boids
 * may be outside it. Velocities are the .npy's float32 values.
 *
 * Complete or absent: the file is written under a temporary name (boids_atomic_file) and
 * takes its own once every frame was written. Memory: the index (32 bytes a chunk, three
 * chunks a frame) and one fixed buffer of boids. */
#ifndef BOIDS_APP_GSD_H
#define BOIDS_APP_GSD_H

#include <stddef.h>
#include <stdint.h>

#include "atomic_file.h"
#include "boids/flock.h"
#include "boids/params.h"
#include "output/out_at.h"

typedef struct app_gsd_entry {
    uint64_t frame, n, location;
    uint32_t m;
    uint16_t id;
    uint8_t type;
} app_gsd_entry;

typedef struct app_gsd {
    boids_atomic_file file; /* app_gsd_open's; not open after app_gsd_start alone */
    const char *path;       /* as messages name it */
    size_t frames, n, written;
    int dim;
    float half[3]; /* the world's half sides, float32 */
    float box[3];  /* Lx, Ly, Lz */
    uint64_t at;   /* the next chunk's place in the file */
    app_gsd_entry *index;
    size_t entries, cap;
    boids_params types; /* with ntypes > 1: the species of each id (boids_species_of) */
    int ntypes;         /* the types: 1 ("boid", every typeid 0) or the flock's species */
} app_gsd;

/* Whether path names a GSD file: it ends in ".gsd". */
int app_gsd_wanted(const char *path);

/* Opens path for frames frames of n boids of dimension dim (2 or 3) in a world of sides
 * side[0 .. dim - 1]. f8 (float64 asked for) is refused: the schema's positions and
 * velocities are float32 (BOIDS_ERR_INPUT, as for an unwritable path). */
boids_status app_gsd_open(app_gsd *w, const char *path, size_t frames, size_t n, int dim, int f8,
                          const double *side, boids_error *err);

/* The writer of a file written by processes that each hold a part of the flock (out_at.h):
 * app_gsd_open's checks and the file's layout, but no file, which the caller makes (each
 * writer keeps the same index: the chunks' places are known from N alone). */
boids_status app_gsd_start(app_gsd *w, const char *path, size_t frames, size_t n, int dim, int f8,
                           const double *side, boids_error *err);

/* The types of the boids, before the first frame: with p->species > 1 one type a species
 * ("species0" ...), each boid's typeid its species (boids_species_of, by its id); otherwise
 * the one type "boid". */
void app_gsd_set_species(app_gsd *w, const boids_params *p);

/* The next frame's bytes of the rows r into o (every writer of the file calls it for every
 * frame): app_gsd_frame's. */
boids_status app_gsd_put_frame(app_gsd *w, const app_out *o, const app_rows *r, unsigned long step,
                               boids_error *err);

/* After the last frame: the index, the names and the header into o if lead (every writer
 * calls it; it frees the index). */
boids_status app_gsd_put_end(app_gsd *w, const app_out *o, int lead, boids_error *err);

/* Writes the next frame, the flock f after `step` steps (f->n and its dim those of open, at
 * most `frames` frames: the caller's duty, app_traj_frame checks it). */
boids_status app_gsd_frame(app_gsd *w, const boids_flock *f, unsigned long step, boids_error *err);

/* Writes the index, the names and the header and gives the file its name once every frame
 * was written (fewer: BOIDS_ERR_RUNTIME, nothing kept). */
boids_status app_gsd_close(app_gsd *w, boids_error *err);

/* Removes the temporary file; the target is left as it was. */
void app_gsd_abort(app_gsd *w);

#endif
