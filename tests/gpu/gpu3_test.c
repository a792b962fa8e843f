/* SPDX-License-Identifier: MIT */
/* The GPU pipeline in 3-D against cpu-ref, for both models, both neighbour rules and every
 * boundary, in plain and deterministic mode: the same neighbour sets, one step within float
 * rounding, deterministic mode the same bits run to run, the 3-D state layout the viewer
 * draws from, and the refusals (the fused variant, a flock of the other dim). Exit 77
 * (skip) when no GL 4.3 context can be made at all. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glad/gl.h>

#include "gpu_fixture.h"

static void die(const char *what, const boids_error *err) {
    fprintf(stderr, "gpu3_test: %s: %s\n", what, err->msg);
    exit(1);
}

static boids_params box_params(double side, int boundary) {
    boids_params p = boids_params_default();
    p.dim = 3;
    p.width = p.height = p.depth = side;
    p.boundary = boundary;
    p.predator_x = p.predator_y = p.predator_z = side / 2;
    p.food_x = p.food_y = p.food_z = side / 2;
    return p;
}

static boids_flock random_flock(const boids_params *p, size_t n, uint64_t seed) {
    boids_error err;
    boids_flock f;
    if (boids_flock_alloc_dim(&f, n, 3, &err)) die("alloc", &err);
    boids_flock_randomize(&f, p, seed);
    return f;
}

/* f after `steps` steps of p on backend b (destroyed here). */
static boids_flock run(boids_backend *b, const boids_params *p, size_t n, unsigned steps) {
    boids_error err;
    boids_flock out;
    if (boids_flock_alloc_dim(&out, n, 3, &err)) die("alloc", &err);
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
    size_t n = f->n, diffs = 0;
    uint32_t *c1 = malloc(n * sizeof *c1), *c2 = malloc(n * sizeof *c2);
    uint64_t *h1 = malloc(n * sizeof *h1), *h2 = malloc(n * sizeof *h2);
    boids_backend *r = ref(f), *g = gpu(f, deterministic);
    if (!c1 || !c2 || !h1 || !h2) die("neighbours", &err);
    if (boids_backend_neighbours(r, p, c1, h1, &err) ||
        boids_backend_neighbours(g, p, c2, h2, &err))
        die("neighbours", &err);
    for (size_t i = 0; i < n; i++) diffs += c1[i] != c2[i] || h1[i] != h2[i];
    boids_backend_destroy(r), boids_backend_destroy(g);
    free(c1), free(c2), free(h1), free(h2);
    return diffs;
}

/* The largest position and velocity difference (wrap: on the torus). */
static void step_diffs(const boids_flock *a, const boids_flock *b, const boids_params *p,
                       double *dp, double *dv) {
    const double side[3] = {p->width, p->height, p->depth};
    *dp = *dv = 0;
    for (size_t i = 0; i < a->n; i++) {
        const double pa[3] = {a->x[i], a->y[i], a->z[i]}, pb[3] = {b->x[i], b->y[i], b->z[i]};
        const double va[3] = {a->vx[i], a->vy[i], a->vz[i]};
        const double vb[3] = {b->vx[i], b->vy[i], b->vz[i]};
        double ep = 0, ev = 0;
        for (int c = 0; c < 3; c++) {
            double d = fabs(pa[c] - pb[c]);
            if (p->boundary == BOIDS_BOUNDARY_WRAP && d > side[c] / 2) d = side[c] - d;
            ep += d * d;
            ev += (va[c] - vb[c]) * (va[c] - vb[c]);
        }
        *dp = fmax(*dp, sqrt(ep));
        *dv = fmax(*dv, sqrt(ev));
    }
}

static const char *const model_name[2] = {"reynolds", "vicsek"};
static const char *const topo_name[2] = {"metric", "topological"};
static const char *const bnd_name[3] = {"wrap", "walls", "open"};

/* Every model, neighbour rule and boundary, as tests/dim3_test.c runs cpu against cpu-ref
 * (a cone of 270 degrees, predator, food and walls active, Vicsek noise on). */
static void test_against_ref(void) {
    for (int model = 0; model < 2; model++)
        for (int topo = 0; topo < 2; topo++)
            for (int bnd = 0; bnd < 3; bnd++) {
                boids_params p = box_params(400, bnd);
                p.model = model, p.neighbours = topo, p.fov = 270, p.noise = 0.5, p.speed = 150;
                p.predator = p.food = 1, p.wall_margin = 40, p.wall_weight = 2;
                boids_flock f = random_flock(&p, 2500, 40 + (uint64_t)(6 * model + 3 * topo + bnd));
                for (int det = 0; det < 2; det++) {
                    size_t nd = neighbour_diffs(&f, &p, det);
                    CHECK(nd == 0, "%s %s %s det %d: %zu neighbour sets differ", model_name[model],
                          topo_name[topo], bnd_name[bnd], det, nd);
                    boids_flock r = run(ref(&f), &p, f.n, 1), g = run(gpu(&f, det), &p, f.n, 1);
                    double dp, dv;
                    step_diffs(&g, &r, &p, &dp, &dv);
                    /* tests/dim3_test.c's bound for cpu: 1e-3 is ~30 float ulps of positions
                     * (up to 400) and velocities (up to 180), which covers the steering sums'
                     * roundings; GLSL's division and sqrt add at most ~3 ulps each over C's
                     * correctly rounded ones (GLSL 4.30 section 4.7.1), a few more ulps. */
                    CHECK(dp < 1e-3 && dv < 1e-3, "%s %s %s det %d: one step off by %g / %g",
                          model_name[model], topo_name[topo], bnd_name[bnd], det, dp, dv);
                    boids_flock_free(&r), boids_flock_free(&g);
                }
                boids_flock_free(&f);
            }
}

/* Deterministic mode: the same bits run to run over many steps (cells sorted by id), for
 * both models and neighbour rules. */
static void test_deterministic(void) {
    for (int model = 0; model < 2; model++)
        for (int topo = 0; topo < 2; topo++) {
            boids_params p = box_params(300, BOIDS_BOUNDARY_WRAP);
            p.model = model, p.neighbours = topo, p.fov = 300, p.noise = 0.3, p.speed = 120;
            boids_flock f = random_flock(&p, 6000, 7 + (uint64_t)(2 * model + topo));
            boids_flock a = run(gpu(&f, 1), &p, f.n, 20), b = run(gpu(&f, 1), &p, f.n, 20);
            CHECK(boids_flock_hash(&a) == boids_flock_hash(&b),
                  "%s %s: deterministic mode repeats bit for bit (%016llx, %016llx)",
                  model_name[model], topo_name[topo], (unsigned long long)boids_flock_hash(&a),
                  (unsigned long long)boids_flock_hash(&b));
            boids_flock_free(&f), boids_flock_free(&a), boids_flock_free(&b);
        }
}

/* Upload then download returns the flock; the draw buffers hold vec4 (x, y, z, 0) and
 * vec4 (vx, vy, vz, 0); what a 3-D backend refuses. */
static void test_layout_and_refusals(void) {
    boids_params p = box_params(100, BOIDS_BOUNDARY_WALLS);
    p.depth = 50;
    boids_flock f = random_flock(&p, 300, 3);
    boids_error err;
    boids_backend *b = gpu(&f, 0);
    boids_flock out;
    if (boids_flock_alloc_dim(&out, f.n, 3, &err)) die("alloc", &err);
    CHECK(boids_backend_download(b, &out, &err) == BOIDS_OK, "download: %s", err.msg);
    int same = 1;
    for (size_t i = 0; i < f.n; i++)
        same &=
            out.x[i] == (float)f.x[i] && out.z[i] == (float)f.z[i] && out.vz[i] == (float)f.vz[i];
    CHECK(same, "upload and download round-trip the state rounded to float");
    float pos[4], vel[4];
    uint32_t id;
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, boids_gpu_state_buffer(b));
    glGetBufferSubData(GL_SHADER_STORAGE_BUFFER, 16 * 5, 16, pos);
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, boids_gpu_velocity_buffer(b));
    glGetBufferSubData(GL_SHADER_STORAGE_BUFFER, 16 * 5, 16, vel);
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, boids_gpu_id_buffer(b));
    glGetBufferSubData(GL_SHADER_STORAGE_BUFFER, 4 * 5, 4, &id);
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, 0);
    CHECK(id == 5 && pos[0] == (float)f.x[5] && pos[1] == (float)f.y[5] &&
              pos[2] == (float)f.z[5] && pos[3] == 0 && vel[0] == (float)f.vx[5] &&
              vel[1] == (float)f.vy[5] && vel[2] == (float)f.vz[5] && vel[3] == 0,
          "draw layout: slot 5 after upload is boid 5 as (x, y, z, 0), (vx, vy, vz, 0)");
    boids_params p2 = p;
    p2.dim = 2;
    CHECK(boids_backend_step(b, &p2, 1, &err) == BOIDS_ERR_INPUT, "dim = 2 parameters refused");
    boids_flock flat;
    if (boids_flock_alloc_dim(&flat, 10, 2, &err)) die("alloc", &err);
    boids_flock_randomize(&flat, &p2, 1);
    CHECK(boids_backend_upload(b, &flat, &err) == BOIDS_ERR_INPUT, "a 2-D upload refused");
    boids_backend_destroy(b);
    boids_gpu_options o = checked(0);
    o.variant = BOIDS_GPU_VARIANT_FUSED;
    b = boids_gpu_create(NULL, &f, &o, &err);
    CHECK(!b && err.status == BOIDS_ERR_INPUT && strstr(err.msg, "fused"),
          "the fused variant refuses 3-D: %s", b ? "(made)" : err.msg);
    boids_backend_destroy(b);
    boids_flock_free(&f), boids_flock_free(&out), boids_flock_free(&flat);
}

int main(void) {
    boids_error err;
    gl = boids_gl_create(1, &err);
    if (!gl) return no_gpu_exit("gpu3_test", err.msg);
    test_layout_and_refusals();
    test_deterministic();
    test_against_ref();
    const boids_gl_debug *log = boids_gl_debug_log(gl);
    CHECK(log->errors == 0, "GL errors: %lu (%s)", log->errors, log->last_error);
    boids_gl_destroy(gl);
    return CHECK_DONE("gpu3_test");
}
