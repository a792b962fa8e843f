/* SPDX-License-Identifier: MIT */
/* Simulation backends behind one interface.
 *
 *   cpu-ref  exact reference: double, O(N^2), neighbours in index order (seed 000)
 *   cpu      counting-sort grid in float, multithreaded (OpenMP)
 *   gpu      OpenGL 4.3 compute shaders (src/gpu, boids/gpu.h)
 *
 * A backend owns its working state. Parameters are passed on every step so that a viewer
 * can change them live; a change of N goes through upload().
 *
 * Ownership: a create function copies the initial flock (the caller keeps and frees its
 * own); boids_backend_destroy releases the backend. Every function checks its arguments and
 * returns BOIDS_ERR_INPUT with a message for NULL handles, NULL pointers and invalid
 * parameters; it never runs a step on invalid input.
 *
 * Threads: a backend is used by one thread at a time (the cpu backend parallelises inside
 * a step with OpenMP; the gpu backend must be called on the thread where its GL context is
 * current). Different backends may be used from different threads at once. */
#ifndef BOIDS_BACKEND_H
#define BOIDS_BACKEND_H

#include <stdint.h>

#include "boids/api.h"
#include "boids/error.h"
#include "boids/flock.h"
#include "boids/interact.h"
#include "boids/params.h"

BOIDS_BEGIN_DECLS

/* An opaque handle: make one with boids_cpu_ref_create, boids_cpu_create or
 * boids_gpu_create, release it with boids_backend_destroy. */
typedef struct boids_backend boids_backend;

/* Creates the exact reference backend with a copy of initial (n > 0, every array set).
 * NULL initial or arrays, n = 0, a value that is not finite (NaN, inf): BOIDS_ERR_INPUT; no
 * memory: BOIDS_ERR_NOMEM. Returns NULL
 * on failure. A 3-D flock (z and vz set, boids_flock_dim) makes a 3-D backend, which steps
 * with dim = 3 parameters only (src/core/rules.h in 3-D); boids_cpu_create likewise (27-cell
 * grid, scalar kernels); boids_gpu_create likewise (27-cell counting sort in compute
 * shaders). */
boids_backend *boids_cpu_ref_create(const boids_flock *initial, boids_error *err);
/* The same for the grid backend; threads <= 0: all available (OpenMP default). A step runs
 * on all of them or, where timing shows one thread to be faster (another process holding a
 * core), on one; the results are the same bits either way. */
boids_backend *boids_cpu_create(const boids_flock *initial, int threads, boids_error *err);

/* Advances the state by `steps` steps with parameters p. p is checked with
 * boids_params_validate first (every range, and one step below half the world): an invalid
 * p, a NULL b or p give BOIDS_ERR_INPUT and the state is left as it was. steps = 0 checks
 * and does nothing. */
boids_status boids_backend_step(boids_backend *b, const boids_params *p, unsigned steps,
                                boids_error *err);

/* Copies the state into out, in id order. out must be allocated by the caller
 * (boids_flock_alloc) with out->n equal to boids_backend_n(b): another N, a NULL b or out
 * or a NULL array give BOIDS_ERR_INPUT naming both sizes. */
boids_status boids_backend_download(boids_backend *b, boids_flock *out, boids_error *err);

/* Replaces the state by a copy of in (any N > 0; the backend reallocates). NULL b or in,
 * n = 0, a NULL array or a value that is not finite: BOIDS_ERR_INPUT; a refused upload keeps
 * the previous state. */
boids_status boids_backend_upload(boids_backend *b, const boids_flock *in, boids_error *err);

/* For the current state and parameters p (checked as in step): the number of neighbours
 * of each boid (count[i], id order, n entries) and an order-independent hash of its
 * neighbour id set (boids_neighbour_set_hash summed over the neighbours), as the next step
 * would see them. NULL arguments: BOIDS_ERR_INPUT; a backend without this query
 * (boids_backend_has_neighbours() == 0): BOIDS_ERR_RUNTIME. */
boids_status boids_backend_neighbours(boids_backend *b, const boids_params *p, uint32_t *count,
                                      uint64_t *set_hash, boids_error *err);

/* 1 when b answers boids_backend_neighbours; 0 otherwise or for NULL. */
int boids_backend_has_neighbours(const boids_backend *b);

/* Replaces the interaction table the rules apply on every later step: up to 16 predators
 * and 16 attractors (those with on = 1) and the obstacles (README, "Interaction points and
 * obstacles"), besides the single predator and food point of the parameters. The table is
 * copied; NULL clears it (no points, no obstacles), which is also the state of a new backend.
 * NULL b or an invalid table (boids_interact_check): BOIDS_ERR_INPUT, the table in use is
 * kept. The obstacles must suit the backend's dimension (boids_interact_check_dim: circles
 * and segments in 2-D, spheres in 3-D), else BOIDS_ERR_INPUT naming the first that does
 * not; a 2-D backend ignores the points' z. */
boids_status boids_backend_set_interact(boids_backend *b, const boids_interact *s,
                                        boids_error *err);

/* Releases b and everything it owns (for the GPU backend: its GL objects, and its context
 * if it made one; the context that holds them must be current). NULL does nothing. */
void boids_backend_destroy(boids_backend *b);

/* The number of boids N of the current state; 0 for NULL. */
size_t boids_backend_n(const boids_backend *b);

/* "cpu-ref", "cpu" or "gpu" (a string that lives as long as the library); "" for NULL. */
const char *boids_backend_name(const boids_backend *b);

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
static inline uint32_t boids_noise_hash(uint64_t noise_seed, uint32_t step, uint32_t id) {
    uint32_t h = boids_mix32(id);
    h = boids_mix32(h ^ step);
    h = boids_mix32(h ^ (uint32_t)(noise_seed >> 32));
    return boids_mix32(h ^ (uint32_t)noise_seed);
}
static inline double boids_noise_u(uint64_t noise_seed, uint32_t step, uint32_t id) {
    return (double)(boids_noise_hash(noise_seed, step, id) >> 8) * (1.0 / 16777216.0);
}

/* The second variate of agent `id` at `step`, which the 3-D Vicsek noise needs (the azimuth
 * of its turn; src/core/rules.h): the same hash mixed once more with a constant, a stream distinct
 * from boids_noise_u's, again 24 bits in [0, 1). */
static inline double boids_noise_u2(uint64_t noise_seed, uint32_t step, uint32_t id) {
    uint32_t h = boids_mix32(boids_noise_hash(noise_seed, step, id) ^ 0x9E3779B9u);
    return (double)(h >> 8) * (1.0 / 16777216.0);
}

BOIDS_END_DECLS

#endif
