/* SPDX-License-Identifier: MIT */
/* Flock state: N boids as structure-of-arrays in double precision, indexed by id.
 *
 * Dimension: a 2-D flock has z = vz = NULL; a 3-D flock (boids_flock_alloc_dim with dim 3)
 * also has z and vz. The dimension is known from z alone (boids_flock_dim), so that code
 * written for the plane, and flocks filled by hand with positional initialisers, stay 2-D
 * unchanged. A backend keeps the dimension of the flock it was created with, and steps
 * only with parameters of that dim.
 *
 * This is the exchange format between backends, state files and metrics. Backends keep
 * their own working copies (cpu-ref in double and id order, the grid paths in float,
 * reordered by cell) and always read back in id order, so boid i here is boid i
 * everywhere.
 *
 * Ownership: boids_flock_alloc allocates the four (six in 3-D) arrays as one block that
 * boids_flock_free releases; a flock filled by hand (own arrays) must not be passed to
 * boids_flock_free. Threads: no shared state; a flock may be read by many threads at once
 * and written by one. */
#ifndef BOIDS_FLOCK_H
#define BOIDS_FLOCK_H

#include <stddef.h>
#include <stdint.h>

#include "boids/api.h"
#include "boids/error.h"
#include "boids/params.h"

BOIDS_BEGIN_DECLS

typedef struct boids_flock {
    size_t n;
    double *x, *y;   /* position, length units */
    double *vx, *vy; /* velocity, length per time unit */
    uint32_t step;   /* steps taken since the start: the Vicsek noise stream's step index
                        (modulo 2^32), so that a saved and reloaded run draws the noise it
                        would have drawn; a state file's `# step=K` line */
    double *z, *vz;  /* 3-D only: position and velocity along z; NULL in a 2-D flock */
} boids_flock;

/* Allocates n boids of a 2-D flock, all zero (step 0). n = 0: BOIDS_ERR_INPUT; more than
 * memory holds: BOIDS_ERR_LIMIT naming the size. */
boids_status boids_flock_alloc(boids_flock *f, size_t n, boids_error *err);

/* The same for dim 2 or 3 (boids_params.dim); another dim: BOIDS_ERR_INPUT. */
boids_status boids_flock_alloc_dim(boids_flock *f, size_t n, int dim, boids_error *err);

/* 3 when f has z arrays, else 2 (also for NULL). */
int boids_flock_dim(const boids_flock *f);
void boids_flock_free(boids_flock *f);
boids_status boids_flock_copy(boids_flock *dst, const boids_flock *src, boids_error *err);

/* Random initial state exactly as seed 000's nueva(): for each boid, in this order,
 * angle = uniform(0, 2 pi), x = uniform(0, width), y = uniform(0, height), and
 * v = initial_speed * (cos angle, sin angle), drawn from random.Random(seed).
 * A 3-D flock draws, for each boid in this order: c = uniform(-1, 1), phi =
 * uniform(0, 2 pi), x = uniform(0, width), y = uniform(0, height), z = uniform(0, depth),
 * and v = initial_speed * (s cos phi, s sin phi, c) with s = sqrt(1 - c^2): a direction
 * uniform on the sphere (Archimedes: z of a uniform point on the sphere is uniform).
 * No error return: a NULL f or p, or a flock with an array of its dimension missing, is left
 * as it is. */
void boids_flock_randomize(boids_flock *f, const boids_params *p, uint64_t seed);

/* The open plane's bound on coordinates: squared distances between any two boids stay finite
 * in float ((2e15)^2 = 4e30 < FLT_MAX), so every backend computes the same finite geometry. */
#define BOIDS_OPEN_COORD_MAX 1e15

/* Checks that an in-memory state fits the parameters: the flock's dim is p's, finite values,
 * positions inside the world ([0, width] x [0, height], x [0, depth] in 3-D), or within
 * +-BOIDS_OPEN_COORD_MAX on the open plane; the message names origin and the first offending
 * boid by index. (A state file is checked line by line as it
 * is read, speeds included: boids_state_load_for.) */
boids_status boids_flock_check(const boids_flock *f, const boids_params *p, const char *origin,
                               boids_error *err);

/* What a loaded state must satisfy beyond boids_flock_check, so that every backend can hold
 * it: speeds the model can produce. Reynolds: |v| <= max_speed, Vicsek: |v| = speed, both
 * within a relative BOIDS_SPEED_TOLERANCE. The tolerance is there because the float backends
 * compute and clamp speeds in float: rounding puts a saved |v| a few float ulps (2^-24
 * relative each) off max_speed or speed; 1e-6 is about 16 of them, far below any real
 * disagreement between a state and the parameters. (A refused state is not re-normalised:
 * a silent change of the input is what the checks are there to prevent.) */
#define BOIDS_SPEED_TOLERANCE 1e-6

/* Checks one boid (x, y, vx, vy in v) against p: finite values, the position rule of
 * boids_flock_check and, when speeds != 0, the speed rule above. where starts the message
 * ("flock.csv:12"; NULL: the function's name). NULL p or v: BOIDS_ERR_INPUT. */
boids_status boids_boid_check(const boids_params *p, const double v[4], int speeds,
                              const char *where, boids_error *err);

/* The same for a 3-D boid: v = (x, y, z, vx, vy, vz), z within [0, depth]. */
boids_status boids_boid_check3(const boids_params *p, const double v[6], int speeds,
                               const char *where, boids_error *err);

/* Order (polarization): |sum of v_i / |v_i|| / N, in [0, 1]; boids with zero velocity
 * contribute nothing. Operation order follows seed 000's orden(); in 3-D the same with the
 * z component last. */
double boids_order(const boids_flock *f);

/* The order of each species of p (species 1 with species = 1) among f's boids (boid i has id
 * i) into out[0 .. species - 1]: boids_order over that species' boids alone, their unit
 * velocities summed in id order, over its number of boids (boids_species_count; 0 for a
 * species with none). A NULL or malformed f: every species' order 0 (a NULL p: one species);
 * a NULL out: nothing. */
void boids_order_species(const boids_flock *f, const boids_params *p, double *out);

/* FNV-1a over the bytes of every coordinate, array by array (x, y, vx, vy, and then z, vz
 * in 3-D), each in id order: equal hashes mean (with overwhelming probability)
 * bit-identical states. */
uint64_t boids_flock_hash(const boids_flock *f);

BOIDS_END_DECLS

#endif
