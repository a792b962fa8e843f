/* SPDX-License-Identifier: MIT */
/* The 3-D observables (metrics3.c), which boids_metrics_compute calls for a flock with z
 * arrays after its own checks (arguments, N, finite x, y, vx, vy). Internal. */
#ifndef BOIDS_METRICS3_H
#define BOIDS_METRICS3_H

#include "boids/metrics.h"

boids_status boids_metrics_compute3(const boids_flock *f, const boids_params *p, boids_metrics *out,
                                    boids_error *err);

#endif
