/* SPDX-License-Identifier: MIT */
/* `boids verify`'s float side, for the plane and the box: the float brute-force step that
 * calibrates the tolerance (verify_step.h's, in float, for each dimension), and the band of
 * decisions within float precision of their thresholds. The band is written once over the
 * dimension (2 or 3 axes, the flock's); what the box adds is the sum of a third square and,
 * for the Vicsek model, the sign of the noise's basis (rules.h's vicsek3_basis), which
 * changes across ez = 0, so that a mean direction within float precision of that plane may
 * be turned another way in float. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "boids/backend.h"
#include "verify/verify.h"

#define RULES_INSTANCE_FLOAT                        /* the model, in float */
#define RULES_INSTANCE_FILE  "verify/verify_step.h" /* one boid's step, in float */
#include "../core/rules_instances.h"
#undef RULES_INSTANCE_FILE
#undef RULES_INSTANCE_FLOAT

void verify_float_step(const boids_params *p, const boids_interact *t, const boids_flock *in,
                       int reverse, boids_flock *out) {
    if (in->z)
        verify_step_flock_f3(p, t, in, reverse, out);
    else
        verify_step_flock_f2(p, t, in, reverse, out);
}

double verify_eps_pos(const boids_params *p) {
    double l = p->width > p->height ? p->width : p->height;
    if (p->dim == 3 && p->depth > l) l = p->depth;
    return FLT_EPSILON * l;
}

/* Float error bound of |d|^2 for one pair of boids at a and b, offset d (dim axes), wraps w
 * added (0 or the side per axis). An input coordinate c is rounded to float by at most
 * FLT_EPSILON |c| / 2, the difference by FLT_EPSILON |d| / 2, a wrap (+-W) by
 * FLT_EPSILON W / 2; so offset component c is off by at most e_c, and |d|^2 by the sum of
 * 2 |d_c| e_c + e_c^2, plus the roundings of the squares and the sum and of the threshold
 * r^2 itself (3 FLT_EPSILON r^2), and in the box FLT_EPSILON d_c^2 per axis for the third
 * square and the extra sum. The band is twice this bound. */
static double band_pair(int dim, double r, const double a[3], const double b[3], const double d[3],
                        const double w[3]) {
    double s = 3.0 * FLT_EPSILON * r * r;
    for (int c = 0; c < dim; c++) {
        double e = 0.5 * FLT_EPSILON * (fabs(a[c]) + fabs(b[c]) + fabs(d[c]) + w[c]);
        s += 2 * fabs(d[c]) * e + e * e;
        if (dim == 3) s += FLT_EPSILON * d[c] * d[c];
    }
    return 2.0 * s;
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

/* Boid i's position and velocity (dim axes; 0 beyond). */
static void boid_of(const boids_flock *f, size_t i, double x[3], double v[3]) {
    x[0] = f->x[i], x[1] = f->y[i], x[2] = f->z ? f->z[i] : 0;
    v[0] = f->vx[i], v[1] = f->vy[i], v[2] = f->z ? f->vz[i] : 0;
}

static double norm(int dim, const double v[3]) {
    double s = 0;
    for (int c = 0; c < dim; c++) s += v[c] * v[c];
    return sqrt(s);
}

/* The decisions that do not involve pairs: the predator and food radii and the wall margins
 * (Reynolds); the zero-sum tolerance, a wall at the moved position and, in the box, the
 * basis sign (Vicsek, heading sum `sum` of cnt headings). */
/* The menu's aligned vector t (rules.h's vicsek_menu, before the chiral turn, which keeps
 * its length and its z) from the heading sum of boid i: plus the field, plus the vectorial
 * noise's noise * n * xi of the noise at step 0 (every backend is fresh from an upload);
 * the field and xi as the float path has them, well within the bands' widths. */
static void menu_sum(const boids_params *p, size_t i, int dim, const double sum[3], long cnt,
                     double t[3]) {
    rules_k_f3 k;
    rules_k_init_f3(&k, p);
    for (int c = 0; c < 3; c++) t[c] = c < dim ? sum[c] + k.fld_at[c] : 0;
    if (!k.vec_noise) return;
    float u1 = (float)boids_noise_u((uint64_t)p->noise_seed, 0, (uint32_t)i), xi[3] = {0, 0, 0};
    if (dim == 3)
        vicsek_xi_f3(u1, (float)boids_noise_u2((uint64_t)p->noise_seed, 0, (uint32_t)i), xi);
    else
        vicsek_xi_f2(u1, 0, xi);
    for (int c = 0; c < dim; c++) t[c] += p->noise * (double)cnt * xi[c];
}

static void band_external(const boids_params *p, const boids_flock *f, size_t i,
                          const double sum[3], long cnt, verify_amb *a) {
    const int dim = f->z ? 3 : 2, wrap = p->boundary == BOIDS_BOUNDARY_WRAP,
              walls = p->boundary == BOIDS_BOUNDARY_WALLS;
    const double side[3] = {p->width, p->height, p->depth}, e = verify_eps_pos(p);
    const double pt[2][3] = {{p->predator_x, p->predator_y, p->predator_z},
                             {p->food_x, p->food_y, p->food_z}};
    const double rad[2] = {p->predator_radius, p->food_radius};
    const int on[2] = {p->predator, p->food};
    double x[3], v[3];
    boid_of(f, i, x, v);
    if (p->model == BOIDS_MODEL_VICSEK) {
        double t[3];
        menu_sum(p, i, dim, sum, cnt, t);
        sum = t;
        /* |S| vs n tol: float n 1e-5 (RULES_VICSEK_TOL in float), with the float error of a
         * sum of n unit vectors (a few FLT_EPSILON each) on top. */
        if (norm(dim, sum) <= (double)cnt * (1e-5 + 16 * FLT_EPSILON)) verify_amb_self(a);
        /* The box's noise basis changes sign where S_z / |S| crosses 0. */
        if (dim == 3 && fabs(sum[2]) <= (double)cnt * 16 * FLT_EPSILON) verify_amb_self(a);
        for (int c = 0; walls && c < dim; c++) { /* the heading is mirrored at a wall */
            double nx = x[c] + v[c] * p->dt;
            if (fabs(nx) <= 2 * e || fabs(nx - side[c]) <= 2 * e) verify_amb_self(a);
        }
        return;
    }
    for (int q = 0; q < 2; q++) {
        if (!on[q]) continue;
        double d[3] = {0, 0, 0}, w[3] = {0, 0, 0}, d2 = 0;
        for (int c = 0; c < dim; c++) {
            double raw = x[c] - pt[q][c];
            d[c] = verify_wrap_d(raw, side[c], wrap);
            w[c] = d[c] != raw ? side[c] : 0;
            d2 += d[c] * d[c];
        }
        if (fabs(d2 - rad[q] * rad[q]) <= band_pair(dim, rad[q], x, pt[q], d, w))
            verify_amb_self(a);
    }
    for (int c = 0; walls && c < dim; c++)
        if (fabs(x[c] - p->wall_margin) <= 2 * e ||
            fabs(x[c] - (side[c] - p->wall_margin)) <= 2 * e)
            verify_amb_self(a);
}

/* One pair in double: offset (shortest image), |d|^2, wraps added per axis (0 or the side),
 * candidacy (radius and fov as the model has them) and whether float may flip it. */
typedef struct pair_d {
    double d[3], d2, w[3];
    int cand, amb;
} pair_d;

static void pair_eval(const boids_params *p, const boids_flock *f, size_t i, size_t j, pair_d *q) {
    const int dim = f->z ? 3 : 2, vicsek = p->model == BOIDS_MODEL_VICSEK;
    const int wrap = p->boundary == BOIDS_BOUNDARY_WRAP;
    const int radius = p->neighbours != BOIDS_NEIGHBOURS_TOPOLOGICAL || p->k_in_vision;
    const double side[3] = {p->width, p->height, p->depth}, rv = p->vision_radius;
    const double e = verify_eps_pos(p);
    double a[3], b[3], v[3], vj[3], raw[3] = {0, 0, 0};
    boid_of(f, i, a, v);
    boid_of(f, j, b, vj);
    q->d2 = 0;
    q->amb = 0;
    for (int c = 0; c < 3; c++) q->d[c] = q->w[c] = 0;
    for (int c = 0; c < dim; c++) {
        raw[c] = b[c] - a[c];
        q->d[c] = verify_wrap_d(raw[c], side[c], wrap);
        q->w[c] = q->d[c] != raw[c] ? side[c] : 0;
        q->d2 += q->d[c] * q->d[c];
    }
    q->cand = 1;
    const double bv = band_pair(dim, rv, a, b, q->d, q->w);
    if (radius) {
        q->cand = vicsek ? q->d2 <= rv * rv : q->d2 < rv * rv;
        if (fabs(q->d2 - rv * rv) <= bv) q->amb = 1;
        if (q->d2 > rv * rv + bv) return; /* no candidate in float either */
    }
    if (vicsek) return; /* no fov; the image does not change d2 */
    /* The shortest image flips when an offset is near half the world: the fov decision and
     * the cohesion offset flip with it. */
    for (int c = 0; wrap && c < dim; c++)
        if (fabs(fabs(raw[c]) - side[c] / 2) <= 4 * e) q->amb = 1;
    const double sp = norm(dim, v);
    if (p->fov >= 360.0 || sp == 0 || q->d2 == 0) return;
    /* dot and the limit: relative float errors of a few FLT_EPSILON on |v||d|, plus |v|
     * times the offset error (as in band_pair). */
    double dl = sqrt(q->d2), c = rules_cos_half_fov(p->fov), es = 0, dot = 0;
    for (int k = 0; k < dim; k++) {
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

/* (d2, j) strictly before b in the selection order (distance, then id). */
static int dj_before(double d2, size_t j, const dj *b) {
    return d2 < b->d2 || (d2 == b->d2 && j < b->j);
}

/* Band of a distance tie with the k-th: the pair's own float error bound at the k-th's
 * distance dk (band_pair, which also counts the rounding of that distance). */
static double tie_band(const boids_flock *f, size_t i, size_t j, const pair_d *q, double dk) {
    double a[3], b[3], v[3];
    boid_of(f, i, a, v);
    boid_of(f, j, b, v);
    return band_pair(f->z ? 3 : 2, sqrt(dk), a, b, q->d, q->w);
}

/* Pass 1 of the band of boid i (see verify_band): the topological selection's k-th candidate
 * in (d2, j) order and whether the (k+1)-th ties it within float precision. */
typedef struct selection {
    int strict;  /* more candidates than k: a real selection */
    int crowded; /* candidates and pairs that may become one outnumber k */
    int tie;     /* the (k+1)-th is within float precision of the k-th's distance */
    dj kth;      /* the k-th candidate (strict only) */
    double bk;   /* the band of the k-th's distance */
    long far;    /* the k-th candidate, whatever the count (-1: fewer than k) */
    long next;   /* the (k+1)-th candidate (-1: none) */
} selection;

static selection band_select(const boids_params *p, const boids_flock *f, size_t i, dj *sel) {
    const int topo = p->neighbours == BOIDS_NEIGHBOURS_TOPOLOGICAL;
    const size_t kk = topo ? (size_t)p->k : 0;
    size_t m = 0, ncand = 0, namb_out = 0;
    for (size_t j = 0; topo && j < f->n; j++) {
        if (j == i) continue;
        pair_d q;
        pair_eval(p, f, i, j, &q);
        if (q.amb && !q.cand) namb_out++;
        if (!q.cand) continue;
        ncand++;
        if (m == kk + 1 && !dj_before(q.d2, j, &sel[m - 1])) continue;
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
        pair_d qk, qn;
        s.kth = sel[kk - 1];
        pair_eval(p, f, i, s.kth.j, &qk);
        pair_eval(p, f, i, sel[kk].j, &qn);
        s.bk = tie_band(f, i, s.kth.j, &qk, s.kth.d2);
        s.tie = fabs(qn.d2 - s.kth.d2) <= s.bk + tie_band(f, i, sel[kk].j, &qn, s.kth.d2);
    }
    return s;
}

/* The rules of boid i's species si towards species sj (Reynolds, species > 1): the pair at
 * offset q from boid j at b within float precision of the rule's radius, and chase's nearest
 * (near[sj], by (distance, id)) and the next after it (next[sj]) kept for band_chase. */
static void band_rules(const boids_params *p, const boids_flock *f, size_t i, size_t j, int si,
                       int sj, const pair_d *q, dj near[], dj next[], verify_amb *a) {
    const int rule = p->rule[si][sj];
    const double rr = p->rule_radius[si][sj];
    double x[3], b[3], v[3];
    if (rule == BOIDS_RULE_NONE) return;
    boid_of(f, i, x, v);
    boid_of(f, j, b, v);
    if (fabs(q->d2 - rr * rr) <= band_pair(f->z ? 3 : 2, rr, x, b, q->d, q->w)) verify_amb_self(a);
    if (rule != BOIDS_RULE_CHASE || !(q->d2 < rr * rr)) return;
    const dj c = {q->d2, j};
    if (dj_before(c.d2, c.j, &near[sj]))
        next[sj] = near[sj], near[sj] = c;
    else if (dj_before(c.d2, c.j, &next[sj]))
        next[sj] = c;
}

/* Chase's nearest of each species within float precision of the next one's distance: float
 * may chase the other. */
static void band_chase(const boids_params *p, const boids_flock *f, size_t i, const dj near[],
                       const dj next[], verify_amb *a) {
    for (int sj = 0; sj < p->species && sj < BOIDS_MAX_SPECIES; sj++) {
        if (next[sj].j == (size_t)-1) continue;
        pair_d qa, qb;
        pair_eval(p, f, i, near[sj].j, &qa);
        pair_eval(p, f, i, next[sj].j, &qb);
        if (fabs(qb.d2 - qa.d2) <=
            tie_band(f, i, near[sj].j, &qa, qa.d2) + tie_band(f, i, next[sj].j, &qb, qa.d2))
            verify_amb_self(a);
    }
}

/* Pass 2 of the band of boid i (see verify_band): the decisions, with its species'
 * parameters (boids_params_of_species: its radii, its noise). sel is scratch of k + 1. */
static void band_boid(const boids_params *pp, const boids_flock *f, size_t i, dj *sel,
                      verify_amb *a) {
    const int species = pp->species > 1, si = boids_species_of(pp, i);
    const boids_params own = boids_params_of_species(pp, si), *p = &own;
    const int dim = f->z ? 3 : 2, vicsek = p->model == BOIDS_MODEL_VICSEK;
    const double rs = p->separation_radius;
    dj near[BOIDS_MAX_SPECIES], next[BOIDS_MAX_SPECIES]; /* chase's nearest, the next */
    for (int c = 0; c < BOIDS_MAX_SPECIES; c++) near[c] = next[c] = (dj){INFINITY, (size_t)-1};
    a->boid = a->self = a->overflow = a->namb = 0;
    const selection sl = band_select(p, f, i, sel);
    double sum[3] = {0, 0, 0}, x[3], v[3], b[3], vj[3];
    boid_of(f, i, x, v);
    long cnt = 1;
    int enter = 0, leave = 0; /* ambiguous candidates that may enter or leave a full selection */
    const double sp = norm(dim, v);
    for (int c = 0; sp > 0 && c < dim; c++) sum[c] = v[c] / sp;
    const double sum0[3] = {sum[0], sum[1], sum[2]}; /* its own heading */
    for (size_t j = 0; j < f->n; j++) {
        if (j == i) continue;
        pair_d q;
        pair_eval(p, f, i, j, &q);
        const int in = q.cand && (!sl.strict || !dj_before(sl.kth.d2, sl.kth.j, &(dj){q.d2, j}));
        const int sj = species ? boids_species_of(p, j) : 0;
        const double w = species ? p->coupling[si][sj] : 1; /* its weight in i's sums */
        boid_of(f, j, b, vj);
        if (species && !vicsek) band_rules(p, f, i, j, si, sj, &q, near, next, a);
        if (in && vicsek && w > 0) {
            const double sj = norm(dim, vj);
            double dot = 0, uj[3] = {0, 0, 0};
            for (int c = 0; sj > 0 && c < dim; c++) uj[c] = vj[c] / sj, dot += uj[c] * sum0[c];
            /* nematic: a heading at right angles may take either sign in float */
            if (p->alignment == BOIDS_ALIGNMENT_NEMATIC && fabs(dot) <= 8 * FLT_EPSILON)
                verify_amb_self(a);
            const double sg = p->alignment == BOIDS_ALIGNMENT_NEMATIC && dot < 0 ? -1 : 1;
            for (int c = 0; c < dim; c++) sum[c] += sg * w * uj[c];
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
        if (in && !vicsek && fabs(q.d2 - rs * rs) <= band_pair(dim, rs, x, b, q.d, q.w))
            verify_amb_self(a); /* a neighbour at the separation radius */
    }
    if (species && !vicsek) band_chase(p, f, i, near, next, a);
    verify_amb_shift(a, enter, leave, sl.far, sl.next);
    band_external(p, f, i, sum, cnt, a);
}

/* The band, per boid:
 *   - pairs whose candidacy may flip in float (radius, fov, image): each is an ambiguous
 *     pair; with topological neighbours, when candidates outnumber k and such a pair could
 *     thereby change the selection beyond itself, the boid is left out, set unchecked
 *     (overflow);
 *   - topological: when the (k+1)-th candidate's distance ties the k-th's within float
 *     precision (both pairs' error bounds), every candidate within that band of the k-th is
 *     an ambiguous pair (float may pick another of them, ties by id aside);
 *   - Reynolds: a neighbour at the separation radius, and the predator, food and wall
 *     margins;
 *   - Vicsek: a heading sum within float precision of the zero-sum tolerance (float n 1e-5
 *     against cpu-ref's n 1e-12: the two paths keep the old heading in different ranges), a
 *     moved position within float precision of a wall (the heading is mirrored) and, in the
 *     box, a mean direction within float precision of the plane where the noise's basis
 *     turns;
 *   - species: each boid with its own species' radii and noise, its heading sum weighted by
 *     its couplings; a Reynolds boid's pair within float precision of a rule's radius, and
 *     chase's nearest tied with the next. */
void verify_band(const boids_params *p, const boids_flock *f, verify_amb *amb) {
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
