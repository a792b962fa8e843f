/* SPDX-License-Identifier: MIT */
#include "render/dive.h"

#include <math.h>

/* c + k * side, kept inside [2%, 98%] of the world's side length */
static double inside(double c, double k, double side) {
    return fmin(0.98 * side, fmax(0.02 * side, c + k * side));
}

int dive_apply(const boids_params *base, uint64_t step, boids_params *p) {
    if (base->dim != 3 || !base->predator) return 0;
    uint64_t phase = step % DIVE_PERIOD;
    p->predator = phase < DIVE_STEPS;
    if (!p->predator) return 1;
    /* Up is -y (camera3.h): the dive starts above the roost (smaller y), to one side and
     * behind, and ends below it on the other side; each dive comes from the opposite side
     * of the previous one, as a falcon's passes do. */
    double u = (double)phase / DIVE_STEPS;
    double s = (step / DIVE_PERIOD) % 2 ? -1 : 1;
    double t = 2 * u - 1; /* -1 at the start, 1 at the end */
    p->predator_x = inside(base->food_x, 0.35 * s * t, base->width);
    p->predator_y = inside(base->food_y, 0.40 * t, base->height);
    p->predator_z = inside(base->food_z, 0.25 * s * t, base->depth);
    return 1;
}
