/* SPDX-License-Identifier: MIT */
/* The checks of `boids verify`, which commands/cmd_verify.c parses and calls: the one-step
 * scenarios (verify_scenarios.c), each backend's step compared with cpu-ref's within a
 * calibrated tolerance (verify_compare.c), and the order curves over many steps and seeds
 * (verify_curves.c). */
#ifndef BOIDS_APP_VERIFY_CHECKS_H
#define BOIDS_APP_VERIFY_CHECKS_H

#include <stdint.h>

#include "boids/backend.h"
#include "boids/gpu.h"
#include "cli/cli.h"

enum { VERIFY_MAX_BACKENDS = 4 };

/* The scenarios, the same names in 2-D and 3-D (the interaction scenarios' obstacles are
 * circles and segments in the plane, spheres in the box). */
#define VERIFY_SCENARIOS                                                                           \
    "random,dense,empty,edges,walls,fov,predator-food,n1,n2,vicsek,vicsek-walls,vicsek-open,"      \
    "vicsek-topological,topological,topological-vision,topological-sparse,interact,"               \
    "interact-walls,vicsek-interact,vicsek-vectorial,vicsek-nematic,vicsek-chiral,vicsek-field,"   \
    "vicsek-menu,species,vicsek-species"

/* What to check, as the command line gave it. */
typedef struct verify_opts {
    app_opts common; /* the parameter and GPU options, as in every command */
    const char *backends[VERIFY_MAX_BACKENDS];
    int nbackends;
    int steps, every, seeds; /* the order curves: steps, sample interval, seeds (0: none) */
    const char *curve_preset;
    long curve_count;
    const char *scenarios;
} verify_opts;

/* One run of the checks: its options, the GL context when the gpu is checked (NULL if not),
 * the GPU backend kept across scenarios (shaders compile once; the caller destroys it) and
 * the failures counted so far. */
typedef struct verify_ctx {
    const verify_opts *o;
    boids_gl *gl;
    boids_backend *gpu;
    int failures;
} verify_ctx;

/* ---- scenarios (verify_scenarios.c) ---- */

/* Is name one of VERIFY_SCENARIOS? 1 yes, 0 no. */
int verify_is_scenario(const char *name);

/* Parameters as every command makes them (preset, config, --set, N and its world,
 * validated), with the given preset and N (0: the preset's): the one-step checks and the
 * order curves use different ones. */
boids_status verify_params(const verify_opts *o, const char *preset, long count, boids_params *p,
                           boids_error *err);

/* The parameters p and state f (allocated here) of scenario name from the base parameters,
 * with n random boids from seed and the ones the scenario places by hand. */
boids_status verify_make_scenario(const char *name, const boids_params *base, size_t n,
                                  uint64_t seed, boids_params *p, boids_flock *f, boids_error *err);

/* The interaction table of the interaction scenarios (interact, interact-walls,
 * vicsek-interact) in the world of p: 1, t filled; 0 for the other scenarios. */
int verify_scenario_table(const char *name, const boids_params *p, boids_interact *t);

/* ---- the one-step comparison (verify_compare.c) ---- */

/* The backend name (cpu-ref, cpu or gpu) with state f and interaction table t (NULL: none),
 * NULL on failure; verify_backend_put gives it back (the GPU backend is kept in c). */
boids_backend *verify_backend_get(verify_ctx *c, const char *name, const boids_flock *f,
                                  const boids_interact *t, boids_error *err);
void verify_backend_put(verify_ctx *c, boids_backend *b);

/* The one-step table's title, what its tolerance means and its column names. */
void verify_print_header(const verify_opts *o);

/* Scenario name from base: cpu-ref's step, the tolerance, then a row per backend of c->o
 * (a failed check counted in c->failures); -1 when a check could not run (err says why). */
int verify_scenario(verify_ctx *c, const char *name, const boids_params *base, boids_error *err);

/* ---- the order curves (verify_curves.c) ---- */

/* cpu-ref's and each backend's mean order curve over c->o->seeds seeds, printed and compared
 * (a failed sample counted in c->failures); -1 when a run could not run (err says why). */
int verify_curves(verify_ctx *c, boids_error *err);

#endif
