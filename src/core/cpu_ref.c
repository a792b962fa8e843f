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
    double *ax, *ay; /* accelerations decided from the snapshot */
} cpu_ref;

static void destroy(boids_backend *b) {
    cpu_ref *c = (cpu_ref *)b;
    boids_flock_free(&c->state);
    free(c->ax);
    free(c);
}

/* Visits the neighbours of boid i in index order; calls back for each. */
#define FOR_EACH_NEIGHBOUR(k, f, i, BODY)                                                          \
    for (size_t j = 0; j < (f)->n; j++) {                                                          \
        if (j == (i)) continue;                                                                    \
        double dx, dy;                                                                             \
        rules_offset_d((k), (f)->x[i], (f)->y[i], (f)->x[j], (f)->y[j], &dx, &dy);                 \
        double d2 = dx * dx + dy * dy;                                                             \
        if (!rules_sees_d((k), dx, dy, d2, (f)->vx[i], (f)->vy[i])) continue;                      \
        BODY                                                                                       \
    }

static boids_status step(boids_backend *b, const boids_params *p, unsigned steps,
                         boids_error *err) {
    (void)err;
    cpu_ref *c = (cpu_ref *)b;
    boids_flock *f = &c->state;
    rules_k_d k;
    rules_k_init_d(&k, p);
    for (unsigned s = 0; s < steps; s++) {
        for (size_t i = 0; i < f->n; i++) {
            rules_acc_d a;
            rules_acc_init_d(&a);
            FOR_EACH_NEIGHBOUR(&k, f, i,
                               { rules_acc_add_d(&k, &a, dx, dy, d2, f->vx[j], f->vy[j]); })
            rules_accel_d(&k, &a, f->x[i], f->y[i], f->vx[i], f->vy[i], &c->ax[i], &c->ay[i]);
        }
        for (size_t i = 0; i < f->n; i++)
            rules_integrate_d(&k, c->ax[i], c->ay[i], &f->x[i], &f->y[i], &f->vx[i], &f->vy[i]);
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
    return BOIDS_OK;
}

static boids_status upload(boids_backend *b, const boids_flock *in, boids_error *err) {
    cpu_ref *c = (cpu_ref *)b;
    boids_flock copy;
    boids_status s = boids_flock_copy(&copy, in, err);
    if (s) return s;
    double *acc = malloc(2 * in->n * sizeof(double));
    if (!acc) {
        boids_flock_free(&copy);
        return boids_error_set(err, BOIDS_ERR_NOMEM, "out of memory for %zu boids", in->n);
    }
    boids_flock_free(&c->state);
    free(c->ax);
    c->state = copy;
    c->ax = acc;
    c->ay = acc + in->n;
    c->base.n = in->n;
    return BOIDS_OK;
}

static boids_status neighbours(boids_backend *b, const boids_params *p, uint32_t *count,
                               uint64_t *set_hash, boids_error *err) {
    (void)err;
    cpu_ref *c = (cpu_ref *)b;
    boids_flock *f = &c->state;
    rules_k_d k;
    rules_k_init_d(&k, p);
    for (size_t i = 0; i < f->n; i++) {
        uint32_t n = 0;
        uint64_t h = 0;
        FOR_EACH_NEIGHBOUR(&k, f, i, {
            n++;
            h += boids_neighbour_set_hash((uint32_t)j);
        })
        count[i] = n;
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
