/* SPDX-License-Identifier: MIT */
/* boids sweep: the grid of runs, from --key/--values/--range, --grid and --counts. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sweep/sweep.h"

static char *dup_range(const char *a, size_t len) {
    char *t = malloc(len + 1);
    if (t) {
        memcpy(t, a, len);
        t[len] = '\0';
    }
    return t;
}

/* The axis the values of `flag` go to: the latest --key, which must have none yet. */
static boids_status open_axis(sweep *s, const char *flag, sweep_axis **ax, boids_error *err) {
    if (!s->naxes)
        return boids_error_set(err, BOIDS_ERR_INPUT, "%s: give --key KEY before its values", flag);
    *ax = &s->axes[s->naxes - 1];
    if ((*ax)->nvalues)
        return boids_error_set(err, BOIDS_ERR_INPUT,
                               "%s: --key %s has its values already (give one of --values or "
                               "--range per --key)",
                               flag, (*ax)->key->key);
    return BOIDS_OK;
}

/* Splits a comma-separated list into ax's values. */
static boids_status add_values(sweep_axis *ax, const char *flag, const char *list,
                               boids_error *err) {
    for (const char *a = list;;) {
        const char *b = strchr(a, ',');
        size_t len = b ? (size_t)(b - a) : strlen(a);
        if (len == 0)
            return boids_error_set(err, BOIDS_ERR_INPUT, "%s '%s': empty value", flag, list);
        if (ax->nvalues == SWEEP_MAX_VALUES)
            return boids_error_set(err, BOIDS_ERR_INPUT, "%s: more than %d values", flag,
                                   SWEEP_MAX_VALUES);
        char **v = realloc(ax->values, (ax->nvalues + 1) * sizeof *v);
        if (!v) return boids_error_set(err, BOIDS_ERR_NOMEM, "out of memory");
        ax->values = v;
        if (!(ax->values[ax->nvalues] = dup_range(a, len)))
            return boids_error_set(err, BOIDS_ERR_NOMEM, "out of memory");
        ax->nvalues++;
        if (!b) return BOIDS_OK;
        a = b + 1;
    }
}

static boids_status parse_double(const char *flag, const char *text, double *out,
                                 boids_error *err) {
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    if (end == text || *end != '\0' || !isfinite(v) || errno == ERANGE)
        return boids_error_set(err, BOIDS_ERR_INPUT, "%s: '%s' is not a finite number", flag, text);
    *out = v;
    return BOIDS_OK;
}

/* A:B:STEP -> A + i STEP for i = 0, 1, ... while <= B (with a tolerance of 1e-9 STEP, so
 * that 0:5:0.25 ends at 5 despite rounding). Each value is computed from i, not
 * accumulated, and printed with 15 digits so 3 * 0.1 reads 0.3. */
static boids_status add_range(sweep_axis *ax, const char *flag, const char *text,
                              boids_error *err) {
    if (ax->key->type != BOIDS_KEY_REAL && ax->key->type != BOIDS_KEY_INT)
        return boids_error_set(err, BOIDS_ERR_INPUT, "%s: key '%s' is not numeric", flag,
                               ax->key->key);
    char buf[256];
    if (strlen(text) >= sizeof buf)
        return boids_error_set(err, BOIDS_ERR_INPUT, "%s: '%s' is too long", flag, text);
    strcpy(buf, text);
    char *c1 = strchr(buf, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
    if (!c1 || !c2 || strchr(c2 + 1, ':'))
        return boids_error_set(err, BOIDS_ERR_INPUT, "%s '%s': expected A:B:STEP", flag, text);
    *c1 = *c2 = '\0';
    double a = 0, b = 0, step = 0; /* set by parse_double before any use */
    if (parse_double(flag, buf, &a, err) || parse_double(flag, c1 + 1, &b, err) ||
        parse_double(flag, c2 + 1, &step, err))
        return BOIDS_ERR_INPUT;
    if (!(step > 0) || b < a)
        return boids_error_set(err, BOIDS_ERR_INPUT, "%s '%s': needs STEP > 0 and B >= A", flag,
                               text);
    double n = floor((b - a) / step + 1e-9) + 1;
    if (n > SWEEP_MAX_VALUES)
        return boids_error_set(err, BOIDS_ERR_INPUT, "%s '%s': %.0f points (at most %d)", flag,
                               text, n, SWEEP_MAX_VALUES);
    for (long i = 0; i < (long)n; i++) {
        char v[64];
        snprintf(v, sizeof v, "%.15g", a + (double)i * step);
        boids_status st = add_values(ax, flag, v, err);
        if (st) return st;
    }
    return BOIDS_OK;
}

/* A new axis for key (the name as given, len characters). */
static boids_status new_axis(sweep *s, const char *flag, const char *key, size_t len,
                             boids_error *err) {
    char name[64];
    if (len >= sizeof name) len = sizeof name - 1;
    memcpy(name, key, len);
    name[len] = '\0';
    const boids_param_info *info = boids_param_find(name);
    if (!info)
        return boids_error_set(err, BOIDS_ERR_INPUT,
                               "%s: unknown key '%s' (`boids params` lists them)", flag, name);
    if (!strcmp(name, "count"))
        return boids_error_set(err, BOIDS_ERR_INPUT, "%s count: use --counts N1,N2,...", flag);
    for (size_t i = 0; i < s->naxes; i++)
        if (s->axes[i].key == info)
            return boids_error_set(err, BOIDS_ERR_INPUT, "%s: key '%s' is swept twice", flag, name);
    if (s->naxes == SWEEP_MAX_KEYS)
        return boids_error_set(err, BOIDS_ERR_INPUT, "%s: more than %d swept keys", flag,
                               SWEEP_MAX_KEYS);
    s->axes[s->naxes++] = (sweep_axis){info, NULL, 0};
    return BOIDS_OK;
}

boids_status sweep_parse_key(const char *flag, const char *text, void *dst, boids_error *err) {
    return new_axis(dst, flag, text, strlen(text), err);
}

boids_status sweep_parse_values(const char *flag, const char *text, void *dst, boids_error *err) {
    sweep_axis *ax = NULL;
    boids_status st = open_axis(dst, flag, &ax, err);
    return st ? st : add_values(ax, flag, text, err);
}

boids_status sweep_parse_range(const char *flag, const char *text, void *dst, boids_error *err) {
    sweep_axis *ax = NULL;
    boids_status st = open_axis(dst, flag, &ax, err);
    return st ? st : add_range(ax, flag, text, err);
}

/* KEY=V1,V2,... or KEY=A:B:STEP (a colon marks a range: no value of any key holds one). */
boids_status sweep_parse_grid(const char *flag, const char *text, void *dst, boids_error *err) {
    sweep *s = dst;
    const char *eq = strchr(text, '=');
    if (!eq || eq == text)
        return boids_error_set(err, BOIDS_ERR_INPUT,
                               "%s %s: expected KEY=V1,V2,... or KEY=A:B:STEP", flag, text);
    boids_status st = new_axis(s, flag, text, (size_t)(eq - text), err);
    if (st) return st;
    sweep_axis *ax = &s->axes[s->naxes - 1];
    return strchr(eq + 1, ':') ? add_range(ax, flag, eq + 1, err)
                               : add_values(ax, flag, eq + 1, err);
}

boids_status sweep_parse_counts(const char *flag, const char *list, void *dst, boids_error *err) {
    sweep *s = dst;
    for (const char *a = list;;) {
        const char *b = strchr(a, ',');
        size_t len = b ? (size_t)(b - a) : strlen(a);
        char item[32];
        if (len == 0 || len >= sizeof item)
            return boids_error_set(err, BOIDS_ERR_INPUT, "%s '%s': bad item", flag, list);
        memcpy(item, a, len);
        item[len] = '\0';
        long v;
        if (app_parse_long(flag, item, 1, 1000000000L, &v, err)) return BOIDS_ERR_INPUT;
        if (s->ncounts == 1000)
            return boids_error_set(err, BOIDS_ERR_INPUT, "%s: more than 1000 values", flag);
        long *c = realloc(s->counts, (s->ncounts + 1) * sizeof *c);
        if (!c) return boids_error_set(err, BOIDS_ERR_NOMEM, "out of memory");
        s->counts = c;
        s->counts[s->ncounts++] = v;
        if (!b) return BOIDS_OK;
        a = b + 1;
    }
}

/* One integer of --part's K/M, the whole text in the message. */
static boids_status part_number(const char *flag, const char *text, const char *item, size_t len,
                                const char *name, long *out, boids_error *err) {
    char buf[32];
    long v = 0;
    if (len && len < sizeof buf) {
        memcpy(buf, item, len);
        buf[len] = '\0';
        char *end;
        errno = 0;
        v = buf[0] >= '0' && buf[0] <= '9' ? strtol(buf, &end, 10) : 0;
        if (v && (*end || errno)) v = 0;
    }
    if (v < 1 || v > 100000000)
        return boids_error_set(err, BOIDS_ERR_INPUT,
                               "%s %s: %s must be an integer from 1 to 10^8 (part K of M, K <= M)",
                               flag, text, name);
    *out = v;
    return BOIDS_OK;
}

boids_status sweep_parse_part(const char *flag, const char *text, void *dst, boids_error *err) {
    sweep_part *part = dst;
    const char *slash = strchr(text, '/');
    if (!slash)
        return boids_error_set(err, BOIDS_ERR_INPUT, "%s %s: expected K/M (part K of M)", flag,
                               text);
    long k = 0, m = 0; /* set by part_number before any use */
    if (part_number(flag, text, text, (size_t)(slash - text), "K", &k, err) ||
        part_number(flag, text, slash + 1, strlen(slash + 1), "M", &m, err))
        return BOIDS_ERR_INPUT;
    if (k > m)
        return boids_error_set(err, BOIDS_ERR_INPUT,
                               "%s %s: part %ld of %ld does not exist (K goes from 1 to M)", flag,
                               text, k, m);
    *part = (sweep_part){k, m};
    return BOIDS_OK;
}

int sweep_in_part(const sweep *s, size_t run) {
    return !s->part.m || run % (size_t)s->part.m == (size_t)(s->part.k - 1);
}

size_t sweep_part_runs(const sweep *s) {
    if (!s->part.m) return s->nruns;
    size_t first = (size_t)(s->part.k - 1), m = (size_t)s->part.m;
    return first < s->nruns ? (s->nruns - first + m - 1) / m : 0;
}

/* Every axis complete, the world keys free under --density, and the number of runs. */
boids_status sweep_grid_check(sweep *s, const app_opts *o, boids_error *err) {
    if (!s->naxes)
        return boids_error_set(err, BOIDS_ERR_INPUT, "sweep: --key KEY (or --grid) is required");
    size_t points = s->ncounts ? s->ncounts : 1;
    for (size_t i = 0; i < s->naxes; i++) {
        const char *key = s->axes[i].key->key;
        if (!s->axes[i].nvalues)
            return boids_error_set(err, BOIDS_ERR_INPUT,
                                   "sweep: --key %s: give one of --values or --range", key);
        if (s->density > 0 && (!strcmp(key, "width") || !strcmp(key, "height")))
            return boids_error_set(err, BOIDS_ERR_INPUT,
                                   "--key %s: the world side is set by --density", key);
        if (points > 100000000 / s->axes[i].nvalues)
            return boids_error_set(err, BOIDS_ERR_INPUT, "sweep: more than 10^8 points");
        points *= s->axes[i].nvalues;
    }
    if (o->load)
        return boids_error_set(err, BOIDS_ERR_INPUT,
                               "sweep: --load is not supported (each seed draws its own state)");
    if (s->ncounts && o->count)
        return boids_error_set(err, BOIDS_ERR_INPUT, "sweep: give -n or --counts, not both");
    if (s->density > 0 && app_world_fixed(o))
        return boids_error_set(err, BOIDS_ERR_INPUT,
                               "--density %g: sets the world's size itself; not with "
                               "--fixed-world or a width, height or depth of --set or --config",
                               s->density);
    if (points > 100000000 / (size_t)s->seeds)
        return boids_error_set(err, BOIDS_ERR_INPUT, "sweep: more than 10^8 runs");
    if (!s->ncounts) { /* one N: -n, else the parameters' count */
        boids_params p;
        boids_status st = app_params(o, &p, err);
        if (!st) st = sweep_parse_counts("--counts", "1", s, err);
        if (st) return st;
        s->counts[0] = p.count;
    }
    s->npoints = points;
    s->nruns = points * (size_t)s->seeds;
    s->key = s->axes[0].key;
    s->values = s->axes[0].values;
    s->nvalues = s->axes[0].nvalues;
    return BOIDS_OK;
}

void sweep_point_coords(const sweep *s, size_t point, size_t *ci, size_t *vi) {
    for (size_t i = s->naxes; i-- > 0;) {
        vi[i] = point % s->axes[i].nvalues;
        point /= s->axes[i].nvalues;
    }
    *ci = point;
}

uint64_t sweep_run_seed(const app_opts *o, const sweep *s, size_t run) {
    return o->seed + (uint64_t)(run % (size_t)s->seeds);
}

boids_status sweep_run_params(const app_opts *o, const sweep *s, size_t run, boids_params *p,
                              boids_error *err) {
    size_t ci, vi[SWEEP_MAX_KEYS];
    sweep_point_coords(s, run / (size_t)s->seeds, &ci, vi);
    app_opts ro = *o;
    ro.seed = sweep_run_seed(o, s, run);
    ro.count = s->counts[ci];
    boids_status st = app_params(&ro, p, err);
    if (st) return st;
    /* --density: a square (a cube in 3-D) of N / D area (volume) for every N. */
    if (s->density > 0 && p->dim == 3)
        p->width = p->height = p->depth = cbrt((double)p->count / s->density);
    else if (s->density > 0)
        p->width = p->height = sqrt((double)p->count / s->density);
    for (size_t i = 0; i < s->naxes; i++) {
        const sweep_axis *ax = &s->axes[i];
        if ((st = boids_params_set(p, ax->key->key, ax->values[vi[i]], "--values", err))) return st;
    }
    return boids_params_validate(p, err);
}

void sweep_free(sweep *s) {
    for (size_t a = 0; a < s->naxes; a++) {
        for (size_t i = 0; i < s->axes[a].nvalues; i++) free(s->axes[a].values[i]);
        free(s->axes[a].values);
    }
    free(s->counts);
    free(s->ids);
    app_obs_free(&s->obs);
}
