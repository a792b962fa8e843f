/* SPDX-License-Identifier: MIT */
/* State files: plain CSV that any CSV reader takes with no options (pandas.read_csv(path)),
 * the header `x,y,vx,vy` (3-D: `x,y,z,vx,vy,vz`; further columns allowed and ignored), one
 * boid per line in id order, numbers written with %.17g so that a save/load round trip is
 * bit-exact. The dimension is the header's.
 *
 * What a resumed run needs beyond the boids travels beside them in the sidecar PATH.json
 * (PATH with ".json" appended), a JSON object of these keys, each optional:
 *   step        the step counter (the Vicsek noise stream's index), [0, 4294967295]
 *   noise_seed  the noise stream's seed (boids_params.noise_seed), [0, 2^53]
 *   dim, n      the state's dimension and boid count, checked against the CSV
 *   flock_hash  boids_flock_hash of the boids as 16 hex digits: a CSV changed after the
 *               save (its values, not its formatting) makes the sidecar stale, and the load
 *               is refused rather than continued with another state's step
 * Integers are JSON integer literals; any other key, a key given twice, a value of another
 * type or out of range, or text that is not one JSON object is refused naming the sidecar,
 * its line and the key. No sidecar: step 0, no noise seed.
 *
 * A path ending in ".npy" is a NumPy .npy array instead (format 1.0 as written; 1.0, 2.0 and
 * 3.0 read): shape (N, 4) of x, y, vx, vy or (N, 6) of x, y, z, vx, vy, vz, one row a boid in
 * id order, C order, '<f8' as written (exact) and '<f8' or '<f4' read (numpy.load(path) reads
 * it). Written and read through a fixed buffer, so no second copy of the flock is held; the
 * file must be a regular one of exactly the bytes its header's shape needs. The sidecar and
 * every check are the CSV's; a bad header, dtype, order or shape is refused naming the file.
 *
 * Files of boids 0.3 and earlier, whose first lines were `# step=K` and then `# dim=3`, are
 * still read (the step from that line); one of those lines and a sidecar together are
 * refused (two steps). boids_state_save never writes comment lines.
 *
 * Bounds: lines of at most 4096 bytes, at most 1e9 boids, no NUL byte; a UTF-8 BOM first is
 * skipped (as in config files); a folder is refused; a sidecar of at most 4096 bytes. Each
 * line is checked as it is read, so hostile input stops at its line in bounded memory.
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

/* Reads path and its sidecar into f (allocated here; N, the dim and the step come from the
 * files). Missing or empty file, bad header, wrong column count, malformed or non-finite
 * number, a line beyond the bounds, a bad or stale sidecar: BOIDS_ERR_INPUT naming the file,
 * line and column or key; f is left empty. */
boids_status boids_state_load(const char *path, boids_flock *f, boids_error *err);

/* boids_state_load, and every boid checked against p as it is read (boids_boid_check:
 * inside the world unless open, speeds the model allows), the message naming its line. */
boids_status boids_state_load_for(const char *path, const boids_params *p, boids_flock *f,
                                  boids_error *err);

/* boids_state_load_for with p NULL allowed (no check), and *noise_seed (when noise_seed is
 * not NULL) set to the sidecar's noise_seed, or -1 when it gives none. */
boids_status boids_state_load_seeded(const char *path, const boids_params *p, boids_flock *f,
                                     long *noise_seed, boids_error *err);

/* Writes f to path (.npy if it ends so, CSV otherwise) and its sidecar to path.json (step, dim,
 * n, flock_hash), each complete or not at all (a temporary file renamed onto the target): both
 * are written before either replaces its target, and a failure before the state's rename
 * leaves both targets as they were. Unwritable path: BOIDS_ERR_INPUT. */
boids_status boids_state_save(const char *path, const boids_flock *f, boids_error *err);

/* boids_state_save with the noise seed in the sidecar as well (noise_seed in [0, 2^53];
 * -1: none, as boids_state_save), so that a loaded Vicsek run draws the noise the saved run
 * would have drawn. */
boids_status boids_state_save_seeded(const char *path, const boids_flock *f, long noise_seed,
                                     boids_error *err);

BOIDS_END_DECLS

#endif
