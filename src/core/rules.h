/* SPDX-License-Identifier: MIT */
/* The model's rules, written once for any floating type and for the plane and the box.
 *
 * Include this file through rules_instances.h, the one way it is instantiated, which defines
 *   RULES_REAL       double or float, the precision the rules compute in;
 *   RULES_DIM        2 (the plane: x, y) or 3 (the box: x, y, z);
 *   RULES_FN(name)   the names of this instance: by the project's convention name##_d2,
 *                    name##_d3, name##_f2 or name##_f3 (precision letter, then dimension),
 *                    so that one translation unit may include the file once for each
 *                    precision and dimension (undefine the three macros between includes).
 * cpu-ref includes it in double, the grid CPU path and the GPU pipeline's constants in float,
 * `boids verify` in both; shaders/rules.glsl is the same code in GLSL.
 *
 * A vector is an array R v[RULES_DIM], components in the order x, y, z, and a rule is one
 * loop over the axes: offsets wrap per axis, the field of view is a cone of half-angle
 * fov / 2 about the velocity (a sector in the plane), walls push and reflect per axis, the
 * predator and food points have a z in the box. The structures name their components too
 * (width/height/depth, pred_x/pred_y/pred_z, mvx/mvy/mvz, ...), as aliases of the arrays.
 * The operation order follows seed 000 exactly (see paso() and dirigir() there): a sum over
 * the axes is (x + y) + z, each axis divides and multiplies where the plane does. That is
 * what makes cpu-ref reproduce the seed program bit for bit, and every backend its golden
 * hashes: change nothing here without running the seed and golden tests. The core is built
 * with -ffp-contract=off so no multiply-add is fused. With every z and vz zero a step in the
 * box is the step in the plane plus terms that add zero (a test checks it).
 *
 * What differs between the plane and the box sits in one section, "The plane and the box"
 * below: the plane's obstacles are circles and segments, the box's spheres (and the plane's
 * circle decides "passes within" after a division, the sphere without one); the Vicsek
 * update turns an angle in the plane, a direction within a cone in the box.
 *
 * The interaction table (rules_k_set_interact) sits beside the constants, behind the pointer
 * k->tab (NULL when it holds nothing), in both dimensions: the constants stay a few hundred
 * bytes, which the grid paths copy per boid or keep in registers, while the table (up to 64
 * obstacles) is read only by the boids it concerns; an empty table costs one NULL test. */

#ifndef RULES_REAL
#error "define RULES_REAL before including rules.h"
#endif
#if !defined(RULES_DIM) || (RULES_DIM != 2 && RULES_DIM != 3)
#error "define RULES_DIM (2 or 3) before including rules.h"
#endif

#include <math.h>
#include <stdint.h>

#include "boids/interact.h"
#include "boids/params.h"

#ifndef RULES_H_SHARED
#define RULES_H_SHARED
/* cos(fov / 2) for a field of view fov in degrees: the one place every backend (and the GPU
 * uniform block) takes it from. The fov test is dot(v, d) >= cos(fov / 2) |v| |d|, which
 * README's "angle at most fov / 2" makes inclusive; cos(M_PI / 2) is 6e-17, not 0, and would
 * hide a neighbour at exactly 90 degrees with fov 180. The cosine of a rational number of
 * degrees is rational only at multiples of 60 or 90 degrees (Niven's theorem), where it is
 * 0, +-1/2 or +-1: those values are returned exact, after an exact reduction of the half
 * angle to [0, 180] (fmod, and 360 - h for h in (180, 360), are exact in binary floating
 * point). Any other angle gives libm's cosine of it in radians, as before. */
static inline double rules_cos_half_fov(double fov) {
    double h = fmod(fabs(fov * 0.5), 360.0);
    if (h > 180) h = 360 - h;
    if (h == 0) return 1;
    if (h == 60) return 0.5;
    if (h == 90) return 0;
    if (h == 120) return -0.5;
    if (h == 180) return -1;
    return cos(h * (M_PI / 180.0));
}
_Static_assert(BOIDS_MAX_OBSTACLES <= 64, "rules_block's mask of near obstacles");
#endif

#define R RULES_REAL

/* A vector member a[RULES_DIM] with its components also named x, y (and z in the box). */
#if RULES_DIM == 2
#define RULES_VEC(a, x, y, z)                                                                      \
    union {                                                                                        \
        R a[2];                                                                                    \
        struct {                                                                                   \
            R x, y;                                                                                \
        };                                                                                         \
    }
#else
#define RULES_VEC(a, x, y, z)                                                                      \
    union {                                                                                        \
        R a[3];                                                                                    \
        struct {                                                                                   \
            R x, y, z;                                                                             \
        };                                                                                         \
    }
#endif

/* Sums over the neighbours of one boid. */
typedef struct RULES_FN(rules_acc) {
    long n;                       /* neighbours seen */
    RULES_VEC(mv, mvx, mvy, mvz); /* sum of neighbour velocities (alignment target) */
    RULES_VEC(off, cx, cy, cz);   /* sum of offsets to neighbours (cohesion target) */
    RULES_VEC(sep, sx, sy, sz);   /* sum of -d / |d|^2 over close neighbours (separation) */
    int separated;                /* at least one neighbour with 0 < |d|^2 < separation_radius^2 */
} RULES_FN(rules_acc);

/* An interaction point that is on: position, radius squared, weight. */
typedef struct RULES_FN(rules_point) {
    RULES_VEC(at, x, y, z);
    R r2, w;
} RULES_FN(rules_point);

/* An obstacle in R. Round (a circle in the plane, a sphere in the box): centre a = b = m,
 * radius r, r2 = r * r. Segment (the plane only): ends a and b, midpoint m, r = r2 = 0.
 * bound: the distance from m within which the obstacle lies (the radius, or half the
 * length), enlarged for rounding (rules_near). Under wrap the obstacle is moved by whole
 * world periods so that m lies in the world (rules_k_set_interact). */
typedef struct RULES_FN(rules_obst) {
    int round;
    RULES_VEC(a, x0, y0, z0);
    RULES_VEC(b, x1, y1, z1);
    RULES_VEC(m, mx, my, mz);
    R r, r2, bound;
} RULES_FN(rules_obst);

/* The interaction table in R: the points that are on (the predators, then the attractors,
 * each in index order) and the obstacles, in table order. */
typedef struct RULES_FN(rules_table) {
    int npred, nattr, nobst;
    RULES_FN(rules_point) pts[2 * BOIDS_MAX_POINTS];
    RULES_FN(rules_obst) obst[BOIDS_MAX_OBSTACLES];
} RULES_FN(rules_table);

/* Per-step constants derived from the parameters (in R so that every path compares in
 * its own precision). */
typedef struct RULES_FN(rules_k) {
    RULES_VEC(side, width, height, depth);
    RULES_VEC(half, half_w, half_h, half_d);
    R vision2, sep2;
    int full_fov; /* fov >= 360: no angle test */
    R cos_half_fov;
    R max_speed, min_speed, max_force, dt;
    R w_sep, w_align, w_coh;
    int wrap, walls; /* boundary: wrap, walls, or neither (open) */
    R wall_margin, w_wall;
    int predator;
    RULES_VEC(pred_at, pred_x, pred_y, pred_z);
    R pred_r2, w_pred;
    int food;
    RULES_VEC(food_at, food_x, food_y, food_z);
    R food_r2, w_food;
    R avoid_dist, w_avoid, clear; /* look-ahead, its weight, clearance (separation_radius) */
    R reach_pad;                  /* the look-ahead and its clearance, 1/256 larger (rules_near) */
    /* The Vicsek model's menu (vicsek_update), each off by default: vectorial noise, nematic
     * alignment, the chiral turn by the angle whose cosine and sine are chi_cos, chi_sin
     * (about +z in the box), the external field fld (strength times unit direction). */
    int vec_noise, nematic, chiral, fld;
    R chi_cos, chi_sin;
    RULES_VEC(fld_at, fld_x, fld_y, fld_z);
    /* Species (rules_k_species; docs/model.md, "Species"). A constant set is one species'
     * (its own speeds, radii, weights and noise in the fields above, and speed, noise here):
     * the number of species (1: none, and nothing below is read), the ids' bounds (species s
     * >= 1 holds the ids below sp_end[s] from sp_end[s - 1], sp_end[0] = 0; species 0 the
     * rest), this species' coupling row, its rules towards each species, and reach2, the
     * largest squared distance it acts at (its vision or a rule's radius). */
    R speed, noise;
    int species;
    uint64_t sp_end[BOIDS_MAX_SPECIES];
    R coup[BOIDS_MAX_SPECIES];
    int rule[BOIDS_MAX_SPECIES];
    R rule_r2[BOIDS_MAX_SPECIES], rule_w[BOIDS_MAX_SPECIES];
    R reach2;
    /* The interaction table (rules_k_set_interact), NULL when it holds nothing. */
    const RULES_FN(rules_table) * tab;
} RULES_FN(rules_k);

/* rules_k's Vicsek menu from the parameters. The field's direction is normalised in double
 * (scaled by its largest component first, so that no square overflows) over the axes of the
 * run's dimension p->dim, not of this instance's, so that the box's instance, which the GPU
 * takes its constants from, holds the plane's field in a planar run. */
static inline void RULES_FN(rules_k_menu)(RULES_FN(rules_k) * k, const boids_params *p) {
    k->vec_noise = p->noise_type == BOIDS_NOISE_VECTORIAL;
    k->nematic = p->alignment == BOIDS_ALIGNMENT_NEMATIC;
    k->chiral = p->chirality != 0;
    k->chi_cos = (R)cos(p->chirality);
    k->chi_sin = (R)sin(p->chirality);
    double e[3] = {p->field_x, p->field_y, p->dim == 3 ? p->field_z : 0}, big = 0, len = 0;
    for (int c = 0; c < 3; c++) big = fabs(e[c]) > big ? fabs(e[c]) : big;
    for (int c = 0; c < 3; c++) e[c] = big > 0 ? e[c] / big : 0;
    for (int c = 0; c < 3; c++) len += e[c] * e[c];
    k->fld = p->field > 0 && big > 0;
    for (int c = 0; c < RULES_DIM; c++)
        k->fld_at[c] = k->fld ? (R)(p->field * e[c] / sqrt(len)) : 0;
}

static inline void RULES_FN(rules_k_init)(RULES_FN(rules_k) * k, const boids_params *p) {
    const double side[3] = {p->width, p->height, p->depth};
    const double pred[3] = {p->predator_x, p->predator_y, p->predator_z};
    const double food[3] = {p->food_x, p->food_y, p->food_z};
    for (int c = 0; c < RULES_DIM; c++) {
        k->side[c] = (R)side[c];
        k->half[c] = k->side[c] / 2;
        k->pred_at[c] = (R)pred[c];
        k->food_at[c] = (R)food[c];
    }
    k->vision2 = (R)p->vision_radius * (R)p->vision_radius;
    k->sep2 = (R)p->separation_radius * (R)p->separation_radius;
    k->full_fov = p->fov >= 360.0;
    k->cos_half_fov = (R)rules_cos_half_fov(p->fov);
    k->max_speed = (R)p->max_speed;
    k->min_speed = (R)p->min_speed;
    k->max_force = (R)p->max_force;
    k->dt = (R)p->dt;
    k->w_sep = (R)p->separation_weight;
    k->w_align = (R)p->alignment_weight;
    k->w_coh = (R)p->cohesion_weight;
    k->wrap = p->boundary == BOIDS_BOUNDARY_WRAP;
    k->walls = p->boundary == BOIDS_BOUNDARY_WALLS;
    k->wall_margin = (R)p->wall_margin;
    k->w_wall = (R)p->wall_weight;
    k->predator = p->predator != 0;
    k->pred_r2 = (R)p->predator_radius * (R)p->predator_radius;
    k->w_pred = (R)p->predator_weight;
    k->food = p->food != 0;
    k->food_r2 = (R)p->food_radius * (R)p->food_radius;
    k->w_food = (R)p->food_weight;
    k->avoid_dist = (R)p->avoid_distance;
    k->w_avoid = (R)p->avoid_weight;
    k->clear = (R)p->separation_radius;
    k->reach_pad = (R)((p->avoid_distance + p->separation_radius) * (1 + 1.0 / 256));
    k->tab = NULL;
    RULES_FN(rules_k_menu)(k, p);
    k->speed = (R)p->speed;
    k->noise = (R)p->noise;
    k->species = 1;
    for (int s = 0; s < BOIDS_MAX_SPECIES; s++) {
        k->sp_end[s] = 0;
        k->coup[s] = 1;
        k->rule[s] = BOIDS_RULE_NONE;
        k->rule_r2[s] = k->rule_w[s] = 0;
    }
    k->reach2 = k->vision2;
}

/* The constant sets of every species of p into ks[0 .. species - 1] (species s's parameters,
 * boids_params_of_species, with its coupling row and rules), each using the interaction table
 * of k (rules_k_set_interact), the constants of species 0 otherwise made as rules_k_init's. */
static inline void RULES_FN(rules_k_species)(RULES_FN(rules_k) ks[BOIDS_MAX_SPECIES],
                                             const RULES_FN(rules_k) * k, const boids_params *p) {
    const int n = p->species < 1                   ? 1
                  : p->species > BOIDS_MAX_SPECIES ? BOIDS_MAX_SPECIES
                                                   : (int)p->species;
    uint64_t end[BOIDS_MAX_SPECIES] = {0};
    for (int s = 1; s < n; s++)
        end[s] = end[s - 1] + (p->sp[s - 1].count > 0 ? (uint64_t)p->sp[s - 1].count : 0);
    for (int s = 0; s < n; s++) {
        const boids_params q = boids_params_of_species(p, s);
        RULES_FN(rules_k) *o = &ks[s];
        RULES_FN(rules_k_init)(o, &q);
        o->tab = k->tab;
        o->species = n;
        for (int j = 0; j < BOIDS_MAX_SPECIES; j++) {
            o->sp_end[j] = end[j];
            o->coup[j] = (R)p->coupling[s][j];
            const int on = j < n && p->model == BOIDS_MODEL_REYNOLDS;
            o->rule[j] = on ? p->rule[s][j] : BOIDS_RULE_NONE;
            o->rule_r2[j] = (R)p->rule_radius[s][j] * (R)p->rule_radius[s][j];
            o->rule_w[j] = (R)p->rule_weight[s][j];
            if (o->rule[j] != BOIDS_RULE_NONE && o->rule_r2[j] > o->reach2)
                o->reach2 = o->rule_r2[j];
        }
    }
}

/* The species of boid `id` (rules_k_species' bounds; 0 without species). */
static inline int RULES_FN(rules_species_of)(const RULES_FN(rules_k) * k, uint64_t id) {
    for (int s = 1; s < k->species; s++)
        if (id < k->sp_end[s]) return s;
    return 0;
}

/* ---- vectors ------------------------------------------------------------------------- */

/* a . b, summed over the axes in order. */
static inline R RULES_FN(rules_dot)(const R a[RULES_DIM], const R b[RULES_DIM]) {
    R s = a[0] * b[0];
    for (int c = 1; c < RULES_DIM; c++) s += a[c] * b[c];
    return s;
}

static inline void RULES_FN(rules_copy)(R to[RULES_DIM], const R from[RULES_DIM]) {
    for (int c = 0; c < RULES_DIM; c++) to[c] = from[c];
}

/* Shortest periodic image of a difference (seed 000's envolver). */
static inline R RULES_FN(rules_wrap)(R d, R side, R half) {
    if (d > half) return d - side;
    if (d < -half) return d + side;
    return d;
}

/* Offset d from a to b under the boundary (the shortest image per axis under wrap). */
static inline void RULES_FN(rules_offset)(const RULES_FN(rules_k) * k, const R a[RULES_DIM],
                                          const R b[RULES_DIM], R d[RULES_DIM]) {
    for (int c = 0; c < RULES_DIM; c++) d[c] = b[c] - a[c];
    if (k->wrap)
        for (int c = 0; c < RULES_DIM; c++)
            d[c] = RULES_FN(rules_wrap)(d[c], k->side[c], k->half[c]);
}

/* Is a boid at offset d, |d|^2 = d2, within fov/2 of the velocity v? A boid that does not
 * move, or a neighbour at the same point, sees all around. */
static inline int RULES_FN(rules_in_fov)(const RULES_FN(rules_k) * k, const R d[RULES_DIM], R d2,
                                         const R v[RULES_DIM]) {
    if (k->full_fov) return 1;
    R dot = RULES_FN(rules_dot)(v, d);
    R vv = RULES_FN(rules_dot)(v, v);
    if (vv == 0 || d2 == 0) return 1;
    return dot >= k->cos_half_fov * (R)sqrt(vv * d2);
}

/* Is a boid at offset d, |d|^2 = d2, a (metric) neighbour of a boid with velocity v? Inside
 * the vision radius and within the field of view. */
static inline int RULES_FN(rules_sees)(const RULES_FN(rules_k) * k, const R d[RULES_DIM], R d2,
                                       const R v[RULES_DIM]) {
    return d2 < k->vision2 && RULES_FN(rules_in_fov)(k, d, d2, v);
}

static inline void RULES_FN(rules_acc_init)(RULES_FN(rules_acc) * a) {
    a->n = 0;
    for (int c = 0; c < RULES_DIM; c++) a->mv[c] = a->off[c] = a->sep[c] = 0;
    a->separated = 0;
}

/* Adds one neighbour (already accepted by rules_sees) at offset d, |d|^2 = d2, with
 * velocity v2. */
static inline void RULES_FN(rules_acc_add)(const RULES_FN(rules_k) * k, RULES_FN(rules_acc) * a,
                                           const R d[RULES_DIM], R d2, const R v2[RULES_DIM]) {
    a->n += 1;
    for (int c = 0; c < RULES_DIM; c++) a->mv[c] += v2[c];
    for (int c = 0; c < RULES_DIM; c++) a->off[c] += d[c];
    if (0 < d2 && d2 < k->sep2) {
        for (int c = 0; c < RULES_DIM; c++) a->sep[c] -= d[c] / d2; /* the closer, the stronger */
        a->separated = 1;
    }
}

/* Steering force f from velocity v to full speed along d, capped at max_force; a zero
 * target gives zero force (seed 000's dirigir). */
static inline void RULES_FN(rules_steer)(const RULES_FN(rules_k) * k, const R d[RULES_DIM],
                                         const R v[RULES_DIM], R f[RULES_DIM]) {
    R m = (R)sqrt(RULES_FN(rules_dot)(d, d));
    if (m == 0) {
        for (int c = 0; c < RULES_DIM; c++) f[c] = 0;
        return;
    }
    R g[RULES_DIM];
    for (int c = 0; c < RULES_DIM; c++) g[c] = d[c] / m * k->max_speed - v[c];
    R n = (R)sqrt(RULES_FN(rules_dot)(g, g));
    if (n > k->max_force)
        for (int c = 0; c < RULES_DIM; c++) g[c] = g[c] / n * k->max_force;
    RULES_FN(rules_copy)(f, g);
}

/* a += w * steer(d), the accumulation step of rules_accel. */
static inline void RULES_FN(rules_add_steer)(const RULES_FN(rules_k) * k, R w, const R d[RULES_DIM],
                                             const R v[RULES_DIM], R a[RULES_DIM]) {
    R f[RULES_DIM];
    RULES_FN(rules_steer)(k, d, v, f);
    for (int c = 0; c < RULES_DIM; c++) a[c] += w * f[c];
}

/* ---- obstacles: shared geometry in R (README, "Interaction points and obstacles") ------ */

/* Can obstacle o act on a boid at p that reaches `reach` beyond it (reach including
 * rules_slack of the boid)? A cheap test that never says no wrongly: every decision below
 * concerns points within half a length (or a radius) of the midpoint; o->bound adds 1/256 of
 * that and, with rules_slack, 2^-16 of the magnitudes of the coordinates and the world, far
 * above the rounding of an offset (2^-24 of them in float). */
static inline int RULES_FN(rules_near)(const RULES_FN(rules_k) * k, const RULES_FN(rules_obst) * o,
                                       const R p[RULES_DIM], R reach) {
    R d[RULES_DIM];
    RULES_FN(rules_offset)(k, p, o->m, d);
    R rr = o->bound + reach;
    return RULES_FN(rules_dot)(d, d) < rr * rr;
}

/* The boid's part of rules_near's slack: 2^-16 of its coordinates' magnitudes. */
static inline R RULES_FN(rules_slack)(const R p[RULES_DIM]) {
    R s = (R)fabs(p[0]);
    for (int c = 1; c < RULES_DIM; c++) s += (R)fabs(p[c]);
    return s * ((R)1 / 65536);
}

/* Is p strictly inside the round obstacle o (its rim or surface is outside)? */
static inline int RULES_FN(rules_in_round)(const RULES_FN(rules_k) * k,
                                           const RULES_FN(rules_obst) * o, const R p[RULES_DIM]) {
    R d[RULES_DIM];
    RULES_FN(rules_offset)(k, p, o->a, d);
    return RULES_FN(rules_dot)(d, d) < o->r2;
}

/* Parameter in [0, 1] of the point of the segment from the origin to e closest to q (0 when
 * e is the origin). */
static inline R RULES_FN(rules_seg_t0)(const R q[RULES_DIM], const R e[RULES_DIM]) {
    R l2 = RULES_FN(rules_dot)(e, e);
    if (l2 == 0) return 0;
    R t = RULES_FN(rules_dot)(q, e) / l2;
    return t < 0 ? 0 : t > 1 ? 1 : t;
}

/* Look-ahead avoidance of the round obstacle o by a boid at p whose look-ahead ends at e
 * from it: 1 and the direction w to steer along, from the look-ahead's point closest to the
 * centre away from the centre (sideways round it), if that point is closer than the radius
 * plus the clearance, else 0; a look-ahead through the centre steers straight away from it. */
static inline int RULES_FN(rules_avoid_round)(const RULES_FN(rules_k) * k,
                                              const RULES_FN(rules_obst) * o, const R p[RULES_DIM],
                                              const R e[RULES_DIM], R w[RULES_DIM]) {
    R d[RULES_DIM];
    RULES_FN(rules_offset)(k, p, o->a, d);
    R t = RULES_FN(rules_seg_t0)(d, e);
    int zero = 1;
    for (int c = 0; c < RULES_DIM; c++) w[c] = e[c] * t - d[c], zero &= w[c] == 0;
    R rc = o->r + k->clear;
    if (!(RULES_FN(rules_dot)(w, w) < rc * rc)) return 0;
    if (zero)
        for (int c = 0; c < RULES_DIM; c++) w[c] = -d[c];
    return 1;
}

/* ---- The plane and the box: what differs by dimension --------------------------------
 * rules_obst_shape   which obstacles a dimension has: circles and segments, or spheres;
 * rules_avoid_dir    look-ahead avoidance: round (above), or of a segment;
 * rules_hit          does a move enter an obstacle;
 * rules_normal       the normal a blocked boid's velocity mirrors about;
 * vicsek_direction   the Vicsek model's new direction: an angle, or within a cone.
 * ------------------------------------------------------------------------------------- */

/* The Vicsek model (seed 003): the new heading is the circular mean of the headings of every
 * agent within R (distance <= R, itself included) or of itself and its k nearest, with
 * noise; positions advance with the old velocity; the new heading gives the next velocity
 * at the constant speed v0. A vector sum shorter than n * RULES_VICSEK_TOL (n unit vectors
 * summed, each carrying a rounding error of about one unit in the last place) has no
 * defined direction and keeps the previous heading. */
#define RULES_VICSEK_TOL (sizeof(R) == sizeof(float) ? (R)1e-5 : (R)1e-12)

#if RULES_DIM == 2

/* 1 for a circle, 0 for a segment (the plane's obstacles; -1 would skip one), with half the
 * distance within which it lies about its midpoint: the radius, or half the length. */
static inline int RULES_FN(rules_obst_shape)(const boids_obstacle *b, double *half) {
    if (b->kind == BOIDS_OBSTACLE_CIRCLE) {
        *half = b->radius;
        return 1;
    }
    *half = 0.5 * hypot(b->x1 - b->x0, b->y1 - b->y0);
    return 0;
}

/* The ends of segment o relative to a boid at (x, y): under wrap, of the image whose
 * midpoint is nearest (the decision rules_offset takes for the midpoint). */
static inline void RULES_FN(rules_seg_rel)(const RULES_FN(rules_k) * k,
                                           const RULES_FN(rules_obst) * o, R x, R y, R *ax, R *ay,
                                           R *bx, R *by) {
    R sx = 0, sy = 0;
    if (k->wrap) {
        R mx = o->mx - x, my = o->my - y;
        if (mx > k->half_w)
            sx = -k->width;
        else if (mx < -k->half_w)
            sx = k->width;
        if (my > k->half_h)
            sy = -k->height;
        else if (my < -k->half_h)
            sy = k->height;
    }
    *ax = o->x0 - x + sx;
    *ay = o->y0 - y + sy;
    *bx = o->x1 - x + sx;
    *by = o->y1 - y + sy;
}

/* Parameter in [0, 1] of the point of segment a + t ab closest to p (0 for a point). */
static inline R RULES_FN(rules_seg_t)(R px, R py, R ax, R ay, R abx, R aby) {
    R l2 = abx * abx + aby * aby;
    if (l2 == 0) return 0;
    R t = ((px - ax) * abx + (py - ay) * aby) / l2;
    return t < 0 ? 0 : t > 1 ? 1 : t;
}

/* Is (px, py) within the box spanned by a and b (edges included)? */
static inline int RULES_FN(rules_in_box)(R px, R py, R ax, R ay, R bx, R by) {
    int in_x = ax <= bx ? ax <= px && px <= bx : bx <= px && px <= ax;
    int in_y = ay <= by ? ay <= py && py <= by : by <= py && py <= ay;
    return in_x && in_y;
}

/* Do the segments from the origin to m and from a to b touch (an end on the other segment
 * counts)? Orientation signs only: products and differences, no division, so that the
 * shaders decide exactly as C does in float. */
static inline int RULES_FN(rules_touch)(R mx, R my, R ax, R ay, R bx, R by) {
    R abx = bx - ax, aby = by - ay;
    R d1 = aby * ax - abx * ay;               /* side of the origin of line ab */
    R d2 = abx * (my - ay) - aby * (mx - ax); /* side of m */
    R d3 = mx * ay - my * ax;                 /* side of a of the move's line */
    R d4 = mx * by - my * bx;                 /* side of b */
    if (((d1 > 0 && d2 < 0) || (d1 < 0 && d2 > 0)) && ((d3 > 0 && d4 < 0) || (d3 < 0 && d4 > 0)))
        return 1;
    return (d1 == 0 && RULES_FN(rules_in_box)(0, 0, ax, ay, bx, by)) ||
           (d2 == 0 && RULES_FN(rules_in_box)(mx, my, ax, ay, bx, by)) ||
           (d3 == 0 && RULES_FN(rules_in_box)(ax, ay, 0, 0, mx, my)) ||
           (d4 == 0 && RULES_FN(rules_in_box)(bx, by, 0, 0, mx, my));
}

/* The normal of the line through a and b (relative to the boid) on the boid's side; the
 * left one (of a -> b) for a boid on the line. */
static inline void RULES_FN(rules_seg_normal)(R ax, R ay, R bx, R by, R *nx, R *ny) {
    R abx = bx - ax, aby = by - ay;
    int right = aby * ax - abx * ay < 0;
    *nx = right ? aby : -aby;
    *ny = right ? -abx : abx;
}

/* Look-ahead avoidance of obstacle o by a boid at p whose look-ahead ends at e from it: 1
 * and the direction w to steer along if the look-ahead touches o or comes closer than the
 * clearance to it, else 0. A circle: rules_avoid_round. A segment: the direction goes from
 * its point closest to the look-ahead to the look-ahead's point closest to it (away from a
 * wall); one the look-ahead touches, along the segment's normal on the boid's side. */
static inline int RULES_FN(rules_avoid_dir)(const RULES_FN(rules_k) * k,
                                            const RULES_FN(rules_obst) * o, const R p[2],
                                            const R e[2], R w[2]) {
    if (o->round) return RULES_FN(rules_avoid_round)(k, o, p, e, w);
    const R ex = e[0], ey = e[1];
    R ax, ay, bx, by;
    RULES_FN(rules_seg_rel)(k, o, p[0], p[1], &ax, &ay, &bx, &by);
    if (RULES_FN(rules_touch)(ex, ey, ax, ay, bx, by)) {
        RULES_FN(rules_seg_normal)(ax, ay, bx, by, &w[0], &w[1]);
        return 1;
    }
    /* Apart, the closest pair has an end of one segment: the four end-to-segment pairs. */
    R abx = bx - ax, aby = by - ay, t, wx, wy, w2, best = 0, bwx = 0, bwy = 0;
    for (int c = 0; c < 4; c++) {
        if (c < 2) { /* the boid's end c (the origin, then e) to o */
            R px = c ? ex : 0, py = c ? ey : 0;
            t = RULES_FN(rules_seg_t)(px, py, ax, ay, abx, aby);
            wx = px - (ax + abx * t);
            wy = py - (ay + aby * t);
        } else { /* o's end a, then b, to the look-ahead */
            R qx = c == 2 ? ax : bx, qy = c == 2 ? ay : by;
            t = RULES_FN(rules_seg_t)(qx, qy, 0, 0, ex, ey);
            wx = ex * t - qx;
            wy = ey * t - qy;
        }
        w2 = wx * wx + wy * wy;
        if (c == 0 || w2 < best) best = w2, bwx = wx, bwy = wy;
    }
    w[0] = bwx;
    w[1] = bwy;
    return best < k->clear * k->clear;
}

/* Does the move m from p to n (the boundary applied) enter obstacle o: end inside a circle
 * (exactly rules_in_round of the end) or pass within its radius of the centre (the closest
 * point by rules_seg_t0, which divides), or touch a segment? A boid on a segment (placed
 * there) may leave it: a move from it to a point off its line meets the line at the start
 * only. */
static inline int RULES_FN(rules_hit)(const RULES_FN(rules_k) * k, const RULES_FN(rules_obst) * o,
                                      const R p[2], const R n[2], const R m[2]) {
    R a[2], c[2], ax, ay, bx, by;
    const R mx = m[0], my = m[1];
    if (o->round) {
        if (RULES_FN(rules_in_round)(k, o, n)) return 1;
        RULES_FN(rules_offset)(k, p, o->a, a);
        R t = RULES_FN(rules_seg_t0)(a, m);
        for (int i = 0; i < 2; i++) c[i] = m[i] * t - a[i];
        return RULES_FN(rules_dot)(c, c) < o->r2;
    }
    RULES_FN(rules_seg_rel)(k, o, p[0], p[1], &ax, &ay, &bx, &by);
    if (!RULES_FN(rules_touch)(mx, my, ax, ay, bx, by)) return 0;
    R abx = bx - ax, aby = by - ay;
    int on = aby * ax - abx * ay == 0 && RULES_FN(rules_in_box)(0, 0, ax, ay, bx, by);
    return !on || abx * (my - ay) - aby * (mx - ax) == 0;
}

/* The normal of obstacle o at a boid at p: a circle's radial through p, a segment's normal
 * on the boid's side (rules_seg_normal). */
static inline void RULES_FN(rules_normal)(const RULES_FN(rules_k) * k,
                                          const RULES_FN(rules_obst) * o, const R p[2], R nrm[2]) {
    if (o->round) {
        RULES_FN(rules_offset)(k, o->a, p, nrm);
        return;
    }
    R ax, ay, bx, by;
    RULES_FN(rules_seg_rel)(k, o, p[0], p[1], &ax, &ay, &bx, &by);
    RULES_FN(rules_seg_normal)(ax, ay, bx, by, &nrm[0], &nrm[1]);
}

/* The vectorial noise's random unit vector xi in the plane: at the angle 2 pi u1 (u2
 * unused), uniform on the circle. */
static inline void RULES_FN(vicsek_xi)(R u1, R u2, R xi[2]) {
    (void)u2;
    R phi = (R)(2 * M_PI) * u1;
    xi[0] = (R)cos(phi);
    xi[1] = (R)sin(phi);
}

/* The Vicsek heading in the plane: the angle of the heading sum s of n unit vectors (the
 * previous heading, of v, for a sum below n * RULES_VICSEK_TOL) plus noise uniform in
 * [-eta/2, eta/2] from the variate u1 in [0, 1) (u2 unused), mirrored with the velocity on
 * the axes a wall reflected (flip), as the unit vector d. */
static inline void RULES_FN(vicsek_direction)(const R s[2], long n, const R v[2], R u1, R u2,
                                              R noise, const int flip[2], R d[2]) {
    (void)u2;
    R heading;
    if ((R)sqrt(RULES_FN(rules_dot)(s, s)) <= (R)n * RULES_VICSEK_TOL)
        heading = (R)atan2(v[1], v[0]); /* zero sum: keep the previous heading */
    else
        heading = (R)atan2(s[1], s[0]);
    heading += noise * (u1 - (R)0.5);
    if (flip[0]) heading = (R)M_PI - heading; /* the heading mirrors with the velocity */
    if (flip[1]) heading = -heading;
    d[0] = (R)cos(heading);
    d[1] = (R)sin(heading);
}

#else /* RULES_DIM == 3 */

/* 1 for a sphere, the box's one obstacle, with its radius in half; -1 skips the planar
 * circles and segments (a 3-D run refuses them: boids_interact_check_dim). */
static inline int RULES_FN(rules_obst_shape)(const boids_obstacle *b, double *half) {
    if (b->kind != BOIDS_OBSTACLE_SPHERE) return -1;
    *half = b->radius;
    return 1;
}

/* Look-ahead avoidance of sphere o: rules_avoid_round. */
static inline int RULES_FN(rules_avoid_dir)(const RULES_FN(rules_k) * k,
                                            const RULES_FN(rules_obst) * o, const R p[3],
                                            const R e[3], R w[3]) {
    return RULES_FN(rules_avoid_round)(k, o, p, e, w);
}

/* Does the move m from a boid at p to n (the boundary applied) enter sphere o: end inside it
 * (rules_in_round of n) or pass within its radius of the centre? With a the offset from p to
 * the centre, the segment from the origin to m comes closest to a strictly between its ends
 * when 0 < a.m < m.m, at squared distance |a|^2 - (a.m)^2 / m.m, which is below r^2 exactly
 * when (|a|^2 - r^2) m.m < (a.m)^2; at its ends it is nearest the start (outside: a boid
 * inside is expelled instead) or the end (the first test). Products, sums and comparisons,
 * without the plane's division, so that the shaders decide it as C does. */
static inline int RULES_FN(rules_hit)(const RULES_FN(rules_k) * k, const RULES_FN(rules_obst) * o,
                                      const R p[3], const R n[3], const R m[3]) {
    if (RULES_FN(rules_in_round)(k, o, n)) return 1;
    R a[3];
    RULES_FN(rules_offset)(k, p, o->a, a);
    R am = RULES_FN(rules_dot)(a, m);
    R mm = RULES_FN(rules_dot)(m, m);
    if (!(0 < am && am < mm)) return 0;
    return (RULES_FN(rules_dot)(a, a) - o->r2) * mm < am * am;
}

/* The normal of sphere o at a boid at p: the radial through p. */
static inline void RULES_FN(rules_normal)(const RULES_FN(rules_k) * k,
                                          const RULES_FN(rules_obst) * o, const R p[3], R nrm[3]) {
    RULES_FN(rules_offset)(k, o->a, p, nrm);
}

/* Two unit vectors t1, t2 completing the unit vector e to an orthonormal basis, continuous
 * except across ez = 0 and defined for every unit e (Duff et al. 2017, "Building an
 * orthonormal basis, revisited", JCGT 6(1)). */
static inline void RULES_FN(vicsek3_basis)(const R e[3], R t1[3], R t2[3]) {
    R sign = e[2] >= 0 ? (R)1 : (R)-1;
    R a = (R)-1 / (sign + e[2]);
    R b = e[0] * e[1] * a;
    t1[0] = 1 + sign * e[0] * e[0] * a;
    t1[1] = sign * b;
    t1[2] = -sign * e[0];
    t2[0] = b;
    t2[1] = sign + e[1] * e[1] * a;
    t2[2] = -e[1];
}

/* The vectorial noise's random unit vector xi in the box: z = 1 - 2 u1 and the azimuth
 * 2 pi u2, uniform on the sphere (Archimedes' hat-box theorem, as the noise cone below). */
static inline void RULES_FN(vicsek_xi)(R u1, R u2, R xi[3]) {
    R z = 1 - 2 * u1;
    R r = (R)sqrt(z * z < 1 ? 1 - z * z : 0);
    R phi = (R)(2 * M_PI) * u2;
    xi[0] = r * (R)cos(phi);
    xi[1] = r * (R)sin(phi);
    xi[2] = z;
}

/* The Vicsek direction in the box: the normalised heading sum s of n unit vectors (the
 * previous direction, v / |v|, for a sum below n * RULES_VICSEK_TOL; +x for an agent at rest
 * as atan2(0, 0) = 0 gives in the plane), turned by theta with cos(theta) = 1 - u1 (1 -
 * cos(eta / 2)) about it at azimuth phi = 2 pi u2, normalised, and with its component along
 * each axis a wall reflected (flip) mirrored, as the plane mirrors the heading.
 *
 * cos(theta) is uniform in [cos(eta / 2), 1], which is uniform over the cone's spherical cap
 * (Archimedes' hat-box theorem), and phi uniform in [0, 2 pi), from two counter-based
 * variates (boids_noise_u and boids_noise_u2). eta = 2 pi is uniform on the sphere, and
 * eta = 0 keeps the mean direction exactly. Vicsek et al. 1995 define the model in the
 * plane; the noise as a uniform rotation within a cone about the mean direction is the
 * three-dimensional angular noise of Chate, Ginelli, Gregoire and Raynaud 2008 (Phys. Rev. E
 * 77, 046113); its parametrisation by the half-angle eta / 2, which makes the angle from the
 * mean direction at most eta / 2 as in the plane, is this project's. */
static inline void RULES_FN(vicsek_direction)(const R s[3], long n, const R v[3], R u1, R u2,
                                              R noise, const int flip[3], R d[3]) {
    R m = (R)sqrt(RULES_FN(rules_dot)(s, s));
    const R *src = s;
    if (m <= (R)n * RULES_VICSEK_TOL) {
        m = (R)sqrt(RULES_FN(rules_dot)(v, v));
        src = v;
    }
    if (m == 0) {
        d[0] = 1;
        d[1] = d[2] = 0;
    } else {
        for (int c = 0; c < 3; c++) d[c] = src[c] / m;
    }
    if (noise != 0) { /* else no turn: the mean direction exactly */
        R ct = 1 - u1 * (1 - (R)cos(noise / 2));
        R st = (R)sqrt(ct * ct < 1 ? 1 - ct * ct : 0);
        R phi = (R)(2 * M_PI) * u2, t1[3], t2[3];
        R cp = (R)cos(phi), sp = (R)sin(phi);
        RULES_FN(vicsek3_basis)(d, t1, t2);
        R e[3];
        for (int c = 0; c < 3; c++) e[c] = ct * d[c] + st * (cp * t1[c] + sp * t2[c]);
        R len = (R)sqrt(RULES_FN(rules_dot)(e, e));
        for (int c = 0; c < 3; c++) d[c] = e[c] / len;
    }
    for (int c = 0; c < 3; c++) d[c] = flip[c] ? -d[c] : d[c];
}

#endif /* the plane and the box */

/* ---- the interaction table ----------------------------------------------------------- */

/* Puts table t (NULL: none) into tab in R and makes k use it, or nothing (k->tab NULL) when
 * it has no point on and no obstacle: the points that are on (the predators, then the
 * attractors, each in index order) and the obstacles this dimension has (rules_obst_shape).
 * Under wrap each obstacle moves by whole world periods so that its midpoint lies in the
 * world: the rules pick, per boid, the image whose midpoint is nearest (rules_offset,
 * rules_seg_rel), the only one a step or the look-ahead can reach when
 * boids_interact_check_world holds. */
static inline void RULES_FN(rules_k_set_interact)(RULES_FN(rules_k) * k,
                                                  RULES_FN(rules_table) * tab,
                                                  const boids_interact *t) {
    k->tab = NULL;
    tab->npred = tab->nattr = tab->nobst = 0;
    if (!t) return;
    for (int i = 0; i < 2 * BOIDS_MAX_POINTS; i++) {
        const int pred = i < BOIDS_MAX_POINTS;
        const boids_point *q = pred ? &t->predators[i] : &t->attractors[i - BOIDS_MAX_POINTS];
        if (!q->on) continue;
        RULES_FN(rules_point) *o = &tab->pts[tab->npred + tab->nattr];
        const double at[3] = {q->x, q->y, q->z};
        for (int c = 0; c < RULES_DIM; c++) o->at[c] = (R)at[c];
        o->r2 = (R)q->radius * (R)q->radius;
        o->w = (R)q->weight;
        if (pred)
            tab->npred++;
        else
            tab->nattr++;
    }
    double side[RULES_DIM];
    for (int c = 0; c < RULES_DIM; c++) side[c] = (double)k->side[c];
    for (int i = 0; i < t->obstacle_count; i++) {
        const boids_obstacle *b = &t->obstacles[i];
        double half;
        const int is_round = RULES_FN(rules_obst_shape)(b, &half);
        if (is_round < 0) continue;
        const double a[3] = {b->x0, b->y0, b->z0}, e[3] = {b->x1, b->y1, 0};
        RULES_FN(rules_obst) *o = &tab->obst[tab->nobst++];
        double mag = 0;
        o->round = is_round;
        for (int c = 0; c < RULES_DIM; c++) {
            double mid = is_round ? a[c] : 0.5 * a[c] + 0.5 * e[c];
            double shift = k->wrap ? floor(mid / side[c]) * side[c] : 0;
            o->a[c] = (R)(a[c] - shift);
            o->b[c] = is_round ? o->a[c] : (R)(e[c] - shift);
            o->m[c] = (R)(mid - shift);
            mag = c ? mag + fabs(mid - shift) : fabs(mid - shift);
        }
        for (int c = 0; c < RULES_DIM; c++) mag += side[c];
        o->r = is_round ? (R)b->radius : 0;
        o->r2 = o->r * o->r;
        o->bound = (R)(half * (1 + 1.0 / 256) + mag / 65536); /* rules_near */
    }
    if (tab->npred + tab->nattr + tab->nobst) k->tab = tab;
}

/* The points of the table (flee each predator, seek each attractor within its radius, as
 * the parameters' predator and food), then look-ahead avoidance of every obstacle, adding
 * to a. */
static inline void RULES_FN(rules_interact)(const RULES_FN(rules_k) * k, const R p[RULES_DIM],
                                            const R v[RULES_DIM], R a[RULES_DIM]) {
    const RULES_FN(rules_table) *t = k->tab;
    R d[RULES_DIM];
    for (int i = 0; i < t->npred + t->nattr; i++) {
        const RULES_FN(rules_point) *q = &t->pts[i];
        if (i < t->npred)
            RULES_FN(rules_offset)(k, q->at, p, d);
        else
            RULES_FN(rules_offset)(k, p, q->at, d);
        if (RULES_FN(rules_dot)(d, d) < q->r2) RULES_FN(rules_add_steer)(k, q->w, d, v, a);
    }
    if (t->nobst == 0) return;
    R s = (R)sqrt(RULES_FN(rules_dot)(v, v));
    if (s == 0) return; /* a boid at rest looks nowhere */
    R e[RULES_DIM];
    for (int c = 0; c < RULES_DIM; c++) e[c] = v[c] / s * k->avoid_dist;
    R reach = k->reach_pad + RULES_FN(rules_slack)(p);
    for (int i = 0; i < t->nobst; i++) {
        if (!RULES_FN(rules_near)(k, &t->obst[i], p, reach) ||
            !RULES_FN(rules_avoid_dir)(k, &t->obst[i], p, e, d))
            continue;
        RULES_FN(rules_add_steer)(k, k->w_avoid, d, v, a);
    }
}

/* ---- one boid's step ----------------------------------------------------------------- */

/* Inward direction (-1, 0 or +1) along one axis within the wall margin of its two faces. */
static inline R RULES_FN(rules_wall_dir)(const RULES_FN(rules_k) * k, R x, R side) {
    R t = 0;
    if (x < k->wall_margin) t += 1;
    if (x > side - k->wall_margin) t -= 1;
    return t;
}

/* Acceleration a of a boid at p with velocity v from its neighbour sums s and the external
 * points (predator, food, walls), then the interaction table's points and obstacles. Rule
 * order and accumulation follow seed 000. */
static inline void RULES_FN(rules_accel)(const RULES_FN(rules_k) * k, const RULES_FN(rules_acc) * s,
                                         const R p[RULES_DIM], const R v[RULES_DIM],
                                         R a[RULES_DIM]) {
    R d[RULES_DIM];
    for (int c = 0; c < RULES_DIM; c++) a[c] = 0;
    if (s->separated) RULES_FN(rules_add_steer)(k, k->w_sep, s->sep, v, a);
    if (s->n) {
        RULES_FN(rules_add_steer)(k, k->w_align, s->mv, v, a);
        RULES_FN(rules_add_steer)(k, k->w_coh, s->off, v, a);
    }
    if (k->predator) { /* flee: steer along the offset from the predator to the boid */
        RULES_FN(rules_offset)(k, k->pred_at, p, d);
        if (RULES_FN(rules_dot)(d, d) < k->pred_r2)
            RULES_FN(rules_add_steer)(k, k->w_pred, d, v, a);
    }
    if (k->food) { /* seek: steer along the offset from the boid to the food */
        RULES_FN(rules_offset)(k, p, k->food_at, d);
        if (RULES_FN(rules_dot)(d, d) < k->food_r2)
            RULES_FN(rules_add_steer)(k, k->w_food, d, v, a);
    }
    if (k->walls) { /* steer inward within the margin of each edge or face */
        int any = 0;
        for (int c = 0; c < RULES_DIM; c++) {
            d[c] = RULES_FN(rules_wall_dir)(k, p[c], k->side[c]);
            any |= d[c] != 0;
        }
        if (any) RULES_FN(rules_add_steer)(k, k->w_wall, d, v, a);
    }
    if (k->tab) RULES_FN(rules_interact)(k, p, v, a);
}

/* The boundary along one axis of length side: wrap once into [0, side) (a step is validated
 * to be under half the world), or reflect off the walls (returning 1 so that the caller
 * mirrors the velocity), or nothing (open). */
static inline int RULES_FN(rules_axis)(const RULES_FN(rules_k) * k, R *x, R side) {
    if (k->wrap) {
        if (*x < 0)
            *x += side;
        else if (*x >= side)
            *x -= side;
    } else if (k->walls) {
        if (*x < 0) {
            *x = -*x;
            return 1;
        }
        if (*x > side) {
            *x = side - (*x - side);
            return 1;
        }
    }
    return 0;
}

/* Applies the boundary to a moved position p, per axis; flip[c] = 1 where a wall reflected
 * it. */
static inline void RULES_FN(rules_boundary)(const RULES_FN(rules_k) * k, R p[RULES_DIM],
                                            int flip[RULES_DIM]) {
    for (int c = 0; c < RULES_DIM; c++) flip[c] = RULES_FN(rules_axis)(k, &p[c], k->side[c]);
}

/* Mirrors v about the line (plane) of normal nrm when it heads against the normal. */
static inline void RULES_FN(rules_mirror)(const R nrm[RULES_DIM], R v[RULES_DIM]) {
    R dot = RULES_FN(rules_dot)(v, nrm), nn = RULES_FN(rules_dot)(nrm, nrm);
    if (!(dot < 0) || nn == 0) return;
    R q = 2 * dot / nn;
    for (int c = 0; c < RULES_DIM; c++) v[c] = v[c] - q * nrm[c];
}

/* The first round obstacle of the table that p is strictly inside, or -1. */
static inline int RULES_FN(rules_round_at)(const RULES_FN(rules_k) * k, const R p[RULES_DIM]) {
    const RULES_FN(rules_table) *t = k->tab;
    for (int i = 0; i < t->nobst; i++)
        if (t->obst[i].round && RULES_FN(rules_in_round)(k, &t->obst[i], p)) return i;
    return -1;
}

/* Moves a boid at p inside the round obstacle o out along the radial from the centre (along
 * +x from the centre itself) to 2^-18 of the radius beyond the rim, doubling that margin
 * until the point, after the world boundary, tests outside in R; 16 tries. Where that point
 * lies inside another round obstacle (overlapping ones), it goes on along the same ray to
 * that one's far rim (the ray's exit, t = sqrt(b^2 - c) - b from the offset e to its centre,
 * b = e.u, c = e.e - r^2, plus the same doubling margin of its radius), once for each it
 * still lands in: a ray leaves each once, so at most one round per obstacle of the table. A
 * point that stays inside after that (possible only with a wall in the way) is kept: the
 * next step expels it again. */
static inline void RULES_FN(rules_expel)(const RULES_FN(rules_k) * k,
                                         const RULES_FN(rules_obst) * o, R p[RULES_DIM]) {
    R d[RULES_DIM], q[RULES_DIM], u[RULES_DIM], g = (R)1 / 262144;
    int flip[RULES_DIM];
    RULES_FN(rules_copy)(q, p);
    RULES_FN(rules_offset)(k, o->a, p, d);
    R dl = (R)sqrt(RULES_FN(rules_dot)(d, d));
    if (dl == 0) {
        for (int c = 0; c < RULES_DIM; c++) d[c] = c == 0;
        dl = 1;
    }
    for (int t = 0; t < 16; t++, g *= 2) {
        R s = o->r / dl * (1 + g);
        for (int c = 0; c < RULES_DIM; c++) q[c] = o->a[c] + d[c] * s;
        RULES_FN(rules_boundary)(k, q, flip);
        if (!RULES_FN(rules_in_round)(k, o, q)) break;
    }
    for (int c = 0; c < RULES_DIM; c++) u[c] = d[c] / dl;
    for (int pass = 0, i; pass < k->tab->nobst && (i = RULES_FN(rules_round_at)(k, q)) >= 0;
         pass++) {
        const RULES_FN(rules_obst) *c = &k->tab->obst[i];
        R e[RULES_DIM], from[RULES_DIM];
        RULES_FN(rules_copy)(from, q);
        RULES_FN(rules_offset)(k, c->a, from, e);
        R b = RULES_FN(rules_dot)(e, u), cc = RULES_FN(rules_dot)(e, e) - c->r2;
        R leave = (R)sqrt(b * b - cc) - b;
        g = (R)1 / 262144;
        for (int t = 0; t < 16; t++, g *= 2) {
            R s = leave + c->r * g;
            for (int a = 0; a < RULES_DIM; a++) q[a] = from[a] + u[a] * s;
            RULES_FN(rules_boundary)(k, q, flip);
            if (!RULES_FN(rules_in_round)(k, c, q)) break;
        }
    }
    RULES_FN(rules_copy)(p, q);
}

/* The obstacles' hard rule for a boid moving from p to n (the world boundary applied) with
 * new velocity v: a boid inside a round obstacle (the first in table order) is expelled
 * (rules_expel) instead; a move that enters an obstacle (rules_hit; the first in table order
 * decides) does not happen: the boid stays at p and its velocity is mirrored about that
 * obstacle's normal at the boid (rules_mirror, rules_normal) so that the next step leads
 * away. */
static inline void RULES_FN(rules_block)(const RULES_FN(rules_k) * k, const R p[RULES_DIM],
                                         R n[RULES_DIM], R v[RULES_DIM]) {
    const RULES_FN(rules_table) *t = k->tab;
    R m[RULES_DIM], nrm[RULES_DIM];
    RULES_FN(rules_offset)(k, p, n, m);
    R reach = (R)fabs(m[0]);
    for (int c = 1; c < RULES_DIM; c++) reach += (R)fabs(m[c]);
    reach += RULES_FN(rules_slack)(p);
    uint64_t near = 0; /* the obstacles within reach, tested once */
    for (int i = 0; i < t->nobst; i++) {
        const RULES_FN(rules_obst) *o = &t->obst[i];
        if (!RULES_FN(rules_near)(k, o, p, reach)) continue;
        near |= (uint64_t)1 << i;
        if (o->round && RULES_FN(rules_in_round)(k, o, p)) {
            RULES_FN(rules_copy)(n, p);
            RULES_FN(rules_expel)(k, o, n);
            return;
        }
    }
    for (int i = 0; i < t->nobst && near >> i; i++) {
        const RULES_FN(rules_obst) *o = &t->obst[i];
        if (!(near >> i & 1) || !RULES_FN(rules_hit)(k, o, p, n, m)) continue;
        RULES_FN(rules_normal)(k, o, p, nrm);
        RULES_FN(rules_mirror)(nrm, v);
        RULES_FN(rules_copy)(n, p);
        return;
    }
}

/* Applies the acceleration a, clamps the speed to [min_speed, max_speed] (0 stays 0), moves
 * by v * dt and applies the boundary: wrap once (max_speed * dt is validated to be below
 * half the smallest world side), reflect off the walls, or nothing in the open; then the
 * obstacles' hard rule (rules_block). */
static inline void RULES_FN(rules_integrate)(const RULES_FN(rules_k) * k, const R a[RULES_DIM],
                                             R p[RULES_DIM], R v[RULES_DIM]) {
    R nv[RULES_DIM], np[RULES_DIM];
    for (int c = 0; c < RULES_DIM; c++) nv[c] = v[c] + a[c];
    R s = (R)sqrt(RULES_FN(rules_dot)(nv, nv));
    if (s > k->max_speed) {
        for (int c = 0; c < RULES_DIM; c++) nv[c] = nv[c] / s * k->max_speed;
    } else if (0 < s && s < k->min_speed) {
        for (int c = 0; c < RULES_DIM; c++) nv[c] = nv[c] / s * k->min_speed;
    }
    for (int c = 0; c < RULES_DIM; c++) np[c] = p[c] + nv[c] * k->dt;
    int flip[RULES_DIM];
    RULES_FN(rules_boundary)(k, np, flip);
    for (int c = 0; c < RULES_DIM; c++) nv[c] = flip[c] ? -nv[c] : nv[c];
    if (k->tab && k->tab->nobst) RULES_FN(rules_block)(k, p, np, nv);
    RULES_FN(rules_copy)(p, np);
    RULES_FN(rules_copy)(v, nv);
}

/* ---- the Vicsek model (see vicsek_direction) ----------------------------------------- */

/* Adds agent j's heading (its unit velocity v) to the sum s; a resting agent adds nothing. */
static inline void RULES_FN(vicsek_add)(const R v[RULES_DIM], R s[RULES_DIM]) {
    R m = (R)sqrt(RULES_FN(rules_dot)(v, v));
    if (m > 0)
        for (int c = 0; c < RULES_DIM; c++) s[c] += v[c] / m;
}

/* Adds agent j's unit heading u (vicsek_add's term) to agent i's sum s as i counts it: as
 * it is (polar alignment), or with nematic alignment negated where it points against i's
 * own unit heading ui (u . ui < 0; a heading at right angles, or a resting agent's zero,
 * counts as it is). Agent i's own term always counts positive. */
static inline void RULES_FN(vicsek_term)(const RULES_FN(rules_k) * k, const R ui[RULES_DIM],
                                         const R u[RULES_DIM], R s[RULES_DIM]) {
    if (k->nematic && RULES_FN(rules_dot)(ui, u) < 0)
        for (int c = 0; c < RULES_DIM; c++) s[c] -= u[c];
    else
        for (int c = 0; c < RULES_DIM; c++) s[c] += u[c];
}

/* The aligned vector t of the menu from the heading sum s of n headings: s, plus the field
 * (fld_at), plus with vectorial noise noise * n * xi (vicsek_xi of u1, u2; Gregoire and
 * Chate 2004), turned by the chiral angle (about +z in the box). Returns the angular noise
 * vicsek_direction then applies: noise, or 0 with vectorial noise. With every option off, t
 * is s bit for bit. */
static inline R RULES_FN(vicsek_menu)(const RULES_FN(rules_k) * k, const R s[RULES_DIM], long n,
                                      R u1, R u2, R noise, R t[RULES_DIM]) {
    RULES_FN(rules_copy)(t, s);
    if (k->fld)
        for (int c = 0; c < RULES_DIM; c++) t[c] += k->fld_at[c];
    if (k->vec_noise) {
        R xi[RULES_DIM], a = noise * (R)n;
        RULES_FN(vicsek_xi)(u1, u2, xi);
        for (int c = 0; c < RULES_DIM; c++) t[c] += a * xi[c];
        noise = 0;
    }
    if (k->chiral) {
        R x = t[0], y = t[1];
        t[0] = k->chi_cos * x - k->chi_sin * y;
        t[1] = k->chi_sin * x + k->chi_cos * y;
    }
    return noise;
}

/* Moves the agent at p with its old velocity v and gives it the new direction's velocity at
 * the constant speed (vicsek_direction from the heading sum s of n headings, itself
 * included, through the menu (vicsek_menu), and the noise variates u1, u2 in [0, 1)).
 * Obstacles: the same hard rule as Reynolds boids (rules_block, the new direction
 * mirrored); the table's points and the avoidance steering do not act in this model. */
static inline void RULES_FN(vicsek_update)(const RULES_FN(rules_k) * k, const R s[RULES_DIM],
                                           long n, R u1, R u2, R noise, R speed, R p[RULES_DIM],
                                           R v[RULES_DIM]) {
    R np[RULES_DIM], d[RULES_DIM], t[RULES_DIM];
    int flip[RULES_DIM];
    for (int c = 0; c < RULES_DIM; c++) np[c] = p[c] + v[c] * k->dt;
    RULES_FN(rules_boundary)(k, np, flip);
    noise = RULES_FN(vicsek_menu)(k, s, n, u1, u2, noise, t);
    RULES_FN(vicsek_direction)(t, n, v, u1, u2, noise, flip, d);
    if (k->tab && k->tab->nobst) RULES_FN(rules_block)(k, p, np, d);
    for (int c = 0; c < RULES_DIM; c++) p[c] = np[c], v[c] = speed * d[c];
}

/* ---- species: couplings and the rules between species (docs/model.md, "Species") ------ */

/* A boid's sums of the rules towards each species j: the target t[j] (avoid: the sum of
 * -d / |d|^2; flee: the sum of -d; chase: the offset d to the nearest, by (distance, id)),
 * whether any boid of j was within the rule's radius (hit), and chase's nearest. */
typedef struct RULES_FN(rules_sp_acc) {
    R t[BOIDS_MAX_SPECIES][RULES_DIM];
    R best2[BOIDS_MAX_SPECIES];
    uint64_t best_id[BOIDS_MAX_SPECIES];
    int hit[BOIDS_MAX_SPECIES];
} RULES_FN(rules_sp_acc);

static inline void RULES_FN(rules_sp_acc_init)(RULES_FN(rules_sp_acc) * a) {
    for (int j = 0; j < BOIDS_MAX_SPECIES; j++) {
        for (int c = 0; c < RULES_DIM; c++) a->t[j][c] = 0;
        a->best2[j] = 0;
        a->best_id[j] = 0;
        a->hit[j] = 0;
    }
}

/* Adds a neighbour of species sj at offset d, |d|^2 = d2, with velocity v2, to the flocking
 * sums a of a boid whose species' constants are k: its velocity and offset weighted by the
 * coupling k->coup[sj] (separation unweighted: the kinds keep their distance). With a coupling
 * of 1 the sums are rules_acc_add's bit for bit. Metric neighbours come through rules_sp_add,
 * topological ones (the k nearest, any species) directly. */
static inline void RULES_FN(rules_sp_see)(const RULES_FN(rules_k) * k, RULES_FN(rules_acc) * a,
                                          const R d[RULES_DIM], R d2, const R v2[RULES_DIM],
                                          int sj) {
    const R w = k->coup[sj];
    a->n += 1;
    for (int c = 0; c < RULES_DIM; c++) a->mv[c] += w * v2[c];
    for (int c = 0; c < RULES_DIM; c++) a->off[c] += w * d[c];
    if (0 < d2 && d2 < k->sep2) {
        for (int c = 0; c < RULES_DIM; c++) a->sep[c] -= d[c] / d2;
        a->separated = 1;
    }
}

/* Adds the other boid `id` of species sj at offset d, |d|^2 = d2, with velocity v2, to the
 * sums of a boid whose species' constants are k: to its flocking sums a when it sees it
 * (`sees`: rules_sees; rules_sp_see), and to the rule towards sj within that rule's radius
 * (whatever the neighbour rule: with topological neighbours, sees is 0 and the k nearest
 * come through rules_sp_see). */
static inline void RULES_FN(rules_sp_add)(const RULES_FN(rules_k) * k, RULES_FN(rules_acc) * a,
                                          RULES_FN(rules_sp_acc) * s, const R d[RULES_DIM], R d2,
                                          const R v2[RULES_DIM], int sj, uint64_t id, int sees) {
    if (sees) RULES_FN(rules_sp_see)(k, a, d, d2, v2, sj);
    const int r = k->rule[sj];
    if (r == BOIDS_RULE_NONE || !(d2 < k->rule_r2[sj])) return;
    if (r == BOIDS_RULE_AVOID) {
        if (!(0 < d2)) return;
        for (int c = 0; c < RULES_DIM; c++) s->t[sj][c] -= d[c] / d2;
    } else if (r == BOIDS_RULE_FLEE) {
        for (int c = 0; c < RULES_DIM; c++) s->t[sj][c] -= d[c];
    } else { /* chase: the nearest, ties to the lower id (any visiting order gives it) */
        if (s->hit[sj] && !(d2 < s->best2[sj] || (d2 == s->best2[sj] && id < s->best_id[sj])))
            return;
        for (int c = 0; c < RULES_DIM; c++) s->t[sj][c] = d[c];
        s->best2[sj] = d2;
        s->best_id[sj] = id;
    }
    s->hit[sj] = 1;
}

/* The largest squared radius of the rules of the species of k towards any species (0: it
 * has none), the reach of its rules alone (topological neighbours: the rules' candidates). */
static inline R RULES_FN(rules_sp_rule_reach2)(const RULES_FN(rules_k) * k) {
    R r2 = 0;
    for (int j = 0; j < k->species; j++)
        if (k->rule[j] != BOIDS_RULE_NONE && k->rule_r2[j] > r2) r2 = k->rule_r2[j];
    return r2;
}

/* rules_accel of a boid of the species of k, then the rules towards each species in species
 * order: rule_w[j] * steer(t[j]) for each species j that had a boid within the radius. */
static inline void RULES_FN(rules_sp_accel)(const RULES_FN(rules_k) * k,
                                            const RULES_FN(rules_acc) * s,
                                            const RULES_FN(rules_sp_acc) * sp, const R p[RULES_DIM],
                                            const R v[RULES_DIM], R a[RULES_DIM]) {
    RULES_FN(rules_accel)(k, s, p, v, a);
    for (int j = 0; j < k->species; j++)
        if (sp->hit[j]) RULES_FN(rules_add_steer)(k, k->rule_w[j], sp->t[j], v, a);
}

/* Adds the unit heading u of an agent of species sj to the heading sum s of agent i (unit
 * heading ui) of the species of k, weighted by the coupling (vicsek_term of w u); returns 1
 * if it counts (a coupling of 0 neither adds nor counts). With a coupling of 1 the sum is
 * vicsek_term's bit for bit. */
static inline int RULES_FN(rules_sp_vterm)(const RULES_FN(rules_k) * k, const R ui[RULES_DIM],
                                           const R u[RULES_DIM], int sj, R s[RULES_DIM]) {
    const R w = k->coup[sj];
    if (w == 0) return 0;
    R wu[RULES_DIM];
    for (int c = 0; c < RULES_DIM; c++) wu[c] = w * u[c];
    RULES_FN(vicsek_term)(k, ui, wu, s);
    return 1;
}

/* ---- the box's noise cone as a constant (for the GPU's uniform block) ------------------ */

/* cos(eta / 2) for the Vicsek noise eta, in R, as the box's vicsek_direction computes it at
 * each call: the GPU pipeline takes it once per step into its uniform block
 * (P.cos_half_noise, src/gpu). */
static inline R RULES_FN(rules_cos_half_noise)(R noise) {
    return (R)cos(noise / 2);
}

/* ---- topological neighbours: the k nearest ------------------------------------------- */
#include "rules_topo.h"

#undef RULES_VEC
#undef R
