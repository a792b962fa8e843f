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
    } else {
        rules_k_init_d2(&r->k, p);
        rules_k_set_interact_d2(&r->k, &r->tab, t);
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
 * separation sum, the velocity sum (alignment), the offset sum (cohesion), within float
 * error of zero? Its direction is then rounding: rules_steer normalises it. The error bound
 * of an offset component is FLT_EPSILON (|a| + |b| + side) (both coordinates and the
 * difference rounded, a wrap by the side), of a velocity FLT_EPSILON |v|, of a separation
 * term -d / |d|^2 three relative roundings and the offset's error over |d|^2; a sum of m
 * terms adds m FLT_EPSILON times the sum of their sizes. The band is twice that bound, as
 * for every threshold (verify_float.c). */
static int targets_zero(const verify_ref *r, size_t i, size_t m) {
    const boids_params *p = &r->p;
    const double side[3] = {p->width, p->height, p->depth}, e = FLT_EPSILON;
    double sum[3][3] = {{0}}, bound[3] = {0}, size[3] = {0};
    int separated = 0;
    for (size_t t = 0; t < m; t++) {
        const size_t j = r->nb[t];
        double d[3] = {0, 0, 0}, err = 0, d2 = 0;
        if (r->dim == 3)
            verify_offset_d3(&r->k3, &r->s, i, j, d);
        else
            verify_offset_d2(&r->k, &r->s, i, j, d);
        double vn = 0;
        for (int c = 0; c < r->dim; c++) {
            err += e * (fabs(r->s.p[c][i]) + fabs(r->s.p[c][j]) + side[c]);
            d2 += d[c] * d[c];
            vn += r->s.v[c][j] * r->s.v[c][j];
        }
        const double dl = sqrt(d2);
        vn = sqrt(vn);
        for (int c = 0; c < r->dim; c++) sum[1][c] += r->s.v[c][j], sum[2][c] += d[c];
        bound[1] += e * vn, size[1] += vn;
        bound[2] += err, size[2] += dl;
        if (0 < d2 && d2 < p->separation_radius * p->separation_radius) {
            separated = 1;
            for (int c = 0; c < r->dim; c++) sum[0][c] -= d[c] / d2;
            bound[0] += 3 * e / dl + 3 * err / d2;
            size[0] += 1 / dl;
        }
    }
    for (int q = separated ? 0 : 1; m > 0 && q < 3; q++) {
        double len = sqrt(sum[q][0] * sum[q][0] + sum[q][1] * sum[q][1] + sum[q][2] * sum[q][2]);
        if (len <= 2 * (bound[q] + (double)m * e * size[q])) return 1;
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
    if (r->cur != i) {
        r->nbase = r->dim == 3 ? verify_gather_d3(p, &r->k3, &r->s, i, r->base, r->sel)
                               : verify_gather_d2(p, &r->k, &r->s, i, r->base, r->sel);
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
        cnt = verify_decide_d3(p, &r->k3, &r->s, i, r->nb, m, 0, dec);
        verify_update_d3(p, &r->k3, &r->s, i, dec, cnt, pos, vel);
        out->z[i] = pos[2];
        out->vz[i] = vel[2];
    } else {
        cnt = verify_decide_d2(p, &r->k, &r->s, i, r->nb, m, 0, dec);
        verify_update_d2(p, &r->k, &r->s, i, dec, cnt, pos, vel);
    }
    out->x[i] = pos[0];
    out->y[i] = pos[1];
    out->vx[i] = vel[0];
    out->vy[i] = vel[1];
    return p->model == BOIDS_MODEL_VICSEK ? vicsek_zero(r, dec, cnt) : targets_zero(r, i, m);
}
