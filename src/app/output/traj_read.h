/* SPDX-License-Identifier: MIT */
/* Reading a trajectory back (`boids view --replay`, `boids render --replay`): the .npy file
 * that `boids sim --trajectory` writes (npy.h: shape (frames, N, 4) or (frames, N, 6), '<f4'
 * or '<f8'), one frame at a time with pread into one frame's buffer, so that memory stays
 * that of one frame however long the file; and its sidecar FILE.json (provenance.h), which
 * gives the run's parameters and the step of each frame.
 *
 * The header is the core's parser (src/core/npy_format.h). A file whose header is not that
 * of a trajectory, whose data is shorter or longer than its shape, with no frame or no boid,
 * or a sidecar that is not valid JSON, is not a trajectory's, or disagrees with the file
 * (N, dim, shape), is BOIDS_ERR_INPUT naming the file and what is wrong. */
#ifndef BOIDS_APP_TRAJ_READ_H
#define BOIDS_APP_TRAJ_READ_H

#include <stddef.h>
#include <stdint.h>

#include "boids/error.h"
#include "boids/flock.h"
#include "boids/interact.h"
#include "boids/params.h"

typedef struct app_traj_in {
    const char *path;
    int fd;
    size_t data_offset;
    size_t frames, n;   /* frames >= 1, n >= 1 */
    int dim, f8;        /* dim 2 or 3 (4 or 6 values a boid); f8: '<f8', else '<f4' */
    unsigned char *buf; /* one frame's bytes */
    size_t frame_bytes;
    /* The sidecar FILE.json, when there is one (has_sidecar): the run's parameters and the
     * sampled steps, frame t being step first + t * every, and the interaction points and
     * obstacles the run stepped with (its "interaction", drawn as a live run draws them;
     * none when the sidecar has no such object). Without it first = 0, every = 1 (frame
     * numbers stand for the steps). */
    int has_sidecar;
    boids_params params;
    boids_interact inter;
    char preset[32]; /* the preset the run started from ("" if the sidecar names none) */
    uint64_t first, every;
} app_traj_in;

/* Opens path and its sidecar, when present, and checks them (see above). */
boids_status app_traj_in_open(app_traj_in *t, const char *path, boids_error *err);
void app_traj_in_close(app_traj_in *t);

/* Frame k (0 <= k < frames) into f, a flock of t->n boids of t->dim (boids_flock_alloc_dim);
 * f->step becomes the frame's step. A read error: BOIDS_ERR_RUNTIME naming the file. */
boids_status app_traj_in_read(app_traj_in *t, size_t k, boids_flock *f, boids_error *err);

/* What a replay shows of frame k: the frame into f and, in 3-D, frame k - 1 into prev, its
 * velocities the ones the boids bank from (*banked 1; frame 0 and the plane: 0, prev
 * untouched). prev is a flock like f. */
boids_status app_traj_in_read_shown(app_traj_in *t, size_t k, boids_flock *f, boids_flock *prev,
                                    int *banked, boids_error *err);

/* The order column of the series CSV path (`boids sim --series`) of the same run: one row
 * per frame, row k at frame k's step, into *order (t->frames values; free it). A missing or
 * malformed file, no `order` column, or other rows or steps: BOIDS_ERR_INPUT naming the
 * file and line. */
boids_status app_traj_in_series_order(const app_traj_in *t, const char *path, double **order,
                                      boids_error *err);

/* The step of frame k. */
uint64_t app_traj_in_step(const app_traj_in *t, size_t k);

#endif
