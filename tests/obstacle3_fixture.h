/* SPDX-License-Identifier: MIT */
/* The long sphere runs in 3-D (obstacle3_test.c on the CPU backends,
 * gpu/obstacle3_gpu_test.c): one scenario and one check, shared; tests/obstacle_fixture.h's
 * plan with spheres in a periodic box.
 *
 * Scenario: 400 boids (lab parameters, dim = 3) in a 240 x 200 x 160 periodic box, about 27
 * neighbours within the vision radius; seven spheres: one with 12 boids placed inside it (one
 * at its centre) and an attractor at its centre that keeps pulling boids into its surface,
 * one on the eight corners of the periodic box, one across the y and z seams, two that
 * overlap with an attractor in the pocket beside their junction, two more; 16 predators and
 * 14 more attractors on moving 3-D orbits (the table is handed over again every MOVE_EVERY
 * steps).
 *
 * Check, after every step, for every boid (obst3_check_step):
 *   - exact, in the backend's precision, with rules3.h's own predicates on the stored
 *     states: no boid ends inside a sphere (after step 1, which expels the boids placed
 *     inside), no move enters a sphere (rules3_hit of the move between consecutive states:
 *     the end inside, or the path within the radius of the centre);
 *   - independent, in double with its own geometry: no boid ends more than tol inside a
 *     sphere, and no move's straight path comes closer than the radius minus tol to a centre
 *     (closest point by projection, with a division). tol: float states, 1e-3 length units:
 *     the float rule decides with squared offsets up to (radius + step + bound)^2 < 40^2,
 *     whose rounding (a few 2^-24 of 1600, and of its product with a squared step) is below
 *     2e-5 in distance; double states, 1e-9. */
#ifndef BOIDS_TEST_OBSTACLE3_FIXTURE_H
#define BOIDS_TEST_OBSTACLE3_FIXTURE_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "boids/backend.h"
#include "check.h"

#define RULES_REAL     double
#define RULES_DIM      3
#define RULES_FN(name) name##_d3
#include "rules.h"
#undef RULES_REAL
#undef RULES_FN
#define RULES_REAL     float
#define RULES_FN(name) name##_f3
#include "rules.h"
#undef RULES_REAL
#undef RULES_DIM
#undef RULES_FN

enum { OBST3_N = 400, OBST3_INSIDE = 12, MOVE3_EVERY = 10 };

/* Lab parameters in the scenario's box; Vicsek at the lab's step length (3 a step). */
static boids_params obst3_params(int vicsek) {
    boids_params p = boids_params_default();
    p.dim = 3;
    p.width = 240;
    p.height = 200;
    p.depth = 160;
    p.count = OBST3_N;
    if (vicsek) {
        p.model = BOIDS_MODEL_VICSEK;
        p.speed = 180;
        p.noise = 0.5;
        p.noise_seed = 3;
    }
    return p;
}

/* The table at step t: fixed spheres and two fixed attractors, the other points on closed
 * curves round the box's centre, each at its own phase and rate. */
static void obst3_table(boids_interact *s, const boids_params *p, unsigned t) {
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

/* Random boids (seed), the first OBST3_INSIDE of them moved inside sphere 0. */
static void obst3_flock(boids_flock *f, const boids_params *p, uint64_t seed) {
    boids_error err;
    if (boids_flock_alloc_dim(f, OBST3_N, 3, &err)) abort();
    boids_flock_randomize(f, p, seed);
    for (int i = 0; i < OBST3_INSIDE; i++) {
        double a = 0.5 * i, b = 0.9 * i, r = 2.2 * i; /* boid 0 exactly at the centre */
        f->x[i] = 80 + r * cos(a) * sin(b);
        f->y[i] = 100 + r * sin(a) * sin(b);
        f->z[i] = 80 + r * cos(b);
    }
}

typedef struct obst3_check {
    const char *name;
    int is_float;
    boids_params p;
    boids_interact t;
    rules_k_d3 kd;
    rules_table_d3 td;
    rules_k_f3 kf;
    rules_table_f3 tf;
    boids_flock prev;
    long bad_exact, bad_indep, stayed, checked;
} obst3_check;

static void obst3_set_table(obst3_check *c, const boids_interact *t) {
    c->t = *t;
    rules_k_init_d3(&c->kd, &c->p);
    rules_k_set_interact_d3(&c->kd, &c->td, t);
    rules_k_init_f3(&c->kf, &c->p);
    rules_k_set_interact_f3(&c->kf, &c->tf, t);
}

static void obst3_check_init(obst3_check *c, const char *name, int is_float, const boids_params *p,
                             const boids_flock *initial) {
    boids_error err;
    memset(c, 0, sizeof *c);
    c->name = name;
    c->is_float = is_float;
    c->p = *p;
    if (boids_flock_copy(&c->prev, initial, &err)) abort();
}

/* The exact check in double: 1 if the boid ends inside a sphere or (not expelled) its move
 * entered one. */
static int exact3_d(const rules_k_d3 *k, const double p0[3], const double p1[3]) {
    const rules_table_d3 *t = k->tab;
    int expelled = 0;
    if (!t) return 0;
    for (int i = 0; i < t->nobst; i++) {
        if (rules_in_round_d3(k, &t->obst[i], p1)) return 1;
        expelled |= rules_in_round_d3(k, &t->obst[i], p0);
    }
    double m[3];
    rules_offset_d3(k, p0, p1, m);
    for (int i = 0; i < t->nobst && !expelled; i++)
        if (rules_hit_d3(k, &t->obst[i], p0, p1, m)) return 1;
    return 0;
}

/* The same in float. */
static int exact3_f(const rules_k_f3 *k, const float p0[3], const float p1[3]) {
    const rules_table_f3 *t = k->tab;
    int expelled = 0;
    if (!t) return 0;
    for (int i = 0; i < t->nobst; i++) {
        if (rules_in_round_f3(k, &t->obst[i], p1)) return 1;
        expelled |= rules_in_round_f3(k, &t->obst[i], p0);
    }
    float m[3];
    rules_offset_f3(k, p0, p1, m);
    for (int i = 0; i < t->nobst && !expelled; i++)
        if (rules_hit_f3(k, &t->obst[i], p0, p1, m)) return 1;
    return 0;
}

static double wrap3_side(double d, double side) {
    return d - side * floor(d / side + 0.5); /* the nearest image */
}

/* The independent check in double (see the top of this file). */
static int indep3(const boids_params *p, const boids_interact *t, const double p0[3],
                  const double p1[3], double tol) {
    const double side[3] = {p->width, p->height, p->depth};
    double m[3], mm = 0;
    for (int c = 0; c < 3; c++) {
        m[c] = wrap3_side(p1[c] - p0[c], side[c]);
        mm += m[c] * m[c];
    }
    int started_inside = 0;
    for (int i = 0; i < t->obstacle_count; i++) {
        const boids_obstacle *o = &t->obstacles[i];
        const double ctr[3] = {o->x0, o->y0, o->z0};
        double e2 = 0, s2 = 0;
        for (int c = 0; c < 3; c++) {
            double de = wrap3_side(ctr[c] - p1[c], side[c]),
                   ds = wrap3_side(ctr[c] - p0[c], side[c]);
            e2 += de * de;
            s2 += ds * ds;
        }
        if (sqrt(e2) < o->radius - tol) return 1;
        started_inside |= sqrt(s2) < o->radius;
    }
    for (int i = 0; i < t->obstacle_count && !started_inside && mm > 0; i++) {
        const boids_obstacle *o = &t->obstacles[i];
        const double ctr[3] = {o->x0, o->y0, o->z0};
        double a[3], am = 0;
        for (int c = 0; c < 3; c++) {
            a[c] = wrap3_side(ctr[c] - p0[c], side[c]); /* the image nearest the start */
            am += a[c] * m[c];
        }
        double u = am / mm, w2 = 0;
        u = u < 0 ? 0 : u > 1 ? 1 : u;
        for (int c = 0; c < 3; c++) w2 += (a[c] - u * m[c]) * (a[c] - u * m[c]);
        if (sqrt(w2) < o->radius - tol) return 1;
    }
    return 0;
}

/* Checks the step from c->prev to cur (step number `step`, from 1) and keeps cur. */
static void obst3_check_step(obst3_check *c, const boids_flock *cur, unsigned step) {
    const double tol = c->is_float ? 1e-3 : 1e-9;
    for (size_t i = 0; i < cur->n; i++) {
        const double p0[3] = {c->prev.x[i], c->prev.y[i], c->prev.z[i]};
        const double p1[3] = {cur->x[i], cur->y[i], cur->z[i]};
        const float f0[3] = {(float)p0[0], (float)p0[1], (float)p0[2]};
        const float f1[3] = {(float)p1[0], (float)p1[1], (float)p1[2]};
        int e = c->is_float ? exact3_f(&c->kf, f0, f1) : exact3_d(&c->kd, p0, p1);
        int d = indep3(&c->p, &c->t, p0, p1, tol);
        if ((e || d) && c->bad_exact + c->bad_indep < 10)
            fprintf(stderr, "%s step %u boid %zu: (%.9g, %.9g, %.9g) -> (%.9g, %.9g, %.9g)%s%s\n",
                    c->name, step, i, p0[0], p0[1], p0[2], p1[0], p1[1], p1[2],
                    e ? " enters a sphere (exact)" : "",
                    d ? " passes or ends inside (double)" : "");
        c->bad_exact += e;
        c->bad_indep += d;
        c->stayed += p0[0] == p1[0] && p0[1] == p1[1] && p0[2] == p1[2];
        c->checked++;
    }
    const size_t bytes = cur->n * sizeof *cur->x;
    memcpy(c->prev.x, cur->x, bytes);
    memcpy(c->prev.y, cur->y, bytes);
    memcpy(c->prev.z, cur->z, bytes);
}

/* The verdict: no bad move, and the hard rule was exercised (boids stayed put). */
static void obst3_check_done(obst3_check *c) {
    printf("%-30s %ld boid-steps checked, %ld stayed put (blocked)\n", c->name, c->checked,
           c->stayed);
    CHECK(c->bad_exact == 0, "%s: %ld moves enter a sphere (rules3.h's predicates, exact)", c->name,
          c->bad_exact);
    CHECK(c->bad_indep == 0, "%s: %ld moves pass or end inside a sphere (double check)", c->name,
          c->bad_indep);
    CHECK(c->stayed > 0, "%s: no move was blocked: the scenario does not exercise the rule",
          c->name);
    boids_flock_free(&c->prev);
}

/* Runs `steps` steps of backend b (state initial), handing the table over every MOVE3_EVERY
 * steps and checking every step. */
static void obst3_run(obst3_check *c, boids_backend *b, const boids_flock *initial,
                      unsigned steps) {
    boids_error err;
    boids_flock cur;
    if (boids_flock_alloc_dim(&cur, initial->n, 3, &err)) abort();
    boids_interact t;
    for (unsigned s = 0; s < steps; s++) {
        if (s % MOVE3_EVERY == 0) {
            obst3_table(&t, &c->p, s);
            obst3_set_table(c, &t);
            CHECK(boids_backend_set_interact(b, &t, &err) == BOIDS_OK, "set: %s", err.msg);
        }
        if (boids_backend_step(b, &c->p, 1, &err) || boids_backend_download(b, &cur, &err)) {
            CHECK(0, "%s step %u: %s", c->name, s + 1, err.msg);
            break;
        }
        obst3_check_step(c, &cur, s + 1);
    }
    boids_flock_free(&cur);
}

#endif
