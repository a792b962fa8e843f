/* SPDX-License-Identifier: MIT */
/* Seed 003's worked example of the Vicsek model (section 246.4), for the tests that check a
 * backend against it: three agents on a line at x = 0, 1, 2, speed 0.2, in an open world
 * where each sees only its neighbours on the line (R = 1.1), without noise and one unit of
 * time a step. */
#ifndef BOIDS_TEST_SEED003_H
#define BOIDS_TEST_SEED003_H

#include "boids/params.h"

static inline boids_params seed003_three_agent_params(void) {
    boids_params p = boids_params_default();
    p.model = BOIDS_MODEL_VICSEK;
    p.boundary = BOIDS_BOUNDARY_OPEN;
    p.vision_radius = 1.1;
    p.separation_radius = 0;
    p.noise = 0;
    p.speed = 0.2;
    p.dt = 1;
    return p;
}

#endif
