/* SPDX-License-Identifier: MIT */
/* `boids verify` with an interaction table: the float band of the table's decisions. */
#include <float.h>
#include <math.h>
#include <stddef.h>

#include "verify.h"

#define RULES_REAL     double
#define RULES_DIM      2
#define RULES_FN(name) name##_d2
#include "../core/rules.h" /* the model, in double */

/* rules_offset from (x, y) to b, into (dx, dy). */
static void offset_xy(const rules_k_d2 *k, double x, double y, const double b[2], double *dx,
                      double *dy) {
    const double a[2] = {x, y};
    double d[2];
    rules_offset_d2(k, a, b, d);
    *dx = d[0];
    *dy = d[1];
}

/* Distance from p to segment a b. */
static double pt_seg(double px, double py, double ax, double ay, double bx, double by) {
    double t = rules_seg_t_d2(px, py, ax, ay, bx - ax, by - ay);
    return hypot(px - (ax + (bx - ax) * t), py - (ay + (by - ay) * t));
}

/* The least distance from an end of one of the segments (from the origin to m, from a to b)
 * to the other: how far their touching, or not, is from changing. */
static double ends_apart(double mx, double my, double ax, double ay, double bx, double by) {
    return fmin(fmin(pt_seg(0, 0, ax, ay, bx, by), pt_seg(mx, my, ax, ay, bx, by)),
                fmin(pt_seg(ax, ay, 0, 0, mx, my), pt_seg(bx, by, 0, 0, mx, my)));
}

/* Is a decision about obstacle o within band b of its threshold, for the segment (mx, my)
 * from a boid at (x, y) (its move: thr 0; its look-ahead: thr the clearance)? The segment's
 * distance to o against thr (a circle: its rim), touching against not (an end of one
 * segment near the other), the segment's end against the rim, and under wrap the choice of
 * o's image. */
static int near_threshold(const rules_k_d2 *k, const rules_obst_d2 *o, double x, double y,
                          double mx, double my, double thr, double b) {
    if (k->wrap &&
        (fabs(fabs(o->mx - x) - k->half_w) <= b || fabs(fabs(o->my - y) - k->half_h) <= b))
        return 1;
    if (o->round) {
        double dx, dy;
        offset_xy(k, x, y, o->a, &dx, &dy);
        double rim = o->r + thr;
        return fabs(pt_seg(dx, dy, 0, 0, mx, my) - rim) <= b ||
               fabs(hypot(dx - mx, dy - my) - rim) <= b;
    }
    double ax, ay, bx, by;
    rules_seg_rel_d2(k, o, x, y, &ax, &ay, &bx, &by);
    double e = ends_apart(mx, my, ax, ay, bx, by);
    double d = rules_touch_d2(mx, my, ax, ay, bx, by) ? 0 : e; /* apart: an end is closest */
    return e <= b || fabs(d - thr) <= b;
}

/* Does some obstacle near the boid make a decision within the band for the segment m? */
static int any_near(const rules_k_d2 *k, double x, double y, double mx, double my, double thr,
                    double b) {
    const double p[2] = {x, y};
    for (int i = 0; i < k->tab->nobst; i++)
        if (rules_near_d2(k, &k->tab->obst[i], p, thr + fabs(mx) + fabs(my) + b) &&
            near_threshold(k, &k->tab->obst[i], x, y, mx, my, thr, b))
            return 1;
    return 0;
}

/* The moves the boid may have meant: the one it made, or, when it stayed put (blocked), its
 * velocity then, as it is or mirrored back about any obstacle's normal (the rule mirrors it
 * about the one that blocked it); Vicsek moves with its old velocity, known. */
static int move_near(const rules_k_d2 *k, const boids_params *p, const boids_flock *f,
                     const boids_flock *ref, size_t i, double b) {
    double x = f->x[i], y = f->y[i], mx, my;
    if (p->model == BOIDS_MODEL_VICSEK)
        return any_near(k, x, y, f->vx[i] * p->dt, f->vy[i] * p->dt, 0, b);
    if (ref->x[i] != x || ref->y[i] != y) {
        const double to[2] = {ref->x[i], ref->y[i]};
        offset_xy(k, x, y, to, &mx, &my);
        return any_near(k, x, y, mx, my, 0, b);
    }
    double vx = ref->vx[i], vy = ref->vy[i];
    if (any_near(k, x, y, vx * p->dt, vy * p->dt, 0, b)) return 1;
    const double at[2] = {x, y};
    for (int o = 0; o < k->tab->nobst; o++) {
        double nrm[2];
        rules_normal_d2(k, &k->tab->obst[o], at, nrm);
        const double nx = nrm[0], ny = nrm[1];
        double nn = nx * nx + ny * ny, q = nn > 0 ? 2 * (vx * nx + vy * ny) / nn : 0;
        if (any_near(k, x, y, (vx - q * nx) * p->dt, (vy - q * ny) * p->dt, 0, b)) return 1;
    }
    return 0;
}

/* One boid's table decisions within the band: a point's radius, a circle's rim around its
 * start (expelled or not), the look-ahead's clearance (Reynolds), the move (unless it was
 * expelled instead). */
static int band_boid(const rules_k_d2 *k, const boids_params *p, const boids_flock *f,
                     const boids_flock *ref, size_t i, double b) {
    const int vicsek = p->model == BOIDS_MODEL_VICSEK;
    double x = f->x[i], y = f->y[i], vx = f->vx[i], vy = f->vy[i], dx, dy;
    const rules_table_d2 *t = k->tab;
    const double at[2] = {x, y};
    for (int j = 0; j < t->npred + t->nattr && !vicsek; j++) {
        offset_xy(k, x, y, t->pts[j].at, &dx, &dy);
        if (fabs(hypot(dx, dy) - sqrt(t->pts[j].r2)) <= b) return 1;
    }
    int inside = 0;
    for (int j = 0; j < t->nobst; j++) {
        if (!t->obst[j].round) continue;
        offset_xy(k, x, y, t->obst[j].a, &dx, &dy);
        if (fabs(hypot(dx, dy) - t->obst[j].r) <= b) return 1;
        inside |= rules_in_round_d2(k, &t->obst[j], at);
    }
    double s = hypot(vx, vy);
    if (!vicsek && s > 0 &&
        any_near(k, x, y, vx / s * k->avoid_dist, vy / s * k->avoid_dist, k->clear, b))
        return 1;
    return !inside && move_near(k, p, f, ref, i, b); /* inside: expelled, not moved */
}

/* 64 float spacings of the world size, of a step and of the look-ahead: far above the float
 * error of an offset, a move (a velocity summed from a few dozen capped forces) or the
 * look-ahead's end. */
double verify_interact_band(const boids_params *p) {
    double step = (p->model == BOIDS_MODEL_VICSEK ? p->speed : p->max_speed) * p->dt;
    return 64 * (verify_eps_pos(p) + FLT_EPSILON * (step + p->avoid_distance));
}

void verify_band_interact(const boids_params *p, const boids_interact *t, const boids_flock *f,
                          const boids_flock *ref, verify_amb *amb) {
    if (!t) return;
    if (f->z) {
        verify_band_interact3(p, t, f, ref, amb);
        return;
    }
    rules_k_d2 k;
    rules_table_d2 tab;
    rules_k_init_d2(&k, p);
    rules_k_set_interact_d2(&k, &tab, t);
    if (!k.tab) return; /* nothing on: no decision of the table's */
    double b = verify_interact_band(p);
    long n = (long)f->n;
#pragma omp parallel for schedule(dynamic, 64)
    for (long i = 0; i < n; i++)
        if (band_boid(&k, p, f, ref, (size_t)i, b)) verify_amb_self(&amb[i]);
}
