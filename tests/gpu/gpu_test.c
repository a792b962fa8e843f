/* SPDX-License-Identifier: MIT */
/* GPU backend tests that `boids verify` does not cover, each in the plane and the box (dim 2
 * and 3) where the property is one of both: the neighbour sets and one step against cpu-ref
 * for both models, both neighbour rules and every boundary; deterministic mode; the state
 * layout the viewer draws from; upload and download in id order; the state that is not
 * finite; the 2-D grid of work groups; the refusals (a flock or parameters of the other
 * dim, the fused variant in 3-D). The plane's own: device limits, the bounded grid, the state
 * split over two storage blocks, the variants. Every test runs on a debug context with
 * per-stage error checks; any GL error or high-severity debug message fails it. Exit 77
 * (skip) only when no GL 4.3 context can be made at all, and then a failure with
 * BOIDS_REQUIRE_GPU set. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glad/gl.h>

#include "../backend_compare.h"
#include "gpu_fixture.h"

/* A square (dim 2) or cubic (dim 3) world of the given side, predator and food at its centre. */
static boids_params world_params(int dim, double side, int boundary) {
    boids_params p = boids_params_default();
    p.dim = dim;
    p.width = p.height = p.depth = side;
    p.boundary = boundary;
    p.predator_x = p.predator_y = p.predator_z = side / 2;
    p.food_x = p.food_y = p.food_z = side / 2;
    return p;
}

/* f after `steps` steps of p on backend b (destroyed here). */
static boids_flock run(boids_backend *b, const boids_params *p, size_t n, unsigned steps) {
    boids_error err;
    boids_flock out;
    if (boids_flock_alloc_dim(&out, n, p->dim, &err)) die("alloc", &err);
    if (boids_backend_step(b, p, steps, &err)) die("step", &err);
    if (boids_backend_download(b, &out, &err)) die("download", &err);
    boids_backend_destroy(b);
    return out;
}

static boids_backend *gpu(const boids_flock *f, int deterministic) {
    boids_error err;
    boids_gpu_options o = checked(deterministic);
    boids_backend *b = boids_gpu_create(NULL, f, &o, &err);
    if (!b) die("gpu create", &err);
    return b;
}

static boids_backend *ref(const boids_flock *f) {
    boids_error err;
    boids_backend *b = boids_cpu_ref_create(f, &err);
    if (!b) die("cpu-ref create", &err);
    return b;
}

/* Boids whose neighbour count or set differs between the GPU and cpu-ref. Random states
 * put no pair within float rounding (~1e-7 relative) of a threshold but with a chance of
 * about 1e-4 per scenario (the argument of tests/dim3_test.c for cpu), so the sets must be
 * equal; `boids verify` is the check that allows the float band. */
static size_t neighbour_diffs(const boids_flock *f, const boids_params *p, int deterministic) {
    boids_error err;
    boids_backend *r = ref(f), *g = gpu(f, deterministic);
    size_t diffs = compare_neighbour_sets(r, g, p, f->n, &err);
    if (diffs == (size_t)-1) die("neighbours", &err);
    boids_backend_destroy(r), boids_backend_destroy(g);
    return diffs;
}

static const char *const model_name[2] = {"reynolds", "vicsek"};
static const char *const topo_name[2] = {"metric", "topological"};
static const char *const bnd_name[3] = {"wrap", "walls", "open"};

/* Every model, neighbour rule and boundary in dimension dim, as tests/dim3_test.c runs cpu
 * against cpu-ref (a field of view of 270 degrees, predator, food and walls active, Vicsek
 * noise on): the same neighbour sets in both dims; in the box one step within the bound
 * below. The same 2,500 boids on the plane's 400 x 400 have about 6 times the box's
 * neighbours (some 120 a boid within R = 50, against 20 in 400^3), and their velocity sums
 * come out up to 3e-3 off, beyond an absolute bound argued from a few roundings: the plane's
 * step is `boids verify`'s (the gpu_verify_* tests), whose tolerance is calibrated on a
 * float step from the same state. */
static void test_against_ref(int dim) {
    for (int model = 0; model < 2; model++)
        for (int topo = 0; topo < 2; topo++)
            for (int bnd = 0; bnd < 3; bnd++) {
                boids_params p = world_params(dim, 400, bnd);
                p.model = model, p.neighbours = topo, p.fov = 270, p.noise = 0.5, p.speed = 150;
                p.predator = p.food = 1, p.wall_margin = 40, p.wall_weight = 2;
                boids_flock f = random_flock(&p, 2500, 40 + (uint64_t)(6 * model + 3 * topo + bnd));
                for (int det = 0; det < 2; det++) {
                    size_t nd = neighbour_diffs(&f, &p, det);
                    CHECK(nd == 0, "%d-D %s %s %s det %d: %zu neighbour sets differ", dim,
                          model_name[model], topo_name[topo], bnd_name[bnd], det, nd);
                    if (dim != 3) continue;
                    boids_flock r = run(ref(&f), &p, f.n, 1), g = run(gpu(&f, det), &p, f.n, 1);
                    double dp, dv;
                    compare_states(&g, &r, &p, &dp, &dv);
                    /* tests/dim3_test.c's bound for cpu: 1e-3 is ~30 float ulps of positions
                     * (up to 400) and velocities (up to 180), which covers the steering sums'
                     * roundings; GLSL's division and sqrt add at most ~3 ulps each over C's
                     * correctly rounded ones (GLSL 4.30 section 4.7.1), a few more ulps. */
                    CHECK(dp < 1e-3 && dv < 1e-3, "%d-D %s %s %s det %d: one step off by %g / %g",
                          dim, model_name[model], topo_name[topo], bnd_name[bnd], det, dp, dv);
                    boids_flock_free(&r), boids_flock_free(&g);
                }
                boids_flock_free(&f);
            }
}

/* Deterministic mode: the same initial state gives the same bits after K steps, in fresh
 * backends: for a flock whose cells hold many boids (a dense corner, where the atomic ranks
 * vary), and for both models and neighbour rules (cells sorted by id). */
static void test_deterministic_same_bits(int dim) {
    boids_params p = boids_params_default();
    p.dim = dim;
    boids_flock f = random_flock(&p, 6000, 11);
    for (size_t i = 0; i < 1000; i++) { /* a dense corner: ~1000 boids in a few cells */
        f.x[i] = 10 + 0.08 * (double)(i % 977);
        f.y[i] = 10 + 0.05 * (double)(i % 991);
        if (dim == 3) f.z[i] = 10 + 0.06 * (double)(i % 983);
    }
    const unsigned steps = 40;
    uint64_t h1 = run_hash(&p, &f, 1, steps), h2 = run_hash(&p, &f, 1, steps);
    uint64_t h3 = run_hash(&p, &f, 1, steps);
    CHECK(h1 == h2 && h2 == h3, "%d-D deterministic hashes differ: %016llx %016llx %016llx", dim,
          (unsigned long long)h1, (unsigned long long)h2, (unsigned long long)h3);
    /* Informational: whether the fast mode happened to vary on this device. */
    uint64_t f1 = run_hash(&p, &f, 0, steps), f2 = run_hash(&p, &f, 0, steps);
    printf("%d-D deterministic: %016llx x3; fast mode: %016llx %016llx (%s)\n", dim,
           (unsigned long long)h1, (unsigned long long)f1, (unsigned long long)f2,
           f1 == f2 ? "equal this time" : "differ");
    boids_flock_free(&f);
    for (int model = 0; model < 2; model++)
        for (int topo = 0; topo < 2; topo++) {
            boids_params q = world_params(dim, 300, BOIDS_BOUNDARY_WRAP);
            q.model = model, q.neighbours = topo, q.fov = 300, q.noise = 0.3, q.speed = 120;
            boids_flock g = random_flock(&q, 6000, 7 + (uint64_t)(2 * model + topo));
            uint64_t a = run_hash(&q, &g, 1, 20), b = run_hash(&q, &g, 1, 20);
            CHECK(a == b, "%d-D %s %s: deterministic mode repeats bit for bit (%016llx, %016llx)",
                  dim, model_name[model], topo_name[topo], (unsigned long long)a,
                  (unsigned long long)b);
            boids_flock_free(&g);
        }
}

/* Upload then download returns the flock; the draw buffers hold the state of
 * shaders/state.glsl, vec4 (x, y, vx, vy) in the plane, vec4 (x, y, z, 0) and
 * vec4 (vx, vy, vz, 0) in the box; what a backend of each dim refuses. */
static void test_layout_and_refusals(int dim) {
    boids_params p = world_params(dim, 100, BOIDS_BOUNDARY_WALLS);
    p.depth = 50;
    boids_flock f = random_flock(&p, 300, 3);
    boids_error err;
    boids_backend *b = gpu(&f, 0);
    boids_flock out;
    if (boids_flock_alloc_dim(&out, f.n, dim, &err)) die("alloc", &err);
    CHECK(boids_backend_download(b, &out, &err) == BOIDS_OK, "download: %s", err.msg);
    int same = 1;
    for (size_t i = 0; i < f.n; i++) {
        same &= out.x[i] == (float)f.x[i] && out.y[i] == (float)f.y[i] &&
                out.vx[i] == (float)f.vx[i] && out.vy[i] == (float)f.vy[i];
        if (dim == 3) same &= out.z[i] == (float)f.z[i] && out.vz[i] == (float)f.vz[i];
    }
    CHECK(same, "%d-D: upload and download round-trip the state rounded to float", dim);
    float pos[4], vel[4] = {0, 0, 0, 0};
    uint32_t id;
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, boids_gpu_state_buffer(b));
    glGetBufferSubData(GL_SHADER_STORAGE_BUFFER, 16 * 5, 16, pos);
    if (dim == 3) {
        glBindBuffer(GL_SHADER_STORAGE_BUFFER, boids_gpu_velocity_buffer(b));
        glGetBufferSubData(GL_SHADER_STORAGE_BUFFER, 16 * 5, 16, vel);
    }
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, boids_gpu_id_buffer(b));
    glGetBufferSubData(GL_SHADER_STORAGE_BUFFER, 4 * 5, 4, &id);
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, 0);
    if (dim == 3)
        CHECK(id == 5 && pos[0] == (float)f.x[5] && pos[1] == (float)f.y[5] &&
                  pos[2] == (float)f.z[5] && pos[3] == 0 && vel[0] == (float)f.vx[5] &&
                  vel[1] == (float)f.vy[5] && vel[2] == (float)f.vz[5] && vel[3] == 0,
              "draw layout: slot 5 after upload is boid 5 as (x, y, z, 0), (vx, vy, vz, 0)");
    else
        CHECK(id == 5 && pos[0] == (float)f.x[5] && pos[1] == (float)f.y[5] &&
                  pos[2] == (float)f.vx[5] && pos[3] == (float)f.vy[5],
              "draw layout: slot 5 after upload is boid 5 as (x, y, vx, vy)");
    const int other = dim == 3 ? 2 : 3;
    boids_params p2 = p;
    p2.dim = other;
    CHECK(boids_backend_step(b, &p2, 1, &err) == BOIDS_ERR_INPUT,
          "%d-D: dim = %d parameters refused", dim, other);
    boids_flock flat;
    if (boids_flock_alloc_dim(&flat, 10, other, &err)) die("alloc", &err);
    boids_flock_randomize(&flat, &p2, 1);
    CHECK(boids_backend_upload(b, &flat, &err) == BOIDS_ERR_INPUT, "%d-D: a %d-D upload refused",
          dim, other);
    boids_backend_destroy(b);
    boids_gpu_options o = checked(0);
    o.variant = BOIDS_GPU_VARIANT_FUSED;
    b = boids_gpu_create(NULL, &f, &o, &err);
    if (dim == 3)
        CHECK(!b && err.status == BOIDS_ERR_INPUT && strstr(err.msg, "fused"),
              "the fused variant refuses 3-D: %s", b ? "(made)" : err.msg);
    else
        CHECK(b != NULL, "the fused variant runs 2-D: %s", b ? "" : err.msg);
    boids_backend_destroy(b);
    boids_flock_free(&f), boids_flock_free(&out), boids_flock_free(&flat);
}

/* The large-N paths on a small flock: the per-boid stages on a 2-D grid of work groups (7
 * along x, as N > 65,535 x 128 does) and, in the plane, the state bound as two storage blocks
 * (split at 1024 slots, as N > 8,388,608 does at llvmpipe's 128 MiB blocks; the box refuses
 * N beyond one block) give the same bits as one block and one row of groups, for either
 * model and neighbour kind. */
static void test_split_and_2d_dispatch_same_bits(int dim) {
    boids_error err;
    boids_flock f;
    boids_flock_alloc_dim(&f, 3000, dim, &err);
    for (int variant = 0; variant < 3; variant++) {
        boids_params p = boids_params_default();
        p.dim = dim;
        if (variant == 1) p.neighbours = BOIDS_NEIGHBOURS_TOPOLOGICAL;
        if (variant == 2) p.model = BOIDS_MODEL_VICSEK;
        boids_flock_randomize(&f, &p, 21);
        uint64_t h[2];
        for (int large = 0; large < 2; large++) {
            boids_gpu_options o = checked(1);
            if (large) {
                if (dim == 2) o.test_block_bytes = 16 * 1024;
                o.test_groups_x = 7;
            }
            boids_backend *b = boids_gpu_create(NULL, &f, &o, &err);
            CHECK(b != NULL, "create: %s", err.msg);
            if (!b) return;
            boids_flock out;
            boids_flock_alloc_dim(&out, f.n, dim, &err);
            CHECK(boids_backend_step(b, &p, 20, &err) == BOIDS_OK, "step: %s", err.msg);
            CHECK(boids_backend_download(b, &out, &err) == BOIDS_OK, "download: %s", err.msg);
            h[large] = boids_flock_hash(&out);
            boids_flock_free(&out);
            boids_backend_destroy(b);
        }
        CHECK(h[0] == h[1], "%d-D case %d: split + 2-D dispatch %016llx, plain %016llx", dim,
              variant, (unsigned long long)h[1], (unsigned long long)h[0]);
    }
    boids_flock_free(&f);
}

/* Deterministic state after steps of variant v: 7 steps, then 13 with a larger vision radius
 * (another grid: what the fused steer counted on the old one must not be used). */
static uint64_t variant_hash(const boids_params *p, const boids_flock *f, boids_gpu_variant v) {
    boids_error err;
    boids_gpu_options o = checked(1);
    o.variant = v;
    boids_backend *b = boids_gpu_create(NULL, f, &o, &err);
    CHECK(b != NULL, "create %s: %s", boids_gpu_variant_name(v), err.msg);
    if (!b) return 0;
    boids_params q = *p;
    q.vision_radius *= 1.5;
    boids_flock out;
    boids_flock_alloc(&out, f->n, &err);
    CHECK(boids_backend_step(b, p, 7, &err) == BOIDS_OK, "step: %s", err.msg);
    CHECK(boids_backend_step(b, &q, 13, &err) == BOIDS_OK, "step: %s", err.msg);
    CHECK(boids_backend_download(b, &out, &err) == BOIDS_OK, "download: %s", err.msg);
    uint64_t h = boids_flock_hash(&out);
    boids_flock_free(&out);
    boids_backend_destroy(b);
    return h;
}

/* Every variant sums in the plain variant's order in deterministic mode (the sort by id
 * fixes each cell's order, whichever stage took the ranks), so the bits must be the same:
 * Reynolds and Vicsek with metric neighbours (fused), and topological (run as plain). */
static void test_variants_same_bits(void) {
    boids_error err;
    boids_flock f;
    boids_flock_alloc(&f, 4000, &err);
    for (int c = 0; c < 3; c++) {
        boids_params p = boids_params_default();
        if (c == 1) p.model = BOIDS_MODEL_VICSEK;
        if (c == 2) p.neighbours = BOIDS_NEIGHBOURS_TOPOLOGICAL;
        boids_flock_randomize(&f, &p, 31);
        uint64_t h0 = variant_hash(&p, &f, BOIDS_GPU_VARIANT_PLAIN);
        for (int v = 1; v < BOIDS_GPU_VARIANTS; v++) {
            uint64_t h = variant_hash(&p, &f, (boids_gpu_variant)v);
            CHECK(h == h0, "case %d: variant %s %016llx, plain %016llx", c,
                  boids_gpu_variant_name((boids_gpu_variant)v), (unsigned long long)h,
                  (unsigned long long)h0);
        }
    }
    boids_flock_free(&f);
}

/* N beyond the device: BOIDS_ERR_LIMIT naming the largest N, before any array is read
 * (the flock's arrays are NULL here), with no GL error. Also through upload(). */
static void test_limit_count(void) {
    boids_error err;
    char why[160];
    size_t max = boids_gpu_max_count(why, sizeof why);
    CHECK(max > 0, "max count");
    printf("largest N: %zu (%s)\n", max, why);
    /* The 2-D grid of work groups and the state split over two blocks leave 10M boids to
     * every device whose storage blocks hold 80 MB (8 bytes a boid), GL 4.3's minimum group
     * counts of 65,535 x 65,535 included. */
    CHECK(max >= 10000000 || strstr(why, "GL_MAX_SHADER_STORAGE_BLOCK_SIZE"),
          "N limited below 10M by %s", why);
    char maxs[32];
    snprintf(maxs, sizeof maxs, "%zu", max);
    /* Allocated (the pages stay untouched: the size is refused before any is read). */
    boids_flock huge;
    CHECK(boids_flock_alloc(&huge, max + 1, &err) == BOIDS_OK, "huge flock: %s", err.msg);
    boids_gpu_options o = checked(0);
    boids_backend *b = boids_gpu_create(NULL, &huge, &o, &err);
    CHECK(b == NULL, "N = max + 1 accepted");
    CHECK(err.status == BOIDS_ERR_LIMIT, "status %d: %s", (int)err.status, err.msg);
    CHECK(strstr(err.msg, maxs) != NULL, "message does not name the largest N %s: %s", maxs,
          err.msg);

    boids_params p = boids_params_default();
    boids_flock f;
    boids_flock_alloc(&f, 100, &err);
    boids_flock_randomize(&f, &p, 3);
    b = boids_gpu_create(NULL, &f, &o, &err);
    CHECK(b != NULL, "create: %s", err.msg);
    if (b) {
        CHECK(boids_backend_upload(b, &huge, &err) == BOIDS_ERR_LIMIT, "upload: %s", err.msg);
        /* The backend is still the 100-boid flock and still steps. */
        CHECK(boids_backend_n(b) == 100, "n %zu", boids_backend_n(b));
        CHECK(boids_backend_step(b, &p, 2, &err) == BOIDS_OK, "step after refused upload: %s",
              err.msg);
        boids_backend_destroy(b);
    }
    boids_flock_free(&huge);
    boids_flock_free(&f);
}

/* A state that is not finite (a NaN, an inf) is refused at creation and at upload, as by the
 * cpu backends (tests/api_test.c), and a refused upload keeps the state. */
static void test_not_finite_refused(int dim) {
    boids_error err;
    boids_params p = boids_params_default();
    p.dim = dim;
    boids_flock f, bad;
    CHECK(boids_flock_alloc_dim(&f, 100, dim, &err) == BOIDS_OK, "%s", err.msg);
    boids_flock_randomize(&f, &p, 3);
    CHECK(boids_flock_copy(&bad, &f, &err) == BOIDS_OK, "%s", err.msg);
    bad.vx[17] = NAN;
    boids_gpu_options o = checked(1);
    boids_backend *b = boids_gpu_create(NULL, &bad, &o, &err);
    CHECK(!b && err.status == BOIDS_ERR_INPUT && strstr(err.msg, "boid 17"),
          "create with a NaN: %s", err.msg);
    boids_backend_destroy(b);
    b = boids_gpu_create(NULL, &f, &o, &err);
    CHECK(b != NULL, "create: %s", err.msg);
    bad.vx[17] = INFINITY;
    if (b) {
        uint64_t h = 0;
        boids_flock out;
        if (!boids_flock_alloc_dim(&out, 100, dim, &err) && !boids_backend_download(b, &out, &err))
            h = boids_flock_hash(&out);
        CHECK(boids_backend_upload(b, &bad, &err) == BOIDS_ERR_INPUT && strstr(err.msg, "boid 17"),
              "upload with an inf: %s", err.msg);
        CHECK(!boids_backend_download(b, &out, &err) && boids_flock_hash(&out) == h,
              "a refused upload changed the state");
        boids_flock_free(&out);
        boids_backend_destroy(b);
    }
    boids_flock_free(&bad);
    boids_flock_free(&f);
}

/* A tiny radius in a huge world would need 10^18 cells: the grid is bounded (cells made
 * wider), and neighbours are still exactly those of brute force. Boids sit on a lattice of
 * spacing 2^-8 near the origin, so every coordinate and distance is exact in float and no
 * pair is near the radius: the sets must be equal, not just close. */
static void test_bounded_grid(void) {
    boids_error err;
    boids_params p = boids_params_default();
    p.width = p.height = 1e7;
    p.vision_radius = 0.01;
    p.separation_radius = 0.005;
    p.max_speed = 0.001;
    p.min_speed = 0;
    p.max_force = 0.0001;
    p.initial_speed = 0.0005;
    CHECK(boids_params_validate(&p, &err) == BOIDS_OK, "params: %s", err.msg);
    boids_flock f;
    const size_t side = 20;
    boids_flock_alloc(&f, side * side, &err);
    boids_flock_randomize(&f, &p, 5);
    for (size_t i = 0; i < f.n; i++) {
        f.x[i] = 1.0 + (double)(i % side) / 256.0;
        f.y[i] = 1.0 + (double)(i / side) / 256.0;
    }
    boids_gpu_options o = checked(0);
    boids_backend *g = boids_gpu_create(NULL, &f, &o, &err);
    boids_backend *r = boids_cpu_ref_create(&f, &err);
    CHECK(g && r, "create: %s", err.msg);
    if (!g || !r) return;
    uint32_t *gc = malloc(f.n * 4), *rc = malloc(f.n * 4);
    uint64_t *gh = malloc(f.n * 8), *rh = malloc(f.n * 8);
    CHECK(boids_backend_neighbours(g, &p, gc, gh, &err) == BOIDS_OK, "gpu neighbours: %s", err.msg);
    CHECK(boids_backend_neighbours(r, &p, rc, rh, &err) == BOIDS_OK, "ref neighbours: %s", err.msg);
    unsigned ncx, ncy;
    boids_gpu_grid(g, &ncx, &ncy);
    CHECK((size_t)ncx * ncy <= BOIDS_GPU_MAX_CELLS, "grid %u x %u", ncx, ncy);
    printf("bounded grid: %u x %u cells for a 1e7 world and radius 0.01\n", ncx, ncy);
    size_t bad = 0, total = 0;
    for (size_t i = 0; i < f.n; i++) {
        bad += gc[i] != rc[i] || gh[i] != rh[i];
        total += rc[i];
    }
    CHECK(total > 4 * f.n, "the lattice should give every boid neighbours (%zu pairs)", total);
    CHECK(bad == 0, "%zu boids with another neighbour set than brute force", bad);
    CHECK(boids_backend_step(g, &p, 3, &err) == BOIDS_OK, "step: %s", err.msg);
    free(gc);
    free(rc);
    free(gh);
    free(rh);
    boids_backend_destroy(g);
    boids_backend_destroy(r);
    boids_flock_free(&f);
}

/* Upload changes N both ways; download returns id order whatever the GPU order. */
static void test_upload_any_n_id_order(int dim) {
    boids_error err;
    boids_params p = boids_params_default();
    p.dim = dim;
    boids_flock a;
    boids_flock_alloc_dim(&a, 50, dim, &err);
    boids_flock_randomize(&a, &p, 8);
    boids_gpu_options o = checked(0);
    boids_backend *g = boids_gpu_create(NULL, &a, &o, &err);
    CHECK(g != NULL, "create: %s", err.msg);
    if (!g) return;
    const size_t ns[] = {3000, 1, 777};
    for (size_t k = 0; k < 3; k++) {
        boids_flock f, out;
        boids_flock_alloc_dim(&f, ns[k], dim, &err);
        boids_flock_alloc_dim(&out, ns[k], dim, &err);
        boids_flock_randomize(&f, &p, 100 + k);
        CHECK(boids_backend_upload(g, &f, &err) == BOIDS_OK, "upload %zu: %s", ns[k], err.msg);
        /* A step reorders the GPU copy by cell; stepping 0 more and reading back must give
         * the uploaded values (rounded to float) in id order. */
        CHECK(boids_backend_step(g, &p, 1, &err) == BOIDS_OK, "step: %s", err.msg);
        boids_flock_randomize(&f, &p, 100 + k);
        CHECK(boids_backend_upload(g, &f, &err) == BOIDS_OK, "re-upload: %s", err.msg);
        CHECK(boids_backend_download(g, &out, &err) == BOIDS_OK, "download: %s", err.msg);
        size_t bad = 0;
        for (size_t i = 0; i < f.n; i++)
            bad += out.x[i] != (double)(float)f.x[i] || out.vy[i] != (double)(float)f.vy[i] ||
                   (dim == 3 && out.z[i] != (double)(float)f.z[i]);
        CHECK(bad == 0, "%d-D: %zu boids not returned in id order (N %zu)", dim, bad, ns[k]);
        boids_flock_free(&f);
        boids_flock_free(&out);
    }
    boids_backend_destroy(g);
    boids_flock_free(&a);
}

/* Species (docs/model.md, "Species"): three kinds of Reynolds boids with their own speeds,
 * radii and weights, couplings and every rule between species (chase, flee, avoid), and
 * three Vicsek kinds with their own speed, radius and noise and couplings of 0, 0.5 and 2,
 * with metric and with topological neighbours (k = 7); one step against cpu-ref in both
 * modes, and deterministic mode's repeat. The bound is the float CPU path's own error
 * against cpu-ref on the same step, times 4, and at least test_against_ref's 1e-3 (its
 * reason): float rounding of the same sums, coupled by a factor each, is what both paths
 * carry (`boids verify` calibrates its tolerance so); the avoid rule's -d / |d|^2 of a close
 * pair amplifies it to about 1e-3 in the plane. */
static void test_species(int dim) {
    for (int pass = 0; pass < 4; pass++) {
        const int model = pass % 2, topo = pass / 2;
        boids_params p = world_params(dim, dim == 2 ? 1000 : 400, BOIDS_BOUNDARY_WRAP);
        p.model = model, p.noise = 0.5, p.speed = 150, p.fov = 270;
        if (topo) { /* the k nearest: Reynolds at any distance, Vicsek by its species' radius */
            p.neighbours = BOIDS_NEIGHBOURS_TOPOLOGICAL;
            p.k = 7;
            p.k_in_vision = model;
        }
        p.species = 3;
        p.sp[0] = (boids_species){.count = 40,
                                  .speed = 200,
                                  .max_speed = 240,
                                  .min_speed = 100,
                                  .max_force = 10,
                                  .vision_radius = 70,
                                  .separation_radius = 25,
                                  .separation_weight = 1,
                                  .alignment_weight = 0,
                                  .cohesion_weight = 0.5,
                                  .noise = 0.2};
        p.sp[1] = p.sp[0];
        p.sp[1].count = 300, p.sp[1].vision_radius = 40, p.sp[1].noise = 1;
        p.coupling[0][1] = 0, p.coupling[1][2] = 0.5, p.coupling[2][0] = 2;
        p.rule[1][0] = BOIDS_RULE_CHASE, p.rule_radius[1][0] = 90;
        p.rule[0][1] = BOIDS_RULE_FLEE, p.rule_radius[0][1] = 60, p.rule_weight[0][1] = 3;
        p.rule[2][0] = BOIDS_RULE_AVOID, p.rule_radius[2][0] = 30;
        boids_flock f = random_flock(&p, 1500, 90 + (uint64_t)model);
        /* Each boid's neighbours by its own species' radius; exact sets as in
         * test_against_ref. */
        for (int det = 0; det < 2; det++) {
            size_t nd = neighbour_diffs(&f, &p, det);
            CHECK(nd == 0, "%d-D %s %s species det %d: %zu neighbour sets differ", dim,
                  model_name[model], topo_name[topo], det, nd);
        }
        boids_error err;
        boids_backend *cpu = boids_cpu_create(&f, 1, &err);
        if (!cpu) die("cpu create", &err);
        boids_flock r = run(ref(&f), &p, f.n, 1), c = run(cpu, &p, f.n, 1);
        double cp, cv;
        compare_states(&c, &r, &p, &cp, &cv);
        const double tp = fmax(4 * cp, 1e-3), tv = fmax(4 * cv, 1e-3);
        for (int det = 0; det < 2; det++) {
            boids_flock g = run(gpu(&f, det), &p, f.n, 1);
            double dp, dv;
            compare_states(&g, &r, &p, &dp, &dv);
            CHECK(dp <= tp && dv <= tv,
                  "%d-D %s %s species det %d: one step off by %g / %g (bounds %g / %g)", dim,
                  model_name[model], topo_name[topo], det, dp, dv, tp, tv);
            boids_flock_free(&g);
        }
        /* Deterministic mode repeats bit for bit with species too (5 steps, fresh backends). */
        uint64_t h1 = run_hash(&p, &f, 1, 5), h2 = run_hash(&p, &f, 1, 5);
        CHECK(h1 == h2, "%d-D %s %s species: deterministic mode repeats bit for bit", dim,
              model_name[model], topo_name[topo]);
        boids_flock_free(&r), boids_flock_free(&c), boids_flock_free(&f);
    }
}

int main(void) {
    boids_error err;
    gl = boids_gl_create(1, &err);
    if (!gl) return no_gpu_exit("gpu_test", err.msg);
    printf("GL: %s, %s (EGL %s)\n", boids_gl_renderer(gl), boids_gl_version(gl),
           boids_gl_platform(gl));
    CHECK(strlen(boids_gl_renderer(gl)) > 0, "renderer string");
    test_limit_count();
    test_bounded_grid();
    test_variants_same_bits();
    for (int dim = 2; dim <= 3; dim++) {
        test_layout_and_refusals(dim);
        test_not_finite_refused(dim);
        test_upload_any_n_id_order(dim);
        test_split_and_2d_dispatch_same_bits(dim);
        test_deterministic_same_bits(dim);
        test_against_ref(dim);
        test_species(dim);
    }
    const boids_gl_debug *log = boids_gl_debug_log(gl);
    CHECK(log->errors == 0, "%lu GL debug errors, last: %s", log->errors, log->last_error);
    boids_gl_destroy(gl);
    return CHECK_DONE("gpu_test");
}
