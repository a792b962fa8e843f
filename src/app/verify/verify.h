/* SPDX-License-Identifier: MIT */
/* Helpers of `boids verify`: a brute-force float step (the calibration of the tolerance), the
 * float-precision band around every threshold of the model, and the double reference of one
 * boid with its ambiguous neighbour pairs chosen (the decision of the band's boids). */
#ifndef BOIDS_APP_VERIFY_H
#define BOIDS_APP_VERIFY_H

#include <stddef.h>
#include <stdint.h>

#include "boids/flock.h"
#include "boids/interact.h"
#include "boids/params.h"

/* Ambiguous pairs listed per boid: 2^16 neighbour sets at most to try (verify_ref_boid). */
enum { VERIFY_MAX_AMB = 16 };

/* What a float path may legitimately decide differently from double for one boid. */
typedef struct verify_amb {
    unsigned char boid;     /* some decision of this boid's step (a pair at a radius or at the edge
                               of the field of view, the predator or food radius, a wall margin)
                               is within float precision of its threshold */
    unsigned char self;     /* one of them is not a neighbour pair (verify_amb_self) */
    unsigned char overflow; /* more than VERIFY_MAX_AMB ambiguous pairs, or a topological
                               selection that ambiguous candidates shift by more than one */
    unsigned char namb;     /* ambiguous neighbour pairs listed below */
    unsigned char in[VERIFY_MAX_AMB]; /* 1: the pair is a neighbour in double */
    uint32_t id[VERIFY_MAX_AMB];      /* the other boid */
    uint64_t hash[VERIFY_MAX_AMB];    /* boids_neighbour_set_hash of the other boid */
} verify_amb;

/* A decision of the boid that is not about one neighbour (a separation radius, the predator,
 * a wall, the zero-sum tolerance, the interaction table) is within float precision. */
static inline void verify_amb_self(verify_amb *a) {
    a->boid = 1;
    a->self = 1;
}

/* Can the boid's step be decided by trying its neighbour sets (verify_ref_boid)? Every
 * ambiguity is a listed pair. */
static inline int verify_amb_decidable(const verify_amb *a) {
    return !a->self && !a->overflow;
}

/* One step of the model in float by brute force (rules.h with float and the interaction table
 * t, NULL for none; positions and velocities
 * rounded to float first as the GPU does), neighbours visited in index order, or in reverse
 * order with reverse != 0. Either model, either neighbour rule (topological: the first k by
 * float distance, then id); Vicsek noise at step 0 of its stream, as after an upload. out has
 * in->n boids. */
void verify_float_step(const boids_params *p, const boids_interact *t, const boids_flock *in,
                       int reverse, boids_flock *out);

/* Fills amb[i] for every boid of f (O(N^2), in double). The band of a threshold is twice a
 * bound on the float error of the compared quantity, see verify_float.c. */
void verify_band(const boids_params *p, const boids_flock *f, verify_amb *amb);

/* Marks amb[i].boid for every boid of f with a decision of the interaction table t (NULL:
 * none) within float precision of its threshold (verify_interact.c): a point's radius, a
 * circle's rim, the look-ahead's clearance, a move against an obstacle (ref: cpu-ref's step
 * from f, whose moves tell what each boid meant to do). */
void verify_band_interact(const boids_params *p, const boids_interact *t, const boids_flock *f,
                          const boids_flock *ref, verify_amb *amb);

/* Is (count, hash) the double neighbour set (ref_count, ref_hash) with some subset of the
 * boid's ambiguous pairs flipped? 1 yes, 0 no. */
int verify_neighbours_match(const verify_amb *a, uint32_t ref_count, uint64_t ref_hash,
                            uint32_t count, uint64_t hash);
/* Is (count, hash) the double set with exactly the ambiguous pairs of mask flipped? */
int verify_mask_matches(const verify_amb *a, unsigned mask, uint32_t ref_count, uint64_t ref_hash,
                        uint32_t count, uint64_t hash);

/* Upper bound on the spacing of floats at the world's largest coordinate (depth included in
 * 3-D). */
double verify_eps_pos(const boids_params *p);

/* The interaction table's band (verify_interact.c), in 2-D and 3-D: how close to one of its
 * thresholds a boid's decision may be and still be left out. */
double verify_interact_band(const boids_params *p);

/* Lists the other boid j of an ambiguous pair (in: a neighbour in double) in a, once. */
void verify_add_amb(verify_amb *a, int in, uint32_t j);
/* A full topological selection whose ambiguous candidates may enter (enter of them) or
 * leave (leave): one entering displaces the k-th candidate far, one leaving lets the
 * (k+1)-th next in (-1: none), so those become ambiguous pairs too; more than one either
 * way shifts ranks beyond them: overflow. */
void verify_amb_shift(verify_amb *a, int enter, int leave, long far, long next);
/* The offset d on an axis of length side, wrapped to the nearest image when wrap != 0; inline:
 * the bands call it for every pair. */
static inline double verify_wrap_d(double d, double side, int wrap) {
    if (!wrap) return d;
    if (d > side / 2) return d - side;
    if (d < -side / 2) return d + side;
    return d;
}

/* The double reference of single boids (verify_decide.c), for the boids whose float
 * decisions are ambiguous: boid i's step from f with cpu-ref's operations and its double
 * neighbour set, in which the ambiguous pairs of a whose bit is set in mask (below
 * 2^a->namb) are flipped. verify_ref_boid writes boid i of out; it returns 1 when that
 * outcome itself turns on a direction float cannot decide (a steered target, or a Vicsek
 * heading sum, within float error of zero), else 0. Each decision of a boid then has its
 * outcome computed, so a backend's step is checked against every admissible one instead of
 * being left out. Not for concurrent use. */
typedef struct verify_ref verify_ref;
verify_ref *verify_ref_new(const boids_params *p, const boids_interact *t, const boids_flock *f);
int verify_ref_boid(verify_ref *r, size_t i, const verify_amb *a, unsigned mask, boids_flock *out);
void verify_ref_free(verify_ref *r);

#endif
