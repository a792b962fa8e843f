/* SPDX-License-Identifier: MIT */
/* Two backends compared, for the tests that check one against another in the plane or the
 * box: how many boids have another neighbour set, and how far apart two states are. */
#ifndef BOIDS_TEST_BACKEND_COMPARE_H
#define BOIDS_TEST_BACKEND_COMPARE_H

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "boids/backend.h"

/* The boids whose neighbour count or id hash differ between a and b (each holding the same
 * n boids); (size_t)-1 with *err set when either backend fails or memory runs out. */
static inline size_t compare_neighbour_sets(boids_backend *a, boids_backend *b,
                                            const boids_params *p, size_t n, boids_error *err) {
    size_t diffs = (size_t)-1;
    uint32_t *c1 = malloc(n * sizeof *c1), *c2 = malloc(n * sizeof *c2);
    uint64_t *h1 = malloc(n * sizeof *h1), *h2 = malloc(n * sizeof *h2);
    if (!c1 || !c2 || !h1 || !h2) {
        boids_error_set(err, BOIDS_ERR_NOMEM, "compare_neighbour_sets: out of memory");
    } else if (!boids_backend_neighbours(a, p, c1, h1, err) &&
               !boids_backend_neighbours(b, p, c2, h2, err)) {
        diffs = 0;
        for (size_t i = 0; i < n; i++) diffs += c1[i] != c2[i] || h1[i] != h2[i];
    }
    free(c1), free(c2), free(h1), free(h2);
    return diffs;
}

/* The largest position and velocity difference between two states of p's dimension, boid by
 * boid (wrap: the shortest way round the torus). */
static inline void compare_states(const boids_flock *a, const boids_flock *b, const boids_params *p,
                                  double *dp, double *dv) {
    const double side[3] = {p->width, p->height, p->depth};
    const int box = p->dim == 3;
    *dp = *dv = 0;
    for (size_t i = 0; i < a->n; i++) {
        const double pa[3] = {a->x[i], a->y[i], box ? a->z[i] : 0};
        const double pb[3] = {b->x[i], b->y[i], box ? b->z[i] : 0};
        const double va[3] = {a->vx[i], a->vy[i], box ? a->vz[i] : 0};
        const double vb[3] = {b->vx[i], b->vy[i], box ? b->vz[i] : 0};
        double ep = 0, ev = 0;
        for (int c = 0; c < p->dim; c++) {
            double d = fabs(pa[c] - pb[c]);
            if (p->boundary == BOIDS_BOUNDARY_WRAP && d > side[c] / 2) d = side[c] - d;
            ep += d * d;
            ev += (va[c] - vb[c]) * (va[c] - vb[c]);
        }
        *dp = fmax(*dp, sqrt(ep));
        *dv = fmax(*dv, sqrt(ev));
    }
}

#endif
