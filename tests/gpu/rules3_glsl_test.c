/* SPDX-License-Identifier: MIT */
/* shaders/rules3.glsl against src/core/rules3.h in float, function by function, on edge
 * cases: the seams d = +-L/2 on every axis, the radius boundary d2 == R^2 exactly (Reynolds
 * excludes it, Vicsek includes it), the cone's boundary (fov 180: exactly 90 degrees), zero
 * vectors and targets, a resting boid, the separation radius exactly, the wall margins and
 * reflections on the z faces, the Vicsek direction at the poles of its basis, with a zero
 * sum and at rest, and the two noise variates; and with an interaction table (make_table)
 * the points and the spheres: surfaces exactly, a chord that passes within the radius with
 * both ends outside, the seams, a boid at a centre, overlapping spheres.
 * tests/gpu/rules3_test.comp runs each case, composed after the prelude, rules.glsl and
 * rules3.glsl as the pipeline composes its 3-D programs, with the uniform blocks filled by
 * boids_gpu_params_init and boids_gpu3_interact_init. Every set runs without the table and
 * with it (the table's cases only with it).
 *
 * Tolerance: decisions (neighbour, cone, counts, separated) and the noise variates (integer
 * hashing) must be equal. Values may differ by 16 ULP of the case's scale, the reasoning of
 * tests/gpu/rules_glsl_test.c (GLSL 4.30 section 4.7.1 allows division 2.5 ULP and sqrt
 * about 3 ULP, where C rounds both correctly; the longest chain holds at most 5 of them per
 * term). The Vicsek turn with noise > 0 also takes cos and sin of the azimuth, whose GLSL
 * precision the GL specification leaves open (C computes them in double and rounds): those
 * outputs are held to 2^-11 of their scale, the absolute error Vulkan's environment
 * specification requires of sin and cos, which a unit direction carries through
 * unamplified (it is a combination of unit vectors with weights at most 1).
 * Exit 77 (skip) when no GL 4.3 context can be made at all. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glad/gl.h>

#include "boids/backend.h"
#include "gpu_fixture.h"
#include "pipeline3.h"
#include "prelude.h"

#define RULES_REAL     float
#define RULES_DIM      3
#define RULES_FN(name) name##_f3
#include "rules.h"

enum { MAXC = 128, NOUT = 12, ULP_TOL = 16 };
enum {
    OP_OFFSET,
    OP_NEIGHBOUR,
    OP_STEER,
    OP_INTEGRATE,
    OP_ACC_ADD,
    OP_ACCEL,
    OP_UNIT,
    OP_DIRECTION,
    OP_UPDATE,
    OP_NOISE,
    OP_IN_SPHERE,
    OP_AVOID,
    OP_HIT,
    OP_EXPEL,
    OP_BLOCK
};

typedef struct tcase {
    unsigned op;
    float in[16];
} tcase;

static char *slurp(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    if (s && fread(s, 1, (size_t)n, f) != (size_t)n) {
        free(s);
        s = NULL;
    }
    if (s) s[n] = 0;
    fclose(f);
    return s;
}

/* The prelude, then the files, as one compute shader. */
static GLuint build(const char *const paths[3]) {
    size_t plen = boids_gpu_prelude(NULL, 0);
    char *src[4] = {malloc(plen + 1), NULL, NULL, NULL};
    boids_gpu_prelude(src[0], plen + 1);
    int ok = src[0] != NULL;
    for (int i = 0; i < 3; i++) {
        src[i + 1] = slurp(paths[i]);
        CHECK(src[i + 1], "cannot read %s", paths[i]);
        ok &= src[i + 1] != NULL;
    }
    GLuint prog = 0;
    if (ok) {
        GLuint sh = glCreateShader(GL_COMPUTE_SHADER);
        glShaderSource(sh, 4, (const char *const *)src, NULL);
        glCompileShader(sh);
        GLint done = 0;
        glGetShaderiv(sh, GL_COMPILE_STATUS, &done);
        char log[2048] = "";
        glGetShaderInfoLog(sh, sizeof log, NULL, log);
        CHECK(done, "rules3_test.comp does not compile: %s", log);
        prog = glCreateProgram();
        glAttachShader(prog, sh);
        glLinkProgram(prog);
        glDeleteShader(sh);
    }
    for (int i = 0; i < 4; i++) free(src[i]);
    return prog;
}

/* rules3.h's answer for a case of the spheres' functions (x[0]: the sphere's index where one
 * is named). */
static void expect_sphere(const rules_k_f3 *k, const tcase *c, float out[NOUT]) {
    const float *x = c->in;
    const rules_obst_f3 *o = &k->tab->obst[(int)x[0]];
    const float p[3] = {x[1], x[2], x[3]}, q[3] = {x[4], x[5], x[6]}, m[3] = {x[7], x[8], x[9]};
    switch (c->op) {
    case OP_IN_SPHERE:
        out[0] = (float)rules_in_round_f3(k, o, p);
        break;
    case OP_AVOID:
        out[0] = (float)rules_avoid_dir_f3(k, o, p, q, &out[1]);
        if (out[0] == 0) out[1] = out[2] = out[3] = 0; /* the shader returns no direction then */
        break;
    case OP_HIT:
        out[0] = (float)rules_hit_f3(k, o, p, q, m);
        break;
    case OP_EXPEL:
        memcpy(out, p, sizeof p);
        rules_expel_f3(k, o, out);
        break;
    case OP_BLOCK: /* position x[0..2], end x[3..5], velocity x[6..8] */
        memcpy(out, x + 3, 3 * sizeof *x), memcpy(out + 4, x + 6, 3 * sizeof *x);
        rules_block_f3(k, x, out, out + 4);
        break;
    }
}

/* rules3.h's answer for one case, in the shader's output layout. */
static void expect(const rules_k_f3 *k, const boids_params *p, const tcase *c, float out[NOUT]) {
    const float *x = c->in;
    float a[3] = {x[0], x[1], x[2]}, b[3] = {x[3], x[4], x[5]}, v[3] = {x[6], x[7], x[8]};
    const float noise = (float)p->noise, speed = (float)p->speed;
    memset(out, 0, NOUT * sizeof *out);
    switch (c->op) {
    case OP_OFFSET:
        rules_offset_f3(k, a, b, out);
        break;
    case OP_NEIGHBOUR: { /* the rule as rules3.glsl's rules3_neighbour states it */
        const int vicsek = p->model == BOIDS_MODEL_VICSEK;
        const int radius = p->neighbours != BOIDS_NEIGHBOURS_TOPOLOGICAL || p->k_in_vision;
        const int fov = rules_in_fov_f3(k, a, x[3], v);
        int r;
        if (x[9] != 0)
            r = vicsek;
        else if (radius && !(vicsek ? x[3] <= k->vision2 : x[3] < k->vision2))
            r = 0;
        else
            r = vicsek || fov;
        out[0] = (float)r, out[1] = (float)fov;
        break;
    }
    case OP_STEER:
        rules_steer_f3(k, a, b, out);
        break;
    case OP_INTEGRATE:
        rules_integrate_f3(k, a, b, v);
        memcpy(out, b, sizeof b), memcpy(out + 4, v, sizeof v);
        break;
    case OP_ACC_ADD: {
        rules_acc_f3 s;
        rules_acc_init_f3(&s);
        rules_acc_add_f3(k, &s, a, x[3], v);
        const float r[NOUT] = {(float)s.n,         s.mvx, s.mvy, s.mvz, s.cx, s.cy, s.cz,
                               (float)s.separated, s.sx,  s.sy,  s.sz,  0};
        memcpy(out, r, sizeof r);
        break;
    }
    case OP_ACCEL: {
        rules_acc_f3 s = {(long)x[9],
                          {{a[0], a[1], a[2]}},
                          {{b[0], b[1], b[2]}},
                          {{v[0], v[1], v[2]}},
                          x[10] != 0};
        const float pos[3] = {x[11], x[12], x[13]}, vel[3] = {x[14], x[15], 0.5f};
        rules_accel_f3(k, &s, pos, vel, out);
        break;
    }
    case OP_UNIT:
        vicsek_add_f3(a, out);
        break;
    case OP_DIRECTION:
        vicsek_direction_f3(a, (long)x[9], b, x[10], x[11], noise, (const int[3]){0, 0, 0}, out);
        break;
    case OP_UPDATE:
        vicsek_update_f3(k, a, (long)x[9], x[10], x[11], noise, speed, b, v);
        memcpy(out, b, sizeof b), memcpy(out + 4, v, sizeof v);
        break;
    case OP_NOISE:
        out[0] = (float)boids_noise_u((uint64_t)p->noise_seed, (uint32_t)x[0], (uint32_t)x[1]);
        out[1] = (float)boids_noise_u2((uint64_t)p->noise_seed, (uint32_t)x[0], (uint32_t)x[1]);
        break;
    default:
        expect_sphere(k, c, out);
        break;
    }
}

static double ulp(double v) {
    float f = fabsf((float)v);
    return (double)(nextafterf(f, INFINITY) - f);
}

/* Decisions exact; values within ULP_TOL ULP of the case's scale, or 2^-11 of it where
 * the GPU's sin and cos enter (the Vicsek turn with noise). */
static void compare(const char *set, int i, const tcase *c, const float *want, const float *got,
                    float max_speed, int trig) {
    static const unsigned decision[] = {0, 0x3, 0, 0, 0x81, 0, 0, 0, 0, 0x3, 0x1, 0x1, 0x1, 0, 0};
    double scale = max_speed;
    for (int j = 0; j < 16; j++) scale = fmax(scale, fabs(c->in[j]));
    const int loose = trig && (c->op == OP_DIRECTION || c->op == OP_UPDATE);
    for (int j = 0; j < NOUT; j++) {
        if (decision[c->op] >> j & 1) {
            CHECK(want[j] == got[j], "%s case %d (op %u) output %d: GLSL %.9g, rules3.h %.9g", set,
                  i, c->op, j, got[j], want[j]);
            continue;
        }
        double s = fmax(scale, fabs(want[j]));
        double tol = loose ? s / 2048 : ULP_TOL * ulp(s);
        CHECK(fabs((double)want[j] - got[j]) <= tol,
              "%s case %d (op %u) output %d: GLSL %.9g, rules3.h %.9g (tol %s of the scale)", set,
              i, c->op, j, got[j], want[j], loose ? "2^-11: GLSL sin, cos" : "16 ULP");
    }
}

static int ncases, nplain; /* all cases; those of the sets without a table come first */
static tcase cases[MAXC];

static void add(unsigned op, int n, const float *v) {
    if (ncases == MAXC) abort();
    tcase *c = &cases[ncases++];
    memset(c, 0, sizeof *c);
    c->op = op;
    memcpy(c->in, v, (size_t)n * sizeof *v);
}

/* A neighbour or acc_add case: offset d, its float d2 as the shaders compute it, velocity
 * v, self. */
static void add_d(unsigned op, float dx, float dy, float dz, float vx, float vy, float vz,
                  float self) {
    float d2 = dx * dx + dy * dy + dz * dz;
    add(op, 10, (float[]){dx, dy, dz, d2, 0, 0, vx, vy, vz, self});
}

/* The table of the table's sets in the 400^3 box: spheres at the centre, on the corners
 * across every seam, a small one, and one overlapping the first; predators 0 and 3,
 * attractors 1 and 15 (index order, and one across the seams). */
static void make_table(boids_interact *t, const boids_params *p) {
    boids_interact_default(t, p);
    t->predators[0] = (boids_point){1, 150, 150, 80, 2, 150};
    t->predators[3] = (boids_point){1, 210, 190, 50, 1, 220};
    t->attractors[1] = (boids_point){1, 250, 250, 100, 1.5, 100};
    t->attractors[15] = (boids_point){1, 10, 390, 60, 1, 395};
    const boids_obstacle obs[] = {{BOIDS_OBSTACLE_SPHERE, 200, 200, 0, 0, 30, 200},
                                  {BOIDS_OBSTACLE_SPHERE, 395, 10, 0, 0, 20, 390},
                                  {BOIDS_OBSTACLE_SPHERE, 100, 300, 0, 0, 15, 100},
                                  {BOIDS_OBSTACLE_SPHERE, 250, 200, 0, 0, 25, 200}};
    t->obstacle_count = 4;
    memcpy(t->obstacles, obs, sizeof obs);
}

/* The spheres' functions, and rules3_accel, rules3_integrate and vicsek3_update where the
 * table acts. */
static void make_table_cases(void) {
    /* inside (sphere, p): on the surface along x, y and z (outside), just inside, the centre,
     * across the seams */
    add(OP_IN_SPHERE, 4, (float[]){0, 230, 200, 200});
    add(OP_IN_SPHERE, 4, (float[]){0, 200, 230, 200});
    add(OP_IN_SPHERE, 4, (float[]){0, 200, 200, 170});
    add(OP_IN_SPHERE, 4, (float[]){0, 229.99998f, 200, 200});
    add(OP_IN_SPHERE, 4, (float[]){0, 200, 200, 200});
    add(OP_IN_SPHERE, 4, (float[]){1, 5, 5, 5});
    add(OP_IN_SPHERE, 4, (float[]){1, 399, 399, 399});
    /* avoidance (sphere, p, look-ahead end): through the centre, beside it, clear of it, at
     * the clearance's edge, across the z seam */
    add(OP_AVOID, 7, (float[]){0, 150, 200, 200, 100, 0, 0});
    add(OP_AVOID, 7, (float[]){0, 150, 215, 200, 100, 0, 0});
    add(OP_AVOID, 7, (float[]){0, 150, 200, 260, 100, 0, 0});
    add(OP_AVOID, 7, (float[]){0, 150, 200, 249.9f, 100, 0, 0});
    add(OP_AVOID, 7, (float[]){1, 395, 10, 340, 0, 0, 100});
    add(OP_AVOID, 7, (float[]){2, 100, 300, 50, 0, 0, 100});
    /* hit (sphere, p, end, move): ending inside, ending on the surface, a chord within the
     * radius with both ends outside (along x, along z), across the x seam missing and
     * ending inside */
    add(OP_HIT, 10, (float[]){0, 168, 200, 200, 171, 200, 200, 3, 0, 0});
    add(OP_HIT, 10, (float[]){0, 167, 200, 200, 170, 200, 200, 3, 0, 0});
    add(OP_HIT, 10, (float[]){0, 198.5f, 229.99f, 200, 201.5f, 229.99f, 200, 3, 0, 0});
    add(OP_HIT, 10, (float[]){0, 229.99f, 200, 198.5f, 229.99f, 200, 201.5f, 0, 0, 3});
    add(OP_HIT, 10, (float[]){1, 1, 10, 370, 398, 10, 370, -3, 0, 0});
    add(OP_HIT, 10, (float[]){1, 1, 10, 370, 398, 10, 371, -3, 0, 1});
    /* expel: off centre, at the centre (+x), across the seams, out of one sphere into another */
    add(OP_EXPEL, 4, (float[]){0, 210, 205, 195});
    add(OP_EXPEL, 4, (float[]){0, 200, 200, 200});
    add(OP_EXPEL, 4, (float[]){1, 2, 12, 395});
    add(OP_EXPEL, 4, (float[]){3, 230, 200, 200});
    /* the hard rule (p, end, velocity): blocked, inside, free, blocked across the seam, inside
     * the second of two overlapping spheres */
    add(OP_BLOCK, 9, (float[]){168, 200, 200, 171, 200, 200, 3, 0, 0});
    add(OP_BLOCK, 9, (float[]){210, 205, 195, 213, 205, 195, 3, 0, 0});
    add(OP_BLOCK, 9, (float[]){50, 50, 50, 53, 50, 50, 3, 0, 0});
    add(OP_BLOCK, 9, (float[]){1, 10, 370, 398, 10, 371, -3, 0, 1});
    add(OP_BLOCK, 9, (float[]){230, 200, 200, 231, 200, 200, 1, 0, 0});
    /* accel (no neighbours; p, v): near predator 0, heading at sphere 0, near attractor 15
     * across the seams, at rest beside a sphere */
    add(OP_ACCEL, 16, (float[]){0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 160, 150, 150, 2, 0});
    add(OP_ACCEL, 16, (float[]){0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 150, 200, 200, 2, 0});
    add(OP_ACCEL, 16, (float[]){0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 5, 395, 5, 1, 0});
    add(OP_ACCEL, 16, (float[]){0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 165, 200, 200, 0, 0});
    /* integrate (a, p, v): blocked, expelled, blocked across the seam */
    add(OP_INTEGRATE, 9, (float[]){0, 0, 0, 168, 200, 200, 3, 0, 0});
    add(OP_INTEGRATE, 9, (float[]){0, 0, 0, 210, 205, 195, 3, 0, 0});
    add(OP_INTEGRATE, 9, (float[]){0, 0, 0, 1, 10, 370, -3, 0, 1});
    /* update (sum, p, v, n, u1, u2): blocked (the new direction mirrored), free */
    add(OP_UPDATE, 12, (float[]){1, 0, 0, 168, 200, 200, 3, 0, 0, 2, 0.5f, 0.5f});
    add(OP_UPDATE, 12, (float[]){0, 1, 0, 50, 50, 50, 1, 1, 0, 2, 0.25f, 0.5f});
}

static void make_cases(void) {
    const float E = 1.0f / 64;
    /* offsets (L = 400): the seams d = +-L/2 stay on every axis, beyond them wrap */
    add(OP_OFFSET, 6, (float[]){0, 0, 0, 200, -200, 200});
    add(OP_OFFSET, 6, (float[]){0, 0, 0, 201, -201, 399});
    add(OP_OFFSET, 6, (float[]){10, 390, 5, 390, 10, 395});
    /* neighbour: d2 == R^2 (R = 50) along z and across axes, itself, beyond R, exactly 90
     * degrees from v (fov 180), 1/64 behind, a resting boid, the same point */
    add_d(OP_NEIGHBOUR, 0, 30, 40, 1, 0, 0, 0);
    add_d(OP_NEIGHBOUR, 0, 0, -50, 1, 0, 0, 0);
    add_d(OP_NEIGHBOUR, 0, 0, 0, 1, 0, 0, 1);
    add_d(OP_NEIGHBOUR, 30, 40, 30, 1, 0, 0, 0);
    add_d(OP_NEIGHBOUR, 0, 10, 10, 2, 0, 0, 0);
    add_d(OP_NEIGHBOUR, -E, 0, 10, 2, 0, 0, 0);
    add_d(OP_NEIGHBOUR, 1, 1, 1, 0, 0, 1, 0);
    add_d(OP_NEIGHBOUR, 5, 4, 554 * E, 2, 0, 1, 0);
    add_d(OP_NEIGHBOUR, -3, 4, 12, 0, 0, 0, 0);
    add_d(OP_NEIGHBOUR, 0, 0, 0, 2, 0, 0, 0);
    /* steer: zero target, plain, nearly along v, reversed (capped) */
    add(OP_STEER, 6, (float[]){0, 0, 0, 1, 1, 1});
    add(OP_STEER, 6, (float[]){3, 4, 12, 1, 0, 0});
    add(OP_STEER, 6, (float[]){1e-3f, 0, 1e-3f, 2.9f, 0.1f, 0});
    add(OP_STEER, 6, (float[]){0, 0, -5, 0, 0, 3});
    /* integrate (a, p, v): resting, crossing the z seam, over max, under min, into the
     * corners (walls reflect on every axis, wrap wraps) */
    add(OP_INTEGRATE, 9, (float[]){0, 0, 0, 10, 10, 10, 0, 0, 0});
    add(OP_INTEGRATE, 9, (float[]){0.05f, 0.01f, 0.02f, 200, 0.05f, 399.9f, 1, -1, 2});
    add(OP_INTEGRATE, 9, (float[]){1, 1, 1, 200, 200, 200, 0, 0, 3});
    add(OP_INTEGRATE, 9, (float[]){0, 0, 0, 200, 200, 200, 0, 1, 0});
    add(OP_INTEGRATE, 9, (float[]){0, 0, 0, 1, 1, 1, -2, -2, -2});
    add(OP_INTEGRATE, 9, (float[]){0, 0, 0, 399, 399, 399, 2, 2, 2});
    /* acc_add: the same point (no separation), the separation radius exactly (20), inside */
    add_d(OP_ACC_ADD, 0, 0, 0, 1, 2, 3, 0);
    add_d(OP_ACC_ADD, 0, 12, 16, 1, 1, 1, 0);
    add_d(OP_ACC_ADD, 3, 4, 12, 1, 1, -1, 0);
    /* accel (mv, c, s, n, separated; p, v): full sums, then on the z wall margin exactly (50)
     * and inside it, in a corner, a resting boid alone, near the predator and the food */
    add(OP_ACCEL, 16, (float[]){3, 1, 2, 10, -5, 4, 0.1f, -0.2f, 0.3f, 3, 1, 200, 200, 200, 2, 0});
    add(OP_ACCEL, 16, (float[]){0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 200, 200, 50, 2, 0});
    add(OP_ACCEL, 16, (float[]){0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 200, 200, 350.1f, 2, 0});
    add(OP_ACCEL, 16, (float[]){0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 10, 390, 10, 0, 1.5f});
    add(OP_ACCEL, 16, (float[]){0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 200, 200, 200, 0, 0});
    add(OP_ACCEL, 16, (float[]){1, 2, 0, 3, 4, 1, 0, 0, 0, 1, 0, 110, 95, 120, 1, 1});
    /* unit velocity: zero, plain, so small that |v|^2 underflows to 0 */
    add(OP_UNIT, 3, (float[]){0, 0, 0});
    add(OP_UNIT, 3, (float[]){3, 4, 12});
    add(OP_UNIT, 3, (float[]){1e-30f, 0, 0});
    /* direction (sum, v, n, u1, u2): the poles of the basis (ez = +-1), a general mean, a
     * zero sum (the previous direction), a zero sum at rest (+x), u1 near 1 (the cone's
     * edge) */
    add(OP_DIRECTION, 12, (float[]){0, 0, 2, 1, 0, 0, 0, 0, 0, 2, 0.5f, 0.25f});
    add(OP_DIRECTION, 12, (float[]){0, 0, -3, 1, 0, 0, 0, 0, 0, 3, 0.125f, 0.75f});
    add(OP_DIRECTION, 12, (float[]){0.3f, -0.4f, 0.5f, 1, 0, 0, 0, 0, 0, 1, 0.375f, 0.875f});
    add(OP_DIRECTION, 12, (float[]){0, 0, 0, 0, -2, 1, 0, 0, 0, 2, 0.5f, 0.5f});
    add(OP_DIRECTION, 12, (float[]){0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0.5f, 0.5f});
    add(OP_DIRECTION, 12, (float[]){-1, 2, -3, 1, 0, 0, 0, 0, 0, 4, 0.99999994f, 0.0625f});
    /* update (sum, p, v, n, u1, u2): plain, across the x face and the z face */
    add(OP_UPDATE, 12, (float[]){1, 1, 1, 200, 200, 200, 1, 0, 0, 2, 0.25f, 0.5f});
    add(OP_UPDATE, 12, (float[]){0, 1, 0, 399.5f, 5, 5, 2, 0, 0, 1, 0.75f, 0.125f});
    add(OP_UPDATE, 12, (float[]){0, 0, 1, 5, 5, 0.5f, 0, 0, -2, 1, 0.5f, 0.5f});
    /* noise variates (step, id) */
    add(OP_NOISE, 2, (float[]){0, 0});
    add(OP_NOISE, 2, (float[]){17, 99999});
    add(OP_NOISE, 2, (float[]){16777215, 3});
    nplain = ncases;
    make_table_cases();
}

static void run_set(const char *set, const boids_params *p, int with_table, GLuint prog,
                    GLuint bufs[3], GLuint ubo[2]) {
    boids_gpu_params u;
    boids_gpu_params_init(&u, p);
    glBindBuffer(GL_UNIFORM_BUFFER, ubo[0]);
    glBufferData(GL_UNIFORM_BUFFER, sizeof u, &u, GL_STATIC_DRAW);
    glBindBufferBase(GL_UNIFORM_BUFFER, BOIDS_GPU_UBO_PARAMS, ubo[0]);
    boids_interact t;
    make_table(&t, p);
    boids_gpu_interact ui;
    boids_gpu3_interact_init(&ui, p, with_table ? &t : NULL);
    glBindBuffer(GL_UNIFORM_BUFFER, ubo[1]);
    glBufferData(GL_UNIFORM_BUFFER, sizeof ui, &ui, GL_STATIC_DRAW);
    glBindBufferBase(GL_UNIFORM_BUFFER, BOIDS_GPU_UBO_INTERACT, ubo[1]);
    const int n = with_table ? ncases : nplain;
    unsigned ops[MAXC];
    float in[MAXC * 16], out[MAXC * NOUT];
    for (int i = 0; i < ncases; i++) {
        ops[i] = cases[i].op;
        memcpy(in + 16 * i, cases[i].in, sizeof cases[i].in);
    }
    const void *data[3] = {ops, in, NULL};
    const GLsizeiptr size[3] = {sizeof ops, sizeof in, sizeof out};
    for (GLuint b = 0; b < 3; b++) {
        glBindBuffer(GL_SHADER_STORAGE_BUFFER, bufs[b]);
        glBufferData(GL_SHADER_STORAGE_BUFFER, size[b], data[b], GL_DYNAMIC_READ);
        glBindBufferBase(GL_SHADER_STORAGE_BUFFER, b, bufs[b]);
    }
    glUseProgram(prog);
    glUniform1ui(glGetUniformLocation(prog, "u_cases"), (GLuint)n);
    glDispatchCompute((GLuint)(n + 63) / 64, 1, 1); /* local_size_x 64 */
    glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, bufs[2]);
    glGetBufferSubData(GL_SHADER_STORAGE_BUFFER, 0, (GLsizeiptr)sizeof out, out);
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, 0);
    rules_k_f3 k;
    rules_table_f3 tab;
    rules_k_init_f3(&k, p);
    rules_k_set_interact_f3(&k, &tab, with_table ? &t : NULL);
    char name[96];
    snprintf(name, sizeof name, "%s%s", set, with_table ? ", table" : "");
    for (int i = 0; i < n; i++) {
        float want[NOUT];
        expect(&k, p, &cases[i], want);
        compare(name, i, &cases[i], want, out + NOUT * i, k.max_speed, p->noise != 0);
    }
    printf("%-39s %d cases\n", name, n);
}

/* A set without the table, then with it. */
static void run_sets(const char *set, const boids_params *p, GLuint prog, GLuint bufs[3],
                     GLuint ubo[2]) {
    if (!prog) return;
    run_set(set, p, 0, prog, bufs, ubo);
    run_set(set, p, 1, prog, bufs, ubo);
}

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr,
                "usage: %s shaders/rules.glsl shaders/rules3.glsl tests/gpu/rules3_test.comp\n",
                argv[0]);
        return 2;
    }
    boids_error err;
    gl = boids_gl_create(1, &err);
    if (!gl) return no_gpu_exit("rules3_glsl_test", err.msg);
    make_cases();
    GLuint prog = build((const char *const *)argv + 1), bufs[3], ubo[2];
    glGenBuffers(3, bufs);
    glGenBuffers(2, ubo);
    boids_params p;
    boids_preset_apply(&p, "classic", &err); /* 400 x 400 wrap, R 50, R_sep 20, per step */
    p.dim = 3, p.depth = 400, p.fov = 180;
    run_sets("reynolds wrap fov 180", &p, prog, bufs, ubo);
    p.boundary = BOIDS_BOUNDARY_WALLS;
    p.fov = 120;
    p.predator = 1, p.predator_x = 100, p.predator_y = 100, p.predator_z = 110;
    p.food = 1, p.food_x = 150, p.food_y = 80, p.food_z = 130;
    run_sets("reynolds walls fov 120", &p, prog, bufs, ubo);
    p.boundary = BOIDS_BOUNDARY_OPEN;
    p.neighbours = BOIDS_NEIGHBOURS_TOPOLOGICAL;
    run_sets("reynolds open topological", &p, prog, bufs, ubo);
    p.model = BOIDS_MODEL_VICSEK, p.noise = 0, p.speed = 2;
    run_sets("vicsek walls noise 0", &p, prog, bufs, ubo);
    p.boundary = BOIDS_BOUNDARY_WALLS, p.noise = 1.5, p.noise_seed = 0x123456789abcLL;
    run_sets("vicsek walls noise 1.5", &p, prog, bufs, ubo);
    p.neighbours = BOIDS_NEIGHBOURS_METRIC, p.boundary = BOIDS_BOUNDARY_WRAP, p.noise = 6.283;
    run_sets("vicsek wrap metric noise 2 pi", &p, prog, bufs, ubo);
    glDeleteBuffers(3, bufs);
    glDeleteBuffers(2, ubo);
    glDeleteProgram(prog);
    const boids_gl_debug *log = boids_gl_debug_log(gl);
    CHECK(log->errors == 0, "GL errors: %lu (%s)", log->errors, log->last_error);
    boids_gl_destroy(gl);
    return CHECK_DONE("rules3_glsl_test");
}
