/* SPDX-License-Identifier: MIT */
/* Seed 003's symmetry checks (section 246.9) on every backend: rotating a square periodic
 * world's state by 90 degrees rotates the result, and two far-apart agents moving east keep
 * polarization 1 with no cohesion between them.
 *
 * The rotation (x, y, vx, vy) -> (W - y, x, -vy, vx) is made exact by choosing W = 512 and
 * positions that are multiples of 1/64: every rotated coordinate is representable in float
 * and double, and so is every offset between two boids. The rules contain no external
 * direction, so the rotated run must be the rotated original up to rounding:
 *  - cpu-ref (double, pairs in index order in both runs): the same operations on the same
 *    magnitudes; only atan2/cos/sin (Vicsek) and sums with swapped signs round differently,
 *    so 1e-9 of the world size (and of the speed) after 10 steps is ~10^4 rounding errors
 *    of room, while a rule that broke the symmetry moves boids by whole units;
 *  - cpu and gpu (float, grid order: the rotation changes which cell is visited first, so
 *    sums run in another order): one step, with 64 float spacings of the world size (and of
 *    the speed) as the bound: a sum of ~40 neighbour terms reordered, each rounded once.
 * Exit 77 (skip) for the gpu part only when no GL 4.3 context can be made at all, and then
 * a failure with BOIDS_REQUIRE_GPU set (tests/require_gpu.h). */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "boids/backend.h"
#include "boids/gpu.h"
#include "check.h"
#include "require_gpu.h"

enum { N = 1500 };
static const double W = 512;
static boids_gl *gl;
static int gpu_missing;
static char gpu_missing_why[BOIDS_ERROR_MSG_MAX];

static boids_backend *make(const char *name, const boids_flock *f, boids_error *err) {
    if (!strcmp(name, "cpu-ref")) return boids_cpu_ref_create(f, err);
    if (!strcmp(name, "cpu")) return boids_cpu_create(f, 0, err);
    boids_gpu_options o = boids_gpu_options_default();
    o.deterministic = 1;
    o.check = 1;
    o.log = boids_gl_debug_log(gl);
    /* The backend takes ownership of a context it is given; share ours by passing NULL
     * (the current context). */
    return boids_gpu_create(NULL, f, &o, err);
}

static void run(const char *name, const boids_params *p, boids_flock *f, unsigned steps) {
    boids_error err;
    boids_backend *b = make(name, f, &err);
    CHECK(b != NULL, "%s: %s", name, err.msg);
    if (!b) return;
    CHECK(boids_backend_step(b, p, steps, &err) == BOIDS_OK, "%s: %s", name, err.msg);
    CHECK(boids_backend_download(b, f, &err) == BOIDS_OK, "%s: %s", name, err.msg);
    boids_backend_destroy(b);
}

static void rotate(const boids_flock *in, boids_flock *out) {
    for (size_t i = 0; i < in->n; i++) {
        out->x[i] = W - in->y[i];
        out->y[i] = in->x[i];
        out->vx[i] = -in->vy[i];
        out->vy[i] = in->vx[i];
    }
}

/* Periodic distance between two coordinates. */
static double pdist(double a, double b) {
    double d = fabs(a - b);
    return d > W / 2 ? W - d : d;
}

static void check_rotation(const char *backend, const char *model, boids_params p) {
    boids_error err;
    boids_flock a, b, ra;
    boids_flock_alloc(&a, N, &err);
    boids_flock_alloc(&b, N, &err);
    boids_flock_alloc(&ra, N, &err);
    boids_flock_randomize(&a, &p, 99);
    for (size_t i = 0; i < N; i++) { /* positions on the 1/64 lattice, W - y exact */
        a.x[i] = floor(a.x[i] * 64) / 64;
        a.y[i] = floor(a.y[i] * 64) / 64;
    }
    rotate(&a, &b);
    int exact = !strcmp(backend, "cpu-ref");
    unsigned steps = exact ? 10 : 1;
    run(backend, &p, &a, steps);
    run(backend, &p, &b, steps);
    rotate(&a, &ra);
    double tol_x = exact ? 1e-9 * W : 64 * FLT_EPSILON * W;
    double speed = p.model == BOIDS_MODEL_VICSEK ? p.speed : p.max_speed;
    double tol_v = exact ? 1e-9 * speed : 64 * FLT_EPSILON * speed;
    double ex = 0, ev = 0;
    for (size_t i = 0; i < N; i++) {
        ex = fmax(ex, fmax(pdist(ra.x[i], b.x[i]), pdist(ra.y[i], b.y[i])));
        ev = fmax(ev, fmax(fabs(ra.vx[i] - b.vx[i]), fabs(ra.vy[i] - b.vy[i])));
    }
    printf("rotation %-8s %-8s %u step(s): max position error %.3g (tol %.3g), velocity %.3g "
           "(tol %.3g)\n",
           backend, model, steps, ex, tol_x, ev, tol_v);
    CHECK(ex <= tol_x, "%s %s: rotated run differs from the rotated result in position", backend,
          model);
    CHECK(ev <= tol_v, "%s %s: rotated run differs from the rotated result in velocity", backend,
          model);
    boids_flock_free(&a);
    boids_flock_free(&b);
    boids_flock_free(&ra);
}

/* Two agents far beyond each other's vision, both moving east: polarization stays 1, their
 * velocities do not change (no rule acts without neighbours) and their distance stays. */
static void check_far_apart(const char *backend) {
    boids_params p;
    boids_error err;
    boids_preset_apply(&p, "lab", &err);
    boids_flock f;
    boids_flock_alloc(&f, 2, &err);
    f.x[0] = 100, f.y[0] = 100, f.x[1] = 600, f.y[1] = 400;
    f.vx[0] = f.vx[1] = 120, f.vy[0] = f.vy[1] = 0;
    run(backend, &p, &f, 50);
    CHECK(boids_order(&f) == 1.0, "%s: polarization %.17g", backend, boids_order(&f));
    CHECK(f.vx[0] == 120 && f.vy[0] == 0 && f.vx[1] == 120 && f.vy[1] == 0,
          "%s: velocities changed without neighbours", backend);
    /* 50 steps of 120 * dt, each rounded once in float: 50 float spacings of the world. */
    CHECK_NEAR(f.x[1] - f.x[0], 500, 50 * FLT_EPSILON * 900, "%s: no cohesion pulls them together",
               backend);
    boids_flock_free(&f);
}

int main(void) {
    boids_error err;
    gl = boids_gl_create(1, &err);
    if (!gl) {
        fprintf(stderr, "no GL 4.3 context: %s (gpu checks not run)\n", err.msg);
        snprintf(gpu_missing_why, sizeof gpu_missing_why, "%s", err.msg);
        gpu_missing = 1;
    }
    const char *backends[] = {"cpu-ref", "cpu", "gpu"};
    for (int bi = 0; bi < 3; bi++) {
        if (bi == 2 && gpu_missing) break;
        boids_params p;
        boids_preset_apply(&p, "lab", &err);
        p.width = p.height = W;
        p.count = N;
        p.fov = 270; /* the field of view turns with the velocity: part of the symmetry */
        check_rotation(backends[bi], "reynolds", p);
        boids_preset_apply(&p, "vicsek", &err);
        p.width = p.height = W;
        p.vision_radius = 20;
        p.speed = p.initial_speed = 2;
        p.noise = 0.5; /* the same variate for an agent in both runs: still symmetric */
        check_rotation(backends[bi], "vicsek", p);
        check_far_apart(backends[bi]);
    }
    if (gl) {
        const boids_gl_debug *log = boids_gl_debug_log(gl);
        CHECK(log->errors == 0, "GL errors: %lu (%s)", log->errors, log->last_error);
        boids_gl_destroy(gl);
    }
    int rc = CHECK_DONE("symmetry_test");
    return rc ? rc : gpu_missing ? no_gpu_exit("symmetry_test", gpu_missing_why) : 0;
}
