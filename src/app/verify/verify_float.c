/* SPDX-License-Identifier: MIT */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "boids/backend.h"
#include "verify.h"

#define RULES_REAL     float
#define RULES_DIM      2
#define RULES_FN(name) name##_f2
#include "../core/rules.h" /* the model, in float */

#include "verify_step.h" /* one boid's step, in float */

void verify_ids_ascending(size_t *nb, size_t m) {
    for (size_t a = 1; a < m; a++) {
        size_t v = nb[a], b = a;
        for (; b > 0 && nb[b - 1] > v; b--) nb[b] = nb[b - 1];
        nb[b] = v;
    }
}

void verify_float_step(const boids_params *p, const boids_interact *t, const boids_flock *in,
                       int reverse, boids_flock *out) {
    if (in->z) {
        verify_float_step3(p, t, in, reverse, out);
        return;
    }
    rules_k_f2 k;
    rules_table_f2 tab;
    rules_k_init_f2(&k, p);
    rules_k_set_interact_f2(&k, &tab, t);
    const size_t n = in->n;
    float *buf = malloc(6 * n * sizeof(float));
    long *cnt = malloc(n * sizeof(long));
    if (!buf || !cnt) abort();
    verify_snap_float s = {{buf, buf + n, NULL}, {buf + 2 * n, buf + 3 * n, NULL}, n};
    float *dec = buf + 4 * n;
    for (size_t i = 0; i < n; i++) {
        s.p[0][i] = (float)in->x[i];
        s.p[1][i] = (float)in->y[i];
        s.v[0][i] = (float)in->vx[i];
        s.v[1][i] = (float)in->vy[i];
    }
#pragma omp parallel
    {
        size_t *nb = malloc((n + 1) * sizeof *nb);
        float *sel = malloc((n + 1) * sizeof *sel);
        if (!nb || !sel) abort();
#pragma omp for schedule(dynamic, 64)
        for (size_t i = 0; i < n; i++) {
            size_t m = verify_gather_f2(p, &k, &s, i, nb, sel);
            cnt[i] = verify_decide_f2(p, &k, &s, i, nb, m, reverse, &dec[2 * i]);
        }
        free(nb);
        free(sel);
    }
    for (size_t i = 0; i < n; i++) {
        float pos[2], vel[2];
        verify_update_f2(p, &k, &s, i, &dec[2 * i], cnt[i], pos, vel);
        out->x[i] = pos[0];
        out->y[i] = pos[1];
        out->vx[i] = vel[0];
        out->vy[i] = vel[1];
    }
    free(buf);
    free(cnt);
}

double verify_eps_pos(const boids_params *p) {
    double l = p->width > p->height ? p->width : p->height;
    if (p->dim == 3 && p->depth > l) l = p->depth;
    return FLT_EPSILON * l;
}

/* Float error bound of |d|^2 for one pair. An input coordinate c is rounded to float by at
 * most FLT_EPSILON |c| / 2, the difference by FLT_EPSILON |d| / 2, a wrap (+-W) by
 * FLT_EPSILON W / 2; so an offset component is off by at most ex (ey), and |d|^2 by
 * 2 |dx| ex + 2 |dy| ey + ex^2 + ey^2, plus the roundings of the squares and the sum and of
 * the threshold r^2 itself (3 FLT_EPSILON r^2). The band is twice this bound. */
static double band_pair(double r, double ax, double bx, double dx, double ay, double by, double dy,
                        double wx, double wy) {
    double ex = 0.5 * FLT_EPSILON * (fabs(ax) + fabs(bx) + fabs(dx) + wx);
    double ey = 0.5 * FLT_EPSILON * (fabs(ay) + fabs(by) + fabs(dy) + wy);
    return 2.0 *
           (2 * fabs(dx) * ex + 2 * fabs(dy) * ey + ex * ex + ey * ey + 3.0 * FLT_EPSILON * r * r);
}

void verify_add_amb(verify_amb *a, int in, uint32_t j) {
    a->boid = 1;
    for (unsigned q = 0; q < a->namb; q++)
        if (a->id[q] == j) return;
    if (a->namb == VERIFY_MAX_AMB) {
        a->overflow = 1;
        return;
    }
    a->in[a->namb] = (unsigned char)in;
    a->id[a->namb] = j;
    a->hash[a->namb] = boids_neighbour_set_hash(j);
    a->namb++;
}

void verify_amb_shift(verify_amb *a, int enter, int leave, long far, long next) {
    if (enter > 1 || leave > 1) {
        a->boid = a->overflow = 1;
        return;
    }
    if (enter && far >= 0) verify_add_amb(a, 1, (uint32_t)far);
    if (leave && next >= 0) verify_add_amb(a, 0, (uint32_t)next);
}

/* The decisions of a Reynolds step that do not involve pairs: a boid within float precision
 * of the predator or food radius or of a wall margin. */
static void band_external(const boids_params *p, const boids_flock *f, size_t i, verify_amb *a) {
    double e = verify_eps_pos(p);
    int wrap = p->boundary == BOIDS_BOUNDARY_WRAP;
    double x = f->x[i], y = f->y[i];
    if (p->predator) {
        double dx = verify_wrap_d(x - p->predator_x, p->width, wrap),
               dy = verify_wrap_d(y - p->predator_y, p->height, wrap);
        if (fabs(dx * dx + dy * dy - p->predator_radius * p->predator_radius) <=
            band_pair(p->predator_radius, x, p->predator_x, dx, y, p->predator_y, dy,
                      wrap ? p->width : 0, wrap ? p->height : 0))
            verify_amb_self(a);
    }
    if (p->food) {
        double dx = verify_wrap_d(p->food_x - x, p->width, wrap),
               dy = verify_wrap_d(p->food_y - y, p->height, wrap);
        if (fabs(dx * dx + dy * dy - p->food_radius * p->food_radius) <=
            band_pair(p->food_radius, x, p->food_x, dx, y, p->food_y, dy, wrap ? p->width : 0,
                      wrap ? p->height : 0))
            verify_amb_self(a);
    }
    if (p->boundary == BOIDS_BOUNDARY_WALLS) {
        double m = p->wall_margin;
        if (fabs(x - m) <= 2 * e || fabs(x - (p->width - m)) <= 2 * e || fabs(y - m) <= 2 * e ||
            fabs(y - (p->height - m)) <= 2 * e)
            verify_amb_self(a);
    }
}

/* ---- Vicsek and topological neighbours ------------------------------------------------------ */

typedef struct pair_d {
    double dx, dy, d2, wx, wy; /* offset (shortest image), |d|^2, wrap added per axis (0 or L) */
    int cand;                  /* a candidate in double (radius and fov as the model has them) */
    int amb;                   /* its candidacy is within float precision of flipping */
} pair_d;

static void pair_eval(const boids_params *p, const boids_flock *f, size_t i, size_t j, pair_d *q) {
    const int vicsek = p->model == BOIDS_MODEL_VICSEK;
    const int radius = p->neighbours != BOIDS_NEIGHBOURS_TOPOLOGICAL || p->k_in_vision;
    const int wrap = p->boundary == BOIDS_BOUNDARY_WRAP, full = p->fov >= 360.0;
    const double rv = p->vision_radius, v2 = rv * rv, e = verify_eps_pos(p);
    double rdx = f->x[j] - f->x[i], rdy = f->y[j] - f->y[i];
    q->dx = verify_wrap_d(rdx, p->width, wrap);
    q->dy = verify_wrap_d(rdy, p->height, wrap);
    q->d2 = q->dx * q->dx + q->dy * q->dy;
    q->wx = q->dx != rdx ? p->width : 0;
    q->wy = q->dy != rdy ? p->height : 0;
    q->cand = 1;
    q->amb = 0;
    if (radius) {
        q->cand = vicsek ? q->d2 <= v2 : q->d2 < v2;
        if (fabs(q->d2 - v2) <=
            band_pair(rv, f->x[i], f->x[j], q->dx, f->y[i], f->y[j], q->dy, q->wx, q->wy))
            q->amb = 1;
    }
    if (vicsek) return; /* no fov; the image does not change d2 */
    /* The shortest image flips when an offset is near half the world: the fov decision and
     * the cohesion offset flip with it. */
    if (wrap &&
        (fabs(fabs(rdx) - p->width / 2) <= 4 * e || fabs(fabs(rdy) - p->height / 2) <= 4 * e))
        q->amb = 1;
    double vx = f->vx[i], vy = f->vy[i], sp = sqrt(vx * vx + vy * vy);
    if (full || sp == 0 || q->d2 == 0) return;
    double d = sqrt(q->d2), c = rules_cos_half_fov(p->fov);
    double ex = 0.5 * FLT_EPSILON * (fabs(f->x[i]) + fabs(f->x[j]) + fabs(q->dx) + q->wx);
    double ey = 0.5 * FLT_EPSILON * (fabs(f->y[i]) + fabs(f->y[j]) + fabs(q->dy) + q->wy);
    double bf = 2.0 * (8.0 * FLT_EPSILON * sp * d + (ex + ey) * sp);
    double dot = vx * q->dx + vy * q->dy;
    if (fabs(dot - c * sp * d) <= bf) q->amb = 1;
    q->cand = q->cand && dot >= c * sqrt(sp * sp * q->d2);
}

typedef struct dj {
    double d2;
    size_t j;
} dj;

/* (d2, j) strictly before b in the selection order (distance, then id). */
static int dj_before(double d2, size_t j, const dj *b) {
    return d2 < b->d2 || (d2 == b->d2 && j < b->j);
}

/* Band of a distance tie with the k-th: the pair's own float error bound at the k-th's
 * distance (band_pair, which also counts the rounding of that distance). */
static double tie_band(const boids_flock *f, size_t i, size_t j, const pair_d *q, double dk) {
    return band_pair(sqrt(dk), f->x[i], f->x[j], q->dx, f->y[i], f->y[j], q->dy, q->wx, q->wy);
}

/* Pass 1 of the band of boid i (see band_lab): the topological selection's k-th candidate
 * in (d2, j) order and whether the (k+1)-th ties it within float precision. */
typedef struct selection {
    int strict;  /* more candidates than k: a real selection */
    int crowded; /* candidates and pairs that may become one outnumber k */
    dj kth;      /* the k-th candidate (strict only) */
    int tie;     /* the (k+1)-th is within float precision of the k-th's distance */
    double bk;   /* the band of the k-th's distance */
    long far;    /* the k-th candidate, whatever the count (-1: fewer than k) */
    long next;   /* the (k+1)-th candidate (-1: none) */
} selection;

static selection band_select(const boids_params *p, const boids_flock *f, size_t i, dj *sel) {
    const int topo = p->neighbours == BOIDS_NEIGHBOURS_TOPOLOGICAL;
    const size_t kk = topo ? (size_t)p->k : 0, n = f->n;
    size_t m = 0, ncand = 0, namb_out = 0;
    pair_d q;
    for (size_t j = 0; j < n; j++) {
        if (j == i) continue;
        pair_eval(p, f, i, j, &q);
        if (q.amb && !q.cand) namb_out++;
        if (!q.cand) continue;
        ncand++;
        if (!topo) continue;
        if (m == kk + 1 && !dj_before(q.d2, j, &sel[m - 1])) continue;
        size_t pos = m < kk + 1 ? m++ : m - 1;
        for (; pos > 0 && dj_before(q.d2, j, &sel[pos - 1]); pos--) sel[pos] = sel[pos - 1];
        sel[pos] = (dj){q.d2, j};
    }
    selection s = {topo && m > kk,
                   topo && ncand + namb_out > kk,
                   {INFINITY, (size_t)-1},
                   0,
                   0,
                   topo && m >= kk ? (long)sel[kk - 1].j : -1,
                   topo && m > kk ? (long)sel[kk].j : -1};
    if (s.strict) {
        pair_d qk, qn;
        s.kth = sel[kk - 1];
        pair_eval(p, f, i, s.kth.j, &qk);
        pair_eval(p, f, i, sel[kk].j, &qn);
        s.bk = tie_band(f, i, s.kth.j, &qk, s.kth.d2);
        s.tie = fabs(qn.d2 - s.kth.d2) <= s.bk + tie_band(f, i, sel[kk].j, &qn, s.kth.d2);
    }
    return s;
}

/* Pass 2 of the band of boid i (see band_lab): the decisions. sel is scratch of k + 1. */
static void band_lab_boid(const boids_params *p, const boids_flock *f, size_t i, dj *sel,
                          verify_amb *a) {
    const int vicsek = p->model == BOIDS_MODEL_VICSEK;
    const double s2 = p->separation_radius * p->separation_radius, e = verify_eps_pos(p);
    a->boid = a->self = a->overflow = a->namb = 0;
    const selection sl = band_select(p, f, i, sel);
    const dj kth = sl.kth;
    double sx = 0, sy = 0;
    long cnt = 1;
    int enter = 0, leave = 0; /* ambiguous candidates that may enter or leave a full selection */
    double sp = hypot(f->vx[i], f->vy[i]);
    if (sp > 0) sx = f->vx[i] / sp, sy = f->vy[i] / sp;
    for (size_t j = 0; j < f->n; j++) {
        if (j == i) continue;
        pair_d q;
        pair_eval(p, f, i, j, &q);
        const int in = q.cand && (!sl.strict || !dj_before(kth.d2, kth.j, &(dj){q.d2, j}));
        if (in && vicsek) {
            double vj = hypot(f->vx[j], f->vy[j]);
            if (vj > 0) sx += f->vx[j] / vj, sy += f->vy[j] / vj;
            cnt++;
        }
        if (q.amb) {
            if (!sl.crowded) {
                verify_add_amb(a, in, (uint32_t)j);
            } else if (q.d2 <= kth.d2 + sl.bk || in) {
                verify_add_amb(a, in, (uint32_t)j);
                enter += !in, leave += in;
            }
        } else if (sl.tie && q.cand &&
                   fabs(q.d2 - kth.d2) <= sl.bk + tie_band(f, i, j, &q, kth.d2)) {
            verify_add_amb(a, in, (uint32_t)j);
        }
        if (in && !vicsek &&
            fabs(q.d2 - s2) <= band_pair(p->separation_radius, f->x[i], f->x[j], q.dx, f->y[i],
                                         f->y[j], q.dy, q.wx, q.wy))
            verify_amb_self(a); /* a neighbour at the separation radius */
    }
    verify_amb_shift(a, enter, leave, sl.far, sl.next);
    if (!vicsek) {
        band_external(p, f, i, a);
        return;
    }
    /* |S| vs n tol: float n 1e-5 (RULES_VICSEK_TOL in float), with the float error of a sum
     * of n unit vectors (a few FLT_EPSILON each) on top. */
    if (hypot(sx, sy) <= (double)cnt * (1e-5 + 16 * FLT_EPSILON)) verify_amb_self(a);
    if (p->boundary == BOIDS_BOUNDARY_WALLS) {
        double nx = f->x[i] + f->vx[i] * p->dt, ny = f->y[i] + f->vy[i] * p->dt;
        if (fabs(nx) <= 2 * e || fabs(nx - p->width) <= 2 * e || fabs(ny) <= 2 * e ||
            fabs(ny - p->height) <= 2 * e)
            verify_amb_self(a);
    }
}

/* The band of the Vicsek model (either neighbour rule) and of topological neighbours (either
 * model), per boid:
 *   - pairs whose candidacy may flip in float (radius, fov, image) and, when candidates
 *     outnumber k, could thereby change the selection beyond themselves: the boid is left
 *     out, set unchecked (overflow); otherwise each such pair is an ambiguous pair;
 *   - topological: when the (k+1)-th candidate's distance ties the k-th's within float
 *     precision (both pairs' error bounds), every candidate within that band of the k-th is
 *     an ambiguous pair (float may pick another of them, ties by id aside);
 *   - Vicsek: a heading sum within float precision of the zero-sum tolerance (float n 1e-5
 *     against cpu-ref's n 1e-12: the two paths keep the old heading in different ranges),
 *     and a moved position within float precision of a wall (the heading is mirrored);
 *   - Reynolds topological: a selected neighbour at the separation radius, and the
 *     predator, food and wall margins. */
static void band_lab(const boids_params *p, const boids_flock *f, verify_amb *amb) {
    const size_t kk = p->neighbours == BOIDS_NEIGHBOURS_TOPOLOGICAL ? (size_t)p->k : 0;
#pragma omp parallel
    {
        dj *sel = malloc((kk + 1) * sizeof *sel);
        if (!sel) abort();
#pragma omp for schedule(dynamic, 64)
        for (size_t i = 0; i < f->n; i++) band_lab_boid(p, f, i, sel, &amb[i]);
        free(sel);
    }
}

void verify_band(const boids_params *p, const boids_flock *f, verify_amb *amb) {
    if (f->z) {
        verify_band3(p, f, amb);
        return;
    }
    if (p->model == BOIDS_MODEL_VICSEK || p->neighbours == BOIDS_NEIGHBOURS_TOPOLOGICAL) {
        band_lab(p, f, amb);
        return;
    }
    double e = verify_eps_pos(p);
    int wrap = p->boundary == BOIDS_BOUNDARY_WRAP;
    double rv = p->vision_radius, rs = p->separation_radius;
    double v2 = rv * rv, s2 = rs * rs;
    int full = p->fov >= 360.0;
    double cosh = rules_cos_half_fov(p->fov);
#pragma omp parallel for schedule(dynamic, 64)
    for (size_t i = 0; i < f->n; i++) {
        verify_amb *a = &amb[i];
        a->boid = a->self = a->overflow = a->namb = 0;
        double vx = f->vx[i], vy = f->vy[i], sp = sqrt(vx * vx + vy * vy);
        for (size_t j = 0; j < f->n; j++) {
            if (j == i) continue;
            double rdx = f->x[j] - f->x[i], rdy = f->y[j] - f->y[i];
            double dx = verify_wrap_d(rdx, p->width, wrap),
                   dy = verify_wrap_d(rdy, p->height, wrap);
            double d2 = dx * dx + dy * dy;
            /* Cheap reject: no band is wider than a tenth of the vision radius squared. */
            if (d2 > 1.1 * v2) continue;
            double wx = dx != rdx ? p->width : 0, wy = dy != rdy ? p->height : 0;
            double bv = band_pair(rv, f->x[i], f->x[j], dx, f->y[i], f->y[j], dy, wx, wy);
            if (d2 > v2 + bv) continue;
            int amb_pair = fabs(d2 - v2) <= bv;
            /* The shortest image flips when an offset is near half the world. */
            if (wrap && (fabs(fabs(rdx) - p->width / 2) <= 4 * e ||
                         fabs(fabs(rdy) - p->height / 2) <= 4 * e))
                amb_pair = 1;
            if (!full && sp > 0 && d2 > 0) {
                double d = sqrt(d2);
                /* dot and the limit: relative float errors of a few FLT_EPSILON on |v||d|,
                 * plus |v| times the offset error (ex + ey, as in band_pair). */
                double ex = 0.5 * FLT_EPSILON * (fabs(f->x[i]) + fabs(f->x[j]) + fabs(dx) + wx);
                double ey = 0.5 * FLT_EPSILON * (fabs(f->y[i]) + fabs(f->y[j]) + fabs(dy) + wy);
                double bf = 2.0 * (8.0 * FLT_EPSILON * sp * d + (ex + ey) * sp);
                if (fabs(vx * dx + vy * dy - cosh * sp * d) <= bf) amb_pair = 1;
            }
            int in_double = d2 < v2 && (full || sp == 0 || d2 == 0 ||
                                        vx * dx + vy * dy >= cosh * sqrt(sp * sp * d2));
            double bs = band_pair(rs, f->x[i], f->x[j], dx, f->y[i], f->y[j], dy, wx, wy);
            if (amb_pair) {
                verify_add_amb(a, in_double, (uint32_t)j);
            } else if (in_double && fabs(d2 - s2) <= bs) {
                verify_amb_self(a); /* a sure neighbour at the separation radius */
            }
        }
        band_external(p, f, i, a);
    }
}

int verify_mask_matches(const verify_amb *a, unsigned mask, uint32_t ref_count, uint64_t ref_hash,
                        uint32_t count, uint64_t hash) {
    for (unsigned k = 0; k < a->namb; k++) {
        if (!(mask >> k & 1)) continue;
        if (a->in[k]) {
            ref_count--;
            ref_hash -= a->hash[k];
        } else {
            ref_count++;
            ref_hash += a->hash[k];
        }
    }
    return ref_count == count && ref_hash == hash;
}

int verify_neighbours_match(const verify_amb *a, uint32_t ref_count, uint64_t ref_hash,
                            uint32_t count, uint64_t hash) {
    for (unsigned mask = 0; mask < (1u << a->namb); mask++)
        if (verify_mask_matches(a, mask, ref_count, ref_hash, count, hash)) return 1;
    return 0;
}
