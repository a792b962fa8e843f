/* cpu-ref: the exact reference path. Double precision, every pair visited in index order,
 * all boids decide from the same snapshot and then all move: the loop structure and the
 * operation order are those of seed 000's paso(), so this path reproduces the seed
 * program bit for bit. O(N^2) on purpose: it is the source of truth, not the fast path. */
#include <stdlib.h>
#include <string.h>

#include "boids/backend.h"

#define RULES_REAL     double
#define RULES_FN(name) name##_d
#include "rules.h"

typedef struct cpu_ref {
    boids_backend base;
    boids_flock state;
    double *ax, *ay; /* Reynolds: accelerations decided from the snapshot */
    double *sx, *sy; /* Vicsek: heading sums decided from the snapshot */
    long *count;     /* Vicsek: headings summed */
    size_t *nb;      /* neighbour indices of one boid, ascending */
    double *nb_d2;   /* topological selection: squared distances of the kept candidates */
    uint32_t t;      /* the Vicsek noise stream's step index: the uploaded state's step, plus
                        the steps since */
} cpu_ref;

static void destroy(boids_backend *b) {
    cpu_ref *c = (cpu_ref *)b;
    boids_flock_free(&c->state);
    free(c->ax);
    free(c->nb);
    free(c);
}

/* Collects the neighbours of boid i into c->nb in ascending index order and returns their
 * number. Reynolds: others within vision_radius (strictly) and the field of view. Vicsek:
 * others within vision_radius (distance <= R, the seed's "no mayor que R"). Topological:
 * the k nearest such candidates by (distance, id), the radius applying only with
 * k_in_vision. The agent itself is never in the list. */
static size_t gather(cpu_ref *c, const rules_k_d *k, const boids_params *p, size_t i) {
    const boids_flock *f = &c->state;
    const int vicsek = p->model == BOIDS_MODEL_VICSEK;
    const int topo = p->neighbours == BOIDS_NEIGHBOURS_TOPOLOGICAL;
    const int use_radius = !topo || p->k_in_vision;
    const size_t kmax = topo ? (size_t)p->k : f->n;
    size_t m = 0;
    for (size_t j = 0; j < f->n; j++) {
        if (j == i) continue;
        double dx, dy;
        rules_offset_d(k, f->x[i], f->y[i], f->x[j], f->y[j], &dx, &dy);
        double d2 = dx * dx + dy * dy;
        if (use_radius && !(vicsek ? d2 <= k->vision2 : d2 < k->vision2)) continue;
        if (!vicsek && !rules_in_fov_d(k, dx, dy, d2, f->vx[i], f->vy[i])) continue;
        if (!topo) {
            c->nb[m++] = j;
            continue;
        }
        /* Keep the kmax smallest (d2, j) in order; j ascends, so ties keep the earlier id. */
        if (m == kmax && !(d2 < c->nb_d2[m - 1])) continue;
        size_t pos = m < kmax ? m++ : m - 1;
        while (pos > 0 && d2 < c->nb_d2[pos - 1]) {
            c->nb_d2[pos] = c->nb_d2[pos - 1];
            c->nb[pos] = c->nb[pos - 1];
            pos--;
        }
        c->nb_d2[pos] = d2;
        c->nb[pos] = j;
    }
    if (topo) { /* back to index order, the order every sum runs in */
        for (size_t a = 1; a < m; a++) {
            size_t v = c->nb[a], b = a;
            for (; b > 0 && c->nb[b - 1] > v; b--) c->nb[b] = c->nb[b - 1];
            c->nb[b] = v;
        }
    }
    return m;
}

static void step_reynolds(cpu_ref *c, const rules_k_d *k, const boids_params *p) {
    boids_flock *f = &c->state;
    for (size_t i = 0; i < f->n; i++) {
        rules_acc_d a;
        rules_acc_init_d(&a);
        size_t m = gather(c, k, p, i);
        for (size_t q = 0; q < m; q++) {
            size_t j = c->nb[q];
            double dx, dy;
            rules_offset_d(k, f->x[i], f->y[i], f->x[j], f->y[j], &dx, &dy);
            rules_acc_add_d(k, &a, dx, dy, dx * dx + dy * dy, f->vx[j], f->vy[j]);
        }
        rules_accel_d(k, &a, f->x[i], f->y[i], f->vx[i], f->vy[i], &c->ax[i], &c->ay[i]);
    }
    for (size_t i = 0; i < f->n; i++)
        rules_integrate_d(k, c->ax[i], c->ay[i], &f->x[i], &f->y[i], &f->vx[i], &f->vy[i]);
}

static void step_vicsek(cpu_ref *c, const rules_k_d *k, const boids_params *p) {
    boids_flock *f = &c->state;
    for (size_t i = 0; i < f->n; i++) {
        size_t m = gather(c, k, p, i);
        double sx = 0, sy = 0;
        /* Itself included, in index order with the others. */
        size_t q = 0;
        for (; q < m && c->nb[q] < i; q++) vicsek_add_d(f->vx[c->nb[q]], f->vy[c->nb[q]], &sx, &sy);
        vicsek_add_d(f->vx[i], f->vy[i], &sx, &sy);
        for (; q < m; q++) vicsek_add_d(f->vx[c->nb[q]], f->vy[c->nb[q]], &sx, &sy);
        c->sx[i] = sx;
        c->sy[i] = sy;
        c->count[i] = (long)m + 1;
    }
    for (size_t i = 0; i < f->n; i++) {
        double u = boids_noise_u((uint64_t)p->noise_seed, c->t, (uint32_t)i);
        vicsek_update_d(k, c->sx[i], c->sy[i], c->count[i], u, p->noise, p->speed, &f->x[i],
                        &f->y[i], &f->vx[i], &f->vy[i]);
    }
}

static boids_status step(boids_backend *b, const boids_params *p, unsigned steps,
                         boids_error *err) {
    (void)err;
    cpu_ref *c = (cpu_ref *)b;
    rules_k_d k;
    rules_k_init_d(&k, p);
    for (unsigned s = 0; s < steps; s++, c->t++) {
        if (p->model == BOIDS_MODEL_VICSEK)
            step_vicsek(c, &k, p);
        else
            step_reynolds(c, &k, p);
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
    /* One block: ax ay sx sy nb_d2 (doubles), then count (longs), nb (size_t). */
    double *block = malloc(n * (5 * sizeof(double) + sizeof(long) + sizeof(size_t)));
    size_t *nb = malloc(n * sizeof(size_t));
    if (!block || !nb) {
        free(block);
        free(nb);
        boids_flock_free(&copy);
        return boids_error_set(err, BOIDS_ERR_NOMEM, "out of memory for %zu boids", n);
    }
    free(c->ax);
    free(c->nb);
    boids_flock_free(&c->state);
    c->state = copy;
    c->ax = block;
    c->ay = block + n;
    c->sx = block + 2 * n;
    c->sy = block + 3 * n;
    c->nb_d2 = block + 4 * n;
    c->count = (long *)(block + 5 * n);
    c->nb = nb;
    c->base.n = n;
    c->t = in->step;
    return BOIDS_OK;
}

static boids_status neighbours(boids_backend *b, const boids_params *p, uint32_t *count,
                               uint64_t *set_hash, boids_error *err) {
    (void)err;
    cpu_ref *c = (cpu_ref *)b;
    rules_k_d k;
    rules_k_init_d(&k, p);
    for (size_t i = 0; i < c->state.n; i++) {
        size_t m = gather(c, &k, p, i);
        uint64_t h = 0;
        for (size_t q = 0; q < m; q++) h += boids_neighbour_set_hash((uint32_t)c->nb[q]);
        count[i] = (uint32_t)m;
        set_hash[i] = h;
    }
    return BOIDS_OK;
}

static const boids_backend_ops ops = {"cpu-ref", destroy, step, download, upload, neighbours};

boids_backend *boids_cpu_ref_create(const boids_flock *initial, boids_error *err) {
    cpu_ref *c = calloc(1, sizeof *c);
    if (!c) {
        boids_error_set(err, BOIDS_ERR_NOMEM, "out of memory");
        return NULL;
    }
    c->base.ops = &ops;
    if (upload(&c->base, initial, err)) {
        free(c);
        return NULL;
    }
    return &c->base;
}
