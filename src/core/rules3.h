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

#include "boids/params.h"

#define R RULES_REAL

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

/* Inward direction (-1, 0 or +1) along one axis within the wall margin of its two faces. */
static inline R RULES_FN(rules3_wall_dir)(const RULES_FN(rules3_k) * k, R x, R side) {
    R t = 0;
    if (x < k->wall_margin) t += 1;
    if (x > side - k->wall_margin) t -= 1;
    return t;
}

/* Acceleration a of a boid at p with velocity v from its neighbour sums and the external
 * points (predator, food, walls), in rules_accel's order. */
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

/* Applies the acceleration a, clamps the speed to [min_speed, max_speed] (0 stays 0), moves
 * by v * dt and applies the boundary (rules_integrate with a third component). */
static inline void RULES_FN(rules3_integrate)(const RULES_FN(rules3_k) * k, const R a[3], R p[3],
                                              R v[3]) {
    R nv[3] = {v[0] + a[0], v[1] + a[1], v[2] + a[2]};
    R s = (R)sqrt(nv[0] * nv[0] + nv[1] * nv[1] + nv[2] * nv[2]);
    if (s > k->max_speed) {
        for (int c = 0; c < 3; c++) nv[c] = nv[c] / s * k->max_speed;
    } else if (0 < s && s < k->min_speed) {
        for (int c = 0; c < 3; c++) nv[c] = nv[c] / s * k->min_speed;
    }
    for (int c = 0; c < 3; c++) p[c] = p[c] + nv[c] * k->dt;
    int flip[3];
    RULES_FN(rules3_boundary)(k, p, flip);
    for (int c = 0; c < 3; c++) v[c] = flip[c] ? -nv[c] : nv[c];
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
 * axis, as the plane mirrors the heading. */
static inline void RULES_FN(vicsek3_update)(const RULES_FN(rules3_k) * k, const R s[3], long n,
                                            R u1, R u2, R noise, R speed, R p[3], R v[3]) {
    R d[3];
    RULES_FN(vicsek3_direction)(s, n, v, u1, u2, noise, d);
    for (int c = 0; c < 3; c++) p[c] = p[c] + v[c] * k->dt;
    int flip[3];
    RULES_FN(rules3_boundary)(k, p, flip);
    for (int c = 0; c < 3; c++) v[c] = speed * (flip[c] ? -d[c] : d[c]);
}

#undef R
