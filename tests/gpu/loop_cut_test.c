/* SPDX-License-Identifier: MIT */
/* A driver that stops a long shader loop must not leave a step silently inexact, nor stop a
 * search that is not long (fits). Mesa
 * llvmpipe ends an invocation's loops once they have run 65,535 iterations in all (the
 * lanes of one SIMD vector share the count). Two searches run that long:
 *  - topological: a boid far from its k nearest walks every cell of the grid, which the
 *    pipeline caps at the cpu grid's 4N + 4096 cells; with N = 16,000 that is over 65,535
 *    cells at two or more iterations each. One boid alone in the middle of the world, the
 *    rest in a block around the corner, makes that walk, in 2-D and in 3-D;
 *  - metric: a boid with more candidates than that in its 3 x 3 cells. 66,000 boids in the
 *    four corner cells of one boid's block (each of them sees only its own corner, a
 *    quarter, which keeps the test to seconds on llvmpipe).
 * On every device the neighbours query and the step either fail with BOIDS_ERR_RUNTIME
 * naming the cut, or succeed with the cpu backend's results (a device without such a
 * limit): exactly the same neighbour sets, and velocities within float rounding. On
 * llvmpipe, where the cut is known to happen, the failure is required. The flag stays set
 * for later steps and an upload clears it. Exit 77 (skip) when no GL 4.3 context can be
 * made. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_fixture.h"

enum { N_FAR = 16000, N_DENSE = 66000 };

static const char *const TOPO_CUT = "stopped the topological neighbour search";
static const char *const METRIC_CUT = "stopped the neighbour search";

static int on_llvmpipe;

/* Topological: cells of about the vision radius, 260 x 260 (2-D) or 40^3 (3-D), under the
 * cap of 4N + 4096 = 68,096 and above 65,535 / 2. */
static boids_params far_world(int dim) {
    boids_params p = boids_params_default();
    p.dim = dim;
    p.width = p.height = p.depth = dim == 3 ? 400 : 2600;
    p.vision_radius = 10;
    p.separation_radius = 4;
    p.neighbours = BOIDS_NEIGHBOURS_TOPOLOGICAL;
    p.k = 7;
    p.k_in_vision = 0;
    return p;
}

/* Boid 0 at the centre, heading along x; the others at random inside a block of a sixth of
 * the side around the corner (across the wrap seams), 5/6 of a half side from the centre
 * along every axis: its nearest lie beyond the grid's last ring (shell), so the search
 * walks every cell. */
static boids_flock far_flock(const boids_params *p) {
    boids_flock f = random_flock(p, N_FAR, 7);
    double *axes[3] = {f.x, f.y, f.z};
    for (int a = 0; a < p->dim; a++) {
        for (size_t i = 1; i < f.n; i++) {
            double v = (axes[a][i] / p->width - 0.5) * p->width / 6;
            axes[a][i] = v < 0 ? v + p->width : v;
        }
        axes[a][0] = p->width / 2;
    }
    f.vx[0] = p->initial_speed;
    f.vy[0] = 0;
    if (f.vz) f.vz[0] = 0;
    return f;
}

/* Metric, 2-D: 500 x 500 and R 50 make 9 x 9 cells of 55.6; boid 0 in the middle of cell
 * (4, 4), the others at random in cells (3 or 5, 3 or 5), 3 inside their edges. */
static boids_params dense_world(void) {
    boids_params p = boids_params_default();
    p.width = p.height = 500;
    return p;
}

static boids_flock dense_flock(const boids_params *p) {
    boids_flock f = random_flock(p, N_DENSE, 11);
    for (size_t i = 1; i < f.n; i++) {
        f.x[i] = (i & 1 ? 281 : 170) + f.x[i] / p->width * 49;
        f.y[i] = (i & 2 ? 281 : 170) + f.y[i] / p->height * 49;
    }
    f.x[0] = f.y[0] = 250;
    return f;
}

static boids_backend *gpu(const boids_flock *f) {
    boids_error err;
    boids_gpu_options o = checked(0);
    boids_backend *g = boids_gpu_create(NULL, f, &o, &err);
    if (!g) die("gpu create", &err);
    return g;
}

static boids_backend *cpu(const boids_flock *f) {
    boids_error err;
    boids_backend *c = boids_cpu_create(f, 0, &err);
    if (!c) die("cpu create", &err);
    return c;
}

/* st of `what` on the GPU: 1 when it reports the cut (a message containing cut), 0 when
 * it succeeded, which llvmpipe must not. */
static int reported(boids_status st, const boids_error *err, const char *what, const char *cut) {
    if (st == BOIDS_OK) {
        CHECK(!on_llvmpipe, "%s succeeded on llvmpipe, which cuts this search", what);
        return 0;
    }
    CHECK(st == BOIDS_ERR_RUNTIME && strstr(err->msg, cut) && strstr(err->msg, "65,535") &&
              strstr(err->msg, "not exact"),
          "%s: status %d: %s", what, (int)st, err->msg);
    return 1;
}

/* The query reports the cut, or gives exactly the cpu backend's sets. */
static void neighbours_query(const boids_params *p, const boids_flock *f, const char *cut) {
    boids_error err;
    size_t n = f->n, diffs = 0;
    uint32_t *c1 = malloc(n * sizeof *c1), *c2 = malloc(n * sizeof *c2);
    uint64_t *h1 = malloc(n * sizeof *h1), *h2 = malloc(n * sizeof *h2);
    if (!c1 || !c2 || !h1 || !h2) {
        fprintf(stderr, "loop_cut_test: out of memory\n");
        exit(1);
    }
    boids_backend *g = gpu(f);
    if (!reported(boids_backend_neighbours(g, p, c2, h2, &err), &err, "neighbours query", cut)) {
        boids_backend *c = cpu(f);
        if (boids_backend_neighbours(c, p, c1, h1, &err)) die("cpu neighbours", &err);
        for (size_t i = 0; i < n; i++) diffs += c1[i] != c2[i] || h1[i] != h2[i];
        CHECK(diffs == 0, "dim %d: %zu neighbour sets differ from the cpu's: a silent cut", p->dim,
              diffs);
        boids_backend_destroy(c);
    }
    boids_backend_destroy(g);
    free(c1), free(c2), free(h1), free(h2);
}

/* Largest velocity difference between f after one step on b and on the cpu backend. */
static double step_dv(boids_backend *b, const boids_params *p, const boids_flock *f) {
    boids_error err;
    boids_flock got, want;
    boids_backend *c = cpu(f);
    if (boids_flock_alloc_dim(&got, f->n, p->dim, &err) ||
        boids_flock_alloc_dim(&want, f->n, p->dim, &err) || boids_backend_download(b, &got, &err) ||
        boids_backend_step(c, p, 1, &err) || boids_backend_download(c, &want, &err))
        die("cpu step", &err);
    double m = 0;
    for (size_t i = 0; i < f->n; i++) {
        m = fmax(m, fabs(got.vx[i] - want.vx[i]));
        m = fmax(m, fabs(got.vy[i] - want.vy[i]));
        if (got.vz) m = fmax(m, fabs(got.vz[i] - want.vz[i]));
    }
    boids_backend_destroy(c);
    boids_flock_free(&got), boids_flock_free(&want);
    return m;
}

/* One step from f reports the cut, and with `again` so does the next (every later state
 * descends from the inexact one), or its velocities are the cpu's; then an upload of calm
 * (a uniform flock: no long search) clears the flag. Returns the backend for more checks. */
static boids_backend *step(const boids_params *p, const boids_flock *f, const char *cut,
                           const boids_flock *calm, int again) {
    boids_error err;
    boids_backend *g = gpu(f);
    if (reported(boids_backend_step(g, p, 1, &err), &err, "step", cut)) {
        if (again)
            CHECK(reported(boids_backend_step(g, p, 1, &err), &err, "next step", cut),
                  "dim %d: a step after the cut succeeded", p->dim);
    } else {
        /* A device's sqrt and division may differ from the cpu's by some ulps (GLSL allows
         * it), and its metric sums may run in another order; a search cut short loses
         * neighbours, which moves a velocity by about max_force, a thousand times this. */
        double tol = 1e-3 * p->max_force, dv = step_dv(g, p, f);
        CHECK(dv <= tol, "dim %d: velocities differ by %g from the cpu's (tol %g)", p->dim, dv,
              tol);
    }
    if (boids_backend_upload(g, calm, &err)) die("upload", &err);
    CHECK(boids_backend_step(g, p, 1, &err) == BOIDS_OK, "dim %d: step after an upload: %s", p->dim,
          err.msg);
    return g;
}

static void topological(int dim) {
    boids_params p = far_world(dim);
    boids_flock f = far_flock(&p), calm = random_flock(&p, N_FAR, 3);
    neighbours_query(&p, &f, TOPO_CUT);
    boids_backend *g = step(&p, &f, TOPO_CUT, &calm, 1);
    if (dim == 2) { /* the grid the topological step used (the pipeline says in 2-D) */
        unsigned ncx, ncy;
        boids_gpu_grid(g, &ncx, &ncy);
        CHECK((double)ncx * ncy <= 4.0 * N_FAR + 4096,
              "topological grid %u x %u above 4N + 4096 cells", ncx, ncy);
    }
    boids_backend_destroy(g);
    boids_flock_free(&f), boids_flock_free(&calm);
}

/* One step only (no neighbours query, no second step: the topological runs check those
 * paths of the flag), because each dense run takes seconds on llvmpipe. */
static void metric(void) {
    boids_params p = dense_world();
    boids_flock f = dense_flock(&p), calm = random_flock(&p, 1000, 3);
    boids_backend_destroy(step(&p, &f, METRIC_CUT, &calm, 0));
    boids_flock_free(&f), boids_flock_free(&calm);
}

/* A search whose boids each walk far less than the limit is not cut, on llvmpipe too: 800
 * boids at random in the murmuration preset's walled box of 1600 x 1000 x 1200, k = 7 with a
 * field of view of 120 degrees (boids facing a wall have few neighbours in view and walk most
 * of the grid's cells). No boid's walk exceeded 8,305 passes, but when the walk was nested
 * loops the vectors' passes summed their lanes' and llvmpipe cut the first step
 * (shaders/select.glsl says why). The query must succeed and give the cpu's sets exactly. */
static void fits(void) {
    boids_params p = boids_params_default();
    p.dim = 3;
    p.width = 1600, p.height = 1000, p.depth = 1200;
    p.boundary = BOIDS_BOUNDARY_WALLS;
    p.vision_radius = 60;
    p.neighbours = BOIDS_NEIGHBOURS_TOPOLOGICAL;
    p.k = 7;
    p.fov = 120;
    boids_flock f = random_flock(&p, 800, 5);
    size_t n = f.n, diffs = 0;
    uint32_t c1[800], c2[800];
    uint64_t h1[800], h2[800];
    boids_error err;
    boids_backend *g = gpu(&f), *c = cpu(&f);
    boids_status st = boids_backend_neighbours(g, &p, c2, h2, &err);
    CHECK(st == BOIDS_OK, "a walk well within the limit was cut: %s", err.msg);
    if (boids_backend_neighbours(c, &p, c1, h1, &err)) die("cpu neighbours", &err);
    for (size_t i = 0; st == BOIDS_OK && i < n; i++) diffs += c1[i] != c2[i] || h1[i] != h2[i];
    CHECK(diffs == 0, "fov 120, N 800: %zu neighbour sets differ from the cpu's", diffs);
    boids_backend_destroy(g), boids_backend_destroy(c);
    boids_flock_free(&f);
}

int main(void) {
    boids_error err;
    gl = boids_gl_create(1, &err);
    if (!gl) return no_gpu_exit("loop_cut_test", err.msg);
    on_llvmpipe = strstr(boids_gl_renderer(gl), "llvmpipe") != NULL;
    printf("GL: %s%s\n", boids_gl_renderer(gl),
           on_llvmpipe ? ": the cuts are known to happen, their reports required" : "");
    topological(2);
    topological(3);
    metric();
    fits();
    const boids_gl_debug *log = boids_gl_debug_log(gl);
    CHECK(log->errors == 0, "%lu GL debug errors, last: %s", log->errors, log->last_error);
    boids_gl_destroy(gl);
    return CHECK_DONE("loop_cut_test");
}
