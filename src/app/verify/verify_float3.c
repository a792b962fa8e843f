/* SPDX-License-Identifier: MIT */
/* `boids verify` in 3-D: the float brute-force step and the float-precision band of
 * verify_float.c for flocks with z arrays (verify.h's functions hand those here). The same
 * bounds with a third offset component, and one decision the plane does not have: the 3-D
 * Vicsek noise turns about a basis of the mean direction that changes sign across ez = 0
 * (rules.h's vicsek3_basis), so a mean direction within float precision of that plane may
 * be turned another way in float. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "boids/backend.h"
#include "verify.h"

#define RULES_REAL     float
#define RULES_DIM      3
#define RULES_FN(name) name##_f3
#include "../core/rules.h" /* the model in 3-D, in float */

#include "verify_step.h" /* one boid's step, in float */

void verify_float_step3(const boids_params *p, const boids_interact *t, const boids_flock *in,
                        int reverse, boids_flock *out) {
    rules_k_f3 k;
    rules_table_f3 tab;
    rules_k_init_f3(&k, p);
    rules_k_set_interact_f3(&k, &tab, t);
    const size_t n = in->n;
    float *buf = malloc(9 * n * sizeof(float));
    long *cnt = malloc(n * sizeof(long));
    if (!buf || !cnt) abort();
    verify_snap_float s = {.n = n};
    const double *src[6] = {in->x, in->y, in->z, in->vx, in->vy, in->vz};
    for (int a = 0; a < 3; a++) s.p[a] = buf + (size_t)a * n, s.v[a] = buf + (size_t)(3 + a) * n;
    float *dec = buf + 6 * n;
    for (size_t i = 0; i < n; i++)
        for (int a = 0; a < 3; a++) s.p[a][i] = (float)src[a][i], s.v[a][i] = (float)src[3 + a][i];
#pragma omp parallel
    {
        size_t *nb = malloc((n + 1) * sizeof *nb);
        float *sel = malloc((n + 1) * sizeof *sel);
        if (!nb || !sel) abort();
#pragma omp for schedule(dynamic, 64)
        for (size_t i = 0; i < n; i++) {
            size_t m = verify_gather_f3(p, &k, &s, i, nb, sel);
            cnt[i] = verify_decide_f3(p, &k, &s, i, nb, m, reverse, &dec[3 * i]);
        }
        free(nb);
        free(sel);
    }
    double *dst[6] = {out->x, out->y, out->z, out->vx, out->vy, out->vz};
    for (size_t i = 0; i < n; i++) {
        float pos[3], vel[3];
        verify_update_f3(p, &k, &s, i, &dec[3 * i], cnt[i], pos, vel);
        for (int a = 0; a < 3; a++) dst[a][i] = pos[a], dst[3 + a][i] = vel[a];
    }
    free(buf);
    free(cnt);
}

/* ---- the band ------------------------------------------------------------------------ */

/* verify_float.c's band_pair with three components: e[c] bounds the float error of offset
 * component c, from the roundings of both coordinates, of the difference and of a wrap. */
static double band_pair3(double r, const double a[3], const double b[3], const double d[3],
                         const double w[3]) {
    double s = 3.0 * FLT_EPSILON * r * r;
    for (int c = 0; c < 3; c++) {
        double e = 0.5 * FLT_EPSILON * (fabs(a[c]) + fabs(b[c]) + fabs(d[c]) + w[c]);
        s += 2 * fabs(d[c]) * e + e * e + FLT_EPSILON * d[c] * d[c]; /* and the extra sum */
    }
    return 2.0 * s;
}

static void pos_of(const boids_flock *f, size_t i, double q[3]) {
    q[0] = f->x[i], q[1] = f->y[i], q[2] = f->z[i];
}

/* One pair in double: offset, |d|^2, wraps added, candidacy and whether float may flip it. */
typedef struct pair3 {
    double d[3], d2, w[3];
    int cand, amb;
} pair3;

static void pair_eval(const boids_params *p, const boids_flock *f, size_t i, size_t j, pair3 *q) {
    const int vicsek = p->model == BOIDS_MODEL_VICSEK, wrap = p->boundary == BOIDS_BOUNDARY_WRAP;
    const int radius = p->neighbours != BOIDS_NEIGHBOURS_TOPOLOGICAL || p->k_in_vision;
    const double side[3] = {p->width, p->height, p->depth}, rv = p->vision_radius;
    const double e = verify_eps_pos(p);
    double a[3], b[3], raw[3];
    pos_of(f, i, a), pos_of(f, j, b);
    q->d2 = 0;
    q->amb = 0;
    for (int c = 0; c < 3; c++) {
        raw[c] = b[c] - a[c];
        q->d[c] = verify_wrap_d(raw[c], side[c], wrap);
        q->w[c] = q->d[c] != raw[c] ? side[c] : 0;
        q->d2 += q->d[c] * q->d[c];
    }
    q->cand = 1;
    const double bv = band_pair3(rv, a, b, q->d, q->w);
    if (radius) {
        q->cand = vicsek ? q->d2 <= rv * rv : q->d2 < rv * rv;
        if (fabs(q->d2 - rv * rv) <= bv) q->amb = 1;
    }
    /* The shortest image flips when an offset is near half the world: the fov decision and
     * the cohesion offset flip with it, for a pair that can be a candidate at all (within
     * the radius, up to its band, when the radius applies). */
    for (int c = 0; c < 3; c++)
        if (wrap && !vicsek && (!radius || q->d2 <= rv * rv + bv) &&
            fabs(fabs(raw[c]) - side[c] / 2) <= 4 * e)
            q->amb = 1;
    const double v[3] = {f->vx[i], f->vy[i], f->vz[i]};
    const double sp = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    if (vicsek || p->fov >= 360.0 || sp == 0 || q->d2 == 0) return;
    double dl = sqrt(q->d2), c = rules_cos_half_fov(p->fov), es = 0, dot = 0;
    for (int k = 0; k < 3; k++) {
        es += 0.5 * FLT_EPSILON * (fabs(a[k]) + fabs(b[k]) + fabs(q->d[k]) + q->w[k]);
        dot += v[k] * q->d[k];
    }
    if (fabs(dot - c * sp * dl) <= 2.0 * (8.0 * FLT_EPSILON * sp * dl + es * sp)) q->amb = 1;
    q->cand = q->cand && dot >= c * sqrt(sp * sp * q->d2);
}

typedef struct dj {
    double d2;
    size_t j;
} dj;

static int dj_before(double d2, size_t j, const dj *b) {
    return d2 < b->d2 || (d2 == b->d2 && j < b->j);
}

/* The band of a pair's distance compared with the k-th's distance dk. */
static double tie_band(const boids_flock *f, size_t i, size_t j, const pair3 *q, double dk) {
    double a[3], b[3];
    pos_of(f, i, a), pos_of(f, j, b);
    return band_pair3(sqrt(dk), a, b, q->d, q->w);
}

/* verify_float.c's selection pass: the k-th candidate, whether the (k+1)-th ties it. */
typedef struct selection {
    int strict, crowded, tie;
    dj kth;
    double bk;
    long far, next; /* the k-th and (k+1)-th candidates (-1: none) */
} selection;

static selection band_select(const boids_params *p, const boids_flock *f, size_t i, dj *sel) {
    const int topo = p->neighbours == BOIDS_NEIGHBOURS_TOPOLOGICAL;
    const size_t kk = topo ? (size_t)p->k : 0;
    size_t m = 0, ncand = 0, namb_out = 0;
    for (size_t j = 0; j < f->n; j++) {
        if (j == i) continue;
        pair3 q;
        pair_eval(p, f, i, j, &q);
        if (q.amb && !q.cand) namb_out++;
        if (!q.cand) continue;
        ncand++;
        if (!topo || (m == kk + 1 && !dj_before(q.d2, j, &sel[m - 1]))) continue;
        size_t pos = m < kk + 1 ? m++ : m - 1;
        for (; pos > 0 && dj_before(q.d2, j, &sel[pos - 1]); pos--) sel[pos] = sel[pos - 1];
        sel[pos] = (dj){q.d2, j};
    }
    selection s = {topo && m > kk,
                   topo && ncand + namb_out > kk,
                   0,
                   {INFINITY, (size_t)-1},
                   0,
                   topo && m >= kk ? (long)sel[kk - 1].j : -1,
                   topo && m > kk ? (long)sel[kk].j : -1};
    if (s.strict) {
        pair3 qk, qn;
        s.kth = sel[kk - 1];
        pair_eval(p, f, i, s.kth.j, &qk);
        pair_eval(p, f, i, sel[kk].j, &qn);
        s.bk = tie_band(f, i, s.kth.j, &qk, s.kth.d2);
        s.tie = fabs(qn.d2 - s.kth.d2) <= s.bk + tie_band(f, i, sel[kk].j, &qn, s.kth.d2);
    }
    return s;
}

/* Decisions without pairs: the predator and food radii and the wall margins (Reynolds), the
 * zero-sum tolerance, the basis sign and a wall at the moved position (Vicsek). */
static void band_external(const boids_params *p, const boids_flock *f, size_t i,
                          const double sum[3], long cnt, verify_amb *a) {
    const int wrap = p->boundary == BOIDS_BOUNDARY_WRAP,
              walls = p->boundary == BOIDS_BOUNDARY_WALLS;
    const double side[3] = {p->width, p->height, p->depth}, e = verify_eps_pos(p);
    const double pt[2][3] = {{p->predator_x, p->predator_y, p->predator_z},
                             {p->food_x, p->food_y, p->food_z}};
    const double rad[2] = {p->predator_radius, p->food_radius};
    const int on[2] = {p->predator, p->food};
    double x[3], v[3] = {f->vx[i], f->vy[i], f->vz[i]};
    pos_of(f, i, x);
    if (p->model == BOIDS_MODEL_VICSEK) {
        double s = sqrt(sum[0] * sum[0] + sum[1] * sum[1] + sum[2] * sum[2]);
        /* |S| vs n tol (float n 1e-5, with the float error of the sum on top); the basis
         * sign: S_z / |S| within float precision of 0. */
        if (s <= (double)cnt * (1e-5 + 16 * FLT_EPSILON)) verify_amb_self(a);
        if (fabs(sum[2]) <= (double)cnt * 16 * FLT_EPSILON) verify_amb_self(a);
        for (int c = 0; walls && c < 3; c++) {
            double nx = x[c] + v[c] * p->dt;
            if (fabs(nx) <= 2 * e || fabs(nx - side[c]) <= 2 * e) verify_amb_self(a);
        }
        return;
    }
    for (int q = 0; q < 2; q++) {
        if (!on[q]) continue;
        double d[3], w[3], d2 = 0;
        for (int c = 0; c < 3; c++) {
            double raw = x[c] - pt[q][c];
            d[c] = verify_wrap_d(raw, side[c], wrap);
            w[c] = d[c] != raw ? side[c] : 0;
            d2 += d[c] * d[c];
        }
        if (fabs(d2 - rad[q] * rad[q]) <= band_pair3(rad[q], x, pt[q], d, w)) verify_amb_self(a);
    }
    for (int c = 0; walls && c < 3; c++)
        if (fabs(x[c] - p->wall_margin) <= 2 * e ||
            fabs(x[c] - (side[c] - p->wall_margin)) <= 2 * e)
            verify_amb_self(a);
}

/* Boid i's band, as verify_float.c's band_lab_boid (which the comment of band_lab there
 * explains), in three axes. */
static void band_boid(const boids_params *p, const boids_flock *f, size_t i, dj *sel,
                      verify_amb *a) {
    const int vicsek = p->model == BOIDS_MODEL_VICSEK;
    const double rs = p->separation_radius;
    a->boid = a->self = a->overflow = a->namb = 0;
    const selection sl = band_select(p, f, i, sel);
    double sum[3] = {0, 0, 0}, x[3];
    pos_of(f, i, x);
    long cnt = 1;
    int enter = 0, leave = 0; /* as in verify_float.c */
    const double *vs[3] = {f->vx, f->vy, f->vz};
    double sp = sqrt(f->vx[i] * f->vx[i] + f->vy[i] * f->vy[i] + f->vz[i] * f->vz[i]);
    for (int c = 0; sp > 0 && c < 3; c++) sum[c] = vs[c][i] / sp;
    for (size_t j = 0; j < f->n; j++) {
        if (j == i) continue;
        pair3 q;
        pair_eval(p, f, i, j, &q);
        const int in = q.cand && (!sl.strict || !dj_before(sl.kth.d2, sl.kth.j, &(dj){q.d2, j}));
        if (in && vicsek) {
            double vj = sqrt(f->vx[j] * f->vx[j] + f->vy[j] * f->vy[j] + f->vz[j] * f->vz[j]);
            for (int c = 0; vj > 0 && c < 3; c++) sum[c] += vs[c][j] / vj;
            cnt++;
        }
        if (q.amb) {
            if (!sl.crowded) {
                verify_add_amb(a, in, (uint32_t)j);
            } else if (q.d2 <= sl.kth.d2 + sl.bk || in) {
                verify_add_amb(a, in, (uint32_t)j);
                enter += !in, leave += in;
            }
        } else if (sl.tie && q.cand &&
                   fabs(q.d2 - sl.kth.d2) <= sl.bk + tie_band(f, i, j, &q, sl.kth.d2)) {
            verify_add_amb(a, in, (uint32_t)j);
        }
        double b[3];
        pos_of(f, j, b);
        if (in && !vicsek && fabs(q.d2 - rs * rs) <= band_pair3(rs, x, b, q.d, q.w))
            verify_amb_self(a); /* a neighbour at the separation radius */
    }
    verify_amb_shift(a, enter, leave, sl.far, sl.next);
    band_external(p, f, i, sum, cnt, a);
}

void verify_band3(const boids_params *p, const boids_flock *f, verify_amb *amb) {
    const size_t kk = p->neighbours == BOIDS_NEIGHBOURS_TOPOLOGICAL ? (size_t)p->k : 0;
#pragma omp parallel
    {
        dj *sel = malloc((kk + 1) * sizeof *sel);
        if (!sel) abort();
#pragma omp for schedule(dynamic, 64)
        for (size_t i = 0; i < f->n; i++) band_boid(p, f, i, sel, &amb[i]);
        free(sel);
    }
}
