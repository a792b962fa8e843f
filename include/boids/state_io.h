/* State files: CSV with the header `x,y,vx,vy` (further columns allowed and ignored),
 * one boid per line in id order, numbers written with %.17g so that a save/load round
 * trip is bit-exact.
 *
 * Ownership: boids_state_load allocates the flock (free it with boids_flock_free).
 * Threads: reentrant; two threads writing the same path race like any two writers. */
#ifndef BOIDS_STATE_IO_H
#define BOIDS_STATE_IO_H

#include "boids/api.h"
#include "boids/error.h"
#include "boids/flock.h"

BOIDS_BEGIN_DECLS

/* Reads path into f (allocated here; N comes from the file). Missing or empty file, bad
 * header, wrong column count, malformed or non-finite number: BOIDS_ERR_INPUT naming the
 * file, line and column. */
boids_status boids_state_load(const char *path, boids_flock *f, boids_error *err);

/* Writes f to path complete or not at all (boids_atomic_file). Unwritable path:
 * BOIDS_ERR_INPUT. */
boids_status boids_state_save(const char *path, const boids_flock *f, boids_error *err);

BOIDS_END_DECLS

#endif
