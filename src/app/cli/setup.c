/* SPDX-License-Identifier: MIT */
/* A run's set-up from the shared options (cli.h): the parameters and the world they lie in,
 * the interaction table, the initial flock, and the text that says what decides the run. */
#include <stdio.h>
#include <string.h>

#include "boids/gpu.h"
#include "ini.h"
#include "boids/state_io.h"
#include "cli/cli.h"
#include "cli/control.h"

/* Whether one of the --set pairs names key. */
static int set_names(const app_opts *o, const char *key) {
    size_t len = strlen(key);
    for (int i = 0; i < o->nsets; i++)
        if (!strncmp(o->sets[i], key, len) && o->sets[i][len] == '=') return 1;
    return 0;
}

/* The parameters of the options but -n: the defaults, --preset, --config, --model,
 * --neighbours, -k and the --set pairs, in this order, not yet validated. */
static boids_status params_but_count(const app_opts *o, boids_params *p, boids_error *err) {
    *p = boids_params_default();
    boids_status s;
    if (o->preset && (s = boids_preset_apply(p, o->preset, err))) return s;
    /* The Vicsek noise follows the run's seed unless a file or --set names its own. */
    p->noise_seed = (long)(o->seed % 9007199254740993ull);
    if (o->config && (s = boids_params_load_ini_except(p, o->config, o->config_theirs, err)))
        return s;
    if (o->model && (s = boids_params_set(p, "model", o->model, "--model", err))) return s;
    if (o->neighbours &&
        (s = boids_params_set(p, "neighbours", o->neighbours, "--neighbours", err)))
        return s;
    if (o->k && (s = boids_params_set(p, "k", o->k, "-k", err))) return s;
    for (int i = 0; i < o->nsets; i++) {
        char key[128];
        const char *eq = strchr(o->sets[i], '=');
        size_t len = (size_t)(eq - o->sets[i]);
        if (len == 0 || len >= sizeof key)
            return boids_error_set(err, BOIDS_ERR_INPUT, "--set %s: bad key", o->sets[i]);
        memcpy(key, o->sets[i], len);
        key[len] = '\0';
        if ((s = boids_params_set(p, key, eq + 1, "--set", err))) return s;
    }
    return BOIDS_OK;
}

int app_world_fixed(const app_opts *o) {
    static const char *const sides[] = {"width", "height", "depth"};
    if (o->fixed_world) return 1;
    int side = 0, count = set_names(o, "count");
    for (int i = 0; i < 3; i++) side |= set_names(o, sides[i]);
    if (o->config) {
        /* The file names a key if reading it over impossible values changes that one
         * (app_params has read it already: a bad file never gets here). */
        boids_params q = boids_params_default();
        q.width = q.height = q.depth = -1;
        q.count = -1;
        boids_error e;
        if (boids_params_load_ini_except(&q, o->config, o->config_theirs, &e)) return 1;
        side |= q.width != -1 || q.height != -1 || q.depth != -1;
        count |= q.count != -1;
    }
    /* A size and a count given together state a density, which N keeps. */
    return side && !count;
}

boids_status app_params_world(const app_opts *o, double aspect, boids_params *p, boids_params *base,
                              int *follows, boids_error *err) {
    boids_status s = params_but_count(o, p, err);
    if (s) return s;
    *base = *p;
    /* -n is the run's N; a count of --config or --set states the density with their size. */
    if (o->count) p->count = o->count;
    int fixed = app_world_fixed(o);
    /* A loaded state lies in the world it was saved in: only -n (its N) changes that. */
    *follows = !fixed && !o->load;
    if (!fixed && (p->count != base->count || (aspect > 0 && *follows)))
        boids_params_fit_world(p, base, *follows ? aspect : 0, NULL);
    return boids_params_validate(p, err);
}

boids_status app_params(const app_opts *o, boids_params *p, boids_error *err) {
    boids_params base;
    int follows;
    return app_params_world(o, 0, p, &base, &follows, err);
}

/* The config file's `places` line: world (the default) or relative. */
static boids_status read_places(void *user, const char *key, const char *value, const char *where,
                                boids_error *err) {
    if (strcmp(key, "places")) return BOIDS_OK;
    while (*value == ' ' || *value == '\t') value++;
    if (strcmp(value, "world") && strcmp(value, "relative"))
        return boids_error_set(err, BOIDS_ERR_INPUT,
                               "%s: places = '%s': expected world (points and obstacles in world "
                               "units) or relative (in fractions of the world, 0 to 1)",
                               where, value);
    *(int *)user = !strcmp(value, "relative");
    return BOIDS_OK;
}

/* The points' and obstacles' lines of a `places = relative` file, as fractions (the core's
 * boids_interact_load_ini refuses such a file: it takes world units). */
static boids_status set_relative(void *user, const char *key, const char *value, const char *where,
                                 boids_error *err) {
    return boids_interact_is_key(key) ? boids_interact_set(user, key, value, where, err) : BOIDS_OK;
}

static boids_status load_relative(boids_interact *t, const char *path, boids_error *err) {
    boids_interact tmp = *t; /* a file that fails half-way changes nothing */
    boids_status st = boids_ini_read(path, set_relative, &tmp, err);
    if (!st) *t = tmp;
    return st;
}

boids_status app_interact_places(const app_opts *o, const boids_params *p, boids_interact *t,
                                 app_places *places, boids_error *err) {
    boids_interact_default(t, p);
    if (places) memset(places, 0, sizeof *places);
    if (!o->config) return BOIDS_OK;
    int relative = 0;
    boids_status st = boids_ini_read(o->config, read_places, &relative, err);
    if (st) return st;
    /* Relative places: the file's lines in the unit world (lengths in fractions of the
     * smallest side; the points it leaves alone at its centre, with p's radii), then every
     * entry moved into p's world. */
    boids_params unit = *p;
    unit.width = unit.height = unit.depth = 1;
    unit.predator_radius /= app_world_side(p);
    unit.food_radius /= app_world_side(p);
    if (relative) boids_interact_default(t, &unit);
    if ((st = relative ? load_relative(t, o->config, err)
                       : boids_interact_load_ini(t, o->config, err)))
        return st;
    if (relative) {
        app_places all;
        memset(&all, 1, sizeof all);
        app_places_move(&all, t, &unit, p);
        if (places) *places = all;
    }
    /* The backends' step refuses a table a periodic world cannot hold; say so before any run,
     * naming the file. */
    boids_error e;
    if (boids_interact_check_world(t, p, &e))
        return boids_error_set(err, e.status, "%s: %s", o->config, e.msg);
    return BOIDS_OK;
}

boids_status app_interact(const app_opts *o, const boids_params *p, boids_interact *t,
                          boids_error *err) {
    return app_interact_places(o, p, t, NULL, err);
}

/* Does the config file or a --set pair name the noise seed? (app_params has read the file
 * already: its errors were reported there.) */
static boids_status names_noise_seed(void *user, const char *key, const char *value,
                                     const char *where, boids_error *err) {
    (void)value, (void)where, (void)err;
    if (!strcmp(key, "noise_seed")) *(int *)user = 1;
    return BOIDS_OK;
}

static const char *noise_seed_source(const app_opts *o) {
    for (int i = 0; i < o->nsets; i++)
        if (!strncmp(o->sets[i], "noise_seed=", 11)) return "--set noise_seed";
    int named = 0;
    if (o->config) boids_ini_read(o->config, names_noise_seed, &named, NULL);
    if (named) return o->config;
    return o->seed_given ? "--seed" : NULL;
}

boids_status app_initial_flock(const app_opts *o, boids_params *p, boids_flock *f,
                               boids_error *err) {
    if (!o->load) {
        /* The device limit first: a flock beyond it takes seconds to allocate and fill. */
        if (!strcmp(o->backend, "gpu") && boids_gpu_check_count((size_t)p->count, err))
            return err->status;
        boids_status s = boids_flock_alloc_dim(f, (size_t)p->count, p->dim, err);
        if (s) return s;
        boids_flock_randomize(f, p, o->seed);
        return BOIDS_OK;
    }
    long saved;
    boids_status s = boids_state_load_seeded(o->load, p, f, &saved, err);
    if (s) return s;
    if ((s = app_loaded_state(o, p, f->n, saved, err))) boids_flock_free(f);
    return s;
}

boids_status app_loaded_state(const app_opts *o, boids_params *p, size_t n, long saved,
                              boids_error *err) {
    if (o->count && (size_t)o->count != n)
        return boids_error_set(err, BOIDS_ERR_INPUT,
                               "--count %ld disagrees with %s, which holds %zu boids", o->count,
                               o->load, n);
    p->count = (long)n;
    /* The noise continues the saved run's unless the user named another seed. */
    const char *given = saved >= 0 ? noise_seed_source(o) : NULL;
    if (saved >= 0 && !given) p->noise_seed = saved;
    if (given && p->noise_seed != saved)
        fprintf(stderr,
                "boids: note: %s.json has noise_seed %ld; the noise seed %ld from %s is used "
                "instead, so the noise does not continue the saved run's\n",
                o->load, saved, p->noise_seed, given);
    return BOIDS_OK;
}

void app_describe_model(FILE *out, const boids_params *p, const boids_interact *in) {
    size_t n;
    const boids_param_info *t = boids_param_table(&n);
    for (size_t i = 0; i < n; i++) {
        char value[64];
        boids_params_format(p, &t[i], value, sizeof value);
        fprintf(out, "parameter %s = %s\n", t[i].key, value);
    }
    for (int i = 0; in && i < 2 * BOIDS_MAX_POINTS; i++) {
        const boids_point *pt =
            i < BOIDS_MAX_POINTS ? &in->predators[i] : &in->attractors[i - BOIDS_MAX_POINTS];
        fprintf(out, "--config %s.%d = %s %.17g %.17g %.17g %.17g %.17g\n",
                i < BOIDS_MAX_POINTS ? "predator" : "attractor", i % BOIDS_MAX_POINTS,
                pt->on ? "on" : "off", pt->x, pt->y, pt->z, pt->radius, pt->weight);
    }
    fprintf(out, "--config obstacles: %d", in ? in->obstacle_count : 0);
    for (int i = 0; in && i < in->obstacle_count && i < BOIDS_MAX_OBSTACLES; i++) {
        const boids_obstacle *ob = &in->obstacles[i];
        fprintf(out, "\n--config obstacle %d = kind %d %.17g %.17g %.17g %.17g %.17g %.17g", i,
                ob->kind, ob->x0, ob->y0, ob->z0, ob->x1, ob->y1, ob->radius);
    }
}
