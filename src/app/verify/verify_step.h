/* SPDX-License-Identifier: MIT */
/* One boid's brute-force step, written once for any floating type and dimension: the float
 * brute force that calibrates `boids verify`'s tolerance (verify_float.c) and the
 * double reference of a boid with a neighbour set given (verify_decide.c), which decides
 * the boids whose float decisions are ambiguous.
 *
 * Include after rules.h with the same RULES_REAL, RULES_DIM and RULES_FN, as rules.h itself
 * is included: once per precision and dimension. The operations are cpu-ref's in their
 * order: pairs in ascending index, Vicsek agents summed with themselves at their index,
 * every boid deciding from the same snapshot s. */

#ifndef RULES_REAL
#error "define RULES_REAL before including verify_step.h"
#endif

#include <stddef.h>
#include <stdlib.h>

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

/* The state every boid decides from: positions and velocities per axis (2 or 3 used), one
 * type per precision (verify_snap_float, verify_snap_double) for both dimensions. */
typedef struct verify_snap_float {
    float *p[3], *v[3];
    size_t n;
} verify_snap_float;
typedef struct verify_snap_double {
    double *p[3], *v[3];
    size_t n;
} verify_snap_double;
#define VERIFY_SNAP_(real) verify_snap_##real
#define VERIFY_SNAP(real)  VERIFY_SNAP_(real)
#endif

#define R    RULES_REAL
#define D    RULES_DIM
#define SNAP VERIFY_SNAP(RULES_REAL)

/* Passes a candidate (dist2, j) to the selection: metric, appended to nb; topological, kept
 * among the k nearest in sel (the rules' rules_nearest_keep). Returns the new count. */
static inline size_t RULES_FN(verify_select)(const boids_params *p, size_t *nb,
                                             RULES_FN(rules_nearest) * sel, size_t m, size_t j,
                                             R dist2) {
    if (p->neighbours != BOIDS_NEIGHBOURS_TOPOLOGICAL) {
        nb[m] = j;
        return m + 1;
    }
    return RULES_FN(rules_nearest_keep)(sel, m, (size_t)p->k, dist2, j, j);
}

/* The gathered neighbours into nb in index order (a topological selection, in sel, is by
 * distance); returns their number. */
static inline size_t RULES_FN(verify_selected)(const boids_params *p, size_t *nb,
                                               const RULES_FN(rules_nearest) * sel, size_t m) {
    if (p->neighbours == BOIDS_NEIGHBOURS_TOPOLOGICAL) {
        for (size_t q = 0; q < m; q++) nb[q] = sel[q].id;
        rules_ids_ascending(nb, m);
    }
    return m;
}

/* Boid i's position and velocity in s. */
static inline void RULES_FN(verify_boid)(const SNAP *s, size_t i, R p[D], R v[D]) {
    for (int a = 0; a < D; a++) p[a] = s->p[a][i], v[a] = s->v[a][i];
}

/* The offset d from boid i to boid j of s; returns |d|^2. */
static inline R RULES_FN(verify_offset)(const RULES_FN(rules_k) * k, const SNAP *s, size_t i,
                                        size_t j, R d[D]) {
    R pi[D], pj[D];
    for (int a = 0; a < D; a++) pi[a] = s->p[a][i], pj[a] = s->p[a][j];
    RULES_FN(rules_offset)(k, pi, pj, d);
    return RULES_FN(rules_dot)(d, d);
}

/* The constants boid i decides with: with species (ks: rules_k_species' sets, NULL for
 * none), its own species' (rules_species_of), else k. */
static inline const RULES_FN(rules_k) *
    RULES_FN(verify_k_of)(const RULES_FN(rules_k) * k, const RULES_FN(rules_k) * ks, size_t i) {
    return ks ? &ks[RULES_FN(rules_species_of)(ks, i)] : k;
}

/* The Vicsek heading sum of boid i and its neighbours nb (m, ascending) into out, in index
 * order or reversed, each term as i counts it (vicsek_term: nematic signs it by i's own
 * heading; with species, another's weighted by i's coupling, rules_sp_vterm); returns the
 * headings summed. k: i's constants (its species'). */
static inline long RULES_FN(verify_vicsek_sum)(const RULES_FN(rules_k) * k, const SNAP *s, size_t i,
                                               const size_t *nb, size_t m, int reverse, R out[D]) {
    const size_t q = verify_below(nb, m, i);
    R pos[D], vel[D], ui[D], u[D];
    long cnt = 0;
    for (int a = 0; a < D; a++) out[a] = ui[a] = 0;
    RULES_FN(verify_boid)(s, i, pos, vel);
    RULES_FN(vicsek_add)(vel, ui);
    for (size_t a = 0; a <= m; a++) {
        const size_t j = verify_merged(nb, q, i, reverse ? m - a : a);
        RULES_FN(verify_boid)(s, j, pos, vel);
        for (int c = 0; c < D; c++) u[c] = 0;
        RULES_FN(vicsek_add)(vel, u);
        if (k->species > 1 && j != i) {
            cnt += RULES_FN(rules_sp_vterm)(k, ui, u, RULES_FN(rules_species_of)(k, j), out);
        } else {
            RULES_FN(vicsek_term)(k, ui, u, out);
            cnt++;
        }
    }
    return cnt;
}

/* Boid i's Reynolds acceleration with species (k: its species' constants) into out: every
 * other boid in index order (or reversed), added to its flocking sums when it is one of the
 * neighbours nb (m, ascending: those it sees) and to its rules towards the other's species
 * within their radii (rules_sp_add), as cpu-ref does. */
static inline void RULES_FN(verify_sp_accel)(const RULES_FN(rules_k) * k, const SNAP *s, size_t i,
                                             const size_t *nb, size_t m, int reverse, R out[D]) {
    R pi[D], vi[D], pj[D], vj[D], d[D];
    RULES_FN(rules_acc) a;
    RULES_FN(rules_sp_acc) sa;
    RULES_FN(rules_acc_init)(&a);
    RULES_FN(rules_sp_acc_init)(&sa);
    size_t t = reverse ? m : 0; /* the next neighbour of nb in the visiting order */
    for (size_t q = 0; q < s->n; q++) {
        const size_t j = reverse ? s->n - 1 - q : q;
        const int sees = reverse ? t > 0 && nb[t - 1] == j : t < m && nb[t] == j;
        if (sees) t = reverse ? t - 1 : t + 1;
        if (j == i) continue;
        R dist2 = RULES_FN(verify_offset)(k, s, i, j, d);
        if (!sees && !(dist2 < k->reach2)) continue;
        RULES_FN(verify_boid)(s, j, pj, vj);
        RULES_FN(rules_sp_add)(k, &a, &sa, d, dist2, vj, RULES_FN(rules_species_of)(k, j), j, sees);
    }
    RULES_FN(verify_boid)(s, i, pi, vi);
    RULES_FN(rules_sp_accel)(k, &a, &sa, pi, vi, out);
}

/* Is j (at offset d, |d|^2 = dist2) a candidate neighbour of i with velocity vi (before any
 * topological selection)? Reynolds: dist2 < R^2 (metric, or topological with k_in_vision) and
 * the fov; Vicsek: dist2 <= R^2 (idem), no fov. */
static inline int RULES_FN(verify_candidate)(const boids_params *p, const RULES_FN(rules_k) * k,
                                             const R d[D], R dist2, const R vi[D]) {
    const int vicsek = p->model == BOIDS_MODEL_VICSEK;
    const int radius = p->neighbours != BOIDS_NEIGHBOURS_TOPOLOGICAL || p->k_in_vision;
    if (radius && !(vicsek ? dist2 <= k->vision2 : dist2 < k->vision2)) return 0;
    return vicsek || RULES_FN(rules_in_fov)(k, d, dist2, vi);
}

/* The neighbours of i by brute force into nb (ascending index), returning their number;
 * topological: the first k by (dist2, id). sel is scratch of k entries (of n for metric). */
static inline size_t RULES_FN(verify_gather)(const boids_params *p, const RULES_FN(rules_k) * k,
                                             const SNAP *s, size_t i, size_t *nb,
                                             RULES_FN(rules_nearest) * sel) {
    R pi[D], vi[D], d[D];
    RULES_FN(verify_boid)(s, i, pi, vi);
    size_t m = 0;
    for (size_t j = 0; j < s->n; j++) {
        if (j == i) continue;
        R dist2 = RULES_FN(verify_offset)(k, s, i, j, d);
        if (!RULES_FN(verify_candidate)(p, k, d, dist2, vi)) continue;
        m = RULES_FN(verify_select)(p, nb, sel, m, j, dist2);
    }
    return RULES_FN(verify_selected)(p, nb, sel, m);
}

/* Boid i's decision with the neighbours nb (m, ascending), k its constants (its species'):
 * the Reynolds acceleration or the Vicsek heading sum into out, summed in index order or
 * reversed (reverse != 0); returns the headings summed (Vicsek) or 0. */
static inline long RULES_FN(verify_decide)(const boids_params *p, const RULES_FN(rules_k) * k,
                                           const SNAP *s, size_t i, const size_t *nb, size_t m,
                                           int reverse, R out[D]) {
    if (p->model == BOIDS_MODEL_VICSEK)
        return RULES_FN(verify_vicsek_sum)(k, s, i, nb, m, reverse, out);
    if (k->species > 1) {
        RULES_FN(verify_sp_accel)(k, s, i, nb, m, reverse, out);
        return 0;
    }
    R pi[D], vi[D], pj[D], vj[D], d[D];
    RULES_FN(rules_acc) a;
    RULES_FN(rules_acc_init)(&a);
    for (size_t t = 0; t < m; t++) {
        size_t j = nb[reverse ? m - 1 - t : t];
        R dist2 = RULES_FN(verify_offset)(k, s, i, j, d);
        RULES_FN(verify_boid)(s, j, pj, vj);
        RULES_FN(rules_acc_add)(k, &a, d, dist2, vj);
    }
    RULES_FN(verify_boid)(s, i, pi, vi);
    RULES_FN(rules_accel)(k, &a, pi, vi, out);
    return 0;
}

/* Moves boid i of s with its decision (dec, cnt) into pos and vel (k: its constants, its
 * species' noise and speed); Vicsek noise at step 0 of its stream, as every backend is fresh
 * from an upload. */
static inline void RULES_FN(verify_update)(const boids_params *p, const RULES_FN(rules_k) * k,
                                           const SNAP *s, size_t i, const R dec[D], long cnt,
                                           R pos[D], R vel[D]) {
    RULES_FN(verify_boid)(s, i, pos, vel);
    if (p->model == BOIDS_MODEL_VICSEK) {
        R u1 = (R)boids_noise_u((uint64_t)p->noise_seed, 0, (uint32_t)i);
        R u2 = D == 3 ? (R)boids_noise_u2((uint64_t)p->noise_seed, 0, (uint32_t)i) : 0;
        RULES_FN(vicsek_update)(k, dec, cnt, u1, u2, k->noise, k->speed, pos, vel);
    } else {
        RULES_FN(rules_integrate)(k, dec, pos, vel);
    }
}

/* The brute-force step of the whole flock `in` into out: the snapshot rounded to R, every boid
 * deciding from it (verify_gather, verify_decide: sums in index order, or reversed with
 * reverse != 0), then moving (verify_update), each with its species' constants. */
static inline void RULES_FN(verify_step_flock)(const boids_params *p, const boids_interact *t,
                                               const boids_flock *in, int reverse,
                                               boids_flock *out) {
    RULES_FN(rules_k) k;
    RULES_FN(rules_table) tab;
    RULES_FN(rules_k_init)(&k, p);
    RULES_FN(rules_k_set_interact)(&k, &tab, t);
    RULES_FN(rules_k) ksp[BOIDS_MAX_SPECIES];
    if (p->species > 1) RULES_FN(rules_k_species)(ksp, &k, p);
    const RULES_FN(rules_k) *ks = p->species > 1 ? ksp : NULL;
    const size_t n = in->n;
    R *buf = malloc(3 * D * n * sizeof(R));
    long *cnt = malloc(n * sizeof(long));
    if (!buf || !cnt) abort();
    SNAP s = {.n = n};
    const double *src[6] = {in->x, in->y, in->z, in->vx, in->vy, in->vz};
    double *dst[6] = {out->x, out->y, out->z, out->vx, out->vy, out->vz};
    for (int a = 0; a < D; a++) s.p[a] = buf + (size_t)a * n, s.v[a] = buf + (size_t)(D + a) * n;
    R *dec = buf + 2 * D * n;
    for (size_t i = 0; i < n; i++)
        for (int a = 0; a < D; a++) s.p[a][i] = (R)src[a][i], s.v[a][i] = (R)src[3 + a][i];
#pragma omp parallel
    {
        size_t *nb = malloc((n + 1) * sizeof *nb);
        RULES_FN(rules_nearest) *sel = malloc((n + 1) * sizeof *sel);
        if (!nb || !sel) abort();
#pragma omp for schedule(dynamic, 64)
        for (size_t i = 0; i < n; i++) {
            const RULES_FN(rules_k) *ki = RULES_FN(verify_k_of)(&k, ks, i);
            size_t m = RULES_FN(verify_gather)(p, ki, &s, i, nb, sel);
            cnt[i] = RULES_FN(verify_decide)(p, ki, &s, i, nb, m, reverse, &dec[D * i]);
        }
        free(nb);
        free(sel);
    }
    for (size_t i = 0; i < n; i++) {
        R pos[D], vel[D];
        RULES_FN(verify_update)
        (p, RULES_FN(verify_k_of)(&k, ks, i), &s, i, &dec[D * i], cnt[i], pos, vel);
        for (int a = 0; a < D; a++) dst[a][i] = pos[a], dst[3 + a][i] = vel[a];
    }
    free(buf);
    free(cnt);
}

#undef SNAP
#undef D
#undef R
