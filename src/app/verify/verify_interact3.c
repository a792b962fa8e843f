/* SPDX-License-Identifier: MIT */
/* `boids verify` with an interaction table in 3-D: the float band of the table's decisions,
 * verify_interact.c's for the points with their z and for spheres (verify.h hands a flock with
 * z arrays here). */
#include <math.h>
#include <stddef.h>

#include "verify.h"

#define RULES_REAL     double
#define RULES_DIM      3
#define RULES_FN(name) name##_d3
#include "../core/rules.h" /* the model in 3-D, in double */

static double norm3(const double v[3]) {
    return sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
}

/* Distance from q to the segment from the origin to m. */
static double pt_seg3(const double q[3], const double m[3]) {
    double t = rules_seg_t0_d3(q, m);
    const double w[3] = {q[0] - m[0] * t, q[1] - m[1] * t, q[2] - m[2] * t};
    return norm3(w);
}

/* Is a decision about sphere o within band b of its threshold, for the segment m from a boid
 * at p (its move: thr 0; its look-ahead: thr the clearance)? The segment's distance to the
 * centre against the radius plus thr (rules_hit's "passes within" and rules_avoid_dir's
 * test, whose interior and end cases meet where their distances agree), the segment's end
 * against it (the move's "ends inside"), and under wrap the choice of the centre's image. */
static int near_threshold3(const rules_k_d3 *k, const rules_obst_d3 *o, const double p[3],
                           const double m[3], double thr, double b) {
    if (k->wrap &&
        (fabs(fabs(o->x0 - p[0]) - k->half_w) <= b || fabs(fabs(o->y0 - p[1]) - k->half_h) <= b ||
         fabs(fabs(o->z0 - p[2]) - k->half_d) <= b))
        return 1;
    double d[3];
    rules_offset_d3(k, p, o->a, d);
    const double rim = o->r + thr, e[3] = {d[0] - m[0], d[1] - m[1], d[2] - m[2]};
    return fabs(pt_seg3(d, m) - rim) <= b || fabs(norm3(e) - rim) <= b;
}

/* Does some sphere near the boid make a decision within the band for the segment m? */
static int any_near3(const rules_k_d3 *k, const double p[3], const double m[3], double thr,
                     double b) {
    const rules_table_d3 *t = k->tab;
    for (int i = 0; t && i < t->nobst; i++)
        if (rules_near_d3(k, &t->obst[i], p, thr + fabs(m[0]) + fabs(m[1]) + fabs(m[2]) + b) &&
            near_threshold3(k, &t->obst[i], p, m, thr, b))
            return 1;
    return 0;
}

/* The moves the boid may have meant (verify_interact.c's move_near): the one it made, or,
 * when it stayed put (blocked), its velocity then, as it is or mirrored back about any
 * sphere's radial; Vicsek moves with its old velocity, known. */
static int move_near3(const rules_k_d3 *k, const boids_params *p, const boids_flock *f,
                      const boids_flock *ref, size_t i, double b) {
    const double x[3] = {f->x[i], f->y[i], f->z[i]}, dt = p->dt;
    double m[3];
    if (p->model == BOIDS_MODEL_VICSEK) {
        const double mv[3] = {f->vx[i] * dt, f->vy[i] * dt, f->vz[i] * dt};
        return any_near3(k, x, mv, 0, b);
    }
    if (ref->x[i] != x[0] || ref->y[i] != x[1] || ref->z[i] != x[2]) {
        const double to[3] = {ref->x[i], ref->y[i], ref->z[i]};
        rules_offset_d3(k, x, to, m);
        return any_near3(k, x, m, 0, b);
    }
    const double v[3] = {ref->vx[i], ref->vy[i], ref->vz[i]};
    for (int c = 0; c < 3; c++) m[c] = v[c] * dt;
    if (any_near3(k, x, m, 0, b)) return 1;
    for (int o = 0; o < k->tab->nobst; o++) {
        const rules_obst_d3 *s = &k->tab->obst[o];
        double n[3];
        rules_offset_d3(k, s->a, x, n);
        double nn = n[0] * n[0] + n[1] * n[1] + n[2] * n[2];
        double q = nn > 0 ? 2 * (v[0] * n[0] + v[1] * n[1] + v[2] * n[2]) / nn : 0;
        for (int c = 0; c < 3; c++) m[c] = (v[c] - q * n[c]) * dt;
        if (any_near3(k, x, m, 0, b)) return 1;
    }
    return 0;
}

/* One boid's table decisions within the band: a point's radius, a sphere's surface around
 * its start (expelled or not), the look-ahead's clearance (Reynolds), the move (unless it was
 * expelled instead). */
static int band_boid3(const rules_k_d3 *k, const boids_params *p, const boids_flock *f,
                      const boids_flock *ref, size_t i, double b) {
    const rules_table_d3 *t = k->tab;
    const int vicsek = p->model == BOIDS_MODEL_VICSEK;
    const double x[3] = {f->x[i], f->y[i], f->z[i]}, v[3] = {f->vx[i], f->vy[i], f->vz[i]};
    double d[3];
    for (int j = 0; j < t->npred + t->nattr && !vicsek; j++) {
        const rules_point_d3 *q = &t->pts[j];
        rules_offset_d3(k, x, q->at, d);
        if (fabs(norm3(d) - sqrt(q->r2)) <= b) return 1;
    }
    int inside = 0;
    for (int j = 0; j < t->nobst; j++) {
        const rules_obst_d3 *o = &t->obst[j];
        rules_offset_d3(k, x, o->a, d);
        if (fabs(norm3(d) - o->r) <= b) return 1;
        inside |= rules_in_round_d3(k, o, x);
    }
    const double s = norm3(v);
    if (!vicsek && s > 0) {
        const double e[3] = {v[0] / s * k->avoid_dist, v[1] / s * k->avoid_dist,
                             v[2] / s * k->avoid_dist};
        if (any_near3(k, x, e, k->clear, b)) return 1;
    }
    return !inside && move_near3(k, p, f, ref, i, b); /* inside: expelled, not moved */
}

void verify_band_interact3(const boids_params *p, const boids_interact *t, const boids_flock *f,
                           const boids_flock *ref, verify_amb *amb) {
    rules_k_d3 k;
    rules_table_d3 tab;
    rules_k_init_d3(&k, p);
    rules_k_set_interact_d3(&k, &tab, t);
    if (!k.tab) return;
    double b = verify_interact_band(p);
    long n = (long)f->n;
#pragma omp parallel for schedule(dynamic, 64)
    for (long i = 0; i < n; i++)
        if (band_boid3(&k, p, f, ref, (size_t)i, b)) verify_amb_self(&amb[i]);
}
