/* SPDX-License-Identifier: MIT */
/* The long obstacle runs (obstacle_test.c on the CPU backends, gpu/obstacle_gpu_test.c): one
 * scenario and one check, shared.
 *
 * Scenario: 400 boids at the lab's density (1500 in 900 x 560) in a 464 x 290 periodic world;
 * four circles (one across the four corners of the torus, one with 12 boids placed inside
 * it and an attractor at its centre that keeps pulling boids into its rim), a room corner of
 * two walls with an attractor inside it, a zig-zag of three walls, a wall across the seam;
 * 16 predators and 14 more attractors on moving orbits (the table is handed over again
 * every MOVE_EVERY steps).
 *
 * Check, after every step, for every boid (obst_check_step):
 *   - exact, in the backend's precision, with rules.h's own predicates on the stored states:
 *     no boid ends inside a circle (after step 1, which expels the boids placed inside), no
 *     move enters an obstacle (rules_hit of the move between consecutive states: the end or
 *     the path within a circle, or touching a segment);
 *   - independent, in double with its own geometry: no boid ends more than tol inside a
 *     circle; no boid goes from one side of a segment's line to the other (both sides more
 *     than tol from the line) where the crossing point lies on the segment (more than tol
 *     from its ends). tol: float states, 4e-3 length units: the float rule decides with
 *     products of offsets up to the world's size (464), whose rounding (2^-24 of 464^2 is
 *     1.3e-2 in the cross product) is below 7e-4 in distance for segments 20 or more long;
 *     double states, 1e-9. */
#ifndef BOIDS_TEST_OBSTACLE_FIXTURE_H
#define BOIDS_TEST_OBSTACLE_FIXTURE_H

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "boids/backend.h"
#include "check.h"

#define RULES_REAL     double
#define RULES_DIM      2
#define RULES_FN(name) name##_d2
#include "rules.h"
#undef RULES_REAL
#undef RULES_FN
#define RULES_REAL     float
#define RULES_FN(name) name##_f2
#include "rules.h"
#undef RULES_REAL
#undef RULES_DIM
#undef RULES_FN

enum { OBST_N = 400, OBST_INSIDE = 12, MOVE_EVERY = 10 };

/* Lab parameters in the scenario's world; Vicsek at the lab's step length (3 a step). */
static boids_params obst_params(int vicsek) {
    boids_params p = boids_params_default();
    p.width = 464; /* sqrt(400 / 1500) x 900 x 560, rounded */
    p.height = 290;
    p.count = OBST_N;
    if (vicsek) {
        p.model = BOIDS_MODEL_VICSEK;
        p.speed = 180;
        p.noise = 0.5;
        p.noise_seed = 3;
    }
    return p;
}

/* The table at step t: fixed obstacles and two fixed attractors, the other points on
 * ellipses round the world's centre, each at its own phase and rate. */
static void obst_table(boids_interact *s, const boids_params *p, unsigned t) {
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
static void obst_flock(boids_flock *f, const boids_params *p, uint64_t seed) {
    boids_error err;
    if (boids_flock_alloc(f, OBST_N, &err)) abort();
    boids_flock_randomize(f, p, seed);
    for (int i = 0; i < OBST_INSIDE; i++) {
        double a = 0.5 * i, r = 2.5 * i; /* boid 0 exactly at the centre */
        f->x[i] = 116 + r * cos(a);
        f->y[i] = 145 + r * sin(a);
    }
}

typedef struct obst_check {
    const char *name;
    int is_float;
    boids_params p;
    boids_interact t;
    rules_k_d2 kd;
    rules_k_f2 kf;
    rules_table_d2 td;
    rules_table_f2 tf;
    boids_flock prev;
    long bad_exact, bad_indep, stayed, checked;
} obst_check;

static void obst_set_table(obst_check *c, const boids_interact *t) {
    c->t = *t;
    rules_k_init_d2(&c->kd, &c->p);
    rules_k_set_interact_d2(&c->kd, &c->td, t);
    rules_k_init_f2(&c->kf, &c->p);
    rules_k_set_interact_f2(&c->kf, &c->tf, t);
}

static void obst_check_init(obst_check *c, const char *name, int is_float, const boids_params *p,
                            const boids_flock *initial) {
    boids_error err;
    memset(c, 0, sizeof *c);
    c->name = name;
    c->is_float = is_float;
    c->p = *p;
    if (boids_flock_copy(&c->prev, initial, &err)) abort();
}

/* The exact check in double: 1 if the boid ends inside a circle or (not expelled) its move
 * entered an obstacle. */
static int exact_d(const rules_k_d2 *k, double x0, double y0, double x1, double y1) {
    int expelled = 0;
    if (!k->tab) return 0;
    const rules_table_d2 *t = k->tab;
    const double p0[2] = {x0, y0}, p1[2] = {x1, y1};
    for (int i = 0; i < t->nobst; i++) {
        if (!t->obst[i].round) continue;
        if (rules_in_round_d2(k, &t->obst[i], p1)) return 1;
        expelled |= rules_in_round_d2(k, &t->obst[i], p0);
    }
    double m[2];
    rules_offset_d2(k, p0, p1, m);
    for (int i = 0; i < t->nobst && !expelled; i++)
        if (rules_hit_d2(k, &t->obst[i], p0, p1, m)) return 1;
    return 0;
}

/* The same in float. */
static int exact_f(const rules_k_f2 *k, float x0, float y0, float x1, float y1) {
    int expelled = 0;
    if (!k->tab) return 0;
    const rules_table_f2 *t = k->tab;
    const float p0[2] = {x0, y0}, p1[2] = {x1, y1};
    for (int i = 0; i < t->nobst; i++) {
        if (!t->obst[i].round) continue;
        if (rules_in_round_f2(k, &t->obst[i], p1)) return 1;
        expelled |= rules_in_round_f2(k, &t->obst[i], p0);
    }
    float m[2];
    rules_offset_f2(k, p0, p1, m);
    for (int i = 0; i < t->nobst && !expelled; i++)
        if (rules_hit_f2(k, &t->obst[i], p0, p1, m)) return 1;
    return 0;
}

static double wrap_side(double d, double side) {
    return d - side * floor(d / side + 0.5); /* the nearest image */
}

/* The independent check in double (see the top of this file). */
static int indep(const boids_params *p, const boids_interact *t, double x0, double y0, double x1,
                 double y1, double tol) {
    const double w = p->width, h = p->height;
    const double mx = wrap_side(x1 - x0, w), my = wrap_side(y1 - y0, h);
    int started_inside = 0;
    for (int i = 0; i < t->obstacle_count; i++) {
        const boids_obstacle *o = &t->obstacles[i];
        if (o->kind != BOIDS_OBSTACLE_CIRCLE) continue;
        if (hypot(wrap_side(x1 - o->x0, w), wrap_side(y1 - o->y0, h)) < o->radius - tol) return 1;
        started_inside |= hypot(wrap_side(x0 - o->x0, w), wrap_side(y0 - o->y0, h)) < o->radius;
    }
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
    const double tol = c->is_float ? 4e-3 : 1e-9;
    for (size_t i = 0; i < cur->n; i++) {
        double x0 = c->prev.x[i], y0 = c->prev.y[i], x1 = cur->x[i], y1 = cur->y[i];
        int e = c->is_float ? exact_f(&c->kf, (float)x0, (float)y0, (float)x1, (float)y1)
                            : exact_d(&c->kd, x0, y0, x1, y1);
        int d = indep(&c->p, &c->t, x0, y0, x1, y1, tol);
        if ((e || d) && c->bad_exact + c->bad_indep < 10)
            fprintf(stderr, "%s step %u boid %zu: (%.9g, %.9g) -> (%.9g, %.9g)%s%s\n", c->name,
                    step, i, x0, y0, x1, y1, e ? " enters an obstacle (exact)" : "",
                    d ? " crosses or ends inside (double)" : "");
        c->bad_exact += e;
        c->bad_indep += d;
        c->stayed += x0 == x1 && y0 == y1;
        c->checked++;
    }
    memcpy(c->prev.x, cur->x, cur->n * sizeof *cur->x);
    memcpy(c->prev.y, cur->y, cur->n * sizeof *cur->y);
}

/* The verdict: no bad move, and the hard rule was exercised (boids stayed put). */
static void obst_check_done(obst_check *c) {
    printf("%-28s %ld boid-steps checked, %ld stayed put (blocked)\n", c->name, c->checked,
           c->stayed);
    CHECK(c->bad_exact == 0, "%s: %ld moves enter an obstacle (rules.h's predicates, exact)",
          c->name, c->bad_exact);
    CHECK(c->bad_indep == 0, "%s: %ld moves cross a segment or end in a circle (double check)",
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
    if (boids_flock_alloc(&cur, initial->n, &err)) abort();
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
