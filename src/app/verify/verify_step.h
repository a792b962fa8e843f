/* SPDX-License-Identifier: MIT */
/* One boid's brute-force step, written once for any floating type: the float brute force
 * that calibrates `boids verify`'s tolerance (verify_float.c, verify_float3.c) and the
 * double reference of a boid with a neighbour set given (verify_decide.c), which decides
 * the boids whose float decisions are ambiguous.
 *
 * Include after rules.h (and, with VERIFY_STEP_3D defined, rules3.h) with the same
 * RULES_REAL and RULES_FN, as rules.h itself is included. The operations are cpu-ref's in
 * their order: pairs in ascending index, Vicsek agents summed with themselves at their
 * index, every boid deciding from the same snapshot s. */

#ifndef RULES_REAL
#error "define RULES_REAL before including verify_step.h"
#endif

#include <stddef.h>

#include "boids/params.h"
#include "boids/backend.h"

#ifndef VERIFY_STEP_H_SHARED
#define VERIFY_STEP_H_SHARED
/* The t-th of boid i and its neighbours nb (m of them, ascending, i not among them, the
 * first q of them below i) in index order. */
static inline size_t verify_merged(const size_t *nb, size_t q, size_t i, size_t t) {
    return t < q ? nb[t] : t == q ? i : nb[t - 1];
}
static inline size_t verify_below(const size_t *nb, size_t m, size_t i) {
    size_t q = 0;
    while (q < m && nb[q] < i) q++;
    return q;
}
#endif

#define R RULES_REAL

/* The state every boid decides from: positions and velocities per axis (2 or 3 used). */
typedef struct RULES_FN(verify_snap) {
    R *p[3], *v[3];
    size_t n;
} RULES_FN(verify_snap);

/* Keeps the kmax smallest (d2, j) of the m selected in nb and sel_d2, nearest first;
 * candidates come in ascending j, so of equal distances the lower id stays. Returns the new
 * count. */
static inline size_t RULES_FN(verify_topo_keep)(size_t *nb, R *sel_d2, size_t m, size_t kmax,
                                                size_t j, R d2) {
    if (m == kmax && !(d2 < sel_d2[m - 1])) return m;
    size_t pos = m < kmax ? m++ : m - 1;
    for (; pos > 0 && d2 < sel_d2[pos - 1]; pos--) {
        sel_d2[pos] = sel_d2[pos - 1];
        nb[pos] = nb[pos - 1];
    }
    sel_d2[pos] = d2;
    nb[pos] = j;
    return m;
}

/* Passes a candidate (d2, j) to the selection: metric, appended; topological, kept among the
 * k nearest. Returns the new count. */
static inline size_t RULES_FN(verify_select)(const boids_params *p, size_t *nb, R *sel_d2, size_t m,
                                             size_t j, R d2) {
    if (p->neighbours != BOIDS_NEIGHBOURS_TOPOLOGICAL) {
        nb[m] = j;
        return m + 1;
    }
    return RULES_FN(verify_topo_keep)(nb, sel_d2, m, (size_t)p->k, j, d2);
}

/* The gathered neighbours in index order (a topological selection is by distance); returns
 * their number. */
static inline size_t RULES_FN(verify_selected)(const boids_params *p, size_t *nb, size_t m) {
    if (p->neighbours == BOIDS_NEIGHBOURS_TOPOLOGICAL) verify_ids_ascending(nb, m);
    return m;
}

/* The Vicsek heading sum of boid i and its neighbours nb (m, ascending) into out, in index
 * order or reversed; returns the headings summed. */
static inline long RULES_FN(verify_vicsek_sum)(const RULES_FN(verify_snap) * s, int dim, size_t i,
                                               const size_t *nb, size_t m, int reverse, R out[3]) {
    const size_t q = verify_below(nb, m, i);
    out[0] = out[1] = out[2] = 0;
    for (size_t a = 0; a <= m; a++) {
        size_t j = verify_merged(nb, q, i, reverse ? m - a : a);
#ifdef VERIFY_STEP_3D
        if (dim == 3) {
            RULES_FN(vicsek3_add)(s->v[0][j], s->v[1][j], s->v[2][j], out);
            continue;
        }
#endif
        (void)dim;
        RULES_FN(vicsek_add)(s->v[0][j], s->v[1][j], &out[0], &out[1]);
    }
    return (long)m + 1;
}

/* Is j a candidate neighbour of i (before any topological selection)? Reynolds: d2 < R^2
 * (metric, or topological with k_in_vision) and the fov; Vicsek: d2 <= R^2 (idem), no fov. */
static inline int RULES_FN(verify_candidate)(const boids_params *p, const RULES_FN(rules_k) * k,
                                             R dx, R dy, R d2, R vx, R vy) {
    const int vicsek = p->model == BOIDS_MODEL_VICSEK;
    const int radius = p->neighbours != BOIDS_NEIGHBOURS_TOPOLOGICAL || p->k_in_vision;
    if (radius && !(vicsek ? d2 <= k->vision2 : d2 < k->vision2)) return 0;
    return vicsek || RULES_FN(rules_in_fov)(k, dx, dy, d2, vx, vy);
}

/* The neighbours of i by brute force into nb (ascending index), returning their number;
 * topological: the first k by (d2, id). sel_d2 is scratch of k entries (of n for metric). */
static inline size_t RULES_FN(verify_gather)(const boids_params *p, const RULES_FN(rules_k) * k,
                                             const RULES_FN(verify_snap) * s, size_t i, size_t *nb,
                                             R *sel_d2) {
    size_t m = 0;
    for (size_t j = 0; j < s->n; j++) {
        if (j == i) continue;
        R dx, dy;
        RULES_FN(rules_offset)(k, s->p[0][i], s->p[1][i], s->p[0][j], s->p[1][j], &dx, &dy);
        R d2 = dx * dx + dy * dy;
        if (!RULES_FN(verify_candidate)(p, k, dx, dy, d2, s->v[0][i], s->v[1][i])) continue;
        m = RULES_FN(verify_select)(p, nb, sel_d2, m, j, d2);
    }
    return RULES_FN(verify_selected)(p, nb, m);
}

/* Boid i's decision with the neighbours nb (m, ascending): the Reynolds acceleration or the
 * Vicsek heading sum into out, summed in index order or reversed (reverse != 0); returns the
 * headings summed (Vicsek) or 0. */
static inline long RULES_FN(verify_decide)(const boids_params *p, const RULES_FN(rules_k) * k,
                                           const RULES_FN(verify_snap) * s, size_t i,
                                           const size_t *nb, size_t m, int reverse, R out[2]) {
    if (p->model == BOIDS_MODEL_VICSEK) {
        R sum[3];
        long cnt = RULES_FN(verify_vicsek_sum)(s, 2, i, nb, m, reverse, sum);
        out[0] = sum[0], out[1] = sum[1];
        return cnt;
    }
    RULES_FN(rules_acc) a;
    RULES_FN(rules_acc_init)(&a);
    for (size_t t = 0; t < m; t++) {
        size_t j = nb[reverse ? m - 1 - t : t];
        R dx, dy;
        RULES_FN(rules_offset)(k, s->p[0][i], s->p[1][i], s->p[0][j], s->p[1][j], &dx, &dy);
        RULES_FN(rules_acc_add)(k, &a, dx, dy, dx * dx + dy * dy, s->v[0][j], s->v[1][j]);
    }
    RULES_FN(rules_accel)
    (k, &a, s->p[0][i], s->p[1][i], s->v[0][i], s->v[1][i], &out[0], &out[1]);
    return 0;
}

/* Moves boid i of s with its decision (dec, cnt) into pos and vel; Vicsek noise at step 0 of
 * its stream, as every backend is fresh from an upload. */
static inline void RULES_FN(verify_update)(const boids_params *p, const RULES_FN(rules_k) * k,
                                           const RULES_FN(verify_snap) * s, size_t i,
                                           const R dec[2], long cnt, R pos[2], R vel[2]) {
    pos[0] = s->p[0][i], pos[1] = s->p[1][i], vel[0] = s->v[0][i], vel[1] = s->v[1][i];
    if (p->model == BOIDS_MODEL_VICSEK) {
        R u = (R)boids_noise_u((uint64_t)p->noise_seed, 0, (uint32_t)i);
        RULES_FN(vicsek_update)
        (k, dec[0], dec[1], cnt, u, (R)p->noise, (R)p->speed, &pos[0], &pos[1], &vel[0], &vel[1]);
    } else {
        RULES_FN(rules_integrate)(k, dec[0], dec[1], &pos[0], &pos[1], &vel[0], &vel[1]);
    }
}

#ifdef VERIFY_STEP_3D
static inline R RULES_FN(verify_offset3)(const RULES_FN(rules3_k) * k,
                                         const RULES_FN(verify_snap) * s, size_t i, size_t j,
                                         R d[3]) {
    RULES_FN(rules3_offset)
    (k, s->p[0][i], s->p[1][i], s->p[2][i], s->p[0][j], s->p[1][j], s->p[2][j], &d[0], &d[1],
     &d[2]);
    return RULES_FN(rules3_d2)(d[0], d[1], d[2]);
}

static inline size_t RULES_FN(verify_gather3)(const boids_params *p, const RULES_FN(rules3_k) * k,
                                              const RULES_FN(verify_snap) * s, size_t i, size_t *nb,
                                              R *sel_d2) {
    const int vicsek = p->model == BOIDS_MODEL_VICSEK;
    const int radius = p->neighbours != BOIDS_NEIGHBOURS_TOPOLOGICAL || p->k_in_vision;
    size_t m = 0;
    for (size_t j = 0; j < s->n; j++) {
        if (j == i) continue;
        R d[3], d2 = RULES_FN(verify_offset3)(k, s, i, j, d);
        if (radius && !(vicsek ? d2 <= k->vision2 : d2 < k->vision2)) continue;
        if (!vicsek &&
            !RULES_FN(rules3_in_fov)(k, d[0], d[1], d[2], d2, s->v[0][i], s->v[1][i], s->v[2][i]))
            continue;
        m = RULES_FN(verify_select)(p, nb, sel_d2, m, j, d2);
    }
    return RULES_FN(verify_selected)(p, nb, m);
}

static inline long RULES_FN(verify_decide3)(const boids_params *p, const RULES_FN(rules3_k) * k,
                                            const RULES_FN(verify_snap) * s, size_t i,
                                            const size_t *nb, size_t m, int reverse, R out[3]) {
    if (p->model == BOIDS_MODEL_VICSEK)
        return RULES_FN(verify_vicsek_sum)(s, 3, i, nb, m, reverse, out);
    RULES_FN(rules3_acc) acc;
    RULES_FN(rules3_acc_init)(&acc);
    for (size_t t = 0; t < m; t++) {
        size_t j = nb[reverse ? m - 1 - t : t];
        R d[3], d2 = RULES_FN(verify_offset3)(k, s, i, j, d);
        RULES_FN(rules3_acc_add)
        (k, &acc, d[0], d[1], d[2], d2, s->v[0][j], s->v[1][j], s->v[2][j]);
    }
    const R pos[3] = {s->p[0][i], s->p[1][i], s->p[2][i]};
    const R vel[3] = {s->v[0][i], s->v[1][i], s->v[2][i]};
    RULES_FN(rules3_accel)(k, &acc, pos, vel, out);
    return 0;
}

static inline void RULES_FN(verify_update3)(const boids_params *p, const RULES_FN(rules3_k) * k,
                                            const RULES_FN(verify_snap) * s, size_t i,
                                            const R dec[3], long cnt, R pos[3], R vel[3]) {
    for (int a = 0; a < 3; a++) pos[a] = s->p[a][i], vel[a] = s->v[a][i];
    if (p->model == BOIDS_MODEL_VICSEK) {
        R u1 = (R)boids_noise_u((uint64_t)p->noise_seed, 0, (uint32_t)i);
        R u2 = (R)boids_noise_u2((uint64_t)p->noise_seed, 0, (uint32_t)i);
        RULES_FN(vicsek3_update)(k, dec, cnt, u1, u2, (R)p->noise, (R)p->speed, pos, vel);
    } else {
        RULES_FN(rules3_integrate)(k, dec, pos, vel);
    }
}
#endif

#undef R
