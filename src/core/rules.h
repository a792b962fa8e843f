/* SPDX-License-Identifier: MIT */
/* The model's rules, written once for any floating type.
 *
 * Include this file after defining RULES_REAL (double or float) and RULES_FN(name) (a
 * suffix scheme for the function names). cpu-ref includes it with double, the grid CPU
 * path with float; shaders/rules.glsl is the same code in GLSL. The operation order
 * follows seed 000 exactly (see paso() and dirigir() there), which is what makes cpu-ref
 * reproduce the seed program bit for bit: change nothing here without running the seed
 * tests. The core is built with -ffp-contract=off so no multiply-add is fused. */

#ifndef RULES_REAL
#error "define RULES_REAL before including rules.h"
#endif

#include <math.h>

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
#endif

#define R RULES_REAL

/* Sums over the neighbours of one boid. */
typedef struct RULES_FN(rules_acc) {
    long n;        /* neighbours seen */
    R mvx, mvy;    /* sum of neighbour velocities (alignment target) */
    R cx, cy;      /* sum of offsets to neighbours (cohesion target) */
    R sx, sy;      /* sum of -d / |d|^2 over close neighbours (separation target) */
    int separated; /* at least one neighbour with 0 < |d|^2 < separation_radius^2 */
} RULES_FN(rules_acc);

/* Per-step constants derived from the parameters (in R so that every path compares in
 * its own precision). */
typedef struct RULES_FN(rules_k) {
    R width, height, half_w, half_h;
    R vision2, sep2;
    int full_fov; /* fov >= 360: no angle test */
    R cos_half_fov;
    R max_speed, min_speed, max_force, dt;
    R w_sep, w_align, w_coh;
    int wrap, walls; /* boundary: wrap, walls, or neither (open plane) */
    R wall_margin, w_wall;
    int predator;
    R pred_x, pred_y, pred_r2, w_pred;
    int food;
    R food_x, food_y, food_r2, w_food;
} RULES_FN(rules_k);

static inline void RULES_FN(rules_k_init)(RULES_FN(rules_k) * k, const boids_params *p) {
    k->width = (R)p->width;
    k->height = (R)p->height;
    k->half_w = k->width / 2;
    k->half_h = k->height / 2;
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
    k->pred_r2 = (R)p->predator_radius * (R)p->predator_radius;
    k->w_pred = (R)p->predator_weight;
    k->food = p->food != 0;
    k->food_x = (R)p->food_x;
    k->food_y = (R)p->food_y;
    k->food_r2 = (R)p->food_radius * (R)p->food_radius;
    k->w_food = (R)p->food_weight;
}

/* Shortest periodic image of a difference (seed 000's envolver). */
static inline R RULES_FN(rules_wrap)(R d, R side, R half) {
    if (d > half) return d - side;
    if (d < -half) return d + side;
    return d;
}

/* Offset from (x, y) to (x2, y2) under the boundary. */
static inline void RULES_FN(rules_offset)(const RULES_FN(rules_k) * k, R x, R y, R x2, R y2, R *dx,
                                          R *dy) {
    *dx = x2 - x;
    *dy = y2 - y;
    if (k->wrap) {
        *dx = RULES_FN(rules_wrap)(*dx, k->width, k->half_w);
        *dy = RULES_FN(rules_wrap)(*dy, k->height, k->half_h);
    }
}

/* Is a boid at offset (dx, dy), |d|^2 = d2, within fov/2 of the velocity (vx, vy)? A boid
 * that does not move, or a neighbour at the same point, sees all around. */
static inline int RULES_FN(rules_in_fov)(const RULES_FN(rules_k) * k, R dx, R dy, R d2, R vx,
                                         R vy) {
    if (k->full_fov) return 1;
    R dot = vx * dx + vy * dy;
    R vv = vx * vx + vy * vy;
    if (vv == 0 || d2 == 0) return 1;
    return dot >= k->cos_half_fov * (R)sqrt(vv * d2);
}

/* Is a boid at offset (dx, dy), |d|^2 = d2, a (metric) neighbour of a boid with velocity
 * (vx, vy)? Inside the vision radius and within the field of view. */
static inline int RULES_FN(rules_sees)(const RULES_FN(rules_k) * k, R dx, R dy, R d2, R vx, R vy) {
    return d2 < k->vision2 && RULES_FN(rules_in_fov)(k, dx, dy, d2, vx, vy);
}

static inline void RULES_FN(rules_acc_init)(RULES_FN(rules_acc) * a) {
    a->n = 0;
    a->mvx = a->mvy = a->cx = a->cy = a->sx = a->sy = 0;
    a->separated = 0;
}

/* Adds one neighbour (already accepted by rules_sees) with velocity (vx2, vy2). */
static inline void RULES_FN(rules_acc_add)(const RULES_FN(rules_k) * k, RULES_FN(rules_acc) * a,
                                           R dx, R dy, R d2, R vx2, R vy2) {
    a->n += 1;
    a->mvx += vx2;
    a->mvy += vy2;
    a->cx += dx;
    a->cy += dy;
    if (0 < d2 && d2 < k->sep2) {
        a->sx -= dx / d2; /* the closer, the stronger */
        a->sy -= dy / d2;
        a->separated = 1;
    }
}

/* Steering force from velocity (vx, vy) to full speed along (dx, dy), capped at max_force;
 * a zero target gives zero force (seed 000's dirigir). */
static inline void RULES_FN(rules_steer)(const RULES_FN(rules_k) * k, R dx, R dy, R vx, R vy, R *fx,
                                         R *fy) {
    R m = (R)sqrt(dx * dx + dy * dy);
    if (m == 0) {
        *fx = 0;
        *fy = 0;
        return;
    }
    R gx = dx / m * k->max_speed - vx;
    R gy = dy / m * k->max_speed - vy;
    R n = (R)sqrt(gx * gx + gy * gy);
    if (n > k->max_force) {
        gx = gx / n * k->max_force;
        gy = gy / n * k->max_force;
    }
    *fx = gx;
    *fy = gy;
}

/* Acceleration of a boid at (x, y) with velocity (vx, vy) from its neighbour sums and the
 * external points (predator, food, walls). Rule order and accumulation follow seed 000. */
static inline void RULES_FN(rules_accel)(const RULES_FN(rules_k) * k, const RULES_FN(rules_acc) * a,
                                         R x, R y, R vx, R vy, R *ax_out, R *ay_out) {
    R ax = 0, ay = 0, fx, fy;
    if (a->separated) {
        RULES_FN(rules_steer)(k, a->sx, a->sy, vx, vy, &fx, &fy);
        ax += k->w_sep * fx;
        ay += k->w_sep * fy;
    }
    if (a->n) {
        RULES_FN(rules_steer)(k, a->mvx, a->mvy, vx, vy, &fx, &fy);
        ax += k->w_align * fx;
        ay += k->w_align * fy;
        RULES_FN(rules_steer)(k, a->cx, a->cy, vx, vy, &fx, &fy);
        ax += k->w_coh * fx;
        ay += k->w_coh * fy;
    }
    if (k->predator) { /* flee: steer along the offset from the predator to the boid */
        R dx, dy;
        RULES_FN(rules_offset)(k, k->pred_x, k->pred_y, x, y, &dx, &dy);
        if (dx * dx + dy * dy < k->pred_r2) {
            RULES_FN(rules_steer)(k, dx, dy, vx, vy, &fx, &fy);
            ax += k->w_pred * fx;
            ay += k->w_pred * fy;
        }
    }
    if (k->food) { /* seek: steer along the offset from the boid to the food */
        R dx, dy;
        RULES_FN(rules_offset)(k, x, y, k->food_x, k->food_y, &dx, &dy);
        if (dx * dx + dy * dy < k->food_r2) {
            RULES_FN(rules_steer)(k, dx, dy, vx, vy, &fx, &fy);
            ax += k->w_food * fx;
            ay += k->w_food * fy;
        }
    }
    if (k->walls) { /* steer inward within the margin of each edge */
        R tx = 0, ty = 0;
        if (x < k->wall_margin) tx += 1;
        if (x > k->width - k->wall_margin) tx -= 1;
        if (y < k->wall_margin) ty += 1;
        if (y > k->height - k->wall_margin) ty -= 1;
        if (tx != 0 || ty != 0) {
            RULES_FN(rules_steer)(k, tx, ty, vx, vy, &fx, &fy);
            ax += k->w_wall * fx;
            ay += k->w_wall * fy;
        }
    }
    *ax_out = ax;
    *ay_out = ay;
}

/* Applies the boundary to a moved position: wrap once into [0, L) (a step is validated to
 * be under half the world), reflect off the walls (setting *flip_x / *flip_y so the caller
 * mirrors its velocity), or nothing on the open plane. */
static inline void RULES_FN(rules_boundary)(const RULES_FN(rules_k) * k, R *x, R *y, int *flip_x,
                                            int *flip_y) {
    *flip_x = *flip_y = 0;
    if (k->wrap) {
        if (*x < 0)
            *x += k->width;
        else if (*x >= k->width)
            *x -= k->width;
        if (*y < 0)
            *y += k->height;
        else if (*y >= k->height)
            *y -= k->height;
    } else if (k->walls) {
        if (*x < 0)
            *x = -*x, *flip_x = 1;
        else if (*x > k->width)
            *x = k->width - (*x - k->width), *flip_x = 1;
        if (*y < 0)
            *y = -*y, *flip_y = 1;
        else if (*y > k->height)
            *y = k->height - (*y - k->height), *flip_y = 1;
    }
}

/* Applies the acceleration, clamps the speed to [min_speed, max_speed] (0 stays 0), moves
 * by v * dt and applies the boundary: wrap once (max_speed * dt is validated to be below
 * half the smaller world side), reflect off the walls, or nothing on the open plane. */
static inline void RULES_FN(rules_integrate)(const RULES_FN(rules_k) * k, R ax, R ay, R *x, R *y,
                                             R *vx, R *vy) {
    R nvx = *vx + ax, nvy = *vy + ay;
    R v = (R)sqrt(nvx * nvx + nvy * nvy);
    if (v > k->max_speed) {
        nvx = nvx / v * k->max_speed;
        nvy = nvy / v * k->max_speed;
    } else if (0 < v && v < k->min_speed) {
        nvx = nvx / v * k->min_speed;
        nvy = nvy / v * k->min_speed;
    }
    R nx = *x + nvx * k->dt, ny = *y + nvy * k->dt;
    int flip_x, flip_y;
    RULES_FN(rules_boundary)(k, &nx, &ny, &flip_x, &flip_y);
    if (flip_x) nvx = -nvx;
    if (flip_y) nvy = -nvy;
    *x = nx;
    *y = ny;
    *vx = nvx;
    *vy = nvy;
}

/* ---- Vicsek model (seed 003) ----------------------------------------------------------
 * New heading = circular mean of the headings of every agent within R (distance <= R,
 * itself included) or of itself and its k nearest, plus noise uniform in [-eta/2, eta/2];
 * positions advance with the old velocity; the new heading gives the next velocity at the
 * constant speed v0. A vector sum shorter than n * RULES_VICSEK_TOL (n unit vectors summed,
 * each carrying a rounding error of about one unit in the last place) has no defined
 * direction and keeps the previous heading. */
#define RULES_VICSEK_TOL (sizeof(R) == sizeof(float) ? (R)1e-5 : (R)1e-12)

/* Adds agent j's heading (its unit velocity) to the sum; a resting agent adds nothing. */
static inline void RULES_FN(vicsek_add)(R vx, R vy, R *sx, R *sy) {
    R v = (R)sqrt(vx * vx + vy * vy);
    if (v > 0) {
        *sx += vx / v;
        *sy += vy / v;
    }
}

/* Moves the agent with its old velocity and gives it the new heading's velocity. n is the
 * number of headings summed (itself included), u the noise variate in [0, 1). */
static inline void RULES_FN(vicsek_update)(const RULES_FN(rules_k) * k, R sx, R sy, long n, R u,
                                           R noise, R speed, R *x, R *y, R *vx, R *vy) {
    R heading;
    if ((R)sqrt(sx * sx + sy * sy) <= (R)n * RULES_VICSEK_TOL)
        heading = (R)atan2(*vy, *vx); /* zero sum: keep the previous heading */
    else
        heading = (R)atan2(sy, sx);
    heading += noise * (u - (R)0.5);
    R nx = *x + *vx * k->dt, ny = *y + *vy * k->dt;
    int flip_x, flip_y;
    RULES_FN(rules_boundary)(k, &nx, &ny, &flip_x, &flip_y);
    if (flip_x) heading = (R)M_PI - heading; /* the heading mirrors with the velocity */
    if (flip_y) heading = -heading;
    *x = nx;
    *y = ny;
    *vx = speed * (R)cos(heading);
    *vy = speed * (R)sin(heading);
}

#undef R
