/* SPDX-License-Identifier: MIT */
/* The grid CPU path (`cpu`) against brute force in float, over scenarios that stress the
 * grid: random lab flocks, walls, narrow fields of view, predator and food, a dense
 * cluster in one cell (with most cells empty), boids exactly on the world's edges and on
 * the wrap seam, worlds narrower than 3 cells, a tiny radius in a huge world (bounded cell
 * count), N = 1 and N = 2.
 *
 * Properties:
 *  - neighbour counts and set hashes equal brute force exactly: both apply rules_sees in
 *    float to the same float positions, so they can only differ if the grid never visits
 *    a pair, which must not happen (no band around the radius is needed);
 *  - one step equals a brute-force float step (every pair in index order, rules.h) up to
 *    the summation order of the neighbour sums, with a per-boid bound derived from it;
 *  - the SIMD kernel and the scalar kernel (rules.h per neighbour) give the same bits;
 *  - 1, 2, 3 and 4 threads give the same bits;
 *  - upload / download keep ids, whatever N.
 * The last three, and resuming bit for bit, are checked over the dimension, in the plane and
 * in the box (one loop: the grid is one implementation over the dimension); the box's grid
 * against brute force is dim3_test's comparison with cpu-ref. */
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "boids/backend.h"
#include "check.h"
#include "cpu_fixture.h"
#include "cpu_grid.h"
#include "grid_geom.h"

#define RULES_INSTANCE_FLOAT /* rules.h in float in the plane: the _f2 names */
#define RULES_INSTANCE_DIM   2
#include "rules_instances.h"

/* The lab preset scaled to n boids at the same density (the world grows, same aspect) in
 * dimension dim: the plane of 900 x 560 per 1500 boids, or a box of 540 x 336 x 336 per
 * 1500 (about 13 neighbours a boid, a cell of R^3 holding about 3: groups of full and of
 * partial SIMD passes both occur). */
static boids_params lab_dim(size_t n, int dim) {
    boids_params p = boids_params_default();
    p.count = (long)n;
    if (dim == 2) {
        double s = sqrt((double)n / 1500.0);
        p.width = 900 * s;
        p.height = 560 * s;
        return p;
    }
    double s = cbrt((double)n / 1500.0);
    p.dim = 3;
    p.width = 540 * s;
    p.height = p.depth = 336 * s;
    p.predator_x = p.food_x = p.width / 2;
    p.predator_y = p.food_y = p.predator_z = p.food_z = p.height / 2;
    return p;
}

static boids_params lab(size_t n) {
    return lab_dim(n, 2);
}

static void alloc_random(scenario *s, size_t n, uint64_t seed) {
    boids_error err;
    if (boids_flock_alloc_dim(&s->f, n, s->p.dim, &err)) {
        fprintf(stderr, "%s\n", err.msg);
        exit(1);
    }
    boids_flock_randomize(&s->f, &s->p, seed);
}

/* ---- brute force in float ------------------------------------------------------------ */

typedef struct brute {
    size_t n;
    float *x, *y, *vx, *vy;
    uint32_t *count;
    uint64_t *hash;
    double *tol_v; /* per-boid bound on |velocity difference| from summation order */
} brute;

/* Condition of a sum: sum of |terms| over |sum| (per axis, added); infinite if the sum is 0
 * while its terms are not. */
static double condition(double abs_x, double abs_y, float sx, float sy) {
    double m = hypot(sx, sy);
    if (abs_x + abs_y == 0) return 0;
    return m > 0 ? (abs_x + abs_y) / m : INFINITY;
}

/* One float step with every pair visited in index order: cpu-ref's loop with R = float.
 * Also the neighbour counts and set hashes, and for each boid the bound on how far a
 * different summation order can move its new velocity: reordering a sum of n terms
 * changes it by at most (n - 1) eps * sum|terms|, which turns the direction of a steering
 * target by at most that over |sum| (its condition), and moves the capped steering force
 * by at most max_speed times the angle (a projection onto a ball does not amplify); the
 * weights add these up and the speed clamp at most triples them. 16 ulps of max_speed
 * cover the rounding of the final operations. */
static void brute_step(const scenario *s, brute *b) {
    const boids_flock *f = &s->f;
    size_t n = f->n;
    rules_k_f2 k;
    rules_k_init_f2(&k, &s->p);
    float *x = malloc(4 * n * sizeof(float));
    b->n = n;
    b->x = malloc(4 * n * sizeof(float));
    b->y = b->x + n;
    b->vx = b->x + 2 * n;
    b->vy = b->x + 3 * n;
    b->count = malloc(n * sizeof(uint32_t));
    b->hash = malloc(n * sizeof(uint64_t));
    b->tol_v = malloc(n * sizeof(double));
    float *y = x + n, *vx = x + 2 * n, *vy = x + 3 * n;
    for (size_t i = 0; i < n; i++) {
        x[i] = (float)f->x[i];
        y[i] = (float)f->y[i];
        vx[i] = (float)f->vx[i];
        vy[i] = (float)f->vy[i];
    }
    for (size_t i = 0; i < n; i++) {
        rules_acc_f2 a;
        rules_acc_init_f2(&a);
        double abs_align[2] = {0, 0}, abs_coh[2] = {0, 0}, abs_sep[2] = {0, 0};
        long nsep = 0;
        uint64_t h = 0;
        for (size_t j = 0; j < n; j++) {
            if (j == i) continue;
            const float pi[2] = {x[i], y[i]}, pj[2] = {x[j], y[j]};
            const float vi[2] = {vx[i], vy[i]}, vj[2] = {vx[j], vy[j]};
            float d[2];
            rules_offset_f2(&k, pi, pj, d);
            const float dx = d[0], dy = d[1];
            float dist2 = dx * dx + dy * dy;
            if (!rules_sees_f2(&k, d, dist2, vi)) continue;
            rules_acc_add_f2(&k, &a, d, dist2, vj);
            h += boids_neighbour_set_hash((uint32_t)j);
            abs_align[0] += fabs(vx[j]);
            abs_align[1] += fabs(vy[j]);
            abs_coh[0] += fabs(dx);
            abs_coh[1] += fabs(dy);
            if (0 < dist2 && dist2 < k.sep2) {
                abs_sep[0] += fabs(dx / dist2);
                abs_sep[1] += fabs(dy / dist2);
                nsep++;
            }
        }
        b->count[i] = (uint32_t)a.n;
        b->hash[i] = h;
        double e = FLT_EPSILON;
        double turn = 0;
        if (a.n > 1) {
            double c_al = condition(abs_align[0], abs_align[1], a.mvx, a.mvy);
            double c_co = condition(abs_coh[0], abs_coh[1], a.cx, a.cy);
            turn += (double)(a.n - 1) * e * (k.w_align * c_al + k.w_coh * c_co);
        }
        if (nsep > 1)
            turn +=
                (double)(nsep - 1) * e * k.w_sep * condition(abs_sep[0], abs_sep[1], a.sx, a.sy);
        b->tol_v[i] = 3 * k.max_speed * turn + 16 * e * k.max_speed;
        float acc[2], np[2] = {x[i], y[i]}, nv[2] = {vx[i], vy[i]};
        rules_accel_f2(&k, &a, np, nv, acc);
        rules_integrate_f2(&k, acc, np, nv);
        b->x[i] = np[0];
        b->y[i] = np[1];
        b->vx[i] = nv[0];
        b->vy[i] = nv[1];
    }
    free(x);
}

static void brute_free(brute *b) {
    free(b->x);
    free(b->count);
    free(b->hash);
    free(b->tol_v);
}

/* ---- checks ------------------------------------------------------------------------- */

/* Periodic distance along one axis (a boid that wrapped in one path and not in the other is
 * still a tiny distance away). */
static double axis_gap(double a, double b, double side, int wrap) {
    double d = fabs(a - b);
    return wrap && d > side / 2 ? side - d : d;
}

static void check_scenario(const scenario *s) {
    const size_t n = s->f.n;
    boids_error err;
    brute bf;
    brute_step(s, &bf);

    boids_backend *b = make_cpu(&s->f, 2);
    uint32_t *count = malloc(n * sizeof *count);
    uint64_t *hash = malloc(n * sizeof *hash);
    CHECK(boids_backend_has_neighbours(b), "%s: neighbours op present", s->name);
    CHECK(boids_backend_neighbours(b, &s->p, count, hash, &err) == BOIDS_OK, "%s: %s", s->name,
          err.msg);
    size_t bad_count = 0, bad_hash = 0, total = 0;
    for (size_t i = 0; i < n; i++) {
        bad_count += count[i] != bf.count[i];
        bad_hash += hash[i] != bf.hash[i];
        total += bf.count[i];
    }
    CHECK(bad_count == 0 && bad_hash == 0,
          "%s: %zu counts and %zu set hashes differ from brute force (of %zu boids)", s->name,
          bad_count, bad_hash, n);

    CHECK(boids_backend_step(b, &s->p, 1, &err) == BOIDS_OK, "%s: %s", s->name, err.msg);
    boids_flock out;
    boids_flock_alloc(&out, n, &err);
    CHECK(boids_backend_download(b, &out, &err) == BOIDS_OK, "%s: %s", s->name, err.msg);
    const int wrap = s->p.boundary == BOIDS_BOUNDARY_WRAP;
    double worst = 0; /* largest error / bound */
    size_t worst_i = 0;
    for (size_t i = 0; i < n; i++) {
        double dv = hypot(out.vx[i] - bf.vx[i], out.vy[i] - bf.vy[i]);
        /* Position: the velocity difference times dt, plus an ulp of the world for the
         * final rounding of the position. */
        double dp = hypot(axis_gap(out.x[i], bf.x[i], s->p.width, wrap),
                          axis_gap(out.y[i], bf.y[i], s->p.height, wrap));
        double tol_p = bf.tol_v[i] * s->p.dt + 2 * FLT_EPSILON * fmax(s->p.width, s->p.height);
        double r = fmax(dv / bf.tol_v[i], dp / tol_p);
        if (r > worst) {
            worst = r;
            worst_i = i;
        }
    }
    CHECK(worst <= 1, "%s: boid %zu differs from the brute-force float step by %.3g x its bound",
          s->name, worst_i, worst);
    printf("%-22s n=%-6zu mean neighbours %7.2f  step error <= %.3f of bound (%s kernel)\n",
           s->name, n, (double)total / (double)n, worst, boids_cpu_kernel_name(b));
    boids_flock_free(&out);
    free(count);
    free(hash);
    boids_backend_destroy(b);
    brute_free(&bf);
}

/* Hash of the state after `steps` steps with `threads` threads and the given kernel. */
/* Upload any N, download in id order: values are the float roundings of the input. */
static void check_upload_download(void) {
    boids_error err;
    scenario s = {"upload", lab(300), {0}};
    alloc_random(&s, 300, 5);
    boids_backend *b = make_cpu(&s.f, 0);
    CHECK(boids_backend_n(b) == 300, "n after create: %zu", boids_backend_n(b));
    CHECK(boids_backend_step(b, &s.p, 3, &err) == BOIDS_OK, "%s", err.msg);

    scenario t = {"upload2", lab(4000), {0}};
    alloc_random(&t, 4000, 6);
    CHECK(boids_backend_upload(b, &t.f, &err) == BOIDS_OK, "%s", err.msg);
    CHECK(boids_backend_n(b) == 4000, "n after upload: %zu", boids_backend_n(b));
    boids_flock out;
    boids_flock_alloc(&out, 4000, &err);
    CHECK(boids_backend_download(b, &out, &err) == BOIDS_OK, "%s", err.msg);
    size_t bad = 0;
    for (size_t i = 0; i < 4000; i++)
        bad += out.x[i] != (double)(float)t.f.x[i] || out.y[i] != (double)(float)t.f.y[i] ||
               out.vx[i] != (double)(float)t.f.vx[i] || out.vy[i] != (double)(float)t.f.vy[i];
    CHECK(bad == 0, "%zu boids changed in an upload/download round trip", bad);

    /* Free flight (no rules, no limits in reach): after a step that reorders the slots,
     * boid i must still be boid i, moved by its own velocity. */
    boids_params p = t.p;
    p.separation_weight = p.alignment_weight = p.cohesion_weight = 0;
    p.min_speed = 0;
    p.max_speed = 1000;
    CHECK(boids_backend_step(b, &p, 1, &err) == BOIDS_OK, "%s", err.msg);
    CHECK(boids_backend_download(b, &out, &err) == BOIDS_OK, "%s", err.msg);
    size_t moved_wrong = 0;
    for (size_t i = 0; i < 4000; i++) {
        float x = (float)t.f.x[i] + (float)t.f.vx[i] * (float)p.dt;
        float y = (float)t.f.y[i] + (float)t.f.vy[i] * (float)p.dt;
        if (x < 0)
            x += (float)p.width;
        else if (x >= (float)p.width)
            x -= (float)p.width;
        if (y < 0)
            y += (float)p.height;
        else if (y >= (float)p.height)
            y -= (float)p.height;
        moved_wrong += out.x[i] != x || out.y[i] != y;
    }
    CHECK(moved_wrong == 0, "%zu boids are not where their own velocity took them", moved_wrong);

    boids_flock wrong;
    boids_flock_alloc(&wrong, 10, &err);
    CHECK(boids_backend_download(b, &wrong, &err) == BOIDS_ERR_INPUT,
          "download into a flock of the wrong size is refused");
    boids_flock empty = {0};
    CHECK(boids_backend_upload(b, &empty, &err) == BOIDS_ERR_INPUT, "upload of 0 boids refused");
    CHECK(boids_backend_n(b) == 4000, "a refused upload keeps the state");
    boids_params bad_p = p;
    bad_p.vision_radius = 0;
    CHECK(boids_backend_step(b, &bad_p, 1, &err) == BOIDS_ERR_INPUT,
          "a zero vision radius is refused, not divided by");

    boids_flock_free(&wrong);
    boids_flock_free(&out);
    boids_flock_free(&s.f);
    boids_flock_free(&t.f);
    boids_backend_destroy(b);
}

/* ---- scenarios ----------------------------------------------------------------------- */

static void put(boids_flock *f, size_t i, double x, double y, double vx, double vy) {
    f->x[i] = x;
    f->y[i] = y;
    f->vx[i] = vx;
    f->vy[i] = vy;
}

/* The rules one at a time: plain, walls with a field of view, a narrow field of view,
 * predator and food. */
static void add_rule_scenarios(scenario *sc, int *ns) {
    scenario *s = &sc[(*ns)++];
    *s = (scenario){"lab_random", lab(3000), {0}};
    alloc_random(s, 3000, 1);

    s = &sc[(*ns)++];
    *s = (scenario){"walls_fov270", lab(2000), {0}};
    s->p.boundary = BOIDS_BOUNDARY_WALLS;
    s->p.fov = 270;
    alloc_random(s, 2000, 2);

    s = &sc[(*ns)++];
    *s = (scenario){"fov90", lab(2000), {0}};
    s->p.fov = 90;
    alloc_random(s, 2000, 3);

    s = &sc[(*ns)++];
    *s = (scenario){"predator_food", lab(2000), {0}};
    s->p.predator = 1;
    s->p.predator_x = s->p.width / 3;
    s->p.predator_y = s->p.height / 2;
    s->p.predator_radius = 160;
    s->p.predator_weight = 2;
    s->p.food = 1;
    s->p.food_x = 2 * s->p.width / 3;
    s->p.food_y = s->p.height / 2;
    s->p.food_radius = 200;
    s->p.food_weight = 1;
    alloc_random(s, 2000, 4);
}

/* 400 boids in a 6 x 6 square (one cell) and 100 across the wrap corner, in a world where
 * most cells are empty; two of them at the same point: neighbours, but no separation
 * between them. */
static void add_dense_cluster(scenario *sc, int *ns) {
    scenario *s = &sc[(*ns)++];
    *s = (scenario){"dense_cluster", lab(3000), {0}};
    alloc_random(s, 500, 5);
    for (size_t i = 0; i < 500; i++) {
        double u = fmod(s->f.x[i], 6.0), v = fmod(s->f.y[i], 6.0);
        if (i < 400)
            put(&s->f, i, 300 + u, 200 + v, s->f.vx[i], s->f.vy[i]);
        else
            put(&s->f, i, u < 3 ? u : s->p.width - u, v < 3 ? v : s->p.height - v, s->f.vx[i],
                s->f.vy[i]);
    }
    put(&s->f, 1, s->f.x[0], s->f.y[0], s->f.vx[1], s->f.vy[1]);
}

/* Boids exactly on the edges and corners (x = 0, x = W, y = 0, y = H) among others, in a
 * wrapping world and the same flock between walls. */
static void add_edges(scenario *sc, int *ns) {
    scenario *s = &sc[(*ns)++];
    *s = (scenario){"edges_wrap", lab(1500), {0}};
    alloc_random(s, 1500, 6);
    for (size_t i = 0; i < 200; i++) {
        double t = s->f.x[i] / s->p.width;
        switch (i % 5) {
        case 0:
            put(&s->f, i, 0, t * s->p.height, s->f.vx[i], s->f.vy[i]);
            break;
        case 1:
            put(&s->f, i, s->p.width, t * s->p.height, s->f.vx[i], s->f.vy[i]);
            break;
        case 2:
            put(&s->f, i, t * s->p.width, 0, s->f.vx[i], s->f.vy[i]);
            break;
        case 3:
            put(&s->f, i, t * s->p.width, s->p.height, s->f.vx[i], s->f.vy[i]);
            break;
        default:
            put(&s->f, i, s->p.width, s->p.height, s->f.vx[i], s->f.vy[i]);
            break;
        }
    }
    s = &sc[(*ns)++];
    *s = (scenario){"edges_walls", sc[*ns - 2].p, {0}};
    s->p.boundary = BOIDS_BOUNDARY_WALLS;
    boids_flock_copy(&s->f, &sc[*ns - 2].f, NULL);
}

/* The SIMD move's masked branches on the open plane: boids at rest (no direction, no speed
 * clamp), boids crawling below min_speed (clamped up), and a boid at rest at the centre of
 * a cross of four far from the flock, whose separation, alignment and cohesion targets are
 * all exactly zero (zero steering forces: it stays at rest). */
static void add_rest(scenario *sc, int *ns) {
    scenario *s = &sc[(*ns)++];
    *s = (scenario){"rest_crawl_zero_targets_open", lab(1500), {0}};
    s->p.boundary = BOIDS_BOUNDARY_OPEN;
    alloc_random(s, 600, 15);
    for (size_t i = 0; i < 100; i++) put(&s->f, i, s->f.x[i], s->f.y[i], 0, 0);
    for (size_t i = 100; i < 200; i++)
        put(&s->f, i, s->f.x[i], s->f.y[i], 1e-3 * s->f.vx[i], 1e-3 * s->f.vy[i]);
    const double cx = -300, cy = -300, dx[4] = {10, -10, 0, 0}, dy[4] = {0, 0, 10, -10};
    put(&s->f, 200, cx, cy, 0, 0);
    for (size_t c = 0; c < 4; c++) put(&s->f, 201 + c, cx + dx[c], cy + dy[c], dx[c], dy[c]);
}

/* Boids on the cell edges of the wrapping lab world: x = k / sx and y = k / sy rounded to
 * float, where the cell computation (x * sx, truncated) may land on either side, and must
 * land on the same side in the SIMD and the scalar cell computations. */
static void add_cell_edges(scenario *sc, int *ns) {
    scenario *s = &sc[(*ns)++];
    *s = (scenario){"cell_edges_wrap", lab(1500), {0}};
    alloc_random(s, 1500, 16);
    boids_error err;
    grid_geom g;
    if (boids_grid_geom_init(&g, &s->p, NULL, boids_grid_geom_cap(1500), &err)) die("geom", &err);
    for (size_t i = 0; i < 400; i++) {
        const float kx = (float)(i % (g.ncx + 1)), ky = (float)(i / 7 % (g.ncy + 1));
        put(&s->f, i, i % 3 ? kx / g.sx : s->f.x[i], i % 3 != 1 ? ky / g.sy : s->f.y[i], s->f.vx[i],
            s->f.vy[i]);
    }
}

/* Worlds 1, 2 and 3 cells wide (no cell may be visited twice), slow boids so that a step
 * stays well inside the world. */
static void add_narrow_worlds(scenario *sc, int *ns) {
    const double widths[3] = {40, 110, 170};
    const char *names[3] = {"world_1_cell", "world_2_cells", "world_3_cells"};
    for (int w = 0; w < 3; w++) {
        scenario *s = &sc[(*ns)++];
        *s = (scenario){names[w], lab(100), {0}};
        s->p.width = widths[w];
        s->p.height = widths[2 - w] + 20;
        s->p.max_speed = s->p.initial_speed = 60;
        s->p.min_speed = 20;
        s->p.max_force = 2;
        alloc_random(s, 60, 7 + (uint64_t)w);
    }
}

/* Tiny radius in a huge world (the cell count is bounded, cells are much wider than R),
 * one boid, and two boids that see each other only across the wrap seam (both corners). */
static void add_extremes(scenario *sc, int *ns) {
    scenario *s = &sc[(*ns)++];
    *s = (scenario){"huge_world_tiny_r", lab(1500), {0}};
    s->p.width = s->p.height = 1e5;
    s->p.vision_radius = 0.5;
    s->p.separation_radius = 0.2;
    s->p.max_speed = s->p.initial_speed = 3;
    s->p.min_speed = 1;
    s->p.max_force = 0.1;
    s->p.dt = 1;
    alloc_random(s, 1500, 10);
    for (size_t i = 0; i < 300; i++) /* a cluster so that some boids do see each other */
        put(&s->f, i, 5e4 + fmod(s->f.x[i], 2.0), 5e4 + fmod(s->f.y[i], 2.0), s->f.vx[i],
            s->f.vy[i]);

    s = &sc[(*ns)++];
    *s = (scenario){"n1", lab(1500), {0}};
    alloc_random(s, 1, 11);

    s = &sc[(*ns)++];
    *s = (scenario){"n2_across_seam", lab(1500), {0}};
    alloc_random(s, 2, 12);
    put(&s->f, 0, 1, 2, 100, 0);
    put(&s->f, 1, s->p.width - 3, s->p.height - 4, -100, 10);
}

/* Enough boids for the threads to share the work (small flocks run on one thread), in the
 * plane and in the box: every boundary, a narrow field of view, predator and food, Vicsek
 * with noise, topological neighbours (the SIMD selection and the shell search beside it,
 * grid_steer_topo: across the seam with a narrow field of view; k = 20, above the lanes'
 * first pass, TOPO_NET; Vicsek's radius test in k_in_vision mode). */
static void check_big_flocks_same_bits(int dim) {
    enum { NB = 8 };
    static const char *const name[2][NB] = {
        {"lab_5000", "walls_fov_5000", "open_points_5000", "vicsek_5000", "topo_walls_5000",
         "topo_wrap_fov_5000", "topo_k20_5000", "topo_vicsek_vision_5000"},
        {"lab3_5000", "walls_fov3_5000", "open_points3_5000", "vicsek3_5000", "topo_walls3_5000",
         "topo_wrap_fov3_5000", "topo_k20_3_5000", "topo_vicsek_vision3_5000"}};
    scenario sc[NB];
    for (int i = 0; i < NB; i++) {
        sc[i] = (scenario){name[dim - 2][i], lab_dim(5000, dim), {0}};
        boids_params *p = &sc[i].p;
        if (i == 1 || i == 4) p->boundary = BOIDS_BOUNDARY_WALLS;
        if (i == 1) p->fov = 240;
        if (i == 2) p->boundary = BOIDS_BOUNDARY_OPEN, p->predator = p->food = 1;
        if (i == 3 || i == 7) p->model = BOIDS_MODEL_VICSEK, p->noise = 0.4, p->speed = 120;
        if (i >= 4) p->neighbours = BOIDS_NEIGHBOURS_TOPOLOGICAL;
        if (i == 5) p->boundary = BOIDS_BOUNDARY_WRAP, p->fov = 240;
        if (i == 6) p->k = 20;
        if (i == 7) p->k_in_vision = 1;
        alloc_random(&sc[i], 5000, 13 + (uint64_t)i);
        check_same_bits(&sc[i], dim == 2 && i < 2 ? 20 : 8);
    }
    /* Without the test hook the backend picks all threads or one per step by timing: the
     * same bits whatever it picks. */
    const scenario *big = &sc[0];
    boids_error err;
    boids_backend *b = boids_cpu_create(&big->f, 2, &err);
    if (!b) die("boids_cpu_create", &err);
    boids_flock out;
    if (boids_flock_alloc_dim(&out, big->f.n, dim, &err)) die("alloc", &err);
    for (int i = 0; i < 20; i++)
        if (boids_backend_step(b, &big->p, 3, &err)) die(big->name, &err);
    if (boids_backend_download(b, &out, &err)) die(big->name, &err);
    uint64_t h = boids_flock_hash(&out), ref = run_hash(big, 1, 0, 60);
    CHECK(h == ref, "%s: timed thread pick gives %016" PRIx64 ", 1 thread %016" PRIx64, big->name,
          h, ref);
    boids_flock_free(&out);
    boids_backend_destroy(b);
    for (int i = 0; i < NB; i++) boids_flock_free(&sc[i].f);
}

/* Hash of the state after `steps` steps from s's flock, downloaded and uploaded again
 * (into a new backend) after the first `split` of them: the state then restarts in id
 * order, where a running backend holds it in the previous step's cell order. */
static uint64_t resumed_hash(const scenario *s, int threads, unsigned split, unsigned steps) {
    boids_error err;
    boids_flock mid, out;
    const int dim = boids_flock_dim(&s->f);
    if (boids_flock_alloc_dim(&mid, s->f.n, dim, &err) ||
        boids_flock_alloc_dim(&out, s->f.n, dim, &err))
        die("alloc", &err);
    boids_backend *a = make_cpu(&s->f, threads);
    if (boids_backend_step(a, &s->p, split, &err)) die(s->name, &err);
    if (boids_backend_download(a, &mid, &err)) die(s->name, &err);
    boids_backend_destroy(a);
    boids_backend *b = make_cpu(&mid, threads);
    if (boids_backend_step(b, &s->p, steps - split, &err)) die(s->name, &err);
    if (boids_backend_download(b, &out, &err)) die(s->name, &err);
    boids_backend_destroy(b);
    uint64_t h = boids_flock_hash(&out);
    boids_flock_free(&mid);
    boids_flock_free(&out);
    return h;
}

/* Resume bit for bit (Reynolds, no noise stream to restart): K steps straight equal K / 2
 * steps, a save and a load, and K / 2 more, for every boundary, both neighbour kinds, on 1
 * and 2 threads, in dimension dim. Enough boids that 2 threads share the work and that boids
 * cross cells: K = 200 in the plane; 60 in the box, where a boid moves 2 to 3 units a step
 * and a cell is about 50 wide. */
static void check_resume(int dim) {
    static const char *const bname[] = {"wrap", "walls", "open"};
    const unsigned steps = dim == 2 ? 200 : 60;
    for (int bnd = BOIDS_BOUNDARY_WRAP; bnd <= BOIDS_BOUNDARY_OPEN; bnd++)
        for (int topo = 0; topo <= 1; topo++) {
            scenario s = {"resume", lab_dim(3000, dim), {0}};
            s.p.boundary = (boids_boundary)bnd;
            s.p.neighbours = topo ? BOIDS_NEIGHBOURS_TOPOLOGICAL : BOIDS_NEIGHBOURS_METRIC;
            alloc_random(&s, 3000, 20 + (uint64_t)bnd);
            for (int threads = 1; threads <= 2; threads++) {
                uint64_t straight = run_hash(&s, threads, 0, steps);
                uint64_t resumed = resumed_hash(&s, threads, steps / 2, steps);
                CHECK(resumed == straight,
                      "resume %d-D %s %s %d threads: %u + %u steps give %016" PRIx64
                      ", %u straight %016" PRIx64,
                      dim, bname[bnd], topo ? "topological" : "metric", threads, steps / 2,
                      steps / 2, resumed, steps, straight);
            }
            printf("resume %d-D %-5s %-11s %u steps = %u + save/load + %u on 1 and 2 threads\n",
                   dim, bname[bnd], topo ? "topological" : "metric", steps, steps / 2, steps / 2);
            boids_flock_free(&s.f);
        }
}

int main(void) {
    enum { NS = 15 };
    scenario sc[NS];
    int ns = 0;
    add_rule_scenarios(sc, &ns);
    add_dense_cluster(sc, &ns);
    add_edges(sc, &ns);
    add_rest(sc, &ns);
    add_cell_edges(sc, &ns);
    add_narrow_worlds(sc, &ns);
    add_extremes(sc, &ns);
    CHECK(ns == NS && sc[ns - 1].f.n == 2, "scenario count %d", ns);

    for (int i = 0; i < ns; i++) check_scenario(&sc[i]);
    for (int i = 0; i < ns; i++) check_same_bits(&sc[i], 10);
    check_upload_download();
    for (int dim = 2; dim <= 3; dim++) {
        check_big_flocks_same_bits(dim);
        check_resume(dim);
    }

    for (int i = 0; i < ns; i++) boids_flock_free(&sc[i].f);
    return CHECK_DONE("cpu_grid_test");
}
