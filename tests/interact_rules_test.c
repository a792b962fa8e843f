/* SPDX-License-Identifier: MIT */
#ifndef RULES_DIM
/* The interaction table's points and obstacles act as README's "Interaction points and
 * obstacles" says, in the plane and in the box (each property below is written once and
 * checked in both, unless it names one):
 *   - a boid near any one of the 16 predators accelerates away from it, near any one of the
 *     16 attractors towards it (one step on cpu-ref and on cpu, each point alone; in the box
 *     the point lies below the boid, along z);
 *   - with all 16 predators (attractors) on, turning any one off changes the acceleration:
 *     every point counts (double and float);
 *   - the terms are summed after the parameters' predator, food and walls, predators then
 *     attractors, each in index order, skipping points that are off: rules_accel's result
 *     is bit for bit that sum formed here from rules_steer (double and float);
 *   - avoidance: a boid heading past a circle (sphere) turns to the side its look-ahead
 *     passes, on cpu-ref and cpu; the plane: one heading at a wall slows along its normal;
 *   - the hard rule: a boid placed inside a circle (sphere) ends on the radial 2^-18 of the
 *     radius beyond the rim (double: the first try holds); a move whose ends are both outside
 *     but whose path passes within the radius does not happen, and the velocity is mirrored;
 *     the plane: a boid placed on a wall may leave it, not move along it;
 *   - under wrap a circle (sphere) too large for the world is refused by boids_backend_step,
 *     and in the plane a segment too long;
 *   - a flock in the plane z = D/2 of the box with the table's points at that depth and
 *     spheres centred on it steps to exactly the bits of the planar flock with circles
 *     (cpu-ref, wrap and walls): the box's rules are the plane's with a third axis.
 *
 * The rules-level checks are written once below `#else` over RULES_DIM and RULES_REAL, and
 * compiled for the four instances (this file includes itself). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "boids/backend.h"
#include "check.h"

/* The classic preset (400 x 400 wrap, per step), in the box 400 deep. */
static boids_params params(int dim) {
    boids_params p;
    boids_error err;
    boids_preset_apply(&p, "classic", &err);
    if (dim == 3) p.dim = 3, p.depth = 400;
    return p;
}

static const char *dim_name(int dim) {
    return dim == 3 ? "box" : "plane";
}

/* The rules checks (below `#else`) in double and float, plane and box. */
#define RULES_INSTANCE_FILE "interact_rules_test.c"
#include "rules_instances.h"
#undef RULES_INSTANCE_FILE

/* ---- one step on the CPU backends ---------------------------------------------------- */

static boids_flock run(const boids_flock *f, const boids_params *p, const boids_interact *t,
                       int cpu_ref, unsigned steps) {
    boids_error err;
    boids_backend *b = cpu_ref ? boids_cpu_ref_create(f, &err) : boids_cpu_create(f, 1, &err);
    CHECK(b && boids_backend_set_interact(b, t, &err) == BOIDS_OK, "set: %s", err.msg);
    CHECK(boids_backend_step(b, p, steps, &err) == BOIDS_OK, "step: %s", err.msg);
    boids_flock out;
    boids_flock_alloc_dim(&out, f->n, boids_flock_dim(f), &err);
    boids_backend_download(b, &out, &err);
    boids_backend_destroy(b);
    return out;
}

/* One boid of a dim-D flock at p with velocity v (the given components, z 0 in the plane). */
static boids_flock one_boid(int dim, const double p[3], const double v[3]) {
    boids_error err;
    boids_flock f;
    boids_flock_alloc_dim(&f, 1, dim, &err);
    f.x[0] = p[0], f.y[0] = p[1], f.vx[0] = v[0], f.vy[0] = v[1];
    if (dim == 3) f.z[0] = p[2], f.vz[0] = v[2];
    return f;
}

/* Component c of boid i's velocity. */
static double vel(const boids_flock *f, size_t i, int c) {
    return c == 0 ? f->vx[i] : c == 1 ? f->vy[i] : f->vz[i];
}

/* A boid at the centre moving slowly along +y, a point 10 from it along the last axis (x in
 * the plane, z in the box): one step flees a predator there (velocity along that axis > 0)
 * and seeks an attractor (< 0). */
static void each_point_alone(int dim) {
    const boids_params p = params(dim);
    const int ax = dim == 3 ? 2 : 0;
    const double at[3] = {200, 200, 200}, v[3] = {0, 1.5, 0};
    double q[3] = {200, 200, 200};
    q[ax] -= 10;
    boids_flock f = one_boid(dim, at, v);
    for (int be = 0; be < 2; be++)
        for (int i = 0; i < BOIDS_MAX_POINTS; i++) {
            double r[2];
            for (int attr = 0; attr < 2; attr++) {
                boids_interact t;
                boids_interact_default(&t, &p);
                (attr ? t.attractors : t.predators)[i] = (boids_point){1, q[0], q[1], 50, 1, q[2]};
                boids_flock out = run(&f, &p, &t, be == 0, 1);
                r[attr] = vel(&out, 0, ax);
                boids_flock_free(&out);
            }
            CHECK(r[0] > 0 && r[1] < 0,
                  "%s, %s point %d: v[%d] %g near a predator (flees: > 0), %g near an attractor "
                  "(seeks: < 0)",
                  dim_name(dim), be ? "cpu" : "cpu-ref", i, ax, r[0], r[1]);
        }
    boids_flock_free(&f);
}

/* A boid at the centre heading along +x at speed 3 towards a circle (sphere) of radius 10
 * centred 50 ahead and 5 off its path along the last axis steers away along that axis (its
 * look-ahead passes on the other side of the centre) and slows, on both CPU backends; 100
 * off the path, it goes on unchanged. */
static void avoidance_turns_away(int dim) {
    const boids_params p = params(dim);
    const int ax = dim - 1;
    boids_interact t;
    boids_interact_default(&t, &p);
    double c[3] = {250, 200, 200};
    c[ax] += 5;
    t.obstacle_count = 1;
    t.obstacles[0] = (boids_obstacle){dim == 3 ? BOIDS_OBSTACLE_SPHERE : BOIDS_OBSTACLE_CIRCLE,
                                      c[0],
                                      c[1],
                                      0,
                                      0,
                                      10,
                                      dim == 3 ? c[2] : 0};
    const double v[3] = {3, 0, 0};
    double at[3] = {200, 200, 200};
    boids_flock f = one_boid(dim, at, v);
    for (int be = 0; be < 2; be++) {
        boids_flock out = run(&f, &p, &t, be == 0, 1);
        int side_ok = dim == 3 ? out.vy[0] == 0 : 1;
        CHECK(vel(&out, 0, ax) < 0 && side_ok && out.vx[0] < 3,
              "%s, %s heading past the obstacle's near half: v (%g, %g), want away along axis %d",
              dim_name(dim), be ? "cpu" : "cpu-ref", out.vx[0], vel(&out, 0, ax), ax);
        boids_flock_free(&out);
    }
    boids_flock_free(&f);
    at[ax] += 100;
    f = one_boid(dim, at, v);
    boids_flock out = run(&f, &p, &t, 1, 1);
    CHECK(vel(&out, 0, ax) == 0 && out.vx[0] == 3, "%s, far from the obstacle: v (%g, %g)",
          dim_name(dim), out.vx[0], vel(&out, 0, ax));
    boids_flock_free(&out), boids_flock_free(&f);
}

/* The hard rule on cpu-ref without avoidance: boid 0 inside a round obstacle of radius 20,
 * off centre along (1, 2, 2) / 3 (the plane: (3, 4) / 5), ends on that radial at
 * 20 (1 + 2^-18); boid 1, on a chord 0.5 from the centre of one of radius 1 (both ends of
 * its step of 3 outside), stays put with its velocity mirrored. */
static void hard_rule(int dim) {
    boids_params p = params(dim);
    p.avoid_weight = 0;
    const boids_obstacle_kind kind = dim == 3 ? BOIDS_OBSTACLE_SPHERE : BOIDS_OBSTACLE_CIRCLE;
    boids_interact t;
    boids_interact_default(&t, &p);
    t.obstacle_count = 2;
    t.obstacles[0] = (boids_obstacle){kind, 200, 200, 0, 0, 20, dim == 3 ? 200 : 0};
    t.obstacles[1] = (boids_obstacle){kind, 50, 50, 0, 0, 1, dim == 3 ? 50 : 0};
    const double u[3] = {dim == 3 ? 1.0 / 3 : 0.6, dim == 3 ? 2.0 / 3 : 0.8, 2.0 / 3};
    boids_error err;
    boids_flock f;
    boids_flock_alloc_dim(&f, 2, dim, &err);
    f.x[0] = 200 + 9 * u[0], f.y[0] = 200 + 9 * u[1], f.vx[0] = 1, f.vy[0] = 0;
    f.x[1] = 48.5, f.y[1] = 50, f.vx[1] = 3, f.vy[1] = 0;
    if (dim == 3) {
        f.z[0] = 200 + 9 * u[2], f.vz[0] = 0;
        f.z[1] = 50.5, f.vz[1] = 0;
    } else {
        f.y[1] = 50.5;
    }
    boids_flock out = run(&f, &p, &t, 1, 1);
    const double d[3] = {out.x[0] - 200, out.y[0] - 200, dim == 3 ? out.z[0] - 200 : 0};
    const double want = 20 * (1 + 1.0 / 262144),
                 len = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    double off = 0; /* the distance of the end from the radial */
    for (int c = 0; c < dim; c++) off = fmax(off, fabs(d[c] - len * u[c]));
    CHECK(fabs(len - want) <= 1e-12 * want && off <= 1e-12 * want,
          "%s: expelled along the radial to 20 (1 + 2^-18): at distance %.17g, %.3g off it",
          dim_name(dim), len, off);
    const int stayed =
        out.x[1] == 48.5 && (dim == 3 ? out.y[1] == 50 && out.z[1] == 50.5 : out.y[1] == 50.5);
    CHECK(stayed && out.vx[1] < 0, "%s: a chord through the radius is blocked: at (%g, %g), vx %g",
          dim_name(dim), out.x[1], out.y[1], out.vx[1]);
    boids_flock_free(&out), boids_flock_free(&f);
}

/* Under wrap boids_backend_step refuses obstacle o in p's world (status and the obstacle's
 * name in the message), and takes it with walls. */
static void refused_under_wrap(int dim, boids_params p, const boids_obstacle *o, const char *what) {
    boids_interact t;
    boids_interact_default(&t, &p);
    t.obstacle_count = 1;
    t.obstacles[0] = *o;
    const double at[3] = {10, 10, 10}, v[3] = {1, 0, 0};
    boids_flock f = one_boid(dim, at, v);
    boids_error err;
    boids_backend *b = boids_cpu_ref_create(&f, &err);
    boids_backend_set_interact(b, &t, &err);
    boids_status st = boids_backend_step(b, &p, 1, &err);
    CHECK(st == BOIDS_ERR_INPUT && strstr(err.msg, "obstacle 0"), "%s, %s: status %d, '%s'",
          dim_name(dim), what, (int)st, err.msg);
    p.boundary = BOIDS_BOUNDARY_WALLS; /* only the periodic world limits it */
    CHECK(boids_backend_step(b, &p, 1, &err) == BOIDS_OK, "%s, walls: %s", dim_name(dim), err.msg);
    boids_backend_destroy(b);
    boids_flock_free(&f);
}

/* A circle (sphere) of radius 48, with a step of 3, in a periodic side of 100 (the plane's
 * height, the box's depth). */
static void too_large_for_the_world(int dim) {
    boids_params p = params(dim);
    if (dim == 3)
        p.depth = 100;
    else
        p.height = 100;
    const boids_obstacle o = {dim == 3 ? BOIDS_OBSTACLE_SPHERE : BOIDS_OBSTACLE_CIRCLE,
                              200,
                              50,
                              0,
                              0,
                              48,
                              dim == 3 ? 50 : 0};
    refused_under_wrap(dim, p, &o, "a round obstacle of radius 48 in a periodic side of 100");
}

/* ---- the plane's segments ------------------------------------------------------------ */

/* A boid heading at a wall across its path slows along the wall's normal. */
static void avoidance_of_a_wall(void) {
    const boids_params p = params(2);
    boids_interact t;
    boids_interact_default(&t, &p);
    t.obstacle_count = 1;
    t.obstacles[0] = (boids_obstacle){BOIDS_OBSTACLE_SEGMENT, 150, 50, 150, 150, 0, 0};
    double a[2];
    accel_xy(&p, &t, 100, 100, 3, 0, a); /* the look-ahead crosses the wall */
    CHECK(a[0] < 0 && a[1] == 0, "heading at a wall: accel (%g, %g), want along -x", a[0], a[1]);
}

/* A boid placed on a wall leaves it to either side but does not move along it. */
static void placed_on_a_wall(void) {
    boids_params p = params(2);
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
    const double v[3] = {3, 0, 0};
    boids_flock f = one_boid(2, (const double[3]){100, 100, 0}, v);
    boids_flock out = run(&f, &p, &t, 1, 1);
    CHECK(out.x[0] > 100, "a boid on a wall heading off it stays: x %g", out.x[0]);
    boids_flock_free(&out), boids_flock_free(&f);
}

static void too_long_for_the_world(void) {
    const boids_obstacle wall = {BOIDS_OBSTACLE_SEGMENT, 10, 5, 10, 405, 0, 0}; /* 400 in 400 */
    refused_under_wrap(2, params(2), &wall, "a segment longer than the periodic world allows");
}

/* ---- the box's plane z = D/2 is the plane -------------------------------------------- */

/* The planar table of the comparison and its 3-D twin at depth z. */
static void twin_tables(const boids_params *p2, double z, boids_interact *t2, boids_interact *t3) {
    boids_interact_default(t2, p2);
    for (int i = 0; i < BOIDS_MAX_POINTS; i++) {
        double a = 0.7 * i;
        t2->predators[i] = (boids_point){1, 200 + 150 * cos(a), 200 + 150 * sin(a), 40, 1.5, z};
        t2->attractors[i] = (boids_point){1, 200 + 90 * sin(a), 200 + 90 * cos(a), 60, 0.5, z};
    }
    const double c[][3] = {{100, 100, 30}, {300, 120, 20}, {0, 0, 25}, {250, 300, 15}};
    *t3 = *t2;
    t2->obstacle_count = t3->obstacle_count = 4;
    for (int i = 0; i < 4; i++) {
        t2->obstacles[i] =
            (boids_obstacle){BOIDS_OBSTACLE_CIRCLE, c[i][0], c[i][1], 0, 0, c[i][2], 0};
        t3->obstacles[i] =
            (boids_obstacle){BOIDS_OBSTACLE_SPHERE, c[i][0], c[i][1], 0, 0, c[i][2], z};
    }
}

static void plane_as_the_planar_flock(void) {
    for (int walls = 0; walls < 2; walls++) {
        boids_params p2 = params(2), p3 = params(3);
        boids_error err;
        p2.count = p3.count = 300;
        if (walls) p2.boundary = p3.boundary = BOIDS_BOUNDARY_WALLS;
        const double z = p3.depth / 2;
        boids_interact t2, t3;
        twin_tables(&p2, z, &t2, &t3);
        boids_flock f2, f3;
        boids_flock_alloc(&f2, 300, &err);
        boids_flock_randomize(&f2, &p2, 5);
        for (int i = 0; i < 10; i++) f2.x[i] = 100 + 2 * i, f2.y[i] = 100 + i; /* in circle 0 */
        boids_flock_alloc_dim(&f3, 300, 3, &err);
        for (size_t i = 0; i < f2.n; i++) {
            f3.x[i] = f2.x[i], f3.y[i] = f2.y[i], f3.vx[i] = f2.vx[i], f3.vy[i] = f2.vy[i];
            f3.z[i] = z, f3.vz[i] = 0;
        }
        boids_flock a = run(&f2, &p2, &t2, 1, 300), b = run(&f3, &p3, &t3, 1, 300);
        int same = 1, flat = 1;
        for (size_t i = 0; i < a.n; i++) {
            same &=
                a.x[i] == b.x[i] && a.y[i] == b.y[i] && a.vx[i] == b.vx[i] && a.vy[i] == b.vy[i];
            flat &= b.z[i] == z && b.vz[i] == 0;
        }
        CHECK(same && flat,
              "%s: a flock in the plane z = D/2 with spheres steps as the plane with circles, "
              "300 steps, bit for bit",
              walls ? "walls" : "wrap");
        boids_flock c = run(&f3, &p3, NULL, 1, 300); /* and the table made a difference */
        CHECK(boids_flock_hash(&c) != boids_flock_hash(&b), "%s: the table changed nothing",
              walls ? "walls" : "wrap");
        boids_flock_free(&c);
        boids_flock_free(&f2), boids_flock_free(&f3), boids_flock_free(&a), boids_flock_free(&b);
    }
}

int main(void) {
    for (int dim = 2; dim <= 3; dim++) {
        each_point_alone(dim);
        avoidance_turns_away(dim);
        hard_rule(dim);
        too_large_for_the_world(dim);
    }
    every_point_counts_d2(params(2));
    every_point_counts_f2(params(2));
    every_point_counts_d3(params(3));
    every_point_counts_f3(params(3));
    index_order_d2(params(2));
    index_order_f2(params(2));
    index_order_d3(params(3));
    index_order_f3(params(3));
    avoidance_of_a_wall();
    placed_on_a_wall();
    too_long_for_the_world();
    plane_as_the_planar_flock();
    return CHECK_DONE("interact_rules_test");
}

#else /* the rules-level checks in RULES_REAL over RULES_DIM */
/* (rules.h's instance: rules_instances.h includes it before this file) */

#define R RULES_REAL
#define D RULES_DIM

/* rules_accel of a boid at p with velocity v and no neighbours, with table t (NULL: none). */
static void RULES_FN(accel)(const boids_params *p, const boids_interact *t, const R pos[D],
                            const R v[D], R a[D]) {
    RULES_FN(rules_k) k;
    RULES_FN(rules_table) tab;
    RULES_FN(rules_k_init)(&k, p);
    RULES_FN(rules_k_set_interact)(&k, &tab, t);
    RULES_FN(rules_acc) s;
    RULES_FN(rules_acc_init)(&s);
    RULES_FN(rules_accel)(&k, &s, pos, v, a);
}

#if D == 2 && !defined(INTERACT_ACCEL_XY)
#define INTERACT_ACCEL_XY
/* accel_d2 for the plane's scalar cases. */
static void accel_xy(const boids_params *p, const boids_interact *t, double x, double y, double vx,
                     double vy, double a[2]) {
    RULES_FN(accel)(p, t, (const double[2]){x, y}, (const double[2]){vx, vy}, a);
}
#endif

/* The table: all 16 predators (or attractors) round the centre at distinct distances,
 * weights and radii, in the box at distinct depths about it. */
static void RULES_FN(ring)(boids_interact *t, const boids_params *p, int attractors) {
    boids_interact_default(t, p);
    for (int i = 0; i < BOIDS_MAX_POINTS; i++) {
        double a = 2 * M_PI * i / BOIDS_MAX_POINTS + 0.1, r = 10 + i;
        boids_point pt = {1,      200 + r * cos(a), 200 + r * sin(a),
                          60 + i, 0.5 + 0.1 * i,    200 + (i % 5) - 2.0};
        if (attractors)
            t->attractors[i] = pt;
        else
            t->predators[i] = pt;
    }
}

/* With a ring on, turning any one point off changes the acceleration. */
static void RULES_FN(every_point_counts)(boids_params p) {
    const R pos[3] = {200, 200, 200}, v[3] = {1, 1, (R)0.5};
    for (int attr = 0; attr < 2; attr++) {
        boids_interact t;
        RULES_FN(ring)(&t, &p, attr);
        R a[D], b[D];
        RULES_FN(accel)(&p, &t, pos, v, a);
        for (int j = 0; j < BOIDS_MAX_POINTS; j++) {
            boids_interact u = t;
            (attr ? u.attractors : u.predators)[j].on = 0;
            RULES_FN(accel)(&p, &u, pos, v, b);
            CHECK(memcmp(a, b, sizeof a) != 0, "%d-D %s %d off: the acceleration does not change",
                  D, attr ? "attractor" : "predator", j);
        }
    }
}

/* rules_accel against the sum formed here: the base acceleration (no table: the parameters'
 * predator, food and walls), then each predator on, then each attractor on, in index order
 * (the weights and radii are exact in float). */
static void RULES_FN(sum_order)(const boids_params *p, const boids_interact *t) {
    const R pos[3] = {205, 195, 203}, vel[3] = {1, -2, (R)0.5};
    RULES_FN(rules_k) k;
    RULES_FN(rules_k_init)(&k, p);
    R acc[D], f[D], d[D], g[D];
    RULES_FN(accel)(p, NULL, pos, vel, acc); /* no table */
    for (int i = 0; i < 2 * BOIDS_MAX_POINTS; i++) {
        int pred = i < BOIDS_MAX_POINTS;
        const boids_point *q = pred ? &t->predators[i] : &t->attractors[i - BOIDS_MAX_POINTS];
        if (!q->on) continue;
        const R at[3] = {(R)q->x, (R)q->y, (R)q->z};
        if (pred)
            RULES_FN(rules_offset)(&k, at, pos, d);
        else
            RULES_FN(rules_offset)(&k, pos, at, d);
        R dist2 = d[0] * d[0];
        for (int c = 1; c < D; c++) dist2 += d[c] * d[c];
        if (!(dist2 < (R)q->radius * (R)q->radius)) continue;
        RULES_FN(rules_steer)(&k, d, vel, f);
        for (int c = 0; c < D; c++) acc[c] += (R)q->weight * f[c];
    }
    RULES_FN(accel)(p, t, pos, vel, g);
    CHECK(memcmp(acc, g, sizeof g) == 0,
          "%d-D, %s: rules_accel (%.17g, %.17g), index-order sum (%.17g, %.17g)", D,
          sizeof(R) == sizeof(float) ? "float" : "double", (double)g[0], (double)g[1],
          (double)acc[0], (double)acc[1]);
}

static void RULES_FN(index_order)(boids_params p) {
    p.boundary = BOIDS_BOUNDARY_WALLS; /* and the walls term before the table's */
    p.predator = 1, p.predator_x = 215, p.predator_y = 190, p.predator_z = 210;
    p.predator_radius = 80;
    p.food = 1, p.food_x = 180, p.food_y = 230, p.food_z = 190, p.food_radius = 80;
    boids_interact t;
    boids_interact_default(&t, &p);
    const int on[] = {15, 2, 7, 0, 9}; /* some on, in no order */
    for (int i = 0; i < 5; i++) {
        double a = on[i];
        t.predators[on[i]] = (boids_point){1, 200 + a, 190 - a / 2, 64, 0.25 * (i + 1), 200 + a};
        t.attractors[on[(i + 2) % 5]] =
            (boids_point){1, 190 + a / 4, 200 + a, 48, 1.5 - 0.25 * i, 210 - a};
    }
    RULES_FN(sum_order)(&p, &t);
    p.wall_margin = 250; /* every wall term on: the order still holds */
    RULES_FN(sum_order)(&p, &t);
}

#undef D
#undef R

#endif
