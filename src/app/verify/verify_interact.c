/* SPDX-License-Identifier: MIT */
#ifndef RULES_DIM
/* `boids verify` with an interaction table: the float band of the table's decisions, for the
 * plane (its points, circles and segments) and the box (its points with their z, and
 * spheres). The band is written once over the dimension, below `#else`, with rules.h's
 * instance of that dimension in double, and compiled twice: this file is rules_instances.h's
 * instance file (names _d2, _d3). What the plane adds, its segments, sits in one
 * `#if D == 2` section. */
#include <float.h>
#include <math.h>
#include <stddef.h>

#include "verify/verify.h"

/* 64 float spacings of the world size, of a step (the fastest species') and of the
 * look-ahead: far above the float error of an offset, a move (a velocity summed from a few
 * dozen capped forces) or the look-ahead's end. */
double verify_interact_band(const boids_params *p) {
    double step = 0;
    for (int s = 0; s < (p->species > 1 ? p->species : 1); s++) {
        const boids_params q = boids_params_of_species(p, s);
        step = fmax(step, (q.model == BOIDS_MODEL_VICSEK ? q.speed : q.max_speed) * q.dt);
    }
    return 64 * (verify_eps_pos(p) + FLT_EPSILON * (step + p->avoid_distance));
}

#define RULES_INSTANCE_DOUBLE                            /* the model, in double */
#define RULES_INSTANCE_FILE   "verify/verify_interact.c" /* the band, over RULES_DIM */
#include "../core/rules_instances.h"
#undef RULES_INSTANCE_FILE
#undef RULES_INSTANCE_DOUBLE

void verify_band_interact(const boids_params *p, const boids_interact *t, const boids_flock *f,
                          const boids_flock *ref, verify_amb *amb) {
    if (!t) return;
    if (f->z)
        band_interact_d3(p, t, f, ref, amb);
    else
        band_interact_d2(p, t, f, ref, amb);
}

#else /* the band over the dimension RULES_DIM, in double */

#define D RULES_DIM

#define K    RULES_FN(rules_k)
#define OBST RULES_FN(rules_obst)

static double RULES_FN(norm)(const double v[D]) {
    return sqrt(RULES_FN(rules_dot)(v, v));
}

/* Distance from q to the segment from the origin to m. */
static double RULES_FN(pt_seg0)(const double q[D], const double m[D]) {
    double t = RULES_FN(rules_seg_t0)(q, m), w[D];
    for (int c = 0; c < D; c++) w[c] = q[c] - m[c] * t;
    return RULES_FN(norm)(w);
}

#if D == 2
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

/* A segment's decision for the segment m from a boid at p against thr: touching against not
 * (an end of one segment near the other), and the distance apart against thr. */
static int seg_threshold(const K *k, const OBST *o, const double p[2], const double m[2],
                         double thr, double b) {
    double ax, ay, bx, by;
    rules_seg_rel_d2(k, o, p[0], p[1], &ax, &ay, &bx, &by);
    double e = ends_apart(m[0], m[1], ax, ay, bx, by);
    double d = rules_touch_d2(m[0], m[1], ax, ay, bx, by) ? 0 : e; /* apart: an end is closest */
    return e <= b || fabs(d - thr) <= b;
}
#endif

/* Is a decision about obstacle o within band b of its threshold, for the segment m from a
 * boid at p (its move: thr 0; its look-ahead: thr the clearance)? Under wrap the choice of
 * o's image; a round obstacle: the segment's distance to the centre against the radius plus
 * thr (rules_hit's "passes within" and rules_avoid_dir's test, whose interior and end cases
 * meet where their distances agree) and the segment's end against it (the move's "ends
 * inside"); a segment: seg_threshold. */
static int RULES_FN(near_threshold)(const K *k, const OBST *o, const double p[D], const double m[D],
                                    double thr, double b) {
    for (int c = 0; k->wrap && c < D; c++)
        if (fabs(fabs(o->m[c] - p[c]) - k->half[c]) <= b) return 1;
#if D == 2
    if (!o->round) return seg_threshold(k, o, p, m, thr, b);
#endif
    double d[D], e[D];
    RULES_FN(rules_offset)(k, p, o->a, d);
    const double rim = o->r + thr;
    for (int c = 0; c < D; c++) e[c] = d[c] - m[c];
    return fabs(RULES_FN(pt_seg0)(d, m) - rim) <= b || fabs(RULES_FN(norm)(e) - rim) <= b;
}

/* Does some obstacle near the boid make a decision within the band for the segment m? */
static int RULES_FN(any_near)(const K *k, const double p[D], const double m[D], double thr,
                              double b) {
    const RULES_FN(rules_table) *t = k->tab;
    double reach = thr;
    for (int c = 0; c < D; c++) reach += fabs(m[c]);
    reach += b;
    for (int i = 0; i < t->nobst; i++)
        if (RULES_FN(rules_near)(k, &t->obst[i], p, reach) &&
            RULES_FN(near_threshold)(k, &t->obst[i], p, m, thr, b))
            return 1;
    return 0;
}

/* The moves the boid may have meant: the one it made, or, when it stayed put (blocked), its
 * velocity then, as it is or mirrored back about any obstacle's normal (the rule mirrors it
 * about the one that blocked it); Vicsek moves with its old velocity, known. */
static int RULES_FN(move_near)(const K *k, const boids_params *p, const boids_flock *f,
                               const boids_flock *ref, size_t i, double b) {
    const double *const at[3] = {f->x, f->y, f->z}, *const vel[3] = {f->vx, f->vy, f->vz};
    const double *const to[3] = {ref->x, ref->y, ref->z}, *const rv[3] = {ref->vx, ref->vy,
                                                                          ref->vz};
    const double dt = p->dt;
    double x[D], m[D], v[D], end[D];
    int moved = 0;
    for (int c = 0; c < D; c++) {
        x[c] = at[c][i], end[c] = to[c][i], v[c] = rv[c][i];
        moved |= end[c] != x[c];
    }
    if (p->model == BOIDS_MODEL_VICSEK) {
        for (int c = 0; c < D; c++) m[c] = vel[c][i] * dt;
        return RULES_FN(any_near)(k, x, m, 0, b);
    }
    if (moved) {
        RULES_FN(rules_offset)(k, x, end, m);
        return RULES_FN(any_near)(k, x, m, 0, b);
    }
    for (int c = 0; c < D; c++) m[c] = v[c] * dt;
    if (RULES_FN(any_near)(k, x, m, 0, b)) return 1;
    for (int o = 0; o < k->tab->nobst; o++) {
        double n[D];
        RULES_FN(rules_normal)(k, &k->tab->obst[o], x, n);
        double nn = RULES_FN(rules_dot)(n, n);
        double q = nn > 0 ? 2 * RULES_FN(rules_dot)(v, n) / nn : 0;
        for (int c = 0; c < D; c++) m[c] = (v[c] - q * n[c]) * dt;
        if (RULES_FN(any_near)(k, x, m, 0, b)) return 1;
    }
    return 0;
}

/* One boid's table decisions within the band: a point's radius, a round obstacle's rim
 * around its start (expelled or not), the look-ahead's clearance (Reynolds), the move
 * (unless it was expelled instead). */
static int RULES_FN(band_boid)(const K *k, const boids_params *p, const boids_flock *f,
                               const boids_flock *ref, size_t i, double b) {
    const RULES_FN(rules_table) *t = k->tab;
    const int vicsek = p->model == BOIDS_MODEL_VICSEK;
    const double *const at[3] = {f->x, f->y, f->z}, *const vel[3] = {f->vx, f->vy, f->vz};
    double x[D], v[D], d[D];
    for (int c = 0; c < D; c++) x[c] = at[c][i], v[c] = vel[c][i];
    for (int j = 0; j < t->npred + t->nattr && !vicsek; j++) {
        RULES_FN(rules_offset)(k, x, t->pts[j].at, d);
        if (fabs(RULES_FN(norm)(d) - sqrt(t->pts[j].r2)) <= b) return 1;
    }
    int inside = 0;
    for (int j = 0; j < t->nobst; j++) {
        const OBST *o = &t->obst[j];
        if (!o->round) continue;
        RULES_FN(rules_offset)(k, x, o->a, d);
        if (fabs(RULES_FN(norm)(d) - o->r) <= b) return 1;
        inside |= RULES_FN(rules_in_round)(k, o, x);
    }
    const double s = RULES_FN(norm)(v);
    if (!vicsek && s > 0) {
        double e[D];
        for (int c = 0; c < D; c++) e[c] = v[c] / s * k->avoid_dist;
        if (RULES_FN(any_near)(k, x, e, k->clear, b)) return 1;
    }
    return !inside && RULES_FN(move_near)(k, p, f, ref, i, b); /* inside: expelled, not moved */
}

static void RULES_FN(band_interact)(const boids_params *p, const boids_interact *t,
                                    const boids_flock *f, const boids_flock *ref, verify_amb *amb) {
    K k, ksp[BOIDS_MAX_SPECIES];
    RULES_FN(rules_table) tab;
    RULES_FN(rules_k_init)(&k, p);
    RULES_FN(rules_k_set_interact)(&k, &tab, t);
    if (!k.tab) return; /* nothing on: no decision of the table's */
    if (p->species > 1) RULES_FN(rules_k_species)(ksp, &k, p);
    double b = verify_interact_band(p);
    long n = (long)f->n;
#pragma omp parallel for schedule(dynamic, 64)
    for (long i = 0; i < n; i++) /* each boid with its species' clearance */
        if (RULES_FN(band_boid)(p->species > 1 ? &ksp[RULES_FN(rules_species_of)(ksp, (size_t)i)]
                                               : &k,
                                p, f, ref, (size_t)i, b))
            verify_amb_self(&amb[i]);
}

#undef OBST
#undef K
#undef D

#endif
