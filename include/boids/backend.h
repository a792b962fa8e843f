/* Simulation backends behind one interface.
 *
 *   cpu-ref  exact reference: double, O(N^2), neighbours in index order (seed 000)
 *   cpu      counting-sort grid in float, multithreaded (OpenMP)
 *   gpu      OpenGL 4.3 compute shaders (src/gpu, boids/gpu.h)
 *
 * A backend owns its working state. Parameters are passed on every step so that a viewer
 * can change them live; a change of N goes through upload(). */
#ifndef BOIDS_BACKEND_H
#define BOIDS_BACKEND_H

#include <stdint.h>

#include "boids/error.h"
#include "boids/flock.h"
#include "boids/params.h"

typedef struct boids_backend boids_backend;

typedef struct boids_backend_ops {
    const char *name;
    void (*destroy)(boids_backend *b);
    /* Advances the state by `steps` steps with parameters p. */
    boids_status (*step)(boids_backend *b, const boids_params *p, unsigned steps, boids_error *err);
    /* Copies the state into out (allocated by the caller with out->n == b->n), id order. */
    boids_status (*download)(boids_backend *b, boids_flock *out, boids_error *err);
    /* Replaces the state (any N). */
    boids_status (*upload)(boids_backend *b, const boids_flock *in, boids_error *err);
    /* Optional (NULL if absent): for the current state and p, the number of neighbours of
     * each boid (count[i], id order) and an order-independent hash of its neighbour id set
     * (boids_neighbour_set_hash summed over neighbours), as the step would see them. */
    boids_status (*neighbours)(boids_backend *b, const boids_params *p, uint32_t *count,
                               uint64_t *set_hash, boids_error *err);
} boids_backend_ops;

struct boids_backend {
    const boids_backend_ops *ops;
    size_t n;
};

boids_backend *boids_cpu_ref_create(const boids_flock *initial, boids_error *err);
/* threads <= 0: all available (OpenMP default). */
boids_backend *boids_cpu_create(const boids_flock *initial, int threads, boids_error *err);

static inline boids_status boids_backend_step(boids_backend *b, const boids_params *p,
                                              unsigned steps, boids_error *err) {
    return b->ops->step(b, p, steps, err);
}
static inline boids_status boids_backend_download(boids_backend *b, boids_flock *out,
                                                  boids_error *err) {
    return b->ops->download(b, out, err);
}
static inline boids_status boids_backend_upload(boids_backend *b, const boids_flock *in,
                                                boids_error *err) {
    return b->ops->upload(b, in, err);
}
static inline void boids_backend_destroy(boids_backend *b) {
    if (b) b->ops->destroy(b);
}

/* The per-neighbour term of the set hash: a 64-bit mix of the neighbour's id. Sums of it
 * over a set do not depend on visiting order. */
static inline uint64_t boids_neighbour_set_hash(uint32_t id) {
    uint64_t z = (uint64_t)id + 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* The Vicsek noise variate of agent `id` at step `step` (steps since the state was
 * uploaded) for noise_seed: a uniform value in [0, 1) with 24 bits, a pure function of its
 * inputs so that every backend (and the GPU, in the same 32-bit integer arithmetic) draws
 * the same noise. */
static inline uint32_t boids_mix32(uint32_t h) {
    h ^= h >> 16;
    h *= 0x7feb352du;
    h ^= h >> 15;
    h *= 0x846ca68bu;
    h ^= h >> 16;
    return h;
}
static inline double boids_noise_u(uint64_t noise_seed, uint32_t step, uint32_t id) {
    uint32_t h = boids_mix32(id);
    h = boids_mix32(h ^ step);
    h = boids_mix32(h ^ (uint32_t)(noise_seed >> 32));
    h = boids_mix32(h ^ (uint32_t)noise_seed);
    return (double)(h >> 8) * (1.0 / 16777216.0);
}

#endif
