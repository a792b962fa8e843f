/* SPDX-License-Identifier: MIT */
/* Every parameter as a fader's 0..1 (the OSC /boids/norm family, docs/osc.md, and the map
 * `boids osc-map` writes), and places that follow the world (the config key
 * `places = relative`: points and obstacles in fractions of the world).
 *
 * A control range is a documented span of a key's values, narrower than the key's valid
 * range (a fader over [0, 1e7] could not be used): t in [0, 1] goes over lo..hi linearly or,
 * for keys marked log, geometrically; integer, boolean and enum keys take the nearest value
 * (an enum its choice by index). Positions (predator_x, food_y, ...) are fractions of the
 * world's side on that axis. */
#ifndef BOIDS_APP_CONTROL_H
#define BOIDS_APP_CONTROL_H

#include <stddef.h>

#include "boids/error.h"
#include "boids/interact.h"
#include "boids/params.h"

typedef struct app_control {
    const char *key;
    double lo, hi;
    int log;  /* 1: geometric from lo to hi (lo > 0) */
    int axis; /* positions: 1 x (width), 2 y (height), 3 z (depth); lo..hi are fractions */
} app_control;

/* The control of a key of boids_param_table; NULL for none (the table has one for each). */
const app_control *app_control_find(const char *key);

/* The value of fader position t (within [0, 1], else BOIDS_ERR_INPUT naming where) as the
 * text boids_params_set reads, in the world of p (positions). */
boids_status app_control_value(const boids_param_info *info, const boids_params *p, double t,
                               const char *where, char *text, size_t size, boids_error *err);

/* Where the key's value in p puts the fader: [0, 1], a value outside the control range at
 * the nearer end. */
double app_control_position(const boids_param_info *info, const boids_params *p);

/* The control range as text: "0 .. 5", "log 0.1 .. 1000", "0 .. width", "0 .. 2 pi",
 * "wrap / walls / open". */
void app_control_describe(const boids_param_info *info, char *buf, size_t size);

/* Which entries of an interaction table follow the world: their positions scale with the
 * world's sides, their radii with its smallest side (depth included in 3-D). */
typedef struct app_places {
    unsigned char predators[BOIDS_MAX_POINTS], attractors[BOIDS_MAX_POINTS];
    unsigned char obstacles[BOIDS_MAX_OBSTACLES];
} app_places;

/* The world's smallest side: width and height, and depth when dim = 3. */
double app_world_side(const boids_params *p);

/* Moves the entries marked in pl from the world of `from` to the world of `to` (the same
 * fraction of each side). */
void app_places_move(const app_places *pl, boids_interact *t, const boids_params *from,
                     const boids_params *to);

/* 1 for the config keys of the interaction table and `places` (every command's
 * config_theirs, beside its own). */
int app_interact_is_key(const char *key);

#endif
