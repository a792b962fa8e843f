/* SPDX-License-Identifier: MIT */
#include "boids/interact.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ini.h"

/* A NULL table or argument: BOIDS_ERR_INPUT naming the function (fn) and the argument. A
 * NULL `where` is the function's name. */
static boids_status null_arg(boids_error *err, const char *fn, const char *what) {
    return boids_error_set(err, BOIDS_ERR_INPUT, "%s: %s is NULL", fn, what);
}

void boids_interact_default(boids_interact *s, const boids_params *p) {
    if (!s) return;
    boids_params d = boids_params_default();
    if (!p) p = &d; /* no error channel: the default parameters' world */
    memset(s, 0, sizeof *s);
    for (int i = 0; i < BOIDS_MAX_POINTS; i++) {
        s->predators[i] = (boids_point){
            0, p->width / 2, p->height / 2, p->predator_radius, p->predator_weight, p->depth / 2};
        s->attractors[i] = (boids_point){
            0, p->width / 2, p->height / 2, p->food_radius, p->food_weight, p->depth / 2};
    }
}

/* "predator.I" / "attractor.I": the point's table and index, or NULL. */
static boids_point *point_of(boids_interact *s, const char *key, int *index) {
    boids_point *table = NULL;
    const char *rest = NULL;
    if (!strncmp(key, "predator.", 9)) table = s->predators, rest = key + 9;
    if (!strncmp(key, "attractor.", 10)) table = s->attractors, rest = key + 10;
    if (!table || *rest < '0' || *rest > '9') return NULL;
    char *end;
    long i = strtol(rest, &end, 10);
    if (*end != '\0' || i < 0 || i >= BOIDS_MAX_POINTS) return NULL;
    *index = (int)i;
    return &table[i];
}

int boids_interact_is_key(const char *key) {
    return key && (!strcmp(key, "obstacle") || !strncmp(key, "predator.", 9) ||
                   !strncmp(key, "attractor.", 10));
}

/* Up to max finite numbers separated by blanks; the count read, or -1 if malformed. */
static int numbers(const char *text, double *out, int max) {
    int n = 0;
    for (;;) {
        while (*text == ' ' || *text == '\t') text++;
        if (*text == '\0') return n;
        if (n == max) return -1;
        char *end;
        errno = 0;
        double v = strtod(text, &end);
        if (end == text || !isfinite(v) || errno == ERANGE) return -1;
        if (*end != '\0' && *end != ' ' && *end != '\t') return -1;
        out[n++] = v;
        text = end;
    }
}

static int within_coord(double v) {
    return fabs(v) <= BOIDS_OPEN_COORD_MAX;
}

boids_status boids_interact_check_point(const boids_point *pt, const char *where,
                                        boids_error *err) {
    if (!where) where = "boids_interact_check_point";
    if (!pt) return null_arg(err, where, "the point");
    if (!isfinite(pt->x) || !isfinite(pt->y) || !isfinite(pt->z))
        return boids_error_set(err, BOIDS_ERR_INPUT, "%s: position (%g, %g, %g) is not finite",
                               where, pt->x, pt->y, pt->z);
    /* Finite in double is not enough: the float backends square offsets, and 1e308 is
     * infinity in float. A boid's own bound in an open world holds for the points too. */
    if (!within_coord(pt->x) || !within_coord(pt->y) || !within_coord(pt->z))
        return boids_error_set(err, BOIDS_ERR_INPUT, "%s: position (%g, %g, %g) is beyond +-%g",
                               where, pt->x, pt->y, pt->z, BOIDS_OPEN_COORD_MAX);
    if (!(pt->radius >= 0 && pt->radius <= 1e7))
        return boids_error_set(err, BOIDS_ERR_INPUT, "%s: radius %g is out of range [0, 1e7]",
                               where, pt->radius);
    if (!(pt->weight >= 0 && pt->weight <= 1000))
        return boids_error_set(err, BOIDS_ERR_INPUT, "%s: weight %g is out of range [0, 1000]",
                               where, pt->weight);
    return BOIDS_OK;
}

static const char *kind_name(int kind) {
    return kind == BOIDS_OBSTACLE_CIRCLE    ? "circle"
           : kind == BOIDS_OBSTACLE_SEGMENT ? "segment"
           : kind == BOIDS_OBSTACLE_SPHERE  ? "sphere"
                                            : "unknown";
}

boids_status boids_interact_check_obstacle(const boids_obstacle *o, const char *where,
                                           boids_error *err) {
    if (!where) where = "boids_interact_check_obstacle";
    if (!o) return null_arg(err, where, "the obstacle");
    if (!isfinite(o->x0) || !isfinite(o->y0) || !isfinite(o->x1) || !isfinite(o->y1) ||
        !isfinite(o->z0))
        return boids_error_set(err, BOIDS_ERR_INPUT, "%s: obstacle coordinates must be finite",
                               where);
    if (!within_coord(o->x0) || !within_coord(o->y0) || !within_coord(o->x1) ||
        !within_coord(o->y1) || !within_coord(o->z0))
        return boids_error_set(err, BOIDS_ERR_INPUT, "%s: obstacle coordinates must be within +-%g",
                               where, BOIDS_OPEN_COORD_MAX);
    const int round = o->kind == BOIDS_OBSTACLE_CIRCLE || o->kind == BOIDS_OBSTACLE_SPHERE;
    if (round && !(o->radius > 0 && o->radius <= 1e7))
        return boids_error_set(err, BOIDS_ERR_INPUT, "%s: %s radius %g is out of range (0, 1e7]",
                               where, kind_name(o->kind), o->radius);
    if (!round && o->kind != BOIDS_OBSTACLE_SEGMENT)
        return boids_error_set(err, BOIDS_ERR_INPUT, "%s: unknown obstacle kind %d", where,
                               o->kind);
    return BOIDS_OK;
}

boids_status boids_interact_add_obstacle(boids_interact *s, const boids_obstacle *o,
                                         const char *where, boids_error *err) {
    if (!where) where = "boids_interact_add_obstacle";
    if (!s || !o) return null_arg(err, where, !s ? "the table" : "the obstacle");
    if (s->obstacle_count < 0)
        return boids_error_set(err, BOIDS_ERR_INPUT,
                               "%s: the table's obstacle count %d is negative", where,
                               s->obstacle_count);
    if (s->obstacle_count >= BOIDS_MAX_OBSTACLES)
        return boids_error_set(err, BOIDS_ERR_INPUT, "%s: more than %d obstacles", where,
                               BOIDS_MAX_OBSTACLES);
    boids_status st = boids_interact_check_obstacle(o, where, err);
    if (st) return st;
    s->obstacles[s->obstacle_count++] = *o;
    return BOIDS_OK;
}

boids_status boids_interact_check(const boids_interact *s, const char *where, boids_error *err) {
    if (!where) where = "boids_interact_check";
    if (!s) return null_arg(err, where, "the table");
    char what[256];
    for (int i = 0; i < 2 * BOIDS_MAX_POINTS; i++) {
        int pred = i < BOIDS_MAX_POINTS, j = i % BOIDS_MAX_POINTS;
        snprintf(what, sizeof what, "%s: %s %d", where, pred ? "predator" : "attractor", j);
        boids_status st =
            boids_interact_check_point(pred ? &s->predators[j] : &s->attractors[j], what, err);
        if (st) return st;
    }
    if (s->obstacle_count < 0 || s->obstacle_count > BOIDS_MAX_OBSTACLES)
        return boids_error_set(err, BOIDS_ERR_INPUT, "%s: obstacle count %d is out of [0, %d]",
                               where, s->obstacle_count, BOIDS_MAX_OBSTACLES);
    for (int i = 0; i < s->obstacle_count; i++) {
        snprintf(what, sizeof what, "%s: obstacle %d", where, i);
        boids_status st = boids_interact_check_obstacle(&s->obstacles[i], what, err);
        if (st) return st;
    }
    return BOIDS_OK;
}

static boids_status set_obstacle(boids_interact *s, const char *value, const char *where,
                                 boids_error *err) {
    while (*value == ' ' || *value == '\t') value++;
    double v[4];
    boids_obstacle o = {0};
    if (!strncmp(value, "circle", 6) && numbers(value + 6, v, 3) == 3) {
        o = (boids_obstacle){BOIDS_OBSTACLE_CIRCLE, v[0], v[1], 0, 0, v[2], 0};
    } else if (!strncmp(value, "segment", 7) && numbers(value + 7, v, 4) == 4) {
        o = (boids_obstacle){BOIDS_OBSTACLE_SEGMENT, v[0], v[1], v[2], v[3], 0, 0};
    } else if (!strncmp(value, "sphere", 6) && numbers(value + 6, v, 4) == 4) {
        o = (boids_obstacle){BOIDS_OBSTACLE_SPHERE, v[0], v[1], 0, 0, v[3], v[2]};
    } else {
        return boids_error_set(err, BOIDS_ERR_INPUT,
                               "%s: obstacle = '%s': expected `circle X Y R` or "
                               "`segment X1 Y1 X2 Y2` (2-D), or `sphere X Y Z R` (3-D)",
                               where, value);
    }
    char what[256]; /* the message names the key, as a parameter's does */
    snprintf(what, sizeof what, "%s: obstacle", where);
    return boids_interact_add_obstacle(s, &o, what, err);
}

boids_status boids_interact_set(boids_interact *s, const char *key, const char *value,
                                const char *where, boids_error *err) {
    if (!where) where = "boids_interact_set";
    if (!s || !key || !value)
        return null_arg(err, where, !s ? "the table" : !key ? "the key" : "the value");
    if (!strcmp(key, "obstacle")) return set_obstacle(s, value, where, err);
    int i;
    boids_point *pt = point_of(s, key, &i);
    if (!pt)
        return boids_error_set(err, BOIDS_ERR_INPUT,
                               "%s: unknown key '%s' (points are predator.I and attractor.I, "
                               "I from 0 to %d)",
                               where, key, BOIDS_MAX_POINTS - 1);
    while (*value == ' ' || *value == '\t') value++;
    if (!strcmp(value, "off")) {
        pt->on = 0;
        return BOIDS_OK;
    }
    double v[5];
    const int n = numbers(value, v, 5);
    if (n != 4 && n != 5)
        return boids_error_set(err, BOIDS_ERR_INPUT,
                               "%s: %s = '%s': expected X Y RADIUS WEIGHT, X Y Z RADIUS WEIGHT "
                               "(3-D) or off",
                               where, key, value);
    /* Four numbers keep the point's z: a planar line means the same in either world. */
    boids_point np = n == 4 ? (boids_point){1, v[0], v[1], v[2], v[3], pt->z}
                            : (boids_point){1, v[0], v[1], v[3], v[4], v[2]};
    char what[256];
    snprintf(what, sizeof what, "%s: %s", where, key);
    if (boids_interact_check_point(&np, what, err)) return err ? err->status : BOIDS_ERR_INPUT;
    *pt = np;
    return BOIDS_OK;
}

/* The points' and obstacles' lines of a config file; its other keys are other readers'. A file
 * whose lines are fractions of the world (`places = relative`, read by the boids commands,
 * which know the world) is refused rather than read as world units. */
static boids_status set_interact(void *user, const char *key, const char *value, const char *where,
                                 boids_error *err) {
    if (!strcmp(key, "places")) {
        while (*value == ' ' || *value == '\t') value++;
        if (strcmp(value, "world"))
            return boids_error_set(err, BOIDS_ERR_INPUT,
                                   "%s: places = %s: this reader takes points and obstacles in "
                                   "world units; the boids commands place relative ones in "
                                   "their world",
                                   where, value);
    }
    if (!boids_interact_is_key(key)) return BOIDS_OK;
    return boids_interact_set(user, key, value, where, err);
}

boids_status boids_interact_load_ini(boids_interact *s, const char *path, boids_error *err) {
    if (!s) return null_arg(err, "boids_interact_load_ini", "the table");
    boids_interact tmp = *s; /* a file that fails half-way changes nothing */
    boids_status st = boids_ini_read(path, set_interact, &tmp, err);
    if (!st) *s = tmp;
    return st;
}

boids_status boids_interact_check_dim(const boids_interact *s, int dim, boids_error *err) {
    if (!s) return null_arg(err, "boids_interact_check_dim", "the table");
    if (s->obstacle_count < 0 || s->obstacle_count > BOIDS_MAX_OBSTACLES)
        return boids_error_set(err, BOIDS_ERR_INPUT,
                               "boids_interact_check_dim: obstacle count %d is out of [0, %d]",
                               s->obstacle_count, BOIDS_MAX_OBSTACLES);
    for (int i = 0; i < s->obstacle_count; i++) {
        const int kind = s->obstacles[i].kind, sphere = kind == BOIDS_OBSTACLE_SPHERE;
        if (dim == 3 && !sphere)
            return boids_error_set(err, BOIDS_ERR_INPUT,
                                   "obstacle %d is a %s, which is planar: a 3-D world takes "
                                   "spheres (obstacle = sphere X Y Z R)",
                                   i, kind_name(kind));
        if (dim != 3 && sphere)
            return boids_error_set(err, BOIDS_ERR_INPUT,
                                   "obstacle %d is a sphere, which needs a 3-D world (dim = 3): "
                                   "a planar world takes circles and segments (obstacle = "
                                   "circle X Y R, obstacle = segment X1 Y1 X2 Y2)",
                                   i);
    }
    return BOIDS_OK;
}

boids_status boids_interact_check_world(const boids_interact *s, const boids_params *p,
                                        boids_error *err) {
    if (!s || !p)
        return null_arg(err, "boids_interact_check_world", !s ? "the table" : "the parameters");
    boids_status st = boids_interact_check_dim(s, p->dim, err);
    if (st || p->boundary != BOIDS_BOUNDARY_WRAP) return st;
    double side = p->width < p->height ? p->width : p->height;
    if (p->dim == 3 && p->depth < side) side = p->depth;
    double step = (p->model == BOIDS_MODEL_VICSEK ? p->speed : p->max_speed) * p->dt;
    for (int i = 0; i < s->obstacle_count; i++) {
        const boids_obstacle *o = &s->obstacles[i];
        int round = o->kind != BOIDS_OBSTACLE_SEGMENT;
        double extent = round ? o->radius : 0.5 * hypot(o->x1 - o->x0, o->y1 - o->y0);
        if (!(extent + step < side / 2))
            return boids_error_set(err, BOIDS_ERR_INPUT,
                                   "obstacle %d: %s %g plus a step (%g) is not below half the "
                                   "smallest side of the periodic world (%g): a step could reach "
                                   "two of its images",
                                   i, round ? "radius" : "half length", extent, step, side / 2);
    }
    return BOIDS_OK;
}
