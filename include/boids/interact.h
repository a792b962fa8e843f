/* SPDX-License-Identifier: MIT */
/* What an installation puts into the world besides the flock: interaction points
 * (predators that boids flee, attractors they seek) and obstacles (circles and line
 * segments in the plane, spheres in a 3-D world), from the config file; the viewer also
 * moves them over OSC and TUIO. The viewer and `boids render` draw them.
 *
 * Hand-over to the rules: boids_backend_set_interact (backend.h) gives a backend the
 * whole table, which every later step applies on top of the parameters' single predator and
 * food point (in the viewer, the mouse's). Every command reads the table from the same
 * config file as the parameters and hands it to each backend it makes. Every predator and
 * attractor that is on acts, in index order, and every obstacle (look-ahead avoidance, and a
 * hard rule that no boid enters a circle or a sphere or crosses a segment): README,
 * "Interaction points and obstacles".
 *
 * The plane and the box: a point has a z, which a 2-D run ignores; circles and segments are
 * planar and a 3-D run refuses them, spheres are solid and a 2-D run refuses them
 * (boids_interact_check_dim).
 *
 * Every function refuses a NULL table, point, obstacle, key or value with BOIDS_ERR_INPUT
 * (a NULL `where` is named by the function's name), and a table whose obstacle_count is out
 * of [0, BOIDS_MAX_OBSTACLES] wherever it reads the obstacles.
 *
 * Config file lines (the same `key = value` file as the parameters; the parameter reader
 * leaves these keys to boids_interact_load_ini):
 *   predator.I = X Y R W     point I (0 .. 15) on at (X, Y), radius R, weight W; its z is
 *                            kept (the world's middle depth unless a line set it)
 *   predator.I = X Y Z R W   likewise at (X, Y, Z), for a 3-D world
 *   attractor.I = ...        likewise for an attractor (four or five numbers)
 *   predator.I = off         point I off (its position and radius kept)
 *   obstacle = circle X Y R
 *   obstacle = segment X1 Y1 X2 Y2
 *   obstacle = sphere X Y Z R
 * Lengths are world units; a radius is in [0, 1e7], a weight in [0, 1000] (the ranges of
 * predator_radius and predator_weight), positions within +-1e15 (BOIDS_OPEN_COORD_MAX). */
#ifndef BOIDS_INTERACT_H
#define BOIDS_INTERACT_H

#include "boids/api.h"
#include "boids/error.h"
#include "boids/flock.h"
#include "boids/params.h"

BOIDS_BEGIN_DECLS

enum {
    BOIDS_MAX_POINTS = 16,   /* predators, and attractors, at once */
    BOIDS_MAX_OBSTACLES = 64 /* circles, segments and spheres together */
};

/* The z members come last, so that a planar initialiser ({on, x, y, radius, weight}) keeps
 * its meaning (z 0). */
typedef struct boids_point {
    int on;        /* 0 off, 1 acting on the flock */
    double x, y;   /* position, length; within +-BOIDS_OPEN_COORD_MAX (1e15) */
    double radius; /* boids closer than this react, length; [0, 1e7] */
    double weight; /* weight of the flee or seek steering force; [0, 1000] */
    double z;      /* depth of the position, length, as x and y; a 2-D run ignores it */
} boids_point;

typedef enum boids_obstacle_kind {
    BOIDS_OBSTACLE_CIRCLE = 0,  /* 2-D: centre (x0, y0), radius */
    BOIDS_OBSTACLE_SEGMENT = 1, /* 2-D: from (x0, y0) to (x1, y1) */
    BOIDS_OBSTACLE_SPHERE = 2   /* 3-D: centre (x0, y0, z0), radius */
} boids_obstacle_kind;

typedef struct boids_obstacle {
    int kind;      /* boids_obstacle_kind */
    double x0, y0; /* circle, sphere: centre; segment: first end; length */
    double x1, y1; /* segment: second end; length (circle, sphere: 0) */
    double radius; /* circle, sphere: (0, 1e7]; segment: 0 */
    double z0;     /* sphere: the centre's depth, length (circle, segment: 0); last, as
                      boids_point's z */
} boids_obstacle;

typedef struct boids_interact {
    boids_point predators[BOIDS_MAX_POINTS];
    boids_point attractors[BOIDS_MAX_POINTS];
    int obstacle_count; /* [0, BOIDS_MAX_OBSTACLES] */
    boids_obstacle obstacles[BOIDS_MAX_OBSTACLES];
} boids_interact;

/* Every point off at the world's centre (z: depth / 2) with p's predator (food) radius and
 * weight; no obstacles. */
void boids_interact_default(boids_interact *s, const boids_params *p);

/* 1 if key is one of this header's config keys ("obstacle", "predator.I", "attractor.I"). */
int boids_interact_is_key(const char *key);

/* Parses one config line's key and value into s. `where` names the origin in messages
 * ("flock.ini:4", "OSC /boids/obstacle/circle"). Unknown key, index out of 0 .. 15, a
 * malformed or non-finite number, a value out of range, or a 65th obstacle:
 * BOIDS_ERR_INPUT naming where, the key and the value; s is then unchanged. */
boids_status boids_interact_set(boids_interact *s, const char *key, const char *value,
                                const char *where, boids_error *err);

/* Adds an obstacle after checking it (finite coordinates, circle or sphere radius in
 * (0, 1e7]); BOIDS_ERR_INPUT naming where when it is bad or the table is full. Whether its
 * kind suits the world is boids_interact_check_dim's question. */
boids_status boids_interact_add_obstacle(boids_interact *s, const boids_obstacle *o,
                                         const char *where, boids_error *err);

/* Checks a point's fields (a finite position within +-BOIDS_OPEN_COORD_MAX, z included,
 * radius and weight in range). */
boids_status boids_interact_check_point(const boids_point *pt, const char *where, boids_error *err);

/* Checks one obstacle (known kind, finite coordinates within +-BOIDS_OPEN_COORD_MAX,
 * circle or sphere radius in (0, 1e7]). */
boids_status boids_interact_check_obstacle(const boids_obstacle *o, const char *where,
                                           boids_error *err);

/* Checks a whole table: every point (on or off), obstacle_count in [0, BOIDS_MAX_OBSTACLES]
 * and every obstacle; the message names where and the first bad entry ("predator 3"). */
boids_status boids_interact_check(const boids_interact *s, const char *where, boids_error *err);

/* Reads the keys of this header from a `key = value` config file (other keys are the
 * parameters' and are skipped). Starts from s; on any error s is unchanged and err names
 * the file, line and key. A file with `places = relative` (its lines in fractions of the
 * world, which the boids commands place in their world: docs/installation.md) is refused,
 * never read as world units. */
boids_status boids_interact_load_ini(boids_interact *s, const char *path, boids_error *err);

/* Do the table's obstacles suit a world of dimension dim (2 or 3)? Circles and segments are
 * planar, spheres solid: the first obstacle of the other kind gives BOIDS_ERR_INPUT naming
 * it and what to use instead ("obstacle 2 is a circle, which is planar: a 3-D world takes
 * spheres (obstacle = sphere X Y Z R)"). Points suit both (a 2-D run ignores z).
 * (boids_interact_check_world and boids_backend_set_interact check it.) */
boids_status boids_interact_check_dim(const boids_interact *s, int dim, boids_error *err);

/* The table against the world of p: its obstacles suit p->dim (boids_interact_check_dim),
 * and under wrap every obstacle's extent (a circle's or a sphere's radius, half a segment's
 * length) plus one step (max_speed * dt, or speed * dt for Vicsek) is below half the
 * smallest world side (width, height, and depth in 3-D), so that a step reaches one
 * periodic image of it only. BOIDS_ERR_INPUT naming the obstacle and the numbers.
 * (boids_backend_step checks it.) */
boids_status boids_interact_check_world(const boids_interact *s, const boids_params *p,
                                        boids_error *err);

BOIDS_END_DECLS

#endif
