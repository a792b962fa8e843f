/* SPDX-License-Identifier: MIT */
/* `boids verify`: the one-step scenarios. Each is the run's parameters and a random flock with
 * something changed (Reynolds and, from seed 003, the Vicsek model and topological
 * neighbours; walls, the open plane, a field of view, a predator and food, one or two boids)
 * and, for some, boids placed by hand where a backend is likely to go wrong: a dense cluster,
 * the seams and corners of the world, inside an obstacle. The interaction scenarios hand
 * every backend the full interaction table: 16 predators, 16 attractors, circles and
 * segments, or spheres in 3-D. */
#include <math.h>
#include <string.h>

#include "boids/rng.h"
#include "verify/verify_checks.h"

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

int verify_is_scenario(const char *name) {
    return has_item(VERIFY_SCENARIOS, name);
}

boids_status verify_params(const verify_opts *o, const char *preset, long count, boids_params *p,
                           boids_error *err) {
    app_opts a = o->common;
    a.preset = preset;
    a.count = count;
    return app_params(&a, p, err);
}

/* Species (docs/model.md, "Species") on a base of one kind: every constant of a species
 * differs from the others', and the coupling matrix is not all ones. `species`: the hawks
 * preset's pattern in the base's units, a twentieth of the flock (at least 2) hawks (species
 * 1: a third faster, twice the turning force, no alignment or cohesion, coupling 0 to every
 * kind) that chase the nearest boid of species 0 within 4 vision radii and avoid each other
 * within 1.6; species 0 flees hawks within 2; and three tenths a second flock (species 2:
 * 0.7 of the vision, twice the alignment) that weighs species 0 by a half, as species 0
 * weighs it, ignores the hawks' headings, flees them and avoids species 0 within 0.8 vision
 * radii. `vicsek-species`: three kinds of a third each with their own speed, noise and
 * radius, coupled by 0, a half, 1 and 2. A base with species keeps its own. Both with the
 * base's neighbour rule (metric, or topological: the k nearest of any species). */
static void scenario_species(const char *name, boids_params *p, size_t n) {
    if (p->species > 1) return;
    const double r = p->vision_radius;
    for (int s = 0; s < BOIDS_MAX_SPECIES - 1; s++) p->sp[s].count = 0;
    p->species = 3;
    boids_species *a = &p->sp[0], *b = &p->sp[1];
    if (!strcmp(name, "vicsek-species")) {
        a->count = b->count = (long)(n / 3);
        a->speed = 2 * p->speed, a->noise = 0.5 * p->noise, a->vision_radius = 1.5 * r;
        b->speed = 0.5 * p->speed, b->noise = fmin(2 * p->noise, 2 * M_PI);
        b->vision_radius = 0.6 * r;
        const double c[3][3] = {{1, 0.5, 0}, {2, 1, 0.5}, {0, 1, 1}};
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++) p->coupling[i][j] = c[i][j];
        return;
    }
    a->count = (long)(n / 20 > 2 ? n / 20 : 2);
    b->count = (long)(3 * n / 10);
    a->max_speed = 4.0 / 3.0 * p->max_speed, a->min_speed = 2.0 / 3.0 * p->max_speed;
    a->max_force = 2 * p->max_force, a->alignment_weight = a->cohesion_weight = 0;
    b->vision_radius = 0.7 * r, b->alignment_weight = 2 * p->alignment_weight;
    b->separation_radius = fmin(p->separation_radius, 0.35 * r);
    const double c[3][3] = {{1, 0, 0.5}, {0, 0, 0}, {0.5, 0, 1}};
    /* rule, radius (vision radii) and weight of species i towards species j */
    const struct {
        int i, j, rule;
        double radius, weight;
    } rules[] = {{1, 0, BOIDS_RULE_CHASE, 4, 2},
                 {1, 1, BOIDS_RULE_AVOID, 1.6, 1},
                 {0, 1, BOIDS_RULE_FLEE, 2, 4},
                 {2, 1, BOIDS_RULE_FLEE, 2, 3},
                 {2, 0, BOIDS_RULE_AVOID, 0.8, 1}};
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) p->coupling[i][j] = c[i][j];
    for (size_t q = 0; q < sizeof rules / sizeof rules[0]; q++) {
        p->rule[rules[q].i][rules[q].j] = rules[q].rule;
        p->rule_radius[rules[q].i][rules[q].j] = rules[q].radius * r;
        p->rule_weight[rules[q].i][rules[q].j] = rules[q].weight;
    }
}

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
    /* The model menu (docs/model.md): each variant alone, then all four at once. */
    const int menu = !strcmp(name, "vicsek-menu");
    if (menu || !strcmp(name, "vicsek-vectorial")) p->noise_type = BOIDS_NOISE_VECTORIAL;
    if (menu || !strcmp(name, "vicsek-nematic")) p->alignment = BOIDS_ALIGNMENT_NEMATIC;
    if (menu || !strcmp(name, "vicsek-chiral")) p->chirality = 0.3;
    if (menu || !strcmp(name, "vicsek-field")) {
        p->field = 1.5;
        p->field_x = 1, p->field_y = 2, p->field_z = -0.5;
    }
    if (!strcmp(name, "vicsek-walls")) p->boundary = BOIDS_BOUNDARY_WALLS, extra = 16;
    if (!strcmp(name, "vicsek-open")) p->boundary = BOIDS_BOUNDARY_OPEN;
    if (strstr(name, "species")) scenario_species(name, p, *n);
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
int verify_scenario_table(const char *name, const boids_params *p, boids_interact *t) {
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

boids_status verify_make_scenario(const char *name, const boids_params *base, size_t n,
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
        /* Inside circle 0 (verify_scenario_table), one at its centre: expelled by the step. */
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
