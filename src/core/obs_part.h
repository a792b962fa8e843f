/* SPDX-License-Identifier: MIT */
/* The observables of a flock held in pieces (boids/metrics.h, boids/structure.h): the parts
 * of boids_metrics_compute and boids_number_fluctuations that a process holding some of the
 * boids can do, so that processes combining them as stated get the whole flock's bits
 * (src/mpi reduces the split flock's metrics on them). Not part of the public API:
 * metrics.c and structure.c implement it, each piece the one its own function runs.
 *
 * Two kinds of pieces:
 *   - sums over the boids in id order (milling's centre and angular momentum): the whole
 *     flock's sum is the parts' (ranges of ids, flock_part.h) added in turn;
 *   - per-boid values over a set of boids of which some are the caller's own and the others
 *     its halo (neighbours, the nearest neighbour, the components of "distance <
 *     vision_radius"): each own boid's value is the whole flock's when the set holds every
 *     boid within the stated reach of it. */
#ifndef BOIDS_OBS_PART_H
#define BOIDS_OBS_PART_H

#include <stddef.h>
#include <stdint.h>

#include "boids/error.h"
#include "boids/flock.h"
#include "boids/params.h"
#include "boids/structure.h"

/* Milling in parts. The centre's sums over f's boids in id order added to s[2 * axis ..]
 * (wrap: the sines and cosines of the circular mean; otherwise the coordinates' sum), then
 * the centre c of those sums for n boids; the angular momentum's sum about c added to l;
 * boids_milling_of(l, dim, n) is boids_metrics' milling. */
void boids_milling_centre_add(const boids_flock *f, const boids_params *p, double s[6]);
void boids_milling_centre_of(const double s[6], const boids_params *p, int dim, size_t n,
                             double c[3]);
void boids_milling_add(const boids_flock *f, const boids_params *p, const double c[3], double l[3]);
double boids_milling_of(const double l[3], int dim, size_t n);

/* The pair metrics of the boids 0 .. own - 1 of set (set->n >= 1 boids, the others its
 * halo), through the grid boids_metrics_compute uses: cnt[i] the other boids of set within
 * vision_radius of boid i < own (d^2 < R^2), nn2[i] the squared distance to its nearest
 * other boid of set (INFINITY: none), and label[j] for every boid j of set the index of its
 * component's root among set's boids (the components of "d < vision_radius" over set). Own boids
 * whose set holds every boid within vision_radius have the whole flock's counts and components; a
 * nearest neighbour found within the reach the set covers is the whole flock's. set's values are
 * checked (finite, the world). */
boids_status boids_metrics_local(const boids_flock *set, size_t own, const boids_params *p,
                                 long *cnt, double *nn2, uint32_t *label, boids_error *err);

/* label[j] for every boid j of set as above, but the components of the graph restricted to
 * the pairs of one kind (kind[j]: boid j's; NULL: every pair, boids_metrics_local's). */
boids_status boids_metrics_labels(const boids_flock *set, const boids_params *p,
                                  const unsigned char *kind, uint32_t *label, boids_error *err);

/* For each of nq points q (dim coordinates each), best2[i] lowered to the squared distance
 * from it to the nearest boid of set but boid skip[i] (a boid index of set; SIZE_MAX:
 * none): the doubles boids_metrics_compute measures a boid at q with. */
boids_status boids_metrics_nearest(const boids_flock *set, const boids_params *p, const double *q,
                                   const size_t *skip, size_t nq, double *best2, boids_error *err);

/* Number fluctuations in pieces (boids_number_fluctuations): the finest level's boxes per
 * axis for n boids (1: no level); the box of the point x at a level of m boxes per axis over
 * the frame (lo, w per axis: the world's, or on the open plane the whole flock's bounding
 * box), its index with the last axis the most significant (the rows along it contiguous);
 * the counts of level m from `rows` rows (even) of level 2m (whole rows: 2m^(dim-1) boxes
 * each, into rows / 2 rows of m^(dim-1)); the sum over boxes of (count - q)^2, q = n / boxes
 * of the level (exact: integers); a level's mean and sd from that sum; and every level with
 * the fit from the whole flock's counts of level m (count is used as scratch). */
long boids_fluct_finest(size_t n, int dim);
size_t boids_fluct_box(const double *x, int dim, const double lo[3], const double w[3], long m);
void boids_fluct_coarsen(const uint32_t *fine, uint32_t *coarse, long rows, long m, int dim);
uint64_t boids_fluct_sum(const uint32_t *count, size_t boxes, uint64_t q);
void boids_fluct_level_set(boids_fluct_level *v, uint64_t s, size_t boxes, size_t n, long m,
                           int dim, const double w[3]);
boids_status boids_fluct_from_counts(uint32_t *count, size_t n, long m, int dim, const double w[3],
                                     boids_fluct *out, boids_error *err);

/* The velocity correlation in pieces (boids_velocity_correlation_add), for a flock held in
 * parts of ids (flock_part.h):
 *   - the arguments' checks for a flock of n boids (the messages starting with who);
 *   - the fluctuations u = (v - V) / s: whether a velocity of part differs from v0 (boid 0's:
 *     none anywhere, no correlation); the sums over the boids in id order of the mean
 *     velocity V (s[axis] += v; V = s / n) and of the spread (*ss += |v - V|^2;
 *     s = sqrt(ss / n), no correlation unless positive), the whole flock's being the parts'
 *     added in turn;
 *   - the pair sums, by rows of the grid's last axis (y in the plane, z in the box): the
 *     grid's rows for n boids with the whole flock's extent lo .. hi along each axis, the
 *     rows its runs are grouped by with `bins` bins (*group: one unless rows x bins is very
 *     large), and the row of each of the m coordinates x along the last axis into row (m
 *     may be 0); then the runs of the rows [r0, r1) (whole groups: r0 and r1 multiples of
 *     the group, or r1 the rows) summed from set (u from its velocities, mean and scale:
 *     the whole flock's V and s) and added in run order to sum and pairs, ready(ctx) called
 *     once before the first is added (NULL: not called). set holds, in id order, every boid
 *     of those rows and of the row beside each (wrap: around the seam); more are ignored.
 *     Rows added in row order, from 0 up to the grid's rows, give
 *     boids_velocity_correlation_add's bits. */
boids_status boids_corr_check(size_t n, const boids_params *p, double range, size_t bins,
                              const char *who, boids_error *err);
int boids_corr_differs(const boids_flock *part, int dim, const double v0[3]);
void boids_corr_mean_add(const boids_flock *part, int dim, double s[3]);
void boids_corr_spread_add(const boids_flock *part, int dim, const double mean[3], double *ss);
long boids_corr_rows_of(size_t n, const boids_params *p, const double lo[3], const double hi[3],
                        double range, size_t bins, long *group, const double *x, size_t m,
                        long *row);
boids_status boids_corr_rows_add(const boids_flock *set, const boids_params *p, size_t n,
                                 const double lo[3], const double hi[3], const double mean[3],
                                 double scale, double range, long r0, long r1, size_t bins,
                                 double *sum, double *pairs, void (*ready)(void *ctx), void *ctx,
                                 boids_error *err);

#endif
