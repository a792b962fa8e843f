/* SPDX-License-Identifier: MIT */
/* Observables of a flock state: how aligned, how rotating, how close, how connected.
 *
 * Seed 003 (section 246.5) insists that polarization, cohesion and rotation are distinct
 * properties: a dispersed group can be perfectly aligned and an organised mill has zero
 * polarization. So each state is described by six numbers, all computed from one state
 * (positions and velocities of boids_flock, in id order) and the world of boids_params:
 *
 *   order            polarization P = |sum_i u_i| / N, u_i = v_i / |v_i| (a boid with
 *                    v_i = 0 has u_i = 0: it counts in N but adds nothing). In [0, 1]:
 *                    1 when all headings agree, 0 when they cancel. Identical to
 *                    boids_order(). Null model (independent uniform headings):
 *                    E[P^2] = 1/N exactly, which is NOT E[P] = 1/sqrt(N) (E[P] is about
 *                    sqrt(pi / (4N)) for large N).
 *   milling          M = |(1/N) sum_i rhat_i x u_i|, the normalised angular momentum about
 *                    the centre c: rhat_i = (p_i - c) / |p_i - c| (shortest periodic image
 *                    in a wrap world), x the 2-D cross product a_x b_y - a_y b_x. A boid
 *                    exactly at the centre (p_i - c = 0) or with zero velocity contributes
 *                    0 but counts in N. In [0, 1]: 1 for a ring all moving tangentially the
 *                    same way round, about 1/sqrt(N) or less for random headings.
 *   nn_distance      mean over boids of the distance to the nearest other boid, in length
 *                    units, measured with the boundary's own distance (shortest image in a
 *                    wrap world, straight line otherwise). NaN when N < 2.
 *   neighbours       mean over boids of the number of other boids at distance strictly
 *                    below vision_radius: metric, all around (fov and any topological k
 *                    are ignored: this counts what is within reach, not what a rule uses).
 *   clusters         number of connected components of the graph that links two boids at
 *                    distance strictly below vision_radius (a lone boid is a component).
 *   largest_cluster  size of the largest component divided by N, in (0, 1].
 *
 * The centre c: in a wrap world each axis is a circle, so c is the circular mean per axis:
 * with theta_i = 2 pi x_i / W, c_x = W / (2 pi) * atan2(mean sin theta_i, mean cos theta_i),
 * mapped into [0, W) (and the same for y with H). Two boids at x = 1 and x = W - 1 have
 * their centre at the seam x = 0, not at W / 2. When the mean vector of an axis is zero
 * (boids spread evenly round it) the centre is undefined; atan2(0, 0) = 0 then puts it at
 * 0, and milling is not meaningful for that state. With walls or an open boundary, c is
 * the arithmetic mean of the positions.
 *
 * In 3-D (a flock with z arrays, dim = 3): order sums unit vectors in three axes; milling
 * is the magnitude of the vector M = (1/N) sum_i rhat_i x u_i (the 3-D cross product), so
 * a ring about any axis gives 1; distances take the three axes (shortest image per axis in
 * a wrap world); neighbours and clusters link boids at distance below vision_radius in 3-D;
 * the centre is the circular mean per axis (z on a circle of circumference depth) or the
 * arithmetic mean. The values rotate with the flock: a 90-degree rotation about an axis of
 * a cubic periodic world leaves all six unchanged up to rounding.
 *
 * Cost: O(N) plus the pairs closer than vision_radius (a uniform grid of cells no smaller
 * than vision_radius; union-find for the components; the nearest neighbour by searching the
 * grid ring by ring outward until no unvisited cell can hold a closer boid). With walls or
 * an open boundary the grid covers the flock's bounding box. Results do not depend on the
 * number of threads.
 *
 * Ownership: boids_metrics is a plain value; compute allocates its working memory and frees
 * it before returning. Threads: reentrant (it may use OpenMP threads inside). */
#ifndef BOIDS_METRICS_H
#define BOIDS_METRICS_H

#include <stddef.h>

#include "boids/api.h"
#include "boids/error.h"
#include "boids/flock.h"
#include "boids/params.h"

BOIDS_BEGIN_DECLS

typedef struct boids_metrics {
    double order;           /* polarization, [0, 1] */
    double milling;         /* normalised angular momentum about the centre, [0, 1] */
    double nn_distance;     /* mean nearest-neighbour distance, length; NaN if N < 2 */
    double neighbours;      /* mean number of other boids within vision_radius, [0, N - 1] */
    double clusters;        /* number of components at vision_radius, [1, N] */
    double largest_cluster; /* largest component / N, (0, 1] */
} boids_metrics;

enum { BOIDS_METRICS_COUNT = 6 };

/* The CSV column names, in struct order, comma-separated:
 * "order,milling,nn_distance,neighbours,clusters,largest_cluster". */
extern const char boids_metrics_columns[];

/* The names one by one (BOIDS_METRICS_COUNT of them), in struct order. */
extern const char *const boids_metrics_names[BOIDS_METRICS_COUNT];

/* Computes every observable of f in the world of p (width, height, depth in 3-D, boundary,
 * vision_radius). Empty flock: BOIDS_ERR_INPUT; a non-finite coordinate: BOIDS_ERR_INPUT
 * naming the boid; a world side or vision_radius not in (0, 1e30]: BOIDS_ERR_INPUT naming
 * it; allocation failure: BOIDS_ERR_NOMEM. */
boids_status boids_metrics_compute(const boids_flock *f, const boids_params *p, boids_metrics *out,
                                   boids_error *err);

/* Each species' clusters under p (species 1 with species = 1) into clusters[0 .. species - 1]
 * and largest[0 .. species - 1]: the components of the graph of boids_metrics_compute
 * (distance < vision_radius) restricted to the pairs of boids of one species (boid i has id
 * i: boids_species_of), counted by species; largest[s] is species s's largest component's
 * boids over its number of boids (boids_species_count). A species with no boids: 0 and 0.
 * Errors as boids_metrics_compute's. */
boids_status boids_clusters_species(const boids_flock *f, const boids_params *p, double *clusters,
                                    double *largest, boids_error *err);

/* The centre used by milling (circular mean per axis in a wrap world, arithmetic mean
 * otherwise), exposed for tests and plots. Empty flock: (0, 0). */
void boids_metrics_centre(const boids_flock *f, const boids_params *p, double *cx, double *cy);

/* The 3-D centre (x, y, z) into c, as above; for a 2-D flock or an empty one: (0, 0, 0). */
void boids_metrics_centre3(const boids_flock *f, const boids_params *p, double c[3]);

/* The observable at index i (0 .. BOIDS_METRICS_COUNT - 1) in struct order. */
double boids_metrics_get(const boids_metrics *m, int i);

/* Formats the six values as CSV (`%.17g`, comma-separated, no newline, in
 * boids_metrics_columns order) into buf; returns what snprintf returns. */
int boids_metrics_format(const boids_metrics *m, char *buf, size_t size);

BOIDS_END_DECLS

#endif
