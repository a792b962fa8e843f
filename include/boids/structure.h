/* SPDX-License-Identifier: MIT */
/* The spatial structure of a flock state: number fluctuations and the connected velocity
 * correlation function, computed in O(N) with a uniform grid, in the world's own geometry
 * (shortest periodic image per axis in a wrap world), 2-D or 3-D (a flock with z arrays).
 *
 * Number fluctuations (Chate et al. 2008, giant number fluctuations of ordered active
 * matter): the world (wrap, walls; the flock's bounding box for an open boundary) is cut
 * into m boxes per axis, m = 2, 4, 8, ... while the mean count N / m^d is at least 1 (and m
 * at most 4096); for each level, the mean <n> = N / m^d and the standard deviation Delta n
 * (population, 1/boxes) of the boxes' counts. gnf_alpha is the least-squares slope of
 * ln Delta n against ln <n> over the levels with at least 16 boxes and <n> >= 4 (the fit
 * levels): 1/2 for independent boids (Poisson; the fixed total makes the variance
 * <n> (1 - 1/boxes), which shifts the slope by about 0.01 at 16 boxes), larger when density
 * fluctuates collectively (up to about 0.8 in the ordered phase of 2-D polar flocks). Fewer
 * than 2 fit levels (N below 64 * 4 in 2-D): alpha NaN. A level with Delta n = 0 is left
 * out of the fit.
 *
 * Boxes: along each axis the box of x is floor((x - lo) m / L) (lo = 0 and L the world's
 * side; an open boundary: the flock's smallest coordinate and its extent), the last box
 * holding x = lo + L too; a flock of extent 0 along an open axis has every boid in the
 * first box. The boids are counted once into the finest level's boxes, and each coarser
 * level adds its 2^d sub-boxes (box k of level m is boxes 2k and 2k + 1 of level 2m along
 * each axis): the levels are nested exactly. The variance is taken from the integer sum of
 * (n - q)^2, q = floor(<n>), so it does not depend on the order of the boxes (a periodic
 * translation by whole boxes leaves it unchanged to the bit).
 *
 * Velocity correlation (Cavagna et al. 2010): with V the mean velocity and
 * u_i = (v_i - V) / sqrt((1/N) sum_k |v_k - V|^2) the normalised velocity fluctuations,
 *
 *   C(r_b) = sum_{i<j, |r_ij| in bin b} u_i . u_j  /  #{i<j, |r_ij| in bin b}
 *
 * with `bins` equal bins of [0, range). In a wrap world range must be at most half the
 * smallest side (beyond it a pair has two distances). sum_i u_i = 0, so C must become
 * negative at some r in a finite periodic flock: the correlation length is the first zero,
 * linearly interpolated between the centres of the last bin with C > 0 and the first with
 * C <= 0 (bins with no pairs skipped); NaN when C stays positive over the range (the
 * length is beyond it) or the first bin with pairs already has C <= 0 (then 0). A state whose
 * velocities are all equal has no fluctuations: it adds nothing.
 *
 * Distances and bins: |r_ij| with the shortest image per axis in a wrap world, the straight
 * line otherwise; a pair with |r_ij| < range is in bin floor(|r_ij| bins / range) (the
 * last bin if rounding reaches bins). Each unordered pair is visited once, also when a
 * wrap world is only 1 or 2 cells wide (each distinct cell pair once).
 *
 * Cost: number fluctuations O(N + boxes), boxes <= N; the correlation O(N + N * (boids
 * within 3^d cells of side range)), O(N) for a fixed range and density, so a whole-world
 * range on a large flock is O(N^2): choose the range. The cells are those of the metrics
 * (boids/metrics.h: at least range wide, at most about 4N of them, the 3^d cells around a
 * boid's own searched): of the pairs tested, pi/9 (2-D) and 4 pi/81 (3-D) are within range
 * for a uniform flock; cells of range / 2 with the 5^d around would test 1.44 times fewer
 * pairs in 2-D (1.73 in 3-D) but visit 25 cells per boid instead of 9 (125 instead of 27):
 * not worth a second grid. Results do not depend on the number of threads: each row of
 * cells along the last axis is cut into the same number of runs (at least 64 runs in all),
 * each summed in cell order into its own bins, the runs added in order (so that processes
 * holding some rows each can add theirs in turn: boids-mpi).
 *
 * Ownership: plain values; the functions allocate their working memory and free it before
 * returning. Threads: reentrant (OpenMP inside allowed, thread-count independent). */
#ifndef BOIDS_STRUCTURE_H
#define BOIDS_STRUCTURE_H

#include <stddef.h>

#include "boids/api.h"
#include "boids/error.h"
#include "boids/flock.h"
#include "boids/params.h"

BOIDS_BEGIN_DECLS

enum { BOIDS_FLUCT_MAX_LEVELS = 13 };

typedef struct boids_fluct_level {
    long per_axis;   /* m */
    double boxes;    /* m^d */
    double side[3];  /* box side per axis (z: 0 in 2-D), length units */
    double mean, sd; /* <n> and Delta n */
    int fitted;      /* 1: the fit used this level (all 0 when alpha is NaN) */
} boids_fluct_level;

typedef struct boids_fluct {
    size_t nlevels;
    boids_fluct_level level[BOIDS_FLUCT_MAX_LEVELS];
    double alpha; /* gnf_alpha, NaN when fewer than 2 fit levels */
} boids_fluct;

/* The fit of gnf_alpha over levels->level[0 .. nlevels - 1] from each level's boxes, mean
 * and sd, as above (a level whose mean or sd is not finite is left out too): marks the
 * fitted levels, stores alpha in levels->alpha and returns it. For callers that pool the
 * levels of many states (the mean of each level's variance over samples, its square root
 * as sd) and fit once; boids_number_fluctuations fits with it. NULL levels: NaN. */
double boids_fluct_fit(boids_fluct *levels);

/* The number fluctuations of f in the world of p (width, height, depth in 3-D, boundary):
 * nlevels levels, m = 2 first (nlevels 0 and alpha NaN when N < 2^d). NULL f, p or out,
 * an empty flock, a non-finite value (naming the boid), a world side not in (0, 1e30]:
 * BOIDS_ERR_INPUT; more than 2^32 - 1 boids: BOIDS_ERR_LIMIT; allocation failure:
 * BOIDS_ERR_NOMEM. */
boids_status boids_number_fluctuations(const boids_flock *f, const boids_params *p,
                                       boids_fluct *out, boids_error *err);

/* Adds f's pair sums to sum[0 .. bins-1] and pair counts to pairs[0 .. bins-1] (accumulate
 * over states, then C = sum / pairs). range not in (0, half the smallest side] of a wrap
 * world (or (0, 1e30] otherwise), bins = 0 or above 100000, N < 2, a non-finite value,
 * NULL f, p, sum or pairs: BOIDS_ERR_INPUT naming it, sum and pairs unchanged; more than
 * 2^32 - 1 boids: BOIDS_ERR_LIMIT; allocation failure: BOIDS_ERR_NOMEM. Velocities all
 * exactly equal: BOIDS_OK, nothing added. */
boids_status boids_velocity_correlation_add(const boids_flock *f, const boids_params *p,
                                            double range, size_t bins, double *sum, double *pairs,
                                            boids_error *err);

/* The correlation length (first zero, as above) of the accumulated sum / pairs, in length
 * units. NULL sum or pairs, bins = 0, range not positive and finite, or a non-finite sum
 * among the bins before the zero: NaN. */
double boids_correlation_length(const double *sum, const double *pairs, size_t bins, double range);

BOIDS_END_DECLS

#endif
