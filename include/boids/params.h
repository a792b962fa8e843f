/* SPDX-License-Identifier: MIT */
/* Model parameters: one struct for the whole model contract (README, "The model and its
 * units").
 *
 * Every field is one key with the same name in INI files, in `--set key=value` and in
 * `boids params`. Units: lengths in world units (the seeds call them pixels), time in
 * the preset's time unit, and `dt` time units per step; velocities in length per time
 * unit. Steering forces are velocity changes per step. With dt = 1 everything is per
 * step, as in seed 000. Start from boids_params_default() (the `lab` flock of seed 002)
 * or from a preset, then set keys; a field that is 0 means 0.
 *
 * Ownership: boids_params is a plain value (copy it freely); the key and preset tables are
 * static and live as long as the library. Threads: no shared state; every function is
 * reentrant. */
#ifndef BOIDS_PARAMS_H
#define BOIDS_PARAMS_H

#include <stddef.h>

#include "boids/api.h"
#include "boids/error.h"

BOIDS_BEGIN_DECLS

typedef enum boids_boundary {
    BOIDS_BOUNDARY_WRAP = 0,  /* periodic world: leaving one edge enters the opposite one */
    BOIDS_BOUNDARY_WALLS = 1, /* closed box: a push inward near the edges, reflection at them */
    BOIDS_BOUNDARY_OPEN = 2   /* unbounded plane: width and height only place the start */
} boids_boundary;

typedef enum boids_model {
    BOIDS_MODEL_REYNOLDS = 0, /* separation, alignment, cohesion (seeds 000 and 002) */
    BOIDS_MODEL_VICSEK = 1    /* constant speed, circular-mean heading plus noise (seed 003) */
} boids_model;

typedef enum boids_neighbours {
    BOIDS_NEIGHBOURS_METRIC = 0,     /* every boid within vision_radius (and the fov) */
    BOIDS_NEIGHBOURS_TOPOLOGICAL = 1 /* the k nearest (ties by id), after Ballerini 2008 */
} boids_neighbours;

typedef enum boids_noise_type {
    BOIDS_NOISE_ANGULAR = 0,  /* the mean heading turned by a random angle (Vicsek 1995) */
    BOIDS_NOISE_VECTORIAL = 1 /* a random unit vector added to the heading sum (Gregoire and
                               * Chate 2004) */
} boids_noise_type;

typedef enum boids_alignment {
    BOIDS_ALIGNMENT_POLAR = 0,  /* the neighbours' headings summed as they are */
    BOIDS_ALIGNMENT_NEMATIC = 1 /* each heading with the sign of its dot product with the
                                 * agent's own */
} boids_alignment;

typedef enum boids_species_rule {
    BOIDS_RULE_NONE = 0,  /* no rule between the two species */
    BOIDS_RULE_AVOID = 1, /* separation from the other species' boids within the rule's radius */
    BOIDS_RULE_FLEE = 2,  /* steer away from the other species' boids within the radius */
    BOIDS_RULE_CHASE = 3  /* steer towards the nearest of the other species' boids within it */
} boids_species_rule;

/* The most species a flock may have (the key `species`), and the parameters of one species
 * beyond species 0, whose values are the model's own keys (max_speed, noise, ...). */
#define BOIDS_MAX_SPECIES 4

typedef struct boids_species {
    long count;               /* its boids: a contiguous range of ids (docs/model.md) */
    double speed;             /* as `speed` (Vicsek v0) */
    double max_speed;         /* as `max_speed` */
    double min_speed;         /* as `min_speed` */
    double max_force;         /* as `max_force` */
    double vision_radius;     /* as `vision_radius` */
    double separation_radius; /* as `separation_radius` */
    double separation_weight; /* as `separation_weight` */
    double alignment_weight;  /* as `alignment_weight` */
    double cohesion_weight;   /* as `cohesion_weight` */
    double noise;             /* as `noise` (Vicsek eta) */
} boids_species;

typedef struct boids_params {
    /* Model. */
    int model; /* boids_model: "reynolds" or "vicsek" */

    /* World. With dim = 3 the world is the box width x height x depth (x, y, z); every
     * rule works per axis as in the plane (README, "Three dimensions"). */
    double width;       /* world width, length units; (0, 1e7] */
    double height;      /* world height, length units; (0, 1e7] */
    int dim;            /* dimensions of the world: 2 (the plane) or 3 (a box); default 2 */
    double depth;       /* world depth (z), length units; (0, 1e7]; used only when dim = 3 */
    int boundary;       /* boids_boundary: "wrap", "walls" or "open" */
    double wall_margin; /* walls: distance from an edge where the inward push starts; [0, 1e7] */
    double wall_weight; /* walls: weight of the inward steering force; [0, 1000] */

    /* Flock. */
    long count;           /* number of boids N when no state file gives it; [1, 1e9] */
    double initial_speed; /* speed of the random initial velocities, length/time; [0, 1e7] */

    /* Perception. */
    double vision_radius;     /* neighbours are boids closer than this, length; (0, 1e7] */
    double separation_radius; /* neighbours closer than this push away, length; [0, 1e7] */
    double fov;      /* field of view, degrees, centred on the velocity; (0, 360]; 360 sees all */
    int neighbours;  /* boids_neighbours: "metric" or "topological" */
    long k;          /* topological: number of nearest neighbours; [1, 1000] */
    int k_in_vision; /* topological: 1 also requires the k to be within vision_radius */

    /* Motion limits. */
    double max_speed; /* speed cap and length of every steering target, length/time; (0, 1e7] */
    double min_speed; /* speed floor for moving boids (speed 0 stays 0), length/time; [0, max] */
    double max_force; /* cap on each rule's steering force, length/time per step; [0, 1e7] */
    double dt;        /* time per step: position += velocity * dt; (0, 1000] */

    /* Rule weights (seed 002's sliders; its separation slider is multiplied by 1.5). */
    double separation_weight; /* [0, 1000] */
    double alignment_weight;  /* [0, 1000] */
    double cohesion_weight;   /* [0, 1000] */

    /* Vicsek model (seed 003). Neighbours: within vision_radius (distance <= R, itself
     * included) or itself and the k nearest; no field of view. */
    double speed;    /* constant speed v0, length/time; (0, 1e7] */
    double noise;    /* eta: heading noise uniform in [-eta/2, eta/2], radians; [0, 2 pi];
                      * in 3-D a direction uniform in the cone of half-angle eta/2 about
                      * the mean heading (eta = 2 pi: uniform on the sphere); with
                      * noise_type vectorial a dimensionless strength instead */
    long noise_seed; /* noise stream: a hash of (noise_seed, step, id); the run's --seed by
                      * default; [0, 2^53] */

    /* Predator: a point that boids within its radius flee from (seed 002's pointer); food: a
     * point that boids within its radius steer towards. Each: on (0 off, 1 on), position
     * x, y, z (length, any finite value; z used only when dim = 3), radius (length;
     * [0, 1e7]), weight ([0, 1000]). */
    int predator;
    double predator_x, predator_y, predator_z, predator_radius, predator_weight;
    int food;
    double food_x, food_y, food_z, food_radius, food_weight;

    /* Obstacles of the interaction table (boids/interact.h, README "Interaction points and
     * obstacles"): a Reynolds boid looks avoid_distance ahead along its velocity and steers
     * away from every obstacle that look-ahead comes within separation_radius of. */
    double avoid_distance; /* look-ahead, length; [0, 1e7] */
    double avoid_weight;   /* weight of the avoidance steering force; [0, 1000] */

    /* The Vicsek model's menu (docs/model.md, "The Vicsek model's menu"); the defaults are
     * the model above exactly, and Reynolds boids ignore these keys as they ignore noise. */
    int noise_type;   /* boids_noise_type: "angular" (default) or "vectorial"; vectorial adds
                       * noise * n * xi to the sum of n headings, xi a random unit vector */
    int alignment;    /* boids_alignment: "polar" (default) or "nematic" */
    double chirality; /* intrinsic turn of the aligned direction, radians per step,
                       * counter-clockwise in the plane, about +z in the box; [-pi, pi] */
    double field;     /* external field's strength, in headings: field * e is added to the
                       * heading sum, e the unit direction (field_x, field_y, field_z);
                       * [0, 1000]; 0 = no field */
    double field_x, field_y, field_z; /* its direction (normalised; z read in 3-D only); not
                                       * zero where field > 0 */

    /* Species (docs/model.md, "Species"): `species` kinds S in [1, BOIDS_MAX_SPECIES]; 1 is
     * the model above exactly. A boid's species is a function of its id: species 1 holds ids
     * [0, c1), species 2 the next c2, species 3 the next c3 (cs = sp[s - 1].count, the keys
     * species_count.s), species 0 the rest. Species 0's parameters are the model's keys;
     * species s >= 1 has its own (keys KEY.s, e.g. max_speed.2), which a preset sets to its
     * species 0 values. */
    long species;
    boids_species sp[BOIDS_MAX_SPECIES - 1]; /* species 1 .. 3 */
    /* coupling[i][j] (key coupling.i.j): the weight of species j's velocities and offsets
     * (Reynolds alignment and cohesion) or headings (Vicsek) in species i's sums; [0, 1000],
     * 1 by default; 0 ignores that kind. */
    double coupling[BOIDS_MAX_SPECIES][BOIDS_MAX_SPECIES];
    /* Reynolds boids of species i towards species j's (keys rule.i.j, rule_radius.i.j,
     * rule_weight.i.j): a boids_species_rule acting on the boids within the radius, with its
     * steering force times the weight. */
    int rule[BOIDS_MAX_SPECIES][BOIDS_MAX_SPECIES];
    double rule_radius[BOIDS_MAX_SPECIES][BOIDS_MAX_SPECIES];
    double rule_weight[BOIDS_MAX_SPECIES][BOIDS_MAX_SPECIES];
} boids_params;

/* The parameters species s (0 .. species - 1) moves by: p with the model's keys (speed,
 * max_speed, min_speed, max_force, vision_radius, separation_radius, the three weights,
 * noise) replaced by species s's values (species 0 or another s: p itself; NULL p: the
 * defaults). */
boids_params boids_params_of_species(const boids_params *p, int s);

/* The species of boid `id` under p (0 when species = 1, or for a NULL p). */
int boids_species_of(const boids_params *p, unsigned long long id);

/* How many of the ids 0 .. n - 1 are of species s under p (those boids_species_of gives s;
 * 0 for s beyond the species; a NULL p is one species: n for s = 0). */
size_t boids_species_count(const boids_params *p, size_t n, int s);

/* The largest distance at which a boid can act on another under p: the vision radius, or
 * with species the largest of every species' vision radius and every rule's radius. The
 * grids' cells are at least this wide. NULL p: 0. */
double boids_params_reach(const boids_params *p);

/* The `lab` defaults of seed 002: 900 x 560 wrap, N 1500, radii 50 / 20, max speed
 * 180 length/s, min speed 60, max force 6 (max speed / 30) per step, dt 1/60 s. */
boids_params boids_params_default(void);

typedef enum boids_key_type {
    BOIDS_KEY_REAL,
    BOIDS_KEY_INT,  /* stored in a long */
    BOIDS_KEY_BOOL, /* stored in an int: 0/1, also accepts true/false/on/off/yes/no */
    BOIDS_KEY_ENUM  /* stored in an int: index into choices */
} boids_key_type;

typedef struct boids_param_info {
    const char *key;
    boids_key_type type;
    size_t offset;              /* offsetof(boids_params, field) */
    double min, max;            /* valid range for REAL and INT keys */
    int min_open;               /* 1: the range excludes min */
    const char *unit;           /* "length", "length/time", "degrees", ... */
    const char *doc;            /* one line */
    const char *const *choices; /* ENUM: NULL-terminated names */
} boids_param_info;

/* The table of every key, in documentation order. */
const boids_param_info *boids_param_table(size_t *count);
const boids_param_info *boids_param_find(const char *key);

/* Parses value for key and stores it in p. `where` names the origin in messages
 * ("--set", "flock.ini:12"). Unknown key, malformed, NaN/Inf or out-of-range values
 * give BOIDS_ERR_INPUT with a message naming where, the key and the value. */
boids_status boids_params_set(boids_params *p, const char *key, const char *value,
                              const char *where, boids_error *err);

/* Reads an INI file of `key = value` lines, one a line, and sets each key in order; a line
 * may be blank or a comment (`#` or `;` first), and a comment may follow a value after
 * whitespace. The file must be a regular file of at most 1 MiB with lines of at most 1024
 * bytes, LF or CRLF, an optional UTF-8 BOM first, no NUL byte, no sections, no continuation
 * lines (an indented line stands alone). Anything else, a missing file, an unknown key or
 * a bad value: BOIDS_ERR_INPUT naming the file, line and key, and p is left unchanged. */
boids_status boids_params_load_ini(boids_params *p, const char *path, boids_error *err);

/* The same for a file that other readers share (with the same strict syntax): keys for which
 * theirs(key) is non-zero are left to them (the viewer's `view.` keys, points and obstacles);
 * every other key must be a parameter. theirs NULL: boids_params_load_ini. */
boids_status boids_params_load_ini_except(boids_params *p, const char *path,
                                          int (*theirs)(const char *key), boids_error *err);

/* The valid range of a REAL or INT key as text, "(0, 1e+07]" or "[0, 6.2831853071795862]":
 * each bound reads back as exactly the double it is. NULL info: "". */
void boids_param_range(const boids_param_info *info, char *buf, size_t size);

/* Formats the value of key in p into buf (round-trippable); NULL p or info: "". An enum
 * field holding a value beyond its choices (a struct filled by hand) is written as its
 * number, which boids_params_set refuses. */
void boids_params_format(const boids_params *p, const boids_param_info *info, char *buf,
                         size_t size);

/* Checks every range and the rules between keys: min_speed <= max_speed,
 * separation_radius <= vision_radius, and one step (max_speed * dt, or speed * dt for
 * Vicsek) below half the smallest world side (depth included when dim = 3) unless the
 * boundary is open. BOIDS_ERR_INPUT naming the key. */
boids_status boids_params_validate(const boids_params *p, boids_error *err);

/* The one rule of the world for N boids, every `boids` command's for -n unless the world
 * is fixed (README, "The world follows N"): p->count boids at base's density (base->count
 * boids in base's world: the parameters before N changed, a preset or a config file), per
 * area in the plane, per volume in 3-D. Above base's N the world grows; below it stays
 * base's size, the smallest world (a smaller one would shrink towards the vision radius and
 * leave a config's obstacles and points outside). In the plane it takes the aspect ratio
 * `aspect` (width / height: a window's or frame's) at that area, or base's shape when
 * aspect <= 0; a 3-D box keeps base's shape. The predator and food points keep their places
 * relative to the world. NULL p or base, or a NaN aspect: BOIDS_ERR_INPUT, p unchanged. */
boids_status boids_params_fit_world(boids_params *p, const boids_params *base, double aspect,
                                    boids_error *err);

/* Presets: classic (seed 000), lab (seed 002 defaults), flock, school, swarm, chaos,
 * vicsek (seed 003), murmuration (3-D starlings). */
typedef struct boids_preset_info {
    const char *name;
    const char *summary; /* what it shows and why its values do that */
} boids_preset_info;

const boids_preset_info *boids_preset_table(size_t *count);

/* Replaces p by the named preset. Unknown name: BOIDS_ERR_INPUT listing the names. */
boids_status boids_preset_apply(boids_params *p, const char *name, boids_error *err);

BOIDS_END_DECLS

#endif
