/* SPDX-License-Identifier: MIT */
/* The interaction points and obstacles of a config file (boids/interact.h): lines parse into
 * the table, bad lines are refused naming file, line and key and change nothing, the same
 * file's parameter lines are left to the parameter reader (and it leaves these), and the
 * first point that is on becomes the rules' single predator and food. */
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

static void bad_lines_are_refused_and_change_nothing(void) {
    static const struct {
        const char *text, *expect;
    } cases[] = {
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
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        boids_params p = boids_params_default();
        boids_interact s, before;
        boids_interact_default(&s, &p);
        /* A good line first: the bad second line must undo it too. */
        char text[512];
        snprintf(text, sizeof text, "obstacle = circle 5 5 5\n%s", cases[i].text);
        const char *path = write_file("bad", text);
        before = s;
        boids_error e;
        CHECK(boids_interact_load_ini(&s, path, &e) == BOIDS_ERR_INPUT, "'%s' accepted",
              cases[i].text);
        CHECK(strstr(e.msg, ":2:") && strstr(e.msg, cases[i].expect), "'%s': message '%s'",
              cases[i].text, e.msg);
        CHECK(!memcmp(&s, &before, sizeof s), "'%s' changed the table", cases[i].text);
    }
    boids_params p = boids_params_default();
    boids_interact s;
    boids_interact_default(&s, &p);
    boids_error e;
    for (int i = 0; i < BOIDS_MAX_OBSTACLES; i++)
        CHECK(boids_interact_set(&s, "obstacle", "circle 1 1 1", "t", &e) == BOIDS_OK, "%d", i);
    CHECK(boids_interact_set(&s, "obstacle", "circle 1 1 1", "t", &e) == BOIDS_ERR_INPUT &&
              strstr(e.msg, "more than 64"),
          "a 65th obstacle: %s", e.msg);
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

int main(void) {
    file_lines_fill_the_table();
    bad_lines_are_refused_and_change_nothing();
    a_backend_takes_only_a_valid_table();
    return CHECK_DONE("interact_test");
}
