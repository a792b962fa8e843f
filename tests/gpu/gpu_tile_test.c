/* SPDX-License-Identifier: MIT */
/* The GPU backend's tile mode (src/core/tile.h) in --deterministic mode: a flock stepped as
 * K = 2 and 3 tiles gives every boid the same bits as the whole flock stepped at once
 * (tests/tile_fixture.h), in the plane and the box, under wrap, walls and the open
 * boundary, for Reynolds with a predator, an attractor and an obstacle, Vicsek with noise
 * (which draws by the global id) and topological neighbours with k_in_vision; also one tile
 * (the whole grid as its window) and grids of 3 rows (walls) and 4 rows (wrap). Exact: the
 * contract promises the same float operations in the same order, so any difference is a
 * failure, not a rounding. Besides: the row the count stage puts a boid in is the host's
 * boids_tile_row, on either side of every row boundary (a window of one row takes exactly
 * the boids the host places in it, and the step refuses one it places outside, naming it);
 * the boids of unsteered rows keep their bits; a window the grid cannot hold and steered rows
 * without their halo rows are refused; a fused-variant backend steps tiles with the same
 * bits. The context is made with
 * BOIDS_EGL_DEVICE=0 (device 0 of boids_gl_device_count's), and an index beyond the
 * devices is refused. Small flocks and few steps: llvmpipe is slow. Exit 77 (skip) only
 * when no GL 4.3 context can be made, a failure with BOIDS_REQUIRE_GPU set. */
#include <math.h>
#include <string.h>

#include "../tile_fixture.h"
#include "gpu_fixture.h"
#include "tile.h"

/* tile_fixture.h's factory: a checked gpu backend in --deterministic mode, of the variant
 * *ctx (NULL: plain). */
static boids_backend *make_gpu(const boids_flock *f, void *ctx, boids_error *err) {
    boids_gpu_options o = checked(1);
    if (ctx) o.variant = *(const boids_gpu_variant *)ctx;
    return boids_gpu_create(NULL, f, &o, err);
}

enum { MODEL_REYNOLDS, MODEL_VICSEK, MODEL_TOPO, MODELS };
static const char *const model_names[MODELS] = {"reynolds+table", "vicsek+noise",
                                                "topological k_in_vision"};
static const char *const boundary_names[3] = {"wrap", "walls", "open"};

/* One case: the model m in dimension dim on boundary b, as k tiles (resident: also as
 * resident tiles; 2: those cut within rows and within cells too). The lab preset's world at 1200
 * boids; the table holds a predator, an attractor and an obstacle (circle, or sphere in the box)
 * inside the world; 12 steps move boids across rows. */
static void same_bits(int dim, boids_boundary b, int m, int k, int uneven,
                      boids_gpu_variant variant, double side, int resident) {
    boids_params p = boids_params_default();
    p.dim = dim;
    p.boundary = b;
    if (side > 0) *(dim == 3 ? &p.depth : &p.height) = side;
    if (dim == 3 && !(side > 0)) p.depth = p.height;
    if (m == MODEL_VICSEK || (m == MODEL_TOPO && dim == 3)) {
        p.model = BOIDS_MODEL_VICSEK;
        p.noise = 0.6;
    }
    if (m == MODEL_TOPO) {
        p.neighbours = BOIDS_NEIGHBOURS_TOPOLOGICAL;
        p.k = 7;
        p.k_in_vision = 1;
    }
    boids_interact t;
    boids_interact_default(&t, &p);
    if (m == MODEL_REYNOLDS) {
        t.predators[0] = (boids_point){1, p.width * 0.3, p.height * 0.6, 60, 2, p.depth * 0.4};
        t.attractors[0] = (boids_point){1, p.width * 0.7, p.height * 0.3, 80, 1, p.depth * 0.6};
        t.obstacle_count = 1;
        t.obstacles[0] = (boids_obstacle){dim == 3 ? BOIDS_OBSTACLE_SPHERE : BOIDS_OBSTACLE_CIRCLE,
                                          p.width * 0.5,
                                          p.height * 0.5,
                                          0,
                                          0,
                                          40,
                                          p.depth * 0.5};
    }
    boids_flock f = random_flock(&p, 1200, (uint64_t)(100 * dim + 10 * b + m));
    char name[96];
    grid_geomd g;
    boids_error err;
    CHECK(boids_grid_geomd_init(&g, dim, &p, NULL, BOIDS_GPU_MAX_CELLS, &err) == BOIDS_OK,
          "grid: %s", err.msg);
    snprintf(name, sizeof name, "%dd %s %s%s, %u rows", dim, boundary_names[b], model_names[m],
             variant == BOIDS_GPU_VARIANT_FUSED ? " fused" : "", g.n[dim - 1]);
    /* The uneven cuts upload each tile in descending id order (any order gives the bits). */
    tile_case c = {name, p, m == MODEL_REYNOLDS ? &t : NULL, &f, 12, k, uneven, uneven, 0};
    tile_check_equal(&c, make_gpu, &variant);
    if (resident) tile_check_resident(&c, make_gpu, &variant);
    c.cells = 1; /* resident tiles that end within rows */
    if (resident == 2) tile_check_resident(&c, make_gpu, &variant);
    c.cells = 2; /* and within cells */
    if (resident == 2) tile_check_resident(&c, make_gpu, &variant);
    boids_flock_free(&f);
}

/* A one-boid tile at (x, c) along the last axis (c), its window `rows` rows from row_lo,
 * no row steered; the status of its one step, and the boid after it in *out. */
static boids_status one_boid_step(boids_backend *b, const boids_params *p, double c,
                                  uint32_t row_lo, uint32_t rows, boids_flock *out,
                                  boids_error *err) {
    boids_flock f;
    boids_flock_alloc_dim(&f, 1, p->dim, err);
    /* Values the float state holds exactly, so that "kept" is a comparison of doubles. */
    f.x[0] = (float)(p->width / 3);
    f.y[0] = (float)(p->height / 3);
    if (p->dim == 3) {
        f.z[0] = c;
        f.vz[0] = 0.5;
    } else {
        f.y[0] = c;
    }
    f.vx[0] = 1.25, f.vy[0] = -0.75;
    const uint32_t gid = 5;
    boids_tile t = {.n_global = 10, .row_lo = row_lo, .rows = rows, .gid = &gid};
    if (p->boundary == BOIDS_BOUNDARY_OPEN) {
        t.has_box = 1;
        boids_tile_box_empty(&t.box);
        boids_tile_box_add(&t.box, &f);
    }
    boids_status st = boids_backend_upload_tile(b, &f, &t, err);
    if (!st) st = boids_backend_step(b, p, 1, err);
    if (!st) st = boids_backend_download(b, out, err);
    if (!st)
        CHECK(out->x[0] == f.x[0] && out->y[0] == f.y[0] && out->vx[0] == f.vx[0] &&
                  out->vy[0] == f.vy[0] &&
                  (p->dim == 2 || (out->z[0] == f.z[0] && out->vz[0] == f.vz[0])),
              "an unsteered boid at %.9g keeps its state", c);
    boids_flock_free(&f);
    return st;
}

/* Around every row boundary of the grid (and at the world's edges) the coordinates a few
 * float ulps either side: the GPU accepts each in a window of just the host's row and
 * refuses it in the window of the next row, naming the row the host gives. */
static void rows_agree(int dim, boids_boundary boundary) {
    boids_error err;
    boids_params p = boids_params_default();
    p.dim = dim;
    p.boundary = boundary;
    p.width = p.height = p.depth = 97.3; /* cells of no round size */
    p.vision_radius = 6.1;
    p.separation_radius = 2;
    boids_flock init = random_flock(&p, 10, 1), out;
    boids_flock_alloc_dim(&out, 1, dim, &err);
    boids_backend *b = checked_backend(1, &init);
    boids_tile t = {.n_global = 10, .rows = 1, .has_box = 1};
    boids_tile_box_empty(&t.box);
    boids_tile_box_add(&t.box, &init);
    grid_geomd g;
    CHECK(boids_backend_tile_geom(b, &p, &t, &g, &err) == BOIDS_OK, "tile_geom: %s", err.msg);
    const uint32_t n = g.n[dim - 1];
    const double side = dim == 3 ? p.depth : p.height;
    CHECK(n >= 8, "the grid has %u rows (enough boundaries to probe)", n);
    int probed = 0;
    for (uint32_t r = 0; r <= n && b; r++) {
        float c = r == n ? (float)side : (float)r / g.s[dim - 1];
        for (int k = 0; k < 4; k++) c = nextafterf(c, -INFINITY);
        for (int k = 0; k < 9; k++, c = nextafterf(c, INFINITY)) {
            if (boundary != BOIDS_BOUNDARY_OPEN && (c < 0 || c > side)) continue;
            const uint32_t row = boids_tile_row(&g, c);
            boids_status st = one_boid_step(b, &p, c, row, 1, &out, &err);
            CHECK(st == BOIDS_OK, "dim %d boundary %d: a boid at %.9g in its row %u: %s", dim,
                  (int)boundary, c, row, err.msg);
            if (n - row < 2) continue; /* no next row to refuse it in */
            st = one_boid_step(b, &p, c, row + 1, 1, &out, &err);
            char want[64];
            snprintf(want, sizeof want, "is in row %u,", row);
            CHECK(st == BOIDS_ERR_INPUT && strstr(err.msg, want),
                  "dim %d boundary %d: a boid at %.9g (row %u) in a window of row %u: status %d, "
                  "%s",
                  dim, (int)boundary, c, row, row + 1, (int)st, st ? err.msg : "accepted");
            probed++;
        }
    }
    CHECK(probed > 8 * (int)n, "probed %d coordinates", probed);
    boids_backend_destroy(b);
    boids_flock_free(&init);
    boids_flock_free(&out);
}

/* The step refuses a window the grid cannot hold and steered rows without their halo rows,
 * saying so. */
static void window_refusals(int dim) {
    boids_error err;
    boids_params p = boids_params_default();
    p.dim = dim;
    p.boundary = BOIDS_BOUNDARY_WALLS;
    if (dim == 3) p.depth = p.height;
    boids_flock f = random_flock(&p, 50, 3);
    boids_backend *b = checked_backend(1, &f);
    boids_tile t = {.n_global = f.n, .rows = 1};
    grid_geomd g;
    CHECK(b && boids_backend_tile_geom(b, &p, &t, &g, &err) == BOIDS_OK, "tile_geom: %s", err.msg);
    const uint32_t n = g.n[dim - 1];
    CHECK(n >= 6, "dim %d: %u rows (the cases below need 6)", dim, n);
    uint32_t *gid = malloc(f.n * sizeof *gid);
    for (size_t i = 0; b && i < f.n; i++) gid[i] = (uint32_t)i;
    const struct {
        uint32_t row_lo, rows, steer_lo, steer_hi, skip_lo;
        const char *says;
    } bad[] = {
        {1, n, 0, 0, 0, "does not fit"},       /* past the last row, without wrap */
        {2, 3, 0, 3, 0, "lacks the halo row"}, /* rows 2 .. 4 steered, rows 1 and 5 not held */
        {0, 3, 0, 3, 0, "lacks the halo row"}, /* row 3 not held */
        {0, 3, 0, 2, 1u << 30, "one cell at least"}, /* skips more than a row's cells */
    };
    for (size_t i = 0; b && i < sizeof bad / sizeof bad[0]; i++) {
        t = (boids_tile){.n_global = f.n,
                         .row_lo = bad[i].row_lo,
                         .rows = bad[i].rows,
                         .steer_lo = bad[i].steer_lo,
                         .steer_hi = bad[i].steer_hi,
                         .gid = gid,
                         .skip_lo = bad[i].skip_lo};
        boids_status st = boids_backend_upload_tile(b, &f, &t, &err);
        CHECK(st == BOIDS_OK, "upload_tile: %s", err.msg);
        st = boids_backend_step(b, &p, 1, &err);
        CHECK(st == BOIDS_ERR_INPUT && strstr(err.msg, bad[i].says),
              "dim %d: window %u + %u steering [%u, %u) of %u rows: status %d, %s", dim,
              bad[i].row_lo, bad[i].rows, bad[i].steer_lo, bad[i].steer_hi, n, (int)st,
              st ? err.msg : "accepted");
    }
    /* Tiles that end within a cell need the deterministic mode (its cells in id order):
     * without it the backend's tiles are whole cells, and the step says why. */
    t = (boids_tile){.n_global = f.n, .rows = n, .steer_hi = n, .gid = gid, .id_lo = 5};
    boids_backend *fast = checked_backend(0, &f);
    CHECK(b && fast && boids_backend_tile_within_cells(b) &&
              !boids_backend_tile_within_cells(fast) && boids_backend_tile_within_rows(fast),
          "dim %d: tiles within cells in the deterministic mode only", dim);
    CHECK(!fast || (boids_backend_upload_tile(fast, &f, &t, &err) == BOIDS_ERR_INPUT &&
                    strstr(err.msg, "whole cells")),
          "dim %d: a tile cut within a cell, not deterministic: %s", dim, err.msg);
    boids_backend_destroy(fast);
    free(gid);
    boids_backend_destroy(b);
    boids_flock_free(&f);
}

/* BOIDS_EGL_DEVICE beyond the devices is refused with their count. */
static void device_choice(void) {
    const int n = boids_gl_device_count();
    printf("EGL devices: %d\n", n);
    CHECK(n >= 1, "the context made with BOIDS_EGL_DEVICE=0 is on one of %d devices", n);
    char v[16];
    snprintf(v, sizeof v, "%d", n);
    setenv("BOIDS_EGL_DEVICE", v, 1);
    boids_error err;
    boids_gl *other = boids_gl_create(0, &err);
    CHECK(!other && err.status == BOIDS_ERR_INPUT && strstr(err.msg, "BOIDS_EGL_DEVICE"),
          "BOIDS_EGL_DEVICE=%s of %d devices: %s", v, n, other ? "accepted" : err.msg);
    boids_gl_destroy(other);
    setenv("BOIDS_EGL_DEVICE", "0", 1);
}

int main(void) {
    boids_error err;
    setenv("BOIDS_EGL_DEVICE", "0", 1);
    gl = boids_gl_create(1, &err);
    if (!gl) return no_gpu_exit("gpu_tile_test", err.msg);
    printf("GL: %s (%s platform)\n", boids_gl_renderer(gl), boids_gl_platform(gl));
    CHECK(!strcmp(boids_gl_platform(gl), "device"), "BOIDS_EGL_DEVICE=0: the %s platform",
          boids_gl_platform(gl));
    device_choice();
    tile_check_window_ids("gpu --deterministic", make_gpu, NULL);
    for (int dim = 2; dim <= 3; dim++)
        for (int b = 0; b < 3; b++)
            for (int m = 0; m < MODELS; m++)
                for (int k = 2; k <= 3; k++)
                    same_bits(dim, (boids_boundary)b, m, k, k == 3 && m == 0,
                              BOIDS_GPU_VARIANT_PLAIN, 0, k == 3 ? 2 : 0);
    /* A backend of the fused variant steps its tiles with the plain stages (the fused steer
     * counts the next step's cells over the whole grid), which give its bits: the
     * variants agree in deterministic mode. */
    same_bits(2, BOIDS_BOUNDARY_WRAP, MODEL_REYNOLDS, 2, 0, BOIDS_GPU_VARIANT_FUSED, 0, 0);
    /* One tile: the window is the whole grid, which wraps. */
    same_bits(3, BOIDS_BOUNDARY_WRAP, MODEL_VICSEK, 1, 0, BOIDS_GPU_VARIANT_PLAIN, 0, 0);
    /* Grids of few rows along the last axis (vision 50): 3 rows between walls, where the
     * search of a cell takes every row, in 3 one-row tiles; 4 rows under wrap in 2 tiles,
     * whose windows hold every row. */
    for (int dim = 2; dim <= 3; dim++) {
        same_bits(dim, BOIDS_BOUNDARY_WALLS, MODEL_REYNOLDS, 3, 0, BOIDS_GPU_VARIANT_PLAIN, 160, 1);
        same_bits(dim, BOIDS_BOUNDARY_WRAP, MODEL_VICSEK, 2, 0, BOIDS_GPU_VARIANT_PLAIN, 215, 1);
    }
    for (int dim = 2; dim <= 3; dim++) {
        window_refusals(dim);
        rows_agree(dim, BOIDS_BOUNDARY_WALLS);
        rows_agree(dim, BOIDS_BOUNDARY_WRAP);
        rows_agree(dim, BOIDS_BOUNDARY_OPEN);
    }
    const boids_gl_debug *log = boids_gl_debug_log(gl);
    CHECK(log->errors == 0, "%lu GL debug errors, last: %s", log->errors, log->last_error);
    boids_gl_destroy(gl);
    return CHECK_DONE("gpu_tile_test");
}
