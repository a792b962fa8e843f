/* SPDX-License-Identifier: MIT */
/* The interaction points and obstacles of a config file (boids/interact.h): lines parse into
 * the table, bad lines are refused naming file, line and key and change nothing, the same
 * file's parameter lines are left to the parameter reader (and it leaves these), and the
 * first point that is on becomes the rules' single predator and food; the 3-D lines (points
 * with z, spheres) and the refusal of obstacles of the other dimension. */
#include <stdio.h>
#include <string.h>

#include "boids/backend.h"
#include "boids/interact.h"
#include "check.h"

static const char *write_file(const char *name, const char *text) {
    static char path[256];
    snprintf(path, sizeof path, "%s/boids-interact-%s.ini", P_tmpdir, name);
    FILE *f = fopen(path, "w");
    fputs(text, f);
    fclose(f);
    return path;
}

/* The keys the viewer reads besides the parameters from one file (as cmd_view.c says). */
static int viewer_key(const char *key) {
    return boids_interact_is_key(key) || strncmp(key, "view.", 5) == 0;
}

static void file_lines_fill_the_table(void) {
    boids_params p = boids_params_default();
    boids_interact s;
    boids_interact_default(&s, &p);
    const char *path = write_file("good", "alignment_weight = 2\n"
                                          "predator.3 = 10 20 30 4\n"
                                          "attractor.15 = 1.5 2.5 60 0.5\n"
                                          "obstacle = circle 100 200 25\n"
                                          "obstacle = segment 0 0 900 0\n"
                                          "view.background = #000000\n");
    boids_error e;
    CHECK(boids_interact_load_ini(&s, path, &e) == BOIDS_OK, "%s", e.msg);
    CHECK(s.predators[3].on && s.predators[3].x == 10 && s.predators[3].radius == 30 &&
              s.predators[3].weight == 4,
          "predator 3");
    CHECK(!s.predators[0].on, "predator 0 stays off");
    CHECK(s.attractors[15].on && s.attractors[15].y == 2.5, "attractor 15");
    CHECK(s.obstacle_count == 2 && s.obstacles[0].kind == BOIDS_OBSTACLE_CIRCLE &&
              s.obstacles[0].radius == 25 && s.obstacles[1].kind == BOIDS_OBSTACLE_SEGMENT &&
              s.obstacles[1].x1 == 900,
          "obstacles");
    /* Alone, the parameter reader refuses the interaction lines (a command that does not
     * read them must not accept them silently)... */
    CHECK(boids_params_load_ini(&p, path, &e) == BOIDS_ERR_INPUT && strstr(e.msg, "predator.3"),
          "the parameters alone refuse the points: %s", e.msg);
    /* ...and beside the interaction reader it takes its keys and leaves the others. */
    CHECK(boids_params_load_ini_except(&p, path, viewer_key, &e) == BOIDS_OK, "%s", e.msg);
    CHECK(p.alignment_weight == 2, "alignment_weight from the same file");
    CHECK(boids_interact_set(&s, "predator.3", "off", "t", &e) == BOIDS_OK && !s.predators[3].on,
          "off");
}

/* A file of text whose line `line` is bad: s refuses it naming that line and `expect`, and
 * stays as it was. */
static void refused_unchanged(boids_interact *s, const char *text, int line, const char *expect) {
    const boids_interact before = *s;
    const char *path = write_file("bad", text);
    boids_error e;
    char at[16];
    snprintf(at, sizeof at, ":%d:", line);
    CHECK(boids_interact_load_ini(s, path, &e) == BOIDS_ERR_INPUT, "'%s' accepted", text);
    CHECK(strstr(e.msg, at) && strstr(e.msg, expect), "'%s': message '%s'", text, e.msg);
    CHECK(!memcmp(s, &before, sizeof *s), "'%s' changed the table", text);
}

/* A bad line and what its refusal must name. */
typedef struct bad_line {
    const char *text, *expect;
} bad_line;

/* Each of the n bad lines, after the good line `first` ("" for none), is refused by s naming
 * its line and what it expects, and changes nothing. */
static void each_refused(boids_interact *s, const char *first, const bad_line *bad, size_t n) {
    const int line = first[0] ? 2 : 1;
    for (size_t i = 0; i < n; i++) {
        char text[512];
        snprintf(text, sizeof text, "%s%s", first, bad[i].text);
        refused_unchanged(s, text, line, bad[i].expect);
    }
}

static void bad_lines_are_refused_and_change_nothing(void) {
    static const bad_line bad[] = {
        {"predator.16 = 1 2 3 4\n", "predator.16"},
        {"predator.x = 1 2 3 4\n", "predator.x"},
        {"attractor.2 = 1 2 3\n", "expected X Y RADIUS WEIGHT"},
        {"predator.1 = 1 nan 3 4\n", "predator.1"},
        {"predator.1 = 1 2 -3 4\n", "radius -3 is out of range"},
        {"predator.1 = 1 2 3 1001\n", "weight 1001 is out of range"},
        {"obstacle = circle 1 2 0\n", "circle radius 0"},
        {"obstacle = square 1 2 3\n", "expected `circle X Y R`"},
        {"obstacle = segment 1 2 3\n", "segment X1 Y1 X2 Y2"},
        {"obstacle = circle 1 2 3 4\n", "expected `circle X Y R`"},
        /* fractions of the world: the boids commands place them, this reader cannot */
        {"places = relative\n", "places = relative"},
    };
    boids_params p = boids_params_default();
    boids_interact s;
    boids_interact_default(&s, &p);
    /* A good line first: the bad second line must undo it too. */
    each_refused(&s, "obstacle = circle 5 5 5\n", bad, sizeof bad / sizeof bad[0]);
    boids_error e;
    for (int i = 0; i < BOIDS_MAX_OBSTACLES; i++)
        CHECK(boids_interact_set(&s, "obstacle", "circle 1 1 1", "t", &e) == BOIDS_OK, "%d", i);
    CHECK(boids_interact_set(&s, "obstacle", "circle 1 1 1", "t", &e) == BOIDS_ERR_INPUT &&
              strstr(e.msg, "more than 64"),
          "a 65th obstacle: %s", e.msg);
}

/* The 3-D lines: five-number points (X Y Z R W), the four-number form keeping z (the world's
 * middle depth by default), spheres; bad ones refused naming the line, the key and what was
 * expected, and ranges as in the plane. */
static void lines_in_3d(void) {
    boids_params p = boids_params_default();
    p.depth = 300;
    boids_interact s;
    boids_interact_default(&s, &p);
    CHECK(s.predators[4].z == 150 && s.attractors[9].z == 150, "default z: the middle depth");
    const char *path = write_file("good3", "predator.2 = 10 20 30 40 1.5\n"
                                           "attractor.7 = 1 2 3 4\n"
                                           "predator.2 = 11 21 41 2.5\n"
                                           "obstacle = sphere 100 110 120 25\n");
    boids_error e;
    CHECK(boids_interact_load_ini(&s, path, &e) == BOIDS_OK, "%s", e.msg);
    const boids_point *q = &s.predators[2];
    CHECK(q->on && q->x == 11 && q->y == 21 && q->z == 30 && q->radius == 41 && q->weight == 2.5,
          "predator 2: five numbers, then four keep z 30: (%g %g %g) r %g w %g", q->x, q->y, q->z,
          q->radius, q->weight);
    CHECK(s.attractors[7].z == 150 && s.attractors[7].radius == 3, "attractor 7: four numbers");
    const boids_obstacle *o = &s.obstacles[0];
    CHECK(s.obstacle_count == 1 && o->kind == BOIDS_OBSTACLE_SPHERE && o->x0 == 100 &&
              o->y0 == 110 && o->z0 == 120 && o->radius == 25,
          "sphere: kind %d (%g %g %g) r %g", o->kind, o->x0, o->y0, o->z0, o->radius);
    static const bad_line bad[] = {
        {"predator.1 = 1 2 3 4 5 6\n", "X Y Z RADIUS WEIGHT"},
        {"attractor.1 = 1 2 3\n", "X Y Z RADIUS WEIGHT"},
        {"predator.1 = 1 2 nan 4 5\n", "predator.1"},
        {"predator.1 = 1 2 3 -4 5\n", "radius -4 is out of range"},
        {"predator.1 = 1 2 3 4 1001\n", "weight 1001 is out of range"},
        {"obstacle = sphere 1 2 3\n", "`sphere X Y Z R`"},
        {"obstacle = sphere 1 2 3 4 5\n", "`sphere X Y Z R`"},
        {"obstacle = sphere 1 2 3 0\n", "sphere radius 0 is out of range"},
        {"obstacle = sphere 1 2 3 2e7\n", "sphere radius 2e+07 is out of range"},
        {"obstacle = sphere 1 inf 3 4\n", "`sphere X Y Z R`"},
    };
    each_refused(&s, "", bad, sizeof bad / sizeof bad[0]);
}

/* Obstacles of the other dimension are refused where the dimension is known: the world check
 * (params) and the backend (its flock); points are taken by both. The wrap rule in 3-D takes
 * the depth into the smallest side. */
static void dims_and_the_3d_world(void) {
    boids_params p = boids_params_default();
    boids_interact s;
    boids_interact_default(&s, &p);
    s.predators[0].on = 1;
    s.obstacle_count = 2;
    s.obstacles[0] = (boids_obstacle){BOIDS_OBSTACLE_SPHERE, 100, 100, 0, 0, 10, 100};
    s.obstacles[1] = (boids_obstacle){BOIDS_OBSTACLE_CIRCLE, 200, 200, 0, 0, 10, 0};
    boids_error e;
    CHECK(boids_interact_check_world(&s, &p, &e) == BOIDS_ERR_INPUT &&
              strstr(e.msg, "obstacle 0 is a sphere, which needs a 3-D world") &&
              strstr(e.msg, "obstacle = circle X Y R"),
          "a sphere in 2-D: %s", e.msg);
    p.dim = 3;
    CHECK(boids_interact_check_world(&s, &p, &e) == BOIDS_ERR_INPUT &&
              strstr(e.msg, "obstacle 1 is a circle, which is planar: a 3-D world takes spheres "
                            "(obstacle = sphere X Y Z R)"),
          "a circle in 3-D: %s", e.msg);
    s.obstacles[1] = (boids_obstacle){BOIDS_OBSTACLE_SEGMENT, 0, 0, 5, 5, 0, 0};
    CHECK(boids_interact_check_dim(&s, 3, &e) == BOIDS_ERR_INPUT &&
              strstr(e.msg, "obstacle 1 is a segment, which is planar"),
          "a segment in 3-D: %s", e.msg);
    s.obstacle_count = 1;
    CHECK(boids_interact_check_world(&s, &p, &e) == BOIDS_OK, "a sphere in 3-D: %s", e.msg);
    /* wrap: radius + one step (lab: 180 * 1/60 = 3) below half the smallest side, the depth */
    p.width = p.height = 400, p.depth = 100;
    s.obstacles[0].radius = 46.9;
    CHECK(boids_interact_check_world(&s, &p, &e) == BOIDS_OK, "46.9 + 3 < 50: %s", e.msg);
    s.obstacles[0].radius = 47;
    CHECK(boids_interact_check_world(&s, &p, &e) == BOIDS_ERR_INPUT &&
              strstr(e.msg, "obstacle 0: radius 47"),
          "47 + 3 is not below half the depth: %s", e.msg);
    p.boundary = BOIDS_BOUNDARY_WALLS;
    CHECK(boids_interact_check_world(&s, &p, &e) == BOIDS_OK, "walls: no image rule: %s", e.msg);
    /* the backends: a 2-D one refuses the sphere, a 3-D one takes it */
    boids_flock f2, f3;
    boids_flock_alloc(&f2, 3, &e);
    boids_flock_alloc_dim(&f3, 3, 3, &e);
    boids_flock_randomize(&f2, &p, 1);
    boids_flock_randomize(&f3, &p, 1);
    for (int cpu = 0; cpu < 2; cpu++) {
        boids_backend *b2 = cpu ? boids_cpu_create(&f2, 1, &e) : boids_cpu_ref_create(&f2, &e);
        boids_backend *b3 = cpu ? boids_cpu_create(&f3, 1, &e) : boids_cpu_ref_create(&f3, &e);
        CHECK(boids_backend_set_interact(b2, &s, &e) == BOIDS_ERR_INPUT && strstr(e.msg, "2-D") &&
                  strstr(e.msg, "obstacle 0 is a sphere"),
              "a 2-D backend takes a sphere: %s", e.msg);
        CHECK(boids_backend_set_interact(b3, &s, &e) == BOIDS_OK, "a 3-D backend: %s", e.msg);
        boids_backend_destroy(b2);
        boids_backend_destroy(b3);
    }
    boids_flock_free(&f2);
    boids_flock_free(&f3);
}

/* boids_backend_set_interact checks the whole table and keeps the one in use when refused. */
static void a_backend_takes_only_a_valid_table(void) {
    boids_params p = boids_params_default();
    boids_flock f;
    boids_error e;
    CHECK(boids_flock_alloc(&f, 4, &e) == BOIDS_OK, "%s", e.msg);
    boids_flock_randomize(&f, &p, 7);
    boids_backend *b = boids_cpu_ref_create(&f, &e);
    CHECK(b != NULL, "%s", e.msg);
    boids_interact s;
    boids_interact_default(&s, &p);
    CHECK(boids_backend_set_interact(b, &s, &e) == BOIDS_OK, "%s", e.msg);
    CHECK(boids_backend_set_interact(b, NULL, &e) == BOIDS_OK, "NULL clears: %s", e.msg);
    CHECK(boids_backend_set_interact(NULL, &s, &e) == BOIDS_ERR_INPUT, "NULL backend accepted");
    static const char *const bad[] = {"predator 5", "attractor 0", "obstacle 1", "obstacle count"};
    for (int i = 0; i < 4; i++) {
        boids_interact t = s;
        t.obstacle_count = 2;
        t.obstacles[0] = (boids_obstacle){BOIDS_OBSTACLE_CIRCLE, 1, 1, 0, 0, 1, 0};
        t.obstacles[1] = (boids_obstacle){BOIDS_OBSTACLE_SEGMENT, 0, 0, 5, 5, 0, 0};
        if (i == 0) t.predators[5].weight = 1001;
        if (i == 1) t.attractors[0].x = 1.0 / 0.0;
        if (i == 2) t.obstacles[1].kind = 7;
        if (i == 3) t.obstacle_count = BOIDS_MAX_OBSTACLES + 1;
        CHECK(boids_backend_set_interact(b, &t, &e) == BOIDS_ERR_INPUT && strstr(e.msg, bad[i]),
              "bad table %d: %s", i, e.msg);
    }
    boids_backend_destroy(b);
    boids_flock_free(&f);
}

/* Finite is not enough for a point or an obstacle: 1e308 is infinity in float, so a GPU
 * step would turn it into NaN offsets. Beyond a boid's own bound in an open world
 * (BOIDS_OPEN_COORD_MAX) they are refused; at it they are taken. */
static void huge_coordinates_are_refused(void) {
    boids_error e;
    boids_point pt = {1, 1e308, 0.5, 0, 100, 1};
    CHECK(boids_interact_check_point(&pt, "t", &e) == BOIDS_ERR_INPUT && strstr(e.msg, "beyond"),
          "a point at x 1e308: %s", e.msg);
    pt.x = BOIDS_OPEN_COORD_MAX, pt.z = -BOIDS_OPEN_COORD_MAX;
    CHECK(boids_interact_check_point(&pt, "t", &e) == BOIDS_OK, "at the bound: %s", e.msg);
    boids_obstacle o = {BOIDS_OBSTACLE_SEGMENT, 0, 0, 1e300, 5, 0, 0};
    CHECK(boids_interact_check_obstacle(&o, "t", &e) == BOIDS_ERR_INPUT && strstr(e.msg, "within"),
          "a segment to x 1e300: %s", e.msg);
}

int main(void) {
    file_lines_fill_the_table();
    huge_coordinates_are_refused();
    bad_lines_are_refused_and_change_nothing();
    a_backend_takes_only_a_valid_table();
    lines_in_3d();
    dims_and_the_3d_world();
    return CHECK_DONE("interact_test");
}
