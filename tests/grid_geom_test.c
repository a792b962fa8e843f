/* SPDX-License-Identifier: MIT */
/* The grid geometry shared by the cpu path, the GPU pipeline and the observables
 * (src/core/grid_geom.h): the cells tile a periodic world exactly, stay at least the
 * vision radius wide after float rounding (so the 3x3 block holds every neighbour), respect
 * a cell cap, cover an open-plane bounding box, and the ring reach bounds the distance to
 * boids in cells further out. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "boids/gpu.h"
#include "boids/params.h"
#include "boids/rng.h"
#include "check.h"
#include "grid_geom.h"

typedef struct world {
    double w, h, r;
} world;

/* Worlds from seed 000 and 002, one barely wider than a cell, one a cell and a bit, and
 * large worlds where float rounding (not R / 1024) sets the margin. */
static const world worlds[] = {
    {400, 400, 50}, {900, 560, 50}, {130, 90, 50},     {260, 260, 50},  {50.02, 101, 50},
    {1000, 7, 3.3}, {3e4, 3e4, 50}, {10600, 6600, 50}, {4e4, 3e4, 1.5}, {333.3, 777.7, 0.9}};
enum { NWORLDS = sizeof worlds / sizeof worlds[0], BIG_CAP = 1 << 30 };

static boids_params params_of(const world *w, boids_boundary b) {
    boids_params p = boids_params_default();
    p.width = w->w;
    p.height = w->h;
    p.vision_radius = w->r;
    p.boundary = b;
    return p;
}

static grid_geom geom_of(const boids_params *p, const grid_bbox *bb, double cap) {
    grid_geom g;
    boids_error err;
    memset(&g, 0, sizeof g);
    CHECK(boids_grid_geom_init(&g, p, bb, cap, &err) == BOIDS_OK, "%s", err.msg);
    return g;
}

/* Per axis: as many cells of R + margin as fit, exactly W / n wide (the float scale is the
 * rounded n / W), every cell's centre in that cell, W itself in the last cell. */
static void check_axis_tiles(double side, uint32_t n, float s, const grid_geom *g, double r) {
    const double rc = r + g->margin;
    CHECK(n == (side < rc ? 1 : (uint32_t)floor(side / rc)), "%u cells for %g / %g", n, side, rc);
    CHECK(s == (float)(n / side), "scale %.9g for %u cells over %g", s, n, side);
    for (uint32_t c = 0; c < n; c += 1 + n / 64) {
        const float mid = (float)((c + 0.5) * side / n);
        CHECK(grid_cell_coord(mid, s, n) == c, "centre %.9g of cell %u (of %u, side %g)", mid, c, n,
              side);
    }
    CHECK(grid_cell_coord((float)side, s, n) == n - 1, "x = W in the last cell");
    CHECK(grid_cell_coord(0, s, n) == 0, "x = 0 in the first cell");
}

static void test_wrap_tiles_exactly(void) {
    for (int i = 0; i < NWORLDS; i++) {
        const boids_params p = params_of(&worlds[i], BOIDS_BOUNDARY_WRAP);
        const grid_geom g = geom_of(&p, NULL, BIG_CAP);
        CHECK(g.wrap && g.ox == 0 && g.oy == 0, "world %d: a periodic grid at the origin", i);
        CHECK(g.ncells == (size_t)g.ncx * g.ncy, "world %d", i);
        CHECK(g.margin >= p.vision_radius / 1024 &&
                  g.margin >= 16 * FLT_EPSILON * fmax(p.width, p.height),
              "world %d: margin %g below the rounding of positions", i, g.margin);
        check_axis_tiles(p.width, g.ncx, g.sx, &g, p.vision_radius);
        check_axis_tiles(p.height, g.ncy, g.sy, &g, p.vision_radius);
    }
    printf("wrap: the cells tile %d worlds exactly\n", NWORLDS);
}

/* Cells apart along one axis: periodic distance under wrap. */
static uint32_t cells_apart(uint32_t a, uint32_t b, uint32_t n, int wrap) {
    uint32_t d = a > b ? a - b : b - a;
    return wrap && n - d < d ? n - d : d;
}

/* The float offset the rules compute (rules_wrap: one correction). */
static float offset(float from, float to, float side, int wrap) {
    float d = to - from;
    if (wrap && d > side / 2) d -= side;
    if (wrap && d < -side / 2) d += side;
    return d;
}

/* The largest float x2 at float offset < r from x along the axis, searched down from x + r:
 * the pair the float test accepts that is hardest for the grid. */
static float farthest_within(float x, double r, float side, int wrap, int dir) {
    float x2 = (float)(x + dir * r);
    if (wrap && x2 >= side) x2 -= side;
    if (wrap && x2 < 0) x2 += side;
    for (int k = 0; k < 64 && !(fabsf(offset(x, x2, side, wrap)) < (float)r); k++)
        x2 = nextafterf(x2, dir > 0 ? -INFINITY : INFINITY);
    return x2;
}

/* Along one axis: boids at every cell edge (and a few ulps either side) and their farthest
 * neighbours either way land at most one cell apart. */
static int axis_pairs_adjacent(float side, uint32_t n, float s, double r, int wrap) {
    int bad = 0;
    for (uint32_t c = 0; c < n; c += 1 + n / 200)
        for (int u = -3; u <= 3; u++) {
            float x = (float)((double)c / (double)s);
            for (int k = 0; k < (u < 0 ? -u : u); k++)
                x = nextafterf(x, u < 0 ? -INFINITY : INFINITY);
            if (!(x >= 0 && x <= side)) continue;
            for (int dir = -1; dir <= 1; dir += 2) {
                float x2 = farthest_within(x, r, side, wrap, dir);
                if (!wrap && !(x2 >= 0 && x2 <= side)) continue;
                uint32_t a = grid_cell_coord(x, s, n), b = grid_cell_coord(x2, s, n);
                bad += cells_apart(a, b, n, wrap) > 1;
            }
        }
    return bad;
}

static void test_cells_wider_than_radius_after_rounding(void) {
    for (int i = 0; i < NWORLDS; i++)
        for (int b = BOIDS_BOUNDARY_WRAP; b <= BOIDS_BOUNDARY_WALLS; b++) {
            const boids_params p = params_of(&worlds[i], (boids_boundary)b);
            const grid_geom g = geom_of(&p, NULL, BIG_CAP);
            const double r = p.vision_radius;
            CHECK(g.ncx == 1 || 1 / (double)g.sx >= r, "world %d: float cell %.17g < R", i,
                  1 / (double)g.sx);
            CHECK(g.ncy == 1 || 1 / (double)g.sy >= r, "world %d: float cell %.17g < R", i,
                  1 / (double)g.sy);
            int bad = axis_pairs_adjacent((float)p.width, g.ncx, g.sx, r, g.wrap) +
                      axis_pairs_adjacent((float)p.height, g.ncy, g.sy, r, g.wrap);
            CHECK(bad == 0, "world %d boundary %d: %d pairs within R two cells apart", i, b, bad);
        }
    printf("pairs within R at every cell edge lie in adjacent cells (%d worlds)\n", NWORLDS);
}

/* A tiny radius in a huge world: at most the cap (the GPU's 4 Mi cells, the cpu path's
 * ~4N), not needlessly coarser (the shrink divides the counts by their excess, then halves
 * at most a little), and the cells only grow. */
static void test_cell_cap(void) {
    const world huge[] = {{1e7, 1e7, 0.01}, {1e7, 1, 0.01}, {3e6, 2e6, 1}, {1e5, 7e4, 1.5}};
    const double caps[] = {BOIDS_GPU_MAX_CELLS, boids_grid_geom_cap(5000), boids_grid_geom_cap(1)};
    for (size_t i = 0; i < sizeof huge / sizeof huge[0]; i++)
        for (size_t c = 0; c < sizeof caps / sizeof caps[0]; c++) {
            const boids_params p = params_of(&huge[i], BOIDS_BOUNDARY_WRAP);
            const grid_geom g = geom_of(&p, NULL, caps[c]), all = geom_of(&p, NULL, BIG_CAP);
            const double rc = p.vision_radius + g.margin;
            CHECK((double)g.ncells <= caps[c], "%u x %u cells over the cap %g", g.ncx, g.ncy,
                  caps[c]);
            if ((double)all.ncells <= caps[c])
                CHECK(g.ncx == all.ncx && g.ncy == all.ncy, "below the cap: %u x %u, not %u x %u",
                      g.ncx, g.ncy, all.ncx, all.ncy);
            else
                CHECK((double)g.ncells > caps[c] / 4, "%u x %u cells: far below the cap %g", g.ncx,
                      g.ncy, caps[c]);
            CHECK(p.width / g.ncx >= rc && (g.ncy == 1 || p.height / g.ncy >= rc),
                  "capped cells %g x %g narrower than R + margin %g", p.width / g.ncx,
                  p.height / g.ncy, rc);
            CHECK(g.sx == (float)(g.ncx / p.width), "capped cells still tile the world");
        }
    CHECK(boids_grid_geom_cap(1000) == 4 * 1000 + 4096, "cap for 1000 boids: %g",
          boids_grid_geom_cap(1000));
    CHECK(boids_grid_geom_cap((size_t)1 << 40) == (double)(1u << 30), "cap for 2^40 boids");
    printf("cell cap: 4 Mi (GPU) and ~4N (cpu) respected, cells only wider\n");
}

/* Open plane: cells over the bounding box from its corner, the far corner in the last cell
 * without clamping; a flock on one line has one cell across it, and the reach comes from
 * the other axis alone; a scattered flock respects the cap. */
static void test_open_box(void) {
    boids_params p = boids_params_default();
    p.boundary = BOIDS_BOUNDARY_OPEN;
    const grid_bbox line = {-1234.5, 3.25, 877.75, 3.25, 1234.5};
    grid_geom g = geom_of(&p, &line, boids_grid_geom_cap(100));
    CHECK(!g.wrap && g.ox == line.x0 && g.oy == line.y0, "box origin (%g, %g)", g.ox, g.oy);
    CHECK(g.ncy == 1, "a flock on one line: %u rows", g.ncy);
    CHECK(1 / (double)g.sx >= p.vision_radius + g.margin, "box cell %.17g < R + margin %.17g",
          1 / (double)g.sx, p.vision_radius + g.margin);
    const float ex = (float)line.x1 - (float)g.ox;
    CHECK(ex * g.sx < (float)g.ncx && grid_cell_coord(ex, g.sx, g.ncx) == g.ncx - 1,
          "far corner %.9g in cell %u of %u", ex * g.sx, grid_cell_coord(ex, g.sx, g.ncx), g.ncx);
    CHECK((double)g.ncx * (1 / (double)g.sx) >= line.x1 - line.x0, "the cells cover the box");
    CHECK(g.reach == 1 / (double)g.sx - g.margin, "reach %.17g from the x axis alone", g.reach);

    const grid_bbox scattered = {-5e5, -2e5, 5e5, 3e5, 5e5};
    g = geom_of(&p, &scattered, boids_grid_geom_cap(10));
    CHECK((double)g.ncells <= boids_grid_geom_cap(10), "scattered: %zu cells", g.ncells);
    CHECK(1 / (double)g.sx >= p.vision_radius + g.margin, "scattered: cells >= R + margin");
    CHECK((double)g.ncx / (double)g.sx >= 1e6 && (double)g.ncy / (double)g.sy >= 5e5,
          "scattered: the cells cover the box");

    const grid_bbox point = {7, 7, 7, 7, 7};
    g = geom_of(&p, &point, boids_grid_geom_cap(1));
    CHECK(g.ncells == 1 && g.reach == 0, "one boid: one cell, no ring bound");
    printf("open plane: the box grid covers lines, scattered flocks and a point\n");
}

/* Boids in cells r + 1 or more apart along an axis are farther than r * reach. */
static void test_reach_bounds_rings(void) {
    boids_rng rng;
    boids_rng_seed(&rng, 9);
    for (int i = 0; i < NWORLDS; i++) {
        const boids_params p = params_of(&worlds[i], BOIDS_BOUNDARY_WRAP);
        const grid_geom g = geom_of(&p, NULL, BIG_CAP);
        CHECK(g.reach <= 1 / (double)g.sx - g.margin || g.ncx == 1, "world %d", i);
        int bad = 0;
        for (int t = 0; t < 20000; t++) {
            float x[2], y[2];
            for (int e = 0; e < 2; e++) {
                x[e] = (float)boids_rng_uniform(&rng, 0, p.width);
                y[e] = (float)boids_rng_uniform(&rng, 0, p.height);
            }
            const float dx = offset(x[0], x[1], (float)p.width, 1);
            const float dy = offset(y[0], y[1], (float)p.height, 1);
            const double dist2 = (double)(dx * dx + dy * dy);
            uint32_t ax = cells_apart(grid_cell_coord(x[0], g.sx, g.ncx),
                                      grid_cell_coord(x[1], g.sx, g.ncx), g.ncx, 1);
            uint32_t ay = cells_apart(grid_cell_coord(y[0], g.sy, g.ncy),
                                      grid_cell_coord(y[1], g.sy, g.ncy), g.ncy, 1);
            const double r = (double)(ax > ay ? ax : ay) - 1, bound = r * g.reach;
            bad += r >= 1 && !(dist2 > bound * bound);
        }
        CHECK(bad == 0, "world %d: %d pairs closer than the ring bound", i, bad);
    }
    printf("ring reach: pairs r + 1 cells apart are beyond r * reach (%d worlds)\n", NWORLDS);
}

static void test_bad_input(void) {
    const world bad[] = {{0, 100, 5},   {100, -1, 5},         {100, 100, 0},
                         {NAN, 100, 5}, {100, 100, INFINITY}, {1e31, 100, 5}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const boids_params p = params_of(&bad[i], BOIDS_BOUNDARY_WRAP);
        grid_geom g;
        boids_error err;
        CHECK(boids_grid_geom_init(&g, &p, NULL, BIG_CAP, &err) == BOIDS_ERR_INPUT &&
                  strstr(err.msg, "vision radius"),
              "world %g x %g, R %g: %s", bad[i].w, bad[i].h, bad[i].r, err.msg);
    }
}

int main(void) {
    test_wrap_tiles_exactly();
    test_cells_wider_than_radius_after_rounding();
    test_cell_cap();
    test_open_box();
    test_reach_bounds_rings();
    test_bad_input();
    return CHECK_DONE("grid_geom_test");
}
