/* SPDX-License-Identifier: MIT */
/* The model's rules in three dimensions, written once for any floating type.
 *
 * Include rules.h first, with the same RULES_REAL and RULES_FN: this file takes its shared
 * pieces from there (rules_cos_half_fov, rules_wrap, RULES_VICSEK_TOL) so that the plane and
 * the box use one definition of each. cpu_ref3.c includes it with double, cpu_grid3.c with
 * float.
 *
 * Every rule is the planar rule of rules.h with a third component, in the same operation
 * order, components always in the order x, y, z: offsets wrap per axis, the field of view
 * is a cone of half-angle fov / 2 about the velocity (the same inclusive test
 * dot(v, d) >= cos(fov / 2) |v| |d|), walls push and reflect per axis, the predator and
 * food points have a z (predator_z, food_z). With every z and vz zero a 3-D step is the
 * planar step plus terms that add zero: a check the tests make.
 *
 * The interaction table in 3-D (rules3_k_set_interact): its points with their z, and
 * spheres where the plane has circles, with rules.h's semantics: flee and seek in index
 * order, look-ahead avoidance, and the hard rule (a move that ends inside a sphere or passes
 * within its radius of the centre does not happen; a boid inside is expelled). Its decisions
 * use products, sums and comparisons only, as the plane's "inside" and "touches" do, so that
 * the shaders (rules3.glsl) decide them bit for bit as the float path; the plane's circle
 * decides "passes within" after a division, the sphere without one (rules3_hit). A flock in
 * a plane z = c with spheres centred on it steps as the planar flock with circles (a test).
 *
 * Vicsek in 3-D: the new direction is the normalised sum of the unit velocities of the
 * neighbours (itself included), with noise drawn uniformly within the cone of half-angle
 * eta / 2 about it: cos(theta) uniform in [cos(eta / 2), 1] (which is uniform over the
 * cone's spherical cap, by Archimedes' hat-box theorem) and the azimuth phi uniform in
 * [0, 2 pi), from two counter-based variates (boids_noise_u and boids_noise_u2). eta = 2 pi
 * is uniform on the sphere, and eta = 0 keeps the mean direction exactly. Vicsek et al. 1995
 * define the model in the plane; the noise as a uniform rotation within a cone about the
 * mean direction is the three-dimensional angular noise of Chate, Ginelli, Gregoire and
 * Raynaud 2008 (Phys. Rev. E 77, 046113); its parametrisation by the half-angle eta / 2,
 * which makes the angle from the mean direction at most eta / 2 as in the plane, is this
 * project's. */

#ifndef RULES_REAL
#error "define RULES_REAL before including rules3.h"
#endif

#include <math.h>
#include <stdint.h>

#include "boids/interact.h"
#include "boids/params.h"

#define R RULES_REAL

/* An interaction point that is on: position, radius squared, weight. */
typedef struct RULES_FN(rules3_point) {
    R x, y, z, r2, w;
} RULES_FN(rules3_point);

/* A sphere in R: centre (x, y, z), radius r, r2 = r * r; bound, the distance from the
 * centre within which it lies, enlarged for rounding (rules_near's argument, rules3_near).
 * Under wrap the centre is moved by whole world periods into the world. */
typedef struct RULES_FN(rules3_sphere) {
    R x, y, z, r, r2, bound;
} RULES_FN(rules3_sphere);

/* The interaction table in R: the points that are on (the predators, then the attractors,
 * each in index order) and the spheres, in table order. */
typedef struct RULES_FN(rules3_table) {
    int npred, nattr, nobst;
    RULES_FN(rules3_point) pts[2 * BOIDS_MAX_POINTS];
    RULES_FN(rules3_sphere) obst[BOIDS_MAX_OBSTACLES];
} RULES_FN(rules3_table);

/* Sums over the neighbours of one boid. */
typedef struct RULES_FN(rules3_acc) {
    long n;          /* neighbours seen */
    R mvx, mvy, mvz; /* sum of neighbour velocities (alignment target) */
    R cx, cy, cz;    /* sum of offsets to neighbours (cohesion target) */
    R sx, sy, sz;    /* sum of -d / |d|^2 over close neighbours (separation target) */
    int separated;   /* at least one neighbour with 0 < |d|^2 < separation_radius^2 */
} RULES_FN(rules3_acc);

/* Per-step constants derived from the parameters, in R. */
typedef struct RULES_FN(rules3_k) {
    R width, height, depth, half_w, half_h, half_d;
    R vision2, sep2;
    int full_fov; /* fov >= 360: no angle test */
    R cos_half_fov;
    R max_speed, min_speed, max_force, dt;
    R w_sep, w_align, w_coh;
    int wrap, walls; /* boundary: wrap, walls, or neither (open) */
    R wall_margin, w_wall;
    int predator;
    R pred_x, pred_y, pred_z, pred_r2, w_pred;
    int food;
    R food_x, food_y, food_z, food_r2, w_food;
    R avoid_dist, w_avoid, clear; /* look-ahead, its weight, clearance (separation_radius) */
    R reach_pad;                  /* the look-ahead and its clearance, 1/256 larger */
    /* The interaction table (rules3_k_set_interact), NULL when it holds nothing: kept
     * beside the constants and not in them, so that a copy of the constants (the grid path
     * copies them per boid) stays small. */
    const RULES_FN(rules3_table) * tab;
} RULES_FN(rules3_k);

static inline void RULES_FN(rules3_k_init)(RULES_FN(rules3_k) * k, const boids_params *p) {
    k->width = (R)p->width;
    k->height = (R)p->height;
    k->depth = (R)p->depth;
    k->half_w = k->width / 2;
    k->half_h = k->height / 2;
    k->half_d = k->depth / 2;
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
    k->pred_x = (R)p->predator_x;
    k->pred_y = (R)p->predator_y;
    k->pred_z = (R)p->predator_z;
    k->pred_r2 = (R)p->predator_radius * (R)p->predator_radius;
    k->w_pred = (R)p->predator_weight;
    k->food = p->food != 0;
    k->food_x = (R)p->food_x;
    k->food_y = (R)p->food_y;
    k->food_z = (R)p->food_z;
    k->food_r2 = (R)p->food_radius * (R)p->food_radius;
    k->w_food = (R)p->food_weight;
    k->avoid_dist = (R)p->avoid_distance;
    k->w_avoid = (R)p->avoid_weight;
    k->clear = (R)p->separation_radius;
    k->reach_pad = (R)((p->avoid_distance + p->separation_radius) * (1 + 1.0 / 256));
    k->tab = NULL;
}

/* Puts table t (NULL: none) into tab in R and makes k use it, or nothing (k->tab NULL) when
 * it has no point on and no obstacle. Circles and segments are planar: a 3-D run refuses
 * them (boids_interact_check_dim), and they are skipped here. Under wrap each sphere's
 * centre moves by whole world periods into the world, so that the nearest image of it
 * (rules3_offset) is the only one a step or the look-ahead can reach while
 * boids_interact_check_world holds. The bound: rules_k_set_interact's, over three axes. */
static inline void RULES_FN(rules3_k_set_interact)(RULES_FN(rules3_k) * k,
                                                   RULES_FN(rules3_table) * tab,
                                                   const boids_interact *t) {
    k->tab = NULL;
    if (!t) return;
    tab->npred = tab->nattr = tab->nobst = 0;
    for (int i = 0; i < 2 * BOIDS_MAX_POINTS; i++) {
        const int pred = i < BOIDS_MAX_POINTS;
        const boids_point *q = pred ? &t->predators[i] : &t->attractors[i - BOIDS_MAX_POINTS];
        if (!q->on) continue;
        RULES_FN(rules3_point) *o = &tab->pts[tab->npred + tab->nattr];
        *o = (RULES_FN(rules3_point)){(R)q->x, (R)q->y, (R)q->z, (R)q->radius * (R)q->radius,
                                      (R)q->weight};
        if (pred)
            tab->npred++;
        else
            tab->nattr++;
    }
    const double side[3] = {(double)k->width, (double)k->height, (double)k->depth};
    for (int i = 0; i < t->obstacle_count; i++) {
        const boids_obstacle *b = &t->obstacles[i];
        if (b->kind != BOIDS_OBSTACLE_SPHERE) continue;
        const double c[3] = {b->x0, b->y0, b->z0};
        double at[3];
        for (int a = 0; a < 3; a++) at[a] = k->wrap ? c[a] - floor(c[a] / side[a]) * side[a] : c[a];
        double mag = fabs(at[0]) + fabs(at[1]) + fabs(at[2]) + side[0] + side[1] + side[2];
        RULES_FN(rules3_sphere) *o = &tab->obst[tab->nobst++];
        o->x = (R)at[0];
        o->y = (R)at[1];
        o->z = (R)at[2];
        o->r = (R)b->radius;
        o->r2 = o->r * o->r;
        o->bound = (R)(b->radius * (1 + 1.0 / 256) + mag / 65536);
    }
    if (tab->npred + tab->nattr + tab->nobst) k->tab = tab;
}

/* Offset from (x, y, z) to (x2, y2, z2) under the boundary (shortest image per axis). */
static inline void RULES_FN(rules3_offset)(const RULES_FN(rules3_k) * k, R x, R y, R z, R x2, R y2,
                                           R z2, R *dx, R *dy, R *dz) {
    *dx = x2 - x;
    *dy = y2 - y;
    *dz = z2 - z;
    if (k->wrap) {
        *dx = RULES_FN(rules_wrap)(*dx, k->width, k->half_w);
        *dy = RULES_FN(rules_wrap)(*dy, k->height, k->half_h);
        *dz = RULES_FN(rules_wrap)(*dz, k->depth, k->half_d);
    }
}

/* |d|^2 in the one operation order every path uses. */
static inline R RULES_FN(rules3_d2)(R dx, R dy, R dz) {
    return dx * dx + dy * dy + dz * dz;
}

/* Is a boid at offset d, |d|^2 = d2, within the cone of half-angle fov/2 about the velocity
 * v? A boid that does not move, or a neighbour at the same point, sees all around. */
static inline int RULES_FN(rules3_in_fov)(const RULES_FN(rules3_k) * k, R dx, R dy, R dz, R d2,
                                          R vx, R vy, R vz) {
    if (k->full_fov) return 1;
    R dot = vx * dx + vy * dy + vz * dz;
    R vv = vx * vx + vy * vy + vz * vz;
    if (vv == 0 || d2 == 0) return 1;
    return dot >= k->cos_half_fov * (R)sqrt(vv * d2);
}

/* Is a boid at offset d a (metric) neighbour of a boid with velocity v? */
static inline int RULES_FN(rules3_sees)(const RULES_FN(rules3_k) * k, R dx, R dy, R dz, R d2, R vx,
                                        R vy, R vz) {
    return d2 < k->vision2 && RULES_FN(rules3_in_fov)(k, dx, dy, dz, d2, vx, vy, vz);
}

static inline void RULES_FN(rules3_acc_init)(RULES_FN(rules3_acc) * a) {
    a->n = 0;
    a->mvx = a->mvy = a->mvz = a->cx = a->cy = a->cz = a->sx = a->sy = a->sz = 0;
    a->separated = 0;
}

/* Adds one neighbour (already accepted by rules3_sees) with velocity v2. */
static inline void RULES_FN(rules3_acc_add)(const RULES_FN(rules3_k) * k, RULES_FN(rules3_acc) * a,
                                            R dx, R dy, R dz, R d2, R vx2, R vy2, R vz2) {
    a->n += 1;
    a->mvx += vx2;
    a->mvy += vy2;
    a->mvz += vz2;
    a->cx += dx;
    a->cy += dy;
    a->cz += dz;
    if (0 < d2 && d2 < k->sep2) {
        a->sx -= dx / d2; /* the closer, the stronger */
        a->sy -= dy / d2;
        a->sz -= dz / d2;
        a->separated = 1;
    }
}

/* Steering force from velocity v to full speed along d, capped at max_force; a zero target
 * gives zero force (rules_steer with a third component). */
static inline void RULES_FN(rules3_steer)(const RULES_FN(rules3_k) * k, R dx, R dy, R dz, R vx,
                                          R vy, R vz, R f[3]) {
    R m = (R)sqrt(dx * dx + dy * dy + dz * dz);
    if (m == 0) {
        f[0] = f[1] = f[2] = 0;
        return;
    }
    R gx = dx / m * k->max_speed - vx;
    R gy = dy / m * k->max_speed - vy;
    R gz = dz / m * k->max_speed - vz;
    R n = (R)sqrt(gx * gx + gy * gy + gz * gz);
    if (n > k->max_force) {
        gx = gx / n * k->max_force;
        gy = gy / n * k->max_force;
        gz = gz / n * k->max_force;
    }
    f[0] = gx;
    f[1] = gy;
    f[2] = gz;
}

/* a += w * steer(d), the accumulation step of rules3_accel. */
static inline void RULES_FN(rules3_add_steer)(const RULES_FN(rules3_k) * k, R w, R dx, R dy, R dz,
                                              const R v[3], R a[3]) {
    R f[3];
    RULES_FN(rules3_steer)(k, dx, dy, dz, v[0], v[1], v[2], f);
    a[0] += w * f[0];
    a[1] += w * f[1];
    a[2] += w * f[2];
}

/* ---- the interaction table: points and spheres (README, "Interaction points and
 * obstacles") ------------------------------------------------------------------------- */

/* Can sphere o act on a boid at p that reaches `reach` beyond it (reach including
 * rules3_slack of the boid)? rules_near's cheap test that never says no wrongly. */
static inline int RULES_FN(rules3_near)(const RULES_FN(rules3_k) * k,
                                        const RULES_FN(rules3_sphere) * o, const R p[3], R reach) {
    R dx, dy, dz;
    RULES_FN(rules3_offset)(k, p[0], p[1], p[2], o->x, o->y, o->z, &dx, &dy, &dz);
    R rr = o->bound + reach;
    return RULES_FN(rules3_d2)(dx, dy, dz) < rr * rr;
}

/* The boid's part of rules3_near's slack: 2^-16 of its coordinates' magnitudes. */
static inline R RULES_FN(rules3_slack)(const R p[3]) {
    return ((R)fabs(p[0]) + (R)fabs(p[1]) + (R)fabs(p[2])) * ((R)1 / 65536);
}

/* Is p strictly inside sphere o (its surface is outside)? */
static inline int RULES_FN(rules3_in_sphere)(const RULES_FN(rules3_k) * k,
                                             const RULES_FN(rules3_sphere) * o, const R p[3]) {
    R dx, dy, dz;
    RULES_FN(rules3_offset)(k, p[0], p[1], p[2], o->x, o->y, o->z, &dx, &dy, &dz);
    return RULES_FN(rules3_d2)(dx, dy, dz) < o->r2;
}

/* Parameter in [0, 1] of the point of the segment from the origin to e closest to q (0 when
 * e is the origin): rules_seg_t with its first end at the origin. */
static inline R RULES_FN(rules3_seg_t)(const R q[3], const R e[3]) {
    R l2 = e[0] * e[0] + e[1] * e[1] + e[2] * e[2];
    if (l2 == 0) return 0;
    R t = (q[0] * e[0] + q[1] * e[1] + q[2] * e[2]) / l2;
    return t < 0 ? 0 : t > 1 ? 1 : t;
}

/* Look-ahead avoidance of sphere o by a boid at p whose look-ahead ends at e from it
 * (rules_avoid_dir's circle): 1 and the direction w to steer along, from the look-ahead's
 * point closest to the centre away from the centre, if that point is closer than the radius
 * plus the clearance; a look-ahead through the centre steers straight away from it. */
static inline int RULES_FN(rules3_avoid_dir)(const RULES_FN(rules3_k) * k,
                                             const RULES_FN(rules3_sphere) * o, const R p[3],
                                             const R e[3], R w[3]) {
    R d[3];
    RULES_FN(rules3_offset)(k, p[0], p[1], p[2], o->x, o->y, o->z, &d[0], &d[1], &d[2]);
    R t = RULES_FN(rules3_seg_t)(d, e);
    for (int c = 0; c < 3; c++) w[c] = e[c] * t - d[c];
    R rc = o->r + k->clear;
    if (!(RULES_FN(rules3_d2)(w[0], w[1], w[2]) < rc * rc)) return 0;
    if (w[0] == 0 && w[1] == 0 && w[2] == 0)
        for (int c = 0; c < 3; c++) w[c] = -d[c];
    return 1;
}

/* The table's points (flee each predator, seek each attractor within its radius, as the
 * parameters' predator and food), then look-ahead avoidance of every sphere: rules_interact
 * in 3-D, adding to a. */
static inline void RULES_FN(rules3_interact)(const RULES_FN(rules3_k) * k, const R p[3],
                                             const R v[3], R a[3]) {
    const RULES_FN(rules3_table) *t = k->tab;
    R d[3];
    for (int i = 0; i < t->npred + t->nattr; i++) {
        const RULES_FN(rules3_point) *q = &t->pts[i];
        if (i < t->npred)
            RULES_FN(rules3_offset)(k, q->x, q->y, q->z, p[0], p[1], p[2], &d[0], &d[1], &d[2]);
        else
            RULES_FN(rules3_offset)(k, p[0], p[1], p[2], q->x, q->y, q->z, &d[0], &d[1], &d[2]);
        if (RULES_FN(rules3_d2)(d[0], d[1], d[2]) < q->r2)
            RULES_FN(rules3_add_steer)(k, q->w, d[0], d[1], d[2], v, a);
    }
    if (t->nobst == 0) return;
    R s = (R)sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    if (s == 0) return; /* a boid at rest looks nowhere */
    const R e[3] = {v[0] / s * k->avoid_dist, v[1] / s * k->avoid_dist, v[2] / s * k->avoid_dist};
    R reach = k->reach_pad + RULES_FN(rules3_slack)(p);
    for (int i = 0; i < t->nobst; i++) {
        if (!RULES_FN(rules3_near)(k, &t->obst[i], p, reach) ||
            !RULES_FN(rules3_avoid_dir)(k, &t->obst[i], p, e, d))
            continue;
        RULES_FN(rules3_add_steer)(k, k->w_avoid, d[0], d[1], d[2], v, a);
    }
}

/* Inward direction (-1, 0 or +1) along one axis within the wall margin of its two faces. */
static inline R RULES_FN(rules3_wall_dir)(const RULES_FN(rules3_k) * k, R x, R side) {
    R t = 0;
    if (x < k->wall_margin) t += 1;
    if (x > side - k->wall_margin) t -= 1;
    return t;
}

/* Acceleration a of a boid at p with velocity v from its neighbour sums and the external
 * points (predator, food, walls), then the interaction table's points and spheres, in
 * rules_accel's order. */
static inline void RULES_FN(rules3_accel)(const RULES_FN(rules3_k) * k,
                                          const RULES_FN(rules3_acc) * s, const R p[3],
                                          const R v[3], R a[3]) {
    a[0] = a[1] = a[2] = 0;
    if (s->separated) RULES_FN(rules3_add_steer)(k, k->w_sep, s->sx, s->sy, s->sz, v, a);
    if (s->n) {
        RULES_FN(rules3_add_steer)(k, k->w_align, s->mvx, s->mvy, s->mvz, v, a);
        RULES_FN(rules3_add_steer)(k, k->w_coh, s->cx, s->cy, s->cz, v, a);
    }
    R dx, dy, dz;
    if (k->predator) { /* flee: steer along the offset from the predator to the boid */
        RULES_FN(rules3_offset)
        (k, k->pred_x, k->pred_y, k->pred_z, p[0], p[1], p[2], &dx, &dy, &dz);
        if (dx * dx + dy * dy + dz * dz < k->pred_r2)
            RULES_FN(rules3_add_steer)(k, k->w_pred, dx, dy, dz, v, a);
    }
    if (k->food) { /* seek: steer along the offset from the boid to the food */
        RULES_FN(rules3_offset)
        (k, p[0], p[1], p[2], k->food_x, k->food_y, k->food_z, &dx, &dy, &dz);
        if (dx * dx + dy * dy + dz * dz < k->food_r2)
            RULES_FN(rules3_add_steer)(k, k->w_food, dx, dy, dz, v, a);
    }
    if (k->walls) { /* steer inward within the margin of each face */
        R tx = RULES_FN(rules3_wall_dir)(k, p[0], k->width);
        R ty = RULES_FN(rules3_wall_dir)(k, p[1], k->height);
        R tz = RULES_FN(rules3_wall_dir)(k, p[2], k->depth);
        if (tx != 0 || ty != 0 || tz != 0)
            RULES_FN(rules3_add_steer)(k, k->w_wall, tx, ty, tz, v, a);
    }
    if (k->tab) RULES_FN(rules3_interact)(k, p, v, a);
}

/* The boundary along one axis of length side: wrap once into [0, side), or reflect off the
 * faces (returning 1 so that the caller mirrors the velocity), or nothing (open). */
static inline int RULES_FN(rules3_axis)(const RULES_FN(rules3_k) * k, R *x, R side) {
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
static inline void RULES_FN(rules3_boundary)(const RULES_FN(rules3_k) * k, R p[3], int flip[3]) {
    flip[0] = RULES_FN(rules3_axis)(k, &p[0], k->width);
    flip[1] = RULES_FN(rules3_axis)(k, &p[1], k->height);
    flip[2] = RULES_FN(rules3_axis)(k, &p[2], k->depth);
}

/* Does the move m from a boid at p to n (the boundary applied) enter sphere o: end inside it
 * (rules3_in_sphere of n) or pass within its radius of the centre? With a the offset from p
 * to the centre, the segment from the origin to m comes closest to a strictly between its
 * ends when 0 < a.m < m.m, at squared distance |a|^2 - (a.m)^2 / m.m, which is below r^2
 * exactly when (|a|^2 - r^2) m.m < (a.m)^2; at its ends it is nearest the start (outside:
 * a boid inside is expelled instead) or the end (the first test). Products, sums and
 * comparisons, without rules_hit's division, so that the shaders decide it as C does. */
static inline int RULES_FN(rules3_hit)(const RULES_FN(rules3_k) * k,
                                       const RULES_FN(rules3_sphere) * o, const R p[3],
                                       const R n[3], const R m[3]) {
    if (RULES_FN(rules3_in_sphere)(k, o, n)) return 1;
    R a[3];
    RULES_FN(rules3_offset)(k, p[0], p[1], p[2], o->x, o->y, o->z, &a[0], &a[1], &a[2]);
    R am = a[0] * m[0] + a[1] * m[1] + a[2] * m[2];
    R mm = RULES_FN(rules3_d2)(m[0], m[1], m[2]);
    if (!(0 < am && am < mm)) return 0;
    return (RULES_FN(rules3_d2)(a[0], a[1], a[2]) - o->r2) * mm < am * am;
}

/* Mirrors v about the plane of normal nrm when it heads against the normal (rules_mirror). */
static inline void RULES_FN(rules3_mirror)(const R nrm[3], R v[3]) {
    R dot = v[0] * nrm[0] + v[1] * nrm[1] + v[2] * nrm[2];
    R nn = nrm[0] * nrm[0] + nrm[1] * nrm[1] + nrm[2] * nrm[2];
    if (!(dot < 0) || nn == 0) return;
    R q = 2 * dot / nn;
    for (int c = 0; c < 3; c++) v[c] = v[c] - q * nrm[c];
}

/* Moves a boid at p inside sphere o out along the radial from the centre (along +x from the
 * centre itself) to 2^-18 of the radius beyond the surface, doubling that margin until the
 * point, after the world boundary, tests outside in R; 16 tries, then on along the same ray
 * out of every other sphere it lands in, once for each: as rules_expel. */
static inline void RULES_FN(rules3_expel)(const RULES_FN(rules3_k) * k,
                                          const RULES_FN(rules3_sphere) * o, R p[3]) {
    R d[3], q[3] = {p[0], p[1], p[2]}, g = (R)1 / 262144;
    int flip[3];
    RULES_FN(rules3_offset)(k, o->x, o->y, o->z, p[0], p[1], p[2], &d[0], &d[1], &d[2]);
    R dl = (R)sqrt(RULES_FN(rules3_d2)(d[0], d[1], d[2]));
    if (dl == 0) d[0] = 1, d[1] = d[2] = 0, dl = 1;
    for (int t = 0; t < 16; t++, g *= 2) {
        R s = o->r / dl * (1 + g);
        q[0] = o->x + d[0] * s;
        q[1] = o->y + d[1] * s;
        q[2] = o->z + d[2] * s;
        RULES_FN(rules3_boundary)(k, q, flip);
        if (!RULES_FN(rules3_in_sphere)(k, o, q)) break;
    }
    const RULES_FN(rules3_table) *tab = k->tab;
    R u[3] = {d[0] / dl, d[1] / dl, d[2] / dl};
    for (int pass = 0; pass < tab->nobst; pass++) {
        const RULES_FN(rules3_sphere) *c = NULL;
        for (int i = 0; i < tab->nobst && !c; i++)
            if (RULES_FN(rules3_in_sphere)(k, &tab->obst[i], q)) c = &tab->obst[i];
        if (!c) break;
        R e[3], from[3] = {q[0], q[1], q[2]};
        RULES_FN(rules3_offset)
        (k, c->x, c->y, c->z, from[0], from[1], from[2], &e[0], &e[1], &e[2]);
        R b = e[0] * u[0] + e[1] * u[1] + e[2] * u[2];
        R cc = RULES_FN(rules3_d2)(e[0], e[1], e[2]) - c->r2;
        R leave = (R)sqrt(b * b - cc) - b;
        g = (R)1 / 262144;
        for (int t = 0; t < 16; t++, g *= 2) {
            R s = leave + c->r * g;
            for (int a = 0; a < 3; a++) q[a] = from[a] + u[a] * s;
            RULES_FN(rules3_boundary)(k, q, flip);
            if (!RULES_FN(rules3_in_sphere)(k, c, q)) break;
        }
    }
    for (int c = 0; c < 3; c++) p[c] = q[c];
}

/* The spheres' hard rule for a boid moving from p to n (the boundary applied) with new
 * velocity v (rules_block): a boid inside a sphere (the first in table order) is expelled
 * instead; a move that enters a sphere (the first in table order that it enters decides)
 * does not happen: the boid stays at p, v mirrored about the radial through p. */
static inline void RULES_FN(rules3_block)(const RULES_FN(rules3_k) * k, const R p[3], R n[3],
                                          R v[3]) {
    const RULES_FN(rules3_table) *t = k->tab;
    R m[3], nrm[3];
    RULES_FN(rules3_offset)(k, p[0], p[1], p[2], n[0], n[1], n[2], &m[0], &m[1], &m[2]);
    R reach = (R)fabs(m[0]) + (R)fabs(m[1]) + (R)fabs(m[2]) + RULES_FN(rules3_slack)(p);
    uint64_t near = 0; /* the spheres within reach, tested once */
    for (int i = 0; i < t->nobst; i++) {
        if (!RULES_FN(rules3_near)(k, &t->obst[i], p, reach)) continue;
        near |= (uint64_t)1 << i;
        if (RULES_FN(rules3_in_sphere)(k, &t->obst[i], p)) {
            for (int c = 0; c < 3; c++) n[c] = p[c];
            RULES_FN(rules3_expel)(k, &t->obst[i], n);
            return;
        }
    }
    for (int i = 0; i < t->nobst && near >> i; i++) {
        const RULES_FN(rules3_sphere) *o = &t->obst[i];
        if (!(near >> i & 1) || !RULES_FN(rules3_hit)(k, o, p, n, m)) continue;
        RULES_FN(rules3_offset)(k, o->x, o->y, o->z, p[0], p[1], p[2], &nrm[0], &nrm[1], &nrm[2]);
        RULES_FN(rules3_mirror)(nrm, v);
        for (int c = 0; c < 3; c++) n[c] = p[c];
        return;
    }
}

/* Applies the acceleration a, clamps the speed to [min_speed, max_speed] (0 stays 0), moves
 * by v * dt and applies the boundary (rules_integrate with a third component), then the
 * spheres' hard rule (rules3_block). */
static inline void RULES_FN(rules3_integrate)(const RULES_FN(rules3_k) * k, const R a[3], R p[3],
                                              R v[3]) {
    R nv[3] = {v[0] + a[0], v[1] + a[1], v[2] + a[2]};
    R s = (R)sqrt(nv[0] * nv[0] + nv[1] * nv[1] + nv[2] * nv[2]);
    if (s > k->max_speed) {
        for (int c = 0; c < 3; c++) nv[c] = nv[c] / s * k->max_speed;
    } else if (0 < s && s < k->min_speed) {
        for (int c = 0; c < 3; c++) nv[c] = nv[c] / s * k->min_speed;
    }
    R np[3];
    for (int c = 0; c < 3; c++) np[c] = p[c] + nv[c] * k->dt;
    int flip[3];
    RULES_FN(rules3_boundary)(k, np, flip);
    for (int c = 0; c < 3; c++) nv[c] = flip[c] ? -nv[c] : nv[c];
    if (k->tab && k->tab->nobst) RULES_FN(rules3_block)(k, p, np, nv);
    for (int c = 0; c < 3; c++) p[c] = np[c], v[c] = nv[c];
}

/* ---- Vicsek model in 3-D (see the top of this file) ------------------------------------ */

/* Adds agent j's unit velocity to the sum s; a resting agent adds nothing. */
static inline void RULES_FN(vicsek3_add)(R vx, R vy, R vz, R s[3]) {
    R v = (R)sqrt(vx * vx + vy * vy + vz * vz);
    if (v > 0) {
        s[0] += vx / v;
        s[1] += vy / v;
        s[2] += vz / v;
    }
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

/* The new unit direction from the heading sum s of n unit vectors and the noise variates u1,
 * u2 in [0, 1): the mean direction (the previous one, v / |v|, for a sum below
 * n * RULES_VICSEK_TOL; +x for an agent at rest as atan2(0, 0) = 0 gives in the plane),
 * turned by theta with cos(theta) = 1 - u1 (1 - cos(eta / 2)) about it at azimuth
 * phi = 2 pi u2, and normalised. */
static inline void RULES_FN(vicsek3_direction)(const R s[3], long n, const R v[3], R u1, R u2,
                                               R noise, R d[3]) {
    R m = (R)sqrt(s[0] * s[0] + s[1] * s[1] + s[2] * s[2]);
    const R *src = s;
    if (m <= (R)n * RULES_VICSEK_TOL) {
        m = (R)sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
        src = v;
    }
    if (m == 0) {
        d[0] = 1;
        d[1] = d[2] = 0;
    } else {
        for (int c = 0; c < 3; c++) d[c] = src[c] / m;
    }
    if (noise == 0) return; /* no turn: the mean direction exactly */
    R ct = 1 - u1 * (1 - (R)cos(noise / 2));
    R st = (R)sqrt(ct * ct < 1 ? 1 - ct * ct : 0);
    R phi = (R)(2 * M_PI) * u2, t1[3], t2[3];
    R cp = (R)cos(phi), sp = (R)sin(phi);
    RULES_FN(vicsek3_basis)(d, t1, t2);
    R e[3];
    for (int c = 0; c < 3; c++) e[c] = ct * d[c] + st * (cp * t1[c] + sp * t2[c]);
    R len = (R)sqrt(e[0] * e[0] + e[1] * e[1] + e[2] * e[2]);
    for (int c = 0; c < 3; c++) d[c] = e[c] / len;
}

/* Moves the agent at p with its old velocity v, then gives it the new direction's velocity
 * at the constant speed; a wall reflection mirrors that direction's component along the
 * axis, as the plane mirrors the heading. Spheres: the hard rule of Reynolds boids
 * (rules3_block, the new direction mirrored); the table's points and the avoidance do not
 * act in this model. */
static inline void RULES_FN(vicsek3_update)(const RULES_FN(rules3_k) * k, const R s[3], long n,
                                            R u1, R u2, R noise, R speed, R p[3], R v[3]) {
    R d[3], np[3];
    RULES_FN(vicsek3_direction)(s, n, v, u1, u2, noise, d);
    for (int c = 0; c < 3; c++) np[c] = p[c] + v[c] * k->dt;
    int flip[3];
    RULES_FN(rules3_boundary)(k, np, flip);
    for (int c = 0; c < 3; c++) d[c] = flip[c] ? -d[c] : d[c];
    if (k->tab && k->tab->nobst) RULES_FN(rules3_block)(k, p, np, d);
    for (int c = 0; c < 3; c++) p[c] = np[c], v[c] = speed * d[c];
}

#undef R
