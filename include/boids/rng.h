/* SPDX-License-Identifier: MIT */
/* A random number generator that reproduces CPython's random.Random bit for bit.
 *
 * MT19937 seeded with init_by_array over the seed's 32-bit words (least significant
 * first, at least one word), random() with 53-bit resolution, and
 * uniform(a, b) = a + (b - a) * random(). boids_rng_seed(&r, 7) followed by the same
 * calls gives the same doubles as random.Random(7) in Python.
 *
 * Ownership and threads: a boids_rng is a plain value owned by the caller; one generator
 * per thread (the functions are reentrant, a generator is not shared safely). They have no
 * error return: a NULL generator is not seeded and gives 0 (uniform: a). */
#ifndef BOIDS_RNG_H
#define BOIDS_RNG_H

#include <stdint.h>

#include "boids/api.h"

BOIDS_BEGIN_DECLS

typedef struct boids_rng {
    uint32_t mt[624];
    int index;
} boids_rng;

/* Seeds like random.Random(seed) for a non-negative integer seed. */
void boids_rng_seed(boids_rng *rng, uint64_t seed);

/* Next 32-bit output of MT19937 (Python's getrandbits(32)). */
uint32_t boids_rng_u32(boids_rng *rng);

/* Uniform double in [0, 1) with 53 random bits, as Python's random(). */
double boids_rng_random(boids_rng *rng);

/* a + (b - a) * random(), as Python's uniform(a, b). */
double boids_rng_uniform(boids_rng *rng, double a, double b);

BOIDS_END_DECLS

#endif
