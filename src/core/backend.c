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
        const int resident = b->tile >= TILE_RESIDENT;
        if (b->tile == TILE_STEPPED || (resident && b->tile != TILE_READY) || steps > 1)
            return boids_error_set(
                err, BOIDS_ERR_INPUT,
                "step of a tile on the %s backend: a tile is stepped once per "
                "%s (after a step its halo is stale); %s",
                b->ops->name, resident ? "boids_backend_tile_halo" : "boids_backend_upload_tile",
                resident ? "set the next halo" : "upload the next window");
        st = b->ops->step(b, p, 1, err);
        if (!st) b->tile = resident ? TILE_RESIDENT : TILE_STEPPED;
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
    if (b->tile >= TILE_RESIDENT)
        return boids_error_set(err, BOIDS_ERR_INPUT,
                               "download: the %s backend holds a resident tile, whose boids are "
                               "read with boids_backend_tile_owned",
                               b->ops->name);
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
    if (!st) b->tile = TILE_NONE;
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

/* Refused: keys within a cell on a backend whose tiles are whole cells. */
static boids_status within_cells_refused(const boids_backend *b, const char *what,
                                         boids_error *err) {
    return boids_error_set(err, BOIDS_ERR_INPUT,
                           "%s: the %s backend's tiles are whole cells: it takes no ids to cut "
                           "a cell",
                           what, b->ops->name);
}

/* The fields of t that every backend reads: the whole flock's size, the box (p given: on the
 * open boundary it is needed), with the window (p NULL) its rows, the steered rows and the ids
 * that cut their end cells (only on a backend with tile_cell_ids). */
static boids_status check_tile(const boids_backend *b, const boids_tile *t, const boids_params *p,
                               const char *what, boids_error *err) {
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
    if (!p && t->steer_lo == t->steer_hi && (t->skip_lo || t->skip_hi))
        return boids_error_set(err, BOIDS_ERR_INPUT,
                               "%s: the window steers no row but skips cells of one (skip_lo %u, "
                               "skip_hi %u)",
                               what, t->skip_lo, t->skip_hi);
    if (!p && (t->id_lo || t->id_hi) && t->steer_lo == t->steer_hi)
        return boids_error_set(err, BOIDS_ERR_INPUT,
                               "%s: the window steers no row but cuts a cell by ids (id_lo %u, "
                               "id_hi %u)",
                               what, t->id_lo, t->id_hi);
    if (!p && (t->id_lo || t->id_hi) && !b->ops->tile_cell_ids)
        return within_cells_refused(b, what, err);
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
    if (check_tiles(b, what, err) || check_run(b, p, what, err) || check_tile(b, t, p, what, err))
        return BOIDS_ERR_INPUT;
    if (!g) return boids_error_set(err, BOIDS_ERR_INPUT, "%s: the geometry is NULL", what);
    const char *why = boids_tile_refusal(p);
    if (why) return boids_error_set(err, BOIDS_ERR_INPUT, "%s: %s", what, why);
    return b->ops->tile_geom(b, p, t, g, err);
}

boids_status boids_backend_upload_tile(boids_backend *b, const boids_flock *in, const boids_tile *t,
                                       boids_error *err) {
    const char *what = "upload_tile";
    if (check_tiles(b, what, err) || check_state(in, what, err) ||
        check_tile(b, t, NULL, what, err))
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
    if (!st) b->tile = TILE_UPLOADED;
    return st;
}

/* ---- resident tiles (tile.h) ----------------------------------------------------------- */

int boids_backend_tile_resident(const boids_backend *b) {
    return b && b->ops->tile_geom && b->ops->tile_start;
}

/* The backend keeps tiles resident and is at one of the modes [lo, hi] of the sequence. */
static boids_status check_resident(const boids_backend *b, const char *what, int lo, int hi,
                                   boids_error *err) {
    if (check_backend(b, what, err)) return BOIDS_ERR_INPUT;
    if (!boids_backend_tile_resident(b))
        return boids_error_set(err, BOIDS_ERR_INPUT,
                               "%s: the %s backend keeps no tile resident; use "
                               "boids_backend_upload_tile",
                               what, b->ops->name);
    if (b->tile < lo || b->tile > hi) {
        static const char *const need[] = {
            [TILE_RESIDENT] = "boids_backend_tile_start first",
            [TILE_COUNTED] = "boids_backend_tile_count first (the rows of the owned boids)",
            [TILE_READY] = "the rows counted and split, the arrivals added, before the halo"};
        return boids_error_set(err, BOIDS_ERR_INPUT, "%s on the %s backend: call %s", what,
                               b->ops->name,
                               b->tile < TILE_RESIDENT ? need[TILE_RESIDENT] : need[lo]);
    }
    return BOIDS_OK;
}

/* m records at rec of a backend of dim dim: distinct is the caller's duty; ids below n_global
 * and finite values are checked here (a NaN would spread through every neighbour). */
static boids_status check_records(const unsigned char *rec, size_t m, int dim, size_t n_global,
                                  const char *what, boids_error *err) {
    if (m && !rec) return boids_error_set(err, BOIDS_ERR_INPUT, "%s: the records are NULL", what);
    const size_t rs = BOIDS_TILE_REC(dim);
    for (size_t i = 0; i < m; i++) {
        uint32_t id;
        memcpy(&id, rec + i * rs, sizeof id);
        if (id >= n_global)
            return boids_error_set(err, BOIDS_ERR_INPUT,
                                   "%s: record %zu has the global id %u, beyond the whole flock's "
                                   "%zu boids",
                                   what, i, id, n_global);
        for (int k = 0; k < 2 * dim; k++) {
            float v;
            memcpy(&v, rec + i * rs + 4 + 4 * (size_t)k, sizeof v);
            if (!isfinite(v))
                return boids_error_set(err, BOIDS_ERR_INPUT,
                                       "%s: boid %u has a value that is not finite", what, id);
        }
    }
    return BOIDS_OK;
}

boids_status boids_backend_tile_start(boids_backend *b, const unsigned char *rec, size_t m,
                                      size_t n_global, uint32_t step, boids_error *err) {
    const char *what = "tile_start";
    if (check_resident(b, what, TILE_NONE, TILE_READY, err)) return BOIDS_ERR_INPUT;
    if (n_global == 0 || n_global >= UINT32_MAX || m > n_global)
        return boids_error_set(err, BOIDS_ERR_INPUT,
                               "%s: %zu owned boids of a whole flock of %zu (1 to %u admitted)",
                               what, m, n_global, (unsigned)(UINT32_MAX - 1));
    if (check_records(rec, m, backend_dim(b), n_global, what, err)) return BOIDS_ERR_INPUT;
    boids_status st = b->ops->tile_start(b, rec, m, n_global, step, err);
    b->tile = st ? TILE_NONE : TILE_RESIDENT;
    return st;
}

boids_status boids_backend_tile_box(boids_backend *b, grid_boxd *box, boids_error *err) {
    if (check_resident(b, "tile_box", TILE_RESIDENT, TILE_READY, err)) return BOIDS_ERR_INPUT;
    if (!box) return boids_error_set(err, BOIDS_ERR_INPUT, "tile_box: the box is NULL");
    b->ops->tile_box(b, box);
    return BOIDS_OK;
}

boids_status boids_backend_tile_count(boids_backend *b, const grid_geomd *g, uint64_t *count,
                                      uint64_t *pairs, boids_error *err) {
    const char *what = "tile_count";
    if (check_resident(b, what, TILE_RESIDENT, TILE_COUNTED, err)) return BOIDS_ERR_INPUT;
    if (!g || !count)
        return boids_error_set(err, BOIDS_ERR_INPUT, "%s: the grid or the counts are NULL", what);
    if (g->dim != backend_dim(b) || g->n[g->dim - 1] == 0)
        return boids_error_set(err, BOIDS_ERR_INPUT, "%s: a %d-D grid of %u rows for a %d-D tile",
                               what, g->dim, g->n[g->dim == 3 ? 2 : 1], backend_dim(b));
    boids_status st = b->ops->tile_count(b, g, count, pairs, err);
    if (!st) b->tile = TILE_COUNTED;
    return st;
}

boids_status boids_backend_tile_split(boids_backend *b, boids_tile_key lo, boids_tile_key hi,
                                      boids_tile_moves *out, boids_error *err) {
    const char *what = "tile_split";
    if (check_resident(b, what, TILE_COUNTED, TILE_COUNTED, err)) return BOIDS_ERR_INPUT;
    if (!out || lo.cell > hi.cell || (lo.cell == hi.cell && (hi.id == 0 || lo.id >= hi.id)))
        return boids_error_set(err, BOIDS_ERR_INPUT,
                               "%s: the keys [(cell %llu, id %u), (cell %llu, id %u)) (need lo "
                               "below hi)",
                               what, (unsigned long long)lo.cell, lo.id,
                               (unsigned long long)hi.cell, hi.id);
    if ((lo.id || hi.id) && !b->ops->tile_cell_ids) return within_cells_refused(b, what, err);
    return b->ops->tile_split(b, lo, hi, out, err);
}

boids_status boids_backend_tile_add(boids_backend *b, const unsigned char *rec, size_t m,
                                    boids_error *err) {
    const char *what = "tile_add";
    if (check_resident(b, what, TILE_RESIDENT, TILE_COUNTED, err) ||
        check_records(rec, m, backend_dim(b), UINT32_MAX, what, err))
        return BOIDS_ERR_INPUT;
    boids_status st = b->ops->tile_add(b, rec, m, err);
    if (!st && m) b->tile = TILE_RESIDENT; /* the arrivals' rows are not counted */
    return st;
}

boids_status boids_backend_tile_halo(boids_backend *b, const boids_tile *t,
                                     const unsigned char *rec, size_t m, boids_error *err) {
    const char *what = "tile_halo";
    if (check_resident(b, what, TILE_RESIDENT, TILE_READY, err) ||
        check_tile(b, t, NULL, what, err) ||
        check_records(rec, m, backend_dim(b), t->n_global, what, err))
        return BOIDS_ERR_INPUT;
    boids_status st = b->ops->tile_halo(b, t, rec, m, err);
    if (!st) b->tile = TILE_READY;
    return st;
}

int boids_backend_tile_within_cells(const boids_backend *b) {
    return boids_backend_tile_within_rows(b) && b->ops->tile_cell_ids;
}

boids_status boids_backend_tile_cell_ids(boids_backend *b, const uint64_t *cells, uint32_t nc,
                                         uint32_t *ids, size_t cap, size_t *m, boids_error *err) {
    const char *what = "tile_cell_ids";
    if (check_resident(b, what, TILE_COUNTED, TILE_COUNTED, err)) return BOIDS_ERR_INPUT;
    if (!b->ops->tile_cell_ids) return within_cells_refused(b, what, err);
    if ((nc && !cells) || (cap && !ids) || !m)
        return boids_error_set(err, BOIDS_ERR_INPUT, "%s: the cells, ids or count are NULL", what);
    return b->ops->tile_cell_ids(b, cells, nc, ids, cap, m, err);
}

int boids_backend_tile_within_rows(const boids_backend *b) {
    return boids_backend_tile_resident(b) && b->ops->tile_row_cells;
}

boids_status boids_backend_tile_row_cells(boids_backend *b, const uint32_t *rows, uint32_t nr,
                                          uint32_t *count, boids_error *err) {
    const char *what = "tile_row_cells";
    if (check_resident(b, what, TILE_COUNTED, TILE_COUNTED, err)) return BOIDS_ERR_INPUT;
    if (!b->ops->tile_row_cells)
        return boids_error_set(err, BOIDS_ERR_INPUT,
                               "%s: the %s backend's tiles are whole rows: it counts no cells",
                               what, b->ops->name);
    if (nr && (!rows || !count))
        return boids_error_set(err, BOIDS_ERR_INPUT, "%s: the rows or the counts are NULL", what);
    return b->ops->tile_row_cells(b, rows, nr, count, err);
}

boids_status boids_backend_tile_owned(boids_backend *b, boids_tile_keep keep, const void *ctx,
                                      const unsigned char **rec, size_t *m, boids_error *err) {
    const char *what = "tile_owned";
    if (check_resident(b, what, TILE_RESIDENT, TILE_READY, err)) return BOIDS_ERR_INPUT;
    if (!rec || !m) return boids_error_set(err, BOIDS_ERR_INPUT, "%s: the outputs are NULL", what);
    return b->ops->tile_owned(b, keep, ctx, rec, m, err);
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
