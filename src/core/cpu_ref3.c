/* SPDX-License-Identifier: MIT */
/* cpu-ref in three dimensions: the exact reference for 3-D flocks (boids_cpu_ref_create hands
 * a flock with z arrays here). Double precision, every pair visited in index order, all
 * boids decide from the same snapshot and then all move: the discipline of cpu_ref.c, with
 * the rules of rules3.h (the interaction table's points and spheres included). O(N^2) on
 * purpose.
 *
 * Each boid reads the snapshot and writes only its own result, so the boids are shared among
 * OpenMP threads and the state has the same bits for every thread count. As in the plane,
 * the pair scan of one boid runs over blocks of the others: the wrapped offsets and squared
 * distances of a whole block first (four pairs per AVX2 instruction where the processor has
 * it, the very operations of rules3_offset and rules3_d2, so the very values), keeping the
 * indices that pass the distance test; only those get the field of view test and the sums,
 * in index order. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "backend_impl.h"
#include "cpu_ref.h"
#include "cpu_ref_impl.h"

#define RULES_REAL     double
#define RULES_FN(name) name##_d
#include "rules.h"
#include "rules3.h"

enum {
    BLOCK = 256, /* pairs per distance pass: its arrays (8 KiB) stay in the L1 cache */
    CHUNK = 16   /* boids per OpenMP work item */
};

typedef struct cpu_ref3 {
    boids_backend base;
    boids_flock state;   /* 3-D, id order */
    double *acc;         /* 3 per boid: Reynolds accelerations or Vicsek heading sums */
    double *u;           /* Vicsek: 3 per boid, each agent's unit heading (vicsek3_add's terms) */
    long *count;         /* Vicsek: headings summed */
    ref_lists lists;     /* topological: each thread's list of one boid's neighbours */
    int threads;         /* <= 0: OpenMP's default */
    int have_avx2;       /* the processor runs scan_avx2 */
    int force_scalar;    /* test hook: scan_scalar even so */
    uint32_t t;          /* the Vicsek noise stream's step index */
    uint32_t *out_count; /* neighbours(): where neighbour_boid writes, id order */
    uint64_t *out_hash;
} cpu_ref3;

/* One block of boid i's scan: offsets and squared distances to boids j0 .. j0 + len - 1 at
 * positions 0 .. len - 1, and the positions that passed the pre-test, ascending. */
typedef struct block {
    double dx[BLOCK], dy[BLOCK], dz[BLOCK], d2[BLOCK];
    unsigned hit[BLOCK];
} block;

static void destroy(boids_backend *b) {
    cpu_ref3 *c = (cpu_ref3 *)b;
    boids_flock_free(&c->state);
    free(c->acc);
    ref_lists_free(&c->lists);
    free(c);
}

/* Positions q0 .. len - 1 of a block: rules3_offset and rules3_d2 from (xi, yi, zi); appends
 * the positions that pass the pre-test after the h found and returns their new number. */
static size_t scan_scalar(const rules3_k_d *k, const double pi[3], const double *x, const double *y,
                          const double *z, size_t q0, size_t len, keep_mode keep, double limit,
                          block *b, size_t h) {
    for (size_t q = q0; q < len; q++) {
        double dx, dy, dz;
        rules3_offset_d(k, pi[0], pi[1], pi[2], x[q], y[q], z[q], &dx, &dy, &dz);
        const double d2 = rules3_d2_d(dx, dy, dz);
        b->dx[q] = dx, b->dy[q] = dy, b->dz[q] = dz, b->d2[q] = d2;
        if (ref_keeps(keep, d2, limit)) b->hit[h++] = (unsigned)q;
    }
    return h;
}

#if HAVE_AVX2_SCAN
/* scan_scalar four pairs at a time: the differences, the wraps, (dx dx + dy dy) + dz dz as
 * separate IEEE operations (intrinsics are not contracted) and the ordered compares that
 * C's < and <= are. The last len % 4 pairs go to scan_scalar. */
__attribute__((target("avx2"))) static size_t scan_avx2(const rules3_k_d *k, const double pi[3],
                                                        const double *x, const double *y,
                                                        const double *z, size_t len, keep_mode keep,
                                                        double limit, block *b) {
    const __m256d xi = _mm256_set1_pd(pi[0]), yi = _mm256_set1_pd(pi[1]);
    const __m256d zi = _mm256_set1_pd(pi[2]), lim = _mm256_set1_pd(limit);
    size_t h = 0, q = 0;
    for (; q + 4 <= len; q += 4) {
        __m256d dx = _mm256_sub_pd(_mm256_loadu_pd(x + q), xi);
        __m256d dy = _mm256_sub_pd(_mm256_loadu_pd(y + q), yi);
        __m256d dz = _mm256_sub_pd(_mm256_loadu_pd(z + q), zi);
        if (k->wrap) {
            dx = wrap4(dx, k->width, k->half_w);
            dy = wrap4(dy, k->height, k->half_h);
            dz = wrap4(dz, k->depth, k->half_d);
        }
        __m256d d2 = _mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(dx, dx), _mm256_mul_pd(dy, dy)),
                                   _mm256_mul_pd(dz, dz));
        _mm256_storeu_pd(b->dx + q, dx);
        _mm256_storeu_pd(b->dy + q, dy);
        _mm256_storeu_pd(b->dz + q, dz);
        _mm256_storeu_pd(b->d2 + q, d2);
        unsigned mask = keep4(keep, d2, lim);
        for (; mask; mask &= mask - 1) b->hit[h++] = (unsigned)q + (unsigned)__builtin_ctz(mask);
    }
    _mm256_zeroupper(); /* clean upper halves before SSE code runs (see cpu_ref.c) */
    return scan_scalar(k, pi, x, y, z, q, len, keep, limit, b, h);
}

#endif

/* Fills b for boid i against boids j0 .. j0 + len - 1; returns the number of hits. */
static size_t scan(const cpu_ref3 *c, const rules3_k_d *k, size_t i, size_t j0, size_t len,
                   keep_mode keep, double limit, block *b) {
    const boids_flock *f = &c->state;
    const double pi[3] = {f->x[i], f->y[i], f->z[i]};
#if HAVE_AVX2_SCAN
    if (c->have_avx2 && !c->force_scalar)
        return scan_avx2(k, pi, f->x + j0, f->y + j0, f->z + j0, len, keep, limit, b);
#endif
    return scan_scalar(k, pi, f->x + j0, f->y + j0, f->z + j0, 0, len, keep, limit, b, 0);
}

static size_t block_len(size_t n, size_t j0) {
    return n - j0 < BLOCK ? n - j0 : BLOCK;
}

/* The metric neighbours of boid i among boids j0 .. j0 + len - 1: others within
 * vision_radius (strictly for Reynolds, distance <= R for Vicsek) and, for Reynolds, in the
 * field of view cone. Returns their number, with their block positions ascending in b->hit;
 * self != 0 keeps boid i itself among them (Vicsek sums include it at its index). */
static size_t metric_block(const cpu_ref3 *c, const rules3_k_d *k, int vicsek, int self, size_t i,
                           size_t j0, size_t len, block *b) {
    const boids_flock *f = &c->state;
    const size_t h = scan(c, k, i, j0, len, vicsek ? KEEP_LE : KEEP_LT, k->vision2, b);
    size_t m = 0;
    for (size_t q = 0; q < h; q++) {
        const unsigned s = b->hit[q];
        if (j0 + s == i && !self) continue;
        if (!vicsek && !rules3_in_fov_d(k, b->dx[s], b->dy[s], b->dz[s], b->d2[s], f->vx[i],
                                        f->vy[i], f->vz[i]))
            continue;
        b->hit[m++] = s;
    }
    return m;
}

/* The topological neighbours of boid i into nb, ascending index order; returns their
 * number: the k nearest by (distance, id) of the others, the radius applying only with
 * k_in_vision, the field of view for Reynolds. */
static size_t topo_gather(const cpu_ref3 *c, const rules3_k_d *k, const boids_params *p, size_t i,
                          size_t *nb, double *nb_d2, block *b) {
    const boids_flock *f = &c->state;
    const int vicsek = p->model == BOIDS_MODEL_VICSEK;
    const size_t kmax = (size_t)p->k;
    size_t m = 0;
    for (size_t j0 = 0; j0 < f->n; j0 += BLOCK) {
        /* Once kmax are kept, only a pair nearer than the farthest kept can enter: a
         * pre-test that drops no candidate (cpu_ref.c). */
        const int full = m == kmax;
        const keep_mode keep = full              ? KEEP_LT
                               : !p->k_in_vision ? KEEP_ALL
                               : vicsek          ? KEEP_LE
                                                 : KEEP_LT;
        const size_t h =
            scan(c, k, i, j0, block_len(f->n, j0), keep, full ? nb_d2[m - 1] : k->vision2, b);
        for (size_t q = 0; q < h; q++) {
            const unsigned s = b->hit[q];
            const double d2 = b->d2[s];
            if (j0 + s == i) continue;
            if (p->k_in_vision && !(vicsek ? d2 <= k->vision2 : d2 < k->vision2)) continue;
            if (!vicsek &&
                !rules3_in_fov_d(k, b->dx[s], b->dy[s], b->dz[s], d2, f->vx[i], f->vy[i], f->vz[i]))
                continue;
            m = topo_keep(nb, nb_d2, m, kmax, j0 + s, d2);
        }
    }
    topo_sort_ids(nb, m);
    return m;
}

/* Boid i's acceleration from the snapshot into acc[3i .. 3i + 2]. */
static void reynolds_boid(cpu_ref3 *c, const rules3_k_d *k, const boids_params *p, size_t i,
                          size_t *nb, double *nb_d2, block *b) {
    const boids_flock *f = &c->state;
    rules3_acc_d a;
    rules3_acc_init_d(&a);
    if (p->neighbours == BOIDS_NEIGHBOURS_TOPOLOGICAL) {
        size_t m = topo_gather(c, k, p, i, nb, nb_d2, b);
        for (size_t q = 0; q < m; q++) {
            size_t j = nb[q];
            double dx, dy, dz;
            rules3_offset_d(k, f->x[i], f->y[i], f->z[i], f->x[j], f->y[j], f->z[j], &dx, &dy, &dz);
            rules3_acc_add_d(k, &a, dx, dy, dz, rules3_d2_d(dx, dy, dz), f->vx[j], f->vy[j],
                             f->vz[j]);
        }
    } else {
        for (size_t j0 = 0; j0 < f->n; j0 += BLOCK) {
            const size_t m = metric_block(c, k, 0, 0, i, j0, block_len(f->n, j0), b);
            for (size_t q = 0; q < m; q++) {
                const unsigned s = b->hit[q];
                const size_t j = j0 + s;
                rules3_acc_add_d(k, &a, b->dx[s], b->dy[s], b->dz[s], b->d2[s], f->vx[j], f->vy[j],
                                 f->vz[j]);
            }
        }
    }
    const double pos[3] = {f->x[i], f->y[i], f->z[i]}, vel[3] = {f->vx[i], f->vy[i], f->vz[i]};
    rules3_accel_d(k, &a, pos, vel, &c->acc[3 * i]);
}

/* Adds agent j's heading term (see cpu_ref.c's vicsek_term: +0 for a resting agent gives
 * vicsek3_add's sums bit for bit). */
static void vicsek_term(const cpu_ref3 *c, size_t j, double s[3]) {
    s[0] += c->u[3 * j];
    s[1] += c->u[3 * j + 1];
    s[2] += c->u[3 * j + 2];
}

/* Agent i's heading sum and count from the snapshot: itself included, in index order with
 * the others. */
static void vicsek_boid(cpu_ref3 *c, const rules3_k_d *k, const boids_params *p, size_t i,
                        size_t *nb, double *nb_d2, block *b) {
    double *s = &c->acc[3 * i];
    s[0] = s[1] = s[2] = 0;
    long count = 1;
    if (p->neighbours == BOIDS_NEIGHBOURS_TOPOLOGICAL) {
        size_t m = topo_gather(c, k, p, i, nb, nb_d2, b);
        int self = 0;
        for (size_t q = 0; q < m; q++) {
            if (!self && nb[q] > i) {
                vicsek_term(c, i, s);
                self = 1;
            }
            vicsek_term(c, nb[q], s);
        }
        if (!self) vicsek_term(c, i, s);
        count += (long)m;
    } else {
        for (size_t j0 = 0; j0 < c->state.n; j0 += BLOCK) { /* itself is a hit (d2 = 0) */
            const size_t m = metric_block(c, k, 1, 1, i, j0, block_len(c->state.n, j0), b);
            for (size_t q = 0; q < m; q++) {
                vicsek_term(c, j0 + b->hit[q], s);
                count += j0 + b->hit[q] != i;
            }
        }
    }
    c->count[i] = count;
}

/* Boid i's neighbour count and set hash, as its step would see its neighbours. */
static void neighbour_boid(cpu_ref3 *c, const rules3_k_d *k, const boids_params *p, size_t i,
                           size_t *nb, double *nb_d2, block *b) {
    uint64_t h = 0;
    size_t m = 0;
    if (p->neighbours == BOIDS_NEIGHBOURS_TOPOLOGICAL) {
        m = topo_gather(c, k, p, i, nb, nb_d2, b);
        for (size_t q = 0; q < m; q++) h += boids_neighbour_set_hash((uint32_t)nb[q]);
    } else {
        const int vicsek = p->model == BOIDS_MODEL_VICSEK;
        for (size_t j0 = 0; j0 < c->state.n; j0 += BLOCK) {
            const size_t mb = metric_block(c, k, vicsek, 0, i, j0, block_len(c->state.n, j0), b);
            for (size_t q = 0; q < mb; q++)
                h += boids_neighbour_set_hash((uint32_t)(j0 + b->hit[q]));
            m += mb;
        }
    }
    c->out_count[i] = (uint32_t)m;
    c->out_hash[i] = h;
}

typedef void (*boid_fn)(cpu_ref3 *c, const rules3_k_d *k, const boids_params *p, size_t i,
                        size_t *nb, double *nb_d2, block *b);

/* fn for every boid, shared among the threads; each boid's work is its own. */
static void for_each_boid(cpu_ref3 *c, const rules3_k_d *k, const boids_params *p, int threads,
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

static void step_reynolds(cpu_ref3 *c, const rules3_k_d *k, const boids_params *p, int threads) {
    boids_flock *f = &c->state;
    for_each_boid(c, k, p, threads, reynolds_boid);
    for (size_t i = 0; i < f->n; i++) {
        double pos[3] = {f->x[i], f->y[i], f->z[i]}, vel[3] = {f->vx[i], f->vy[i], f->vz[i]};
        rules3_integrate_d(k, &c->acc[3 * i], pos, vel);
        f->x[i] = pos[0], f->y[i] = pos[1], f->z[i] = pos[2];
        f->vx[i] = vel[0], f->vy[i] = vel[1], f->vz[i] = vel[2];
    }
}

static void step_vicsek(cpu_ref3 *c, const rules3_k_d *k, const boids_params *p, int threads) {
    boids_flock *f = &c->state;
    for (size_t j = 0; j < f->n; j++) {
        double *u = &c->u[3 * j];
        u[0] = u[1] = u[2] = 0;
        vicsek3_add_d(f->vx[j], f->vy[j], f->vz[j], u);
    }
    for_each_boid(c, k, p, threads, vicsek_boid);
    for (size_t i = 0; i < f->n; i++) {
        double u1 = boids_noise_u((uint64_t)p->noise_seed, c->t, (uint32_t)i);
        double u2 = boids_noise_u2((uint64_t)p->noise_seed, c->t, (uint32_t)i);
        double pos[3] = {f->x[i], f->y[i], f->z[i]}, vel[3] = {f->vx[i], f->vy[i], f->vz[i]};
        vicsek3_update_d(k, &c->acc[3 * i], c->count[i], u1, u2, p->noise, p->speed, pos, vel);
        f->x[i] = pos[0], f->y[i] = pos[1], f->z[i] = pos[2];
        f->vx[i] = vel[0], f->vy[i] = vel[1], f->vz[i] = vel[2];
    }
}

static boids_status step(boids_backend *b, const boids_params *p, unsigned steps,
                         boids_error *err) {
    cpu_ref3 *c = (cpu_ref3 *)b;
    rules3_k_d k;
    rules3_table_d tab;
    rules3_k_init_d(&k, p);
    rules3_k_set_interact_d(&k, &tab, &b->inter);
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

static boids_status neighbours(boids_backend *bk, const boids_params *p, uint32_t *count,
                               uint64_t *set_hash, boids_error *err) {
    cpu_ref3 *c = (cpu_ref3 *)bk;
    rules3_k_d k;
    rules3_k_init_d(&k, p);
    int threads = ref_thread_count(c->threads);
    boids_status s = ref_lists_reserve(&c->lists, p, c->state.n, threads, err);
    if (s) return s;
    c->out_count = count;
    c->out_hash = set_hash;
    for_each_boid(c, &k, p, threads, neighbour_boid);
    return BOIDS_OK;
}

static boids_status download(boids_backend *b, boids_flock *out, boids_error *err) {
    cpu_ref3 *c = (cpu_ref3 *)b;
    (void)err;
    const size_t bytes = out->n * sizeof(double);
    memcpy(out->x, c->state.x, bytes);
    memcpy(out->y, c->state.y, bytes);
    memcpy(out->z, c->state.z, bytes);
    memcpy(out->vx, c->state.vx, bytes);
    memcpy(out->vy, c->state.vy, bytes);
    memcpy(out->vz, c->state.vz, bytes);
    out->step = c->t;
    return BOIDS_OK;
}

static boids_status upload(boids_backend *b, const boids_flock *in, boids_error *err) {
    cpu_ref3 *c = (cpu_ref3 *)b;
    boids_flock copy;
    boids_status s = boids_flock_copy(&copy, in, err);
    if (s) return s;
    size_t n = in->n;
    /* One block: acc and u (3 doubles each per boid), then count (longs). */
    double *block = malloc(n * (6 * sizeof(double) + sizeof(long)));
    if (!block) {
        boids_flock_free(&copy);
        return boids_error_set(err, BOIDS_ERR_NOMEM, "out of memory for %zu boids", n);
    }
    free(c->acc);
    boids_flock_free(&c->state);
    c->state = copy;
    c->acc = block;
    c->u = block + 3 * n;
    c->count = (long *)(block + 6 * n);
    c->base.n = n;
    c->t = in->step;
    return BOIDS_OK;
}

static const boids_backend_ops ops = {"cpu-ref", destroy, step, download, upload, neighbours};

boids_backend *boids_cpu_ref3_create(const boids_flock *initial, boids_error *err) {
    cpu_ref3 *c = calloc(1, sizeof *c);
    if (!c) {
        boids_error_set(err, BOIDS_ERR_NOMEM, "out of memory");
        return NULL;
    }
    c->base.ops = &ops;
    c->base.dim = 3;
    c->have_avx2 = cpu_has_avx2();
    if (upload(&c->base, initial, err)) {
        free(c);
        return NULL;
    }
    return &c->base;
}

int boids_cpu_ref3_set_threads(boids_backend *b, int threads) {
    if (!b || b->ops != &ops) return -1;
    ((cpu_ref3 *)b)->threads = threads;
    return 0;
}

int boids_cpu_ref3_force_scalar(boids_backend *b, int on) {
    if (!b || b->ops != &ops) return -1;
    ((cpu_ref3 *)b)->force_scalar = on != 0;
    return 0;
}
