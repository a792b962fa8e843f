/* SPDX-License-Identifier: MIT */
#ifndef OBST_INSTANCE
/* The long obstacle runs (obstacle_test.c on the CPU backends, gpu/obstacle_gpu_test.c, each
 * given the dimension): one scenario per dimension and one check for both, shared.
 *
 * Scenario in the plane: 400 boids at the lab's density (1500 in 900 x 560) in a 464 x 290
 * periodic world; four circles (one across the four corners of the torus, one with 12 boids
 * placed inside it and an attractor at its centre that keeps pulling boids into its rim), a
 * room corner of two walls with an attractor inside it, a zig-zag of three walls, a wall
 * across the seam. In the box: 400 boids (lab parameters, dim = 3) in a 240 x 200 x 160
 * periodic box, about 27 neighbours within the vision radius; seven spheres: one with 12
 * boids placed inside it (one at its centre) and an attractor at its centre that keeps
 * pulling boids into its surface, one on the eight corners of the periodic box, one across
 * the y and z seams, two that overlap with an attractor in the pocket beside their junction,
 * two more. In both, 16 predators and 14 more attractors on moving orbits (the table is
 * handed over again every MOVE_EVERY steps).
 *
 * Check, after every step, for every boid (obst_check_step):
 *   - exact, in the backend's precision, with rules.h's own predicates on the stored states
 *     (of the flock's dimension): no boid ends inside a circle or sphere (after step 1, which
 *     expels the boids placed inside), no move enters an obstacle (rules_hit of the move
 *     between consecutive states: the end inside, the path within the radius of a centre,
 *     or touching a segment);
 *   - independent, in double with its own geometry: no boid ends more than tol inside a
 *     circle or sphere, no move's straight path comes closer than the radius minus tol to a
 *     centre (closest point by projection, with a division), and in the plane no boid goes
 *     from one side of a segment's line to the other (both sides more than tol from the
 *     line) where the crossing point lies on the segment (more than tol from its ends).
 *     tol for float states: in the plane 4e-3 length units (the float rule decides with
 *     products of offsets up to the world's size, 464, whose rounding, 2^-24 of 464^2 or
 *     1.3e-2 in the cross product, is below 7e-4 in distance for segments 20 or more long),
 *     in the box 1e-3 (squared offsets up to (radius + step + bound)^2 < 40^2, whose
 *     rounding, a few 2^-24 of 1600 and of its product with a squared step, is below 2e-5 in
 *     distance); double states, 1e-9. */
#ifndef BOIDS_TEST_OBSTACLE_FIXTURE_H
#define BOIDS_TEST_OBSTACLE_FIXTURE_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "boids/backend.h"
#include "check.h"

/* rules.h and the exact check (below `#else`) in each precision and dimension. */
#define OBST_INSTANCE
#define RULES_INSTANCE_FILE "obstacle_fixture.h"
#include "rules_instances.h"
#undef RULES_INSTANCE_FILE
#undef OBST_INSTANCE

enum { OBST_N = 400, OBST_INSIDE = 12, MOVE_EVERY = 10 };

/* Lab parameters in the scenario's world of dimension dim; Vicsek at the lab's step length
 * (3 a step). */
static boids_params obst_params(int dim, int vicsek) {
    boids_params p = boids_params_default();
    p.count = OBST_N;
    if (dim == 3) {
        p.dim = 3;
        p.width = 240;
        p.height = 200;
        p.depth = 160;
    } else {
        p.width = 464; /* sqrt(400 / 1500) x 900 x 560, rounded */
        p.height = 290;
    }
    if (vicsek) {
        p.model = BOIDS_MODEL_VICSEK;
        p.speed = 180;
        p.noise = 0.5;
        p.noise_seed = 3;
    }
    return p;
}

/* ---- the scenarios: the plane's and the box's ----------------------------------------- */

/* The table at step t: fixed obstacles and two fixed attractors, the other points on
 * ellipses round the world's centre, each at its own phase and rate. */
static void obst_table_plane(boids_interact *s, const boids_params *p, unsigned t) {
    boids_interact_default(s, p);
    static const boids_obstacle obs[] = {
        {BOIDS_OBSTACLE_CIRCLE, 116, 145, 0, 0, 30, 0},
        {BOIDS_OBSTACLE_CIRCLE, 350, 60, 0, 0, 18, 0},
        {BOIDS_OBSTACLE_CIRCLE, 0, 0, 0, 0, 25, 0},
        {BOIDS_OBSTACLE_CIRCLE, 300, 230, 0, 0, 12, 0},
        {BOIDS_OBSTACLE_SEGMENT, 200, 20, 260, 20, 0, 0}, /* a room corner */
        {BOIDS_OBSTACLE_SEGMENT, 260, 20, 260, 80, 0, 0},
        {BOIDS_OBSTACLE_SEGMENT, 380, 150, 400, 190, 0, 0}, /* a zig-zag */
        {BOIDS_OBSTACLE_SEGMENT, 400, 190, 420, 150, 0, 0},
        {BOIDS_OBSTACLE_SEGMENT, 420, 150, 440, 190, 0, 0},
        {BOIDS_OBSTACLE_SEGMENT, 450, 250, 480, 250, 0, 0}, /* across the seam x = 464 */
    };
    s->obstacle_count = (int)(sizeof obs / sizeof obs[0]);
    memcpy(s->obstacles, obs, sizeof obs);
    s->attractors[0] = (boids_point){1, 240, 50, 120, 2, 0}; /* inside the corner */
    s->attractors[1] = (boids_point){1, 116, 145, 90, 2, 0}; /* at circle 0's centre */
    for (int i = 0; i < BOIDS_MAX_POINTS; i++) {
        double a = 0.002 * (i + 1) * t + 0.4 * i;
        s->predators[i] = (boids_point){1, 232 + 150 * cos(a), 145 + 100 * sin(a), 40, 2, 0};
        if (i >= 2)
            s->attractors[i] = (boids_point){1, 232 + 120 * cos(-a), 145 + 80 * sin(-a), 50, 1, 0};
    }
}

/* Random boids (seed), the first OBST_INSIDE of them moved inside circle 0. */
static void obst_flock_plane(boids_flock *f, const boids_params *p, uint64_t seed) {
    boids_error err;
    if (boids_flock_alloc_dim(f, OBST_N, 2, &err)) abort();
    boids_flock_randomize(f, p, seed);
    for (int i = 0; i < OBST_INSIDE; i++) {
        double a = 0.5 * i, r = 2.5 * i; /* boid 0 exactly at the centre */
        f->x[i] = 116 + r * cos(a);
        f->y[i] = 145 + r * sin(a);
    }
}

/* The table at step t: fixed spheres and two fixed attractors, the other points on closed
 * curves round the box's centre, each at its own phase and rate. */
static void obst_table_box(boids_interact *s, const boids_params *p, unsigned t) {
    boids_interact_default(s, p);
    static const boids_obstacle obs[] = {
        {BOIDS_OBSTACLE_SPHERE, 80, 100, 0, 0, 30, 80},
        {BOIDS_OBSTACLE_SPHERE, 190, 50, 0, 0, 18, 120},
        {BOIDS_OBSTACLE_SPHERE, 0, 0, 0, 0, 25, 0}, /* on the corners of the box */
        {BOIDS_OBSTACLE_SPHERE, 170, 160, 0, 0, 12, 40},
        {BOIDS_OBSTACLE_SPHERE, 120, 199, 0, 0, 15, 155}, /* across the y and z seams */
        {BOIDS_OBSTACLE_SPHERE, 40, 40, 0, 0, 14, 120},   /* two overlapping */
        {BOIDS_OBSTACLE_SPHERE, 62, 40, 0, 0, 10, 120},
    };
    s->obstacle_count = (int)(sizeof obs / sizeof obs[0]);
    memcpy(s->obstacles, obs, sizeof obs);
    s->attractors[0] = (boids_point){1, 80, 100, 90, 2, 80}; /* at sphere 0's centre */
    s->attractors[1] = (boids_point){1, 52, 58, 60, 2, 120}; /* beside the junction */
    for (int i = 0; i < BOIDS_MAX_POINTS; i++) {
        double a = 0.002 * (i + 1) * t + 0.4 * i;
        s->predators[i] =
            (boids_point){1, 120 + 80 * cos(a), 100 + 60 * sin(a), 40, 2, 80 + 50 * sin(1.3 * a)};
        if (i >= 2)
            s->attractors[i] = (boids_point){1, 120 + 70 * cos(-a),    100 + 50 * sin(-a), 50,
                                             1, 80 + 40 * cos(0.7 * a)};
    }
}

/* Random boids (seed), the first OBST_INSIDE of them moved inside sphere 0. */
static void obst_flock_box(boids_flock *f, const boids_params *p, uint64_t seed) {
    boids_error err;
    if (boids_flock_alloc_dim(f, OBST_N, 3, &err)) abort();
    boids_flock_randomize(f, p, seed);
    for (int i = 0; i < OBST_INSIDE; i++) {
        double a = 0.5 * i, b = 0.9 * i, r = 2.2 * i; /* boid 0 exactly at the centre */
        f->x[i] = 80 + r * cos(a) * sin(b);
        f->y[i] = 100 + r * sin(a) * sin(b);
        f->z[i] = 80 + r * cos(b);
    }
}

/* The table at step t and the flock (seed) of p's dimension. */
static void obst_table(boids_interact *s, const boids_params *p, unsigned t) {
    if (p->dim == 3)
        obst_table_box(s, p, t);
    else
        obst_table_plane(s, p, t);
}

static void obst_flock(boids_flock *f, const boids_params *p, uint64_t seed) {
    if (p->dim == 3)
        obst_flock_box(f, p, seed);
    else
        obst_flock_plane(f, p, seed);
}

/* ---- the check ------------------------------------------------------------------------ */

typedef struct obst_check {
    const char *name;
    int is_float, dim;
    boids_params p;
    boids_interact t;
    rules_k_d2 kd2;
    rules_k_f2 kf2;
    rules_k_d3 kd3;
    rules_k_f3 kf3;
    rules_table_d2 td2;
    rules_table_f2 tf2;
    rules_table_d3 td3;
    rules_table_f3 tf3;
    boids_flock prev;
    long bad_exact, bad_indep, stayed, checked;
} obst_check;

static void obst_set_table(obst_check *c, const boids_interact *t) {
    c->t = *t;
    rules_k_init_d2(&c->kd2, &c->p);
    rules_k_set_interact_d2(&c->kd2, &c->td2, t);
    rules_k_init_f2(&c->kf2, &c->p);
    rules_k_set_interact_f2(&c->kf2, &c->tf2, t);
    rules_k_init_d3(&c->kd3, &c->p);
    rules_k_set_interact_d3(&c->kd3, &c->td3, t);
    rules_k_init_f3(&c->kf3, &c->p);
    rules_k_set_interact_f3(&c->kf3, &c->tf3, t);
}

static void obst_check_init(obst_check *c, const char *name, int is_float, const boids_params *p,
                            const boids_flock *initial) {
    boids_error err;
    memset(c, 0, sizeof *c);
    c->name = name;
    c->is_float = is_float;
    c->dim = p->dim == 3 ? 3 : 2;
    c->p = *p;
    if (boids_flock_copy(&c->prev, initial, &err)) abort();
}

/* The exact check in the state's precision and dimension. */
static int obst_exact(const obst_check *c, const double p0[3], const double p1[3]) {
    const float f0[3] = {(float)p0[0], (float)p0[1], (float)p0[2]};
    const float f1[3] = {(float)p1[0], (float)p1[1], (float)p1[2]};
    if (c->dim == 3) return c->is_float ? exact_f3(&c->kf3, f0, f1) : exact_d3(&c->kd3, p0, p1);
    return c->is_float ? exact_f2(&c->kf2, f0, f1) : exact_d2(&c->kd2, p0, p1);
}

static double wrap_side(double d, double side) {
    return d - side * floor(d / side + 0.5); /* the nearest image */
}

/* The independent check in double (see the top of this file). */
static int indep(const boids_params *p, const boids_interact *t, int dim, const double p0[3],
                 const double p1[3], double tol) {
    const double side[3] = {p->width, p->height, p->depth};
    double m[3] = {0, 0, 0}, mm = 0;
    for (int c = 0; c < dim; c++) {
        m[c] = wrap_side(p1[c] - p0[c], side[c]);
        mm += m[c] * m[c];
    }
    int started_inside = 0;
    for (int i = 0; i < t->obstacle_count; i++) {
        const boids_obstacle *o = &t->obstacles[i];
        if (o->kind == BOIDS_OBSTACLE_SEGMENT) continue;
        const double ctr[3] = {o->x0, o->y0, o->z0};
        double e2 = 0, s2 = 0;
        for (int c = 0; c < dim; c++) {
            double de = wrap_side(ctr[c] - p1[c], side[c]), ds = wrap_side(ctr[c] - p0[c], side[c]);
            e2 += de * de;
            s2 += ds * ds;
        }
        if (sqrt(e2) < o->radius - tol) return 1;
        started_inside |= sqrt(s2) < o->radius;
    }
    if (started_inside) return 0; /* expelled, not moved */
    for (int i = 0; i < t->obstacle_count && mm > 0; i++) {
        const boids_obstacle *o = &t->obstacles[i];
        if (o->kind == BOIDS_OBSTACLE_SEGMENT) continue;
        const double ctr[3] = {o->x0, o->y0, o->z0};
        double a[3], am = 0;
        for (int c = 0; c < dim; c++) {
            a[c] = wrap_side(ctr[c] - p0[c], side[c]); /* the image nearest the start */
            am += a[c] * m[c];
        }
        double u = am / mm, w2 = 0;
        u = u < 0 ? 0 : u > 1 ? 1 : u;
        for (int c = 0; c < dim; c++) w2 += (a[c] - u * m[c]) * (a[c] - u * m[c]);
        if (sqrt(w2) < o->radius - tol) return 1;
    }
    /* The plane's segments: a crossing of the line on the segment. */
    const double x0 = p0[0], y0 = p0[1], w = side[0], h = side[1], mx = m[0], my = m[1];
    for (int i = 0; i < t->obstacle_count && !started_inside; i++) {
        const boids_obstacle *o = &t->obstacles[i];
        double len = hypot(o->x1 - o->x0, o->y1 - o->y0);
        if (o->kind != BOIDS_OBSTACLE_SEGMENT || len == 0) continue;
        /* the image whose midpoint is nearest the boid's start, relative to it */
        double cx = 0.5 * (o->x0 + o->x1), cy = 0.5 * (o->y0 + o->y1);
        double sx = wrap_side(cx - x0, w) - (cx - x0), sy = wrap_side(cy - y0, h) - (cy - y0);
        double ax = o->x0 - x0 + sx, ay = o->y0 - y0 + sy;
        double ux = (o->x1 - o->x0) / len, uy = (o->y1 - o->y0) / len;
        double s0 = ux * (0 - ay) - uy * (0 - ax), s1 = ux * (my - ay) - uy * (mx - ax);
        if (!((s0 > tol && s1 < -tol) || (s0 < -tol && s1 > tol))) continue;
        double f = s0 / (s0 - s1), qx = mx * f - ax, qy = my * f - ay;
        double along = qx * ux + qy * uy;
        if (along > tol && along < len - tol) return 1;
    }
    return 0;
}

/* Checks the step from c->prev to cur (step number `step`, from 1) and keeps cur. */
static void obst_check_step(obst_check *c, const boids_flock *cur, unsigned step) {
    const double tol = c->is_float ? (c->dim == 3 ? 1e-3 : 4e-3) : 1e-9;
    double *const prev[3] = {c->prev.x, c->prev.y, c->prev.z};
    const double *const now[3] = {cur->x, cur->y, cur->z};
    for (size_t i = 0; i < cur->n; i++) {
        double p0[3] = {0, 0, 0}, p1[3] = {0, 0, 0};
        int stayed = 1;
        for (int a = 0; a < c->dim; a++) {
            p0[a] = prev[a][i], p1[a] = now[a][i];
            stayed &= p0[a] == p1[a];
        }
        int e = obst_exact(c, p0, p1);
        int d = indep(&c->p, &c->t, c->dim, p0, p1, tol);
        if ((e || d) && c->bad_exact + c->bad_indep < 10)
            fprintf(stderr, "%s step %u boid %zu: (%.9g, %.9g, %.9g) -> (%.9g, %.9g, %.9g)%s%s\n",
                    c->name, step, i, p0[0], p0[1], p0[2], p1[0], p1[1], p1[2],
                    e ? " enters an obstacle (exact)" : "",
                    d ? " crosses, passes or ends inside (double)" : "");
        c->bad_exact += e;
        c->bad_indep += d;
        c->stayed += stayed;
        c->checked++;
    }
    for (int a = 0; a < c->dim; a++) memcpy(prev[a], now[a], cur->n * sizeof *cur->x);
}

/* The verdict: no bad move, and the hard rule was exercised (boids stayed put). */
static void obst_check_done(obst_check *c) {
    printf("%-30s %ld boid-steps checked, %ld stayed put (blocked)\n", c->name, c->checked,
           c->stayed);
    CHECK(c->bad_exact == 0, "%s: %ld moves enter an obstacle (rules.h's predicates, exact)",
          c->name, c->bad_exact);
    CHECK(c->bad_indep == 0,
          "%s: %ld moves cross a segment or pass or end in a circle or sphere "
          "(double check)",
          c->name, c->bad_indep);
    CHECK(c->stayed > 0, "%s: no move was blocked: the scenario does not exercise the rule",
          c->name);
    boids_flock_free(&c->prev);
}

/* Runs `steps` steps of backend b (state initial), handing the table over every MOVE_EVERY
 * steps and checking every step. */
static void obst_run(obst_check *c, boids_backend *b, const boids_flock *initial, unsigned steps) {
    boids_error err;
    boids_flock cur;
    if (boids_flock_alloc_dim(&cur, initial->n, c->dim, &err)) abort();
    boids_interact t;
    for (unsigned s = 0; s < steps; s++) {
        if (s % MOVE_EVERY == 0) {
            obst_table(&t, &c->p, s);
            obst_set_table(c, &t);
            CHECK(boids_backend_set_interact(b, &t, &err) == BOIDS_OK, "set: %s", err.msg);
        }
        if (boids_backend_step(b, &c->p, 1, &err) || boids_backend_download(b, &cur, &err)) {
            CHECK(0, "%s step %u: %s", c->name, s + 1, err.msg);
            break;
        }
        obst_check_step(c, &cur, s + 1);
    }
    boids_flock_free(&cur);
}

#endif

#else /* the exact check in RULES_REAL over RULES_DIM */
/* (rules.h's instance: rules_instances.h includes it before this file) */

/* 1 if the boid ends inside a round obstacle or (not expelled) its move from p0 to p1
 * entered an obstacle, by rules.h's predicates. */
static int RULES_FN(exact)(const RULES_FN(rules_k) * k, const RULES_REAL p0[3],
                           const RULES_REAL p1[3]) {
    const RULES_FN(rules_table) *t = k->tab;
    int expelled = 0;
    if (!t) return 0;
    for (int i = 0; i < t->nobst; i++) {
        if (!t->obst[i].round) continue;
        if (RULES_FN(rules_in_round)(k, &t->obst[i], p1)) return 1;
        expelled |= RULES_FN(rules_in_round)(k, &t->obst[i], p0);
    }
    RULES_REAL m[RULES_DIM];
    RULES_FN(rules_offset)(k, p0, p1, m);
    for (int i = 0; i < t->nobst && !expelled; i++)
        if (RULES_FN(rules_hit)(k, &t->obst[i], p0, p1, m)) return 1;
    return 0;
}

#endif
