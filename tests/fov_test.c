/* SPDX-License-Identifier: MIT */
/* The field-of-view boundary on every backend (cpu-ref, cpu with its SIMD and scalar kernels,
 * gpu): a neighbour is seen when the angle between the velocity v and the offset d is at most
 * fov / 2, i.e. dot(v, d) >= cos(fov / 2) |v| |d| with cos(fov / 2) from rules_cos_half_fov.
 *
 * Each case is a flock of two boids: boid 0 with velocity v and boid 1 at offset d from it.
 * Every coordinate is a multiple of 1/64 below 2^10, so every offset and dot product is exact
 * in float and double and the only rounding left is in sqrt(vv * d2):
 *  - fov 180 (cos exactly 0): d perpendicular to v on either side has dot exactly 0 and is
 *    seen whatever sqrt rounds to; 1/64 off the perpendicular towards v is seen, away is not;
 *  - fov 0 is not a valid parameter (the range is (0, 360], and every backend's step and
 *    neighbours() validate it), so its exact cosine 1 is checked on rules_cos_half_fov only;
 *  - fov 120 and 240 (cos exactly +-1/2): the boundary direction (60 or 120 degrees off v) has
 *    an irrational slope, so no representable offset lies on it; the cases sit 1/64 inside
 *    and outside it (~0.03 degrees, ~1e-4 relative: far above float rounding), on both sides.
 * The neighbour test is read twice: from the backend's neighbours() (the debug stage on the
 * gpu), and from one step, where boid 0 turns exactly when it sees boid 1 (boid 1 moves
 * across it; boid 0's speed is inside [min_speed, max_speed], so without a neighbour nothing
 * changes its velocity).
 * Exit 77 (skip) for the gpu part only when no GL 4.3 context can be made at all. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "boids/backend.h"
#include "boids/gpu.h"
#include "check.h"
#include "require_gpu.h"
#include "cpu_grid.h"

#define RULES_INSTANCE_DOUBLE /* rules.h in double in the plane: the _d2 names */
#define RULES_INSTANCE_DIM    2
#include "rules_instances.h"

static boids_gl *gl;

typedef struct fov_case {
    double fov;
    double vx, vy; /* boid 0's velocity */
    double dx, dy; /* offset to boid 1 */
    int seen;
} fov_case;

#define E (1.0 / 64)
static const fov_case cases[] = {
    /* fov 180: exactly perpendicular on both sides, then 1/64 in front of and behind it */
    {180, 2, 0, 0, 10, 1},
    {180, 2, 0, 0, -10, 1},
    {180, 2, 0, E, 10, 1},
    {180, 2, 0, E, -10, 1},
    {180, 2, 0, -E, 10, 0},
    {180, 2, 0, -E, -10, 0},
    {180, 1.5, 2, -8, 6, 1}, /* v = (1.5, 2) turned: dot = -12 + 12 = 0 */
    {180, 1.5, 2, 8, -6, 1},
    {180, 1.5, 2, -8, 6 - E, 0},
    {180, 1.5, 2, 8 + E, -6, 1},
    /* fov 120: 60 degrees off v; 554/64 / 5 < sqrt(3) < 555/64 / 5 */
    {120, 2, 0, 5, 554 * E, 1},
    {120, 2, 0, 5, -554 * E, 1},
    {120, 2, 0, 5, 555 * E, 0},
    {120, 2, 0, 5, -555 * E, 0},
    /* fov 240: 120 degrees off v */
    {240, 2, 0, -5, 555 * E, 1},
    {240, 2, 0, -5, -555 * E, 1},
    {240, 2, 0, -5, 554 * E, 0},
    {240, 2, 0, -5, -554 * E, 0},
};
enum { NCASES = sizeof cases / sizeof cases[0] };

static boids_backend *make(const char *name, const boids_flock *f, boids_error *err) {
    if (!strcmp(name, "cpu-ref")) return boids_cpu_ref_create(f, err);
    if (!strncmp(name, "cpu", 3)) {
        boids_backend *b = boids_cpu_create(f, 1, err);
        if (b) boids_cpu_force_scalar(b, !strcmp(name, "cpu-scalar"));
        return b;
    }
    boids_gpu_options o = boids_gpu_options_default();
    o.check = 1;
    o.log = boids_gl_debug_log(gl);
    return boids_gpu_create(NULL, f, &o, err); /* NULL: on our current context */
}

static void run_case(const char *backend, const boids_params *p, const fov_case *c) {
    boids_error err;
    boids_flock f;
    if (boids_flock_alloc(&f, 2, &err)) {
        CHECK(0, "alloc: %s", err.msg);
        return;
    }
    f.x[0] = 200, f.y[0] = 200, f.vx[0] = c->vx, f.vy[0] = c->vy;
    f.x[1] = 200 + c->dx, f.y[1] = 200 + c->dy, f.vx[1] = -c->vy, f.vy[1] = c->vx;
    boids_backend *b = make(backend, &f, &err);
    CHECK(b != NULL, "%s: %s", backend, err.msg);
    if (b) {
        uint32_t count[2];
        uint64_t hash[2];
        CHECK(boids_backend_neighbours(b, p, count, hash, &err) == BOIDS_OK, "%s: %s", backend,
              err.msg);
        CHECK((int)count[0] == c->seen,
              "%s fov %g, v (%g, %g), d (%g, %g): neighbours() counts %u, expected %d", backend,
              c->fov, c->vx, c->vy, c->dx, c->dy, count[0], c->seen);
        CHECK(boids_backend_step(b, p, 1, &err) == BOIDS_OK, "%s: %s", backend, err.msg);
        CHECK(boids_backend_download(b, &f, &err) == BOIDS_OK, "%s: %s", backend, err.msg);
        int turned = f.vx[0] != c->vx || f.vy[0] != c->vy;
        CHECK(turned == c->seen, "%s fov %g, v (%g, %g), d (%g, %g): the step %s boid 1", backend,
              c->fov, c->vx, c->vy, c->dx, c->dy, turned ? "steered by" : "ignored");
        boids_backend_destroy(b);
    }
    boids_flock_free(&f);
}

/* The exact values: 0, +-1/2, +-1 wherever the half angle is a multiple of 60 or 90 degrees
 * (also past 360, the reduction being exact); elsewhere libm's cosine as before. */
static void test_cos_half_fov(void) {
    static const double fov[] = {0, 120, 180, 240, 360, 480, -180, 720};
    static const double want[] = {1, 0.5, 0, -0.5, -1, -0.5, 0, 1};
    for (size_t i = 0; i < sizeof fov / sizeof fov[0]; i++)
        CHECK(rules_cos_half_fov(fov[i]) == want[i], "cos(%g / 2) = %.17g, not %g", fov[i],
              rules_cos_half_fov(fov[i]), want[i]);
    CHECK(rules_cos_half_fov(270) == cos(135 * (M_PI / 180.0)), "fov 270: libm's cosine");
    CHECK(fabs(rules_cos_half_fov(90) - sqrt(0.5)) < 1e-15, "fov 90: %.17g",
          rules_cos_half_fov(90));
}

int main(void) {
    boids_error err;
    test_cos_half_fov();
    gl = boids_gl_create(1, &err);
    const int gpu_missing = gl == NULL;
    boids_error gl_err = err; /* kept: later calls reuse err */
    const char *backends[] = {"cpu-ref", "cpu", "cpu-scalar", "gpu"};
    for (int bi = 0; bi < 4; bi++) {
        if (bi == 3 && gpu_missing) break;
        for (int i = 0; i < NCASES; i++) {
            boids_params p;
            boids_preset_apply(&p, "classic", &err); /* per step: |v| in [1.5, 3] */
            p.fov = cases[i].fov;
            run_case(backends[bi], &p, &cases[i]);
        }
        printf("%-10s %d fov boundary cases\n", backends[bi], NCASES);
    }
    if (gl) {
        const boids_gl_debug *log = boids_gl_debug_log(gl);
        CHECK(log->errors == 0, "GL errors: %lu (%s)", log->errors, log->last_error);
        boids_gl_destroy(gl);
    }
    int rc = CHECK_DONE("fov_test");
    if (rc) return rc;
    return gpu_missing ? no_gpu_exit("fov_test", gl_err.msg) : 0;
}
