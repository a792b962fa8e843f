/* SPDX-License-Identifier: MIT */
/* One dimension of gpu_rules_glsl_test, compiled once for the plane (RULES_INSTANCE_DIM 2)
 * and once for the box (RULES_INSTANCE_DIM 3): shaders/rules.glsl against src/core/rules.h in
 * float, function by function, on edge cases: the seams d = +-L/2 (on every axis), the radius
 * boundary d2 == R^2 exactly (Reynolds excludes it, Vicsek includes it), the fov boundary (fov 180:
 * exactly 90 degrees), zero vectors and targets, a resting boid, the separation radius exactly, the
 * wall margins and reflections, the boundaries; and with an interaction table (make_table) the
 * points and the obstacles' functions: rims and surfaces exactly, crossings, the seams, a boid
 * at a centre, overlapping obstacles. What exists in one dimension only is in the one
 * `#if RULES_DIM == 2` section below: the plane's segments (touch, seg_rel), the box's Vicsek
 * cone (direction at the poles of its basis, the two noise variates), and each dimension's
 * cases and sets. tests/gpu/rules_test.comp, compiled after the prelude of the dimension and
 * rules.glsl as the pipeline composes its programs, runs each case with the uniform blocks
 * filled by boids_gpu_params_init and boids_gpu_interact_init as the pipeline fills them.
 *
 * Tolerance: decisions (neighbour, fov, flips, counts, inside, touch, hit) and the noise
 * variates (integer hashing) must be equal. Values may differ by 16 ULP of the case's scale
 * (the largest of |expected|, the inputs and max_speed): GLSL 4.30 (section 4.7.1) allows
 * division 2.5 ULP and sqrt, inherited from inversesqrt, about 3 ULP, where C rounds both
 * correctly; the longest chain here (rules_accel: three steers, each a sqrt, a division, a
 * multiply, a subtraction, then a sqrt and a division for the cap) holds at most 5 such
 * operations per term, errors relative to intermediates no larger than the scale; the table's
 * terms are of the same kind (a steer each; the look-ahead adds one division and one sqrt).
 * The box's Vicsek turn with noise > 0 also takes cos and sin of the azimuth, whose GLSL
 * precision the GL specification leaves open (C computes them in double and rounds): those
 * outputs are held to 2^-11 of their scale, the absolute error Vulkan's environment
 * specification requires of sin and cos, which a unit direction carries through unamplified
 * (it is a combination of unit vectors with weights at most 1). llvmpipe rounds sqrt and
 * division correctly and shows 0 ULP. Exit 77 (skip) when no GL 4.3 context can be made.
 *
 * The file is rules_instances.h's instance file: below `#else`, it is compiled inside rules.h's
 * instance of the dimension in float (names _f2 or _f3). */
#ifndef RULES_DIM
#ifndef RULES_INSTANCE_DIM
#error "compile with RULES_INSTANCE_DIM 2 (the plane) or 3 (the box)"
#endif
#define RULES_INSTANCE_FLOAT
#define RULES_INSTANCE_FILE "rules_glsl_test.c"
#include "rules_instances.h"
#else
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glad/gl.h>

#include "boids/backend.h"
#include "gpu_fixture.h"
#include "prelude.h"

int RULES_FN(rules_glsl)(const char *rules_path, const char *test_path);

/* The cases at most; a case's outputs: NOUT floats, a vector output at 0, 4 or 8
 * (tests/gpu/rules_test.comp). */
enum { MAXC = 160, NOUT = 12, ULP_TOL = 16, D = RULES_DIM };

/* One call of a shader function: which (op) and its inputs. */
typedef struct tcase {
    unsigned op;
    float in[16];
} tcase;

static int ncases;
static tcase cases[MAXC];

/* A case of op with the n inputs v (the others 0). */
static void add(unsigned op, int n, const float *v) {
    if (ncases == MAXC) abort();
    tcase *c = &cases[ncases++];
    memset(c, 0, sizeof *c);
    c->op = op;
    memcpy(c->in, v, (size_t)n * sizeof *v);
}

/* The float spacing at |v|. */
static double ulp(double v) {
    float f = fabsf((float)v);
    return (double)(nextafterf(f, INFINITY) - f);
}

/* The text of the file at path (malloc), NULL when it cannot be read. */
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

/* The compute program of the prelude for this dimension, then shaders/rules.glsl (rules_path)
 * and the case shader (test_path); 0 (and a failed check) when it does not compile. */
static GLuint build(const char *rules_path, const char *test_path) {
    const int dim = D;
    size_t plen = boids_gpu_prelude(NULL, 0, dim);
    char *src[3] = {malloc(plen + 1), slurp(rules_path), slurp(test_path)};
    if (src[0]) boids_gpu_prelude(src[0], plen + 1, dim);
    CHECK(src[0] && src[1] && src[2], "cannot read %s or %s", rules_path, test_path);
    GLuint prog = 0;
    if (src[0] && src[1] && src[2]) {
        GLuint sh = glCreateShader(GL_COMPUTE_SHADER);
        glShaderSource(sh, 3, (const char *const *)src, NULL);
        glCompileShader(sh);
        GLint ok = 0;
        glGetShaderiv(sh, GL_COMPILE_STATUS, &ok);
        char log[2048] = "";
        glGetShaderInfoLog(sh, sizeof log, NULL, log);
        CHECK(ok, "%s does not compile for dimension %d: %s", test_path, dim, log);
        prog = glCreateProgram();
        glAttachShader(prog, sh);
        glLinkProgram(prog);
        glDeleteShader(sh);
    }
    for (int i = 0; i < 3; i++) free(src[i]);
    return prog;
}

/* The ops, numbered as tests/gpu/rules_test.comp numbers them: those of both dimensions,
 * then those of one (below). */
enum {
    OP_OFFSET,
    OP_FOV,
    OP_NEIGHBOUR,
    OP_STEER,
    OP_INTEGRATE,
    OP_BOUNDARY,
    OP_ACC_ADD,
    OP_ACCEL,
    OP_UNIT,
    OP_IN_ROUND,
    OP_AVOID,
    OP_HIT,
    OP_EXPEL,
    OP_BLOCK,
    OP_UPDATE /* 14; the ops of one dimension follow */
};

/* The sets of cases (below): a set without the table, where the dimension runs those, then
 * with it. */
static void run_sets(const char *set, const boids_params *p, GLuint prog, GLuint bufs[3],
                     GLuint ubo[2]);

static int nplain; /* the cases of the sets without a table come first */

/* add_d(op, d..., v..., self): a neighbour, fov or acc_add case of the offset d, its float dist2
 * (as the shaders compute it, the components in order), the velocity v and self; its inputs
 * d at 0, dist2 at D, v at D + 1, self at 2 D + 1. */
static void add_dv(unsigned op, const float *x) {
    float in[2 * D + 2];
    float dist2 = x[0] * x[0];
    for (int c = 1; c < D; c++) dist2 += x[c] * x[c];
    memcpy(in, x, D * sizeof *x);
    in[D] = dist2;
    memcpy(in + D + 1, x + D, (D + 1) * sizeof *x);
    add(op, 2 * D + 2, in);
}
#define add_d(op, ...) add_dv(op, (const float[]){__VA_ARGS__})

/* The obstacle a case names (x[0]: its index). */
static const RULES_FN(rules_obst) * obst(const RULES_FN(rules_k) * k, const float *x) {
    return &k->tab->obst[(int)x[0] < k->tab->nobst ? (int)x[0] : 0];
}

/* ---- what one dimension has alone: its ops, its input layouts, its table, cases and sets --- */
#if RULES_DIM == 2
#define TEST_NAME "rules_glsl_test (plane)"
enum { OP_TOUCH = OP_UPDATE + 1, OP_SEG_REL, OP_COUNT, PLAIN_SETS = 0 };

/* accel's inputs: n, mv, c, s, separated, position, velocity; vicsek_update's: the sum, n,
 * u1, u2 (the plane draws one variate: u2 is an input no case sets, 0), position, velocity.
 * The plane's own op compared exactly: touch; it holds no output to the looser bound of the
 * box's trigonometry (OP_TRIG none). */
enum { ACC_N = 0, ACC_MV = 1, ACC_C = 3, ACC_S = 5, ACC_SEP = 7, ACC_P = 8, ACC_V = 10 };
enum { UPD_N = 2, UPD_U1 = 3, UPD_U2 = 8, UPD_P = 4, UPD_V = 6 };
enum { OP_EXACT = OP_TOUCH, OP_EXACT_MASK = 0xF, OP_TRIG = -1 };

/* rules.h's answer for the plane's own ops: the segments' functions. */
static void expect_dim(const rules_k_f2 *k, const boids_params *p, const tcase *c,
                       float out[NOUT]) {
    const float *x = c->in;
    (void)p;
    switch (c->op) {
    case OP_TOUCH:
        out[0] = (float)rules_touch_f2(x[0], x[1], x[2], x[3], x[4], x[5]);
        break;
    case OP_SEG_REL:
        rules_seg_rel_f2(k, obst(k, x), x[1], x[2], &out[0], &out[1], &out[2], &out[3]);
        break;
    }
}

/* The table's obstacles (make_table): two circles, one across the wrap seams; a wall, a wall
 * across the seam, a segment of length 0; two overlapping circles. Its points' depths: a 2-D
 * run ignores them. */
static const boids_obstacle table_obst[] = {{BOIDS_OBSTACLE_CIRCLE, 200, 200, 0, 0, 30, 0},
                                            {BOIDS_OBSTACLE_SEGMENT, 100, 50, 100, 150, 0, 0},
                                            {BOIDS_OBSTACLE_SEGMENT, 390, 300, 420, 300, 0, 0},
                                            {BOIDS_OBSTACLE_CIRCLE, 395, 10, 0, 0, 20, 0},
                                            {BOIDS_OBSTACLE_SEGMENT, 300, 100, 300, 100, 0, 0},
                                            /* issue 19's overlapping pair, moved by (-640, -160) */
                                            {BOIDS_OBSTACLE_CIRCLE, 60, 260, 0, 0, 30, 0},
                                            {BOIDS_OBSTACLE_CIRCLE, 90, 270, 0, 0, 25, 0}};
static const double point_z[4] = {0, 0, 0, 0};

/* The obstacles' functions, and rules_accel, rules_integrate and vicsek_update where the
 * table acts: rims and ends exactly, crossings, collinear segments, the seams, a boid at a
 * circle's centre. */
static void make_table_cases(void) {
    /* inside a circle: on the rim (outside), just inside, the centre, across the seams */
    add(OP_IN_ROUND, 3, (float[]){0, 230, 200});
    add(OP_IN_ROUND, 3, (float[]){0, 229.99998f, 200});
    add(OP_IN_ROUND, 3, (float[]){0, 200, 200});
    add(OP_IN_ROUND, 3, (float[]){3, 5, 10});
    add(OP_IN_ROUND, 3, (float[]){3, 399, 399});
    /* touch (move m; segment a b): crossing, an end on the move's end, apart, collinear
     * overlapping and apart, no move on and off the segment, the move's end on an end */
    add(OP_TOUCH, 6, (float[]){3, 0, 1, -1, 1, 1});
    add(OP_TOUCH, 6, (float[]){3, 0, 3, 0, 3, 5});
    add(OP_TOUCH, 6, (float[]){3, 0, 4, -1, 4, 1});
    add(OP_TOUCH, 6, (float[]){3, 0, 1, 0, 2, 0});
    add(OP_TOUCH, 6, (float[]){3, 0, 4, 0, 5, 0});
    add(OP_TOUCH, 6, (float[]){0, 0, -1, 0, 1, 0});
    add(OP_TOUCH, 6, (float[]){0, 0, -1, 1, 1, 1});
    add(OP_TOUCH, 6, (float[]){2, 2, 0, 2, 2, 0});
    add(OP_TOUCH, 6, (float[]){1, 1, 1, 1, 2, 0.5f});
    add(OP_TOUCH, 6, (float[]){3, 0, 1, -1, 2, 0}); /* b on the move, a off its line */
    add(OP_TOUCH, 6, (float[]){3, 0, 2, 0, 1, -1}); /* a on the move */
    /* avoidance (obstacle, x, y, look-ahead end): at a centre, beside it, clear of it; a
     * wall crossed, passed near its end, along its line; across the seam; a point */
    add(OP_AVOID, 5, (float[]){0, 150, 200, 100, 0});
    add(OP_AVOID, 5, (float[]){0, 150, 215, 100, 0});
    add(OP_AVOID, 5, (float[]){0, 150, 260, 100, 0});
    add(OP_AVOID, 5, (float[]){1, 50, 100, 100, 0});
    add(OP_AVOID, 5, (float[]){1, 50, 160, 100, 0});
    add(OP_AVOID, 5, (float[]){1, 100, 200, 0, -100});
    add(OP_AVOID, 5, (float[]){2, 395, 310, 0, -100});
    add(OP_AVOID, 5, (float[]){4, 290, 95, 100, 0});
    /* hit (obstacle, x, y, end, move): ending inside, ending on the rim, passing through a
     * rim's chord, crossing a wall, ending on its line, short of it, across the seam */
    add(OP_HIT, 7, (float[]){0, 168, 200, 171, 200, 3, 0});
    add(OP_HIT, 7, (float[]){0, 167, 200, 170, 200, 3, 0});
    add(OP_HIT, 7, (float[]){0, 198.5f, 229.99f, 201.5f, 229.99f, 3, 0});
    add(OP_HIT, 7, (float[]){1, 99, 100, 102, 100, 3, 0});
    add(OP_HIT, 7, (float[]){1, 97, 100, 100, 100, 3, 0});
    add(OP_HIT, 7, (float[]){1, 96, 100, 99, 100, 3, 0});
    add(OP_HIT, 7, (float[]){2, 398, 299, 1, 301, 3, 2});
    add(OP_HIT, 7, (float[]){1, 100, 100, 103, 101, 3, 1}); /* from on the wall: leaves it */
    add(OP_HIT, 7, (float[]){1, 100, 100, 100, 103, 0, 3}); /* from on the wall along it */
    /* expel: off centre, at the centre (+x), across the seams */
    add(OP_EXPEL, 3, (float[]){0, 210, 205});
    add(OP_EXPEL, 3, (float[]){0, 200, 200});
    add(OP_EXPEL, 3, (float[]){3, 2, 12});
    /* expel into the overlapping circle, on along the ray out of it; inside both, the first
     * decides; the hard rule and a step there */
    add(OP_EXPEL, 3, (float[]){5, 74, 284});
    add(OP_EXPEL, 3, (float[]){6, 74, 284});
    add(OP_BLOCK, 6, (float[]){74, 284, 77, 284, 3, 0});
    add(OP_INTEGRATE, 6, (float[]){0, 0, 74, 284, 3, 0});
    add(OP_UPDATE, 8, (float[]){1, 0, 2, 0.5f, 74, 284, 3, 0});
    /* the hard rule (x, y, end, velocity): blocked by a circle, inside one, blocked by a wall,
     * free, blocked across the seam */
    add(OP_BLOCK, 6, (float[]){168, 200, 171, 200, 3, 0});
    add(OP_BLOCK, 6, (float[]){210, 205, 213, 205, 3, 0});
    add(OP_BLOCK, 6, (float[]){99, 100, 102, 100, 3, 1});
    add(OP_BLOCK, 6, (float[]){50, 50, 53, 50, 3, 0});
    add(OP_BLOCK, 6, (float[]){398, 299, 1, 301, 3, 2});
    add(OP_SEG_REL, 3, (float[]){2, 398, 299});
    add(OP_SEG_REL, 3, (float[]){2, 5, 5});
    add(OP_SEG_REL, 3, (float[]){1, 50, 60});
    /* vicsek_update (sums, n, u, x, y, v): blocked by a circle (heading mirrored), free */
    add(OP_UPDATE, 8, (float[]){1, 0, 2, 0.5f, 168, 200, 3, 0});
    add(OP_UPDATE, 8, (float[]){0, 1, 2, 0.25f, 50, 50, 1, 1});
    /* accel near the points and obstacles: a predator and a circle ahead, a wall's end, the
     * seam wall, an attractor, the attractor across the seams */
    add(OP_ACCEL, 12, (float[]){0, 0, 0, 0, 0, 0, 0, 0, 150, 200, 3, 0});
    add(OP_ACCEL, 12, (float[]){0, 0, 0, 0, 0, 0, 0, 0, 50, 160, 3, 0});
    add(OP_ACCEL, 12, (float[]){0, 0, 0, 0, 0, 0, 0, 0, 395, 310, 0, -3});
    add(OP_ACCEL, 12, (float[]){0, 0, 0, 0, 0, 0, 0, 0, 240, 240, 1, 1});
    add(OP_ACCEL, 12, (float[]){0, 0, 0, 0, 0, 0, 0, 0, 5, 395, 1, 0});
    /* integrate: blocked by a circle, expelled, blocked by a wall */
    add(OP_INTEGRATE, 6, (float[]){0, 0, 168, 200, 3, 0});
    add(OP_INTEGRATE, 6, (float[]){0, 0, 210, 205, 3, 0});
    add(OP_INTEGRATE, 6, (float[]){0, 0, 99, 100, 3, 1});
}

static void make_cases(void) {
    const float E = 1.0f / 64;
    /* offsets: the seams d = +-L/2 (L = 400) stay, beyond them wrap */
    add(OP_OFFSET, 4, (float[]){0, 0, 200, -200});
    add(OP_OFFSET, 4, (float[]){200, 200, 0, 400});
    add(OP_OFFSET, 4, (float[]){0, 0, 201, -201});
    add(OP_OFFSET, 4, (float[]){10, 390, 390, 10});
    /* fov: exactly 90 degrees both sides, 1/64 behind, 45 degrees, 60 degrees less a bit,
     * a resting boid, the same point */
    add_d(OP_FOV, 0, 10, 2, 0, 0);
    add_d(OP_FOV, 0, -10, 2, 0, 0);
    add_d(OP_FOV, -E, 10, 2, 0, 0);
    add_d(OP_FOV, 1, 1, 1, 0, 0);
    add_d(OP_FOV, 5, 554 * E, 2, 0, 0);
    add_d(OP_FOV, 5, 555 * E, 2, 0, 0);
    add_d(OP_FOV, 3, 4, 0, 0, 0);
    add_d(OP_FOV, 0, 0, 2, 0, 0);
    /* neighbour: d2 == R^2 exactly (R = 50) ahead and behind, itself, beyond R, inside */
    add_d(OP_NEIGHBOUR, 30, 40, 1, 0, 0);
    add_d(OP_NEIGHBOUR, -30, -40, 1, 0, 0);
    add_d(OP_NEIGHBOUR, 0, 0, 1, 0, 1);
    add_d(OP_NEIGHBOUR, 60, 80, 1, 0, 0);
    add_d(OP_NEIGHBOUR, 30, 39, 1, 0, 0);
    add_d(OP_NEIGHBOUR, 0, 40, 1, 0, 0);
    /* steer: zero target, plain, nearly along v, reversed (capped) */
    add(OP_STEER, 4, (float[]){0, 0, 1, 1});
    add(OP_STEER, 4, (float[]){3, 4, 1, 0});
    add(OP_STEER, 4, (float[]){1e-3f, 0, 2.9f, 0.1f});
    add(OP_STEER, 4, (float[]){-5, 0, 3, 0});
    /* integrate (ax, ay, x, y, vx, vy): resting, crossing the seam, over max, under min,
     * into the corners (walls reflect, wrap wraps) */
    add(OP_INTEGRATE, 6, (float[]){0, 0, 10, 10, 0, 0});
    add(OP_INTEGRATE, 6, (float[]){0.05f, 0.01f, 399.9f, 0.05f, 2.5f, -1});
    add(OP_INTEGRATE, 6, (float[]){1, 1, 200, 200, 3, 0});
    add(OP_INTEGRATE, 6, (float[]){0, 0, 200, 200, 1, 0});
    add(OP_INTEGRATE, 6, (float[]){0, 0, 1, 1, -2, -2});
    add(OP_INTEGRATE, 6, (float[]){0, 0, 399, 399, 2, 2});
    /* boundary: just outside each edge, on the edges, far corner */
    add(OP_BOUNDARY, 2, (float[]){-0.5f, 400});
    add(OP_BOUNDARY, 2, (float[]){400, -0.5f});
    add(OP_BOUNDARY, 2, (float[]){-3, 403});
    add(OP_BOUNDARY, 2, (float[]){403, 200});
    add(OP_BOUNDARY, 2, (float[]){0, 0});
    add(OP_BOUNDARY, 2, (float[]){399.99997f, 0});
    /* acc_add: at the same point (no separation), at the separation radius exactly (20),
     * inside it */
    add_d(OP_ACC_ADD, 0, 0, 1, 2, 0);
    add_d(OP_ACC_ADD, 12, 16, 1, 1, 0);
    add_d(OP_ACC_ADD, 3, 4, 1, 1, 0);
    /* accel (acc n, mvx, mvy, cx, cy, sx, sy, separated; x, y, vx, vy): full sums, then on
     * the wall margin exactly (50) and inside it, in a corner, a resting boid alone */
    add(OP_ACCEL, 12, (float[]){3, 3, 1, 10, -5, 0.1f, -0.2f, 1, 200, 200, 2, 0});
    add(OP_ACCEL, 12, (float[]){0, 0, 0, 0, 0, 0, 0, 0, 50, 350, 2, 0});
    add(OP_ACCEL, 12, (float[]){0, 0, 0, 0, 0, 0, 0, 0, 49.9f, 350.1f, 2, 0});
    add(OP_ACCEL, 12, (float[]){0, 0, 0, 0, 0, 0, 0, 0, 10, 390, 0, 1.5f});
    add(OP_ACCEL, 12, (float[]){0, 0, 0, 0, 0, 0, 0, 0, 200, 200, 0, 0});
    add(OP_ACCEL, 12, (float[]){1, 2, 0, 3, 4, 0, 0, 0, 110, 95, 1, 1});
    /* vicsek_add's unit heading: zero, plain, so small that |v|^2 underflows to 0 */
    add(OP_UNIT, 2, (float[]){0, 0});
    add(OP_UNIT, 2, (float[]){3, 4});
    add(OP_UNIT, 2, (float[]){1e-30f, 0});
    nplain = ncases;
    make_table_cases();
}

/* The plane's own parameters (none: the classic preset's plane) and its Vicsek sets. */
static void dim_box(boids_params *p) {
    (void)p;
}
static void dim_points_z(boids_params *p) {
    (void)p;
}
static void dim_vicsek_sets(boids_params *p, GLuint prog, GLuint bufs[3], GLuint ubo[2]) {
    p->model = BOIDS_MODEL_VICSEK;
    run_sets("vicsek open topological", p, prog, bufs, ubo);
    p->neighbours = BOIDS_NEIGHBOURS_METRIC;
    p->boundary = BOIDS_BOUNDARY_WRAP;
    run_sets("vicsek wrap metric", p, prog, bufs, ubo);
    p->noise_type = BOIDS_NOISE_VECTORIAL, p->noise = 0.7, p->chirality = 0.3;
    p->field = 0.8, p->field_x = 1, p->field_y = -2;
    run_sets("vicsek menu: vectorial, chiral, field", p, prog, bufs, ubo);
}

#else
#define TEST_NAME "rules_glsl_test (box)"
enum { OP_DIRECTION = OP_UPDATE + 1, OP_NOISE, OP_COUNT, PLAIN_SETS = 1 };

/* accel's inputs: mv, c, s, n, separated, position, velocity (x, y; its z past the 16
 * inputs, 0.5); vicsek_update's: the sum, position, velocity, n, u1, u2. The box's own op
 * compared exactly: the noise variates; the outputs the GPU's sin and cos enter (the Vicsek
 * cone's direction, and the update, with noise) are held to 2^-11 of their scale. */
enum { ACC_MV = 0, ACC_C = 3, ACC_S = 6, ACC_N = 9, ACC_SEP = 10, ACC_P = 11, ACC_V = 14 };
enum { UPD_P = 3, UPD_V = 6, UPD_N = 9, UPD_U1 = 10, UPD_U2 = 11 };
enum { OP_EXACT = OP_NOISE, OP_EXACT_MASK = 0x3, OP_TRIG = OP_DIRECTION };

/* rules.h's answer for the box's own ops: the Vicsek cone's direction, the noise variates. */
static void expect_dim(const rules_k_f3 *k, const boids_params *p, const tcase *c,
                       float out[NOUT]) {
    const float *x = c->in;
    (void)k;
    switch (c->op) {
    case OP_DIRECTION:
        vicsek_direction_f3(x, (long)x[9], x + 3, x[10], x[11], (float)p->noise,
                            (const int[3]){0, 0, 0}, out);
        break;
    case OP_NOISE:
        out[0] = (float)boids_noise_u((uint64_t)p->noise_seed, (uint32_t)x[0], (uint32_t)x[1]);
        out[1] = (float)boids_noise_u2((uint64_t)p->noise_seed, (uint32_t)x[0], (uint32_t)x[1]);
        break;
    }
}

/* The table's obstacles (make_table) in the 400^3 box: spheres at the centre, on the corners
 * across every seam, a small one, and one overlapping the first. Its points' depths. */
static const boids_obstacle table_obst[] = {{BOIDS_OBSTACLE_SPHERE, 200, 200, 0, 0, 30, 200},
                                            {BOIDS_OBSTACLE_SPHERE, 395, 10, 0, 0, 20, 390},
                                            {BOIDS_OBSTACLE_SPHERE, 100, 300, 0, 0, 15, 100},
                                            {BOIDS_OBSTACLE_SPHERE, 250, 200, 0, 0, 25, 200}};
static const double point_z[4] = {150, 220, 100, 395};

/* The spheres' functions, and rules_accel, rules_integrate and vicsek_update where the
 * table acts. */
static void make_table_cases(void) {
    /* inside (sphere, p): on the surface along x, y and z (outside), just inside, the centre,
     * across the seams */
    add(OP_IN_ROUND, 4, (float[]){0, 230, 200, 200});
    add(OP_IN_ROUND, 4, (float[]){0, 200, 230, 200});
    add(OP_IN_ROUND, 4, (float[]){0, 200, 200, 170});
    add(OP_IN_ROUND, 4, (float[]){0, 229.99998f, 200, 200});
    add(OP_IN_ROUND, 4, (float[]){0, 200, 200, 200});
    add(OP_IN_ROUND, 4, (float[]){1, 5, 5, 5});
    add(OP_IN_ROUND, 4, (float[]){1, 399, 399, 399});
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

/* The box's own parameters: its depth, the predator's and the food's, and its Vicsek sets
 * (the noise's variates and cone). */
static void dim_box(boids_params *p) {
    p->dim = 3, p->depth = 400;
}
static void dim_points_z(boids_params *p) {
    p->predator_z = 110, p->food_z = 130;
}
static void dim_vicsek_sets(boids_params *p, GLuint prog, GLuint bufs[3], GLuint ubo[2]) {
    p->model = BOIDS_MODEL_VICSEK, p->noise = 0, p->speed = 2;
    run_sets("vicsek walls noise 0", p, prog, bufs, ubo);
    p->boundary = BOIDS_BOUNDARY_WALLS, p->noise = 1.5, p->noise_seed = 0x123456789abcLL;
    run_sets("vicsek walls noise 1.5", p, prog, bufs, ubo);
    p->neighbours = BOIDS_NEIGHBOURS_METRIC, p->boundary = BOIDS_BOUNDARY_WRAP, p->noise = 6.283;
    run_sets("vicsek wrap metric noise 2 pi", p, prog, bufs, ubo);
    p->noise_type = BOIDS_NOISE_VECTORIAL, p->noise = 0.7, p->chirality = 0.3;
    p->field = 0.8, p->field_x = 1, p->field_y = -2, p->field_z = 0.5;
    run_sets("vicsek menu: vectorial, chiral, field", p, prog, bufs, ubo);
}
#endif

_Static_assert(OP_UPDATE == 14 && OP_COUNT == 17, "tests/gpu/rules_test.comp numbers the ops "
                                                  "both dimensions share 0 to 14, its own 15, 16");

/* The table of the sets with one: the dimension's obstacles; predators 0 and 3, attractors 1
 * and 15 (index order, and one across the seams). */
static void make_table(boids_interact *t, const boids_params *p) {
    boids_interact_default(t, p);
    t->predators[0] = (boids_point){1, 150, 150, 80, 2, point_z[0]};
    t->predators[3] = (boids_point){1, 210, 190, 50, 1, point_z[1]};
    t->attractors[1] = (boids_point){1, 250, 250, 100, 1.5, point_z[2]};
    t->attractors[15] = (boids_point){1, 10, 390, 60, 1, point_z[3]};
    t->obstacle_count = (int)(sizeof table_obst / sizeof *table_obst);
    memcpy(t->obstacles, table_obst, sizeof table_obst);
}

/* The outputs compared exactly, per op (bit j: output j). */
static unsigned decision(unsigned op) {
    switch (op) {
    case OP_FOV:
    case OP_NEIGHBOUR:
    case OP_IN_ROUND:
    case OP_HIT:
        return 0xF;
    case OP_BOUNDARY:
        return 0x70;
    case OP_ACC_ADD:
        return 0x81;
    case OP_AVOID:
        return 0x1;
    case OP_EXACT:
        return OP_EXACT_MASK;
    default:
        return 0;
    }
}

/* Whether the GPU's sin and cos enter a case's outputs: the ops of the dimension's Vicsek turn
 * (OP_TRIG and the update, where it has one), with noise; and the update with vectorial
 * noise in either dimension (its random unit vector is a cosine and a sine). */
static int trig_op(const boids_params *p, unsigned op) {
    const int trig = OP_TRIG >= 0 || p->noise_type == BOIDS_NOISE_VECTORIAL;
    return trig && p->noise != 0 && ((int)op == OP_TRIG || op == OP_UPDATE);
}

/* rules.h's answer for one case, in the shader's output layout. */
static void expect(const RULES_FN(rules_k) * k, const boids_params *p, const tcase *c,
                   float out[NOUT]) {
    const float *x = c->in;
    const size_t vec = D * sizeof *x;
    memset(out, 0, NOUT * sizeof *out);
    switch (c->op) {
    case OP_OFFSET: /* from x[0] to x[D] */
        RULES_FN(rules_offset)(k, x, x + D, out);
        break;
    case OP_FOV:
        out[0] = (float)RULES_FN(rules_in_fov)(k, x, x[D], x + D + 1);
        break;
    case OP_NEIGHBOUR: { /* the rule as README states it, from rules.h's pieces */
        const int vicsek = p->model == BOIDS_MODEL_VICSEK;
        const int radius = p->neighbours != BOIDS_NEIGHBOURS_TOPOLOGICAL || p->k_in_vision;
        const int fov = RULES_FN(rules_in_fov)(k, x, x[D], x + D + 1);
        int r;
        if (x[2 * D + 1] != 0)
            r = vicsek;
        else if (radius && !(vicsek ? x[D] <= k->vision2 : x[D] < k->vision2))
            r = 0;
        else
            r = vicsek || fov;
        out[0] = (float)r, out[1] = (float)fov;
        break;
    }
    case OP_STEER: /* towards x[0] from the velocity x[D] */
        RULES_FN(rules_steer)(k, x, x + D, out);
        break;
    case OP_INTEGRATE: /* acceleration x[0], position x[D], velocity x[2 D] */
        memcpy(out, x + D, vec), memcpy(out + 4, x + 2 * D, vec);
        RULES_FN(rules_integrate)(k, x, out, out + 4);
        break;
    case OP_BOUNDARY: {
        int flip[D];
        memcpy(out, x, vec);
        RULES_FN(rules_boundary)(k, out, flip);
        for (int j = 0; j < D; j++) out[4 + j] = (float)flip[j];
        break;
    }
    case OP_ACC_ADD: {
        RULES_FN(rules_acc) s;
        RULES_FN(rules_acc_init)(&s);
        RULES_FN(rules_acc_add)(k, &s, x, x[D], x + D + 1);
        out[0] = (float)s.n, out[7] = (float)s.separated;
        memcpy(out + 1, s.mv, vec), memcpy(out + 4, s.off, vec), memcpy(out + 8, s.sep, vec);
        break;
    }
    case OP_ACCEL: {
        RULES_FN(rules_acc) s = {.n = (long)x[ACC_N], .separated = x[ACC_SEP] != 0};
        float vel[D];
        memcpy(s.mv, x + ACC_MV, vec), memcpy(s.off, x + ACC_C, vec), memcpy(s.sep, x + ACC_S, vec);
        for (int j = 0; j < D; j++) vel[j] = ACC_V + j < 16 ? x[ACC_V + j] : 0.5f;
        RULES_FN(rules_accel)(k, &s, x + ACC_P, vel, out);
        break;
    }
    case OP_UNIT:
        RULES_FN(vicsek_add)(x, out);
        break;
    case OP_UPDATE: /* the heading sum x[0] */
        memcpy(out, x + UPD_P, vec), memcpy(out + 4, x + UPD_V, vec);
        RULES_FN(vicsek_update)
        (k, x, (long)x[UPD_N], x[UPD_U1], x[UPD_U2], (float)p->noise, (float)p->speed, out,
         out + 4);
        break;
    /* The obstacles (x[0]: the obstacle's index; a position at x[1]). */
    case OP_IN_ROUND:
        out[0] = (float)RULES_FN(rules_in_round)(k, obst(k, x), x + 1);
        break;
    case OP_AVOID: /* the look-ahead ending at x[1 + D] */
        out[0] = (float)RULES_FN(rules_avoid_dir)(k, obst(k, x), x + 1, x + 1 + D, &out[1]);
        if (out[0] == 0) memset(out + 1, 0, vec); /* the shader returns no direction then */
        break;
    case OP_HIT: /* the move to x[1 + D] by x[1 + 2 D] */
        out[0] = (float)RULES_FN(rules_hit)(k, obst(k, x), x + 1, x + 1 + D, x + 1 + 2 * D);
        break;
    case OP_EXPEL:
        memcpy(out, x + 1, vec);
        RULES_FN(rules_expel)(k, obst(k, x), out);
        break;
    case OP_BLOCK: /* position x[0], end x[D], velocity x[2 D] */
        memcpy(out, x + D, vec), memcpy(out + 4, x + 2 * D, vec);
        RULES_FN(rules_block)(k, x, out, out + 4);
        break;
    default:
        expect_dim(k, p, c, out);
        break;
    }
}

/* Decisions exact; values within ULP_TOL ULP of the case's scale, or 2^-11 of it where the
 * GPU's sin and cos enter (trig_op). */
static void compare(const char *set, int i, const tcase *c, const float *want, const float *got,
                    float max_speed, int loose) {
    double scale = max_speed;
    for (int j = 0; j < 16; j++) scale = fmax(scale, fabs(c->in[j]));
    for (int j = 0; j < NOUT; j++) {
        if (decision(c->op) >> j & 1) {
            CHECK(want[j] == got[j], "%s case %d (op %u) output %d: GLSL %.9g, rules.h %.9g", set,
                  i, c->op, j, got[j], want[j]);
            continue;
        }
        double s = fmax(scale, fabs(want[j]));
        double tol = loose ? s / 2048 : ULP_TOL * ulp(s);
        CHECK(fabs((double)want[j] - got[j]) <= tol,
              "%s case %d (op %u) output %d: GLSL %.9g, rules.h %.9g (tol %s of the scale)", set, i,
              c->op, j, got[j], want[j],
              loose ? "2^-11: GLSL sin, cos" : "16 ULP: GLSL division and sqrt precision");
    }
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
    boids_gpu_interact_init(&ui, p, with_table ? &t : NULL);
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
    RULES_FN(rules_k) k;
    RULES_FN(rules_table) tab;
    RULES_FN(rules_k_init)(&k, p);
    RULES_FN(rules_k_set_interact)(&k, &tab, with_table ? &t : NULL);
    /* an empty table: the same rules, and an obstacle case's table to read */
    if (with_table && !k.tab) k.tab = &tab;
    char name[96];
    snprintf(name, sizeof name, "%s%s", set, with_table ? ", table" : "");
    for (int i = 0; i < n; i++) {
        float want[NOUT];
        expect(&k, p, &cases[i], want);
        compare(name, i, &cases[i], want, out + NOUT * i, k.max_speed, trig_op(p, cases[i].op));
    }
    printf("%d-D %-39s %d cases\n", D, name, n);
}

/* A set without the table where the dimension runs those (PLAIN_SETS), then with it. */
static void run_sets(const char *set, const boids_params *p, GLuint prog, GLuint bufs[3],
                     GLuint ubo[2]) {
    if (!prog) return;
    if (PLAIN_SETS) run_set(set, p, 0, prog, bufs, ubo);
    run_set(set, p, 1, prog, bufs, ubo);
}

/* The cases of this dimension, rules_path shaders/rules.glsl and test_path
 * tests/gpu/rules_test.comp (rules_glsl_main.c): 0 passed, 1 failed, 77 no GL 4.3 context. */
int RULES_FN(rules_glsl)(const char *rules_path, const char *test_path) {
    boids_error err;
    gl = boids_gl_create(1, &err);
    if (!gl) return no_gpu_exit(TEST_NAME, err.msg);
    make_cases();
    GLuint prog = build(rules_path, test_path), bufs[3], ubo[2];
    glGenBuffers(3, bufs);
    glGenBuffers(2, ubo);
    boids_params p;
    boids_preset_apply(&p, "classic", &err); /* 400 x 400 wrap, R 50, R_sep 20, per step */
    dim_box(&p);
    p.fov = 180;
    run_sets("reynolds wrap fov 180", &p, prog, bufs, ubo);
    p.boundary = BOIDS_BOUNDARY_WALLS;
    p.fov = 120;
    p.predator = 1, p.predator_x = 100, p.predator_y = 100;
    p.food = 1, p.food_x = 150, p.food_y = 80;
    dim_points_z(&p);
    run_sets("reynolds walls fov 120", &p, prog, bufs, ubo);
    p.boundary = BOIDS_BOUNDARY_OPEN;
    p.neighbours = BOIDS_NEIGHBOURS_TOPOLOGICAL;
    run_sets("reynolds open topological", &p, prog, bufs, ubo);
    dim_vicsek_sets(&p, prog, bufs, ubo);
    glDeleteBuffers(3, bufs);
    glDeleteBuffers(2, ubo);
    glDeleteProgram(prog);
    const boids_gl_debug *log = boids_gl_debug_log(gl);
    CHECK(log->errors == 0, "GL errors: %lu (%s)", log->errors, log->last_error);
    boids_gl_destroy(gl);
    return CHECK_DONE(TEST_NAME);
}
#endif /* RULES_DIM */
