/* SPDX-License-Identifier: MIT */
/* `boids verify`: checks that the grid backends (cpu, gpu) compute the model of cpu-ref.
 *
 * 1. One step from the same state, per scenario (Reynolds and, from seed 003, the Vicsek
 *    model and topological neighbours): per-boid position and velocity error (Vicsek: the
 *    heading as an angle modulo 2 pi) against cpu-ref (double), judged against a tolerance
 *    calibrated on the same input: a float brute-force step (verify_float.c) against
 *    cpu-ref, in both neighbour orders. The interact scenarios hand every backend (and the
 *    brute force) the full interaction table: 16 predators, 16 attractors, circles and
 *    segments, or spheres in 3-D (verify_interact.c bands their decisions).
 *    Boids with a neighbour decision within float precision of its threshold are decided:
 *    checked against the double reference's outcome for each choice of their ambiguous
 *    pairs (verify_decide.c). Those that cannot be (another decision in the band, or an
 *    outcome that steers along a sum within float error of zero) are left out and
 *    counted; a count never fails the check by itself.
 * 2. Neighbour counts and sets of each grid backend against cpu-ref's brute force, with
 *    only the pairs in the float band allowed to differ.
 * 3. The order parameter over many steps and seeds, in the run's model and neighbour rule
 *    (curve_params): each backend's mean curve against cpu-ref's, within the seed-to-seed
 *    spread. */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "boids/backend.h"
#include "boids/gpu.h"
#include "boids/rng.h"
#include "cli/cli.h"
#include "commands/commands.h"
#include "verify/verify.h"

enum { MAX_BACKENDS = 4 };

/* Tolerance = CALIB_FACTOR x the float brute force's error, with the floors below. The
 * factor covers what the grid paths do differently from the float brute force within
 * float precision: another neighbour summation order (the brute force is measured in two
 * orders, but a grid visits in a third) and, on a GPU, GLSL's sqrt and division, which
 * may be a few ulp off where C rounds correctly. */
#define CALIB_FACTOR 10.0
/* Floors: errors of a few float spacings are the rounding of the state itself. */
#define FLOOR_ULPS 4.0
/* Order curves: each backend runs every seed from cpu-ref's initial state and noise stream,
 * so the test is paired: the mean over the seeds of the backend's order minus cpu-ref's is
 * accepted within ORDER_SE of its standard errors (Student's t with m - 1 = 11 degrees of
 * freedom by default: P(|t| > 6) is about 1e-4, so over the 6 samples after step 0 x 2
 * backends a false failure has a chance below about 1.2e-3 even if every comparison were
 * independent), or when it is within ORDER_FLOOR of 0: curves that have not yet parted
 * (a float and a double run agree for the first steps) differ by rounding, with a standard
 * error as small, whose ratio says nothing (across the 20 cells of the verify matrix every
 * comparison with a ratio above 6 differed by less than 5e-5). Pairing cancels the seed-to-seed
 * spread of the initial states, which in 3-D (order rising slowly from about 0.09, 0.04 standard
 * error over 12 seeds) hides half the alignment weight from a comparison of the two means (3 to 4
 * standard errors); paired, it shows (tests/verify_fault_test.c). */
#define ORDER_SE    6.0
#define ORDER_FLOOR 1e-3
/* The order curves' default N and the Vicsek noise they take where the run has none. */
#define CURVE_COUNT 100
#define CURVE_NOISE 2.0

typedef struct verify_opts {
    app_opts common; /* the parameter and GPU options, as in every command */
    const char *backends[MAX_BACKENDS];
    int nbackends;
    int steps, every, seeds;
    const char *curve_preset;
    long curve_count;
    const char *scenarios;
} verify_opts;

typedef struct ctx {
    const verify_opts *o;
    boids_gl *gl;
    boids_backend *gpu; /* kept across scenarios: shaders compile once */
    int failures;
} ctx;

/* The scenarios, the same names in 2-D and 3-D (the interaction scenarios' obstacles are
 * circles and segments in the plane, spheres in the box). */
#define ALL_SCENARIOS                                                                              \
    "random,dense,empty,edges,walls,fov,predator-food,n1,n2,vicsek,vicsek-walls,vicsek-open,"      \
    "vicsek-topological,topological,topological-vision,topological-sparse,interact,"               \
    "interact-walls,vicsek-interact"

static int has_item(const char *list, const char *item) {
    size_t len = strlen(item);
    for (const char *p = list; *p;) {
        const char *q = strchr(p, ',');
        size_t l = q ? (size_t)(q - p) : strlen(p);
        if (l == len && strncmp(p, item, len) == 0) return 1;
        if (!q) break;
        p = q + 1;
    }
    return 0;
}

/* Parameters as every command makes them (preset, config, --set, N and its world,
 * validated), with the given preset and N (0: the preset's): the one-step checks and the
 * order curves use different ones. */
static boids_status make_params(const verify_opts *o, const char *preset, long count,
                                boids_params *p, boids_error *err) {
    app_opts a = o->common;
    a.preset = preset;
    a.count = count;
    return app_params(&a, p, err);
}

/* ---- scenarios ------------------------------------------------------------------------------ */

/* The parameters of a named scenario from the base ones, and its N (n, changed for n1 and
 * n2); returns the boids it places by hand on top (dense: a cluster, edges: the seams). */
static size_t scenario_params(const char *name, const boids_params *base, uint64_t seed,
                              boids_params *p, size_t *n) {
    *p = *base;
    double w = p->width, h = p->height;
    size_t extra = 0;
    if (!strcmp(name, "dense")) extra = 300;
    if (!strcmp(name, "edges") || !strcmp(name, "walls")) extra = 16;
    if (!strcmp(name, "n1")) *n = 1, extra = 0;
    if (!strcmp(name, "n2")) *n = 2, extra = 0;
    if (!strcmp(name, "walls")) p->boundary = BOIDS_BOUNDARY_WALLS;
    if (!strcmp(name, "fov")) p->fov = 120;
    /* Seed 003: the Vicsek model (noise on, so that the GLSL noise stream is compared too)
     * and topological neighbours (k = 7, Ballerini's). */
    if (!strncmp(name, "vicsek", 6)) {
        p->model = BOIDS_MODEL_VICSEK;
        if (p->noise == 0) p->noise = 1.0;
        if (p->noise_seed == 0) p->noise_seed = (long)seed;
    }
    if (!strcmp(name, "vicsek-walls")) p->boundary = BOIDS_BOUNDARY_WALLS, extra = 16;
    if (!strcmp(name, "vicsek-open")) p->boundary = BOIDS_BOUNDARY_OPEN;
    if (strstr(name, "topological")) {
        p->neighbours = BOIDS_NEIGHBOURS_TOPOLOGICAL;
        p->k = 7;
        p->k_in_vision = 0;
    }
    if (!strcmp(name, "topological")) p->fov = 270; /* candidates: the k nearest in view */
    if (!strcmp(name, "topological-vision")) p->k = 20, p->k_in_vision = 1;
    if (!strcmp(name, "topological-sparse")) {
        /* About 0.1 boids per cell: the ring search goes several rings out. */
        p->vision_radius = p->vision_radius / 5;
        p->separation_radius = fmin(p->separation_radius, p->vision_radius / 2);
    }
    if (!strcmp(name, "interact-walls")) p->boundary = BOIDS_BOUNDARY_WALLS;
    if (strstr(name, "interact")) extra = 8;
    if (!strcmp(name, "predator-food")) {
        p->predator = 1;
        p->predator_x = 0.3 * w;
        p->predator_y = 0.5 * h;
        p->predator_radius = 160;
        p->predator_weight = 2;
        p->food = 1;
        p->food_x = 0.7 * w;
        p->food_y = 0.5 * h;
        p->food_radius = 150;
        p->food_weight = 1;
        p->predator_z = p->food_z = 0.5 * p->depth;
    }
    /* 3-D: the seams and corners of the box are 4 x 4 x 4 places (see place_3d). */
    if (p->dim == 3 && extra == 16) extra = 64;
    return extra;
}

/* The obstacles of the interaction scenarios in the plane: circles (circle 0 holds the
 * scenario's extra boids, circle 2 sits on the torus's corners); segments: a wall, a room
 * corner, a zig-zag, a wall across the seam. */
static void table_obstacles_2d(const boids_params *p, boids_interact *t) {
    const double w = p->width, h = p->height, m = fmin(w, h);
    const double o[][5] = {{0, 0.3, 0.5, 0.08, 0},   {0, 0.75, 0.3, 0.05, 0},
                           {0, 0, 0, 0.06, 0},       {1, 0.5, 0.1, 0.5, 0.4},
                           {1, 0.6, 0.6, 0.8, 0.6},  {1, 0.8, 0.6, 0.8, 0.8},
                           {1, 0.1, 0.8, 0.15, 0.9}, {1, 0.15, 0.9, 0.2, 0.8},
                           {1, 0.2, 0.8, 0.25, 0.9}, {1, 0.97, 0.9, 1.03, 0.9}};
    t->obstacle_count = (int)(sizeof o / sizeof o[0]);
    for (int i = 0; i < t->obstacle_count; i++) {
        boids_obstacle *b = &t->obstacles[i];
        *b = (boids_obstacle){
            BOIDS_OBSTACLE_SEGMENT, w * o[i][1], h * o[i][2], w * o[i][3], h * o[i][4], 0, 0};
        if (o[i][0] == 0)
            *b = (boids_obstacle){
                BOIDS_OBSTACLE_CIRCLE, w * o[i][1], h * o[i][2], 0, 0, m * o[i][3], 0};
    }
}

/* The obstacles of the interaction scenarios in the box: spheres (sphere 0 holds the
 * scenario's extra boids, sphere 2 sits on the corners of the periodic box, 3 and 5 across
 * one seam each, the others inside). */
static void table_obstacles_3d(const boids_params *p, boids_interact *t) {
    const double side[3] = {p->width, p->height, p->depth};
    const double m = fmin(fmin(side[0], side[1]), side[2]);
    const double o[][4] = {{0.3, 0.5, 0.5, 0.08}, {0.75, 0.3, 0.25, 0.05},
                           {0, 0, 0, 0.06},       {0.5, 0.99, 0.6, 0.07},
                           {0.6, 0.6, 0.9, 0.04}, {0.15, 0.85, 0.02, 0.05},
                           {0.9, 0.1, 0.6, 0.03}};
    t->obstacle_count = (int)(sizeof o / sizeof o[0]);
    for (int i = 0; i < t->obstacle_count; i++)
        t->obstacles[i] =
            (boids_obstacle){BOIDS_OBSTACLE_SPHERE, side[0] * o[i][0], side[1] * o[i][1], 0, 0,
                             m * o[i][3],           side[2] * o[i][2]};
}

/* The interaction scenarios (interact, interact-walls, vicsek-interact): the full table in
 * the world of p. All 16 predators and 16 attractors on, radii and weights varied, some
 * across the seams (in 3-D at depths from near one face to near the other); the obstacles
 * above. */
static int scenario_table(const char *name, const boids_params *p, boids_interact *t) {
    if (strcmp(name, "interact") && strcmp(name, "interact-walls") &&
        strcmp(name, "vicsek-interact"))
        return 0;
    const double w = p->width, h = p->height, d = p->depth;
    const double m = p->dim == 3 ? fmin(fmin(w, h), d) : fmin(w, h);
    boids_interact_default(t, p);
    for (int i = 0; i < BOIDS_MAX_POINTS; i++) {
        t->predators[i] = (boids_point){1,        w * (0.05 + 0.06 * i), h * (0.25 + 0.03 * i),
                                        0.12 * m, 1 + 0.1 * i,           d * (0.02 + 0.06 * i)};
        t->attractors[i] = (boids_point){1,       w * (0.98 - 0.06 * i), h * (0.75 - 0.02 * i),
                                         0.1 * m, 0.5 + 0.05 * i,        d * (0.97 - 0.05 * i)};
    }
    if (p->dim == 3)
        table_obstacles_3d(p, t);
    else
        table_obstacles_2d(p, t);
    return 1;
}

/* The hand-placed boids of a 3-D scenario and its changes to the random ones (the planar
 * scenarios' with a z): dense, a cluster inside one cell; empty, 3/4 of the cells empty;
 * vicsek-open, a third of the flock outside the nominal box; edges, walls and vicsek-walls,
 * every combination of 4 places per axis (on both faces and close to them across the
 * seams): faces, edges and corners of the box; n2, two boids in view of each other. The
 * places near the faces are r/3 and r/4 in (not r/3 on both sides as in the plane): with
 * three axes, offsets of 0, r/3 and 2r/3 would put pairs exactly at the vision radius
 * ((2, 2, 1) r/3) and make symmetric neighbourhoods whose sums cancel exactly in double but
 * not in float; the squared offsets 0, 1/16, 1/9 and 49/144 (r^2) sum to 1 in no way. */
static void place_3d(const char *name, const boids_params *base, size_t n, size_t extra,
                     boids_rng *rng, boids_flock *f) {
    const double side[3] = {base->width, base->height, base->depth}, r = base->vision_radius;
    double *pos[3] = {f->x, f->y, f->z};
    if (!strcmp(name, "dense")) {
        for (int a = 0; a < 3; a++) {
            double cw = side[a] / floor(side[a] / (r * (1.0 + 1.0 / 1024.0)));
            for (size_t i = n; i < n + extra; i++)
                pos[a][i] = cw * boids_rng_uniform(rng, 1.05, 1.95);
        }
    } else if (!strcmp(name, "empty")) {
        for (size_t i = 0; i < f->n; i++) f->x[i] *= 0.25;
    } else if (!strcmp(name, "vicsek-open")) {
        for (int a = 0; a < 3; a++)
            for (size_t i = 0; i < f->n; i++) pos[a][i] = 1.5 * pos[a][i] - 0.25 * side[a];
    } else if (extra == 64) {
        for (size_t k = 0; k < 64; k++) {
            const size_t q[3] = {k % 4, k / 4 % 4, k / 16};
            for (int a = 0; a < 3; a++) {
                const double at[4] = {0, side[a], side[a] - r / 3, r / 4};
                pos[a][n + k] = at[q[a]];
            }
        }
    } else if (extra == 8) {
        /* Inside sphere 0 (table_obstacles_3d), one at its centre: expelled by the step. */
        const double m = fmin(fmin(side[0], side[1]), side[2]);
        for (size_t k = 0; k < 8; k++) {
            const double a = (double)k, r = 0.005 * m * a;
            f->x[n + k] = 0.3 * side[0] + r * cos(a) * cos(2 * a);
            f->y[n + k] = 0.5 * side[1] + r * sin(a) * cos(2 * a);
            f->z[n + k] = 0.5 * side[2] + r * sin(2 * a);
        }
    } else if (!strcmp(name, "n2")) {
        for (int a = 0; a < 3; a++) pos[a][0] = 0.5 * side[a];
        f->x[1] = 0.5 * side[0] + 0.5 * r;
        f->y[1] = 0.5 * side[1] + 0.25 * r;
        f->z[1] = 0.5 * side[2] - 0.25 * r;
    }
}

/* Builds the params and state of a named scenario from the base parameters. */
static boids_status make_scenario(const char *name, const boids_params *base, size_t n,
                                  uint64_t seed, boids_params *p, boids_flock *f,
                                  boids_error *err) {
    size_t extra = scenario_params(name, base, seed, p, &n);
    double w = base->width, h = base->height, r = base->vision_radius; /* before the scenario */
    boids_status st = boids_params_validate(p, err);
    if (st == BOIDS_OK) st = boids_flock_alloc_dim(f, n + extra, p->dim, err);
    if (st != BOIDS_OK) return st;
    boids_flock_randomize(f, p, seed);
    boids_rng rng;
    boids_rng_seed(&rng, seed + 1000003);
    if (f->z) {
        place_3d(name, base, n, extra, &rng, f);
    } else if (!strcmp(name, "dense")) {
        /* 300 boids in a square of 0.9 cell inside one grid cell (cells as in the GPU
         * grid: the vision radius and a 2^-10 margin). */
        double cw = w / floor(w / (r * (1.0 + 1.0 / 1024.0)));
        double ch = h / floor(h / (r * (1.0 + 1.0 / 1024.0)));
        for (size_t i = n; i < n + extra; i++) {
            f->x[i] = cw * boids_rng_uniform(&rng, 1.05, 1.95);
            f->y[i] = ch * boids_rng_uniform(&rng, 1.05, 1.95);
        }
    } else if (!strcmp(name, "empty")) {
        for (size_t i = 0; i < f->n; i++) f->x[i] *= 0.25; /* 3/4 of the cells empty */
    } else if (!strcmp(name, "vicsek-open")) {
        /* The open plane: a third of the flock outside the nominal world, where the GPU grid
         * clamps boids into its edge cells. */
        for (size_t i = 0; i < f->n; i++) {
            f->x[i] = 1.5 * f->x[i] - 0.25 * w;
            f->y[i] = 1.5 * f->y[i] - 0.25 * h;
        }
    } else if (extra == 8) {
        /* Inside circle 0 (scenario_table), one at its centre: expelled by the step. */
        for (size_t k = 0; k < 8; k++) {
            f->x[n + k] = 0.3 * w + 0.005 * fmin(w, h) * (double)k * cos((double)k);
            f->y[n + k] = 0.5 * h + 0.005 * fmin(w, h) * (double)k * sin((double)k);
        }
    } else if (extra == 16) {
        /* On the edges, the corners and close to them across the wrap seams. */
        const double xs[4] = {0, w, w - r / 3, r / 3}, ys[4] = {0, h, h - r / 3, r / 3};
        for (size_t k = 0; k < 16; k++) {
            f->x[n + k] = xs[k % 4];
            f->y[n + k] = ys[k / 4];
        }
    } else if (!strcmp(name, "n2")) {
        f->x[0] = 0.5 * w;
        f->y[0] = 0.5 * h;
        f->x[1] = 0.5 * w + 0.5 * r;
        f->y[1] = 0.5 * h + 0.25 * r;
    }
    return boids_flock_check(f, p, name, err);
}

/* ---- backends -------------------------------------------------------------------------------
 */

/* A backend with state f and interaction table t (NULL: none; the kept GPU backend's table
 * is replaced every time). */
static boids_backend *backend_make(ctx *c, const char *name, const boids_flock *f,
                                   boids_error *err) {
    if (!strcmp(name, "cpu-ref")) return boids_cpu_ref_create(f, err);
    if (!strcmp(name, "cpu")) return boids_cpu_create(f, 0, err);
    if (c->gpu) return boids_backend_upload(c->gpu, f, err) == BOIDS_OK ? c->gpu : NULL;
    boids_gpu_options opt = boids_gpu_options_default();
    opt.deterministic = c->o->common.deterministic;
    if (c->o->common.gpu_variant >= 0) opt.variant = (boids_gpu_variant)c->o->common.gpu_variant;
    opt.check = 1;
    opt.log = boids_gl_debug_log(c->gl);
    return c->gpu = boids_gpu_create(NULL, f, &opt, err);
}

static void backend_put(ctx *c, boids_backend *b);

static boids_backend *backend_get(ctx *c, const char *name, const boids_flock *f,
                                  const boids_interact *t, boids_error *err) {
    boids_backend *b = backend_make(c, name, f, err);
    if (b && boids_backend_set_interact(b, t, err) != BOIDS_OK) {
        backend_put(c, b);
        return NULL;
    }
    return b;
}

static void backend_put(ctx *c, boids_backend *b) {
    if (b != c->gpu) boids_backend_destroy(b);
}

/* ---- one-step comparison ------------------------------------------------------------------
 */

typedef struct errs {
    double pos_max, pos_med, vel_max, vel_med;
} errs;

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, size_t n) {
    if (n == 0) return 0;
    qsort(v, n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Velocity error of boid i: Reynolds, the vector difference; Vicsek (constant speed), the
 * heading difference as an angle modulo 2 pi, in radians. */
static double vel_err(const boids_params *p, const boids_flock *a, const boids_flock *ref,
                      size_t i) {
    if (a->z && p->model == BOIDS_MODEL_VICSEK) { /* the angle between the two directions */
        const double u[3] = {a->vx[i], a->vy[i], a->vz[i]},
                     v[3] = {ref->vx[i], ref->vy[i], ref->vz[i]};
        const double c[3] = {u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2],
                             u[0] * v[1] - u[1] * v[0]};
        return atan2(sqrt(c[0] * c[0] + c[1] * c[1] + c[2] * c[2]),
                     u[0] * v[0] + u[1] * v[1] + u[2] * v[2]);
    }
    if (a->z)
        return sqrt((a->vx[i] - ref->vx[i]) * (a->vx[i] - ref->vx[i]) +
                    (a->vy[i] - ref->vy[i]) * (a->vy[i] - ref->vy[i]) +
                    (a->vz[i] - ref->vz[i]) * (a->vz[i] - ref->vz[i]));
    if (p->model == BOIDS_MODEL_VICSEK)
        return fabs(remainder(atan2(a->vy[i], a->vx[i]) - atan2(ref->vy[i], ref->vx[i]), 2 * M_PI));
    return hypot(a->vx[i] - ref->vx[i], a->vy[i] - ref->vy[i]);
}

/* Position error of boid i of a against boid i of ref, on the torus in wrap mode (a boid on
 * the seam may be at 0 on one side and W on the other). */
static double pos_err(const boids_params *p, const boids_flock *a, const boids_flock *ref,
                      size_t i) {
    const int wrap = p->boundary == BOIDS_BOUNDARY_WRAP;
    double dx = fabs(a->x[i] - ref->x[i]), dy = fabs(a->y[i] - ref->y[i]);
    if (wrap && dx > p->width / 2) dx = p->width - dx;
    if (wrap && dy > p->height / 2) dy = p->height - dy;
    double dz = a->z ? fabs(a->z[i] - ref->z[i]) : 0;
    if (wrap && dz > p->depth / 2) dz = p->depth - dz;
    return a->z ? sqrt(dx * dx + dy * dy + dz * dz) : hypot(dx, dy);
}

/* How the band's boids are judged (NULL in compare: they are left out, as in the
 * calibration). A boid whose every ambiguous decision is a neighbour pair is decided: its
 * error is the least, in units of the tolerance, over the reference's outcomes for the
 * choices of those pairs (verify_ref_boid). When the backend reported its neighbour sets
 * (rc, rh: cpu-ref's; bc, bh: the backend's), the choice whose set is the backend's is
 * tried first, and only if it is not within the tolerance every other one (2^16 at most,
 * VERIFY_MAX_AMB): one evaluation per boid as a rule, and no false failure if a set changed
 * between the query and the step. */
typedef struct decider {
    verify_ref *r;
    boids_flock *alt; /* boid i: an outcome of the reference */
    const errs *tol;
    const uint32_t *rc, *bc; /* NULL: no neighbour sets */
    const uint64_t *rh, *bh;
} decider;

/* The error of boid i of a against the admissible outcome nearest to it, in ep and ev;
 * returns 0, or 1 when it is undecided: no outcome within the tolerance, and one of them
 * turns on a direction float cannot decide (verify_ref_boid). */
static int decided_err(const boids_params *p, const decider *d, const boids_flock *a,
                       const verify_amb *am, size_t i, double *ep, double *ev) {
    double best = INFINITY;
    int undecidable = 0;
    *ep = *ev = INFINITY;
    for (int pass = d->bc ? 0 : 1; pass < 2 && !(best <= 1); pass++) {
        for (unsigned mask = 0; mask < 1u << am->namb; mask++) {
            const int match =
                d->bc && verify_mask_matches(am, mask, d->rc[i], d->rh[i], d->bc[i], d->bh[i]);
            if (pass == 0 ? !match : match) continue; /* pass 1: the others */
            undecidable |= verify_ref_boid(d->r, i, am, mask, d->alt);
            double e1 = pos_err(p, a, d->alt, i), e2 = vel_err(p, a, d->alt, i);
            double score = fmax(e1 / d->tol->pos_max, e2 / d->tol->vel_max);
            if (score < best) best = score, *ep = e1, *ev = e2;
        }
    }
    return !(best <= 1) && undecidable;
}

/* Errors of a against ref over the boids outside the band and, with d, the decided ones;
 * undec (with d) counts the boids left undecided. scratch holds 2 n. */
static errs compare(const boids_params *p, const boids_flock *a, const boids_flock *ref,
                    const verify_amb *amb, double *scratch, const decider *d, size_t *undec) {
    static const verify_amb none;
    errs e = {0, 0, 0, 0};
    double *sp = scratch, *sv = scratch + a->n;
    size_t m = 0;
    for (size_t i = 0; i < a->n; i++) {
        double ep, ev;
        if (!amb[i].boid) {
            ep = pos_err(p, a, ref, i);
            ev = vel_err(p, a, ref, i);
            /* A boid off cpu-ref whose own neighbours make a direction undecidable. */
            if (d && !(ep <= d->tol->pos_max && ev <= d->tol->vel_max) &&
                decided_err(p, d, a, &none, i, &ep, &ev)) {
                (*undec)++;
                continue;
            }
        } else if (d && verify_amb_decidable(&amb[i])) {
            if (decided_err(p, d, a, &amb[i], i, &ep, &ev)) {
                (*undec)++;
                continue;
            }
        } else {
            if (d) (*undec)++;
            continue;
        }
        if (!(ep <= e.pos_max)) e.pos_max = ep; /* NaN propagates as a failure */
        if (!(ev <= e.vel_max)) e.vel_max = ev;
        sp[m] = ep;
        sv[m++] = ev;
    }
    e.pos_med = median(sp, m);
    e.vel_med = median(sv, m);
    return e;
}

/* One scenario's reference: the state before the step, cpu-ref's step and neighbour sets
 * from it, the float band and the tolerance; and the buffers the backends fill. */
typedef struct scen {
    const char *name;
    boids_params p;
    boids_interact tab;
    const boids_interact *t;     /* &tab for the interaction scenarios, else --config's */
    boids_flock f, ref, fl, out; /* before, cpu-ref after, float brute force, a backend */
    uint32_t *rc, *bc;           /* neighbour counts: cpu-ref's, a backend's */
    uint64_t *rh, *bh;           /* neighbour set hashes: idem */
    verify_amb *amb;
    double *scratch;
    size_t banded, overflow;
    size_t self_off; /* decided boids whose reference with no pair flipped is not cpu-ref's */
    verify_ref *dr;  /* the reference of single boids with a neighbour set chosen */
    boids_flock alt; /* its outcomes */
    errs tol, floor; /* the tolerance and its floors */
} scen;

static void scen_free(scen *s) {
    boids_flock_free(&s->f);
    boids_flock_free(&s->ref);
    boids_flock_free(&s->fl);
    boids_flock_free(&s->out);
    free(s->rc);
    free(s->bc);
    free(s->rh);
    free(s->bh);
    free(s->amb);
    free(s->scratch);
    verify_ref_free(s->dr);
    boids_flock_free(&s->alt);
}

/* The tolerance: CALIB_FACTOR x the error of the float brute force in both neighbour
 * orders, with the floors. */
static void calibrate(scen *s, int verbose) {
    const boids_params *p = &s->p;
    errs cal = {0, 0, 0, 0};
    for (int rev = 0; rev < 2; rev++) {
        verify_float_step(p, s->t, &s->f, rev, &s->fl);
        errs e = compare(p, &s->fl, &s->ref, s->amb, s->scratch, NULL, NULL);
        cal.pos_max = fmax(cal.pos_max, e.pos_max);
        cal.pos_med = fmax(cal.pos_med, e.pos_med);
        cal.vel_max = fmax(cal.vel_max, e.vel_max);
        cal.vel_med = fmax(cal.vel_med, e.vel_med);
    }
    double pos_floor = FLOOR_ULPS * verify_eps_pos(p);
    double vel_floor = FLOOR_ULPS * FLT_EPSILON * fmax(p->max_speed, p->initial_speed);
    /* Vicsek headings: GLSL's atan, cos and sin are not correctly rounded (NVIDIA's hardware
     * sine is off by up to ~2^-21.4, llvmpipe's polynomials by a few ulps), where the float
     * brute force calls correctly rounded libm: a floor of 16 FLT_EPSILON pi (~6e-6 rad). */
    if (p->model == BOIDS_MODEL_VICSEK) vel_floor = 16 * FLT_EPSILON * M_PI;
    s->floor = (errs){pos_floor, pos_floor, vel_floor, vel_floor};
    s->tol = (errs){
        fmax(CALIB_FACTOR * cal.pos_max, pos_floor), fmax(CALIB_FACTOR * cal.pos_med, pos_floor),
        fmax(CALIB_FACTOR * cal.vel_max, vel_floor), fmax(CALIB_FACTOR * cal.vel_med, vel_floor)};
    if (verbose)
        printf("  %-13s calibration (float brute force vs cpu-ref): pos max %.3g med %.3g, "
               "vel max %.3g med %.3g\n",
               s->name, cal.pos_max, cal.pos_med, cal.vel_max, cal.vel_med);
}

/* The scenario, cpu-ref's step and neighbours, the band and the tolerance. */
static boids_status scen_make(const verify_opts *o, const char *name, const boids_params *base,
                              scen *s, boids_error *err) {
    s->name = name;
    boids_status st =
        make_scenario(name, base, (size_t)o->common.count, o->common.seed, &s->p, &s->f, err);
    if (st) return st;
    /* The scenario's own table where it has one, else the points and obstacles of --config
     * (none without): every backend, cpu-ref included, takes the same table. */
    if (scenario_table(name, &s->p, &s->tab))
        s->t = &s->tab;
    else
        s->t = o->common.inter;
    size_t n = s->f.n;
    s->rc = malloc(n * sizeof *s->rc), s->bc = malloc(n * sizeof *s->bc);
    s->rh = malloc(n * sizeof *s->rh), s->bh = malloc(n * sizeof *s->bh);
    s->amb = malloc(n * sizeof *s->amb);
    s->scratch = malloc(2 * n * sizeof *s->scratch);
    if (!s->rc || !s->bc || !s->rh || !s->bh || !s->amb || !s->scratch)
        return boids_error_set(err, BOIDS_ERR_NOMEM, "out of memory");
    const int dim = boids_flock_dim(&s->f);
    if ((st = boids_flock_alloc_dim(&s->ref, n, dim, err)) ||
        (st = boids_flock_alloc_dim(&s->fl, n, dim, err)) ||
        (st = boids_flock_alloc_dim(&s->out, n, dim, err)) ||
        (st = boids_flock_alloc_dim(&s->alt, n, dim, err)))
        return st;
    boids_backend *r = boids_cpu_ref_create(&s->f, err);
    if (!r) return err->status;
    if ((st = boids_backend_set_interact(r, s->t, err))) {
        boids_backend_destroy(r);
        return st;
    }
    if (!(st = boids_backend_neighbours(r, &s->p, s->rc, s->rh, err)) &&
        !(st = boids_backend_step(r, &s->p, 1, err)))
        st = boids_backend_download(r, &s->ref, err);
    boids_backend_destroy(r);
    if (st) return st;
    verify_band(&s->p, &s->f, s->amb);
    verify_band_interact(&s->p, s->t, &s->f, &s->ref, s->amb);
    calibrate(s, o->common.verbose);
    if (!(s->dr = verify_ref_new(&s->p, s->t, &s->f)))
        return boids_error_set(err, BOIDS_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < n; i++) {
        const verify_amb *a = &s->amb[i];
        s->banded += a->boid;
        s->overflow += a->overflow;
        if (!a->boid || !verify_amb_decidable(a)) continue;
        /* The decider's own check: with no pair flipped it is cpu-ref, up to the floors. */
        verify_ref_boid(s->dr, i, a, 0, &s->alt);
        if (!(pos_err(&s->p, &s->alt, &s->ref, i) <= s->floor.pos_max &&
              vel_err(&s->p, &s->alt, &s->ref, i) <= s->floor.vel_max))
            s->self_off++;
    }
    return BOIDS_OK;
}

/* Boids whose neighbour set from backend be is not cpu-ref's up to flips of their band
 * pairs (boids with too many band pairs are not checked). */
static boids_status neighbour_mismatches(scen *s, boids_backend *be, size_t *mism,
                                         boids_error *err) {
    *mism = 0;
    boids_status st = boids_backend_neighbours(be, &s->p, s->bc, s->bh, err);
    if (st) return st;
    for (size_t i = 0; i < s->f.n; i++)
        if (!s->amb[i].overflow &&
            !verify_neighbours_match(&s->amb[i], s->rc[i], s->rh[i], s->bc[i], s->bh[i]))
            (*mism)++;
    return BOIDS_OK;
}

/* One backend's step against the reference: prints its row; -1 when it could not run. */
static int check_backend(ctx *c, scen *s, const char *backend, boids_error *err) {
    const boids_params *p = &s->p;
    size_t n = s->f.n, mism = 0;
    boids_backend *be = backend_get(c, backend, &s->f, s->t, err);
    if (!be) return -1;
    int nbr_checked = boids_backend_has_neighbours(be);
    boids_status st = nbr_checked ? neighbour_mismatches(s, be, &mism, err) : BOIDS_OK;
    if (!st) st = boids_backend_step(be, p, 1, err);
    if (!st) st = boids_backend_download(be, &s->out, err);
    backend_put(c, be);
    if (st) return -1;
    const errs *tol = &s->tol;
    const decider d = {
        s->dr, &s->alt, tol, s->rc, nbr_checked ? s->bc : NULL, s->rh, nbr_checked ? s->bh : NULL};
    size_t undec = 0;
    errs e = compare(p, &s->out, &s->ref, s->amb, s->scratch, &d, &undec);
    int pass = e.pos_max <= tol->pos_max && e.pos_med <= tol->pos_med &&
               e.vel_max <= tol->vel_max && e.vel_med <= tol->vel_med && mism == 0 &&
               s->self_off == 0;
    printf("%-13s %6zu %-5s %9.2e %9.2e %9.2e | %9.2e %9.2e %9.2e | %5.2f%% %5zu %5zu %6s  %s\n",
           s->name, n, backend, e.pos_max, e.pos_med, tol->pos_max, e.vel_max, e.vel_med,
           tol->vel_max, 100.0 * ((double)s->banded / (double)n), undec, s->overflow,
           nbr_checked ? "" : "n/a", pass ? "pass" : "FAIL");
    if (mism) printf("  %zu boids with a neighbour set unlike brute force\n", mism);
    if (s->self_off)
        printf("  %zu decided boids whose single-boid reference is not cpu-ref's\n", s->self_off);
    if (!pass) c->failures++;
    return 0;
}

static int run_scenario(ctx *c, const char *name, const boids_params *base, boids_error *err) {
    scen s = {0};
    int result = scen_make(c->o, name, base, &s, err) ? -1 : 0;
    for (int b = 0; result == 0 && b < c->o->nbackends; b++)
        result = check_backend(c, &s, c->o->backends[b], err);
    scen_free(&s);
    return result;
}

/* ---- order curves
 * ---------------------------------------------------------------------------- */

/* The order curves' parameters: the run's (preset, --config, --set, --model, --neighbours,
 * -k; --curve-preset replaces the preset), with N boids in a world scaled from the
 * preset's to keep its density (each side by (N / count)^(1 / dim)), so that a small,
 * quick flock sees as many neighbours as the preset's; Vicsek with no noise gets
 * CURVE_NOISE, where the order stays below 1 and a backend that aligns or draws noise
 * wrongly moves the curve. */
static boids_status curve_params(const verify_opts *o, boids_params *p, boids_error *err) {
    /* N 0: the preset's N and world, which the curves then scale to their own N. */
    boids_status st =
        make_params(o, o->curve_preset ? o->curve_preset : o->common.preset, 0, p, err);
    if (st) return st;
    const long n = o->curve_count > 0 ? o->curve_count : CURVE_COUNT;
    const double scale = pow((double)n / (double)p->count, 1.0 / p->dim);
    p->width *= scale;
    p->height *= scale;
    p->depth *= scale;
    p->predator_x *= scale, p->predator_y *= scale, p->predator_z *= scale;
    p->food_x *= scale, p->food_y *= scale, p->food_z *= scale;
    p->count = n;
    if (p->model == BOIDS_MODEL_VICSEK && p->noise == 0) p->noise = CURVE_NOISE;
    return boids_params_validate(p, err);
}

static void print_curve_header(const verify_opts *o, const boids_params *p, int m) {
    const int vicsek = p->model == BOIDS_MODEL_VICSEK;
    char nbr[64] = "metric";
    if (p->neighbours == BOIDS_NEIGHBOURS_TOPOLOGICAL)
        snprintf(nbr, sizeof nbr, "topological k %ld%s", (long)p->k,
                 p->k_in_vision ? " in vision" : "");
    printf("\norder curves: preset %s, model %s, neighbours %s, %d-D, N %ld in ",
           o->curve_preset ? o->curve_preset : o->common.preset, vicsek ? "vicsek" : "reynolds",
           nbr, p->dim, p->count);
    if (p->dim == 3)
        printf("%.0f x %.0f x %.0f", p->width, p->height, p->depth);
    else
        printf("%.0f x %.0f", p->width, p->height);
    printf(" (the preset's density)");
    if (vicsek) printf(", noise %g", p->noise);
    printf(", seeds %llu to %llu (each its own initial state%s); mean (standard error) over "
           "seeds; diff/se: the mean of each seed's difference from cpu-ref over its standard "
           "error; pass: at most %.0f, or a mean difference of at most %g\n",
           (unsigned long long)o->common.seed, (unsigned long long)o->common.seed + (uint64_t)m - 1,
           vicsek ? " and noise stream" : "", ORDER_SE, ORDER_FLOOR);
}

static int run_curves(ctx *c, boids_error *err) {
    const verify_opts *o = c->o;
    boids_params p;
    if (curve_params(o, &p, err)) return -1;
    const long noise_seed = p.noise_seed; /* --set noise_seed offsets every seed's stream */
    int nsamp = o->steps / o->every + 1, nb = o->nbackends + 1, m = o->seeds;
    double *ord = calloc((size_t)nb * nsamp * m, sizeof *ord);
    boids_flock f = {0}, out = {0};
    if (!ord) return boids_error_set(err, BOIDS_ERR_NOMEM, "out of memory"), -1;
    int result = -1;
    if (boids_flock_alloc_dim(&f, (size_t)p.count, p.dim, err) ||
        boids_flock_alloc_dim(&out, f.n, p.dim, err))
        goto done;
    for (int b = 0; b < nb; b++) {
        const char *name = b == 0 ? "cpu-ref" : o->backends[b - 1];
        for (int s = 0; s < m; s++) {
            /* Seed s: its own initial state and, for Vicsek, its own noise stream. */
            const uint64_t seed = o->common.seed + (uint64_t)s;
            p.noise_seed = noise_seed + (long)seed;
            boids_flock_randomize(&f, &p, seed);
            boids_backend *be = backend_get(c, name, &f, o->common.inter, err);
            if (!be) goto done;
            for (int k = 0; k < nsamp; k++) {
                if (k && boids_backend_step(be, &p, (unsigned)o->every, err)) {
                    backend_put(c, be);
                    goto done;
                }
                if (boids_backend_download(be, &out, err)) {
                    backend_put(c, be);
                    goto done;
                }
                ord[((size_t)b * nsamp + k) * m + s] = boids_order(&out);
            }
            backend_put(c, be);
        }
    }
    print_curve_header(o, &p, m);
    printf("%6s %16s", "step", "cpu-ref");
    for (int b = 1; b < nb; b++) printf(" %16s %6s", o->backends[b - 1], "diff/se");
    printf("\n");
    result = 0;
    for (int k = 0; k < nsamp; k++) {
        double mean[MAX_BACKENDS + 1], var[MAX_BACKENDS + 1];
        for (int b = 0; b < nb; b++) {
            const double *v = &ord[((size_t)b * nsamp + k) * m];
            double s = 0, ss = 0;
            for (int i = 0; i < m; i++) s += v[i];
            mean[b] = s / m;
            for (int i = 0; i < m; i++) ss += (v[i] - mean[b]) * (v[i] - mean[b]);
            var[b] = ss / (m - 1) / m; /* squared standard error of the mean */
        }
        printf("%6d %8.4f (%.4f)", k * o->every, mean[0], sqrt(var[0]));
        for (int b = 1; b < nb; b++) {
            /* Paired: seed i's difference from cpu-ref's curve, from the same initial state
             * and noise stream, so that the seed-to-seed spread of the states cancels. */
            const double *v = &ord[((size_t)b * nsamp + k) * m], *r = &ord[(size_t)k * m];
            double sd = 0, ss = 0;
            for (int i = 0; i < m; i++) sd += v[i] - r[i];
            sd /= m;
            for (int i = 0; i < m; i++) ss += (v[i] - r[i] - sd) * (v[i] - r[i] - sd);
            const double d = fabs(sd), se = sqrt(ss / (m - 1) / m);
            const int pass = d <= ORDER_FLOOR || d <= ORDER_SE * se;
            printf(" %8.4f (%.4f) %6.2f%s", mean[b], sqrt(var[b]), se > 0 ? d / se : 0.0,
                   pass ? "" : " FAIL");
            if (!pass) c->failures++;
        }
        printf("\n");
    }
done:
    free(ord);
    boids_flock_free(&f);
    boids_flock_free(&out);
    return result;
}

/* ---- main
 * -------------------------------------------------------------------------------------
 */

/* --backends into o->backends (pointing into buf) and whether the gpu is among them. */
static boids_status parse_backends(verify_opts *o, const char *list, char *buf, size_t size,
                                   int *need_gpu, boids_error *err) {
    if (strlen(list) >= size)
        return boids_error_set(err, BOIDS_ERR_INPUT, "--backends: '%s' is too long", list);
    strcpy(buf, list);
    *need_gpu = 0;
    for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
        if (strcmp(tok, "cpu") && strcmp(tok, "gpu"))
            return boids_error_set(err, BOIDS_ERR_INPUT,
                                   "--backends: unknown backend '%s' (cpu, gpu)", tok);
        if (o->nbackends == MAX_BACKENDS)
            return boids_error_set(err, BOIDS_ERR_INPUT, "--backends: more than %d", MAX_BACKENDS);
        o->backends[o->nbackends++] = tok;
        *need_gpu |= !strcmp(tok, "gpu");
    }
    return BOIDS_OK;
}

/* Every name of --scenarios is a scenario; the order curves have a sample after step 0. */
static boids_status check_lists(const verify_opts *o, boids_error *err) {
    for (const char *p = o->scenarios; *p;) {
        const char *q = strchr(p, ',');
        char item[64];
        size_t l = q ? (size_t)(q - p) : strlen(p);
        snprintf(item, sizeof item, "%.*s", (int)l, p);
        if (!has_item(ALL_SCENARIOS, item))
            return boids_error_set(err, BOIDS_ERR_INPUT, "--scenarios: unknown scenario '%s' (%s)",
                                   item, ALL_SCENARIOS);
        if (!q) break;
        p = q + 1;
    }
    if (o->seeds == 1)
        return boids_error_set(err, BOIDS_ERR_INPUT,
                               "--seeds 1: a standard error needs 2 seeds or more (0 skips)");
    if (o->seeds && o->every > o->steps)
        return boids_error_set(err, BOIDS_ERR_INPUT, "--every %d is more than --steps %d", o->every,
                               o->steps);
    return BOIDS_OK;
}

static void print_header(const verify_opts *o) {
    printf("one step from the same state vs cpu-ref (preset %s, seed %llu%s, gpu variant %s)\n",
           o->common.preset, (unsigned long long)o->common.seed,
           o->common.deterministic ? ", gpu deterministic" : "",
           boids_gpu_variant_name(o->common.gpu_variant >= 0
                                      ? (boids_gpu_variant)o->common.gpu_variant
                                      : BOIDS_GPU_VARIANT_PLAIN));
    printf("tolerance: %.0fx the error of a float brute-force step against cpu-ref on the same "
           "input (both neighbour orders), at least %.0f float spacings of the world size "
           "(positions) or of max_speed (velocities); vicsek rows: vel = heading error in "
           "radians (modulo 2 pi), at least 16 FLT_EPSILON pi; band: boids with a decision "
           "within float precision of its threshold (a radius, the fov, the k-th distance, the "
           "zero-sum tolerance, a wall), each checked against the reference's outcome for every "
           "choice of its ambiguous neighbour pairs; undec: boids left out, counted, never a "
           "failure by themselves (another decision in the band, or no outcome within the "
           "tolerance while one steers along a sum within float error of zero); over: boids "
           "with too many band pairs to check their neighbour set\n",
           CALIB_FACTOR, FLOOR_ULPS);
    printf("%-13s %6s %-5s %9s %9s %9s | %9s %9s %9s | %6s %5s %5s %6s  %s\n", "scenario", "N",
           "back", "pos max", "pos med", "pos tol", "vel max", "vel med", "vel tol", "band",
           "undec", "over", "", "result");
}

/* The checks, on a GL context when the gpu is among the backends; returns the exit code. */
static int verify_run(const verify_opts *o, const boids_params *base, int need_gpu) {
    boids_error err;
    boids_error_clear(&err);
    ctx c = {o, NULL, NULL, 0};
    if (need_gpu) {
        /* Debug context: any GL error or high-severity message fails the run. */
        c.gl = boids_gl_create(1, &err);
        if (!c.gl) {
            fprintf(stderr, "boids verify: %s\n", err.msg);
            return 1;
        }
        if (o->common.verbose)
            fprintf(stderr, "GL: %s, %s (EGL %s platform)\n", boids_gl_renderer(c.gl),
                    boids_gl_version(c.gl), boids_gl_platform(c.gl));
    }
    print_header(o);
    int rc = 0;
    char scen[256];
    snprintf(scen, sizeof scen, "%s", o->scenarios);
    for (char *tok = strtok(scen, ","); tok && rc == 0; tok = strtok(NULL, ","))
        if (run_scenario(&c, tok, base, &err) < 0) rc = 1;
    if (rc == 0 && o->seeds > 0 && run_curves(&c, &err) < 0) rc = 1;
    if (rc) fprintf(stderr, "boids verify: %s\n", err.msg);
    if (c.gl && boids_gl_debug_log(c.gl)->errors) {
        fprintf(stderr, "boids verify: %lu GL debug errors, last: %s\n",
                boids_gl_debug_log(c.gl)->errors, boids_gl_debug_log(c.gl)->last_error);
        rc = 1;
    }
    boids_backend_destroy(c.gpu);
    boids_gl_destroy(c.gl);
    if (rc == 0 && c.failures) {
        printf("\n%d check(s) FAILED\n", c.failures);
        rc = 1;
    } else if (rc == 0) {
        printf("\nall checks passed\n");
    }
    return rc;
}

static const app_command verify_command = {
    .prog = "boids verify",
    .synopsis =
        "usage: boids verify [OPTIONS]\n"
        "Compares the grid backends with the exact reference cpu-ref; exit 0 pass, 1 fail,\n"
        "2 bad usage.\n"
        "\n",
    .notes = "The parameter options below make both checks: -n the one-step scenarios' N, and\n"
             "the order curves run the same preset, model and neighbour rule with --curve-count\n"
             "boids at the preset's density (Vicsek without noise: noise 2); each seed has its\n"
             "own initial state and noise stream.\n",
    .shared = APP_PARAMS | APP_GPU_MODE | APP_VERBOSE,
    .preset = "lab",
    .count = 2000,
    .seed = 1,
    .deterministic = 0};

int boids_cmd_verify(int argc, char **argv) {
    static const char default_scenarios[] = ALL_SCENARIOS;
    /* 120 steps sampled every 20: the order's rise from random headings (Reynolds, about
     * 0.1 to 0.95 in the lab preset) and the Vicsek model's approach to its noisy steady
     * state, where a wrong backend's curve departs from cpu-ref's. */
    verify_opts o = {.steps = 120, .every = 20, .seeds = 12, .scenarios = default_scenarios};
    const char *backends = "cpu,gpu";
    const app_option own[] = {
        {APP_TEXT, "backends", 0, "LIST", &backends,
         .help = "backends to check against cpu-ref (default cpu,gpu)"},
        {APP_TEXT, "scenarios", 0, "LIST", &o.scenarios,
         .help = "one-step scenarios (default all: " ALL_SCENARIOS ")"},
        {APP_INT, "steps", 0, "K", &o.steps, 0, 1000000,
         .help = "order curves: steps (default 120)"},
        {APP_INT, "every", 0, "E", &o.every, 1, 1000000,
         .help = "order curves: sample every E steps (default 20)"},
        {APP_INT, "seeds", 0, "M", &o.seeds, 0, 10000,
         .help = "order curves: seeds (default 12; 0 skips the curves)"},
        {APP_TEXT, "curve-preset", 0, "NAME", &o.curve_preset,
         .help = "order curves: another preset than --preset's (with --config, --set and "
                 "the model options)"},
        {APP_LONG, "curve-count", 0, "N", &o.curve_count, 1, 100000000,
         .help = "order curves: boids (default 100), in the preset's world scaled to "
                 "keep its density"},
    };
    int rc = app_parse(&verify_command, own, APP_COUNT(own), &o.common, argc, argv);
    if (rc != APP_RUN) return rc;
    boids_error err;
    char buf[256];
    int need_gpu = 0;
    boids_params base;
    boids_interact inter;
    if (app_check_list("--backends", backends, &err) ||
        app_check_list("--scenarios", o.scenarios, &err) ||
        parse_backends(&o, backends, buf, sizeof buf, &need_gpu, &err) || check_lists(&o, &err) ||
        make_params(&o, o.common.preset, o.common.count, &base, &err) ||
        app_interact(&o.common, &base, &inter, &err)) {
        fprintf(stderr, "boids verify: %s\n", err.msg);
        return 2;
    }
    o.common.inter = &inter;
    return verify_run(&o, &base, need_gpu);
}
