/* SPDX-License-Identifier: MIT */
/* Trajectories as NumPy .npy files (format version 1.0), streamed to disk frame by frame; the
 * header and the rows are the core's (src/core/npy_format.h), shared with .npy state files.
 *
 * Layout: one array of shape (frames, N, 4), C order, little-endian float32 ('<f4') or
 * float64 ('<f8'): a[t, i] = (x, y, vx, vy) of boid i (id order) at the t-th frame; a 3-D
 * flock's is (frames, N, 6) with a[t, i] = (x, y, z, vx, vy, vz).
 * numpy.load(path) reads it with no extra package; numpy.load(path, mmap_mode="r") maps it
 * without reading it all. The header states the final shape, so the number of frames must
 * be known before the first one is written; the data goes to a temporary file that becomes
 * the target only when every frame was written (boids_atomic_file), and no more than one
 * small buffer of boids is ever held here, so memory stays flat however many frames. */
#ifndef BOIDS_APP_NPY_H
#define BOIDS_APP_NPY_H

#include <stddef.h>

#include "atomic_file.h"
#include "boids/flock.h"

typedef struct app_npy {
    boids_atomic_file file;
    size_t frames, n, written;
    int f8;   /* 1: float64, 0: float32 */
    int cols; /* values a boid: 4 (2-D) or 6 (3-D) */
} app_npy;

/* Opens path for frames x n x 2 dim values (dim 2 or 3) and writes the header. Size beyond
 * 2^62 bytes: BOIDS_ERR_LIMIT; unwritable path: BOIDS_ERR_INPUT. */
boids_status app_npy_open(app_npy *w, const char *path, size_t frames, size_t n, int dim, int f8,
                          boids_error *err);

/* Appends one frame: f->n and its dim must be those of app_npy_open, and at most `frames`
 * frames (the caller's duty: app_traj_frame checks it for every format). */
boids_status app_npy_frame(app_npy *w, const boids_flock *f, boids_error *err);

/* Commits the file once every frame was written (fewer: BOIDS_ERR_RUNTIME, nothing kept). */
boids_status app_npy_close(app_npy *w, boids_error *err);

/* Removes the temporary file; the target is left as it was. */
void app_npy_abort(app_npy *w);

#endif
