/* SPDX-License-Identifier: MIT */
/* GPU backend tests that `boids verify` does not cover: deterministic mode, device limits,
 * the bounded grid, the context. Every test runs on a debug context with per-stage error
 * checks; any GL error or high-severity debug message fails it. Exit 77 (skip) only when no
 * GL 4.3 context can be made at all, and then a failure with BOIDS_REQUIRE_GPU set. */
#include <stdlib.h>
#include <string.h>

#include "gpu_fixture.h"

/* Deterministic mode: the same initial state gives the same bits after K steps, in fresh
 * backends, for a flock whose cells hold many boids (where the atomic ranks vary). */
static void test_deterministic_same_bits(void) {
    boids_error err;
    boids_params p = boids_params_default();
    boids_flock f;
    boids_flock_alloc(&f, 6000, &err);
    boids_flock_randomize(&f, &p, 11);
    for (size_t i = 0; i < 1000; i++) { /* a dense corner: ~1000 boids in a few cells */
        f.x[i] = 10 + 0.08 * (double)(i % 977);
        f.y[i] = 10 + 0.05 * (double)(i % 991);
    }
    const unsigned steps = 40;
    uint64_t h1 = run_hash(&p, &f, 1, steps), h2 = run_hash(&p, &f, 1, steps);
    uint64_t h3 = run_hash(&p, &f, 1, steps);
    CHECK(h1 == h2 && h2 == h3, "deterministic hashes differ: %016llx %016llx %016llx",
          (unsigned long long)h1, (unsigned long long)h2, (unsigned long long)h3);
    /* Informational: whether the fast mode happened to vary on this device. */
    uint64_t f1 = run_hash(&p, &f, 0, steps), f2 = run_hash(&p, &f, 0, steps);
    printf("deterministic: %016llx x3; fast mode: %016llx %016llx (%s)\n", (unsigned long long)h1,
           (unsigned long long)f1, (unsigned long long)f2, f1 == f2 ? "equal this time" : "differ");
    boids_flock_free(&f);
}

/* The large-N paths on a small flock: the state bound as two storage blocks (split at 1024
 * slots, as N > 8,388,608 does at llvmpipe's 128 MiB blocks) and the per-boid stages on a 2-D
 * grid of work groups (7 along x, as N > 65,535 x 128 does) give the same bits as one block
 * and one row of groups, for either model and neighbour kind and in both modes' step. */
static void test_split_and_2d_dispatch_same_bits(void) {
    boids_error err;
    boids_flock f;
    boids_flock_alloc(&f, 3000, &err);
    for (int variant = 0; variant < 3; variant++) {
        boids_params p = boids_params_default();
        if (variant == 1) p.neighbours = BOIDS_NEIGHBOURS_TOPOLOGICAL;
        if (variant == 2) p.model = BOIDS_MODEL_VICSEK;
        boids_flock_randomize(&f, &p, 21);
        uint64_t h[2];
        for (int large = 0; large < 2; large++) {
            boids_gpu_options o = checked(1);
            if (large) {
                o.test_block_bytes = 16 * 1024;
                o.test_groups_x = 7;
            }
            boids_backend *b = boids_gpu_create(NULL, &f, &o, &err);
            CHECK(b != NULL, "create: %s", err.msg);
            if (!b) return;
            boids_flock out;
            boids_flock_alloc(&out, f.n, &err);
            CHECK(boids_backend_step(b, &p, 20, &err) == BOIDS_OK, "step: %s", err.msg);
            CHECK(boids_backend_download(b, &out, &err) == BOIDS_OK, "download: %s", err.msg);
            h[large] = boids_flock_hash(&out);
            boids_flock_free(&out);
            boids_backend_destroy(b);
        }
        CHECK(h[0] == h[1], "case %d: split + 2-D dispatch %016llx, plain %016llx", variant,
              (unsigned long long)h[1], (unsigned long long)h[0]);
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
static void test_not_finite_refused(void) {
    boids_error err;
    boids_params p = boids_params_default();
    boids_flock f, bad;
    CHECK(boids_flock_alloc(&f, 100, &err) == BOIDS_OK, "%s", err.msg);
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
        if (!boids_flock_alloc(&out, 100, &err) && !boids_backend_download(b, &out, &err))
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
static void test_upload_any_n_id_order(void) {
    boids_error err;
    boids_params p = boids_params_default();
    boids_flock a;
    boids_flock_alloc(&a, 50, &err);
    boids_flock_randomize(&a, &p, 8);
    boids_gpu_options o = checked(0);
    boids_backend *g = boids_gpu_create(NULL, &a, &o, &err);
    CHECK(g != NULL, "create: %s", err.msg);
    if (!g) return;
    const size_t ns[] = {3000, 1, 777};
    for (size_t k = 0; k < 3; k++) {
        boids_flock f, out;
        boids_flock_alloc(&f, ns[k], &err);
        boids_flock_alloc(&out, ns[k], &err);
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
            bad += out.x[i] != (double)(float)f.x[i] || out.vy[i] != (double)(float)f.vy[i];
        CHECK(bad == 0, "%zu boids not returned in id order (N %zu)", bad, ns[k]);
        boids_flock_free(&f);
        boids_flock_free(&out);
    }
    boids_backend_destroy(g);
    boids_flock_free(&a);
}

int main(void) {
    boids_error err;
    gl = boids_gl_create(1, &err);
    if (!gl) {
        return no_gpu_exit("gpu_test", err.msg);
    }
    printf("GL: %s, %s (EGL %s)\n", boids_gl_renderer(gl), boids_gl_version(gl),
           boids_gl_platform(gl));
    CHECK(strlen(boids_gl_renderer(gl)) > 0, "renderer string");
    test_deterministic_same_bits();
    test_limit_count();
    test_not_finite_refused();
    test_bounded_grid();
    test_upload_any_n_id_order();
    test_split_and_2d_dispatch_same_bits();
    test_variants_same_bits();
    const boids_gl_debug *log = boids_gl_debug_log(gl);
    CHECK(log->errors == 0, "%lu GL debug errors, last: %s", log->errors, log->last_error);
    boids_gl_destroy(gl);
    return CHECK_DONE("gpu_test");
}
