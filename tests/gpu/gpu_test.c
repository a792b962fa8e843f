/* GPU backend tests that `boids verify` does not cover: deterministic mode, device limits,
 * the bounded grid, the context. Every test runs on a debug context with per-stage error
 * checks; any GL error or high-severity debug message fails it. Exit 77 (skip) only when no
 * GL 4.3 context can be made at all. */
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

/* N beyond the device: BOIDS_ERR_LIMIT naming the largest N, before any array is read
 * (the flock's arrays are NULL here), with no GL error. Also through upload(). */
static void test_limit_count(void) {
    boids_error err;
    char why[160];
    size_t max = boids_gpu_max_count(why, sizeof why);
    CHECK(max > 0, "max count");
    printf("largest N: %zu (%s)\n", max, why);
    char maxs[32];
    snprintf(maxs, sizeof maxs, "%zu", max);
    boids_flock huge = {.n = max + 1};
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
        CHECK(b->n == 100, "n %zu", b->n);
        CHECK(boids_backend_step(b, &p, 2, &err) == BOIDS_OK, "step after refused upload: %s",
              err.msg);
        boids_backend_destroy(b);
    }
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
    CHECK(g->ops->neighbours(g, &p, gc, gh, &err) == BOIDS_OK, "gpu neighbours: %s", err.msg);
    CHECK(r->ops->neighbours(r, &p, rc, rh, &err) == BOIDS_OK, "ref neighbours: %s", err.msg);
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
        printf("SKIP: no OpenGL 4.3 context: %s\n", err.msg);
        return 77;
    }
    printf("GL: %s, %s (EGL %s)\n", boids_gl_renderer(gl), boids_gl_version(gl),
           boids_gl_platform(gl));
    CHECK(strlen(boids_gl_renderer(gl)) > 0, "renderer string");
    test_deterministic_same_bits();
    test_limit_count();
    test_bounded_grid();
    test_upload_any_n_id_order();
    const boids_gl_debug *log = boids_gl_debug_log(gl);
    CHECK(log->errors == 0, "%lu GL debug errors, last: %s", log->errors, log->last_error);
    boids_gl_destroy(gl);
    return CHECK_DONE("gpu_test");
}
