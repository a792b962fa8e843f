/* SPDX-License-Identifier: MIT */
/* shaders/rules.glsl against src/core/rules.h in float, function by function, on edge cases:
 * the radius boundary d2 == R^2 exactly (Reynolds excludes it, Vicsek includes it), the fov
 * boundary (fov 180: exactly 90 degrees, cos exactly 0), zero vectors and zero targets, a
 * resting boid, the seams d = +-L/2, the separation radius exactly, the wall margins, the
 * three boundaries; and with an interaction table (make_table) the points and the obstacles'
 * functions: rims, segment ends, crossings, collinear moves, the seams. tests/gpu/rules_test.comp
 * runs each case, composed after the prelude and rules.glsl as the pipeline composes its
 * programs, with the uniform blocks filled by boids_gpu_params_init and
 * boids_gpu_interact_init as the pipeline fills them.
 *
 * Tolerance: decisions (neighbour, fov, flips, counts, inside, touch, hit) must be equal. Values
 * may differ by 16 ULP of the case's scale (the largest of |expected|, the inputs and max_speed):
 * GLSL 4.30 (section 4.7.1) allows division 2.5 ULP and sqrt, inherited from inversesqrt, about 3
 * ULP, where C rounds both correctly; the longest chain here (rules_accel: three steers, each a
 * sqrt, a division, a multiply, a subtraction, then a sqrt and a division for the cap) holds
 * at most 5 such operations per term, errors relative to intermediates no larger than the
 * scale; the table's terms are of the same kind (a steer each; the look-ahead adds one
 * division and one sqrt). llvmpipe rounds sqrt and division correctly and shows 0 ULP.
 * Exit 77 (skip) when no GL 4.3 context can be made at all. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glad/gl.h>

#include "gpu_fixture.h"
#include "prelude.h"

#define RULES_REAL     float
#define RULES_DIM      2
#define RULES_FN(name) name##_f2
#include "rules.h"

/* The arrays of rules.h's arguments from the cases' scalars. */
#define V2(a, b) ((float[2]){(a), (b)})

enum { MAXC = 160, ULP_TOL = 16 };
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
    OP_IN_CIRCLE,
    OP_TOUCH,
    OP_AVOID,
    OP_HIT,
    OP_EXPEL,
    OP_BLOCK,
    OP_SEG_REL,
    OP_VICSEK
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

static GLuint build(const char *rules_path, const char *test_path) {
    size_t plen = boids_gpu_prelude(NULL, 0);
    char *prelude = malloc(plen + 1);
    boids_gpu_prelude(prelude, plen + 1);
    char *rules = slurp(rules_path), *test = slurp(test_path);
    CHECK(rules && test, "cannot read %s or %s", rules_path, test_path);
    GLuint prog = 0;
    if (rules && test) {
        const char *src[3] = {prelude, rules, test};
        GLuint sh = glCreateShader(GL_COMPUTE_SHADER);
        glShaderSource(sh, 3, src, NULL);
        glCompileShader(sh);
        GLint ok = 0;
        glGetShaderiv(sh, GL_COMPILE_STATUS, &ok);
        char log[2048] = "";
        glGetShaderInfoLog(sh, sizeof log, NULL, log);
        CHECK(ok, "rules_test.comp does not compile: %s", log);
        prog = glCreateProgram();
        glAttachShader(prog, sh);
        glLinkProgram(prog);
        glDeleteShader(sh);
    }
    free(prelude);
    free(rules);
    free(test);
    return prog;
}

/* rules.h's answer for a case of the obstacles' functions (x[0]: the obstacle's index where
 * one is named). */
static void expect_obstacle(const rules_k_f2 *k, const boids_params *p, const tcase *c,
                            float out[8]) {
    const float *x = c->in;
    const rules_obst_f2 *o = &k->tab->obst[(int)x[0] < k->tab->nobst ? (int)x[0] : 0];
    switch (c->op) {
    case OP_IN_CIRCLE:
        out[0] = (float)rules_in_round_f2(k, o, V2(x[1], x[2]));
        break;
    case OP_TOUCH:
        out[0] = (float)rules_touch_f2(x[0], x[1], x[2], x[3], x[4], x[5]);
        break;
    case OP_AVOID:
        out[0] = (float)rules_avoid_dir_f2(k, o, V2(x[1], x[2]), V2(x[3], x[4]), &out[1]);
        if (out[0] == 0) out[1] = out[2] = 0; /* the shader returns no direction then */
        break;
    case OP_HIT:
        out[0] = (float)rules_hit_f2(k, o, V2(x[1], x[2]), V2(x[3], x[4]), V2(x[5], x[6]));
        break;
    case OP_EXPEL:
        out[0] = x[1], out[1] = x[2];
        rules_expel_f2(k, o, out);
        break;
    case OP_BLOCK:
        out[0] = x[2], out[1] = x[3], out[2] = x[4], out[3] = x[5];
        rules_block_f2(k, V2(x[0], x[1]), &out[0], &out[2]);
        break;
    case OP_SEG_REL:
        rules_seg_rel_f2(k, o, x[1], x[2], &out[0], &out[1], &out[2], &out[3]);
        break;
    case OP_VICSEK:
        out[0] = x[4], out[1] = x[5], out[2] = x[6], out[3] = x[7];
        vicsek_update_f2(k, V2(x[0], x[1]), (long)x[2], x[3], 0, (float)p->noise, (float)p->speed,
                         &out[0], &out[2]);
        break;
    }
}

/* rules.h's answer for one case, in the shader's output layout. */
static void expect(const rules_k_f2 *k, const boids_params *p, const tcase *c, float out[8]) {
    const float *x = c->in;
    memset(out, 0, 8 * sizeof *out);
    switch (c->op) {
    case OP_OFFSET:
        rules_offset_f2(k, V2(x[0], x[1]), V2(x[2], x[3]), out);
        break;
    case OP_FOV:
        out[0] = (float)rules_in_fov_f2(k, V2(x[0], x[1]), x[2], V2(x[3], x[4]));
        break;
    case OP_NEIGHBOUR: { /* the rule as README states it, from rules.h's pieces */
        const int vicsek = p->model == BOIDS_MODEL_VICSEK;
        const int radius = p->neighbours != BOIDS_NEIGHBOURS_TOPOLOGICAL || p->k_in_vision;
        int r;
        if (x[5] != 0)
            r = vicsek;
        else if (radius && !(vicsek ? x[2] <= k->vision2 : x[2] < k->vision2))
            r = 0;
        else
            r = vicsek || rules_in_fov_f2(k, V2(x[0], x[1]), x[2], V2(x[3], x[4]));
        out[0] = (float)r;
        break;
    }
    case OP_STEER:
        rules_steer_f2(k, V2(x[0], x[1]), V2(x[2], x[3]), out);
        break;
    case OP_INTEGRATE:
        out[0] = x[2], out[1] = x[3], out[2] = x[4], out[3] = x[5];
        rules_integrate_f2(k, V2(x[0], x[1]), &out[0], &out[2]);
        break;
    case OP_BOUNDARY: {
        int flip[2];
        out[0] = x[0], out[1] = x[1];
        rules_boundary_f2(k, out, flip);
        out[2] = (float)flip[0], out[3] = (float)flip[1];
        break;
    }
    case OP_ACC_ADD: {
        rules_acc_f2 a;
        rules_acc_init_f2(&a);
        rules_acc_add_f2(k, &a, V2(x[0], x[1]), x[2], V2(x[3], x[4]));
        float v[8] = {(float)a.n, a.mvx, a.mvy, a.cx, a.cy, a.sx, a.sy, (float)a.separated};
        memcpy(out, v, sizeof v);
        break;
    }
    case OP_ACCEL: {
        rules_acc_f2 a = {(long)x[0], {{x[1], x[2]}}, {{x[3], x[4]}}, {{x[5], x[6]}}, x[7] != 0};
        rules_accel_f2(k, &a, V2(x[8], x[9]), V2(x[10], x[11]), out);
        break;
    }
    case OP_UNIT:
        vicsek_add_f2(V2(x[0], x[1]), out);
        break;
    default:
        expect_obstacle(k, p, c, out);
        break;
    }
}

static double ulp(double v) {
    float f = fabsf((float)v);
    return (double)(nextafterf(f, INFINITY) - f);
}

/* Decisions are exact; values within ULP_TOL ULP of the case's scale. */
static void compare(const char *set, int i, const tcase *c, const float *want, const float *got,
                    float max_speed) {
    static const unsigned decision[] = {0,   0xF, 0xF, 0,   0, 0xC, 0x81, 0, 0,
                                        0xF, 0xF, 0x1, 0xF, 0, 0,   0,    0};
    double scale = max_speed;
    for (int j = 0; j < 16; j++) scale = fmax(scale, fabs(c->in[j]));
    for (int j = 0; j < 8; j++) {
        if (decision[c->op] >> j & 1) {
            CHECK(want[j] == got[j], "%s case %d (op %u) output %d: GLSL %g, rules.h %g", set, i,
                  c->op, j, got[j], want[j]);
        } else {
            double tol = ULP_TOL * ulp(fmax(scale, fabs(want[j])));
            CHECK(fabs((double)want[j] - got[j]) <= tol,
                  "%s case %d (op %u) output %d: GLSL %.9g, rules.h %.9g (tol %d ULP of the scale: "
                  "GLSL division and sqrt precision)",
                  set, i, c->op, j, got[j], want[j], ULP_TOL);
        }
    }
}

static int ncases;
static tcase cases[MAXC];

static void add(unsigned op, int n, const float *v) {
    tcase *c = &cases[ncases++];
    memset(c, 0, sizeof *c);
    c->op = op;
    memcpy(c->in, v, (size_t)n * sizeof *v);
}

/* A case with the offset's float d2 put after (dx, dy), as the shaders compute it. */
static void add_d(unsigned op, float dx, float dy, float vx, float vy, float self) {
    float d2 = dx * dx + dy * dy;
    add(op, 6, (float[]){dx, dy, d2, vx, vy, self});
}

/* The table of every set (make_table): two circles, one across the wrap seams; a wall, a
 * wall across the seam, a segment of length 0; two overlapping circles; predators 0 and 3,
 * attractors 1 and 15 (index order, and one across the seams). */
static void make_table(boids_interact *t, const boids_params *p) {
    boids_interact_default(t, p);
    t->predators[0] = (boids_point){1, 150, 150, 80, 2, 0};
    t->predators[3] = (boids_point){1, 210, 190, 50, 1, 0};
    t->attractors[1] = (boids_point){1, 250, 250, 100, 1.5, 0};
    t->attractors[15] = (boids_point){1, 10, 390, 60, 1, 0};
    const boids_obstacle obs[] = {{BOIDS_OBSTACLE_CIRCLE, 200, 200, 0, 0, 30, 0},
                                  {BOIDS_OBSTACLE_SEGMENT, 100, 50, 100, 150, 0, 0},
                                  {BOIDS_OBSTACLE_SEGMENT, 390, 300, 420, 300, 0, 0},
                                  {BOIDS_OBSTACLE_CIRCLE, 395, 10, 0, 0, 20, 0},
                                  {BOIDS_OBSTACLE_SEGMENT, 300, 100, 300, 100, 0, 0},
                                  /* issue 19's overlapping pair, moved by (-640, -160) */
                                  {BOIDS_OBSTACLE_CIRCLE, 60, 260, 0, 0, 30, 0},
                                  {BOIDS_OBSTACLE_CIRCLE, 90, 270, 0, 0, 25, 0}};
    t->obstacle_count = 7;
    memcpy(t->obstacles, obs, sizeof obs);
}

/* The obstacles' functions, and rules_accel, rules_integrate and vicsek_update where the
 * table acts: rims and ends exactly, crossings, collinear segments, the seams, a boid at a
 * circle's centre. */
static void make_table_cases(void) {
    /* inside a circle: on the rim (outside), just inside, the centre, across the seams */
    add(OP_IN_CIRCLE, 3, (float[]){0, 230, 200});
    add(OP_IN_CIRCLE, 3, (float[]){0, 229.99998f, 200});
    add(OP_IN_CIRCLE, 3, (float[]){0, 200, 200});
    add(OP_IN_CIRCLE, 3, (float[]){3, 5, 10});
    add(OP_IN_CIRCLE, 3, (float[]){3, 399, 399});
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
    add(OP_VICSEK, 8, (float[]){1, 0, 2, 0.5f, 74, 284, 3, 0});
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
    add(OP_VICSEK, 8, (float[]){1, 0, 2, 0.5f, 168, 200, 3, 0});
    add(OP_VICSEK, 8, (float[]){0, 1, 2, 0.25f, 50, 50, 1, 1});
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
    make_table_cases();
}

static void run_set(const char *set, const boids_params *p, GLuint prog, GLuint bufs[3],
                    GLuint ubo[2]) {
    boids_gpu_params u;
    boids_gpu_params_init(&u, p);
    glBindBuffer(GL_UNIFORM_BUFFER, ubo[0]);
    glBufferData(GL_UNIFORM_BUFFER, sizeof u, &u, GL_STATIC_DRAW);
    glBindBufferBase(GL_UNIFORM_BUFFER, BOIDS_GPU_UBO_PARAMS, ubo[0]);
    boids_interact t;
    make_table(&t, p);
    boids_gpu_interact ui;
    boids_gpu_interact_init(&ui, p, &t);
    glBindBuffer(GL_UNIFORM_BUFFER, ubo[1]);
    glBufferData(GL_UNIFORM_BUFFER, sizeof ui, &ui, GL_STATIC_DRAW);
    glBindBufferBase(GL_UNIFORM_BUFFER, BOIDS_GPU_UBO_INTERACT, ubo[1]);
    unsigned ops[MAXC];
    float in[MAXC * 16], out[MAXC * 8];
    for (int i = 0; i < ncases; i++) {
        ops[i] = cases[i].op;
        memcpy(in + 16 * i, cases[i].in, sizeof cases[i].in);
    }
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, bufs[0]);
    glBufferData(GL_SHADER_STORAGE_BUFFER, (GLsizeiptr)sizeof ops, ops, GL_STATIC_DRAW);
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, bufs[1]);
    glBufferData(GL_SHADER_STORAGE_BUFFER, (GLsizeiptr)sizeof in, in, GL_STATIC_DRAW);
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, bufs[2]);
    glBufferData(GL_SHADER_STORAGE_BUFFER, (GLsizeiptr)sizeof out, NULL, GL_DYNAMIC_READ);
    for (GLuint b = 0; b < 3; b++) glBindBufferBase(GL_SHADER_STORAGE_BUFFER, b, bufs[b]);
    glUseProgram(prog);
    glUniform1ui(glGetUniformLocation(prog, "u_cases"), (GLuint)ncases);
    glDispatchCompute((GLuint)(ncases + 63) / 64, 1, 1); /* local_size_x 64 */
    glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, bufs[2]);
    glGetBufferSubData(GL_SHADER_STORAGE_BUFFER, 0, (GLsizeiptr)sizeof out, out);
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, 0);
    rules_k_f2 k;
    rules_table_f2 tab;
    rules_k_init_f2(&k, p);
    rules_k_set_interact_f2(&k, &tab, &t);
    if (!k.tab) k.tab = &tab; /* empty: the same rules, and an obstacle case's table to read */
    for (int i = 0; i < ncases; i++) {
        float want[8];
        expect(&k, p, &cases[i], want);
        compare(set, i, &cases[i], want, out + 8 * i, k.max_speed);
    }
    printf("%-28s %d cases\n", set, ncases);
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: %s shaders/rules.glsl tests/gpu/rules_test.comp\n", argv[0]);
        return 2;
    }
    boids_error err;
    gl = boids_gl_create(1, &err);
    if (!gl) return no_gpu_exit("rules_glsl_test", err.msg);
    make_cases();
    GLuint prog = build(argv[1], argv[2]), bufs[3], ubo[2];
    glGenBuffers(3, bufs);
    glGenBuffers(2, ubo);
    boids_params p;
    boids_preset_apply(&p, "classic", &err); /* 400 x 400 wrap, R 50, R_sep 20, per step */
    p.fov = 180;
    if (prog) run_set("reynolds wrap fov 180", &p, prog, bufs, ubo);
    p.boundary = BOIDS_BOUNDARY_WALLS;
    p.fov = 120;
    p.predator = 1, p.predator_x = 100, p.predator_y = 100;
    p.food = 1, p.food_x = 150, p.food_y = 80;
    if (prog) run_set("reynolds walls fov 120", &p, prog, bufs, ubo);
    p.boundary = BOIDS_BOUNDARY_OPEN;
    p.neighbours = BOIDS_NEIGHBOURS_TOPOLOGICAL;
    if (prog) run_set("reynolds open topological", &p, prog, bufs, ubo);
    p.model = BOIDS_MODEL_VICSEK;
    if (prog) run_set("vicsek open topological", &p, prog, bufs, ubo);
    p.neighbours = BOIDS_NEIGHBOURS_METRIC;
    p.boundary = BOIDS_BOUNDARY_WRAP;
    if (prog) run_set("vicsek wrap metric", &p, prog, bufs, ubo);
    glDeleteBuffers(3, bufs);
    glDeleteBuffers(2, ubo);
    glDeleteProgram(prog);
    const boids_gl_debug *log = boids_gl_debug_log(gl);
    CHECK(log->errors == 0, "GL errors: %lu (%s)", log->errors, log->last_error);
    boids_gl_destroy(gl);
    return CHECK_DONE("rules_glsl_test");
}
