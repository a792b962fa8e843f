/* SPDX-License-Identifier: MIT */
/* The diving predator of a 3-D flock (the murmuration preset's falcon), shared by `boids
 * view` and `boids render`: with dim = 3 and the predator on, the predator point flies
 * through the food point (the roost) on a slanted dive, from high above one side of it to
 * low on the other, once every DIVE_PERIOD steps, and is off between dives. The path is a
 * function of the step count alone, so rendered films are reproducible. 2-D parameters,
 * or the predator off, are left alone. */
#ifndef BOIDS_APP_RENDER_DIVE_H
#define BOIDS_APP_RENDER_DIVE_H

#include <stdint.h>

#include "boids/params.h"

enum {
    DIVE_PERIOD = 900, /* steps from one dive's start to the next's */
    DIVE_STEPS = 240   /* steps a dive lasts */
};

/* Sets p's predator for step `step` of the run: on along the dive, off between dives.
 * Returns 1 if p is a diving flock (3-D, predator on in `base`), else 0 and p unchanged. */
int dive_apply(const boids_params *base, uint64_t step, boids_params *p);

#endif
