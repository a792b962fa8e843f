/* SPDX-License-Identifier: MIT */
/* The 3-D observables (metrics3.c), which boids_metrics_compute calls for a flock with z
 * arrays after its own checks (arguments, N, finite x, y, vx, vy). Internal. */
#ifndef BOIDS_METRICS3_H
#define BOIDS_METRICS3_H

#include "boids/metrics.h"

boids_status boids_metrics_compute3(const boids_flock *f, const boids_params *p, boids_metrics *out,
                                    boids_error *err);

/* What metrics.c and metrics3.c share. */

/* Shortest periodic image of a difference d of two coordinates in [0, side]: |d| <= side,
 * so one correction is enough. The same test as the rules' wrap, so that metrics and
 * interactions agree on who is within reach. Inline: the pair loops call it. */
static inline double wrap_diff(double d, double side, double half) {
    if (d > half) return d - side;
    if (d < -half) return d + side;
    return d;
}

/* Circular mean of coordinates on a circle of circumference side (metrics.c). */
double boids_metrics_circular_mean(const double *x, size_t n, double side);

#endif
