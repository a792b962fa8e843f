/* SPDX-License-Identifier: MIT */
/* `boids verify`: the double reference of single boids with a chosen neighbour set.
 *
 * A boid whose neighbour decisions are within float precision of their thresholds (a pair at
 * the vision radius or the fov's edge, a tie with the k-th distance, coincident boids across
 * a wrap seam) has more than one correct float step. verify_band lists those pairs; here the
 * reference computes the step for any choice of them, with the operations of cpu-ref (the
 * brute force of verify_step.h in double, pairs in index order), so that `verify` can check a
 * backend's boid against every admissible outcome instead of leaving the boid out. */
#include <float.h>
#include <math.h>
#include <stdlib.h>

#include "verify/verify.h"

#define RULES_INSTANCE_DOUBLE
#define RULES_INSTANCE_FILE "verify/verify_step.h"
#include "../core/rules_instances.h"
#undef RULES_INSTANCE_FILE
#undef RULES_INSTANCE_DOUBLE

struct verify_ref {
    boids_params p;
    rules_k_d2 k;
    rules_k_d3 k3;
    rules_table_d2 tab;
    rules_table_d3 tab3;
    rules_k_d2 ks[BOIDS_MAX_SPECIES]; /* species > 1: each species' constants */
    rules_k_d3 ks3[BOIDS_MAX_SPECIES];
    verify_snap_double s;
    int dim;
    size_t cur;                /* the boid whose double set base holds ((size_t)-1: none) */
    size_t nbase;              /* its size */
    size_t *base;              /* its double neighbour set, ascending (n) */
    size_t *nb;                /* a chosen set (n + VERIFY_MAX_AMB) */
    rules_nearest_double *sel; /* gather scratch (n) */
    unsigned char *mark;       /* per boid: flipped in the chosen set (n) */
    unsigned char was_in[VERIFY_MAX_AMB]; /* the listed pairs: in the double set base */
};

verify_ref *verify_ref_new(const boids_params *p, const boids_interact *t, const boids_flock *f) {
    verify_ref *r = calloc(1, sizeof *r);
    if (!r) return NULL;
    const size_t n = f->n;
    r->base = malloc((n + 1) * sizeof *r->base);
    r->nb = malloc((n + 1 + VERIFY_MAX_AMB) * sizeof *r->nb);
    r->sel = malloc((n + 1) * sizeof *r->sel);
    r->mark = calloc(n + 1, 1);
    if (!r->base || !r->nb || !r->sel || !r->mark) {
        verify_ref_free(r);
        return NULL;
    }
    r->p = *p;
    r->dim = f->z ? 3 : 2;
    if (r->dim == 3) {
        rules_k_init_d3(&r->k3, p);
        rules_k_set_interact_d3(&r->k3, &r->tab3, t);
        if (p->species > 1) rules_k_species_d3(r->ks3, &r->k3, p);
    } else {
        rules_k_init_d2(&r->k, p);
        rules_k_set_interact_d2(&r->k, &r->tab, t);
        if (p->species > 1) rules_k_species_d2(r->ks, &r->k, p);
    }
    /* The snapshot: f itself, read only. */
    r->s = (verify_snap_double){{f->x, f->y, f->z}, {f->vx, f->vy, f->vz}, n};
    r->cur = (size_t)-1;
    return r;
}

void verify_ref_free(verify_ref *r) {
    if (!r) return;
    free(r->base);
    free(r->nb);
    free(r->sel);
    free(r->mark);
    free(r);
}

/* Is one of the Reynolds targets that boid i steers along with the neighbours nb (m): the
 * separation sum, the velocity sum (alignment), the offset sum (cohesion) and, with species,
 * the avoid and flee rules' sums towards each species, within float error of zero? Its
 * direction is then rounding: rules_steer normalises it. The error bound of an offset
 * component is FLT_EPSILON (|a| + |b| + side) (both coordinates and the difference rounded, a
 * wrap by the side), of a velocity FLT_EPSILON |v|, of a separation (avoid) term -d / |d|^2
 * three relative roundings and the offset's error over |d|^2; a sum of m terms adds m
 * FLT_EPSILON times the sum of their sizes; a coupling w scales a term, its bound and its
 * size. The band is twice that bound, as for every threshold (verify_float.c). k: boid i's
 * constants (its species': separation radius, couplings, rules). */
enum { TZ_SEP, TZ_ALIGN, TZ_COH, TZ_RULE }; /* the targets; TZ_RULE + j: the rule towards j */

/* Adds the terms of boid j at offset d (|d|^2 = d2, velocity norm vn, offset error err) to
 * the target sums: as a neighbour weighted by w (seen), and to the rule r towards its
 * species sj within r2. */
static void tz_add(double sum[][3], double *bound, double *size, long *terms, int dim,
                   const double d[3], double d2, double vn, const double *vj, double err, double w,
                   double sep2, int seen, int r, double r2, int sj) {
    const double e = FLT_EPSILON, dl = sqrt(d2);
    if (seen) {
        for (int c = 0; c < dim; c++) sum[TZ_ALIGN][c] += w * vj[c], sum[TZ_COH][c] += w * d[c];
        bound[TZ_ALIGN] += w * e * vn, size[TZ_ALIGN] += w * vn;
        bound[TZ_COH] += w * err, size[TZ_COH] += w * dl;
    }
    for (int q = 0; q < 2; q++) {
        const int t = q == 0 ? TZ_SEP : TZ_RULE + sj;
        if (q == 0 ? !(seen && 0 < d2 && d2 < sep2) : !(r == BOIDS_RULE_AVOID && 0 < d2 && d2 < r2))
            continue;
        for (int c = 0; c < dim; c++) sum[t][c] -= d[c] / d2;
        bound[t] += 3 * e / dl + 3 * err / d2, size[t] += 1 / dl, terms[t]++;
    }
    if (r == BOIDS_RULE_FLEE && d2 < r2) {
        for (int c = 0; c < dim; c++) sum[TZ_RULE + sj][c] -= d[c];
        bound[TZ_RULE + sj] += err, size[TZ_RULE + sj] += dl, terms[TZ_RULE + sj]++;
    }
}

static int targets_zero(const verify_ref *r, const rules_k_d2 *k2, const rules_k_d3 *k3, size_t i,
                        size_t m) {
    const boids_params *p = &r->p;
    const int dim = r->dim, sp = p->species > 1;
    const double side[3] = {p->width, p->height, p->depth}, e = FLT_EPSILON;
    const double sep2 = dim == 3 ? k3->sep2 : k2->sep2;
    double sum[TZ_RULE + BOIDS_MAX_SPECIES][3] = {{0}};
    double bound[TZ_RULE + BOIDS_MAX_SPECIES] = {0}, size[TZ_RULE + BOIDS_MAX_SPECIES] = {0};
    long terms[TZ_RULE + BOIDS_MAX_SPECIES] = {0}; /* the sums' terms (the flocking sums: m) */
    size_t t = 0;
    /* Every boid with species (its rules reach beyond its neighbours), else the neighbours. */
    for (size_t q = 0; q < (sp ? r->s.n : m); q++) {
        const size_t j = sp ? q : r->nb[q];
        const int seen = !sp || (t < m && r->nb[t] == j);
        if (sp && seen) t++;
        if (j == i) continue;
        double d[3] = {0, 0, 0}, vj[3] = {0, 0, 0}, err = 0, d2 = 0, vn = 0;
        if (dim == 3)
            verify_offset_d3(k3, &r->s, i, j, d);
        else
            verify_offset_d2(k2, &r->s, i, j, d);
        for (int c = 0; c < dim; c++) {
            err += e * (fabs(r->s.p[c][i]) + fabs(r->s.p[c][j]) + side[c]);
            d2 += d[c] * d[c];
            vj[c] = r->s.v[c][j];
            vn += vj[c] * vj[c];
        }
        int sj = 0, rule = BOIDS_RULE_NONE;
        double w = 1, r2 = 0;
        if (sp) {
            sj = dim == 3 ? rules_species_of_d3(k3, j) : rules_species_of_d2(k2, j);
            w = dim == 3 ? k3->coup[sj] : k2->coup[sj];
            rule = dim == 3 ? k3->rule[sj] : k2->rule[sj];
            r2 = dim == 3 ? k3->rule_r2[sj] : k2->rule_r2[sj];
        }
        tz_add(sum, bound, size, terms, dim, d, d2, sqrt(vn), vj, err, w, sep2, seen, rule, r2, sj);
    }
    for (int q = 0; q < TZ_RULE + BOIDS_MAX_SPECIES; q++) {
        const int flocking = q == TZ_ALIGN || q == TZ_COH; /* steered along whenever m > 0 */
        if (flocking ? m == 0 : terms[q] == 0) continue;
        const double n = q < TZ_RULE ? (double)m : (double)terms[q];
        double len = sqrt(sum[q][0] * sum[q][0] + sum[q][1] * sum[q][1] + sum[q][2] * sum[q][2]);
        if (len <= 2 * (bound[q] + n * e * size[q])) return 1;
    }
    return 0;
}

/* The Vicsek heading sum dec of cnt headings within float precision of the zero-sum
 * tolerance (float: cnt 1e-5) or, in 3-D, of the plane where the noise's basis turns
 * (verify_float.c's band_external, the same bounds). */
static int vicsek_zero(const verify_ref *r, const double dec[3], long cnt) {
    const double s = r->dim == 3 ? sqrt(dec[0] * dec[0] + dec[1] * dec[1] + dec[2] * dec[2])
                                 : hypot(dec[0], dec[1]);
    if (s <= (double)cnt * (1e-5 + 16 * FLT_EPSILON)) return 1;
    return r->dim == 3 && fabs(dec[2]) <= (double)cnt * 16 * FLT_EPSILON;
}

int verify_ref_boid(verify_ref *r, size_t i, const verify_amb *a, unsigned mask, boids_flock *out) {
    const boids_params *p = &r->p;
    const int sp = p->species > 1; /* boid i decides with its species' constants */
    const rules_k_d2 *k = verify_k_of_d2(&r->k, sp ? r->ks : NULL, i);
    const rules_k_d3 *k3 = verify_k_of_d3(&r->k3, sp ? r->ks3 : NULL, i);
    if (r->cur != i) {
        r->nbase = r->dim == 3 ? verify_gather_d3(p, k3, &r->s, i, r->base, r->sel)
                               : verify_gather_d2(p, k, &r->s, i, r->base, r->sel);
        r->cur = i;
        for (unsigned q = 0; q < a->namb; q++) r->mark[a->id[q]] = 1;
        for (size_t t = 0; t < r->nbase; t++) r->mark[r->base[t]] |= 2;
        for (unsigned q = 0; q < a->namb; q++) r->was_in[q] = r->mark[a->id[q]] >> 1;
        for (unsigned q = 0; q < a->namb; q++) r->mark[a->id[q]] = 0;
        for (size_t t = 0; t < r->nbase; t++) r->mark[r->base[t]] = 0;
    }
    /* The double set with the flipped pairs toggled (a neighbour leaves, another enters),
     * ascending. */
    for (unsigned q = 0; q < a->namb; q++) r->mark[a->id[q]] = (unsigned char)(mask >> q & 1);
    size_t m = 0;
    for (size_t t = 0; t < r->nbase; t++)
        if (!r->mark[r->base[t]]) r->nb[m++] = r->base[t];
    for (unsigned q = 0; q < a->namb; q++) {
        if ((mask >> q & 1) && !r->was_in[q]) r->nb[m++] = a->id[q];
        r->mark[a->id[q]] = 0;
    }
    rules_ids_ascending(r->nb, m);
    double dec[3], pos[3], vel[3];
    long cnt;
    if (r->dim == 3) {
        cnt = verify_decide_d3(p, k3, &r->s, i, r->nb, m, 0, dec);
        verify_update_d3(p, k3, &r->s, i, dec, cnt, pos, vel);
        out->z[i] = pos[2];
        out->vz[i] = vel[2];
    } else {
        cnt = verify_decide_d2(p, k, &r->s, i, r->nb, m, 0, dec);
        verify_update_d2(p, k, &r->s, i, dec, cnt, pos, vel);
    }
    out->x[i] = pos[0];
    out->y[i] = pos[1];
    out->vx[i] = vel[0];
    out->vy[i] = vel[1];
    return p->model == BOIDS_MODEL_VICSEK ? vicsek_zero(r, dec, cnt) : targets_zero(r, k, k3, i, m);
}
