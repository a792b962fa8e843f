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

/* Sums over the neighbours of one boid. */
typedef struct RULES_FN(rules_acc) {
    long n;        /* neighbours seen */
    R mvx, mvy;    /* sum of neighbour velocities (alignment target) */
    R cx, cy;      /* sum of offsets to neighbours (cohesion target) */
    R sx, sy;      /* sum of -d / |d|^2 over close neighbours (separation target) */
    int separated; /* at least one neighbour with 0 < |d|^2 < separation_radius^2 */
} RULES_FN(rules_acc);

/* An interaction point that is on: position, radius squared, weight. */
typedef struct RULES_FN(rules_point) {
    R x, y, r2, w;
} RULES_FN(rules_point);

/* An obstacle in R. Circle: centre (x0, y0) = (mx, my), radius r, r2 = r * r. Segment: ends
 * (x0, y0) and (x1, y1), midpoint (mx, my), r = r2 = 0. bound: the distance from (mx, my)
 * within which the obstacle lies (the radius, or half the length), enlarged for rounding
 * (rules_near). Under wrap the obstacle is moved by whole world periods so that (mx, my)
 * lies in the world (rules_k_set_interact). */
typedef struct RULES_FN(rules_obst) {
    int circle;
    R x0, y0, x1, y1, mx, my, r, r2, bound;
} RULES_FN(rules_obst);

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
    /* The interaction table (rules_k_set_interact; none after rules_k_init). */
    R avoid_dist, w_avoid, clear; /* look-ahead, its weight, clearance (separation_radius) */
    R reach_pad;                  /* the look-ahead and its clearance, 1/256 larger (rules_near) */
    int npred, nattr, nobst;
    RULES_FN(rules_point) pts[2 * BOIDS_MAX_POINTS]; /* the predators on, then the attractors */
    RULES_FN(rules_obst) obst[BOIDS_MAX_OBSTACLES];
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
    k->avoid_dist = (R)p->avoid_distance;
    k->w_avoid = (R)p->avoid_weight;
    k->clear = (R)p->separation_radius;
    k->reach_pad = (R)((p->avoid_distance + p->separation_radius) * (1 + 1.0 / 256));
    k->npred = k->nattr = k->nobst = 0;
}

/* Puts the table's points that are on (the predators, then the attractors, each in index
 * order) and its obstacles into k, in R; rules_k_init leaves none, and so does t NULL. Under
 * wrap each obstacle moves by whole world periods so that its midpoint lies in the world:
 * the rules pick, per boid, the image whose midpoint is nearest (rules_near, rules_seg_rel),
 * the only one a step or the look-ahead can reach when boids_interact_check_world holds. */
static inline void RULES_FN(rules_k_set_interact)(RULES_FN(rules_k) * k, const boids_interact *t) {
    k->npred = k->nattr = k->nobst = 0;
    if (!t) return;
    for (int i = 0; i < 2 * BOIDS_MAX_POINTS; i++) {
        const int pred = i < BOIDS_MAX_POINTS;
        const boids_point *q = pred ? &t->predators[i] : &t->attractors[i - BOIDS_MAX_POINTS];
        if (!q->on) continue;
        RULES_FN(rules_point) *o = &k->pts[k->npred + k->nattr];
        o->x = (R)q->x;
        o->y = (R)q->y;
        o->r2 = (R)q->radius * (R)q->radius;
        o->w = (R)q->weight;
        if (pred)
            k->npred++;
        else
            k->nattr++;
    }
    for (int i = 0; i < t->obstacle_count; i++) {
        const boids_obstacle *b = &t->obstacles[i];
        RULES_FN(rules_obst) *o = &k->obst[k->nobst++];
        const int circle = b->kind == BOIDS_OBSTACLE_CIRCLE;
        double mx = circle ? b->x0 : 0.5 * b->x0 + 0.5 * b->x1;
        double my = circle ? b->y0 : 0.5 * b->y0 + 0.5 * b->y1;
        double sx = 0, sy = 0;
        if (k->wrap) {
            sx = floor(mx / (double)k->width) * (double)k->width;
            sy = floor(my / (double)k->height) * (double)k->height;
        }
        o->circle = circle;
        o->x0 = (R)(b->x0 - sx);
        o->y0 = (R)(b->y0 - sy);
        o->x1 = circle ? o->x0 : (R)(b->x1 - sx);
        o->y1 = circle ? o->y0 : (R)(b->y1 - sy);
        o->mx = (R)(mx - sx);
        o->my = (R)(my - sy);
        o->r = circle ? (R)b->radius : 0;
        o->r2 = o->r * o->r;
        double half = circle ? b->radius : 0.5 * hypot(b->x1 - b->x0, b->y1 - b->y0);
        double mag = fabs(mx - sx) + fabs(my - sy) + (double)k->width + (double)k->height;
        o->bound = (R)(half * (1 + 1.0 / 256) + mag / 65536); /* rules_near */
    }
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

/* ---- obstacles: geometry in R (README, "Interaction points and obstacles") ------------- */

/* Can obstacle o act on a boid at (x, y) that reaches `reach` beyond it (reach including
 * rules_slack of the boid)? A cheap test that never says no wrongly: every decision below
 * concerns points within half a length (or a radius) of the midpoint; o->bound adds 1/256 of
 * that and, with rules_slack, 2^-16 of the magnitudes of the coordinates and the world, far
 * above the rounding of an offset (2^-24 of them in float). */
static inline int RULES_FN(rules_near)(const RULES_FN(rules_k) * k, const RULES_FN(rules_obst) * o,
                                       R x, R y, R reach) {
    R dx, dy;
    RULES_FN(rules_offset)(k, x, y, o->mx, o->my, &dx, &dy);
    R rr = o->bound + reach;
    return dx * dx + dy * dy < rr * rr;
}

/* The boid's part of rules_near's slack. */
static inline R RULES_FN(rules_slack)(R x, R y) {
    return ((R)fabs(x) + (R)fabs(y)) * ((R)1 / 65536);
}

/* Is (x, y) strictly inside circle o (its rim is outside)? */
static inline int RULES_FN(rules_in_circle)(const RULES_FN(rules_k) * k,
                                            const RULES_FN(rules_obst) * o, R x, R y) {
    R dx, dy;
    RULES_FN(rules_offset)(k, x, y, o->x0, o->y0, &dx, &dy);
    return dx * dx + dy * dy < o->r2;
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

/* Look-ahead avoidance of obstacle o by a boid at (x, y) whose look-ahead ends at (ex, ey)
 * from it: 1 and the direction to steer along in (tx, ty) if the look-ahead touches o or
 * comes closer than the clearance to it (a circle's rim, a segment), else 0. The direction
 * goes from o's point closest to the look-ahead to the look-ahead's point closest to o:
 * sideways round a circle, away from a wall. A look-ahead through a circle's centre steers
 * straight away from it; one that touches a segment, along the segment's normal on the
 * boid's side. */
static inline int RULES_FN(rules_avoid_dir)(const RULES_FN(rules_k) * k,
                                            const RULES_FN(rules_obst) * o, R x, R y, R ex, R ey,
                                            R *tx, R *ty) {
    if (o->circle) {
        R dx, dy;
        RULES_FN(rules_offset)(k, x, y, o->x0, o->y0, &dx, &dy);
        R t = RULES_FN(rules_seg_t)(dx, dy, 0, 0, ex, ey);
        R wx = ex * t - dx, wy = ey * t - dy;
        R rc = o->r + k->clear;
        if (!(wx * wx + wy * wy < rc * rc)) return 0;
        if (wx == 0 && wy == 0) wx = -dx, wy = -dy;
        *tx = wx;
        *ty = wy;
        return 1;
    }
    R ax, ay, bx, by;
    RULES_FN(rules_seg_rel)(k, o, x, y, &ax, &ay, &bx, &by);
    if (RULES_FN(rules_touch)(ex, ey, ax, ay, bx, by)) {
        RULES_FN(rules_seg_normal)(ax, ay, bx, by, tx, ty);
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
    *tx = bwx;
    *ty = bwy;
    return best < k->clear * k->clear;
}

/* The points of the table (flee each predator, seek each attractor within its radius, as
 * the parameters' predator and food), then look-ahead avoidance of every obstacle. */
static inline void RULES_FN(rules_interact)(const RULES_FN(rules_k) * k, R x, R y, R vx, R vy,
                                            R *ax, R *ay) {
    R fx, fy, dx, dy;
    for (int i = 0; i < k->npred + k->nattr; i++) {
        const RULES_FN(rules_point) *q = &k->pts[i];
        if (i < k->npred)
            RULES_FN(rules_offset)(k, q->x, q->y, x, y, &dx, &dy);
        else
            RULES_FN(rules_offset)(k, x, y, q->x, q->y, &dx, &dy);
        if (dx * dx + dy * dy < q->r2) {
            RULES_FN(rules_steer)(k, dx, dy, vx, vy, &fx, &fy);
            *ax += q->w * fx;
            *ay += q->w * fy;
        }
    }
    if (k->nobst == 0) return;
    R s = (R)sqrt(vx * vx + vy * vy);
    if (s == 0) return; /* a boid at rest looks nowhere */
    R ex = vx / s * k->avoid_dist, ey = vy / s * k->avoid_dist;
    R reach = k->reach_pad + RULES_FN(rules_slack)(x, y);
    for (int i = 0; i < k->nobst; i++) {
        if (!RULES_FN(rules_near)(k, &k->obst[i], x, y, reach) ||
            !RULES_FN(rules_avoid_dir)(k, &k->obst[i], x, y, ex, ey, &dx, &dy))
            continue;
        RULES_FN(rules_steer)(k, dx, dy, vx, vy, &fx, &fy);
        *ax += k->w_avoid * fx;
        *ay += k->w_avoid * fy;
    }
}

/* Acceleration of a boid at (x, y) with velocity (vx, vy) from its neighbour sums and the
 * external points (predator, food, walls), then the interaction table's points and obstacles.
 * Rule order and accumulation follow seed 000. */
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
    if (k->npred + k->nattr + k->nobst) RULES_FN(rules_interact)(k, x, y, vx, vy, &ax, &ay);
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

/* Does the move from (x, y) by (mx, my) to (nx, ny) enter obstacle o: end inside a circle
 * (exactly rules_in_circle of the end) or pass within its radius of the centre, or touch a
 * segment? A boid on a segment (placed there) may leave it: a move from it to a point off
 * its line meets the line at the start only. */
static inline int RULES_FN(rules_hit)(const RULES_FN(rules_k) * k, const RULES_FN(rules_obst) * o,
                                      R x, R y, R nx, R ny, R mx, R my) {
    R ax, ay, bx, by;
    if (o->circle) {
        if (RULES_FN(rules_in_circle)(k, o, nx, ny)) return 1;
        RULES_FN(rules_offset)(k, x, y, o->x0, o->y0, &ax, &ay);
        R t = RULES_FN(rules_seg_t)(ax, ay, 0, 0, mx, my);
        R cx = mx * t - ax, cy = my * t - ay;
        return cx * cx + cy * cy < o->r2;
    }
    RULES_FN(rules_seg_rel)(k, o, x, y, &ax, &ay, &bx, &by);
    if (!RULES_FN(rules_touch)(mx, my, ax, ay, bx, by)) return 0;
    R abx = bx - ax, aby = by - ay;
    int on = aby * ax - abx * ay == 0 && RULES_FN(rules_in_box)(0, 0, ax, ay, bx, by);
    return !on || abx * (my - ay) - aby * (mx - ax) == 0;
}

/* Mirrors (vx, vy) about the line of normal (nx, ny) when it heads against the normal. */
static inline void RULES_FN(rules_mirror)(R nx, R ny, R *vx, R *vy) {
    R dot = *vx * nx + *vy * ny, nn = nx * nx + ny * ny;
    if (!(dot < 0) || nn == 0) return;
    R q = 2 * dot / nn;
    *vx = *vx - q * nx;
    *vy = *vy - q * ny;
}

/* The first circle of the table that (x, y) is strictly inside, or -1. */
static inline int RULES_FN(rules_circle_at)(const RULES_FN(rules_k) * k, R x, R y) {
    for (int i = 0; i < k->nobst; i++)
        if (k->obst[i].circle && RULES_FN(rules_in_circle)(k, &k->obst[i], x, y)) return i;
    return -1;
}

/* Moves a boid at (x, y) inside circle o out along the radial from the centre (along +x from
 * the centre itself) to 2^-18 of the radius beyond the rim, doubling that margin until the
 * point, after the world boundary, tests outside in R; 16 tries. Where that point lies inside
 * another circle (overlapping circles), it goes on along the same ray to that circle's far
 * rim (the ray's exit, t = sqrt(b^2 - c) - b from the offset e to its centre, b = e.u, c =
 * e.e - r^2, plus the same doubling margin of its radius), once for each circle it still
 * lands in: a ray leaves each circle once, so at most one round per circle of the table. A
 * point that stays inside after that (possible only with a wall in the way) is kept: the
 * next step expels it again. */
static inline void RULES_FN(rules_expel)(const RULES_FN(rules_k) * k,
                                         const RULES_FN(rules_obst) * o, R *x, R *y) {
    R dx, dy, qx = *x, qy = *y, g = (R)1 / 262144;
    int fx, fy;
    RULES_FN(rules_offset)(k, o->x0, o->y0, *x, *y, &dx, &dy);
    R d = (R)sqrt(dx * dx + dy * dy);
    if (d == 0) dx = 1, dy = 0, d = 1;
    for (int t = 0; t < 16; t++, g *= 2) {
        R s = o->r / d * (1 + g);
        qx = o->x0 + dx * s;
        qy = o->y0 + dy * s;
        RULES_FN(rules_boundary)(k, &qx, &qy, &fx, &fy);
        if (!RULES_FN(rules_in_circle)(k, o, qx, qy)) break;
    }
    R ux = dx / d, uy = dy / d;
    for (int pass = 0, i; pass < k->nobst && (i = RULES_FN(rules_circle_at)(k, qx, qy)) >= 0;
         pass++) {
        const RULES_FN(rules_obst) *c = &k->obst[i];
        R ex, ey, px = qx, py = qy;
        RULES_FN(rules_offset)(k, c->x0, c->y0, px, py, &ex, &ey);
        R b = ex * ux + ey * uy, cc = ex * ex + ey * ey - c->r2;
        R leave = (R)sqrt(b * b - cc) - b;
        g = (R)1 / 262144;
        for (int t = 0; t < 16; t++, g *= 2) {
            R s = leave + c->r * g;
            qx = px + ux * s;
            qy = py + uy * s;
            RULES_FN(rules_boundary)(k, &qx, &qy, &fx, &fy);
            if (!RULES_FN(rules_in_circle)(k, c, qx, qy)) break;
        }
    }
    *x = qx;
    *y = qy;
}

/* The obstacles' hard rule for a boid moving from (x, y) to (*nx, *ny) (the world boundary
 * applied) with new velocity (*vx, *vy): a boid inside a circle (the first in table order)
 * is expelled (rules_expel) instead; a move that enters an obstacle (rules_hit; the first
 * in table order decides) does not happen: the boid stays at (x, y) and its velocity is
 * mirrored about that obstacle's normal at the boid (rules_mirror; circle: the radial,
 * segment: rules_seg_normal) so that the next step leads away. */
static inline void RULES_FN(rules_block)(const RULES_FN(rules_k) * k, R x, R y, R *nx, R *ny, R *vx,
                                         R *vy) {
    R mx, my, ox, oy, ax, ay, bx, by;
    RULES_FN(rules_offset)(k, x, y, *nx, *ny, &mx, &my);
    R reach = (R)fabs(mx) + (R)fabs(my) + RULES_FN(rules_slack)(x, y);
    uint64_t near = 0; /* the obstacles within reach, tested once */
    for (int i = 0; i < k->nobst; i++) {
        const RULES_FN(rules_obst) *o = &k->obst[i];
        if (!RULES_FN(rules_near)(k, o, x, y, reach)) continue;
        near |= (uint64_t)1 << i;
        if (o->circle && RULES_FN(rules_in_circle)(k, o, x, y)) {
            *nx = x;
            *ny = y;
            RULES_FN(rules_expel)(k, o, nx, ny);
            return;
        }
    }
    for (int i = 0; i < k->nobst && near >> i; i++) {
        const RULES_FN(rules_obst) *o = &k->obst[i];
        if (!(near >> i & 1) || !RULES_FN(rules_hit)(k, o, x, y, *nx, *ny, mx, my)) continue;
        if (o->circle) {
            RULES_FN(rules_offset)(k, o->x0, o->y0, x, y, &ox, &oy);
        } else {
            RULES_FN(rules_seg_rel)(k, o, x, y, &ax, &ay, &bx, &by);
            RULES_FN(rules_seg_normal)(ax, ay, bx, by, &ox, &oy);
        }
        RULES_FN(rules_mirror)(ox, oy, vx, vy);
        *nx = x;
        *ny = y;
        return;
    }
}

/* Applies the acceleration, clamps the speed to [min_speed, max_speed] (0 stays 0), moves
 * by v * dt and applies the boundary: wrap once (max_speed * dt is validated to be below
 * half the smaller world side), reflect off the walls, or nothing on the open plane; then
 * the obstacles' hard rule (rules_block). */
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
    if (k->nobst) RULES_FN(rules_block)(k, *x, *y, &nx, &ny, &nvx, &nvy);
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
 * number of headings summed (itself included), u the noise variate in [0, 1). Obstacles: the
 * same hard rule as Reynolds boids (rules_block, the new heading mirrored); the table's
 * points and the avoidance steering do not act in this model. */
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
    R hx = (R)cos(heading), hy = (R)sin(heading);
    if (k->nobst) RULES_FN(rules_block)(k, *x, *y, &nx, &ny, &hx, &hy);
    *x = nx;
    *y = ny;
    *vx = speed * hx;
    *vy = speed * hy;
}

#undef R
