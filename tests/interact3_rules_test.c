/* SPDX-License-Identifier: MIT */
/* The interaction table in 3-D acts as README's "Interaction points and obstacles" says:
 *   - a flock in the plane z = D/2 with the table's points at that depth and spheres centred
 *     on it steps to exactly the bits of the planar flock with circles (cpu-ref, wrap and
 *     walls): the 3-D rules are the planar ones with a third axis;
 *   - a boid near any one of the 16 predators, placed below it in z, accelerates away from it
 *     along z; near any one of the 16 attractors, towards it (one step on cpu-ref and cpu);
 *   - avoidance: a boid heading past a sphere turns to the side its look-ahead passes;
 *   - the hard rule: a boid placed inside a sphere ends on the radial 2^-18 of the radius
 *     beyond the surface (double: the first try holds); a move whose ends are both outside
 *     but whose path passes within the radius does not happen, and the velocity is mirrored;
 *   - under wrap a sphere too large for the depth is refused by boids_backend_step. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "boids/backend.h"
#include "check.h"

static boids_params params3(void) {
    boids_params p;
    boids_error err;
    boids_preset_apply(&p, "classic", &err); /* 400 x 400 wrap, per step */
    p.dim = 3;
    p.depth = 400;
    return p;
}

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
        boids_params p2, p3 = params3();
        boids_error err;
        boids_preset_apply(&p2, "classic", &err);
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

/* One step of one boid at (200, 200, 200) moving slowly along +y, with table t: its vz. */
static double one_step_vz(int cpu_ref, const boids_params *p, const boids_interact *t) {
    boids_error err;
    boids_flock f;
    boids_flock_alloc_dim(&f, 1, 3, &err);
    f.x[0] = f.y[0] = f.z[0] = 200;
    f.vx[0] = f.vz[0] = 0;
    f.vy[0] = 1.5;
    boids_flock out = run(&f, p, t, cpu_ref, 1);
    double vz = out.vz[0];
    boids_flock_free(&f), boids_flock_free(&out);
    return vz;
}

static void each_point_alone_along_z(void) {
    boids_params p = params3();
    for (int be = 0; be < 2; be++)
        for (int i = 0; i < BOIDS_MAX_POINTS; i++) {
            boids_interact t;
            boids_interact_default(&t, &p);
            t.predators[i] = (boids_point){1, 200, 200, 50, 1, 190}; /* 10 below the boid */
            double away = one_step_vz(be, &p, &t);
            boids_interact_default(&t, &p);
            t.attractors[i] = (boids_point){1, 200, 200, 50, 1, 190};
            double towards = one_step_vz(be, &p, &t);
            CHECK(away > 0 && towards < 0,
                  "%s point %d: vz %g near a predator below (flees: > 0), %g near an attractor "
                  "(seeks: < 0)",
                  be ? "cpu" : "cpu-ref", i, away, towards);
        }
}

/* A boid at (200, 200, 200) heading along +x at speed 3 towards a sphere centred 5 above its
 * path steers down (its look-ahead passes below the centre), on both CPU backends. */
static void avoidance_turns_away(void) {
    boids_params p = params3();
    boids_interact t;
    boids_interact_default(&t, &p);
    t.obstacle_count = 1;
    t.obstacles[0] = (boids_obstacle){BOIDS_OBSTACLE_SPHERE, 250, 200, 0, 0, 10, 205};
    boids_error err;
    boids_flock f;
    boids_flock_alloc_dim(&f, 1, 3, &err);
    f.x[0] = f.y[0] = f.z[0] = 200;
    f.vx[0] = 3, f.vy[0] = f.vz[0] = 0;
    for (int be = 0; be < 2; be++) {
        boids_flock out = run(&f, &p, &t, be == 0, 1);
        CHECK(out.vz[0] < 0 && out.vy[0] == 0 && out.vx[0] < 3,
              "%s heading past a sphere's lower half: v (%g, %g, %g), want down",
              be ? "cpu" : "cpu-ref", out.vx[0], out.vy[0], out.vz[0]);
        boids_flock_free(&out);
    }
    f.z[0] = 300;
    boids_flock out = run(&f, &p, &t, 1, 1);
    CHECK(out.vz[0] == 0 && out.vx[0] == 3, "far from the sphere: v (%g, %g, %g), want (3, 0, 0)",
          out.vx[0], out.vy[0], out.vz[0]);
    boids_flock_free(&out), boids_flock_free(&f);
}

static void hard_rule(void) {
    boids_params p = params3();
    p.avoid_weight = 0; /* the hard rule alone */
    boids_interact t;
    boids_interact_default(&t, &p);
    t.obstacle_count = 1;
    t.obstacles[0] = (boids_obstacle){BOIDS_OBSTACLE_SPHERE, 200, 200, 0, 0, 20, 200};
    boids_error err;
    boids_flock f;
    boids_flock_alloc_dim(&f, 2, 3, &err);
    /* boid 0 inside, off centre along (1, 2, 2) / 3; boid 1 on a chord 0.5 from a sphere of
     * radius 1: both ends of its step (speed 3) outside, its path within the radius */
    f.x[0] = 203, f.y[0] = 206, f.z[0] = 206, f.vx[0] = 1, f.vy[0] = f.vz[0] = 0;
    f.x[1] = 48.5, f.y[1] = 50, f.z[1] = 50.5, f.vx[1] = 3, f.vy[1] = f.vz[1] = 0;
    t.obstacle_count = 2;
    t.obstacles[1] = (boids_obstacle){BOIDS_OBSTACLE_SPHERE, 50, 50, 0, 0, 1, 50};
    boids_flock out = run(&f, &p, &t, 1, 1);
    const double d[3] = {out.x[0] - 200, out.y[0] - 200, out.z[0] - 200};
    const double want = 20 * (1 + 1.0 / 262144);
    CHECK(fabs(sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]) - want) <= 1e-12 * want &&
              fabs(d[1] - 2 * d[0]) <= 1e-12 * want && fabs(d[2] - 2 * d[0]) <= 1e-12 * want,
          "expelled along the radial to 20 (1 + 2^-18): (%.17g, %.17g, %.17g)", out.x[0], out.y[0],
          out.z[0]);
    CHECK(out.x[1] == 48.5 && out.y[1] == 50 && out.z[1] == 50.5 && out.vx[1] < 0,
          "a chord through the radius is blocked: at (%g, %g, %g), v (%g, %g, %g)", out.x[1],
          out.y[1], out.z[1], out.vx[1], out.vy[1], out.vz[1]);
    boids_flock_free(&out), boids_flock_free(&f);
}

static void too_large_for_the_depth(void) {
    boids_params p = params3();
    p.depth = 100;
    boids_interact t;
    boids_interact_default(&t, &p);
    t.obstacle_count = 1;
    t.obstacles[0] = (boids_obstacle){BOIDS_OBSTACLE_SPHERE, 200, 200, 0, 0, 48, 50};
    boids_error err;
    boids_flock f;
    boids_flock_alloc_dim(&f, 1, 3, &err);
    f.x[0] = f.y[0] = f.z[0] = 10, f.vx[0] = 1, f.vy[0] = f.vz[0] = 0;
    boids_backend *b = boids_cpu_ref_create(&f, &err);
    boids_backend_set_interact(b, &t, &err);
    boids_status st = boids_backend_step(b, &p, 1, &err);
    CHECK(st == BOIDS_ERR_INPUT && strstr(err.msg, "obstacle 0"),
          "a sphere of radius 48 + a step of 3 in a periodic depth of 100: status %d, '%s'",
          (int)st, err.msg);
    p.boundary = BOIDS_BOUNDARY_WALLS; /* only the periodic world limits it */
    CHECK(boids_backend_step(b, &p, 1, &err) == BOIDS_OK, "walls: %s", err.msg);
    boids_backend_destroy(b);
    boids_flock_free(&f);
}

int main(void) {
    plane_as_the_planar_flock();
    each_point_alone_along_z();
    avoidance_turns_away();
    hard_rule();
    too_large_for_the_depth();
    return CHECK_DONE("interact3_rules_test");
}
