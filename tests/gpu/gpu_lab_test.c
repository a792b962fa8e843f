/* SPDX-License-Identifier: MIT */
/* Seed 003 on the GPU: the Vicsek model and topological neighbours of shaders/steer.comp,
 * steer_topo.comp and select.glsl against the seed's worked example and cpu-ref. Debug
 * context, per-stage error checks; exit 77 (skip) only when no GL 4.3 context exists
 * (a failure with BOIDS_REQUIRE_GPU set).
 *
 * Tolerances. Positions: the state is float on the GPU, so a coordinate of magnitude <= 2
 * (the example's) is rounded by at most 2^-23 (FLT_EPSILON at 2, halved); the step adds
 * one rounding of x + vx dt: POS_TOL = 4 FLT_EPSILON covers both with a factor of 2 to spare.
 * Headings: GLSL's atan, cos and sin are not correctly rounded (NVIDIA's hardware sine has
 * an absolute error near 2^-21.4, llvmpipe's polynomials a few float ulps), so a heading is
 * allowed 16 FLT_EPSILON pi ~ 6e-6 rad, a few times those errors. The polarization, a mean
 * of unit vectors, then moves by at most that much too. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_fixture.h"

#define POS_TOL (4 * FLT_EPSILON)
#define ANG_TOL (16 * FLT_EPSILON * M_PI)

static double deg(double a) {
    return a * M_PI / 180.0;
}

/* Heading of a velocity minus an angle, reduced to (-pi, pi]. */
static double ang_err(double vx, double vy, double a) {
    return remainder(atan2(vy, vx) - a, 2 * M_PI);
}

/* The seed's three agents: (0,0), (1,0), (2,0) with headings 0, 90, 180 degrees, R 1.1,
 * eta 0, v0 0.2, dt 1, open plane. */
static boids_params three_params(void) {
    boids_params p = boids_params_default();
    p.model = BOIDS_MODEL_VICSEK;
    p.boundary = BOIDS_BOUNDARY_OPEN;
    p.width = p.height = 10;
    p.vision_radius = 1.1;
    p.separation_radius = 0; /* unused by Vicsek; a valid set keeps it within vision */
    p.noise = 0;
    p.speed = 0.2;
    p.dt = 1;
    return p;
}

static void three_agents(boids_flock *f, size_t n) {
    boids_error err;
    boids_flock_alloc(f, n, &err);
    const double hd[4] = {0, 90, 180, 270};
    for (size_t i = 0; i < n; i++) {
        f->x[i] = i < 3 ? (double)i : 8;
        f->y[i] = i < 3 ? 0 : 8;
        f->vx[i] = 0.2 * cos(deg(hd[i]));
        f->vy[i] = 0.2 * sin(deg(hd[i]));
    }
    f->vx[1] = 0; /* exactly north, exactly west: cos(90) and sin(180) are not 0 in double */
    f->vy[2] = 0;
}

/* One GPU step of f under p into out. */
static int gpu_step_once(const boids_params *p, const boids_flock *f, boids_flock *out,
                         int deterministic) {
    boids_error err;
    boids_gpu_options o = checked(deterministic);
    boids_backend *b = boids_gpu_create(NULL, f, &o, &err);
    CHECK(b != NULL, "create: %s", err.msg);
    if (!b) return 0;
    int ok = boids_backend_step(b, p, 1, &err) == BOIDS_OK;
    CHECK(ok, "step: %s", err.msg);
    ok = ok && boids_backend_download(b, out, &err) == BOIDS_OK;
    CHECK(ok, "download: %s", err.msg);
    boids_backend_destroy(b);
    return ok;
}

/* Seed 003, 246.4-246.5: new headings 45, 90, 135 degrees; positions (0.2, 0), (1, 0.2),
 * (1.8, 0) (moved with the old velocities); polarization from 1/3 to (1 + sqrt 2) / 3. */
static void test_three_agents(void) {
    boids_params p = three_params();
    boids_flock f, out;
    boids_error err;
    three_agents(&f, 3);
    boids_flock_alloc(&out, 3, &err);
    CHECK_NEAR(boids_order(&f), 1.0 / 3.0, 1e-12, "initial polarization, double input");
    if (gpu_step_once(&p, &f, &out, 1)) {
        const double h[3] = {45, 90, 135}, x[3] = {0.2, 1, 1.8}, y[3] = {0, 0.2, 0};
        for (int i = 0; i < 3; i++) {
            CHECK_NEAR(ang_err(out.vx[i], out.vy[i], deg(h[i])), 0, ANG_TOL,
                       "agent %d heading %g degrees (GLSL trig, see top)", i, h[i]);
            CHECK_NEAR(hypot(out.vx[i], out.vy[i]), 0.2, 0.2 * ANG_TOL, "agent %d speed v0", i);
            CHECK_NEAR(out.x[i], x[i], POS_TOL, "agent %d x (float state)", i);
            CHECK_NEAR(out.y[i], y[i], POS_TOL, "agent %d y (float state)", i);
        }
        CHECK_NEAR(boids_order(&out), (1 + sqrt(2.0)) / 3, ANG_TOL,
                   "polarization (1 + sqrt 2) / 3 ~ 0.8047");
    }
    boids_flock_free(&f);
    boids_flock_free(&out);
}

/* Seed 003, 246.7: k = 1 makes the middle agent choose between two neighbours at distance
 * 1; ties go to the lower id, so it takes agent 0 and turns to 45 degrees. A fourth agent
 * far away (8, 8), heading 270, is 10 from its nearest (agent 2, heading 180): several
 * rings of cells outside its 3x3 block, so the ring search must reach it: 225 degrees.
 * Also the selections themselves through neighbours(), Reynolds (fov 360) and Vicsek, and
 * k > N - 1 taking every other agent. */
static void test_topological_ties_and_rings(void) {
    boids_params p = three_params();
    p.neighbours = BOIDS_NEIGHBOURS_TOPOLOGICAL;
    p.k = 1;
    boids_flock f, out;
    boids_error err;
    three_agents(&f, 4);
    boids_flock_alloc(&out, 4, &err);
    if (gpu_step_once(&p, &f, &out, 0)) {
        const double h[4] = {45, 45, 135, 225};
        for (int i = 0; i < 4; i++)
            CHECK_NEAR(ang_err(out.vx[i], out.vy[i], deg(h[i])), 0, ANG_TOL,
                       "agent %d heading %g degrees with k = 1", i, h[i]);
    }
    boids_gpu_options o = checked(0);
    boids_backend *b = boids_gpu_create(NULL, &f, &o, &err);
    CHECK(b != NULL, "create: %s", err.msg);
    if (b) {
        uint32_t c[4];
        uint64_t hsh[4];
        const uint32_t nearest[4] = {1, 0, 1, 2};
        for (int model = 0; model < 2; model++) {
            p.model = model;
            p.k = 1;
            CHECK(boids_backend_neighbours(b, &p, c, hsh, &err) == BOIDS_OK, "neighbours: %s",
                  err.msg);
            for (int i = 0; i < 4; i++)
                CHECK(c[i] == 1 && hsh[i] == boids_neighbour_set_hash(nearest[i]),
                      "model %d agent %d: %u neighbours, not just agent %u", model, i, c[i],
                      nearest[i]);
            p.k = 5; /* k > N - 1: all three others */
            CHECK(boids_backend_neighbours(b, &p, c, hsh, &err) == BOIDS_OK, "neighbours: %s",
                  err.msg);
            for (int i = 0; i < 4; i++) {
                uint64_t all = 0;
                for (uint32_t j = 0; j < 4; j++)
                    if (j != (uint32_t)i) all += boids_neighbour_set_hash(j);
                CHECK(c[i] == 3 && hsh[i] == all, "model %d agent %d: k = 5 gave %u neighbours",
                      model, i, c[i]);
            }
            p.k_in_vision = 1; /* now the far agent has none, the others their R-neighbours */
            CHECK(boids_backend_neighbours(b, &p, c, hsh, &err) == BOIDS_OK, "neighbours: %s",
                  err.msg);
            CHECK(c[0] == 1 && c[1] == 2 && c[2] == 1 && c[3] == 0,
                  "model %d k_in_vision counts %u %u %u %u", model, c[0], c[1], c[2], c[3]);
            p.k_in_vision = 0;
        }
        /* Beyond the shaders' list: a clear limit error, not a wrong selection. */
        p.k = BOIDS_GPU_MAX_K + 1;
        CHECK(boids_backend_step(b, &p, 1, &err) == BOIDS_ERR_LIMIT, "k = %ld accepted", p.k);
        char lim[16];
        snprintf(lim, sizeof lim, "%d", (int)BOIDS_GPU_MAX_K);
        CHECK(strstr(err.msg, lim) != NULL, "message does not name the limit %s: %s", lim, err.msg);
        p.k = BOIDS_GPU_MAX_K;
        CHECK(boids_backend_step(b, &p, 1, &err) == BOIDS_OK, "k = %ld: %s", p.k, err.msg);
        boids_backend_destroy(b);
    }
    boids_flock_free(&f);
    boids_flock_free(&out);
}

/* The noise: an isolated agent's heading gains eta (u - 1/2) each step with u =
 * boids_noise_u(noise_seed, t, id), t counted from the upload: the GPU's GLSL port draws
 * what cpu-ref draws, step after step, and again from t = 0 after a new upload. */
static void test_noise_stream(void) {
    boids_params p = three_params();
    p.noise = 2.5;
    p.noise_seed = 0x123456789abLL; /* both 32-bit halves non-zero */
    boids_flock f, g, r;
    boids_error err;
    three_agents(&f, 3);
    f.x[1] = 5; /* three isolated agents: only the noise turns them */
    f.x[2] = 9;
    boids_flock_alloc(&g, 3, &err);
    boids_flock_alloc(&r, 3, &err);
    boids_gpu_options o = checked(0);
    boids_backend *gb = boids_gpu_create(NULL, &f, &o, &err);
    boids_backend *rb = boids_cpu_ref_create(&f, &err);
    CHECK(gb && rb, "create: %s", err.msg);
    if (gb && rb) {
        for (int pass = 0; pass < 2; pass++) {
            for (int s = 1; s <= 5; s++) {
                CHECK(boids_backend_step(gb, &p, 1, &err) == BOIDS_OK, "step: %s", err.msg);
                CHECK(boids_backend_step(rb, &p, 1, &err) == BOIDS_OK, "step: %s", err.msg);
                boids_backend_download(gb, &g, &err);
                boids_backend_download(rb, &r, &err);
                /* Headings accumulate s steps of float rounding and GLSL trig. */
                for (int i = 0; i < 3; i++)
                    CHECK_NEAR(ang_err(g.vx[i], g.vy[i], atan2(r.vy[i], r.vx[i])), 0, s * ANG_TOL,
                               "pass %d step %d agent %d heading vs cpu-ref", pass, s, i);
            }
            boids_backend_upload(gb, &f, &err);
            boids_backend_upload(rb, &f, &err);
        }
    }
    boids_backend_destroy(gb);
    boids_backend_destroy(rb);
    boids_flock_free(&f);
    boids_flock_free(&g);
    boids_flock_free(&r);
}

/* Deterministic mode stays bit-reproducible with the Vicsek model, metric and topological:
 * a flock with a dense corner (many boids per cell, where the atomic ranks vary), fresh
 * backends, three runs each. */
static void test_vicsek_deterministic(void) {
    boids_error err;
    boids_params p = boids_params_default();
    p.model = BOIDS_MODEL_VICSEK;
    p.noise = 0.5;
    p.noise_seed = 7;
    boids_flock f;
    boids_flock_alloc(&f, 4000, &err);
    boids_flock_randomize(&f, &p, 11);
    for (size_t i = 0; i < 800; i++) {
        f.x[i] = 10 + 0.08 * (double)(i % 977);
        f.y[i] = 10 + 0.05 * (double)(i % 991);
    }
    for (int topo = 0; topo < 2; topo++) {
        p.neighbours = topo;
        p.k = 7;
        uint64_t h1 = run_hash(&p, &f, 1, 20), h2 = run_hash(&p, &f, 1, 20),
                 h3 = run_hash(&p, &f, 1, 20);
        CHECK(h1 == h2 && h2 == h3,
              "vicsek %s deterministic hashes differ: %016llx %016llx %016llx",
              topo ? "topological" : "metric", (unsigned long long)h1, (unsigned long long)h2,
              (unsigned long long)h3);
    }
    boids_flock_free(&f);
}

int main(void) {
    boids_error err;
    gl = boids_gl_create(1, &err);
    if (!gl) {
        return no_gpu_exit("gpu_lab_test", err.msg);
    }
    printf("GL: %s, %s\n", boids_gl_renderer(gl), boids_gl_version(gl));
    test_three_agents();
    test_topological_ties_and_rings();
    test_noise_stream();
    test_vicsek_deterministic();
    const boids_gl_debug *log = boids_gl_debug_log(gl);
    CHECK(log->errors == 0, "%lu GL debug errors, last: %s", log->errors, log->last_error);
    boids_gl_destroy(gl);
    return CHECK_DONE("gpu_lab_test");
}
