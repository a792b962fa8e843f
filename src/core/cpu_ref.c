/* SPDX-License-Identifier: MIT */
#ifndef RULES_DIM
/* cpu-ref: the exact reference path, for the plane and the box. Double precision, every pair
 * visited in index order, all boids decide from the same snapshot and then all move: the
 * loop structure and the operation order are those of seed 000's paso(), so this path
 * reproduces the seed program bit for bit. O(N^2) on purpose: it is the source of truth,
 * not the fast path.
 *
 * Fast where that changes no bit. The pair scan of one boid runs over blocks of the
 * others: the wrapped offsets and squared distances of a whole block first (four pairs per
 * AVX2 instruction, the very operations of rules_offset and rules_dot, so the very values),
 * with the indices that pass the distance test kept; only those get the field of view test
 * and the sums, in index order, through rules.h as before. Within a step each boid reads the
 * snapshot and writes only its own result, so the boids are shared among OpenMP threads: a
 * boid's sums run in the same order on any thread, and the state has the same bits for
 * every thread count.
 *
 * The implementation is written once over the dimension (the part of this file below
 * `#else`, where RULES_DIM is 2 or 3) and compiled twice: this file is rules_instances.h's
 * instance file, included after rules.h's instance of each dimension in double (names
 * _d2, _d3). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "backend_impl.h"
#include "cpu_ref.h"
#include "cpu_ref_impl.h"

enum {
    BLOCK = 256, /* pairs per scan block: its arrays (7 or 9 KiB) stay in the L1 cache */
    CHUNK = 16   /* boids per OpenMP work item: a boid's scan is short at small N */
};

#define RULES_INSTANCE_DOUBLE
#define RULES_INSTANCE_FILE "cpu_ref.c"
#include "rules_instances.h"
#undef RULES_INSTANCE_FILE
#undef RULES_INSTANCE_DOUBLE

boids_backend *cpu_ref_backend_create(const boids_flock *initial, boids_error *err) {
    return initial->z ? create_d3(initial, err) : create_d2(initial, err);
}

int boids_cpu_ref_set_threads(boids_backend *b, int threads) {
    if (!b || (b->ops != &ops_d2 && b->ops != &ops_d3)) return -1;
    if (b->ops == &ops_d2)
        ((cpu_ref_d2 *)b)->threads = threads;
    else
        ((cpu_ref_d3 *)b)->threads = threads;
    return 0;
}

int boids_cpu_ref_force_scalar(boids_backend *b, int on) {
    if (!b || (b->ops != &ops_d2 && b->ops != &ops_d3)) return -1;
    if (b->ops == &ops_d2)
        ((cpu_ref_d2 *)b)->force_scalar = on != 0;
    else
        ((cpu_ref_d3 *)b)->force_scalar = on != 0;
    return 0;
}

#else /* the implementation over the dimension RULES_DIM, in double */

#define D RULES_DIM

#define K      RULES_FN(rules_k)
#define BLOCKT RULES_FN(block)
#define REF    RULES_FN(cpu_ref)

typedef struct RULES_FN(cpu_ref) {
    boids_backend base;
    boids_flock state;   /* id order */
    double *acc;         /* D per boid: Reynolds accelerations or Vicsek heading sums */
    double *u;           /* Vicsek: D per boid, each agent's heading term (vicsek_term) */
    long *count;         /* Vicsek: headings summed */
    ref_lists lists;     /* topological: each thread's list of one boid's neighbours */
    int threads;         /* <= 0: OpenMP's default */
    int have_avx2;       /* the processor runs scan_avx2 */
    int force_scalar;    /* test hook: scan_scalar even so */
    uint32_t t;          /* the Vicsek noise stream's step index: the uploaded step + steps since */
    uint32_t *out_count; /* neighbours(): where neighbour_boid writes, id order */
    uint64_t *out_hash;
    const K *ks; /* species > 1: each species' constants (rules_k_species), during a step */
} REF;

/* One block of boid i's scan: offsets (per axis) and squared distances to the boids j0 ..
 * j0 + len - 1 at positions 0 .. len - 1, and the positions that passed the pre-test,
 * ascending. */
typedef struct RULES_FN(block) {
    double d[D][BLOCK], dist2[BLOCK];
    unsigned hit[BLOCK];
} BLOCKT;

/* The flock's arrays per axis: positions and velocities. */
static void RULES_FN(axes)(const boids_flock *f, double *pos[D], double *vel[D]) {
    double *const p[3] = {f->x, f->y, f->z}, *const v[3] = {f->vx, f->vy, f->vz};
    for (int c = 0; c < D; c++) pos[c] = p[c], vel[c] = v[c];
}

/* Boid i's position and velocity. */
static void RULES_FN(boid)(const boids_flock *f, size_t i, double p[D], double v[D]) {
    double *pos[D], *vel[D];
    RULES_FN(axes)(f, pos, vel);
    for (int c = 0; c < D; c++) p[c] = pos[c][i], v[c] = vel[c][i];
}

static void RULES_FN(destroy)(boids_backend *b) {
    REF *c = (REF *)b;
    boids_flock_free(&c->state);
    free(c->acc);
    ref_lists_free(&c->lists);
    free(c);
}

/* Positions q0 .. len - 1 of a block with rules_offset from pi and dist2 = rules_dot(d, d);
 * appends the hits after the h already found and returns their new number. */
static size_t RULES_FN(scan_scalar)(const K *k, const double pi[D], double *const pj[D], size_t q0,
                                    size_t len, keep_mode keep, double limit, BLOCKT *b, size_t h) {
    for (size_t q = q0; q < len; q++) {
        double a[D], d[D];
        for (int c = 0; c < D; c++) a[c] = pj[c][q];
        RULES_FN(rules_offset)(k, pi, a, d);
        double dist2 = RULES_FN(rules_dot)(d, d);
        for (int c = 0; c < D; c++) b->d[c][q] = d[c];
        b->dist2[q] = dist2;
        if (ref_keeps(keep, dist2, limit)) b->hit[h++] = (unsigned)q;
    }
    return h;
}

#if HAVE_AVX2_SCAN
/* scan_scalar for a whole block, four pairs at a time: x_j - x_i per axis, the wrap,
 * (dx*dx + dy*dy) + dz*dz as separate IEEE operations (no fused multiply-add: intrinsics
 * are not contracted), and the ordered compares that C's < and <= are. The last len % 4
 * pairs go to scan_scalar. */
__attribute__((target("avx2"))) static size_t RULES_FN(scan_avx2)(const K *k, const double pi[D],
                                                                  double *const pj[D], size_t len,
                                                                  keep_mode keep, double limit,
                                                                  BLOCKT *b) {
    __m256d vi[D];
    for (int c = 0; c < D; c++) vi[c] = _mm256_set1_pd(pi[c]);
    const __m256d lim = _mm256_set1_pd(limit);
    size_t h = 0, q = 0;
    for (; q + 4 <= len; q += 4) {
        __m256d d[D];
        for (int c = 0; c < D; c++) d[c] = _mm256_sub_pd(_mm256_loadu_pd(pj[c] + q), vi[c]);
        if (k->wrap)
            for (int c = 0; c < D; c++) d[c] = wrap4(d[c], k->side[c], k->half[c]);
        __m256d dist2 = _mm256_mul_pd(d[0], d[0]);
        for (int c = 1; c < D; c++) dist2 = _mm256_add_pd(dist2, _mm256_mul_pd(d[c], d[c]));
        for (int c = 0; c < D; c++) _mm256_storeu_pd(b->d[c] + q, d[c]);
        _mm256_storeu_pd(b->dist2 + q, dist2);
        unsigned mask = keep4(keep, dist2, lim);
        for (; mask; mask &= mask - 1) b->hit[h++] = (unsigned)q + (unsigned)__builtin_ctz(mask);
    }
    /* Clean upper register halves before any SSE code runs (scan_scalar, the caller, libm):
     * GCC emitted no vzeroupper here, and dirty halves made the SSE code that followed
     * (in boids verify: its float checks and cos) about 20% slower. */
    _mm256_zeroupper();
    return RULES_FN(scan_scalar)(k, pi, pj, q, len, keep, limit, b, h);
}
#endif

/* Fills b for boid i against boids j0 .. j0 + len - 1; returns the number of hits. */
static size_t RULES_FN(scan)(const REF *c, const K *k, size_t i, size_t j0, size_t len,
                             keep_mode keep, double limit, BLOCKT *b) {
    double *pos[D], *vel[D], *pj[D], pi[D];
    RULES_FN(axes)(&c->state, pos, vel);
    for (int a = 0; a < D; a++) pi[a] = pos[a][i], pj[a] = pos[a] + j0;
#if HAVE_AVX2_SCAN
    if (c->have_avx2 && !c->force_scalar)
        return RULES_FN(scan_avx2)(k, pi, pj, len, keep, limit, b);
#endif
    return RULES_FN(scan_scalar)(k, pi, pj, 0, len, keep, limit, b, 0);
}

static size_t RULES_FN(block_len)(size_t n, size_t j0) {
    return n - j0 < BLOCK ? n - j0 : BLOCK;
}

/* Does boid i with velocity vi see block position s (rules_in_fov)? */
static int RULES_FN(block_fov)(const K *k, const BLOCKT *b, unsigned s, const double vi[D]) {
    double d[D];
    for (int c = 0; c < D; c++) d[c] = b->d[c][s];
    return RULES_FN(rules_in_fov)(k, d, b->dist2[s], vi);
}

/* The metric neighbours of boid i among boids j0 .. j0 + len - 1: others within
 * vision_radius (strictly for Reynolds; distance <= R for Vicsek, the seed's "no mayor que
 * R") and, for Reynolds, within the field of view. Returns their number, with their block
 * positions ascending in b->hit. */
static size_t RULES_FN(metric_block)(const REF *c, const K *k, int vicsek, size_t i, size_t j0,
                                     size_t len, BLOCKT *b) {
    double pi[D], vi[D];
    RULES_FN(boid)(&c->state, i, pi, vi);
    size_t h = RULES_FN(scan)(c, k, i, j0, len, vicsek ? KEEP_LE : KEEP_LT, k->vision2, b);
    size_t m = 0;
    for (size_t q = 0; q < h; q++) {
        unsigned s = b->hit[q];
        if (j0 + s == i) continue;
        if (!vicsek && !RULES_FN(block_fov)(k, b, s, vi)) continue;
        b->hit[m++] = s;
    }
    return m;
}

/* The topological neighbours of boid i into nb, ascending index order (the order every
 * sum runs in); returns their number: the k nearest by (distance, id) of the others, the
 * radius applying only with k_in_vision, the field of view for Reynolds, the selection the
 * rules' (rules_nearest_keep). nb and sel hold min(k, n) entries. */
static size_t RULES_FN(topo_gather)(const REF *c, const K *k, const boids_params *p, size_t i,
                                    size_t *nb, RULES_FN(rules_nearest) * sel, BLOCKT *b) {
    const boids_flock *f = &c->state;
    const int vicsek = p->model == BOIDS_MODEL_VICSEK;
    const size_t kmax = (size_t)p->k;
    double pi[D], vi[D];
    RULES_FN(boid)(f, i, pi, vi);
    size_t m = 0;
    for (size_t j0 = 0; j0 < f->n; j0 += BLOCK) {
        /* Once kmax are kept, only a pair nearer than the farthest kept can enter, and the
         * farthest only comes nearer within the block: a pre-test that drops no candidate. */
        int full = m == kmax;
        keep_mode keep = full ? KEEP_LT : !p->k_in_vision ? KEEP_ALL : vicsek ? KEEP_LE : KEEP_LT;
        size_t h = RULES_FN(scan)(c, k, i, j0, RULES_FN(block_len)(f->n, j0), keep,
                                  full ? sel[m - 1].dist2 : k->vision2, b);
        for (size_t q = 0; q < h; q++) {
            unsigned s = b->hit[q];
            double dist2 = b->dist2[s];
            if (j0 + s == i) continue;
            if (p->k_in_vision && !(vicsek ? dist2 <= k->vision2 : dist2 < k->vision2)) continue;
            if (!vicsek && !RULES_FN(block_fov)(k, b, s, vi)) continue;
            m = RULES_FN(rules_nearest_keep)(sel, m, kmax, dist2, j0 + s, j0 + s);
        }
    }
    for (size_t q = 0; q < m; q++) nb[q] = sel[q].id;
    rules_ids_ascending(nb, m);
    return m;
}

/* Boid i's acceleration with species: its flocking sums over its neighbours in index order,
 * each weighted by its coupling (metric: the others within its species' vision and field of
 * view, rules_sp_add; topological: the k nearest of any species, topo_gather by its species'
 * radius, rules_sp_see), and its rules over the others within their radii, in index order,
 * whatever the neighbour rule (rules_sp_add). */
static void RULES_FN(reynolds_boid_sp)(REF *c, const boids_params *p, size_t i, size_t *nb,
                                       RULES_FN(rules_nearest) * sel, BLOCKT *b) {
    const boids_flock *f = &c->state;
    const K *k = &c->ks[RULES_FN(rules_species_of)(c->ks, i)];
    const int topo = p->neighbours == BOIDS_NEIGHBOURS_TOPOLOGICAL;
    double pi[D], vi[D], pj[D], vj[D], d[D];
    RULES_FN(boid)(f, i, pi, vi);
    RULES_FN(rules_acc) a;
    RULES_FN(rules_sp_acc) sa;
    RULES_FN(rules_acc_init)(&a);
    RULES_FN(rules_sp_acc_init)(&sa);
    if (topo) {
        size_t m = RULES_FN(topo_gather)(c, k, p, i, nb, sel, b);
        for (size_t q = 0; q < m; q++) {
            RULES_FN(boid)(f, nb[q], pj, vj);
            RULES_FN(rules_offset)(k, pi, pj, d);
            RULES_FN(rules_sp_see)
            (k, &a, d, RULES_FN(rules_dot)(d, d), vj, RULES_FN(rules_species_of)(k, nb[q]));
        }
    }
    const double reach2 = topo ? RULES_FN(rules_sp_rule_reach2)(k) : k->reach2;
    for (size_t j0 = 0; reach2 > 0 && j0 < f->n; j0 += BLOCK) {
        size_t h = RULES_FN(scan)(c, k, i, j0, RULES_FN(block_len)(f->n, j0), KEEP_LT, reach2, b);
        for (size_t q = 0; q < h; q++) {
            unsigned s = b->hit[q];
            if (j0 + s == i) continue;
            const double dist2 = b->dist2[s];
            int sees = !topo && dist2 < k->vision2 && RULES_FN(block_fov)(k, b, s, vi);
            RULES_FN(boid)(f, j0 + s, pj, vj);
            for (int x = 0; x < D; x++) d[x] = b->d[x][s];
            RULES_FN(rules_sp_add)
            (k, &a, &sa, d, dist2, vj, RULES_FN(rules_species_of)(k, j0 + s), j0 + s, sees);
        }
    }
    RULES_FN(rules_sp_accel)(k, &a, &sa, pi, vi, &c->acc[D * i]);
}

/* Boid i's acceleration from the snapshot into acc[D i ..]. */
static void RULES_FN(reynolds_boid)(REF *c, const K *k, const boids_params *p, size_t i, size_t *nb,
                                    RULES_FN(rules_nearest) * sel, BLOCKT *b) {
    if (c->ks) {
        RULES_FN(reynolds_boid_sp)(c, p, i, nb, sel, b);
        return;
    }
    const boids_flock *f = &c->state;
    double pi[D], vi[D], pj[D], vj[D], d[D];
    RULES_FN(boid)(f, i, pi, vi);
    RULES_FN(rules_acc) a;
    RULES_FN(rules_acc_init)(&a);
    if (p->neighbours == BOIDS_NEIGHBOURS_TOPOLOGICAL) {
        size_t m = RULES_FN(topo_gather)(c, k, p, i, nb, sel, b);
        for (size_t q = 0; q < m; q++) {
            RULES_FN(boid)(f, nb[q], pj, vj);
            RULES_FN(rules_offset)(k, pi, pj, d);
            RULES_FN(rules_acc_add)(k, &a, d, RULES_FN(rules_dot)(d, d), vj);
        }
    } else {
        for (size_t j0 = 0; j0 < f->n; j0 += BLOCK) {
            size_t m = RULES_FN(metric_block)(c, k, 0, i, j0, RULES_FN(block_len)(f->n, j0), b);
            for (size_t q = 0; q < m; q++) {
                unsigned s = b->hit[q];
                RULES_FN(boid)(f, j0 + s, pj, vj);
                for (int x = 0; x < D; x++) d[x] = b->d[x][s];
                RULES_FN(rules_acc_add)(k, &a, d, b->dist2[s], vj);
            }
        }
    }
    RULES_FN(rules_accel)(k, &a, pi, vi, &c->acc[D * i]);
}

/* Adds agent j's heading term to agent i's sum. u[D j ..] holds what vicsek_add adds for j, but +0
 * for a resting agent (where it adds nothing) and in place of a -0 term: x + (-0) is x, x + (+0) is
 * x for every x but -0, and a sum that starts at +0 is never -0 (a rounded sum is -0 only when both
 * terms are), so the sums are vicsek_add's, bit for bit. */
static void RULES_FN(ref_term)(const REF *c, const K *k, size_t i, size_t j, double s[D]) {
    RULES_FN(vicsek_term)(k, &c->u[D * i], &c->u[D * j], s); /* nematic: signed by i's own */
}

/* Adds agent j's heading, weighted by the coupling (rules_sp_vterm), to agent i's sum s, its
 * own term first when j is the first above i (*self); returns 1 if it counts. */
static long RULES_FN(vicsek_sp_term)(const REF *c, const K *k, size_t i, size_t j, double s[D],
                                     int *self) {
    if (!*self && j > i) {
        RULES_FN(ref_term)(c, k, i, i, s);
        *self = 1;
    }
    return RULES_FN(rules_sp_vterm)(k, &c->u[D * i], &c->u[D * j], RULES_FN(rules_species_of)(k, j),
                                    s);
}

/* Agent i's heading sum and count with species: its neighbours (metric: within its species'
 * radius; topological: the k nearest of any species, by its species' radius with
 * k_in_vision), each other's heading weighted by the coupling, its own by 1, in index
 * order. */
static void RULES_FN(vicsek_boid_sp)(REF *c, const boids_params *p, size_t i, size_t *nb,
                                     RULES_FN(rules_nearest) * sel, BLOCKT *b) {
    double *s = &c->acc[D * i];
    const K *k = &c->ks[RULES_FN(rules_species_of)(c->ks, i)];
    for (int a = 0; a < D; a++) s[a] = 0;
    long count = 1;
    int self = 0;
    if (p->neighbours == BOIDS_NEIGHBOURS_TOPOLOGICAL) {
        size_t m = RULES_FN(topo_gather)(c, k, p, i, nb, sel, b);
        for (size_t q = 0; q < m; q++) count += RULES_FN(vicsek_sp_term)(c, k, i, nb[q], s, &self);
    } else {
        for (size_t j0 = 0; j0 < c->state.n; j0 += BLOCK) {
            size_t m =
                RULES_FN(metric_block)(c, k, 1, i, j0, RULES_FN(block_len)(c->state.n, j0), b);
            for (size_t q = 0; q < m; q++)
                count += RULES_FN(vicsek_sp_term)(c, k, i, j0 + b->hit[q], s, &self);
        }
    }
    if (!self) RULES_FN(ref_term)(c, k, i, i, s);
    c->count[i] = count;
}

/* Agent i's heading sum and count from the snapshot: itself included, in index order with
 * the others. */
static void RULES_FN(vicsek_boid)(REF *c, const K *k, const boids_params *p, size_t i, size_t *nb,
                                  RULES_FN(rules_nearest) * sel, BLOCKT *b) {
    if (c->ks) {
        RULES_FN(vicsek_boid_sp)(c, p, i, nb, sel, b);
        return;
    }
    double *s = &c->acc[D * i];
    for (int a = 0; a < D; a++) s[a] = 0;
    long count = 1;
    int self = 0; /* itself added */
    if (p->neighbours == BOIDS_NEIGHBOURS_TOPOLOGICAL) {
        size_t m = RULES_FN(topo_gather)(c, k, p, i, nb, sel, b);
        for (size_t q = 0; q < m; q++) {
            if (!self && nb[q] > i) {
                RULES_FN(ref_term)(c, k, i, i, s);
                self = 1;
            }
            RULES_FN(ref_term)(c, k, i, nb[q], s);
        }
        count += (long)m;
    } else {
        for (size_t j0 = 0; j0 < c->state.n; j0 += BLOCK) {
            size_t m =
                RULES_FN(metric_block)(c, k, 1, i, j0, RULES_FN(block_len)(c->state.n, j0), b);
            for (size_t q = 0; q < m; q++) {
                if (!self && j0 + b->hit[q] > i) {
                    RULES_FN(ref_term)(c, k, i, i, s);
                    self = 1;
                }
                RULES_FN(ref_term)(c, k, i, j0 + b->hit[q], s);
            }
            count += (long)m;
        }
    }
    if (!self) RULES_FN(ref_term)(c, k, i, i, s);
    c->count[i] = count;
}

/* Boid i's neighbour count and set hash, as its step would see its neighbours, into
 * c->out_count[i] and c->out_hash[i]. */
static void RULES_FN(neighbour_boid)(REF *c, const K *k, const boids_params *p, size_t i,
                                     size_t *nb, RULES_FN(rules_nearest) * sel, BLOCKT *b) {
    uint64_t h = 0;
    size_t m = 0;
    if (c->ks) k = &c->ks[RULES_FN(rules_species_of)(c->ks, i)]; /* its species' radius */
    if (p->neighbours == BOIDS_NEIGHBOURS_TOPOLOGICAL) {
        m = RULES_FN(topo_gather)(c, k, p, i, nb, sel, b);
        for (size_t q = 0; q < m; q++) h += boids_neighbour_set_hash((uint32_t)nb[q]);
    } else {
        for (size_t j0 = 0; j0 < c->state.n; j0 += BLOCK) {
            size_t mb = RULES_FN(metric_block)(c, k, p->model == BOIDS_MODEL_VICSEK, i, j0,
                                               RULES_FN(block_len)(c->state.n, j0), b);
            for (size_t q = 0; q < mb; q++)
                h += boids_neighbour_set_hash((uint32_t)(j0 + b->hit[q]));
            m += mb;
        }
    }
    c->out_count[i] = (uint32_t)m;
    c->out_hash[i] = h;
}

/* fn for every boid, shared among the threads; each boid's work is its own, so the result
 * does not depend on the thread count. */
static void RULES_FN(for_each_boid)(REF *c, const K *k, const boids_params *p, int threads,
                                    void (*fn)(REF *c, const K *k, const boids_params *p, size_t i,
                                               size_t *nb, RULES_FN(rules_nearest) * sel,
                                               BLOCKT *b)) {
    const size_t n = c->state.n;
#pragma omp parallel num_threads(threads) if (threads > 1)
    {
        BLOCKT b;
        size_t *nb;
        RULES_FN(rules_nearest) * sel;
        ref_lists_thread(&c->lists, &nb, &sel);
#pragma omp for schedule(dynamic, CHUNK)
        for (size_t i = 0; i < n; i++) fn(c, k, p, i, nb, sel, &b);
    }
}

/* Writes boid i's position and velocity back into the flock. */
static void RULES_FN(set_boid)(boids_flock *f, size_t i, const double p[D], const double v[D]) {
    double *pos[D], *vel[D];
    RULES_FN(axes)(f, pos, vel);
    for (int c = 0; c < D; c++) pos[c][i] = p[c], vel[c][i] = v[c];
}

static void RULES_FN(step_reynolds)(REF *c, const K *k, const boids_params *p, int threads) {
    boids_flock *f = &c->state;
    RULES_FN(for_each_boid)(c, k, p, threads, RULES_FN(reynolds_boid));
    for (size_t i = 0; i < f->n; i++) {
        double pos[D], vel[D];
        RULES_FN(boid)(f, i, pos, vel);
        const K *ki = c->ks ? &c->ks[RULES_FN(rules_species_of)(c->ks, i)] : k;
        RULES_FN(rules_integrate)(ki, &c->acc[D * i], pos, vel);
        RULES_FN(set_boid)(f, i, pos, vel);
    }
}

static void RULES_FN(step_vicsek)(REF *c, const K *k, const boids_params *p, int threads) {
    boids_flock *f = &c->state;
    double pos[D], vel[D];
    for (size_t j = 0; j < f->n; j++) {
        double *u = &c->u[D * j];
        for (int a = 0; a < D; a++) u[a] = 0;
        RULES_FN(boid)(f, j, pos, vel);
        RULES_FN(vicsek_add)(vel, u);
    }
    RULES_FN(for_each_boid)(c, k, p, threads, RULES_FN(vicsek_boid));
    for (size_t i = 0; i < f->n; i++) {
        double u1 = boids_noise_u((uint64_t)p->noise_seed, c->t, (uint32_t)i);
        double u2 = D == 3 ? boids_noise_u2((uint64_t)p->noise_seed, c->t, (uint32_t)i) : 0;
        RULES_FN(boid)(f, i, pos, vel);
        if (c->ks) {
            const K *ki = &c->ks[RULES_FN(rules_species_of)(c->ks, i)];
            RULES_FN(vicsek_update)
            (ki, &c->acc[D * i], c->count[i], u1, u2, ki->noise, ki->speed, pos, vel);
        } else {
            RULES_FN(vicsek_update)
            (k, &c->acc[D * i], c->count[i], u1, u2, p->noise, p->speed, pos, vel);
        }
        RULES_FN(set_boid)(f, i, pos, vel);
    }
}

static boids_status RULES_FN(step)(boids_backend *b, const boids_params *p, unsigned steps,
                                   boids_error *err) {
    REF *c = (REF *)b;
    K k;
    RULES_FN(rules_table) tab;
    RULES_FN(rules_k_init)(&k, p);
    RULES_FN(rules_k_set_interact)(&k, &tab, &b->inter);
    K ks[BOIDS_MAX_SPECIES];
    if (p->species > 1) RULES_FN(rules_k_species)(ks, &k, p);
    int threads = ref_thread_count(c->threads);
    boids_status s = ref_lists_reserve(&c->lists, p, c->state.n, threads, err);
    if (s) return s;
    c->ks = p->species > 1 ? ks : NULL;
    for (unsigned n = 0; n < steps; n++, c->t++) {
        if (p->model == BOIDS_MODEL_VICSEK)
            RULES_FN(step_vicsek)(c, &k, p, threads);
        else
            RULES_FN(step_reynolds)(c, &k, p, threads);
    }
    c->ks = NULL;
    return BOIDS_OK;
}

static boids_status RULES_FN(download)(boids_backend *b, boids_flock *out, boids_error *err) {
    REF *c = (REF *)b;
    if (out->n != c->state.n)
        return boids_error_set(err, BOIDS_ERR_INPUT, "download: flock has %zu boids, backend %zu",
                               out->n, c->state.n);
    double *from[2][D], *to[2][D];
    RULES_FN(axes)(&c->state, from[0], from[1]);
    RULES_FN(axes)(out, to[0], to[1]);
    for (int w = 0; w < 2; w++)
        for (int a = 0; a < D; a++) memcpy(to[w][a], from[w][a], out->n * sizeof(double));
    out->step = c->t;
    return BOIDS_OK;
}

static boids_status RULES_FN(upload)(boids_backend *b, const boids_flock *in, boids_error *err) {
    REF *c = (REF *)b;
    boids_flock copy;
    boids_status s = boids_flock_copy(&copy, in, err);
    if (s) return s;
    size_t n = in->n;
    /* One block: acc and u (D doubles each per boid), then count (longs). */
    double *block = malloc(n * (2 * D * sizeof(double) + sizeof(long)));
    if (!block) {
        boids_flock_free(&copy);
        return boids_error_set(err, BOIDS_ERR_NOMEM, "out of memory for %zu boids", n);
    }
    free(c->acc);
    boids_flock_free(&c->state);
    c->state = copy;
    c->acc = block;
    c->u = block + D * n;
    c->count = (long *)(block + 2 * D * n);
    c->base.n = n;
    c->t = in->step;
    return BOIDS_OK;
}

static boids_status RULES_FN(neighbours)(boids_backend *bk, const boids_params *p, uint32_t *count,
                                         uint64_t *set_hash, boids_error *err) {
    REF *c = (REF *)bk;
    K k;
    RULES_FN(rules_k_init)(&k, p);
    int threads = ref_thread_count(c->threads);
    boids_status s = ref_lists_reserve(&c->lists, p, c->state.n, threads, err);
    if (s) return s;
    K ks[BOIDS_MAX_SPECIES];
    if (p->species > 1) RULES_FN(rules_k_species)(ks, &k, p);
    c->ks = p->species > 1 ? ks : NULL;
    c->out_count = count;
    c->out_hash = set_hash;
    RULES_FN(for_each_boid)(c, &k, p, threads, RULES_FN(neighbour_boid));
    c->ks = NULL;
    return BOIDS_OK;
}

/* No tiles (tile.h): the reference steps whole flocks only. */
static const boids_backend_ops RULES_FN(ops) = {.name = "cpu-ref",
                                                .destroy = RULES_FN(destroy),
                                                .step = RULES_FN(step),
                                                .download = RULES_FN(download),
                                                .upload = RULES_FN(upload),
                                                .neighbours = RULES_FN(neighbours)};

static boids_backend *RULES_FN(create)(const boids_flock *initial, boids_error *err) {
    REF *c = calloc(1, sizeof *c);
    if (!c) {
        boids_error_set(err, BOIDS_ERR_NOMEM, "out of memory");
        return NULL;
    }
    c->base.ops = &RULES_FN(ops);
    c->base.dim = D;
    c->have_avx2 = cpu_has_avx2();
    if (RULES_FN(upload)(&c->base, initial, err)) {
        free(c);
        return NULL;
    }
    return &c->base;
}

#undef REF
#undef BLOCKT
#undef K
#undef D

#endif
