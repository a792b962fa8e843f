/* Flock state: N boids as structure-of-arrays in double precision, indexed by id.
 *
 * This is the exchange format between backends, state files and metrics. Backends keep
 * their own working copies (cpu-ref in double and id order, the grid paths in float,
 * reordered by cell) and always read back in id order, so boid i here is boid i
 * everywhere.
 *
 * Ownership: boids_flock_alloc allocates the four arrays as one block that
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
} boids_flock;

/* Allocates n boids, all zero. n = 0: BOIDS_ERR_INPUT; more than memory holds:
 * BOIDS_ERR_LIMIT naming the size. */
boids_status boids_flock_alloc(boids_flock *f, size_t n, boids_error *err);
void boids_flock_free(boids_flock *f);
boids_status boids_flock_copy(boids_flock *dst, const boids_flock *src, boids_error *err);

/* Random initial state exactly as seed 000's nueva(): for each boid, in this order,
 * angle = uniform(0, 2 pi), x = uniform(0, width), y = uniform(0, height), and
 * v = initial_speed * (cos angle, sin angle), drawn from random.Random(seed). */
void boids_flock_randomize(boids_flock *f, const boids_params *p, uint64_t seed);

/* Checks that a state fits the parameters: finite values, positions inside the world
 * ([0, width] x [0, height]) unless the boundary is open; names the first offending boid (origin is
 * used in the message, e.g. the state file's name; boid i is on line i + 2 of a state file). */
boids_status boids_flock_check(const boids_flock *f, const boids_params *p, const char *origin,
                               boids_error *err);

/* Order (polarization): |sum of v_i / |v_i|| / N, in [0, 1]; boids with zero velocity
 * contribute nothing. Operation order follows seed 000's orden(). */
double boids_order(const boids_flock *f);

/* FNV-1a over the bytes of every coordinate, array by array (x, y, vx, vy), each in id
 * order: equal hashes mean (with overwhelming probability) bit-identical states. */
uint64_t boids_flock_hash(const boids_flock *f);

BOIDS_END_DECLS

#endif
