/* SPDX-License-Identifier: MIT */
#include "boids/params.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "shortest.h"

static const char *const boundary_names[] = {"wrap", "walls", "open", NULL};
static const char *const model_names[] = {"reynolds", "vicsek", NULL};
static const char *const neighbour_names[] = {"metric", "topological", NULL};
static const char *const noise_type_names[] = {"angular", "vectorial", NULL};
static const char *const alignment_names[] = {"polar", "nematic", NULL};
static const char *const rule_names[] = {"none", "avoid", "flee", "chase", NULL};

#define REAL(field, lo, hi, open, unit, doc)                                                       \
    { #field, BOIDS_KEY_REAL, offsetof(boids_params, field), lo, hi, open, unit, doc, NULL }
#define ANY_REAL(field, unit, doc) REAL(field, -HUGE_VAL, HUGE_VAL, 0, unit, doc)

/* Species s's own value of a key (KEY.s, s = 1 .. 3), of the range of the key it mirrors. */
#define SP_REAL(field, s, lo, hi, open, unit)                                                      \
    {                                                                                              \
#field "." #s, BOIDS_KEY_REAL, offsetof(boids_params, sp[s - 1].field), lo, hi, open,      \
            unit, "species " #s ": its " #field, NULL                                              \
    }
#define SPECIES(s)                                                                                 \
    {"species_count." #s,                                                                          \
     BOIDS_KEY_INT,                                                                                \
     offsetof(boids_params, sp[s - 1].count),                                                      \
     0,                                                                                            \
     1e9,                                                                                          \
     0,                                                                                            \
     "boids",                                                                                      \
     "species " #s ": its number of boids, the ids after the lower species' (0: the rest)",        \
     NULL},                                                                                        \
        SP_REAL(speed, s, 0, 1e7, 1, "length/time"),                                               \
        SP_REAL(max_speed, s, 0, 1e7, 1, "length/time"),                                           \
        SP_REAL(min_speed, s, 0, 1e7, 0, "length/time"),                                           \
        SP_REAL(max_force, s, 0, 1e7, 0, "length/time per step"),                                  \
        SP_REAL(vision_radius, s, 0, 1e7, 1, "length"),                                            \
        SP_REAL(separation_radius, s, 0, 1e7, 0, "length"),                                        \
        SP_REAL(separation_weight, s, 0, 1000, 0, ""),                                             \
        SP_REAL(alignment_weight, s, 0, 1000, 0, ""), SP_REAL(cohesion_weight, s, 0, 1000, 0, ""), \
        SP_REAL(noise, s, 0, 2 * M_PI, 0, "radians")

/* The keys of the ordered pair of species (i, j): the coupling and the rule. */
#define PAIR(i, j)                                                                                 \
    {"coupling." #i "." #j,                                                                        \
     BOIDS_KEY_REAL,                                                                               \
     offsetof(boids_params, coupling[i][j]),                                                       \
     0,                                                                                            \
     1000,                                                                                         \
     0,                                                                                            \
     "",                                                                                           \
     "species " #i "'s weight of species " #j " in its alignment and cohesion (Vicsek: heading) "  \
     "sums",                                                                                       \
     NULL},                                                                                        \
        {"rule." #i "." #j,                                                                        \
         BOIDS_KEY_ENUM,                                                                           \
         offsetof(boids_params, rule[i][j]),                                                       \
         0,                                                                                        \
         3,                                                                                        \
         0,                                                                                        \
         "",                                                                                       \
         "species " #i " towards species " #j " (reynolds): none, avoid, flee or chase",           \
         rule_names},                                                                              \
        {"rule_radius." #i "." #j,                                                                 \
         BOIDS_KEY_REAL,                                                                           \
         offsetof(boids_params, rule_radius[i][j]),                                                \
         0,                                                                                        \
         1e7,                                                                                      \
         0,                                                                                        \
         "length",                                                                                 \
         "rule." #i "." #j " acts on species " #j "'s boids closer than this",                     \
         NULL},                                                                                    \
    {                                                                                              \
        "rule_weight." #i "." #j, BOIDS_KEY_REAL, offsetof(boids_params, rule_weight[i][j]), 0,    \
            1000, 0, "", "weight of rule." #i "." #j "'s steering force", NULL                     \
    }
#define PAIRS(i) PAIR(i, 0), PAIR(i, 1), PAIR(i, 2), PAIR(i, 3)
_Static_assert(BOIDS_MAX_SPECIES == 4, "the key table lists species 1 .. 3 and pairs 0 .. 3");

static const boids_param_info table[] = {
    {"model", BOIDS_KEY_ENUM, offsetof(boids_params, model), 0, 1, 0, "",
     "reynolds (three rules) or vicsek (heading alignment with noise)", model_names},
    REAL(width, 0, 1e7, 1, "length", "world width"),
    REAL(height, 0, 1e7, 1, "length", "world height"),
    {"dim", BOIDS_KEY_INT, offsetof(boids_params, dim), 2, 3, 0, "",
     "dimensions: 2 (the plane) or 3 (a width x height x depth box)", NULL},
    REAL(depth, 0, 1e7, 1, "length", "world depth (z); dim = 3 only"),
    {"boundary", BOIDS_KEY_ENUM, offsetof(boids_params, boundary), 0, 2, 0, "",
     "wrap (periodic), walls (closed box) or open (unbounded plane)", boundary_names},
    REAL(wall_margin, 0, 1e7, 0, "length", "walls: distance from an edge where the push starts"),
    REAL(wall_weight, 0, 1000, 0, "", "walls: weight of the inward steering force"),
    {"count", BOIDS_KEY_INT, offsetof(boids_params, count), 1, 1e9, 0, "boids",
     "number of boids N (a state file's N wins)", NULL},
    REAL(initial_speed, 0, 1e7, 0, "length/time", "speed of the random initial velocities"),
    REAL(vision_radius, 0, 1e7, 1, "length", "boids closer than this are neighbours"),
    REAL(separation_radius, 0, 1e7, 0, "length", "neighbours closer than this push away"),
    REAL(fov, 0, 360, 1, "degrees", "field of view centred on the velocity; 360 sees all"),
    {"neighbours", BOIDS_KEY_ENUM, offsetof(boids_params, neighbours), 0, 1, 0, "",
     "metric (within vision_radius) or topological (k nearest)", neighbour_names},
    {"k", BOIDS_KEY_INT, offsetof(boids_params, k), 1, 1000, 0, "boids",
     "topological: number of nearest neighbours", NULL},
    {"k_in_vision", BOIDS_KEY_BOOL, offsetof(boids_params, k_in_vision), 0, 1, 0, "",
     "topological: 1 = the k nearest must also be within vision_radius", NULL},
    REAL(max_speed, 0, 1e7, 1, "length/time", "speed cap; length of every steering target"),
    REAL(min_speed, 0, 1e7, 0, "length/time", "speed floor of moving boids (<= max_speed)"),
    REAL(max_force, 0, 1e7, 0, "length/time per step", "cap on each rule's steering force"),
    REAL(dt, 0, 1000, 1, "time/step", "time per step: position += velocity * dt"),
    REAL(separation_weight, 0, 1000, 0, "", "weight of separation (seed 002: slider x 1.5)"),
    REAL(alignment_weight, 0, 1000, 0, "", "weight of alignment"),
    REAL(cohesion_weight, 0, 1000, 0, "", "weight of cohesion"),
    REAL(speed, 0, 1e7, 1, "length/time", "vicsek: constant speed v0"),
    REAL(noise, 0, 2 * M_PI, 0, "radians",
         "vicsek: eta, heading noise uniform in [-eta/2, eta/2] (vectorial: a strength)"),
    {"noise_seed", BOIDS_KEY_INT, offsetof(boids_params, noise_seed), 0, 9007199254740992.0, 0, "",
     "vicsek: seed of the noise stream (default: the run's --seed)", NULL},
    {"noise_type", BOIDS_KEY_ENUM, offsetof(boids_params, noise_type), 0, 1, 0, "",
     "vicsek: angular, or vectorial (noise * n * a random unit vector joins n headings' sum)",
     noise_type_names},
    {"alignment", BOIDS_KEY_ENUM, offsetof(boids_params, alignment), 0, 1, 0, "",
     "vicsek: polar, or nematic (each heading signed by its dot product with one's own)",
     alignment_names},
    REAL(chirality, -M_PI, M_PI, 0, "radians/step",
         "vicsek: intrinsic turn of the aligned heading, counter-clockwise (about +z in 3-D)"),
    REAL(field, 0, 1000, 0, "headings",
         "vicsek: external field's strength: field * unit(field_x, field_y, field_z) joins the "
         "heading sum"),
    ANY_REAL(field_x, "", "vicsek: external field's direction x (normalised)"),
    ANY_REAL(field_y, "", "vicsek: external field's direction y"),
    ANY_REAL(field_z, "", "vicsek: external field's direction z (dim = 3 only)"),
    {"predator", BOIDS_KEY_BOOL, offsetof(boids_params, predator), 0, 1, 0, "",
     "predator point on (1) or off (0)", NULL},
    ANY_REAL(predator_x, "length", "predator position x"),
    ANY_REAL(predator_y, "length", "predator position y"),
    ANY_REAL(predator_z, "length", "predator position z (dim = 3 only)"),
    REAL(predator_radius, 0, 1e7, 0, "length", "boids closer than this flee"),
    REAL(predator_weight, 0, 1000, 0, "", "weight of the flee steering force"),
    {"food", BOIDS_KEY_BOOL, offsetof(boids_params, food), 0, 1, 0, "",
     "food point on (1) or off (0)", NULL},
    ANY_REAL(food_x, "length", "food position x"),
    ANY_REAL(food_y, "length", "food position y"),
    ANY_REAL(food_z, "length", "food position z (dim = 3 only)"),
    REAL(food_radius, 0, 1e7, 0, "length", "boids closer than this steer to the food"),
    REAL(food_weight, 0, 1000, 0, "", "weight of the seek steering force"),
    REAL(avoid_distance, 0, 1e7, 0, "length",
         "obstacles: look-ahead along the velocity for avoidance"),
    REAL(avoid_weight, 0, 1000, 0, "", "obstacles: weight of the avoidance steering force"),
    {"species", BOIDS_KEY_INT, offsetof(boids_params, species), 1, BOIDS_MAX_SPECIES, 0, "kinds",
     "number of species S (1: one kind); species 0 moves by the keys above; S > 1: the "
     "cpu backend steps with its scalar kernel",
     NULL},
    SPECIES(1),
    SPECIES(2),
    SPECIES(3),
    PAIRS(0),
    PAIRS(1),
    PAIRS(2),
    PAIRS(3),
};

const boids_param_info *boids_param_table(size_t *count) {
    if (count) *count = sizeof table / sizeof table[0];
    return table;
}

const boids_param_info *boids_param_find(const char *key) {
    if (!key) return NULL;
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (strcmp(table[i].key, key) == 0) return &table[i];
    return NULL;
}

/* Species 1 .. 3 take species 0's values of the model's keys (their counts stay). */
static void species_inherit(boids_params *p) {
    for (int s = 0; s < BOIDS_MAX_SPECIES - 1; s++) {
        boids_species *q = &p->sp[s];
        q->speed = p->speed;
        q->max_speed = p->max_speed;
        q->min_speed = p->min_speed;
        q->max_force = p->max_force;
        q->vision_radius = p->vision_radius;
        q->separation_radius = p->separation_radius;
        q->separation_weight = p->separation_weight;
        q->alignment_weight = p->alignment_weight;
        q->cohesion_weight = p->cohesion_weight;
        q->noise = p->noise;
    }
}

boids_params boids_params_of_species(const boids_params *p, int s) {
    if (!p) return boids_params_default();
    boids_params o = *p;
    if (s < 1 || s >= BOIDS_MAX_SPECIES) return o;
    const boids_species *q = &p->sp[s - 1];
    o.speed = q->speed;
    o.max_speed = q->max_speed;
    o.min_speed = q->min_speed;
    o.max_force = q->max_force;
    o.vision_radius = q->vision_radius;
    o.separation_radius = q->separation_radius;
    o.separation_weight = q->separation_weight;
    o.alignment_weight = q->alignment_weight;
    o.cohesion_weight = q->cohesion_weight;
    o.noise = q->noise;
    return o;
}

int boids_species_of(const boids_params *p, unsigned long long id) {
    unsigned long long end = 0;
    if (!p) return 0;
    for (int s = 1; s < p->species && s < BOIDS_MAX_SPECIES; s++) {
        end += p->sp[s - 1].count > 0 ? (unsigned long long)p->sp[s - 1].count : 0;
        if (id < end) return s;
    }
    return 0;
}

double boids_params_reach(const boids_params *p) {
    if (!p) return 0;
    double r = p->vision_radius;
    const int n = p->species < 1                   ? 1
                  : p->species > BOIDS_MAX_SPECIES ? BOIDS_MAX_SPECIES
                                                   : (int)p->species;
    if (n == 1) return r;
    for (int i = 0; i < n; i++) {
        if (i) r = fmax(r, p->sp[i - 1].vision_radius);
        if (p->model != BOIDS_MODEL_REYNOLDS) continue;
        for (int j = 0; j < n; j++)
            if (p->rule[i][j] != BOIDS_RULE_NONE) r = fmax(r, p->rule_radius[i][j]);
    }
    return r;
}

boids_params boids_params_default(void) {
    boids_params p = {0};
    p.width = 900;
    p.height = 560;
    p.dim = 2;
    p.depth = 560; /* a box as deep as it is high: the smaller side of the plane */
    p.boundary = BOIDS_BOUNDARY_WRAP;
    p.wall_margin = 50;
    p.wall_weight = 2;
    p.count = 1500;
    p.initial_speed = 120; /* midway between min and max speed */
    p.vision_radius = 50;
    p.separation_radius = 20;
    p.fov = 360;
    p.max_speed = 180;
    p.min_speed = 60;  /* max / 3 */
    p.max_force = 6;   /* max / 30 */
    p.dt = 1.0 / 60.0; /* the lab draws at 60 frames per second */
    p.separation_weight = 1.5;
    p.alignment_weight = 1;
    p.cohesion_weight = 1;
    p.predator_x = p.width / 2;
    p.predator_y = p.height / 2;
    p.predator_z = p.depth / 2;
    p.predator_radius = 160;
    p.predator_weight = 3;
    p.food_x = p.width / 2;
    p.food_y = p.height / 2;
    p.food_z = p.depth / 2;
    p.food_radius = 160;
    p.food_weight = 1;
    /* Two vision radii ahead: at the lab's 3 length units a step, about 33 steps to turn. */
    p.avoid_distance = 100;
    p.avoid_weight = 3;
    p.model = BOIDS_MODEL_REYNOLDS;
    p.neighbours = BOIDS_NEIGHBOURS_METRIC;
    p.k = 7; /* Ballerini et al. 2008: six to seven */
    p.speed = 120;
    p.noise = 0;
    p.field_x = 1; /* a field switched on with `field` alone points along +x */
    p.species = 1;
    for (int i = 0; i < BOIDS_MAX_SPECIES; i++)
        for (int j = 0; j < BOIDS_MAX_SPECIES; j++) {
            p.coupling[i][j] = 1;
            p.rule_radius[i][j] = p.separation_radius;
            p.rule_weight[i][j] = 1;
        }
    species_inherit(&p);
    return p;
}

static void *field(boids_params *p, const boids_param_info *info) {
    return (char *)p + info->offset;
}
static const void *cfield(const boids_params *p, const boids_param_info *info) {
    return (const char *)p + info->offset;
}

/* A bound as the shortest text that reads back as the same double (1e+07, 360; 2 pi is
 * 6.283185307179586, so `noise = 6.28319` is visibly above it). */
static void format_bound(double v, char *buf, size_t size) {
    shortest_double(v, buf, size);
}

void boids_param_range(const boids_param_info *info, char *buf, size_t size) {
    if (!buf || size == 0) return;
    buf[0] = '\0';
    if (!info) return;
    char lo[32], hi[32];
    format_bound(info->min, lo, sizeof lo);
    format_bound(info->max, hi, sizeof hi);
    snprintf(buf, size, "%s%s, %s]", info->min_open ? "(" : "[", lo, hi);
}

static boids_status range_error(const boids_param_info *info, const char *where, const char *value,
                                boids_error *err) {
    char range[72];
    boids_param_range(info, range, sizeof range);
    return boids_error_set(err, BOIDS_ERR_INPUT, "%s: %s = %s is out of range: expected %s", where,
                           info->key, value, range);
}

static boids_status check_range(const boids_param_info *info, double v, const char *where,
                                const char *text, boids_error *err) {
    if (info->min == -HUGE_VAL) return BOIDS_OK; /* any finite value */
    if (v < info->min || (info->min_open && v == info->min) || v > info->max)
        return range_error(info, where, text, err);
    return BOIDS_OK;
}

/* INT keys compare as integers: near 2^53 (noise_seed) a double comparison would round
 * 2^53 + 1 down to the bound and accept it. The bounds are integers below 2^63. */
static int int_in_range(const boids_param_info *info, long long v) {
    return v >= (long long)info->min && v <= (long long)info->max;
}

boids_status boids_params_set(boids_params *p, const char *key, const char *value,
                              const char *where, boids_error *err) {
    if (!where) where = "boids_params_set";
    if (!p || !key || !value)
        return boids_error_set(err, BOIDS_ERR_INPUT, "%s: %s is NULL", where,
                               !p     ? "the parameters"
                               : !key ? "the key"
                                      : "the value");
    const boids_param_info *info = boids_param_find(key);
    if (!info)
        return boids_error_set(err, BOIDS_ERR_INPUT,
                               "%s: unknown key '%s' (`boids params` lists the keys)", where, key);
    while (*value == ' ' || *value == '\t') value++;
    if (*value == '\0')
        return boids_error_set(err, BOIDS_ERR_INPUT, "%s: %s has an empty value", where, key);
    char *end;
    switch (info->type) {
    case BOIDS_KEY_REAL: {
        errno = 0;
        double v = strtod(value, &end);
        while (*end == ' ' || *end == '\t') end++;
        if (end == value || *end != '\0')
            return boids_error_set(err, BOIDS_ERR_INPUT, "%s: %s = '%s' is not a number", where,
                                   key, value);
        if (!isfinite(v) && errno != ERANGE)
            return boids_error_set(err, BOIDS_ERR_INPUT, "%s: %s = '%s' is not a finite number",
                                   where, key, value);
        /* strtod also flags a subnormal result, which is exact enough to keep; only an
         * overflow (to +-HUGE_VAL) or an underflow to zero loses the number written. */
        if (errno == ERANGE && (isinf(v) || v == 0))
            return boids_error_set(err, BOIDS_ERR_INPUT,
                                   "%s: %s = %s is out of range: too %s for a double", where, key,
                                   value, v == 0 ? "small (it underflows to 0)" : "large");
        boids_status s = check_range(info, v, where, value, err);
        if (s) return s;
        *(double *)field(p, info) = v;
        return BOIDS_OK;
    }
    case BOIDS_KEY_INT: {
        errno = 0;
        long long v = strtoll(value, &end, 10);
        while (*end == ' ' || *end == '\t') end++;
        if (end == value || *end != '\0')
            return boids_error_set(err, BOIDS_ERR_INPUT, "%s: %s = '%s' is not an integer", where,
                                   key, value);
        if (errno == ERANGE || !int_in_range(info, v)) return range_error(info, where, value, err);
        *(long *)field(p, info) = (long)v;
        return BOIDS_OK;
    }
    case BOIDS_KEY_BOOL: {
        static const char *yes[] = {"1", "true", "on", "yes"}, *no[] = {"0", "false", "off", "no"};
        for (int i = 0; i < 4; i++) {
            if (strcasecmp(value, yes[i]) == 0) return *(int *)field(p, info) = 1, BOIDS_OK;
            if (strcasecmp(value, no[i]) == 0) return *(int *)field(p, info) = 0, BOIDS_OK;
        }
        return boids_error_set(err, BOIDS_ERR_INPUT, "%s: %s = '%s' is not a boolean (0 or 1)",
                               where, key, value);
    }
    case BOIDS_KEY_ENUM:
        for (int i = 0; info->choices[i]; i++)
            if (strcmp(value, info->choices[i]) == 0) return *(int *)field(p, info) = i, BOIDS_OK;
        {
            char list[128] = "";
            for (int i = 0; info->choices[i]; i++) {
                if (i) strncat(list, ", ", sizeof list - strlen(list) - 1);
                strncat(list, info->choices[i], sizeof list - strlen(list) - 1);
            }
            return boids_error_set(err, BOIDS_ERR_INPUT, "%s: %s = '%s' is not one of: %s", where,
                                   key, value, list);
        }
    }
    return boids_error_set(err, BOIDS_ERR_INPUT, "%s: %s: unsupported key type", where, key);
}

void boids_params_format(const boids_params *p, const boids_param_info *info, char *buf,
                         size_t size) {
    if (!buf || size == 0) return;
    buf[0] = '\0';
    if (!p || !info) return;
    switch (info->type) {
    case BOIDS_KEY_REAL: /* the shortest text that reads back: 0.03, not 0.029999999999999999 */
        shortest_double(*(const double *)cfield(p, info), buf, size);
        break;
    case BOIDS_KEY_INT:
        snprintf(buf, size, "%ld", *(const long *)cfield(p, info));
        break;
    case BOIDS_KEY_BOOL:
        snprintf(buf, size, "%d", *(const int *)cfield(p, info));
        break;
    case BOIDS_KEY_ENUM: { /* a value beyond the choices (a struct filled by hand): its number */
        int v = *(const int *)cfield(p, info), n = 0;
        while (info->choices && info->choices[n]) n++;
        if (v >= 0 && v < n)
            snprintf(buf, size, "%s", info->choices[v]);
        else
            snprintf(buf, size, "%d", v);
        break;
    }
    }
}

boids_status boids_params_validate(const boids_params *p, boids_error *err) {
    if (!p) return boids_error_set(err, BOIDS_ERR_INPUT, "parameters: NULL");
    char text[64];
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        const boids_param_info *info = &table[i];
        double v;
        switch (info->type) {
        case BOIDS_KEY_REAL:
            v = *(const double *)cfield(p, info);
            break;
        case BOIDS_KEY_INT:
            v = (double)*(const long *)cfield(p, info);
            break;
        default:
            v = (double)*(const int *)cfield(p, info);
            break;
        }
        if (info->type == BOIDS_KEY_ENUM) {
            if (v < 0 || v > info->max)
                return boids_error_set(err, BOIDS_ERR_INPUT, "parameters: %s has no valid value",
                                       info->key);
            continue;
        }
        /* Every step validates its parameters: the value's text is made only for a message
         * (formatting every key took ~14 us, far more than the checks). */
        if (isfinite(v) && !check_range(info, v, "parameters", "", NULL)) continue;
        boids_params_format(p, info, text, sizeof text);
        if (!isfinite(v))
            return boids_error_set(err, BOIDS_ERR_INPUT, "parameters: %s = %s is not finite",
                                   info->key, text);
        if (info->type == BOIDS_KEY_INT && !int_in_range(info, *(const long *)cfield(p, info)))
            return range_error(info, "parameters", text, err);
        if (info->type != BOIDS_KEY_ENUM && check_range(info, v, "parameters", text, err))
            return err ? err->status : BOIDS_ERR_INPUT;
    }
    if (p->min_speed > p->max_speed)
        return boids_error_set(err, BOIDS_ERR_INPUT,
                               "parameters: min_speed = %g is above max_speed = %g", p->min_speed,
                               p->max_speed);
    if (p->separation_radius > p->vision_radius)
        return boids_error_set(err, BOIDS_ERR_INPUT,
                               "parameters: separation_radius = %g is above vision_radius = %g "
                               "(separation only acts on boids within vision)",
                               p->separation_radius, p->vision_radius);
    if (p->field > 0 && p->field_x == 0 && p->field_y == 0 && (p->dim != 3 || p->field_z == 0))
        return boids_error_set(err, BOIDS_ERR_INPUT,
                               "parameters: field = %g has no direction: field_x, field_y%s are "
                               "all 0",
                               p->field, p->dim == 3 ? " and field_z" : "");
    double fastest = p->model == BOIDS_MODEL_VICSEK ? p->speed : p->max_speed;
    for (int s = 1; s < p->species; s++) {
        const boids_species *q = &p->sp[s - 1];
        if (q->min_speed > q->max_speed)
            return boids_error_set(err, BOIDS_ERR_INPUT,
                                   "parameters: min_speed.%d = %g is above max_speed.%d = %g", s,
                                   q->min_speed, s, q->max_speed);
        if (q->separation_radius > q->vision_radius)
            return boids_error_set(err, BOIDS_ERR_INPUT,
                                   "parameters: separation_radius.%d = %g is above "
                                   "vision_radius.%d = %g",
                                   s, q->separation_radius, s, q->vision_radius);
        fastest = fmax(fastest, p->model == BOIDS_MODEL_VICSEK ? q->speed : q->max_speed);
    }
    double side = p->width < p->height ? p->width : p->height;
    if (p->dim == 3 && p->depth < side) side = p->depth;
    double step = fastest * p->dt;
    if (p->boundary != BOIDS_BOUNDARY_OPEN && step >= side / 2)
        return boids_error_set(err, BOIDS_ERR_INPUT,
                               "parameters: %s * dt = %g must be below half the smallest "
                               "world side%s (%g): one step may not cross half the world",
                               p->model == BOIDS_MODEL_VICSEK ? "speed" : "max_speed", step,
                               p->dim == 3 ? " (depth included)" : "", side / 2);
    return BOIDS_OK;
}

/* ---- presets ------------------------------------------------------------------------- */

static void preset_lab(boids_params *p) {
    *p = boids_params_default();
}

static void preset_flock(boids_params *p) {
    /* Reynolds' birds do not see straight behind them: a 270 degree field of view keeps
     * the flock cohesive but lets it split and merge around its edges. */
    *p = boids_params_default();
    p->fov = 270;
}

/* The fields a Reynolds preset changes of the lab's defaults to give its look, in the order
 * the presets below write their values: the rules' weights (alignment, cohesion,
 * separation), the radii (vision, separation), the speeds (max, min, initial), the turning
 * force and the field of view. */
static const size_t look_fields[] = {
    offsetof(boids_params, alignment_weight),  offsetof(boids_params, cohesion_weight),
    offsetof(boids_params, separation_weight), offsetof(boids_params, vision_radius),
    offsetof(boids_params, separation_radius), offsetof(boids_params, max_speed),
    offsetof(boids_params, min_speed),         offsetof(boids_params, initial_speed),
    offsetof(boids_params, max_force),         offsetof(boids_params, fov)};
enum { LOOK_FIELDS = sizeof look_fields / sizeof look_fields[0] };

static void preset_look(boids_params *p, const double look[LOOK_FIELDS]) {
    *p = boids_params_default();
    for (size_t i = 0; i < LOOK_FIELDS; i++) *(double *)((char *)p + look_fields[i]) = look[i];
}

static void preset_classic(boids_params *p) {
    /* Seed 000 exactly: everything per step (dt = 1). */
    preset_look(p, (const double[LOOK_FIELDS]){1, 1, 1.5, 50, 20, 3, 1.5, 2, 0.05, 360});
    p->width = p->height = 400;
    p->count = 80;
    p->dt = 1;
    p->wall_margin = 20;
    p->predator_x = p->food_x = 200;
    p->predator_y = p->food_y = 200;
    p->depth = 400;
    p->predator_z = p->food_z = 200;
    p->predator_radius = p->food_radius = 80;
}

static void preset_school(boids_params *p) {
    /* Fish schools: strong alignment, close spacing and a narrow speed band make long
     * polarised columns that turn together. */
    preset_look(p, (const double[LOOK_FIELDS]){2.5, 0.8, 1.5, 40, 12, 150, 110, 130, 8, 300});
}

static void preset_swarm(boids_params *p) {
    /* Insect swarms: no alignment, strong cohesion: the boids seek each other but copy no
     * heading, so they form dense buzzing clouds with order near 0. */
    preset_look(p, (const double[LOOK_FIELDS]){0, 2, 1.5, 60, 10, 140, 40, 90, 12, 360});
}

static void preset_chaos(boids_params *p) {
    /* A gas: only separation, at high speed. No group forms and headings stay random, so
     * the order stays at the 1/sqrt(N) level of independent headings. */
    preset_look(p, (const double[LOOK_FIELDS]){0, 0, 3, 30, 25, 240, 160, 200, 20, 360});
}

static void preset_murmuration(boids_params *p) {
    /* Starlings over a roost (issue 15): one dense 3-D flock with topological neighbours, the
     * k = 7 nearest at any distance as Ballerini et al. (2008) measured in real flocks
     * (limited to the vision radius, the flock broke into dozens of small clouds), a wide
     * field of view and a narrow speed band; the food point is the roost, a weak pull
     * reaching the whole box, and the predator is the falcon the viewer and `boids render`
     * send diving through it (src/app/render/dive.h). The weights make it one body rather than a
     * cloud of clumps: cohesion towards the 7 nearest, stronger than separation, pulled each
     * bird's neighbours in until they sat inside the separation radius (nearest-neighbour
     * distance 5 to 8 against a radius of 12) in clumps of about eight, while the roost
     * gathered the clumps into a loose cloud; with separation over a radius of 15 stronger
     * than cohesion and alignment the strongest rule the spacing stays even (nearest
     * distance 9 to 13) and the flock moves as one, the border birds held by cohesion
     * alone. A larger turning force lets the flock wheel and fold as a whole, and a wide
     * wall margin turns it before it flattens on a wall. 20,000 boids: the cpu grid steps
     * them at 30 to 60 ms a step on the 2-core development machine. */
    preset_look(p, (const double[LOOK_FIELDS]){2, 1, 2, 60, 15, 180, 120, 150, 8, 300});
    p->dim = 3;
    p->count = 20000;
    p->width = 1600;
    p->height = 1000;
    p->depth = 1200;
    p->boundary = BOIDS_BOUNDARY_WALLS;
    p->wall_margin = 200;
    p->neighbours = BOIDS_NEIGHBOURS_TOPOLOGICAL;
    p->k = 7;
    p->k_in_vision = 0;
    p->food = 1;
    p->food_x = p->width / 2;
    p->food_y = p->height * 0.55;
    p->food_z = p->depth / 2;
    p->food_radius = 2000;
    p->food_weight = 0.3;
    p->predator = 1;
    p->predator_x = p->food_x;
    p->predator_y = p->food_y;
    p->predator_z = p->food_z;
    p->predator_radius = 140;
    p->predator_weight = 4;
}

static void preset_vicsek(boids_params *p) {
    /* Vicsek et al. 1995: density 4 in a periodic square, v0 = 0.03, R = 1, dt = 1. */
    *p = boids_params_default();
    p->model = BOIDS_MODEL_VICSEK;
    p->count = 400;
    p->width = p->height = 10; /* sqrt(400 / 4) */
    p->depth = 10;
    p->vision_radius = 1;
    p->separation_radius = 0;
    p->speed = 0.03;
    p->initial_speed = 0.03;
    p->noise = 2;
    p->dt = 1;
    p->max_speed = 0.03;
    p->min_speed = 0;
}

static void preset_chate(boids_params *p) {
    /* Gregoire and Chate 2004, Chate, Ginelli, Gregoire and Raynaud 2008: vectorial noise
     * (noise * n * xi added to the sum of the n headings), v0 = 0.5, R = 1, dt = 1, at
     * density 2: 2048 agents in a periodic square of side 32. */
    preset_vicsek(p);
    p->noise_type = BOIDS_NOISE_VECTORIAL;
    p->count = 2048;
    p->width = p->height = p->depth = 32;
    p->speed = p->initial_speed = p->max_speed = 0.5;
    p->noise = 0.5;
}

static void preset_hawks(boids_params *p) {
    /* Seed 000's hawk as agents (issue 32): the lab's flock (species 0) and three hawks
     * (species 1, ids 0..2) a third faster, with a stronger turn, that ignore the flock's
     * headings and each other's (coupling 0, no alignment or cohesion of their own) and chase
     * the nearest boid within 200; the flock does not align with them (coupling.0.1 0) and
     * flees any hawk within 100, harder than it keeps its spacing. The hawks avoid one another
     * within 80 so that they hunt apart. */
    *p = boids_params_default();
    p->species = 2;
    boids_species *h = &p->sp[0];
    *h = (boids_species){.count = 3,
                         .speed = p->speed,
                         .max_speed = 240,
                         .min_speed = 120,
                         .max_force = 10,
                         .vision_radius = p->vision_radius,
                         .separation_radius = p->separation_radius,
                         .separation_weight = 1.5};
    p->coupling[0][1] = p->coupling[1][0] = p->coupling[1][1] = 0;
    p->rule[1][0] = BOIDS_RULE_CHASE;
    p->rule_radius[1][0] = 200;
    p->rule_weight[1][0] = 2;
    p->rule[0][1] = BOIDS_RULE_FLEE;
    p->rule_radius[0][1] = 100;
    p->rule_weight[0][1] = 4;
    p->rule[1][1] = BOIDS_RULE_AVOID;
    p->rule_radius[1][1] = 80;
    p->rule_weight[1][1] = 1;
}

static const struct {
    boids_preset_info info;
    void (*apply)(boids_params *);
} presets[] = {
    {{"classic", "seed 000 exactly: 80 boids in a 400 x 400 periodic world, per-step units"},
     preset_classic},
    {{"lab", "seed 002 defaults: 1500 boids in 900 x 560, speeds per second at 60 steps/s"},
     preset_lab},
    {{"flock", "lab with a 270 degree field of view: one travelling flock that splits and merges"},
     preset_flock},
    {{"school", "strong alignment, tight spacing, narrow speed band: polarised columns"},
     preset_school},
    {{"swarm", "no alignment, strong cohesion: dense buzzing clouds, order near 0"}, preset_swarm},
    {{"chaos", "separation only, fast: a gas with no groups and random headings"}, preset_chaos},
    {{"vicsek", "Vicsek 1995: 400 agents at density 4, v0 0.03, R 1, noise eta 2"}, preset_vicsek},
    {{"chate", "Chate et al. 2008: vectorial noise 0.5, 2048 agents at density 2, v0 0.5, R 1"},
     preset_chate},
    {{"murmuration", "3-D starlings: 20,000 boids, topological k = 7, a roost and a diving "
                     "falcon"},
     preset_murmuration},
    {{"hawks", "species: the lab's flock fleeing three faster hawks that chase the nearest boid"},
     preset_hawks},
};

const boids_preset_info *boids_preset_table(size_t *count) {
    static boids_preset_info infos[sizeof presets / sizeof presets[0]];
    for (size_t i = 0; i < sizeof presets / sizeof presets[0]; i++) infos[i] = presets[i].info;
    if (count) *count = sizeof presets / sizeof presets[0];
    return infos;
}

boids_status boids_preset_apply(boids_params *p, const char *name, boids_error *err) {
    if (!p || !name)
        return boids_error_set(err, BOIDS_ERR_INPUT, "boids_preset_apply: %s is NULL",
                               !p ? "the parameters" : "the preset name");
    for (size_t i = 0; i < sizeof presets / sizeof presets[0]; i++)
        if (strcmp(name, presets[i].info.name) == 0) {
            boids_species keep[BOIDS_MAX_SPECIES - 1];
            presets[i].apply(p);
            memcpy(keep, p->sp, sizeof keep);
            species_inherit(p);
            for (int s = 0; s < p->species - 1; s++) p->sp[s] = keep[s]; /* its own species */
            return BOIDS_OK;
        }
    /* The list from the table itself, so that a new preset is never missing from it. */
    char names[256] = "";
    for (size_t i = 0, at = 0; i < sizeof presets / sizeof presets[0] && at < sizeof names; i++)
        at += (size_t)snprintf(names + at, sizeof names - at, "%s%s", i ? ", " : "",
                               presets[i].info.name);
    return boids_error_set(err, BOIDS_ERR_INPUT, "unknown preset '%s' (presets: %s)", name, names);
}

boids_status boids_params_fit_world(boids_params *p, const boids_params *base, double aspect,
                                    boids_error *err) {
    if (!p || !base)
        return boids_error_set(err, BOIDS_ERR_INPUT, "boids_params_fit_world: NULL %s",
                               p ? "base" : "p");
    if (aspect != aspect)
        return boids_error_set(err, BOIDS_ERR_INPUT, "boids_params_fit_world: aspect is NaN");
    const double n = (double)p->count, n0 = (double)base->count;
    const double was[3] = {p->width, p->height, p->depth};
    if (p->dim == 3) {
        /* A box keeps its shape (it is seen from any side) and grows by volume. */
        double k = n > n0 ? cbrt(n / n0) : 1;
        p->width = base->width * k;
        p->height = base->height * k;
        p->depth = base->depth * k;
    } else {
        double k2 = n > n0 ? n / n0 : 1, area = base->width * base->height * k2;
        p->width = aspect > 0 ? sqrt(area * aspect) : base->width * sqrt(k2);
        p->height = aspect > 0 ? sqrt(area / aspect) : base->height * sqrt(k2);
    }
    /* The predator and food points keep their places relative to the world. */
    const double now[3] = {p->width, p->height, p->depth};
    double *at[2][3] = {{&p->predator_x, &p->predator_y, &p->predator_z},
                        {&p->food_x, &p->food_y, &p->food_z}};
    for (int a = 0; a < 3; a++)
        for (int i = 0; i < 2; i++)
            if (was[a] > 0 && now[a] != was[a]) *at[i][a] *= now[a] / was[a];
    return BOIDS_OK;
}
