/* SPDX-License-Identifier: MIT */
/* cpu-ref in three dimensions: the exact reference for 3-D flocks (boids_cpu_ref_create hands
 * a flock with z arrays here). Double precision, every pair visited in index order, all
 * boids decide from the same snapshot and then all move: the discipline of cpu_ref.c, with
 * the rules of rules3.h. O(N^2) on purpose.
 *
 * Each boid reads the snapshot and writes only its own result, so the boids are shared among
 * OpenMP threads and the state has the same bits for every thread count. Unlike the planar
 * path there is no SIMD pre-scan: the pair loop is plain C (the compiler may vectorise the
 * distance pass of a block; it computes the same IEEE operations either way). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "backend_impl.h"
#include "cpu_ref.h"

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
    size_t *nb;          /* topological: the kept neighbours of one boid, nb_cap per thread */
    double *nb_d2;       /* topological: their squared distances */
    size_t nb_cap;       /* entries per thread in this step: min(k, n) */
    size_t nb_size;      /* entries allocated */
    int threads;         /* <= 0: OpenMP's default */
    uint32_t t;          /* the Vicsek noise stream's step index */
    uint32_t *out_count; /* neighbours(): where neighbour_boid writes, id order */
    uint64_t *out_hash;
} cpu_ref3;

/* One block of boid i's scan: offsets and squared distances to boids j0 .. j0 + len - 1. */
typedef struct block {
    double dx[BLOCK], dy[BLOCK], dz[BLOCK], d2[BLOCK];
} block;

static void destroy(boids_backend *b) {
    cpu_ref3 *c = (cpu_ref3 *)b;
    boids_flock_free(&c->state);
    free(c->acc);
    free(c->nb);
    free(c->nb_d2);
    free(c);
}

/* Offsets (rules3_offset) and squared distances from boid i to a block of boids. */
static void scan(const cpu_ref3 *c, const rules3_k_d *k, size_t i, size_t j0, size_t len,
                 block *b) {
    const boids_flock *f = &c->state;
    const double xi = f->x[i], yi = f->y[i], zi = f->z[i];
    for (size_t q = 0; q < len; q++) {
        double dx, dy, dz;
        rules3_offset_d(k, xi, yi, zi, f->x[j0 + q], f->y[j0 + q], f->z[j0 + q], &dx, &dy, &dz);
        b->dx[q] = dx;
        b->dy[q] = dy;
        b->dz[q] = dz;
        b->d2[q] = rules3_d2_d(dx, dy, dz);
    }
}

static size_t block_len(size_t n, size_t j0) {
    return n - j0 < BLOCK ? n - j0 : BLOCK;
}

/* Is boid j at block position q a metric neighbour of boid i: another boid within
 * vision_radius (strictly for Reynolds, distance <= R for Vicsek) and, for Reynolds, in the
 * field of view cone? */
static int metric_hit(const cpu_ref3 *c, const rules3_k_d *k, int vicsek, size_t i, size_t j,
                      const block *b, size_t q) {
    const boids_flock *f = &c->state;
    if (j == i) return 0;
    if (vicsek) return b->d2[q] <= k->vision2;
    return rules3_sees_d(k, b->dx[q], b->dy[q], b->dz[q], b->d2[q], f->vx[i], f->vy[i], f->vz[i]);
}

/* Keeps the kmax smallest (d2, j) of the m kept, nearest first; candidates come in
 * ascending j, so of equal distances the earlier id stays. Returns the new count. */
static size_t topo_keep(size_t *nb, double *nb_d2, size_t m, size_t kmax, size_t j, double d2) {
    if (m == kmax && !(d2 < nb_d2[m - 1])) return m;
    size_t pos = m < kmax ? m++ : m - 1;
    while (pos > 0 && d2 < nb_d2[pos - 1]) {
        nb_d2[pos] = nb_d2[pos - 1];
        nb[pos] = nb[pos - 1];
        pos--;
    }
    nb_d2[pos] = d2;
    nb[pos] = j;
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
        const size_t len = block_len(f->n, j0);
        scan(c, k, i, j0, len, b);
        for (size_t q = 0; q < len; q++) {
            const double d2 = b->d2[q];
            if (j0 + q == i) continue;
            if (p->k_in_vision && !(vicsek ? d2 <= k->vision2 : d2 < k->vision2)) continue;
            if (!vicsek &&
                !rules3_in_fov_d(k, b->dx[q], b->dy[q], b->dz[q], d2, f->vx[i], f->vy[i], f->vz[i]))
                continue;
            m = topo_keep(nb, nb_d2, m, kmax, j0 + q, d2);
        }
    }
    for (size_t a = 1; a < m; a++) {
        size_t v = nb[a], q = a;
        for (; q > 0 && nb[q - 1] > v; q--) nb[q] = nb[q - 1];
        nb[q] = v;
    }
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
            const size_t len = block_len(f->n, j0);
            scan(c, k, i, j0, len, b);
            for (size_t q = 0; q < len; q++) {
                if (!metric_hit(c, k, 0, i, j0 + q, b, q)) continue;
                const size_t j = j0 + q;
                rules3_acc_add_d(k, &a, b->dx[q], b->dy[q], b->dz[q], b->d2[q], f->vx[j], f->vy[j],
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
        for (size_t j0 = 0; j0 < c->state.n; j0 += BLOCK) {
            const size_t len = block_len(c->state.n, j0);
            scan(c, k, i, j0, len, b);
            for (size_t q = 0; q < len; q++) {
                if (j0 + q == i) {
                    vicsek_term(c, i, s);
                } else if (metric_hit(c, k, 1, i, j0 + q, b, q)) {
                    vicsek_term(c, j0 + q, s);
                    count++;
                }
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
            const size_t len = block_len(c->state.n, j0);
            scan(c, k, i, j0, len, b);
            for (size_t q = 0; q < len; q++)
                if (metric_hit(c, k, vicsek, i, j0 + q, b, q)) {
                    h += boids_neighbour_set_hash((uint32_t)(j0 + q));
                    m++;
                }
        }
    }
    c->out_count[i] = (uint32_t)m;
    c->out_hash[i] = h;
}

static int thread_count(const cpu_ref3 *c) {
#ifdef _OPENMP
    return c->threads > 0 ? c->threads : omp_get_max_threads();
#else
    (void)c;
    return 1;
#endif
}

static size_t thread_id(void) {
#ifdef _OPENMP
    return (size_t)omp_get_thread_num();
#else
    return 0;
#endif
}

/* Makes room for each thread's topological list, min(k, n) entries, when p needs one. */
static boids_status reserve_lists(cpu_ref3 *c, const boids_params *p, int threads,
                                  boids_error *err) {
    if (p->neighbours != BOIDS_NEIGHBOURS_TOPOLOGICAL) return BOIDS_OK;
    c->nb_cap = (size_t)p->k < c->state.n ? (size_t)p->k : c->state.n;
    size_t need = c->nb_cap * (size_t)threads;
    if (need <= c->nb_size) return BOIDS_OK;
    size_t *nb = realloc(c->nb, need * sizeof *nb);
    if (nb) c->nb = nb;
    double *nb_d2 = nb ? realloc(c->nb_d2, need * sizeof *nb_d2) : NULL;
    if (!nb_d2)
        return boids_error_set(err, BOIDS_ERR_NOMEM, "out of memory for %d neighbour lists",
                               threads);
    c->nb_d2 = nb_d2;
    c->nb_size = need;
    return BOIDS_OK;
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
        size_t *nb = c->nb ? c->nb + thread_id() * c->nb_cap : NULL;
        double *nb_d2 = c->nb_d2 ? c->nb_d2 + thread_id() * c->nb_cap : NULL;
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
    rules3_k_init_d(&k, p);
    int threads = thread_count(c);
    boids_status s = reserve_lists(c, p, threads, err);
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
    int threads = thread_count(c);
    boids_status s = reserve_lists(c, p, threads, err);
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

int boids_cpu_ref3_is(const boids_backend *b) {
    return b && b->ops == &ops;
}
