/* SPDX-License-Identifier: MIT */
/* What a backend implementation sees behind the opaque boids_backend handle: the table of
 * operations and the shared header every backend struct starts with.
 *
 * Only backends (src/core/cpu_*.c, the GPU step in src/gpu) include this. Callers go through
 * the checked functions of boids/backend.h (src/core/backend.c), which validate the handle,
 * the pointers and the parameters before an operation runs, so an operation may assume
 * valid arguments: a non-NULL state of n > 0 boids, parameters that passed
 * boids_params_validate, an output flock of the backend's N. */
#ifndef BOIDS_BACKEND_IMPL_H
#define BOIDS_BACKEND_IMPL_H

#include "check.h"

/* The constructors of the two CPU backends (cpu_ref.c, cpu_grid.c) for a flock already
 * checked: the public boids_cpu_ref_create and boids_cpu_create (backend.c) check the
 * arguments and then call these, so that the checks stay in one place. */
struct boids_backend;
struct boids_flock;
BOIDS_HIDDEN struct boids_backend *cpu_ref_backend_create(const struct boids_flock *initial,
                                                          boids_error *err);
BOIDS_HIDDEN struct boids_backend *cpu_grid_backend_create(const struct boids_flock *initial,
                                                           int threads, boids_error *err);

#include "boids/backend.h"
#include "tile.h"

typedef struct boids_backend_ops {
    const char *name;
    void (*destroy)(boids_backend *b);
    /* Advances the state by `steps` steps with parameters p. */
    boids_status (*step)(boids_backend *b, const boids_params *p, unsigned steps, boids_error *err);
    /* Copies the state into out (allocated by the caller with out->n == b->n), id order. */
    boids_status (*download)(boids_backend *b, boids_flock *out, boids_error *err);
    /* Replaces the state (any N). */
    boids_status (*upload)(boids_backend *b, const boids_flock *in, boids_error *err);
    /* Optional (NULL if absent): see boids_backend_neighbours. */
    boids_status (*neighbours)(boids_backend *b, const boids_params *p, uint32_t *count,
                               uint64_t *set_hash, boids_error *err);
    /* Optional (NULL: the backend steps no tiles), both checked by backend.c first (tile.h):
     * the whole flock's geometry for tile t, and the upload of the window t (the backend
     * copies t->gid). */
    boids_status (*tile_geom)(const boids_backend *b, const boids_params *p, const boids_tile *t,
                              grid_geomd *g, boids_error *err);
    boids_status (*upload_tile)(boids_backend *b, const boids_flock *in, const boids_tile *t,
                                boids_error *err);
} boids_backend_ops;

struct boids_backend {
    const boids_backend_ops *ops;
    size_t n;
    /* 2 or 3: the dimension of the flock the backend was created with, which it keeps: an
     * upload or parameters of the other dim are refused (src/core/backend.c) before an
     * operation runs. Set by the 3-D constructors; 0 (from calloc) reads as 2. */
    int dim;
    /* The interaction points and obstacles the rules apply on every step
     * (boids_backend_set_interact); zero (all off, no obstacles) until set. inter_version
     * counts the changes, so that a backend that mirrors the table elsewhere (the GPU's
     * buffer) uploads it only when it changed. */
    boids_interact inter;
    unsigned inter_version;
    /* Tile mode (tile.h), kept by backend.c: 0 the whole flock (after create or
     * boids_backend_upload), 1 a tile uploaded and not yet stepped, 2 that tile stepped (its
     * halo is stale: a step needs the next upload). */
    int tile;
};

#endif
