/* SPDX-License-Identifier: MIT */
/* The public backend functions: argument and parameter checks in front of each backend's
 * operations (src/core/backend_impl.h), so that no backend runs on invalid input and every
 * backend reports it with the same words. */
#include "backend_impl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* NULL flock, no boids or a missing array: BOIDS_ERR_INPUT naming `what`. */
static boids_status check_flock(const boids_flock *f, const char *what, boids_error *err) {
    const char *bad = boids_flock_bad_arrays(f);
    if (!bad && f->n == 0) bad = "the flock has no boids";
    if (bad) return boids_error_set(err, BOIDS_ERR_INPUT, "%s: %s", what, bad);
    return BOIDS_OK;
}

/* check_flock, and every value finite: a state a backend takes in (create, upload). A NaN
 * would spread through every neighbour of the boid within steps. */
static boids_status check_state(const boids_flock *f, const char *what, boids_error *err) {
    if (check_flock(f, what, err)) return BOIDS_ERR_INPUT;
    size_t i = boids_flock_first_not_finite(f);
    if (i < f->n)
        return boids_error_set(err, BOIDS_ERR_INPUT, "%s: boid %zu has a value that is not finite",
                               what, i);
    return BOIDS_OK;
}

/* The backend's dimension (see struct boids_backend). */
static int backend_dim(const boids_backend *b) {
    return b->dim == 3 ? 3 : 2;
}

static boids_status check_backend(const boids_backend *b, const char *what, boids_error *err) {
    if (!b) return boids_error_set(err, BOIDS_ERR_INPUT, "%s: the backend is NULL", what);
    return BOIDS_OK;
}

/* The backend and the parameters, for the operations that run the model. */
static boids_status check_run(const boids_backend *b, const boids_params *p, const char *what,
                              boids_error *err) {
    if (check_backend(b, what, err)) return BOIDS_ERR_INPUT;
    if (!p) return boids_error_set(err, BOIDS_ERR_INPUT, "%s: the parameters are NULL", what);
    boids_error e;
    if (boids_params_validate(p, &e) != BOIDS_OK)
        return boids_error_set(err, e.status, "%s on the %s backend: %s", what, b->ops->name,
                               e.msg);
    if (p->dim != backend_dim(b))
        return boids_error_set(err, BOIDS_ERR_INPUT,
                               "%s on the %s backend: the parameters say dim = %d but the state "
                               "is %d-D",
                               what, b->ops->name, p->dim, backend_dim(b));
    return BOIDS_OK;
}

boids_backend *boids_cpu_ref_create(const boids_flock *initial, boids_error *err) {
    if (check_state(initial, "boids_cpu_ref_create", err)) return NULL;
    return cpu_ref_backend_create(initial, err);
}

boids_backend *boids_cpu_create(const boids_flock *initial, int threads, boids_error *err) {
    if (check_state(initial, "boids_cpu_create", err)) return NULL;
    return cpu_grid_backend_create(initial, threads, err);
}

boids_status boids_backend_step(boids_backend *b, const boids_params *p, unsigned steps,
                                boids_error *err) {
    boids_status st = check_run(b, p, "step", err);
    if (st) return st;
    boids_error e;
    if (boids_interact_check_world(&b->inter, p, &e))
        return boids_error_set(err, e.status, "step on the %s backend: %s", b->ops->name, e.msg);
    if (steps == 0) return BOIDS_OK;
    if (b->tile) {
        const char *why = boids_tile_refusal(p);
        if (why)
            return boids_error_set(err, BOIDS_ERR_INPUT, "step of a tile on the %s backend: %s",
                                   b->ops->name, why);
        if (b->tile == 2 || steps > 1)
            return boids_error_set(err, BOIDS_ERR_INPUT,
                                   "step of a tile on the %s backend: a tile is stepped once per "
                                   "boids_backend_upload_tile (after a step its halo is stale); "
                                   "upload the next window",
                                   b->ops->name);
        st = b->ops->step(b, p, 1, err);
        if (!st) b->tile = 2;
        return st;
    }
    return b->ops->step(b, p, steps, err);
}

boids_status boids_backend_download(boids_backend *b, boids_flock *out, boids_error *err) {
    if (check_backend(b, "download", err) || check_flock(out, "download", err))
        return BOIDS_ERR_INPUT;
    if (boids_flock_dim(out) != backend_dim(b))
        return boids_error_set(err, BOIDS_ERR_INPUT,
                               "download: the output flock is %d-D, the %s backend %d-D",
                               boids_flock_dim(out), b->ops->name, backend_dim(b));
    if (out->n != b->n)
        return boids_error_set(err, BOIDS_ERR_INPUT,
                               "download: the output flock holds %zu boids, the %s backend %zu",
                               out->n, b->ops->name, b->n);
    return b->ops->download(b, out, err);
}

boids_status boids_backend_upload(boids_backend *b, const boids_flock *in, boids_error *err) {
    if (check_backend(b, "upload", err) || check_state(in, "upload", err)) return BOIDS_ERR_INPUT;
    if (boids_flock_dim(in) != backend_dim(b))
        return boids_error_set(err, BOIDS_ERR_INPUT,
                               "upload: a %d-D flock onto a %d-D %s backend (a backend keeps the "
                               "dimension it was created with)",
                               boids_flock_dim(in), backend_dim(b), b->ops->name);
    boids_status st = b->ops->upload(b, in, err);
    if (!st) b->tile = 0;
    return st;
}

/* The backend, and whether it steps tiles (cpu-ref does not). */
static boids_status check_tiles(const boids_backend *b, const char *what, boids_error *err) {
    if (check_backend(b, what, err)) return BOIDS_ERR_INPUT;
    if (!b->ops->tile_geom || !b->ops->upload_tile)
        return boids_error_set(err, BOIDS_ERR_INPUT,
                               "%s: the %s backend cannot step a tile; use cpu or gpu", what,
                               b->ops->name);
    return BOIDS_OK;
}

/* The fields of t that every backend reads: the whole flock's size, the box (p given: on the
 * open boundary it is needed), with the window (p NULL) its rows and the steered rows. */
static boids_status check_tile(const boids_tile *t, const boids_params *p, const char *what,
                               boids_error *err) {
    if (!t) return boids_error_set(err, BOIDS_ERR_INPUT, "%s: the tile is NULL", what);
    if (t->n_global == 0 || t->n_global >= UINT32_MAX)
        return boids_error_set(err, BOIDS_ERR_INPUT,
                               "%s: the whole flock has %zu boids (1 to %u admitted)", what,
                               t->n_global, (unsigned)(UINT32_MAX - 1));
    if (!p && (t->rows == 0 || t->steer_lo > t->steer_hi || t->steer_hi > t->rows))
        return boids_error_set(err, BOIDS_ERR_INPUT,
                               "%s: the window has %u rows and steers rows [%u, %u) of them "
                               "(need 1 row or more, steer_lo <= steer_hi <= rows)",
                               what, t->rows, t->steer_lo, t->steer_hi);
    if (p && p->boundary == BOIDS_BOUNDARY_OPEN && !t->has_box)
        return boids_error_set(err, BOIDS_ERR_INPUT,
                               "%s: the open boundary needs the whole flock's box (has_box)", what);
    if (t->has_box)
        for (int a = 0; a < 3; a++)
            if (isnan(t->box.lo[a]) || isnan(t->box.hi[a]) || !isfinite(t->box.amax))
                return boids_error_set(err, BOIDS_ERR_INPUT,
                                       "%s: the tile's box is not a number along axis %d", what, a);
    return BOIDS_OK;
}

boids_status boids_backend_tile_geom(const boids_backend *b, const boids_params *p,
                                     const boids_tile *t, grid_geomd *g, boids_error *err) {
    const char *what = "tile_geom";
    if (check_tiles(b, what, err) || check_run(b, p, what, err) || check_tile(t, p, what, err))
        return BOIDS_ERR_INPUT;
    if (!g) return boids_error_set(err, BOIDS_ERR_INPUT, "%s: the geometry is NULL", what);
    const char *why = boids_tile_refusal(p);
    if (why) return boids_error_set(err, BOIDS_ERR_INPUT, "%s: %s", what, why);
    return b->ops->tile_geom(b, p, t, g, err);
}

boids_status boids_backend_upload_tile(boids_backend *b, const boids_flock *in, const boids_tile *t,
                                       boids_error *err) {
    const char *what = "upload_tile";
    if (check_tiles(b, what, err) || check_state(in, what, err) || check_tile(t, NULL, what, err))
        return BOIDS_ERR_INPUT;
    if (boids_flock_dim(in) != backend_dim(b))
        return boids_error_set(err, BOIDS_ERR_INPUT, "%s: a %d-D flock onto a %d-D %s backend",
                               what, boids_flock_dim(in), backend_dim(b), b->ops->name);
    if (in->n > t->n_global)
        return boids_error_set(err, BOIDS_ERR_INPUT, "%s: %zu local boids of a whole flock of %zu",
                               what, in->n, t->n_global);
    if (!t->gid) return boids_error_set(err, BOIDS_ERR_INPUT, "%s: the global ids are NULL", what);
    for (size_t i = 0; i < in->n; i++) {
        if (t->gid[i] >= t->n_global)
            return boids_error_set(err, BOIDS_ERR_INPUT,
                                   "%s: local boid %zu has the global id %u, beyond the whole "
                                   "flock's %zu boids",
                                   what, i, t->gid[i], t->n_global);
    }
    boids_status st = b->ops->upload_tile(b, in, t, err);
    if (!st) b->tile = 1;
    return st;
}

boids_status boids_backend_neighbours(boids_backend *b, const boids_params *p, uint32_t *count,
                                      uint64_t *set_hash, boids_error *err) {
    boids_status st = check_run(b, p, "neighbours", err);
    if (st) return st;
    if (!count || !set_hash)
        return boids_error_set(err, BOIDS_ERR_INPUT, "neighbours: the output arrays are NULL");
    if (b->tile)
        return boids_error_set(err, BOIDS_ERR_INPUT,
                               "neighbours: the %s backend holds a tile; upload a whole flock",
                               b->ops->name);
    if (!b->ops->neighbours)
        return boids_error_set(err, BOIDS_ERR_RUNTIME,
                               "neighbours: the %s backend cannot list neighbours", b->ops->name);
    return b->ops->neighbours(b, p, count, set_hash, err);
}

boids_status boids_backend_set_interact(boids_backend *b, const boids_interact *s,
                                        boids_error *err) {
    if (check_backend(b, "set_interact", err)) return BOIDS_ERR_INPUT;
    if (s && boids_interact_check(s, "set_interact", err)) return BOIDS_ERR_INPUT;
    boids_error e;
    if (s && boids_interact_check_dim(s, backend_dim(b), &e))
        return boids_error_set(err, e.status, "set_interact on the %s backend (%d-D): %s",
                               b->ops->name, backend_dim(b), e.msg);
    if (s)
        b->inter = *s;
    else
        memset(&b->inter, 0, sizeof b->inter);
    b->inter_version++;
    return BOIDS_OK;
}

int boids_backend_has_neighbours(const boids_backend *b) {
    return b && b->ops->neighbours != NULL;
}

void boids_backend_destroy(boids_backend *b) {
    if (b) b->ops->destroy(b);
}

size_t boids_backend_n(const boids_backend *b) {
    return b ? b->n : 0;
}

const char *boids_backend_name(const boids_backend *b) {
    return b ? b->ops->name : "";
}

/* ---- assertions (check.h) -------------------------------------------------------------- */

static void assert_default(const char *condition, const char *file, int line) {
    fprintf(stderr, "boids: assertion failed: %s (%s:%d): the library was called wrongly\n",
            condition, file, line);
    abort();
}

static boids_assert_handler assert_handler = assert_default;

boids_assert_handler boids_set_assert_handler(boids_assert_handler handler) {
    boids_assert_handler old = assert_handler;
    assert_handler = handler ? handler : assert_default;
    return old;
}

int boids_asserts_enabled(void) {
#if !defined(NDEBUG) || defined(BOIDS_ENABLE_ASSERT)
    return 1;
#else
    return 0;
#endif
}

void boids_assert_fail(const char *condition, const char *file, int line) {
    assert_handler(condition, file, line);
}
