/* SPDX-License-Identifier: MIT */
/* Tiles on the cpu backend (tile.h): a flock stepped as K tiles (tile_fixture.h) ends with
 * the bytes of the whole flock's run, in the plane and the box, under wrap, walls and the
 * open boundary, Reynolds with the interaction table and Vicsek with noise, metric and
 * topological neighbours (k_in_vision), balanced and uneven cuts, one and two threads, the
 * SIMD and the scalar kernels; and the same runs as resident tiles (tile_check_resident: the
 * cut moved every other step, so that boids migrate between the tiles). Also the cut
 * (boids_tile_cut, boids_tile_of_row), the box and the refusals. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "boids/backend.h"
#include "boids/interact.h"
#include "check.h"
#include "cpu_grid.h"
#include "tile_fixture.h"

/* ---- the cut ---------------------------------------------------------------------------- */

static uint64_t lcg(uint64_t *s) {
    *s = *s * 6364136223846793005u + 1442695040888963407u;
    return *s >> 33;
}

/* The cut's shape: from 0 to nrows, every tile at least one row, under wrap with k > 1 no
 * tile wider than nrows - 2; and boids_tile_of_row inverts it. */
static void check_cut_shape(const uint32_t *cut, uint32_t nrows, int wrap, int k,
                            const char *what) {
    CHECK(cut[0] == 0 && cut[k] == nrows, "%s: the cut runs from %u to %u of %u rows", what, cut[0],
          cut[k], nrows);
    for (int j = 0; j < k; j++) {
        CHECK(cut[j + 1] > cut[j], "%s: tile %d has rows [%u, %u)", what, j, cut[j], cut[j + 1]);
        if (wrap && k > 1)
            CHECK(cut[j + 1] - cut[j] + 2 <= nrows,
                  "%s: tile %d of %u rows and its halo in %u rows", what, j, cut[j + 1] - cut[j],
                  nrows);
    }
    for (uint32_t r = 0; r < nrows; r++) {
        const int j = boids_tile_of_row(cut, k, r);
        CHECK(j >= 0 && j < k && cut[j] <= r && r < cut[j + 1], "%s: row %u in tile %d", what, r,
              j);
    }
    /* Each window: within the grid, steering exactly its tile's rows, holding the row on
     * either side (periodically under wrap, where one exists otherwise). */
    for (int j = 0; j < k; j++) {
        boids_tile t = {0};
        boids_tile_window(cut, k, j, nrows, wrap, &t);
        CHECK(t.rows >= 1 && t.rows <= nrows && t.steer_lo < t.steer_hi && t.steer_hi <= t.rows,
              "%s: tile %d's window of %u rows from %u steers [%u, %u)", what, j, t.rows, t.row_lo,
              t.steer_lo, t.steer_hi);
        for (uint32_t r = 0; r < nrows; r++) {
            const uint32_t w = boids_tile_window_row(&t, nrows, r);
            const int own = r >= cut[j] && r < cut[j + 1];
            const int halo = wrap ? (r + 1) % nrows == cut[j] || r == cut[j + 1] % nrows
                                  : r + 1 == cut[j] || r == cut[j + 1];
            CHECK(own == (w >= t.steer_lo && w < t.steer_hi), "%s: tile %d steers row %u: %d", what,
                  j, r, !own);
            if (halo) CHECK(w < t.rows, "%s: tile %d's window lacks its halo row %u", what, j, r);
        }
    }
}

/* The least largest tile load of any cut of count's nrows rows into k tiles of at least one
 * row and at most widest rows (brute force: the best cut of the first rows into j tiles, for
 * j = 1 .. k). */
static uint64_t best_largest(const uint64_t *count, uint32_t nrows, int k, uint32_t widest) {
    enum { N = 200 };
    static uint64_t best[TILE_MAX_K + 1][N + 1];
    for (int j = 0; j <= k; j++)
        for (uint32_t r = 0; r <= nrows; r++) best[j][r] = UINT64_MAX;
    best[0][0] = 0;
    for (int j = 1; j <= k; j++)
        for (uint32_t r = 1; r <= nrows; r++) {
            uint64_t load = 0;
            for (uint32_t s = r; s-- > 0 && r - s <= widest;) {
                load += count[s];
                if (best[j - 1][s] == UINT64_MAX) continue;
                const uint64_t m = best[j - 1][s] > load ? best[j - 1][s] : load;
                if (m < best[j][r]) best[j][r] = m;
            }
        }
    return best[k][nrows];
}

static void test_cut(void) {
    boids_error err;
    uint64_t seed = 21;
    uint64_t count[200];
    uint32_t cut[TILE_MAX_K + 1];
    /* Balance: rows of 0 to 100 boids, or a few dense rows among light ones (a gathering
     * flock), 1 to 8 tiles: the largest tile's load is the least that any cut of whole rows
     * into k tiles allows (a brute-force search says which), so within one row's count of
     * total / k. */
    for (int trial = 0; trial < 400; trial++) {
        const uint32_t nrows = (trial % 2 ? 8 : 40) + (uint32_t)(lcg(&seed) % 160);
        const int k = 1 + (int)(lcg(&seed) % 8), wrap = (int)(lcg(&seed) % 2);
        const int clumped = trial % 4 >= 2;
        uint64_t total = 0, most = 0;
        for (uint32_t r = 0; r < nrows; r++) {
            count[r] = clumped ? (lcg(&seed) % 10 == 0 ? 1000 + lcg(&seed) % 9000 : lcg(&seed) % 20)
                               : lcg(&seed) % 101;
            total += count[r];
            most = count[r] > most ? count[r] : most;
        }
        if (wrap && k > 1 && nrows < 4) continue;
        CHECK(!boids_tile_cut(count, nrows, wrap, k, cut, &err), "cut: %s", err.msg);
        check_cut_shape(cut, nrows, wrap, k, "balanced cut");
        uint64_t largest = 0;
        for (int j = 0; j < k; j++) {
            uint64_t load = 0;
            for (uint32_t r = cut[j]; r < cut[j + 1]; r++) load += count[r];
            largest = load > largest ? load : largest;
        }
        const uint64_t best = best_largest(count, nrows, k, wrap && k > 1 ? nrows - 2 : nrows);
        CHECK(largest == best,
              "trial %d (%u rows, %d tiles, wrap %d): the largest tile holds %llu, the best cut's "
              "%llu",
              trial, nrows, k, wrap, (unsigned long long)largest, (unsigned long long)best);
        CHECK((double)largest - (double)total / k <= (double)most,
              "trial %d: the largest tile holds %llu, the even share %.1f, a row at most %llu",
              trial, (unsigned long long)largest, (double)total / k, (unsigned long long)most);
    }
    /* Every boid in one row, or none at all: still whole rows, at least one each, and under
     * wrap each tile with its halo within the grid. */
    for (uint32_t nrows = 1; nrows <= 12; nrows++)
        for (int wrap = 0; wrap <= 1; wrap++)
            for (int k = 1; k <= 12; k++) {
                const int admitted =
                    wrap ? (k == 1 || (nrows >= 4 && (uint32_t)k <= nrows)) : (uint32_t)k <= nrows;
                for (uint32_t hot = 0; hot <= nrows; hot++) { /* hot == nrows: no boids */
                    for (uint32_t r = 0; r < nrows; r++) count[r] = r == hot ? 1000 : 0;
                    boids_error_clear(&err);
                    const boids_status st = boids_tile_cut(count, nrows, wrap, k, cut, &err);
                    CHECK(admitted ? st == BOIDS_OK : st == BOIDS_ERR_INPUT,
                          "%u rows, wrap %d, %d tiles: status %d (%s)", nrows, wrap, k, st,
                          err.msg);
                    if (st == BOIDS_OK) check_cut_shape(cut, nrows, wrap, k, "one-row flock");
                    if (!admitted)
                        CHECK(strstr(err.msg, "at most") && strstr(err.msg, "fewer ranks"),
                              "the refusal says how many ranks and what to change: %s", err.msg);
                }
            }
    CHECK(boids_tile_cut(count, 5, 0, 0, cut, &err) == BOIDS_ERR_INPUT, "0 tiles refused");
    CHECK(boids_tile_cut(NULL, 5, 0, 2, cut, &err) == BOIDS_ERR_INPUT, "NULL counts refused");
    printf("cut: the least largest tile of whole rows, the wrap bound, refusals\n");
}

/* The merge of ascending runs (a cut cell's ids, one run a rank): qsort's order for 1 to 9
 * runs of 0 to 40 values each, duplicates and empty runs among them. */
static void test_merge_runs(void) {
    uint64_t seed = 5;
    uint32_t a[400], tmp[400], want[400];
    size_t run[10];
    for (int trial = 0; trial < 300; trial++) {
        const int k = 1 + (int)(lcg(&seed) % 9);
        size_t n = 0;
        for (int r = 0; r < k; r++) {
            const size_t len = trial % 3 == 0 && r % 2 ? 0 : lcg(&seed) % 41;
            run[r] = n;
            for (size_t i = 0; i < len; i++) a[n + i] = (uint32_t)(lcg(&seed) % 200);
            qsort(a + n, len, sizeof *a, boids_tile_cmp_u32);
            n += len;
        }
        run[k] = n;
        memcpy(want, a, n * sizeof *a);
        qsort(want, n, sizeof *want, boids_tile_cmp_u32);
        boids_tile_merge_runs(a, tmp, run, k);
        CHECK(!memcmp(a, want, n * sizeof *a),
              "trial %d: %d runs of %zu values merged out of order", trial, k, n);
    }
    printf("merge_runs: 300 sets of 1 to 9 ascending runs in qsort's order\n");
}

/* ---- the box ---------------------------------------------------------------------------- */

static void test_box(void) {
    boids_error err;
    boids_flock f;
    if (boids_flock_alloc_dim(&f, 3, 3, &err)) exit(1);
    const double v[3][3] = {{0.1, -2.5, 7}, {1e10 + 1, 3, -0.3}, {5, 5, 5}};
    for (size_t i = 0; i < 3; i++) f.x[i] = v[0][i], f.y[i] = v[1][i], f.z[i] = v[2][i];
    grid_boxd whole, a;
    boids_tile_box_empty(&whole);
    boids_tile_box_add(&whole, &f);
    CHECK(whole.lo[0] == (double)(float)-2.5 && whole.hi[0] == 7, "x from %g to %g", whole.lo[0],
          whole.hi[0]);
    CHECK(whole.lo[1] == (double)(float)-0.3 && whole.hi[1] == (double)(float)(1e10 + 1),
          "y: the float positions (%.17g, %.17g)", whole.lo[1], whole.hi[1]);
    CHECK(whole.amax == (double)(float)1e10, "amax %.17g", whole.amax);
    /* Two parts added into one box give the same box. */
    boids_tile_box_empty(&a);
    boids_flock part = f;
    part.n = 1;
    boids_tile_box_add(&a, &part);
    part.x++, part.y++, part.z++, part.vx++, part.vy++, part.vz++;
    part.n = 2;
    boids_tile_box_add(&a, &part);
    CHECK(!memcmp(&a, &whole, sizeof a), "the box of two parts is the box of the whole");
    boids_flock_free(&f);
    printf("box: float positions, any split of the flock\n");
}

/* ---- refusals --------------------------------------------------------------------------- */

/* What make_cpu_tile makes: the threads, and the scalar kernel (that of processors without
 * AVX2) or the fastest. */
typedef struct cpu_kind {
    int threads, scalar;
} cpu_kind;

static boids_backend *make_cpu_tile(const boids_flock *f, void *ctx, boids_error *err) {
    const cpu_kind *kind = ctx;
    boids_backend *b = boids_cpu_create(f, kind->threads, err);
    if (b) boids_cpu_fixed_threads(b, 1); /* each thread count runs as asked */
    if (b) boids_cpu_force_scalar(b, kind->scalar);
    return b;
}

/* The refusals' flock of 300 boids in the default world, on cpu-ref and on cpu. */
static void refusal_setup(boids_params *p, boids_flock *f, boids_backend **ref,
                          boids_backend **cpu) {
    boids_error err;
    *p = boids_params_default();
    p->count = 300;
    if (boids_flock_alloc(f, 300, &err)) exit(1);
    boids_flock_randomize(f, p, 5);
    cpu_kind kind = {1, 0};
    *ref = boids_cpu_ref_create(f, &err);
    *cpu = make_cpu_tile(f, &kind, &err);
    if (!*ref || !*cpu) exit(1);
}

static void test_refusals(void) {
    boids_error err;
    boids_params p;
    boids_flock f;
    boids_backend *ref, *cpu;
    refusal_setup(&p, &f, &ref, &cpu);
    uint32_t gid[300];
    for (uint32_t i = 0; i < 300; i++) gid[i] = i;
    boids_tile t = {300, 0, 1, 0, 1, 0, {{0}, {0}, 0}, gid, 0, 0, 0, 0};
    grid_geomd g;
    CHECK(boids_backend_tile_geom(ref, &p, &t, &g, &err) == BOIDS_ERR_INPUT &&
              strstr(err.msg, "cpu-ref backend cannot step a tile; use cpu or gpu"),
          "cpu-ref: %s", err.msg);
    CHECK(boids_backend_upload_tile(ref, &f, &t, &err) == BOIDS_ERR_INPUT &&
              strstr(err.msg, "cannot step a tile"),
          "cpu-ref upload: %s", err.msg);
    CHECK(!boids_backend_tile_geom(cpu, &p, &t, &g, &err), "tile_geom: %s", err.msg);
    t.rows = g.n[1];
    t.steer_hi = g.n[1];
    /* Global ids: NULL, beyond the flock (any order is allowed: the cases below upload
     * some tiles in descending order). */
    t.gid = NULL;
    CHECK(boids_backend_upload_tile(cpu, &f, &t, &err) == BOIDS_ERR_INPUT, "NULL gid");
    t.gid = gid;
    gid[7] = 300;
    CHECK(boids_backend_upload_tile(cpu, &f, &t, &err) == BOIDS_ERR_INPUT &&
              strstr(err.msg, "local boid 7") && strstr(err.msg, "beyond"),
          "an id beyond the flock: %s", err.msg);
    gid[7] = 7;
    t.n_global = 299;
    CHECK(boids_backend_upload_tile(cpu, &f, &t, &err) == BOIDS_ERR_INPUT, "n_global below n");
    t.n_global = 300;
    t.steer_hi = t.rows + 1;
    CHECK(boids_backend_upload_tile(cpu, &f, &t, &err) == BOIDS_ERR_INPUT &&
              strstr(err.msg, "steers rows"),
          "steered rows beyond the window: %s", err.msg);
    t.steer_hi = t.rows;
    /* The whole grid as one window: accepted, one step, then no second. */
    CHECK(!boids_backend_upload_tile(cpu, &f, &t, &err), "whole window: %s", err.msg);
    CHECK(boids_backend_step(cpu, &p, 2, &err) == BOIDS_ERR_INPUT && strstr(err.msg, "once"),
          "two steps of a tile: %s", err.msg);
    uint32_t cnt[300];
    uint64_t hs[300];
    CHECK(boids_backend_neighbours(cpu, &p, cnt, hs, &err) == BOIDS_ERR_INPUT,
          "neighbours of a tile: %s", err.msg);
    CHECK(!boids_backend_step(cpu, &p, 1, &err), "one step: %s", err.msg);
    CHECK(boids_backend_step(cpu, &p, 1, &err) == BOIDS_ERR_INPUT && strstr(err.msg, "stale"),
          "a second step: %s", err.msg);
    /* A window of rows 0 .. 2 under wrap steering row 0: its halo row below is missing. */
    CHECK(!boids_backend_upload_tile(
              cpu, &f, &(boids_tile){300, 0, 3, 0, 2, 0, t.box, gid, 0, 0, 0, 0}, &err),
          "upload: %s", err.msg);
    CHECK(boids_backend_step(cpu, &p, 1, &err) == BOIDS_ERR_INPUT && strstr(err.msg, "halo row"),
          "missing halo: %s", err.msg);
    /* A window of 3 rows holding boids of every row: the first outside is named. */
    CHECK(!boids_backend_upload_tile(
              cpu, &f, &(boids_tile){300, 0, 3, 1, 2, 0, t.box, gid, 0, 0, 0, 0}, &err),
          "upload: %s", err.msg);
    CHECK(boids_backend_step(cpu, &p, 1, &err) == BOIDS_ERR_INPUT && strstr(err.msg, "outside") &&
              strstr(err.msg, "global row"),
          "a boid outside the window: %s", err.msg);
    CHECK(!boids_backend_upload_tile(
              cpu, &f, &(boids_tile){300, 0, g.n[1] + 1, 1, 2, 0, t.box, gid, 0, 0, 0, 0}, &err),
          "upload: %s", err.msg);
    CHECK(boids_backend_step(cpu, &p, 1, &err) == BOIDS_ERR_INPUT && strstr(err.msg, "window"),
          "a window wider than the grid: %s", err.msg);
    /* A tile of cells in row order: skips of a row's cells or more, or of every steered cell,
     * are refused at the step; a skip without steered rows at the upload. */
    const uint32_t P = g.n[0], skips[][2] = {{P, 0}, {0, P}, {P / 2, P - P / 2}};
    for (int i = 0; i < 3; i++) {
        CHECK(!boids_backend_upload_tile(
                  cpu, &f,
                  &(boids_tile){300, 0, 3, 1, 2, 0, t.box, gid, skips[i][0], skips[i][1], 0, 0},
                  &err),
              "upload: %s", err.msg);
        CHECK(boids_backend_step(cpu, &p, 1, &err) == BOIDS_ERR_INPUT &&
                  strstr(err.msg, "cells of its first row") && strstr(err.msg, "one cell at least"),
              "skips %u and %u of rows of %u cells: %s", skips[i][0], skips[i][1], P, err.msg);
    }
    CHECK(boids_backend_upload_tile(cpu, &f,
                                    &(boids_tile){300, 0, 3, 1, 1, 0, t.box, gid, 1, 0, 0, 0},
                                    &err) == BOIDS_ERR_INPUT &&
              strstr(err.msg, "steers no row"),
          "a skip without steered rows: %s", err.msg);
    /* Topological neighbours without k_in_vision: refused with the reason and the fix. */
    p.neighbours = BOIDS_NEIGHBOURS_TOPOLOGICAL;
    p.k = 7;
    p.k_in_vision = 0;
    const char *why = boids_tile_refusal(&p);
    CHECK(why && strstr(why, "set k_in_vision=1"), "refusal: %s", why ? why : "(none)");
    CHECK(boids_backend_tile_geom(cpu, &p, &t, &g, &err) == BOIDS_ERR_INPUT &&
              strstr(err.msg, "k_in_vision=1"),
          "tile_geom, topological: %s", err.msg);
    CHECK(!boids_backend_upload_tile(cpu, &f, &t, &err), "upload: %s", err.msg);
    CHECK(boids_backend_step(cpu, &p, 1, &err) == BOIDS_ERR_INPUT &&
              strstr(err.msg, "k_in_vision=1"),
          "step, topological: %s", err.msg);
    p.k_in_vision = 1;
    CHECK(boids_tile_refusal(&p) == NULL, "k_in_vision bounds the reach");
    p.neighbours = BOIDS_NEIGHBOURS_METRIC;
    CHECK(boids_tile_refusal(&p) == NULL, "metric neighbours have a reach");
    /* The open boundary needs the box. */
    p.boundary = BOIDS_BOUNDARY_OPEN;
    CHECK(boids_backend_tile_geom(cpu, &p, &t, &g, &err) == BOIDS_ERR_INPUT &&
              strstr(err.msg, "box"),
          "open without a box: %s", err.msg);
    /* An upload of the whole flock ends tile mode. */
    p.boundary = BOIDS_BOUNDARY_WRAP;
    CHECK(!boids_backend_upload(cpu, &f, &err) && !boids_backend_step(cpu, &p, 2, &err),
          "whole flock again: %s", err.msg);
    boids_backend_destroy(ref);
    boids_backend_destroy(cpu);
    boids_flock_free(&f);
    printf("refusals: cpu-ref, global ids, windows, steps, topological without k_in_vision\n");
}

/* The resident calls out of their order, and the whole flock's calls on a resident tile. */
static void test_resident_refusals(void) {
    boids_error err;
    boids_params p;
    boids_flock f;
    boids_backend *ref, *cpu;
    refusal_setup(&p, &f, &ref, &cpu);
    unsigned char rec[300 * BOIDS_TILE_REC(2)];
    for (uint32_t i = 0; i < 300; i++) {
        const float v[4] = {(float)f.x[i], (float)f.y[i], (float)f.vx[i], (float)f.vy[i]};
        memcpy(rec + i * BOIDS_TILE_REC(2), &i, 4);
        memcpy(rec + i * BOIDS_TILE_REC(2) + 4, v, sizeof v);
    }
    CHECK(!boids_backend_tile_resident(ref) && boids_backend_tile_resident(cpu),
          "cpu keeps tiles resident, cpu-ref does not");
    CHECK(boids_backend_tile_start(ref, rec, 300, 300, 0, &err) == BOIDS_ERR_INPUT &&
              strstr(err.msg, "upload_tile"),
          "cpu-ref: %s", err.msg);
    boids_tile_moves mv;
    CHECK(boids_backend_tile_split(cpu, (boids_tile_key){0, 0}, (boids_tile_key){1, 0}, &mv,
                                   &err) == BOIDS_ERR_INPUT &&
              strstr(err.msg, "tile_start"),
          "a split before the start: %s", err.msg);
    const uint32_t beyond = 300, seven = 7;
    memcpy(rec + 7 * BOIDS_TILE_REC(2), &beyond, 4);
    CHECK(boids_backend_tile_start(cpu, rec, 300, 300, 0, &err) == BOIDS_ERR_INPUT &&
              strstr(err.msg, "record 7") && strstr(err.msg, "beyond"),
          "an id beyond the flock: %s", err.msg);
    memcpy(rec + 7 * BOIDS_TILE_REC(2), &seven, 4);
    CHECK(boids_backend_tile_start(cpu, rec, 300, 299, 0, &err) == BOIDS_ERR_INPUT,
          "more owned boids than the flock: %s", err.msg);
    float nan = NAN;
    memcpy(rec + 7 * BOIDS_TILE_REC(2) + 8, &nan, 4);
    CHECK(boids_backend_tile_start(cpu, rec, 300, 300, 0, &err) == BOIDS_ERR_INPUT &&
              strstr(err.msg, "boid 7") && strstr(err.msg, "not finite"),
          "a value that is not finite: %s", err.msg);
    const float y7 = (float)f.y[7];
    memcpy(rec + 7 * BOIDS_TILE_REC(2) + 8, &y7, 4);
    CHECK(!boids_backend_tile_start(cpu, rec, 300, 300, 0, &err), "start: %s", err.msg);
    CHECK(boids_backend_tile_split(cpu, (boids_tile_key){0, 0}, (boids_tile_key){1, 0}, &mv,
                                   &err) == BOIDS_ERR_INPUT &&
              strstr(err.msg, "tile_count"),
          "a split before the count: %s", err.msg);
    CHECK(boids_backend_step(cpu, &p, 1, &err) == BOIDS_ERR_INPUT && strstr(err.msg, "halo"),
          "a step before the halo: %s", err.msg);
    /* The cells of rows (the cut within rows): after a count, of rows in the grid, once each;
     * every owned boid counted where the rows are all of them. */
    uint32_t rows[2] = {0, 0}, cnt[8] = {0};
    CHECK(boids_backend_tile_row_cells(cpu, rows, 1, cnt, &err) == BOIDS_ERR_INPUT &&
              strstr(err.msg, "tile_count"),
          "cells counted before the rows: %s", err.msg);
    {
        boids_tile w = {300, 0, 1, 0, 1, 0, {{0}, {0}, 0}, NULL, 0, 0, 0, 0};
        grid_geomd gw;
        CHECK(!boids_backend_tile_geom(cpu, &p, &w, &gw, &err), "geom: %s", err.msg);
        uint64_t *per_row = calloc(gw.n[1], sizeof *per_row);
        uint32_t *all = calloc(gw.ncells, sizeof *all), *list = malloc(gw.n[1] * sizeof *list);
        CHECK(per_row && all && list && !boids_backend_tile_count(cpu, &gw, per_row, NULL, &err),
              "count: %s", err.msg);
        for (uint32_t r = 0; r < gw.n[1]; r++) list[r] = gw.n[1] - 1 - r; /* any order */
        CHECK(!boids_backend_tile_row_cells(cpu, list, gw.n[1], all, &err), "cells: %s", err.msg);
        uint64_t sum = 0;
        for (size_t q = 0; q < gw.ncells; q++) sum += all[q];
        CHECK(sum == 300, "the cells of every row hold %" PRIu64 " of the 300 owned boids", sum);
        rows[0] = gw.n[1];
        CHECK(boids_backend_tile_row_cells(cpu, rows, 1, cnt, &err) == BOIDS_ERR_INPUT &&
                  strstr(err.msg, "beyond"),
              "a row beyond the grid: %s", err.msg);
        rows[0] = 1, rows[1] = 1;
        CHECK(boids_backend_tile_row_cells(cpu, rows, 2, all, &err) == BOIDS_ERR_INPUT &&
                  strstr(err.msg, "twice"),
              "a row named twice: %s", err.msg);
        /* The ids of cells (the cut within cells): those of every cell are the 300 owned
         * boids, each cell's ascending; cells out of order, beyond the grid or too little room
         * are refused. */
        uint64_t *every = malloc(gw.ncells * sizeof *every);
        uint32_t ids[300];
        size_t m = 0;
        for (size_t q = 0; q < gw.ncells; q++) every[q] = q;
        CHECK(every &&
                  !boids_backend_tile_cell_ids(cpu, every, (uint32_t)gw.ncells, ids, 300, &m, &err),
              "ids: %s", err.msg);
        uint64_t seen[5] = {0};
        size_t at = 0;
        int ascending = 1;
        for (size_t q = 0; q < gw.ncells; q++) { /* all: the rows as listed, the last first */
            const uint32_t here = all[(gw.n[1] - 1 - q / gw.n[0]) * gw.n[0] + q % gw.n[0]];
            for (uint32_t i = 1; i < here; i++) ascending &= ids[at + i - 1] < ids[at + i];
            at += here;
        }
        for (size_t i = 0; i < m; i++) seen[ids[i] / 64] |= 1ull << (ids[i] % 64);
        int each = 1;
        for (uint32_t i = 0; i < 300; i++) each &= (int)(seen[i / 64] >> (i % 64)) & 1;
        CHECK(m == 300 && at == 300 && ascending && each,
              "the ids of every cell: %zu of the 300 owned boids, each once %d, each cell's "
              "ascending %d",
              m, each, ascending);
        const uint64_t backwards[2] = {1, 0}, past[1] = {gw.ncells};
        CHECK(boids_backend_tile_cell_ids(cpu, backwards, 2, ids, 300, &m, &err) ==
                      BOIDS_ERR_INPUT &&
                  strstr(err.msg, "not above"),
              "cells out of order: %s", err.msg);
        CHECK(boids_backend_tile_cell_ids(cpu, past, 1, ids, 300, &m, &err) == BOIDS_ERR_INPUT &&
                  strstr(err.msg, "beyond"),
              "a cell beyond the grid: %s", err.msg);
        CHECK(boids_backend_tile_cell_ids(cpu, every, (uint32_t)gw.ncells, ids, 299, &m, &err) ==
                      BOIDS_ERR_INPUT &&
                  strstr(err.msg, "room for 299"),
              "ids without room for them: %s", err.msg);
        CHECK(boids_backend_tile_split(cpu, (boids_tile_key){3, 9}, (boids_tile_key){3, 9}, &mv,
                                       &err) == BOIDS_ERR_INPUT &&
                  strstr(err.msg, "need lo below hi"),
              "an empty range of keys: %s", err.msg);
        free(every);
        free(per_row), free(all), free(list);
    }
    boids_flock out = f;
    CHECK(boids_backend_download(cpu, &out, &err) == BOIDS_ERR_INPUT &&
              strstr(err.msg, "tile_owned"),
          "download of a resident tile: %s", err.msg);
    boids_tile t = {300, 0, 1, 0, 1, 0, {{0}, {0}, 0}, NULL, 0, 0, 0, 0};
    grid_geomd g;
    CHECK(!boids_backend_tile_geom(cpu, &p, &t, &g, &err), "geom: %s", err.msg);
    t.rows = t.steer_hi = g.n[1];
    CHECK(!boids_backend_tile_halo(cpu, &t, NULL, 0, &err) && !boids_backend_step(cpu, &p, 1, &err),
          "the whole grid as the window: %s", err.msg);
    CHECK(boids_backend_step(cpu, &p, 1, &err) == BOIDS_ERR_INPUT && strstr(err.msg, "halo"),
          "a second step without a halo: %s", err.msg);
    /* An owned boid outside the steered rows is named, not lost. */
    t.steer_hi = t.rows - 1;
    CHECK(!boids_backend_tile_halo(cpu, &t, NULL, 0, &err), "halo: %s", err.msg);
    CHECK(boids_backend_step(cpu, &p, 1, &err) == BOIDS_ERR_INPUT && strstr(err.msg, "owns 300"),
          "an owned boid in a row not steered: %s", err.msg);
    /* An upload of the whole flock ends resident mode. */
    CHECK(!boids_backend_upload(cpu, &f, &err) && !boids_backend_step(cpu, &p, 2, &err) &&
              !boids_backend_download(cpu, &out, &err),
          "the whole flock again: %s", err.msg);
    boids_backend_destroy(cpu);
    boids_backend_destroy(ref);
    boids_flock_free(&f);
    printf("resident refusals: the order of the calls, ids, values, rows not steered, cells of "
           "rows, ids of cells\n");
}

/* ---- the tiles' steps ------------------------------------------------------------------- */

/* A predator, an attractor and an obstacle (a circle in the plane, a sphere in the box)
 * inside the flock. */
static boids_interact table_for(const boids_params *p) {
    boids_interact t;
    boids_interact_default(&t, p);
    t.predators[0] = (boids_point){1, p->width * 0.3, p->height * 0.6, 90, 2, p->depth * 0.4};
    t.attractors[0] = (boids_point){1, p->width * 0.7, p->height * 0.3, 120, 1, p->depth * 0.6};
    t.obstacle_count = 1;
    t.obstacles[0] = (boids_obstacle){p->dim == 3 ? BOIDS_OBSTACLE_SPHERE : BOIDS_OBSTACLE_CIRCLE,
                                      p->width * 0.5,
                                      p->height * 0.5,
                                      0,
                                      0,
                                      40,
                                      p->depth * 0.5};
    return t;
}

typedef struct run {
    const char *name;
    int dim, boundary, vicsek, topo, table;
    int k, uneven, threads, scalar;
    size_t n;
    double height; /* 0: the default's */
    int cells;     /* the resident tiles cut within rows: 1 at cells, 2 at boids (tile_case) */
} run;

static void run_case(const run *r) {
    boids_error err;
    boids_params p = boids_params_default();
    p.dim = r->dim;
    p.boundary = r->boundary;
    if (r->dim == 3) p.width = 400, p.height = 300, p.depth = 450;
    if (r->height > 0) p.height = r->height;
    p.count = (long)r->n;
    if (r->vicsek) {
        p.model = BOIDS_MODEL_VICSEK;
        p.noise = 1.0;
        p.noise_seed = 11;
        p.speed = 120;
    }
    if (r->topo) {
        p.neighbours = BOIDS_NEIGHBOURS_TOPOLOGICAL;
        p.k = 7;
        p.k_in_vision = 1;
    }
    boids_flock f;
    if (boids_flock_alloc_dim(&f, r->n, r->dim, &err)) exit(1);
    boids_flock_randomize(&f, &p, 1234 + r->n);
    const boids_interact t = table_for(&p);
    /* The uneven and topological cases upload their tiles in descending id order. */
    tile_case c = {r->name, p,         r->table ? &t : NULL, &f,      24,
                   r->k,    r->uneven, r->uneven || r->topo, r->cells};
    cpu_kind kind = {r->threads, r->scalar};
    if (!r->cells) tile_check_equal(&c, make_cpu_tile, &kind); /* windows of whole rows */
    tile_check_resident(&c, make_cpu_tile, &kind);
    boids_flock_free(&f);
}

int main(void) {
    test_cut();
    test_merge_runs();
    test_box();
    test_refusals();
    test_resident_refusals();
    cpu_kind one = {1, 0};
    tile_check_window_ids("cpu", make_cpu_tile, &one);
    enum { W = BOIDS_BOUNDARY_WRAP, L = BOIDS_BOUNDARY_WALLS, O = BOIDS_BOUNDARY_OPEN };
    static const run runs[] = {
        /* name, dim, boundary, vicsek, topological, table, k, uneven, threads, scalar, n, height */
        {"2d wrap reynolds table", 2, W, 0, 0, 1, 2, 0, 1, 0, 1500, 0, 0},
        {"2d wrap reynolds whole grid", 2, W, 0, 0, 1, 1, 0, 1, 0, 1000, 0, 0},
        /* 4 rows under wrap: two tiles of 2 rows, each window all 4 rows from row_lo 1 or 3 */
        {"2d wrap 4 rows reynolds", 2, W, 0, 0, 1, 2, 0, 1, 0, 800, 220, 0},
        {"2d wrap 4 rows vicsek", 2, W, 1, 0, 0, 2, 0, 1, 0, 800, 220, 0},
        {"2d walls reynolds table", 2, L, 0, 0, 1, 3, 0, 1, 0, 1500, 0, 0},
        {"2d open reynolds table", 2, O, 0, 0, 1, 4, 0, 1, 0, 1500, 0, 0},
        {"2d wrap vicsek noise", 2, W, 1, 0, 0, 3, 0, 1, 0, 1500, 0, 0},
        {"2d walls vicsek uneven", 2, L, 1, 0, 0, 3, 1, 1, 0, 1500, 0, 0},
        {"2d open vicsek", 2, O, 1, 0, 0, 2, 0, 1, 0, 1500, 0, 0},
        {"2d wrap reynolds threads", 2, W, 0, 0, 1, 2, 0, 2, 0, 4500, 0, 0},
        {"2d wrap topological reynolds", 2, W, 0, 1, 1, 3, 0, 1, 0, 1500, 0, 0},
        {"2d walls topological vicsek", 2, L, 1, 1, 0, 4, 1, 1, 0, 1500, 0, 0},
        {"3d wrap reynolds table", 3, W, 0, 0, 1, 3, 0, 1, 0, 2000, 0, 0},
        {"3d walls vicsek noise", 3, L, 1, 0, 0, 2, 0, 1, 0, 2000, 0, 0},
        {"3d open reynolds table", 3, O, 0, 0, 1, 4, 0, 1, 0, 2000, 0, 0},
        {"3d wrap vicsek uneven", 3, W, 1, 0, 0, 4, 1, 1, 0, 2000, 0, 0},
        {"3d wrap topological vicsek", 3, W, 1, 1, 0, 2, 0, 1, 0, 2000, 0, 0},
        {"3d open topological reynolds", 3, O, 0, 1, 1, 3, 0, 1, 0, 2000, 0, 0},
        {"3d walls reynolds threads", 3, L, 0, 0, 1, 2, 0, 2, 0, 5000, 0, 0},
        {"2d wrap reynolds scalar", 2, W, 0, 0, 1, 3, 0, 1, 1, 1500, 0, 0},
        {"3d wrap vicsek scalar", 3, W, 1, 0, 0, 3, 0, 1, 1, 2000, 0, 0},
        /* tiles that end within rows: each model, boundary and kernel, threads, dimension */
        {"2d wrap reynolds table cells", 2, W, 0, 0, 1, 3, 0, 1, 0, 1500, 0, 1},
        {"2d walls vicsek cells", 2, L, 1, 0, 0, 4, 0, 1, 0, 1500, 0, 1},
        {"2d open reynolds table cells", 2, O, 0, 0, 1, 3, 0, 1, 0, 1500, 0, 1},
        {"2d wrap topological cells", 2, W, 0, 1, 1, 3, 0, 1, 0, 1500, 0, 1},
        {"2d wrap reynolds threads cells", 2, W, 0, 0, 1, 5, 0, 2, 0, 4500, 0, 1},
        {"2d wrap reynolds scalar cells", 2, W, 0, 0, 1, 3, 0, 1, 1, 1500, 0, 1},
        {"2d wrap reynolds many tiles cells", 2, W, 0, 0, 0, 16, 0, 1, 0, 1500, 0, 1},
        {"3d wrap reynolds table cells", 3, W, 0, 0, 1, 3, 0, 1, 0, 2000, 0, 1},
        {"3d walls vicsek cells", 3, L, 1, 0, 0, 4, 0, 1, 0, 2000, 0, 1},
        {"3d open topological cells", 3, O, 0, 1, 1, 3, 0, 1, 0, 2000, 0, 1},
        /* tiles that end within cells, at a boid (keys) */
        {"2d wrap reynolds table boids", 2, W, 0, 0, 1, 3, 0, 1, 0, 1500, 0, 2},
        {"2d walls vicsek boids", 2, L, 1, 0, 0, 4, 0, 1, 0, 1500, 0, 2},
        {"2d open reynolds table boids", 2, O, 0, 0, 1, 3, 0, 1, 0, 1500, 0, 2},
        {"2d wrap topological boids", 2, W, 0, 1, 1, 3, 0, 1, 0, 1500, 0, 2},
        {"2d wrap reynolds threads boids", 2, W, 0, 0, 1, 5, 0, 2, 0, 4500, 0, 2},
        {"2d wrap reynolds scalar boids", 2, W, 0, 0, 1, 3, 0, 1, 1, 1500, 0, 2},
        {"2d wrap 4 rows many tiles boids", 2, W, 0, 0, 0, 16, 0, 1, 0, 1500, 220, 2},
        {"3d wrap reynolds table boids", 3, W, 0, 0, 1, 3, 0, 1, 0, 2000, 0, 2},
        {"3d walls vicsek boids", 3, L, 1, 0, 0, 4, 0, 1, 0, 2000, 0, 2},
        {"3d open topological boids", 3, O, 0, 1, 1, 3, 0, 1, 0, 2000, 0, 2},
        /* cells of some 280 boids, uploaded in descending id order: the grid build sorts a
         * cell of more than 256 out of order at once (cpu_grid_build.c's cell_sort_large) */
        {"2d wrap 4 rows dense boids", 2, W, 0, 0, 0, 3, 1, 1, 0, 20000, 220, 2},
    };
    for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) run_case(&runs[i]);
    return CHECK_DONE("tile_test");
}
