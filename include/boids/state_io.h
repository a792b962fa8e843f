/* SPDX-License-Identifier: MIT */
/* State files: CSV with the header `x,y,vx,vy` (further columns allowed and ignored),
 * one boid per line in id order, numbers written with %.17g so that a save/load round
 * trip is bit-exact. An optional first line `# step=K` gives the step counter (the Vicsek
 * noise stream's index), so that a run continued from a saved state draws the noise the
 * uninterrupted run would have; without it the state is at step 0.
 *
 * A 3-D state (a flock with z arrays) has the line `# dim=3` after the step line and the
 * header `x,y,z,vx,vy,vz`; a file without a dim line is 2-D. boids_state_load_for refuses a
 * state whose dim is not the parameters' dim, naming both.
 *
 * Bounds: lines of at most 4096 bytes, at most 1e9 boids, no NUL byte; a UTF-8 BOM first is
 * skipped (as in config files); a folder is refused. Each line is checked as it is read, so
 * hostile input stops at its line in bounded memory.
 *
 * Ownership: boids_state_load allocates the flock (free it with boids_flock_free).
 * Threads: reentrant; two threads writing the same path race like any two writers. */
#ifndef BOIDS_STATE_IO_H
#define BOIDS_STATE_IO_H

#include "boids/api.h"
#include "boids/error.h"
#include "boids/flock.h"
#include "boids/params.h"

BOIDS_BEGIN_DECLS

/* Reads path into f (allocated here; N, the step and the dim come from the file). Missing or
 * empty file, bad step or dim line or header, wrong column count, malformed or non-finite
 * number, a line beyond the bounds: BOIDS_ERR_INPUT naming the file, line and column; f is
 * left empty. */
boids_status boids_state_load(const char *path, boids_flock *f, boids_error *err);

/* boids_state_load, and every boid checked against p as it is read (boids_boid_check:
 * inside the world unless open, speeds the model allows), the message naming its line. */
boids_status boids_state_load_for(const char *path, const boids_params *p, boids_flock *f,
                                  boids_error *err);

/* Writes f to path complete or not at all (boids_atomic_file), the step line first.
 * Unwritable path: BOIDS_ERR_INPUT. */
boids_status boids_state_save(const char *path, const boids_flock *f, boids_error *err);

BOIDS_END_DECLS

#endif
