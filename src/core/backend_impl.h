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
    /* Optional (all NULL: the backend keeps no tile resident), checked by backend.c first:
     * the resident tile's calls of tile.h, records of BOIDS_TILE_REC(dim) bytes. */
    boids_status (*tile_start)(boids_backend *b, const unsigned char *rec, size_t m,
                               size_t n_global, uint32_t step, boids_error *err);
    void (*tile_box)(boids_backend *b, grid_boxd *box);
    boids_status (*tile_count)(boids_backend *b, const grid_geomd *g, uint64_t *count,
                               uint64_t *pairs, boids_error *err);
    boids_status (*tile_split)(boids_backend *b, boids_tile_key lo, boids_tile_key hi,
                               boids_tile_moves *out, boids_error *err);
    boids_status (*tile_add)(boids_backend *b, const unsigned char *rec, size_t m,
                             boids_error *err);
    boids_status (*tile_halo)(boids_backend *b, const boids_tile *t, const unsigned char *rec,
                              size_t m, boids_error *err);
    boids_status (*tile_owned)(boids_backend *b, boids_tile_keep keep, const void *ctx,
                               const unsigned char **rec, size_t *m, boids_error *err);
    /* Optional besides those (NULL: the backend's tiles are whole rows): tiles that begin or
     * end within a row (boids_tile's skips, tile_split's cells) and the count of tile.h's
     * boids_backend_tile_row_cells. */
    boids_status (*tile_row_cells)(boids_backend *b, const uint32_t *rows, uint32_t nr,
                                   uint32_t *count, boids_error *err);
    /* Optional besides those (NULL: the backend's tiles are whole cells): tiles that begin or
     * end within a cell (boids_tile's ids, tile_split's keys with ids) and tile.h's
     * boids_backend_tile_cell_ids. */
    boids_status (*tile_cell_ids)(boids_backend *b, const uint64_t *cells, uint32_t nc,
                                  uint32_t *ids, size_t cap, size_t *m, boids_error *err);
} boids_backend_ops;

/* The tile mode of a backend (struct boids_backend's `tile`), kept by backend.c. */
enum {
    TILE_NONE = 0,     /* the whole flock (after create or boids_backend_upload) */
    TILE_UPLOADED = 1, /* a window uploaded, not yet stepped */
    TILE_STEPPED = 2,  /* that window stepped: its halo is stale, a step needs the next upload */
    TILE_RESIDENT = 3, /* resident (tile_start, or a step since): rows and halo unknown */
    TILE_COUNTED = 4,  /* resident, the owned boids' rows counted: a split may follow */
    TILE_READY = 5     /* resident, the window and its halo set: a step may follow */
};

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
    /* Tile mode (tile.h, the TILE_ values above), kept by backend.c. */
    int tile;
};

#endif
