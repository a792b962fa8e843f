/* SPDX-License-Identifier: MIT */
/* The interaction table's points and avoidance act as README's "Interaction points and
 * obstacles" says:
 *   - a boid near any one of the 16 predators accelerates away from it, near any one of the
 *     16 attractors towards it (one step on cpu-ref and on cpu, each point alone);
 *   - with all 16 predators (attractors) on, turning any one off changes the acceleration:
 *     every point counts;
 *   - the terms are summed after the parameters' predator, food and walls, predators then
 *     attractors, each in index order, skipping points that are off: rules_accel's result
 *     is bit for bit that sum formed here from rules_steer (double and float);
 *   - avoidance: a boid heading at a circle turns to the side its look-ahead passes, one
 *     heading at a wall slows along its normal;
 *   - a boid placed on a wall may leave it, not move along it;
 *   - under wrap a segment too long for the world is refused by boids_backend_step. */
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

static boids_params params(void) {
    boids_params p;
    boids_error err;
    boids_preset_apply(&p, "classic", &err); /* 400 x 400 wrap, per step */
    return p;
}

/* One step of one boid at (200, 200) moving slowly along +y, with table t, on cpu-ref or
 * cpu: its new vx. */
static double one_step_vx(int cpu_ref, const boids_params *p, const boids_interact *t) {
    boids_error err;
    boids_flock f;
    boids_flock_alloc(&f, 1, &err);
    f.x[0] = f.y[0] = 200;
    f.vx[0] = 0;
    f.vy[0] = 1.5;
    boids_backend *b = cpu_ref ? boids_cpu_ref_create(&f, &err) : boids_cpu_create(&f, 1, &err);
    CHECK(b && boids_backend_set_interact(b, t, &err) == BOIDS_OK, "set: %s", err.msg);
    CHECK(boids_backend_step(b, p, 1, &err) == BOIDS_OK, "step: %s", err.msg);
    boids_backend_download(b, &f, &err);
    double vx = f.vx[0];
    boids_backend_destroy(b);
    boids_flock_free(&f);
    return vx;
}

static void each_point_alone(void) {
    boids_params p = params();
    for (int be = 0; be < 2; be++)
        for (int i = 0; i < BOIDS_MAX_POINTS; i++) {
            boids_interact t;
            boids_interact_default(&t, &p);
            t.predators[i] = (boids_point){1, 190, 200, 50, 1, 0}; /* 10 to the boid's left */
            double away = one_step_vx(be, &p, &t);
            boids_interact_default(&t, &p);
            t.attractors[i] = (boids_point){1, 190, 200, 50, 1, 0};
            double towards = one_step_vx(be, &p, &t);
            CHECK(away > 0 && towards < 0,
                  "%s point %d: vx %g near a predator (flees: > 0), %g near an attractor "
                  "(seeks: < 0)",
                  be ? "cpu" : "cpu-ref", i, away, towards);
        }
}

/* The table: all 16 predators (or attractors) on round (200, 200) at distinct distances,
 * weights and radii. */
static void ring(boids_interact *t, const boids_params *p, int attractors) {
    boids_interact_default(t, p);
    for (int i = 0; i < BOIDS_MAX_POINTS; i++) {
        double a = 2 * M_PI * i / BOIDS_MAX_POINTS + 0.1, r = 10 + i;
        boids_point pt = {1, 200 + r * cos(a), 200 + r * sin(a), 60 + i, 0.5 + 0.1 * i, 0};
        if (attractors)
            t->attractors[i] = pt;
        else
            t->predators[i] = pt;
    }
}

static void accel_d(const boids_params *p, const boids_interact *t, double x, double y, double vx,
                    double vy, double *ax, double *ay) {
    rules_k_d2 k;
    rules_table_d2 tab;
    rules_k_init_d2(&k, p);
    rules_k_set_interact_d2(&k, &tab, t);
    rules_acc_d2 a;
    rules_acc_init_d2(&a);
    const double pos[2] = {x, y}, vel[2] = {vx, vy};
    double acc[2];
    rules_accel_d2(&k, &a, pos, vel, acc);
    *ax = acc[0];
    *ay = acc[1];
}

static void every_point_counts(void) {
    boids_params p = params();
    for (int attr = 0; attr < 2; attr++) {
        boids_interact t;
        ring(&t, &p, attr);
        double ax, ay, bx, by;
        accel_d(&p, &t, 200, 200, 1, 1, &ax, &ay);
        for (int j = 0; j < BOIDS_MAX_POINTS; j++) {
            boids_interact u = t;
            (attr ? u.attractors : u.predators)[j].on = 0;
            accel_d(&p, &u, 200, 200, 1, 1, &bx, &by);
            CHECK(ax != bx || ay != by, "%s %d off: the acceleration does not change",
                  attr ? "attractor" : "predator", j);
        }
    }
}

/* rules_accel against the sum formed here: the base acceleration (no table: the parameters'
 * predator, food and walls), then each predator on, then each attractor on, in index order. */
static void sum_order_d(const boids_params *p, const boids_interact *t) {
    const double x = 205, y = 195, vx = 1, vy = -2;
    rules_k_d2 k;
    rules_table_d2 tab;
    rules_k_init_d2(&k, p);
    rules_acc_d2 a;
    rules_acc_init_d2(&a);
    const double pos[2] = {x, y}, vel[2] = {vx, vy};
    double acc[2], f[2], d[2], g[2];
    rules_accel_d2(&k, &a, pos, vel, acc); /* no table yet */
    for (int i = 0; i < 2 * BOIDS_MAX_POINTS; i++) {
        int pred = i < BOIDS_MAX_POINTS;
        const boids_point *q = pred ? &t->predators[i] : &t->attractors[i - BOIDS_MAX_POINTS];
        if (!q->on) continue;
        const double at[2] = {q->x, q->y};
        if (pred)
            rules_offset_d2(&k, at, pos, d);
        else
            rules_offset_d2(&k, pos, at, d);
        if (!(d[0] * d[0] + d[1] * d[1] < q->radius * q->radius)) continue;
        rules_steer_d2(&k, d, vel, f);
        acc[0] += q->weight * f[0];
        acc[1] += q->weight * f[1];
    }
    rules_k_set_interact_d2(&k, &tab, t);
    rules_accel_d2(&k, &a, pos, vel, g);
    const double ax = acc[0], ay = acc[1], gx = g[0], gy = g[1];
    CHECK(gx == ax && gy == ay,
          "double: rules_accel (%.17g, %.17g), index-order sum (%.17g, %.17g)", gx, gy, ax, ay);
}

/* The same in float (the weights and radii below are exact in float). */
static void sum_order_f(const boids_params *p, const boids_interact *t) {
    const float x = 205, y = 195, vx = 1, vy = -2;
    rules_k_f2 k;
    rules_table_f2 tab;
    rules_k_init_f2(&k, p);
    rules_acc_f2 a;
    rules_acc_init_f2(&a);
    const float pos[2] = {x, y}, vel[2] = {vx, vy};
    float acc[2], f[2], d[2], g[2];
    rules_accel_f2(&k, &a, pos, vel, acc);
    for (int i = 0; i < 2 * BOIDS_MAX_POINTS; i++) {
        int pred = i < BOIDS_MAX_POINTS;
        const boids_point *q = pred ? &t->predators[i] : &t->attractors[i - BOIDS_MAX_POINTS];
        if (!q->on) continue;
        const float at[2] = {(float)q->x, (float)q->y};
        if (pred)
            rules_offset_f2(&k, at, pos, d);
        else
            rules_offset_f2(&k, pos, at, d);
        if (!(d[0] * d[0] + d[1] * d[1] < (float)q->radius * (float)q->radius)) continue;
        rules_steer_f2(&k, d, vel, f);
        acc[0] += (float)q->weight * f[0];
        acc[1] += (float)q->weight * f[1];
    }
    rules_k_set_interact_f2(&k, &tab, t);
    rules_accel_f2(&k, &a, pos, vel, g);
    const float ax = acc[0], ay = acc[1], gx = g[0], gy = g[1];
    CHECK(gx == ax && gy == ay, "float: rules_accel (%.9g, %.9g), index-order sum (%.9g, %.9g)", gx,
          gy, ax, ay);
}

static void index_order(void) {
    boids_params p = params();
    p.boundary = BOIDS_BOUNDARY_WALLS; /* and the walls term before the table's */
    p.predator = 1, p.predator_x = 215, p.predator_y = 190, p.predator_radius = 80;
    p.food = 1, p.food_x = 180, p.food_y = 230, p.food_radius = 80;
    boids_interact t;
    boids_interact_default(&t, &p);
    const int on[] = {15, 2, 7, 0, 9}; /* some on, in no order */
    for (int i = 0; i < 5; i++) {
        double a = on[i];
        t.predators[on[i]] = (boids_point){1, 200 + a, 190 - a / 2, 64, 0.25 * (i + 1), 0};
        t.attractors[on[(i + 2) % 5]] =
            (boids_point){1, 190 + a / 4, 200 + a, 48, 1.5 - 0.25 * i, 0};
    }
    sum_order_d(&p, &t);
    sum_order_f(&p, &t);
    p.wall_margin = 250; /* every wall term on: the order still holds */
    sum_order_d(&p, &t);
    sum_order_f(&p, &t);
}

static void avoidance_turns_away(void) {
    boids_params p = params();
    boids_interact t;
    boids_interact_default(&t, &p);
    boids_obstacle circle = {BOIDS_OBSTACLE_CIRCLE, 150, 105, 0, 0, 10, 0};
    boids_obstacle wall = {BOIDS_OBSTACLE_SEGMENT, 150, 50, 150, 150, 0, 0};
    boids_error err;
    double ax, ay;
    boids_interact_add_obstacle(&t, &circle, "test", &err);
    accel_d(&p, &t, 100, 100, 3, 0, &ax, &ay); /* look-ahead passes 5 below the centre */
    CHECK(ay < 0 && ax < 0, "heading past a circle's lower half: accel (%g, %g), want down", ax,
          ay);
    accel_d(&p, &t, 100, 300, 3, 0, &ax, &ay);
    CHECK(ax == 0 && ay == 0, "far from the circle: accel (%g, %g), want 0", ax, ay);
    t.obstacle_count = 0;
    boids_interact_add_obstacle(&t, &wall, "test", &err);
    accel_d(&p, &t, 100, 100, 3, 0, &ax, &ay); /* the look-ahead crosses the wall */
    CHECK(ax < 0 && ay == 0, "heading at a wall: accel (%g, %g), want along -x", ax, ay);
}

/* A boid placed on a wall leaves it to either side but does not move along it. */
static void placed_on_a_wall(void) {
    boids_params p = params();
    boids_interact t;
    boids_interact_default(&t, &p);
    boids_obstacle wall = {BOIDS_OBSTACLE_SEGMENT, 100, 50, 100, 150, 0, 0};
    boids_error err;
    boids_interact_add_obstacle(&t, &wall, "test", &err);
    rules_k_d2 k;
    rules_table_d2 tab;
    rules_k_init_d2(&k, &p);
    rules_k_set_interact_d2(&k, &tab, &t);
    const double at[2] = {100, 100};
#define HIT(x1, y1, mx, my)                                                                        \
    rules_hit_d2(&k, &tab.obst[0], at, (double[2]){x1, y1}, (double[2]){mx, my})
    CHECK(!HIT(103, 101, 3, 1), "leaving the wall is blocked");
    CHECK(!HIT(97, 100, -3, 0), "leaving the wall is blocked");
    CHECK(HIT(100, 103, 0, 3), "moving along the wall is free");
#undef HIT
    boids_flock f;
    boids_flock_alloc(&f, 1, &err);
    f.x[0] = f.y[0] = 100, f.vx[0] = 3, f.vy[0] = 0;
    boids_backend *b = boids_cpu_ref_create(&f, &err);
    boids_backend_set_interact(b, &t, &err);
    boids_backend_step(b, &p, 1, &err);
    boids_backend_download(b, &f, &err);
    CHECK(f.x[0] > 100, "a boid on a wall heading off it stays: x %g", f.x[0]);
    boids_backend_destroy(b);
    boids_flock_free(&f);
}

static void too_long_for_the_world(void) {
    boids_params p = params();
    boids_interact t;
    boids_interact_default(&t, &p);
    boids_obstacle wall = {BOIDS_OBSTACLE_SEGMENT, 10, 5, 10, 405, 0, 0}; /* 400 long in 400 */
    boids_error err;
    boids_interact_add_obstacle(&t, &wall, "test", &err);
    boids_flock f;
    boids_flock_alloc(&f, 1, &err);
    f.x[0] = f.y[0] = 100, f.vx[0] = 1, f.vy[0] = 0;
    boids_backend *b = boids_cpu_ref_create(&f, &err);
    boids_backend_set_interact(b, &t, &err);
    boids_status st = boids_backend_step(b, &p, 1, &err);
    CHECK(st == BOIDS_ERR_INPUT && strstr(err.msg, "obstacle 0"),
          "a segment longer than the periodic world allows: status %d, '%s'", (int)st, err.msg);
    p.boundary = BOIDS_BOUNDARY_WALLS; /* only the periodic world limits it */
    CHECK(boids_backend_step(b, &p, 1, &err) == BOIDS_OK, "walls: %s", err.msg);
    boids_backend_destroy(b);
    boids_flock_free(&f);
}

int main(void) {
    each_point_alone();
    every_point_counts();
    index_order();
    avoidance_turns_away();
    placed_on_a_wall();
    too_long_for_the_world();
    return CHECK_DONE("interact_rules_test");
}
