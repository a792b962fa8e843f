/* SPDX-License-Identifier: MIT */
/* cpu-ref: the exact reference path. Double precision, every pair visited in index order,
 * all boids decide from the same snapshot and then all move: the loop structure and the
 * operation order are those of seed 000's paso(), so this path reproduces the seed
 * program bit for bit. O(N^2) on purpose: it is the source of truth, not the fast path.
 *
 * Fast where that changes no bit. The pair scan of one boid runs over blocks of the
 * others: the wrapped offsets and squared distances of a whole block first (four pairs per
 * AVX2 instruction, the very operations of rules_offset and dx*dx + dy*dy, so the very
 * values), with the indices that pass the distance test kept; only those get the field of
 * view test and the sums, in index order, through rules.h as before. Within a step each
 * boid reads the snapshot and writes only its own result, so the boids are shared among
 * OpenMP threads: a boid's sums run in the same order on any thread, and the state has the
 * same bits for every thread count. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "backend_impl.h"
#include "cpu_ref.h"
#include "cpu_ref_impl.h"

#define RULES_REAL     double
#define RULES_FN(name) name##_d
#include "rules.h"

enum {
    BLOCK = 256, /* pairs per scan block: its arrays (7 KiB) stay in the L1 cache */
    CHUNK = 16   /* boids per OpenMP work item: a boid's scan is short at small N */
};

typedef struct cpu_ref {
    boids_backend base;
    boids_flock state;
    double *ax, *ay;     /* Reynolds: accelerations decided from the snapshot */
    double *sx, *sy;     /* Vicsek: heading sums decided from the snapshot */
    double *ux, *uy;     /* Vicsek: each agent's heading term, once per step (vicsek_term) */
    long *count;         /* Vicsek: headings summed */
    ref_lists lists;     /* topological: each thread's list of one boid's neighbours */
    int threads;         /* <= 0: OpenMP's default */
    int have_avx2;       /* the processor runs scan_avx2 */
    int force_scalar;    /* test hook: scan_scalar even so */
    uint32_t t;          /* the Vicsek noise stream's step index: the uploaded step + steps since */
    uint32_t *out_count; /* neighbours(): where neighbour_boid writes, id order */
    uint64_t *out_hash;
} cpu_ref;

/* One block of boid i's scan: offsets and squared distances to the boids j0 .. j0 + len - 1
 * at positions 0 .. len - 1, and the positions that passed the pre-test, ascending. */
typedef struct block {
    double dx[BLOCK], dy[BLOCK], d2[BLOCK];
    unsigned hit[BLOCK];
} block;

static void destroy(boids_backend *b) {
    cpu_ref *c = (cpu_ref *)b;
    boids_flock_free(&c->state);
    free(c->ax);
    ref_lists_free(&c->lists);
    free(c);
}

/* Positions q0 .. len - 1 of a block with rules_offset and d2 = dx*dx + dy*dy; appends the
 * hits after the h already found and returns their new number. */
static size_t scan_scalar(const rules_k_d *k, double xi, double yi, const double *x,
                          const double *y, size_t q0, size_t len, keep_mode keep, double limit,
                          block *b, size_t h) {
    for (size_t q = q0; q < len; q++) {
        double dx, dy;
        rules_offset_d(k, xi, yi, x[q], y[q], &dx, &dy);
        double d2 = dx * dx + dy * dy;
        b->dx[q] = dx;
        b->dy[q] = dy;
        b->d2[q] = d2;
        if (ref_keeps(keep, d2, limit)) b->hit[h++] = (unsigned)q;
    }
    return h;
}

#if HAVE_AVX2_SCAN
/* scan_scalar for a whole block, four pairs at a time: x_j - x_i, the wrap, dx*dx + dy*dy
 * as separate IEEE operations (no fused multiply-add: intrinsics are not contracted), and
 * the ordered compares that C's < and <= are. The last len % 4 pairs go to scan_scalar. */
__attribute__((target("avx2"))) static size_t scan_avx2(const rules_k_d *k, double xi, double yi,
                                                        const double *x, const double *y,
                                                        size_t len, keep_mode keep, double limit,
                                                        block *b) {
    const __m256d vxi = _mm256_set1_pd(xi), vyi = _mm256_set1_pd(yi);
    const __m256d lim = _mm256_set1_pd(limit);
    size_t h = 0, q = 0;
    for (; q + 4 <= len; q += 4) {
        __m256d dx = _mm256_sub_pd(_mm256_loadu_pd(x + q), vxi);
        __m256d dy = _mm256_sub_pd(_mm256_loadu_pd(y + q), vyi);
        if (k->wrap) {
            dx = wrap4(dx, k->width, k->half_w);
            dy = wrap4(dy, k->height, k->half_h);
        }
        __m256d d2 = _mm256_add_pd(_mm256_mul_pd(dx, dx), _mm256_mul_pd(dy, dy));
        _mm256_storeu_pd(b->dx + q, dx);
        _mm256_storeu_pd(b->dy + q, dy);
        _mm256_storeu_pd(b->d2 + q, d2);
        unsigned mask = keep4(keep, d2, lim);
        for (; mask; mask &= mask - 1) b->hit[h++] = (unsigned)q + (unsigned)__builtin_ctz(mask);
    }
    /* Clean upper register halves before any SSE code runs (scan_scalar, the caller, libm):
     * GCC emitted no vzeroupper here, and dirty halves made the SSE code that followed
     * (in boids verify: its float checks and cos) about 20% slower. */
    _mm256_zeroupper();
    return scan_scalar(k, xi, yi, x, y, q, len, keep, limit, b, h);
}

#endif

/* Fills b for boid i against boids j0 .. j0 + len - 1; returns the number of hits. */
static size_t scan(const cpu_ref *c, const rules_k_d *k, size_t i, size_t j0, size_t len,
                   keep_mode keep, double limit, block *b) {
    const boids_flock *f = &c->state;
#if HAVE_AVX2_SCAN
    if (c->have_avx2 && !c->force_scalar)
        return scan_avx2(k, f->x[i], f->y[i], f->x + j0, f->y + j0, len, keep, limit, b);
#endif
    return scan_scalar(k, f->x[i], f->y[i], f->x + j0, f->y + j0, 0, len, keep, limit, b, 0);
}

static size_t block_len(size_t n, size_t j0) {
    return n - j0 < BLOCK ? n - j0 : BLOCK;
}

/* The metric neighbours of boid i among boids j0 .. j0 + len - 1: others within
 * vision_radius (strictly for Reynolds; distance <= R for Vicsek, the seed's "no mayor que
 * R") and, for Reynolds, within the field of view. Returns their number, with their block
 * positions ascending in b->hit. */
static size_t metric_block(const cpu_ref *c, const rules_k_d *k, int vicsek, size_t i, size_t j0,
                           size_t len, block *b) {
    const boids_flock *f = &c->state;
    size_t h = scan(c, k, i, j0, len, vicsek ? KEEP_LE : KEEP_LT, k->vision2, b);
    size_t m = 0;
    for (size_t q = 0; q < h; q++) {
        unsigned s = b->hit[q];
        if (j0 + s == i) continue;
        if (!vicsek && !rules_in_fov_d(k, b->dx[s], b->dy[s], b->d2[s], f->vx[i], f->vy[i]))
            continue;
        b->hit[m++] = s;
    }
    return m;
}

/* The topological neighbours of boid i into nb, ascending index order (the order every
 * sum runs in); returns their number: the k nearest by (distance, id) of the others, the
 * radius applying only with k_in_vision, the field of view for Reynolds. nb and nb_d2 hold
 * min(k, n) entries. */
static size_t topo_gather(const cpu_ref *c, const rules_k_d *k, const boids_params *p, size_t i,
                          size_t *nb, double *nb_d2, block *b) {
    const boids_flock *f = &c->state;
    const int vicsek = p->model == BOIDS_MODEL_VICSEK;
    const size_t kmax = (size_t)p->k;
    size_t m = 0;
    for (size_t j0 = 0; j0 < f->n; j0 += BLOCK) {
        /* Once kmax are kept, only a pair nearer than the farthest kept can enter, and the
         * farthest only comes nearer within the block: a pre-test that drops no candidate. */
        int full = m == kmax;
        keep_mode keep = full ? KEEP_LT : !p->k_in_vision ? KEEP_ALL : vicsek ? KEEP_LE : KEEP_LT;
        size_t h =
            scan(c, k, i, j0, block_len(f->n, j0), keep, full ? nb_d2[m - 1] : k->vision2, b);
        for (size_t q = 0; q < h; q++) {
            unsigned s = b->hit[q];
            double d2 = b->d2[s];
            if (j0 + s == i) continue;
            if (p->k_in_vision && !(vicsek ? d2 <= k->vision2 : d2 < k->vision2)) continue;
            if (!vicsek && !rules_in_fov_d(k, b->dx[s], b->dy[s], d2, f->vx[i], f->vy[i])) continue;
            m = topo_keep(nb, nb_d2, m, kmax, j0 + s, d2);
        }
    }
    topo_sort_ids(nb, m);
    return m;
}

/* Boid i's acceleration from the snapshot into ax[i], ay[i]. */
static void reynolds_boid(cpu_ref *c, const rules_k_d *k, const boids_params *p, size_t i,
                          size_t *nb, double *nb_d2, block *b) {
    const boids_flock *f = &c->state;
    rules_acc_d a;
    rules_acc_init_d(&a);
    if (p->neighbours == BOIDS_NEIGHBOURS_TOPOLOGICAL) {
        size_t m = topo_gather(c, k, p, i, nb, nb_d2, b);
        for (size_t q = 0; q < m; q++) {
            size_t j = nb[q];
            double dx, dy;
            rules_offset_d(k, f->x[i], f->y[i], f->x[j], f->y[j], &dx, &dy);
            rules_acc_add_d(k, &a, dx, dy, dx * dx + dy * dy, f->vx[j], f->vy[j]);
        }
    } else {
        for (size_t j0 = 0; j0 < f->n; j0 += BLOCK) {
            size_t m = metric_block(c, k, 0, i, j0, block_len(f->n, j0), b);
            for (size_t q = 0; q < m; q++) {
                unsigned s = b->hit[q];
                rules_acc_add_d(k, &a, b->dx[s], b->dy[s], b->d2[s], f->vx[j0 + s], f->vy[j0 + s]);
            }
        }
    }
    rules_accel_d(k, &a, f->x[i], f->y[i], f->vx[i], f->vy[i], &c->ax[i], &c->ay[i]);
}

/* Adds agent j's heading term. ux[j], uy[j] hold what vicsek_add adds for j, but +0 for a
 * resting agent (where it adds nothing) and in place of a -0 term: x + (-0) is x, x + (+0)
 * is x for every x but -0, and a sum that starts at +0 is never -0 (a rounded sum is -0
 * only when both terms are), so the sums are vicsek_add's, bit for bit. */
static void vicsek_term(const cpu_ref *c, size_t j, double *sx, double *sy) {
    *sx += c->ux[j];
    *sy += c->uy[j];
}

/* Agent i's heading sum and count from the snapshot: itself included, in index order with
 * the others. */
static void vicsek_boid(cpu_ref *c, const rules_k_d *k, const boids_params *p, size_t i, size_t *nb,
                        double *nb_d2, block *b) {
    double sx = 0, sy = 0;
    long count = 1;
    int self = 0; /* itself added */
    if (p->neighbours == BOIDS_NEIGHBOURS_TOPOLOGICAL) {
        size_t m = topo_gather(c, k, p, i, nb, nb_d2, b);
        for (size_t q = 0; q < m; q++) {
            if (!self && nb[q] > i) {
                vicsek_term(c, i, &sx, &sy);
                self = 1;
            }
            vicsek_term(c, nb[q], &sx, &sy);
        }
        count += (long)m;
    } else {
        for (size_t j0 = 0; j0 < c->state.n; j0 += BLOCK) {
            size_t m = metric_block(c, k, 1, i, j0, block_len(c->state.n, j0), b);
            for (size_t q = 0; q < m; q++) {
                if (!self && j0 + b->hit[q] > i) {
                    vicsek_term(c, i, &sx, &sy);
                    self = 1;
                }
                vicsek_term(c, j0 + b->hit[q], &sx, &sy);
            }
            count += (long)m;
        }
    }
    if (!self) vicsek_term(c, i, &sx, &sy);
    c->sx[i] = sx;
    c->sy[i] = sy;
    c->count[i] = count;
}
/* What one boid decides from the snapshot (reynolds_boid, vicsek_boid, neighbour_boid). */
typedef void (*boid_fn)(cpu_ref *c, const rules_k_d *k, const boids_params *p, size_t i, size_t *nb,
                        double *nb_d2, block *b);

/* fn for every boid, shared among the threads; each boid's work is its own, so the result
 * does not depend on the thread count. */
static void for_each_boid(cpu_ref *c, const rules_k_d *k, const boids_params *p, int threads,
                          boid_fn fn) {
    const size_t n = c->state.n;
#pragma omp parallel num_threads(threads) if (threads > 1)
    {
        block b;
        size_t *nb;
        double *nb_d2;
        ref_lists_thread(&c->lists, &nb, &nb_d2);
#pragma omp for schedule(dynamic, CHUNK)
        for (size_t i = 0; i < n; i++) fn(c, k, p, i, nb, nb_d2, &b);
    }
}

static void step_reynolds(cpu_ref *c, const rules_k_d *k, const boids_params *p, int threads) {
    boids_flock *f = &c->state;
    for_each_boid(c, k, p, threads, reynolds_boid);
    for (size_t i = 0; i < f->n; i++)
        rules_integrate_d(k, c->ax[i], c->ay[i], &f->x[i], &f->y[i], &f->vx[i], &f->vy[i]);
}

static void step_vicsek(cpu_ref *c, const rules_k_d *k, const boids_params *p, int threads) {
    boids_flock *f = &c->state;
    for (size_t j = 0; j < f->n; j++) {
        c->ux[j] = c->uy[j] = 0;
        vicsek_add_d(f->vx[j], f->vy[j], &c->ux[j], &c->uy[j]);
    }
    for_each_boid(c, k, p, threads, vicsek_boid);
    for (size_t i = 0; i < f->n; i++) {
        double u = boids_noise_u((uint64_t)p->noise_seed, c->t, (uint32_t)i);
        vicsek_update_d(k, c->sx[i], c->sy[i], c->count[i], u, p->noise, p->speed, &f->x[i],
                        &f->y[i], &f->vx[i], &f->vy[i]);
    }
}

static boids_status step(boids_backend *b, const boids_params *p, unsigned steps,
                         boids_error *err) {
    cpu_ref *c = (cpu_ref *)b;
    rules_k_d k;
    rules_k_init_d(&k, p);
    rules_k_set_interact_d(&k, &b->inter);
    int threads = ref_thread_count(c->threads);
    boids_status s = ref_lists_reserve(&c->lists, p, c->state.n, threads, err);
    if (s) return s;
    for (unsigned n = 0; n < steps; n++, c->t++) {
        if (p->model == BOIDS_MODEL_VICSEK)
            step_vicsek(c, &k, p, threads);
        else
            step_reynolds(c, &k, p, threads);
    }
    return BOIDS_OK;
}

static boids_status download(boids_backend *b, boids_flock *out, boids_error *err) {
    cpu_ref *c = (cpu_ref *)b;
    if (out->n != c->state.n)
        return boids_error_set(err, BOIDS_ERR_INPUT, "download: flock has %zu boids, backend %zu",
                               out->n, c->state.n);
    memcpy(out->x, c->state.x, out->n * sizeof(double));
    memcpy(out->y, c->state.y, out->n * sizeof(double));
    memcpy(out->vx, c->state.vx, out->n * sizeof(double));
    memcpy(out->vy, c->state.vy, out->n * sizeof(double));
    out->step = c->t;
    return BOIDS_OK;
}

static boids_status upload(boids_backend *b, const boids_flock *in, boids_error *err) {
    cpu_ref *c = (cpu_ref *)b;
    boids_flock copy;
    boids_status s = boids_flock_copy(&copy, in, err);
    if (s) return s;
    size_t n = in->n;
    /* One block: ax ay sx sy ux uy (doubles), then count (longs). */
    double *block = malloc(n * (6 * sizeof(double) + sizeof(long)));
    if (!block) {
        boids_flock_free(&copy);
        return boids_error_set(err, BOIDS_ERR_NOMEM, "out of memory for %zu boids", n);
    }
    free(c->ax);
    boids_flock_free(&c->state);
    c->state = copy;
    c->ax = block;
    c->ay = block + n;
    c->sx = block + 2 * n;
    c->sy = block + 3 * n;
    c->ux = block + 4 * n;
    c->uy = block + 5 * n;
    c->count = (long *)(block + 6 * n);
    c->base.n = n;
    c->t = in->step;
    return BOIDS_OK;
}

/* Boid i's neighbour count and set hash, as its step would see its neighbours, into
 * c->out_count[i] and c->out_hash[i]. */
static void neighbour_boid(cpu_ref *c, const rules_k_d *k, const boids_params *p, size_t i,
                           size_t *nb, double *nb_d2, block *b) {
    uint64_t h = 0;
    size_t m = 0;
    if (p->neighbours == BOIDS_NEIGHBOURS_TOPOLOGICAL) {
        m = topo_gather(c, k, p, i, nb, nb_d2, b);
        for (size_t q = 0; q < m; q++) h += boids_neighbour_set_hash((uint32_t)nb[q]);
    } else {
        for (size_t j0 = 0; j0 < c->state.n; j0 += BLOCK) {
            size_t mb = metric_block(c, k, p->model == BOIDS_MODEL_VICSEK, i, j0,
                                     block_len(c->state.n, j0), b);
            for (size_t q = 0; q < mb; q++)
                h += boids_neighbour_set_hash((uint32_t)(j0 + b->hit[q]));
            m += mb;
        }
    }
    c->out_count[i] = (uint32_t)m;
    c->out_hash[i] = h;
}

static boids_status neighbours(boids_backend *bk, const boids_params *p, uint32_t *count,
                               uint64_t *set_hash, boids_error *err) {
    cpu_ref *c = (cpu_ref *)bk;
    rules_k_d k;
    rules_k_init_d(&k, p);
    int threads = ref_thread_count(c->threads);
    boids_status s = ref_lists_reserve(&c->lists, p, c->state.n, threads, err);
    if (s) return s;
    c->out_count = count;
    c->out_hash = set_hash;
    for_each_boid(c, &k, p, threads, neighbour_boid);
    return BOIDS_OK;
}

static const boids_backend_ops ops = {"cpu-ref", destroy, step, download, upload, neighbours};

boids_backend *boids_cpu_ref_create(const boids_flock *initial, boids_error *err) {
    if (initial->z) return boids_cpu_ref3_create(initial, err);
    cpu_ref *c = calloc(1, sizeof *c);
    if (!c) {
        boids_error_set(err, BOIDS_ERR_NOMEM, "out of memory");
        return NULL;
    }
    c->base.ops = &ops;
    c->have_avx2 = cpu_has_avx2();
    if (upload(&c->base, initial, err)) {
        free(c);
        return NULL;
    }
    return &c->base;
}

int boids_cpu_ref_set_threads(boids_backend *b, int threads) {
    if (b && b->dim == 3) return boids_cpu_ref3_set_threads(b, threads);
    if (!b || b->ops != &ops) return -1;
    ((cpu_ref *)b)->threads = threads;
    return 0;
}

int boids_cpu_ref_force_scalar(boids_backend *b, int on) {
    if (b && b->dim == 3) return boids_cpu_ref3_force_scalar(b, on);
    if (!b || b->ops != &ops) return -1;
    ((cpu_ref *)b)->force_scalar = on != 0;
    return 0;
}
