/* SPDX-License-Identifier: MIT */
/* One flock stepped as K tiles in one process (tile.h), against the whole flock stepped by
 * the same kind of backend: the test of the tile contract for any backend (tile_test.c on
 * cpu, the GPU's with --deterministic), given a factory that makes the backend.
 *
 * Each step starts from the current global state, as the ranks of boids-mpi would:
 *   1. the whole flock's box (open boundary) from K chunks of the boids, each added with
 *      boids_tile_box_add, merged by min and max (what an all-reduce over ranks makes);
 *   2. the geometry (boids_backend_tile_geom), the row of every boid (boids_tile_row), the
 *      cut of the rows (boids_tile_cut, or an uneven cut: tile 0 one row, the other rows
 *      shared evenly, to show that any cut of whole rows gives the same bits);
 *   3. for each tile: its window (boids_tile_window), its boids and those of its halo rows
 *      (boids_tile_window_row) in global id order (or its reverse: any order is allowed),
 *      uploaded to the tile's backend (one per tile, kept over the steps as a rank keeps
 *      its own) with the tile's rows as the steered rows, one step, download, and the
 *      steered boids written into the next global state (each boid exactly once: the
 *      tiles' rows cover the grid);
 * then, after all steps, the global state is compared with the whole flock's run byte for
 * byte: boids_flock_hash, memcmp of every array and the step count. Nothing is tolerated:
 * the contract is the same bits. */
#ifndef BOIDS_TEST_TILE_FIXTURE_H
#define BOIDS_TEST_TILE_FIXTURE_H

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "boids/backend.h"
#include "boids/flock.h"
#include "check.h"
#include "tile.h"

/* Makes a backend holding f (a whole flock or a tile's first upload); NULL with err set. */
typedef boids_backend *(*tile_factory)(const boids_flock *f, void *ctx, boids_error *err);

enum { TILE_MAX_K = 16 };

typedef struct tile_case {
    const char *name;
    boids_params p;
    const boids_interact *inter; /* NULL: none */
    const boids_flock *start;    /* the whole flock at the start */
    unsigned steps;
    int k;       /* tiles, 1 .. TILE_MAX_K */
    int uneven;  /* tile 0 one row, the other rows shared evenly by rows; else boids_tile_cut */
    int reverse; /* each tile's boids uploaded in descending id order (any order is allowed) */
    int cells;   /* the resident run's cut ends tiles within rows (1: at cells, tile_cells_cut;
                  * 2: at boids, within cells, tile_keys_cut); 0: at rows */
} tile_case;

static void tile_die(const char *name, const char *what, const boids_error *err) {
    fprintf(stderr, "%s: %s: %s\n", name, what, err->msg);
    exit(1);
}

static double *tile_axis(const boids_flock *f, int a, int vel) {
    double *const p[3] = {f->x, f->y, f->z}, *const v[3] = {f->vx, f->vy, f->vz};
    return vel ? v[a] : p[a];
}

/* The even cut of nrows rows into k tiles by rows, after a first tile of one row. */
static void tile_uneven_cut(uint32_t nrows, int k, uint32_t *cut) {
    cut[0] = 0;
    cut[1] = 1;
    for (int j = 2; j <= k; j++) cut[j] = 1 + (uint32_t)((uint64_t)(nrows - 1) * (j - 1) / (k - 1));
}

/* Runs c as tiles and as a whole flock with backends from make; CHECKs that both end with
 * the same bytes. Returns 1 when they do. */
static int tile_check_equal(const tile_case *c, tile_factory make, void *ctx) {
    boids_error err;
    const boids_flock *f0 = c->start;
    const size_t n = f0->n;
    const int dim = boids_flock_dim(f0), k = c->k;
    boids_flock cur, next, local;
    if (boids_flock_copy(&cur, f0, &err) || boids_flock_copy(&next, f0, &err) ||
        boids_flock_alloc_dim(&local, n, dim, &err))
        tile_die(c->name, "alloc", &err);
    const size_t local_cap = local.n;
    uint32_t *row = malloc(n * sizeof *row), *gid = malloc(n * sizeof *gid);
    uint8_t *done = malloc(n);
    boids_backend *tb[TILE_MAX_K] = {0};
    if (!row || !gid || !done) {
        fprintf(stderr, "%s: out of memory\n", c->name);
        exit(1);
    }
    for (int j = 0; j < k; j++) {
        if (!(tb[j] = make(f0, ctx, &err))) tile_die(c->name, "make", &err);
        if (c->inter && boids_backend_set_interact(tb[j], c->inter, &err))
            tile_die(c->name, "set_interact", &err);
    }
    unsigned tiny = 0; /* steps where some tile had a single row */
    for (unsigned s = 0; s < c->steps; s++) {
        boids_tile t = {0};
        t.n_global = n;
        t.has_box = c->p.boundary == BOIDS_BOUNDARY_OPEN;
        boids_tile_box_empty(&t.box);
        for (int j = 0; j < k; j++) { /* the box of K chunks, merged */
            grid_boxd part;
            boids_tile_box_empty(&part);
            const size_t i0 = n * (size_t)j / (size_t)k, i1 = n * (size_t)(j + 1) / (size_t)k;
            boids_flock chunk = cur;
            chunk.n = i1 - i0;
            for (int a = 0; a < dim; a++) {
                double *const pa = tile_axis(&cur, a, 0) + i0, *const va =
                                                                   tile_axis(&cur, a, 1) + i0;
                if (a == 0) chunk.x = pa, chunk.vx = va;
                if (a == 1) chunk.y = pa, chunk.vy = va;
                if (a == 2) chunk.z = pa, chunk.vz = va;
            }
            if (chunk.n) boids_tile_box_add(&part, &chunk);
            for (int a = 0; a < 3; a++) {
                t.box.lo[a] = part.lo[a] < t.box.lo[a] ? part.lo[a] : t.box.lo[a];
                t.box.hi[a] = part.hi[a] > t.box.hi[a] ? part.hi[a] : t.box.hi[a];
            }
            t.box.amax = part.amax > t.box.amax ? part.amax : t.box.amax;
        }
        grid_geomd g;
        if (boids_backend_tile_geom(tb[0], &c->p, &t, &g, &err))
            tile_die(c->name, "tile_geom", &err);
        const uint32_t nrows = g.n[dim - 1];
        uint64_t *count = calloc(nrows, sizeof *count);
        uint32_t cut[TILE_MAX_K + 1];
        if (!count) exit(1);
        const double *const last = tile_axis(&cur, dim - 1, 0);
        for (size_t i = 0; i < n; i++) count[row[i] = boids_tile_row(&g, last[i])]++;
        if (c->uneven && nrows > (uint32_t)k)
            tile_uneven_cut(nrows, k, cut);
        else if (boids_tile_cut(count, nrows, g.wrap, k, cut, &err))
            tile_die(c->name, "boids_tile_cut", &err);
        free(count);
        memset(done, 0, n);
        for (int j = 0; j < k; j++) {
            boids_tile w = {0};
            boids_tile_window(cut, k, j, nrows, g.wrap, &w);
            tiny += cut[j + 1] - cut[j] == 1;
            w.n_global = n, w.has_box = t.has_box, w.box = t.box, w.gid = gid;
            size_t m = 0;
            for (size_t q = 0; q < n; q++) {
                const size_t i = c->reverse ? n - 1 - q : q;
                if (boids_tile_window_row(&w, nrows, row[i]) >= w.rows) continue;
                for (int a = 0; a < dim; a++) {
                    tile_axis(&local, a, 0)[m] = tile_axis(&cur, a, 0)[i];
                    tile_axis(&local, a, 1)[m] = tile_axis(&cur, a, 1)[i];
                }
                gid[m++] = (uint32_t)i;
            }
            if (m == 0) continue; /* a tile without boids steps nothing */
            local.n = m;
            local.step = cur.step;
            if (boids_backend_upload_tile(tb[j], &local, &w, &err))
                tile_die(c->name, "upload_tile", &err);
            if (boids_backend_step(tb[j], &c->p, 1, &err)) tile_die(c->name, "tile step", &err);
            if (boids_backend_download(tb[j], &local, &err)) tile_die(c->name, "download", &err);
            CHECK(local.step == cur.step + 1, "%s: a tile's step count %u after step %u", c->name,
                  local.step, cur.step);
            for (size_t l = 0; l < m; l++) {
                const uint32_t i = gid[l], r = boids_tile_window_row(&w, nrows, row[i]);
                if (r < w.steer_lo || r >= w.steer_hi) continue;
                CHECK(!done[i], "%s: boid %u steered by two tiles", c->name, i);
                done[i] = 1;
                for (int a = 0; a < dim; a++) {
                    tile_axis(&next, a, 0)[i] = tile_axis(&local, a, 0)[l];
                    tile_axis(&next, a, 1)[i] = tile_axis(&local, a, 1)[l];
                }
            }
            local.n = local_cap;
        }
        size_t missed = 0;
        for (size_t i = 0; i < n; i++) missed += !done[i];
        CHECK(missed == 0, "%s: step %u: %zu boids steered by no tile", c->name, s, missed);
        next.step = cur.step + 1;
        boids_flock swap = cur;
        cur = next;
        next = swap;
    }
    /* The whole flock, all steps in one call, on a fresh backend of the kind. */
    boids_backend *whole = make(f0, ctx, &err);
    if (!whole) tile_die(c->name, "make", &err);
    if (c->inter && boids_backend_set_interact(whole, c->inter, &err))
        tile_die(c->name, "set_interact", &err);
    if (boids_backend_step(whole, &c->p, c->steps, &err)) tile_die(c->name, "whole step", &err);
    if (boids_backend_download(whole, &next, &err)) tile_die(c->name, "download", &err);
    const uint64_t ht = boids_flock_hash(&cur), hw = boids_flock_hash(&next);
    int same = ht == hw && cur.step == next.step;
    for (int a = 0; a < dim; a++)
        for (int v = 0; v < 2; v++)
            same =
                same && !memcmp(tile_axis(&cur, a, v), tile_axis(&next, a, v), n * sizeof(double));
    CHECK(same,
          "%s: %d tiles give %016" PRIx64 " (step %u), the whole flock %016" PRIx64 " (step %u)",
          c->name, k, ht, cur.step, hw, next.step);
    printf("%-34s n=%-5zu K=%d%s %u steps: %s (%016" PRIx64 ")%s\n", c->name, n, k,
           c->uneven ? " uneven" : "", c->steps, same ? "same bytes" : "DIFFERENT", ht,
           tiny ? ", with one-row tiles" : "");
    boids_backend_destroy(whole);
    for (int j = 0; j < k; j++) boids_backend_destroy(tb[j]);
    boids_flock_free(&cur);
    boids_flock_free(&next);
    boids_flock_free(&local);
    free(row);
    free(gid);
    free(done);
    return same;
}

/* ---- resident tiles (tile.h) -------------------------------------------------------------
 * The same flock as K resident tiles, as the ranks of boids-mpi keep them: each tile's
 * backend starts with the boids of its rows (records) and keeps them; each step the boxes and
 * the row counts of the K backends are merged, the rows cut (boids_tile_cut of the counts, or
 * on odd steps of the counts weighted by the row's index, so that the cut moves and many boids
 * migrate), each backend split, the boids that left added to their new tiles' backends (in
 * the order of their old tiles, as an all-to-all delivers them), each tile given the rows
 * beside it (the first and last rows of its neighbours, arrivals included) and stepped. The
 * owned boids of all tiles, read back with tile_owned, must be the whole flock's run. */

/* Appends record r to the growing array *a of *n records of rs bytes. */
static inline void tile_rec_push(unsigned char **a, size_t *n, size_t *cap, const unsigned char *r,
                                 size_t rs) {
    if (*n == *cap) {
        *cap = *cap ? 2 * *cap : 64;
        *a = realloc(*a, *cap * rs);
        if (!*a) exit(1);
    }
    memcpy(*a + *n * rs, r, rs);
    (*n)++;
}

/* A boids_tile_keep: every third global id. */
static int tile_third(const void *ctx, uint32_t gid) {
    (void)ctx;
    return gid % 3 == 0;
}

static inline float tile_rec_float(const unsigned char *r, int k) {
    float x;
    memcpy(&x, r + 4 + 4 * (size_t)k, sizeof x);
    return x;
}

typedef struct tile_recs {
    unsigned char *r;
    size_t n, cap;
} tile_recs;

/* The cell of record r in grid g. */
static size_t tile_rec_cell(const grid_geomd *g, const unsigned char *r) {
    size_t q = 0;
    for (int a = g->dim - 1; a >= 0; a--)
        q = q * g->n[a] + grid_cell_coord(tile_rec_float(r, a) - (float)g->o[a], g->s[a], g->n[a]);
    return q;
}

/* The cost model's pairs (tile.h), by brute force: per row of grid g, the sum over the cells
 * of the m records own of the boids of own a cell holds times the boids of own and of the h
 * records halo in the cells of its 3^D block (each cell once; across the seams of a wrap
 * world), into sq (nrows entries). */
static void tile_candidates(const grid_geomd *g, const unsigned char *own, size_t m,
                            const unsigned char *halo, size_t h, uint64_t *sq) {
    const int dim = g->dim;
    const uint32_t nrows = g->n[dim - 1];
    const size_t rs = 4 + 8 * (size_t)dim, plane = g->ncells / nrows;
    uint32_t *mine = calloc(g->ncells, sizeof *mine), *all = calloc(g->ncells, sizeof *all);
    if (!mine || !all) exit(1);
    memset(sq, 0, nrows * sizeof *sq);
    for (size_t i = 0; i < m; i++) {
        const size_t q = tile_rec_cell(g, own + i * rs);
        mine[q]++, all[q]++;
    }
    for (size_t i = 0; i < h; i++) all[tile_rec_cell(g, halo + i * rs)]++;
    for (size_t q = 0; q < g->ncells; q++) {
        if (!mine[q]) continue;
        int u[3] = {0};
        for (size_t v = q, a = 0; a < (size_t)dim; a++) u[a] = (int)(v % g->n[a]), v /= g->n[a];
        uint64_t block = 0;
        for (int d2 = dim == 3 ? -1 : 0; d2 <= (dim == 3 ? 1 : 0); d2++)
            for (int d1 = -1; d1 <= 1; d1++)
                for (int d0 = -1; d0 <= 1; d0++) {
                    const int d[3] = {d0, d1, d2};
                    size_t cell = 0, ok = 1;
                    for (int a = dim - 1; a >= 0 && ok; a--) {
                        const int na = (int)g->n[a];
                        int x = u[a] + d[a];
                        if (g->wrap) x = (x + na) % na;
                        /* each cell once: an axis of 1 or 2 cells has no third */
                        ok = x >= 0 && x < na && !(d[a] != 0 && x == u[a]) &&
                             !(d[a] == 1 && na == 2 && g->wrap);
                        cell = cell * (size_t)na + (size_t)x;
                    }
                    if (ok) block += all[cell];
                }
        sq[q / plane] += (uint64_t)mine[q] * block;
    }
    free(mine), free(all);
}

static int tile_same_grid(const grid_geomd *a, const grid_geomd *b) {
    int same = a->dim == b->dim && a->ncells == b->ncells && a->wrap == b->wrap;
    for (int i = 0; i < 3; i++)
        same = same && a->n[i] == b->n[i] && a->s[i] == b->s[i] && a->o[i] == b->o[i];
    return same;
}

/* tile_count of tile b into count, with the cost model's pairs (tile.h): on the cpu backend
 * the candidates of the boids it owned when it last stepped, with that step's halo (want,
 * tile_candidates before that step, in that step's grid want_g), where the grid is that one;
 * none after tile_start, on another grid, or on the gpu backend. */
static void tile_check_pairs(const tile_case *c, boids_backend *b, const grid_geomd *g,
                             uint64_t *count, const uint64_t *want, const grid_geomd *want_g) {
    boids_error err;
    const uint32_t nrows = g->n[g->dim - 1];
    uint64_t *got = calloc(nrows, sizeof *got);
    if (!got) exit(1);
    if (boids_backend_tile_count(b, g, count, got, &err)) tile_die(c->name, "tile_count", &err);
    const int some = want && !strcmp(boids_backend_name(b), "cpu") && tile_same_grid(g, want_g);
    for (uint32_t v = 0; v < nrows; v++)
        CHECK(got[v] == (some ? want[v] : 0),
              "%s: tile_count's pairs in row %u: %" PRIu64 ", the cells of the boids it stepped "
              "give %" PRIu64,
              c->name, v, got[v], some ? want[v] : 0);
    free(got);
}

/* A cut of cells in row order (tile.h) for the boids counted per cell (count, ncells
 * entries): each boundary at the first cell where the boids before it reach its even share,
 * every tile one cell at least. */
static void tile_cells_cut(const uint64_t *count, uint64_t ncells, int k, uint64_t *cut) {
    uint64_t total = 0, sum = 0, q = 0;
    for (uint64_t i = 0; i < ncells; i++) total += count[i];
    cut[0] = 0, cut[k] = ncells;
    for (int j = 1; j < k; j++) {
        while (q < ncells && sum * (uint64_t)k < total * (uint64_t)j) sum += count[q++];
        cut[j] = q > cut[j - 1] ? q : cut[j - 1] + 1;
        if (cut[j] > ncells - (uint64_t)(k - j)) cut[j] = ncells - (uint64_t)(k - j);
    }
}

/* A boid's key and its weight in the cut of tile_keys_cut. */
typedef struct tile_keyed {
    boids_tile_key key;
    uint64_t w;
} tile_keyed;

static int tile_keyed_cmp(const void *a, const void *b) {
    const boids_tile_key x = ((const tile_keyed *)a)->key, y = ((const tile_keyed *)b)->key;
    if (x.cell != y.cell) return x.cell < y.cell ? -1 : 1;
    return (x.id > y.id) - (x.id < y.id);
}

/* A cut of keys (tile.h) for the n boids b (sorted here by key): each boundary at the key of
 * the boid nearest the first where the weights before it reach its even share that is not the
 * first of its cell (so that the cut ends tiles within cells even where most cells hold a boid
 * or two), every tile one key at least. */
static void tile_keys_cut(tile_keyed *b, size_t n, uint64_t ncells, int k, boids_tile_key *cut) {
    qsort(b, n, sizeof *b, tile_keyed_cmp);
    uint64_t total = 0, sum = 0;
    size_t i = 0;
    for (size_t q = 0; q < n; q++) total += b[q].w;
    cut[0] = (boids_tile_key){0, 0}, cut[k] = (boids_tile_key){ncells, 0};
    for (int j = 1; j < k; j++) {
        while (i < n && sum * (uint64_t)k < total * (uint64_t)j) sum += b[i++].w;
        size_t at = i;
        for (size_t d = 0; d < n; d++) {
            if (i + d < n && i + d > 0 && b[i + d].key.cell == b[i + d - 1].key.cell) {
                at = i + d;
                break;
            }
            if (d < i && i - d < n && b[i - d].key.cell == b[i - d - 1].key.cell) {
                at = i - d;
                break;
            }
        }
        const boids_tile_key a = cut[j - 1];
        cut[j] = at < n ? b[at].key : (boids_tile_key){ncells, 0};
        if (cut[j].cell < a.cell || (cut[j].cell == a.cell && cut[j].id <= a.id))
            cut[j] = (boids_tile_key){a.cell + 1, 0};
        if (cut[j].cell > ncells - (uint64_t)(k - j))
            cut[j] = (boids_tile_key){ncells - (uint64_t)(k - j), 0};
    }
}

/* The cut of step s of the resident run: boids_tile_cut over the rows' counts (odd steps
 * weighted by the row, so that the cut moves), as cells; or with c->cells a cut of cells of
 * every tile's boids (own[j], m[j] records), odd steps weighted by the cell, which the case
 * checks ends some tile within a row; or with c->cells 2 a cut of keys of the boids, odd
 * steps weighted by their cells, which the case checks ends some tile within a cell. */
static void tile_resident_cut(const tile_case *c, const grid_geomd *g, uint64_t *count, int s,
                              const unsigned char *const *own, const size_t *m, int nown,
                              boids_tile_key *cut) {
    boids_error err;
    const int k = c->k, dim = g->dim;
    const uint32_t nrows = g->n[dim - 1];
    const uint64_t plane = g->ncells / nrows;
    const size_t rs = BOIDS_TILE_REC(dim);
    if (!c->cells) {
        uint32_t rows[TILE_MAX_K + 1];
        if (s % 2)
            for (uint32_t r = 0; r < nrows; r++) count[r] *= 1 + r;
        if (boids_tile_cut(count, nrows, g->wrap, k, rows, &err))
            tile_die(c->name, "boids_tile_cut", &err);
        for (int j = 0; j <= k; j++) cut[j] = (boids_tile_key){rows[j] * plane, 0};
        return;
    }
    if (c->cells == 2) {
        size_t n = 0, at = 0;
        for (int j = 0; j < nown; j++) n += m[j];
        tile_keyed *b = malloc((n ? n : 1) * sizeof *b);
        uint64_t *cells = calloc(g->ncells, sizeof *cells);
        if (!b || !cells) exit(1);
        for (int j = 0; j < nown; j++)
            for (size_t i = 0; i < m[j]; i++) {
                const unsigned char *r = own[j] + i * rs;
                uint32_t id;
                memcpy(&id, r, 4);
                const uint64_t q = tile_rec_cell(g, r);
                cells[q]++;
                b[at++] = (tile_keyed){{q, id}, s % 2 ? 1 + q % 7 : 1};
            }
        tile_keys_cut(b, n, g->ncells, k, cut);
        free(b);
        int within = 0; /* the case must show tiles that end within a cell */
        for (int j = 1; j < k; j++) {
            const uint64_t q = cut[j].cell;
            within |= cut[j].id != 0 && q < g->ncells && cells[q] > 1;
        }
        free(cells);
        CHECK(within || k == 1, "%s: step %d: the cut of keys ends every tile at a cell's end",
              c->name, s);
        return;
    }
    uint64_t *cells = calloc(g->ncells, sizeof *cells), cc[TILE_MAX_K + 1];
    if (!cells) exit(1);
    for (int j = 0; j < nown; j++)
        for (size_t i = 0; i < m[j]; i++) cells[tile_rec_cell(g, own[j] + i * rs)]++;
    if (s % 2)
        for (size_t q = 0; q < g->ncells; q++) cells[q] *= 1 + q % 7;
    tile_cells_cut(cells, g->ncells, k, cc);
    free(cells);
    int within = 0; /* the case must show tiles that end within a row */
    for (int j = 0; j <= k; j++) cut[j] = (boids_tile_key){cc[j], 0};
    for (int j = 1; j < k; j++) within |= cc[j] % plane != 0;
    CHECK(within || k == 1, "%s: step %d: the cut of cells ends every tile at a row's end", c->name,
          s);
}

/* The global id of a record. */
static inline uint32_t tile_rec_id(const unsigned char *r) {
    uint32_t id;
    memcpy(&id, r, 4);
    return id;
}

/* The resident run of c (tile.h's resident calls): each tile's boids kept in its backend,
 * the split, the moves and the halo between the tiles as boids-mpi makes them (the halo of
 * tile j: the edge rows of the other tiles that its window holds), against the whole
 * flock's run, byte for byte; the cost model's pairs against tile_candidates. */
static inline int tile_check_resident(const tile_case *c, tile_factory make, void *ctx) {
    boids_error err;
    const boids_flock *f0 = c->start;
    const size_t n = f0->n;
    const int dim = boids_flock_dim(f0), k = c->k;
    const size_t rs = BOIDS_TILE_REC(dim);
    boids_backend *tb[TILE_MAX_K] = {0};
    tile_recs arrive[TILE_MAX_K] = {{0}}, edge[TILE_MAX_K][2] = {{{0}}}, halo = {0};
    unsigned moved = 0; /* boids that changed tile, over the steps */
    boids_tile_key cut[TILE_MAX_K + 1];
    uint64_t *want[TILE_MAX_K] = {0}; /* the last step's pairs of each tile (tile_check_pairs) */
    grid_geomd want_g = {0};          /* its grid */
    int stepped = 0;                  /* a step was made since tile_start */
    for (int s = 0; s <= (int)c->steps; s++) {
        boids_tile t = {0};
        t.n_global = n;
        t.has_box = c->p.boundary == BOIDS_BOUNDARY_OPEN;
        boids_tile_box_empty(&t.box);
        for (int j = 0; j < k && s > 0; j++)
            if (boids_backend_tile_box(tb[j], &t.box, &err)) tile_die(c->name, "tile_box", &err);
        if (s == 0) { /* the start: the box of the flock, and every tile's first boids */
            boids_tile_box_add(&t.box, f0);
            for (int j = 0; j < k; j++) {
                if (!(tb[j] = make(f0, ctx, &err))) tile_die(c->name, "make", &err);
                if (c->inter && boids_backend_set_interact(tb[j], c->inter, &err))
                    tile_die(c->name, "set_interact", &err);
            }
        }
        for (int a = dim; a < 3; a++) t.box.lo[a] = t.box.hi[a] = 0;
        grid_geomd g;
        if (boids_backend_tile_geom(tb[0], &c->p, &t, &g, &err))
            tile_die(c->name, "tile_geom", &err);
        const uint32_t nrows = g.n[dim - 1];
        const uint64_t plane = g.ncells / nrows;
        uint64_t *count = calloc(nrows, sizeof *count);
        if (!count) exit(1);
        if (s == 0) { /* records of the whole flock, by the cell of each, into its tile */
            unsigned char *all = malloc(n * rs);
            if (!all) exit(1);
            for (size_t q = 0; q < n; q++) {
                const size_t i = c->reverse ? n - 1 - q : q;
                unsigned char *r = all + q * rs;
                const uint32_t id = (uint32_t)i;
                memcpy(r, &id, 4);
                for (int a = 0; a < dim; a++) {
                    const float x = (float)tile_axis(f0, a, 0)[i],
                                v = (float)tile_axis(f0, a, 1)[i];
                    memcpy(r + 4 + 4 * a, &x, 4);
                    memcpy(r + 4 + 4 * (dim + a), &v, 4);
                }
                count[tile_rec_cell(&g, r) / plane]++;
            }
            const unsigned char *own[1] = {all};
            const size_t m[1] = {n};
            tile_resident_cut(c, &g, count, 0, own, m, 1, cut);
            for (size_t q = 0; q < n; q++) {
                const unsigned char *r = all + q * rs;
                const int j = boids_tile_of_key(cut, k, tile_rec_cell(&g, r), tile_rec_id(r));
                tile_rec_push(&arrive[j].r, &arrive[j].n, &arrive[j].cap, r, rs);
            }
            free(all);
            for (int j = 0; j < k; j++) {
                if (boids_backend_tile_start(tb[j], arrive[j].r, arrive[j].n, n, f0->step, &err))
                    tile_die(c->name, "tile_start", &err);
                arrive[j].n = 0;
            }
            free(count);
            continue;
        }
        for (int j = 0; j < k; j++)
            tile_check_pairs(c, tb[j], &g, count, stepped ? want[j] : NULL, &want_g);
        { /* the cut, from the counts or from every tile's boids */
            const unsigned char *own[TILE_MAX_K];
            size_t m[TILE_MAX_K];
            for (int j = 0; j < k; j++) {
                const unsigned char *r;
                if (boids_backend_tile_owned(tb[j], NULL, NULL, &r, &m[j], &err))
                    tile_die(c->name, "tile_owned", &err);
                unsigned char *copy = malloc(m[j] * rs + 1);
                if (!copy) exit(1);
                if (m[j]) memcpy(copy, r, m[j] * rs);
                own[j] = copy;
            }
            tile_resident_cut(c, &g, count, s, own, m, k, cut);
            for (int j = 0; j < k; j++) free((void *)own[j]);
        }
        free(count);
        uint32_t er[TILE_MAX_K][4]; /* each tile's rows [er[0], er[1]) and edges er[2], er[3] */
        for (int j = 0; j < k; j++)
            boids_tile_edge_rows(cut[j], cut[j + 1], plane, &er[j][0], &er[j][1], &er[j][2]);
        for (int j = 0; j < k; j++) {
            boids_tile_moves mv;
            if (boids_backend_tile_split(tb[j], cut[j], cut[j + 1], &mv, &err))
                tile_die(c->name, "tile_split", &err);
            for (int e = 0; e < 2; e++) {
                edge[j][e].n = 0;
                for (size_t i = 0; i < mv.nedge[e]; i++)
                    tile_rec_push(&edge[j][e].r, &edge[j][e].n, &edge[j][e].cap,
                                  mv.edge[e] + i * rs, rs);
            }
            for (size_t i = 0; i < mv.nleave; i++) {
                const unsigned char *r = mv.leave + i * rs;
                const size_t cell = tile_rec_cell(&g, r);
                const int d = boids_tile_of_key(cut, k, cell, tile_rec_id(r));
                CHECK(d != j && mv.leave_row[i] == cell / plane,
                      "%s: a boid of cell %zu leaves tile %d for tile %d, said of row %u", c->name,
                      cell, j, d, mv.leave_row[i]);
                tile_rec_push(&arrive[d].r, &arrive[d].n, &arrive[d].cap, r, rs);
                moved++;
            }
        }
        for (int j = 0; j < k; j++) { /* the arrivals, and those of the edge rows in the halo */
            if (boids_backend_tile_add(tb[j], arrive[j].r, arrive[j].n, &err))
                tile_die(c->name, "tile_add", &err);
            for (size_t i = 0; i < arrive[j].n; i++) {
                const unsigned char *r = arrive[j].r + i * rs;
                const uint32_t row = (uint32_t)(tile_rec_cell(&g, r) / plane);
                if (row < er[j][2])
                    tile_rec_push(&edge[j][0].r, &edge[j][0].n, &edge[j][0].cap, r, rs);
                if (row >= er[j][3])
                    tile_rec_push(&edge[j][1].r, &edge[j][1].n, &edge[j][1].cap, r, rs);
            }
            arrive[j].n = 0;
        }
        for (int j = 0; j < k; j++) {
            boids_tile w = t;
            boids_tile_window_cells(cut, k, j, nrows, plane, g.wrap, &w);
            halo.n = 0;
            for (int i = 0; i < k && k > 1; i++) { /* the other tiles' edge rows in the window */
                if (i == j) continue;
                for (int e = 0; e < 2; e++)
                    for (size_t q = 0; q < edge[i][e].n; q++) {
                        const unsigned char *r = edge[i][e].r + q * rs;
                        const uint32_t row = (uint32_t)(tile_rec_cell(&g, r) / plane);
                        if (e == 1 && row < er[i][2]) continue; /* in both edges: sent once */
                        if (boids_tile_window_row(&w, nrows, row) < w.rows)
                            tile_rec_push(&halo.r, &halo.n, &halo.cap, r, rs);
                    }
            }
            if (boids_backend_tile_halo(tb[j], &w, halo.r, halo.n, &err))
                tile_die(c->name, "tile_halo", &err);
            { /* the boids it steps, for the next tile_count's pairs */
                const unsigned char *r;
                size_t m;
                if (boids_backend_tile_owned(tb[j], NULL, NULL, &r, &m, &err))
                    tile_die(c->name, "tile_owned", &err);
                uint64_t *q = realloc(want[j], nrows * sizeof *q);
                if (!q) exit(1);
                want[j] = q;
                tile_candidates(&g, r, m, halo.r, halo.n, want[j]);
            }
            if (boids_backend_step(tb[j], &c->p, 1, &err)) tile_die(c->name, "tile step", &err);
        }
        want_g = g, stepped = 1;
    }
    for (int j = 0; j < k; j++) free(want[j]);
    /* The owned boids of every tile into one flock, each boid exactly once. */
    boids_flock cur, whole_out;
    if (boids_flock_copy(&cur, f0, &err) || boids_flock_copy(&whole_out, f0, &err))
        tile_die(c->name, "alloc", &err);
    uint8_t *seen = calloc(n, 1);
    if (!seen) exit(1);
    size_t owned = 0;
    for (int j = 0; j < k; j++) {
        const unsigned char *r;
        size_t m;
        if (boids_backend_tile_owned(tb[j], NULL, NULL, &r, &m, &err))
            tile_die(c->name, "tile_owned", &err);
        for (size_t i = 0; i < m; i++, owned++) {
            uint32_t id;
            memcpy(&id, r + i * rs, 4);
            CHECK(id < n && !seen[id], "%s: boid %u owned twice or beyond the flock", c->name, id);
            if (id >= n) continue;
            seen[id] = 1;
            for (int a = 0; a < dim; a++) {
                tile_axis(&cur, a, 0)[id] = tile_rec_float(r + i * rs, a);
                tile_axis(&cur, a, 1)[id] = tile_rec_float(r + i * rs, dim + a);
            }
        }
    }
    CHECK(owned == n, "%s: the tiles own %zu boids of %zu", c->name, owned, n);
    /* Read back a share at a time (every third id): exactly those boids, with their values. */
    size_t kept = 0;
    for (int j = 0; j < k; j++) {
        const unsigned char *r;
        size_t m;
        if (boids_backend_tile_owned(tb[j], tile_third, NULL, &r, &m, &err))
            tile_die(c->name, "tile_owned with keep", &err);
        for (size_t i = 0; i < m; i++, kept++) {
            uint32_t id;
            memcpy(&id, r + i * rs, 4);
            int same = id < n && id % 3 == 0;
            for (int a = 0; same && a < dim; a++)
                same = tile_axis(&cur, a, 0)[id] == tile_rec_float(r + i * rs, a) &&
                       tile_axis(&cur, a, 1)[id] == tile_rec_float(r + i * rs, dim + a);
            CHECK(same, "%s: tile_owned kept boid %u, not one of every third id as read whole",
                  c->name, id);
        }
    }
    CHECK(kept == (n + 2) / 3, "%s: tile_owned kept %zu boids of the %zu with ids divisible by 3",
          c->name, kept, (n + 2) / 3);
    cur.step = f0->step + c->steps;
    boids_backend *whole = make(f0, ctx, &err);
    if (!whole) tile_die(c->name, "make", &err);
    if (c->inter && boids_backend_set_interact(whole, c->inter, &err))
        tile_die(c->name, "set_interact", &err);
    if (boids_backend_step(whole, &c->p, c->steps, &err) ||
        boids_backend_download(whole, &whole_out, &err))
        tile_die(c->name, "whole step", &err);
    const uint64_t ht = boids_flock_hash(&cur), hw = boids_flock_hash(&whole_out);
    int same = ht == hw && cur.step == whole_out.step;
    for (int a = 0; a < dim; a++)
        for (int v = 0; v < 2; v++)
            same = same &&
                   !memcmp(tile_axis(&cur, a, v), tile_axis(&whole_out, a, v), n * sizeof(double));
    CHECK(same, "%s: %d resident tiles give %016" PRIx64 ", the whole flock %016" PRIx64, c->name,
          k, ht, hw);
    printf("%-34s n=%-5zu K=%d resident%s %u steps: %s (%016" PRIx64 "), %u boids moved tile\n",
           c->name, n, k,
           c->cells == 2 ? " within cells"
           : c->cells    ? " within rows"
                         : "",
           c->steps, same ? "same bytes" : "DIFFERENT", ht, moved);
    boids_backend_destroy(whole);
    for (int j = 0; j < k; j++) {
        boids_backend_destroy(tb[j]);
        free(arrive[j].r);
        free(edge[j][0].r);
        free(edge[j][1].r);
    }
    free(halo.r);
    free(seen);
    boids_flock_free(&cur);
    boids_flock_free(&whole_out);
    return same;
}

/* A window (upload_tile) that begins, or ends, within a cell: the whole grid as the window,
 * 2000 boids of the lab, steering from (or up to) the middle id of its fullest cell. The boids
 * whose keys the window steers move as in the whole flock's step; the others keep their
 * state, those of that cell on either side of the id among them. make(f, ctx) makes the
 * backend (who names it). */
static inline void tile_check_window_ids(const char *who, tile_factory make, void *ctx) {
    boids_error err;
    boids_params p = boids_params_default();
    p.count = 2000;
    boids_flock f, whole, out;
    if (boids_flock_alloc(&f, 2000, &err) || boids_flock_alloc(&whole, 2000, &err) ||
        boids_flock_alloc(&out, 2000, &err))
        exit(1);
    boids_flock_randomize(&f, &p, 9);
    boids_backend *b = make(&f, ctx, &err);
    if (!b || boids_backend_step(b, &p, 1, &err) || boids_backend_download(b, &whole, &err))
        exit(1);
    uint32_t gid[2000];
    for (uint32_t i = 0; i < 2000; i++) gid[i] = i;
    boids_tile t = {.n_global = 2000, .rows = 1, .gid = gid};
    grid_geomd g;
    if (boids_backend_tile_geom(b, &p, &t, &g, &err)) exit(1);
    const uint64_t plane = g.ncells / g.n[1];
    uint64_t cell[2000], *n = calloc(g.ncells, sizeof *n), full = 0;
    for (uint32_t i = 0; i < 2000; i++) {
        const float x[2] = {(float)f.x[i], (float)f.y[i]};
        n[cell[i] = boids_tile_cell(&g, x)]++;
    }
    for (uint64_t q = 0; q < g.ncells; q++) full = n[q] > n[full] ? q : full;
    uint32_t mid = 0, seen = 0; /* the cell's middle id */
    for (uint32_t i = 0; i < 2000 && seen <= n[full] / 2; i++)
        if (cell[i] == full && seen++ == n[full] / 2) mid = i;
    for (int end = 0; end < 2; end++) { /* 0: steer from (full, mid) on; 1: up to it */
        const uint32_t r = (uint32_t)(full / plane), q = (uint32_t)(full % plane);
        t = (boids_tile){.n_global = 2000, .rows = g.n[1], .gid = gid};
        if (end == 0) t.steer_lo = r, t.steer_hi = g.n[1], t.skip_lo = q, t.id_lo = mid;
        if (end == 1) t.steer_hi = r + 1, t.skip_hi = (uint32_t)(plane - 1 - q), t.id_hi = mid;
        if (boids_backend_upload_tile(b, &f, &t, &err) || boids_backend_step(b, &p, 1, &err) ||
            boids_backend_download(b, &out, &err)) {
            CHECK(0, "%s: a window %s a cell: %s", who, end ? "ending within" : "beginning within",
                  err.msg);
            continue;
        }
        int right = 1, moved_in = 0, kept_in = 0;
        for (uint32_t i = 0; i < 2000; i++) {
            const int after = cell[i] > full || (cell[i] == full && i >= mid);
            const int steered = end == 0 ? after : !after;
            const boids_flock *want = steered ? &whole : &f;
            const int same =
                (float)out.x[i] == (float)want->x[i] && (float)out.y[i] == (float)want->y[i] &&
                (float)out.vx[i] == (float)want->vx[i] && (float)out.vy[i] == (float)want->vy[i];
            right &= same;
            if (cell[i] == full) moved_in += steered, kept_in += !steered;
        }
        CHECK(right && moved_in > 0 && kept_in > 0,
              "%s: a window %s cell %" PRIu64 " (%" PRIu64 " boids) at id %u: every boid as the "
              "whole flock's step or kept (%d of the cell moved, %d kept)",
              who, end ? "ending within" : "beginning within", full, n[full], mid, moved_in,
              kept_in);
    }
    printf("%s: windows beginning and ending within a cell (%" PRIu64 " boids, at id %u): the "
           "keys steered move as in the whole flock, the others keep their state\n",
           who, n[full], mid);
    free(n);
    boids_backend_destroy(b);
    boids_flock_free(&f), boids_flock_free(&whole), boids_flock_free(&out);
}

#endif
