/* SPDX-License-Identifier: MIT */
/* The control ranges of the parameters (a fader's 0..1) and places that follow the world
 * (control.h). */
#include "cli/control.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* The spans a control surface moves over: the panel's where it has a slider (weights 0 to
 * 5, separation radius 0 to 150, field of view 10 to 360), log scales where the presets'
 * values differ by orders of magnitude (Vicsek's world is 10 wide, a murmuration's
 * thousands), positions over the world. docs/osc.md prints this table (`boids osc-map`). */
static const app_control controls[] = {
    {"model", 0, 1, 0, 0},
    {"width", 100, 4000, 0, 0},
    {"height", 100, 4000, 0, 0},
    {"dim", 2, 3, 0, 0},
    {"depth", 100, 4000, 0, 0},
    {"boundary", 0, 2, 0, 0},
    {"wall_margin", 0, 200, 0, 0},
    {"wall_weight", 0, 10, 0, 0},
    {"count", 10, 100000, 1, 0},
    {"initial_speed", 0, 600, 0, 0},
    {"vision_radius", 0.1, 1000, 1, 0},
    {"separation_radius", 0, 150, 0, 0},
    {"fov", 10, 360, 0, 0},
    {"neighbours", 0, 1, 0, 0},
    {"k", 1, 50, 0, 0},
    {"k_in_vision", 0, 1, 0, 0},
    {"max_speed", 1, 600, 0, 0},
    {"min_speed", 0, 600, 0, 0},
    {"max_force", 0, 50, 0, 0},
    {"dt", 0.001, 0.1, 1, 0},
    {"separation_weight", 0, 5, 0, 0},
    {"alignment_weight", 0, 5, 0, 0},
    {"cohesion_weight", 0, 5, 0, 0},
    {"speed", 0.001, 1000, 1, 0},
    {"noise", 0, 2 * M_PI, 0, 0},
    {"noise_seed", 0, 1000000, 0, 0},
    {"noise_type", 0, 1, 0, 0},
    {"alignment", 0, 1, 0, 0},
    {"chirality", -M_PI, M_PI, 0, 0},
    {"field", 0, 10, 0, 0},
    {"field_x", -1, 1, 0, 0},
    {"field_y", -1, 1, 0, 0},
    {"field_z", -1, 1, 0, 0},
    {"predator", 0, 1, 0, 0},
    {"predator_x", 0, 1, 0, 1},
    {"predator_y", 0, 1, 0, 2},
    {"predator_z", 0, 1, 0, 3},
    {"predator_radius", 0, 500, 0, 0},
    {"predator_weight", 0, 10, 0, 0},
    {"food", 0, 1, 0, 0},
    {"food_x", 0, 1, 0, 1},
    {"food_y", 0, 1, 0, 2},
    {"food_z", 0, 1, 0, 3},
    {"food_radius", 0, 500, 0, 0},
    {"food_weight", 0, 10, 0, 0},
    {"avoid_distance", 0, 300, 0, 0},
    {"avoid_weight", 0, 10, 0, 0},
    {"species", 1, BOIDS_MAX_SPECIES, 0, 0},
    {"species_count", 0, 1000, 0, 0},
    {"coupling", 0, 2, 0, 0},
    {"rule", 0, 3, 0, 0},
    {"rule_radius", 0, 500, 0, 0},
    {"rule_weight", 0, 10, 0, 0},
};

/* A species' key (max_speed.2, coupling.0.1) has the control of the key before its first
 * dot. */
const app_control *app_control_find(const char *key) {
    const size_t len = key ? strcspn(key, ".") : 0;
    for (size_t i = 0; key && i < sizeof controls / sizeof controls[0]; i++)
        if (!strncmp(controls[i].key, key, len) && controls[i].key[len] == '\0')
            return &controls[i];
    return NULL;
}

static double axis_side(const boids_params *p, int axis) {
    return axis == 1 ? p->width : axis == 2 ? p->height : p->depth;
}

/* The span of c in p's world. */
static void span(const app_control *c, const boids_params *p, double *lo, double *hi) {
    double s = c->axis ? axis_side(p, c->axis) : 1;
    *lo = c->lo * s;
    *hi = c->hi * s;
}

static int whole(const boids_param_info *info) {
    return info->type != BOIDS_KEY_REAL;
}

boids_status app_control_value(const boids_param_info *info, const boids_params *p, double t,
                               const char *where, char *text, size_t size, boids_error *err) {
    const app_control *c = info ? app_control_find(info->key) : NULL;
    if (!c)
        return boids_error_set(err, BOIDS_ERR_INPUT, "%s: no control range for this key", where);
    if (!(t >= 0 && t <= 1))
        return boids_error_set(err, BOIDS_ERR_INPUT, "%s: %.9g is outside 0 .. 1", where, t);
    double lo, hi;
    span(c, p, &lo, &hi);
    double v = c->log ? lo * pow(hi / lo, t) : lo + t * (hi - lo);
    if (t == 1) v = hi; /* the end exactly, whatever the rounding of the scale */
    if (info->type == BOIDS_KEY_ENUM)
        snprintf(text, size, "%s", info->choices[(int)lround(v)]);
    else if (whole(info))
        snprintf(text, size, "%ld", lround(v));
    else
        snprintf(text, size, "%.17g", v);
    return BOIDS_OK;
}

double app_control_position(const boids_param_info *info, const boids_params *p) {
    const app_control *c = info ? app_control_find(info->key) : NULL;
    if (!c) return 0;
    const char *f = (const char *)p + info->offset;
    double v = info->type == BOIDS_KEY_REAL  ? *(const double *)f
               : info->type == BOIDS_KEY_INT ? (double)*(const long *)f
                                             : (double)*(const int *)f;
    double lo, hi;
    span(c, p, &lo, &hi);
    double t = c->log ? (v > 0 ? log(v / lo) / log(hi / lo) : 0) : (v - lo) / (hi - lo);
    return t > 1 ? 1 : t >= 0 ? t : 0; /* NaN (an empty span) reads as 0 */
}

void app_control_describe(const boids_param_info *info, char *buf, size_t size) {
    const app_control *c = info ? app_control_find(info->key) : NULL;
    if (!c) {
        snprintf(buf, size, "-");
        return;
    }
    static const char *const sides[] = {"", "width", "height", "depth"};
    if (info->type == BOIDS_KEY_ENUM) {
        /* Slashes: the text goes into Markdown tables and CSV fields as it is. */
        size_t n = 0;
        buf[0] = '\0';
        for (int k = 0; info->choices[k] && n < size; k++)
            n += (size_t)snprintf(buf + n, size - n, "%s%s", k ? " / " : "", info->choices[k]);
    } else if (c->axis) {
        snprintf(buf, size, "0 .. %s", sides[c->axis]);
    } else if (c->hi == 2 * M_PI) {
        snprintf(buf, size, "%.6g .. 2 pi", c->lo);
    } else if (c->hi == M_PI && c->lo == -M_PI) {
        snprintf(buf, size, "-pi .. pi");
    } else {
        snprintf(buf, size, "%s%.6g .. %.6g", c->log ? "log " : "", c->lo, c->hi);
    }
}

/* ---- places that follow the world ---------------------------------------------------- */

double app_world_side(const boids_params *p) {
    double s = fmin(p->width, p->height);
    return p->dim == 3 ? fmin(s, p->depth) : s;
}

static void move_point(boids_point *pt, const double k[4]) {
    pt->x *= k[0];
    pt->y *= k[1];
    pt->z *= k[2];
    pt->radius *= k[3];
}

void app_places_move(const app_places *pl, boids_interact *t, const boids_params *from,
                     const boids_params *to) {
    /* Each ratio rounded once: a fraction of the world becomes a place in it exactly when
     * `from` is the unit world. */
    const double k[4] = {to->width / from->width, to->height / from->height,
                         to->depth / from->depth, app_world_side(to) / app_world_side(from)};
    for (int i = 0; i < BOIDS_MAX_POINTS; i++) {
        if (pl->predators[i]) move_point(&t->predators[i], k);
        if (pl->attractors[i]) move_point(&t->attractors[i], k);
    }
    for (int i = 0; i < t->obstacle_count && i < BOIDS_MAX_OBSTACLES; i++) {
        if (!pl->obstacles[i]) continue;
        boids_obstacle *o = &t->obstacles[i];
        o->x0 *= k[0], o->x1 *= k[0];
        o->y0 *= k[1], o->y1 *= k[1];
        o->z0 *= k[2];
        o->radius *= k[3];
    }
}

int app_interact_is_key(const char *key) {
    return boids_interact_is_key(key) || !strcmp(key, "places");
}
