/* SPDX-License-Identifier: MIT */
#include "output/traj_read.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "output/provenance.h"
#include "text_lines.h"

#include "../core/npy_format.h"

/* A sidecar is a few kilobytes; the bound keeps a wrong file from being read whole. */
enum { SIDECAR_MAX = 1 << 24 };

/* The data's size from the header's shape, checked against the file's own. */
static boids_status check_shape(app_traj_in *t, const npy_header *h, off_t size, boids_error *err) {
    if (h->ndim != 3 || (h->shape[2] != 4 && h->shape[2] != 6))
        return boids_error_set(err, BOIDS_ERR_INPUT,
                               "%s: not a trajectory: its shape has %d axes%s (expected "
                               "(frames, N, 4) or (frames, N, 6))",
                               t->path, h->ndim, h->ndim == 3 ? " and the last is not 4 or 6" : "");
    t->frames = h->shape[0];
    t->n = h->shape[1];
    t->dim = h->shape[2] == 6 ? 3 : 2;
    t->f8 = h->f8;
    if (t->frames == 0 || t->n == 0)
        return boids_error_set(err, BOIDS_ERR_INPUT, "%s: the trajectory has %s", t->path,
                               t->frames == 0 ? "no frame" : "no boid");
    size_t item = t->f8 ? 8 : 4, frame, total;
    if (__builtin_mul_overflow(t->n, h->shape[2] * item, &frame) ||
        __builtin_mul_overflow(frame, t->frames, &total) || total > (size_t)INT64_MAX)
        return boids_error_set(err, BOIDS_ERR_INPUT, "%s: the shape is too large", t->path);
    t->frame_bytes = frame;
    t->data_offset = h->data_offset;
    if ((size_t)size < t->data_offset || (size_t)size - t->data_offset != total)
        return boids_error_set(err, BOIDS_ERR_INPUT,
                               "%s: %lld bytes of data, but its shape (%zu, %zu, %zu) needs %zu",
                               t->path, (long long)size - (long long)t->data_offset, t->frames,
                               t->n, h->shape[2], total);
    return BOIDS_OK;
}

/* The whole of a small file (NUL-terminated; free it), NULL if it does not exist. */
static char *slurp(const char *name, boids_error *err, int *missing) {
    FILE *f = text_fopen_input(name, "sidecar", 1, err);
    *missing = !f && errno == ENOENT;
    if (!f) return NULL;
    char *text = malloc(SIDECAR_MAX + 1);
    size_t len = text ? fread(text, 1, SIDECAR_MAX + 1, f) : 0;
    int bad = ferror(f);
    fclose(f);
    if (!text || bad || len > SIDECAR_MAX) {
        free(text);
        boids_error_set(err, BOIDS_ERR_INPUT, "%s: %s", name,
                        !text ? "out of memory"
                        : bad ? "read error"
                              : "larger than 16 MiB");
        return NULL;
    }
    text[len] = '\0';
    return text;
}

/* A JSON value as the text boids_params_set reads: numbers exactly, booleans, names. 1, or 0
 * for another kind of value, -1 for a string that does not fit buf whole (never cut). */
static int value_text(const cJSON *v, char *buf, size_t size) {
    if (cJSON_IsNumber(v)) return snprintf(buf, size, "%.17g", v->valuedouble), 1;
    if (cJSON_IsBool(v)) return snprintf(buf, size, "%s", cJSON_IsTrue(v) ? "true" : "false"), 1;
    if (cJSON_IsString(v)) return (size_t)snprintf(buf, size, "%s", v->valuestring) < size ? 1 : -1;
    return 0;
}

/* The whole document read strictly before any of it is used: no key twice in one object (cJSON
 * would take the first and drop the other), no number that is not finite (1e999). at is the
 * key path so far ("" at the top), for the message naming the key. */
static boids_status strict_tree(const cJSON *node, const char *name, const char *at,
                                boids_error *err) {
    if (cJSON_IsNumber(node) && !isfinite(node->valuedouble))
        return boids_error_set(err, BOIDS_ERR_INPUT, "%s: %s: %g is not a finite number", name, at,
                               node->valuedouble);
    int i = 0;
    for (const cJSON *c = node->child; c; c = c->next, i++) {
        char path[512];
        if (cJSON_IsObject(node)) {
            for (const cJSON *e = node->child; e != c; e = e->next)
                if (e->string && c->string && !strcmp(e->string, c->string))
                    return boids_error_set(err, BOIDS_ERR_INPUT,
                                           "%s: %s%s%s: the key is given "
                                           "twice",
                                           name, at, *at ? "." : "", c->string);
            snprintf(path, sizeof path, "%s%s%s", at, *at ? "." : "", c->string ? c->string : "");
        } else {
            snprintf(path, sizeof path, "%s[%d]", at, i);
        }
        if (strict_tree(c, name, path, err)) return err->status;
    }
    return BOIDS_OK;
}

/* parameters.values: every key of `boids params`, set over the defaults and validated. */
static boids_status sidecar_params(app_traj_in *t, const char *name, const cJSON *doc,
                                   boids_error *err) {
    const cJSON *pars = cJSON_GetObjectItemCaseSensitive(doc, "parameters");
    const cJSON *vals = cJSON_GetObjectItemCaseSensitive(pars, "values");
    if (!cJSON_IsObject(vals))
        return boids_error_set(err, BOIDS_ERR_INPUT, "%s: no \"parameters\": {\"values\": ...}",
                               name);
    const cJSON *preset = cJSON_GetObjectItemCaseSensitive(pars, "preset");
    size_t np;
    const boids_preset_info *known = boids_preset_table(&np);
    for (size_t i = 0; cJSON_IsString(preset) && i < np; i++)
        if (!strcmp(known[i].name, preset->valuestring))
            snprintf(t->preset, sizeof t->preset, "%s", known[i].name);
    t->params = boids_params_default();
    char where[4200];
    snprintf(where, sizeof where, "%s: parameters.values", name);
    for (const cJSON *v = vals->child; v; v = v->next) {
        char text[128];
        int got = value_text(v, text, sizeof text);
        if (got < 0)
            return boids_error_set(err, BOIDS_ERR_INPUT,
                                   "%s: %s: a string of %zu characters, longer than the %zu a "
                                   "value may have",
                                   where, v->string, strlen(v->valuestring), sizeof text - 1);
        if (!got)
            return boids_error_set(err, BOIDS_ERR_INPUT, "%s: %s is not a number, boolean or name",
                                   where, v->string);
        if (boids_params_set(&t->params, v->string, text, where, err)) return err->status;
    }
    if (boids_params_validate(&t->params, err)) return err->status;
    if ((size_t)t->params.count != t->n || t->params.dim != t->dim)
        return boids_error_set(err, BOIDS_ERR_INPUT,
                               "%s: the run had %ld boids in %d-D, but %s holds %zu in %d-D", name,
                               t->params.count, t->params.dim, t->path, t->n, t->dim);
    return BOIDS_OK;
}

/* Member key of o as a number into *v; 0 if it is not one. */
static int number(const cJSON *o, const char *key, double *v) {
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!cJSON_IsNumber(x)) return 0;
    *v = x->valuedouble;
    return 1;
}

/* interaction.predators or .attractors: {index, x, y, [z,] radius, weight} each. */
static boids_status sidecar_points(const app_traj_in *t, const char *where, const cJSON *list,
                                   boids_point *pts, boids_error *err) {
    const cJSON *e;
    cJSON_ArrayForEach(e, list) {
        boids_point pt = {1, 0, 0, 0, 0, 0};
        double k = -1;
        if (!number(e, "index", &k) || !(k >= 0 && k < BOIDS_MAX_POINTS) || k != floor(k) ||
            !number(e, "x", &pt.x) || !number(e, "y", &pt.y) ||
            (t->dim == 3 && !number(e, "z", &pt.z)) || !number(e, "radius", &pt.radius) ||
            !number(e, "weight", &pt.weight))
            return boids_error_set(err, BOIDS_ERR_INPUT,
                                   "%s: a point without index (0 to %d), x, y,%s radius, weight",
                                   where, BOIDS_MAX_POINTS - 1, t->dim == 3 ? " z," : "");
        if (boids_interact_check_point(&pt, where, err)) return err->status;
        pts[(int)k] = pt;
    }
    return BOIDS_OK;
}

/* interaction.obstacles: {kind: circle, x, y, radius}, {kind: sphere, x, y, z, radius} or
 * {kind: segment, x0, y0, x1, y1}. */
static boids_status sidecar_obstacles(const char *where, const cJSON *list, boids_interact *in,
                                      boids_error *err) {
    const cJSON *e;
    cJSON_ArrayForEach(e, list) {
        const cJSON *kind = cJSON_GetObjectItemCaseSensitive(e, "kind");
        const char *k = cJSON_IsString(kind) ? kind->valuestring : "";
        boids_obstacle o = {0};
        int ok;
        if (!strcmp(k, "segment")) {
            o.kind = BOIDS_OBSTACLE_SEGMENT;
            ok = number(e, "x0", &o.x0) && number(e, "y0", &o.y0) && number(e, "x1", &o.x1) &&
                 number(e, "y1", &o.y1);
        } else {
            o.kind = !strcmp(k, "sphere") ? BOIDS_OBSTACLE_SPHERE : BOIDS_OBSTACLE_CIRCLE;
            ok = (!strcmp(k, "circle") || o.kind == BOIDS_OBSTACLE_SPHERE) &&
                 number(e, "x", &o.x0) && number(e, "y", &o.y0) && number(e, "radius", &o.radius) &&
                 (o.kind != BOIDS_OBSTACLE_SPHERE || number(e, "z", &o.z0));
        }
        if (!ok)
            return boids_error_set(err, BOIDS_ERR_INPUT,
                                   "%s: an obstacle that is not a circle {x, y, radius}, sphere "
                                   "{x, y, z, radius} or segment {x0, y0, x1, y1}",
                                   where);
        if (boids_interact_add_obstacle(in, &o, where, err)) return err->status;
    }
    return BOIDS_OK;
}

/* "interaction": the table the run stepped with (none without the object). */
static boids_status sidecar_interact(app_traj_in *t, const char *name, const cJSON *doc,
                                     boids_error *err) {
    boids_interact_default(&t->inter, &t->params);
    const cJSON *in = cJSON_GetObjectItemCaseSensitive(doc, "interaction");
    if (!in) return BOIDS_OK;
    char where[4200];
    snprintf(where, sizeof where, "%s: interaction", name);
    if (sidecar_points(t, where, cJSON_GetObjectItemCaseSensitive(in, "predators"),
                       t->inter.predators, err) ||
        sidecar_points(t, where, cJSON_GetObjectItemCaseSensitive(in, "attractors"),
                       t->inter.attractors, err) ||
        sidecar_obstacles(where, cJSON_GetObjectItemCaseSensitive(in, "obstacles"), &t->inter, err))
        return err->status;
    return boids_interact_check_dim(&t->inter, t->dim, err);
}

/* output: a trajectory of this shape, sampled at first, first + every, ... */
static boids_status sidecar_output(app_traj_in *t, const char *name, const cJSON *doc,
                                   boids_error *err) {
    const cJSON *out = cJSON_GetObjectItemCaseSensitive(doc, "output");
    const cJSON *kind = cJSON_GetObjectItemCaseSensitive(out, "kind");
    if (!cJSON_IsString(kind) || strcmp(kind->valuestring, "trajectory"))
        return boids_error_set(err, BOIDS_ERR_INPUT,
                               "%s: not a trajectory's sidecar (\"output\": {\"kind\": "
                               "\"trajectory\"} missing)",
                               name);
    const cJSON *shape = cJSON_GetObjectItemCaseSensitive(out, "shape");
    const double want[3] = {(double)t->frames, (double)t->n, 2.0 * t->dim};
    int same = cJSON_GetArraySize(shape) == 3;
    for (int i = 0; same && i < 3; i++) {
        const cJSON *s = cJSON_GetArrayItem(shape, i);
        same = cJSON_IsNumber(s) && s->valuedouble == want[i];
    }
    if (!same)
        return boids_error_set(err, BOIDS_ERR_INPUT,
                               "%s: its \"shape\" is not (%zu, %zu, %d), the shape of %s", name,
                               t->frames, t->n, 2 * t->dim, t->path);
    const cJSON *at = cJSON_GetObjectItemCaseSensitive(out, "sample_steps");
    const cJSON *first = cJSON_GetObjectItemCaseSensitive(at, "first");
    const cJSON *every = cJSON_GetObjectItemCaseSensitive(at, "every");
    if (!cJSON_IsNumber(first) || !cJSON_IsNumber(every))
        return boids_error_set(err, BOIDS_ERR_INPUT,
                               "%s: no \"sample_steps\" {\"first\", \"every\"} of whole steps",
                               name);
    const cJSON *steps[2] = {first, every};
    for (int i = 0; i < 2; i++) {
        double v = steps[i]->valuedouble;
        if (!(v >= i && v <= 1e18 && v == floor(v)))
            return boids_error_set(err, BOIDS_ERR_INPUT,
                                   "%s: output.sample_steps.%s: %.17g is not a whole number of "
                                   "steps in [%d, 1e18]",
                                   name, i ? "every" : "first", v, i);
    }
    t->first = (uint64_t)first->valuedouble;
    t->every = (uint64_t)every->valuedouble;
    return BOIDS_OK;
}

/* FILE.json, if there is one. */
static boids_status read_sidecar(app_traj_in *t, boids_error *err) {
    char *name = app_prov_sidecar_name(t->path);
    if (!name) return boids_error_set(err, BOIDS_ERR_NOMEM, "out of memory");
    int missing = 0;
    char *text = slurp(name, err, &missing);
    boids_status st = BOIDS_OK;
    if (!text) {
        st = missing ? BOIDS_OK : err->status;
    } else {
        cJSON *doc = cJSON_Parse(text);
        if (!doc)
            st = boids_error_set(err, BOIDS_ERR_INPUT, "%s: not valid JSON", name);
        else if (!(st = strict_tree(doc, name, "", err)) &&
                 !(st = sidecar_output(t, name, doc, err)) &&
                 !(st = sidecar_params(t, name, doc, err)))
            st = sidecar_interact(t, name, doc, err);
        t->has_sidecar = !st;
        cJSON_Delete(doc);
    }
    free(text);
    free(name);
    return st;
}

boids_status app_traj_in_open(app_traj_in *t, const char *path, boids_error *err) {
    memset(t, 0, sizeof *t);
    t->path = path;
    t->fd = -1;
    t->every = 1;
    FILE *f = text_fopen_input(path, "trajectory", 1, err);
    if (!f) return err->status;
    struct stat sb;
    npy_header h;
    boids_status st = BOIDS_OK;
    if (fstat(fileno(f), &sb) || !S_ISREG(sb.st_mode))
        st = boids_error_set(err, BOIDS_ERR_INPUT, "%s: not a regular file", path);
    if (!st && !(st = npy_read_header(f, path, &h, err))) st = check_shape(t, &h, sb.st_size, err);
    if (!st) {
        t->fd = dup(fileno(f));
        t->buf = malloc(t->frame_bytes);
        if (t->fd < 0 || !t->buf)
            st = boids_error_set(err, BOIDS_ERR_NOMEM, "%s: out of memory for one frame", path);
    }
    fclose(f);
    if (!st) st = read_sidecar(t, err);
    if (st) app_traj_in_close(t);
    return st;
}

void app_traj_in_close(app_traj_in *t) {
    if (t->fd >= 0) close(t->fd);
    free(t->buf);
    t->fd = -1;
    t->buf = NULL;
}

uint64_t app_traj_in_step(const app_traj_in *t, size_t k) {
    return t->first + (uint64_t)k * t->every;
}

boids_status app_traj_in_read(app_traj_in *t, size_t k, boids_flock *f, boids_error *err) {
    off_t at = (off_t)(t->data_offset + k * t->frame_bytes);
    for (size_t got = 0; got < t->frame_bytes;) {
        ssize_t r = pread(t->fd, t->buf + got, t->frame_bytes - got, at + (off_t)got);
        if (r <= 0)
            return boids_error_set(err, BOIDS_ERR_RUNTIME, "%s: frame %zu: %s", t->path, k,
                                   r < 0 ? strerror(errno) : "the file was cut short");
        got += (size_t)r;
    }
    const size_t item = t->f8 ? 8 : 4;
    const unsigned char *p = t->buf;
    double *pos[3] = {f->x, f->y, f->z}, *vel[3] = {f->vx, f->vy, f->vz};
    for (size_t i = 0; i < t->n; i++) {
        for (int d = 0; d < t->dim; d++, p += item) pos[d][i] = npy_get_value(p, t->f8);
        for (int d = 0; d < t->dim; d++, p += item) vel[d][i] = npy_get_value(p, t->f8);
    }
    f->step = (uint32_t)app_traj_in_step(t, k); /* the flock's field is 32 bits: shown only */
    return BOIDS_OK;
}

boids_status app_traj_in_read_shown(app_traj_in *t, size_t k, boids_flock *f, boids_flock *prev,
                                    int *banked, boids_error *err) {
    *banked = t->dim == 3 && k > 0;
    if (*banked && app_traj_in_read(t, k - 1, prev, err)) return err->status;
    return app_traj_in_read(t, k, f, err);
}

/* The index of column `name` in a CSV header line, or -1. */
static int column(const char *header, const char *name) {
    size_t len = strlen(name);
    int c = 0;
    for (const char *p = header;; c++) {
        size_t w = strcspn(p, ",\r\n");
        if (w == len && !strncmp(p, name, len)) return c;
        if (p[w] != ',') return -1;
        p += w + 1;
    }
}

/* Row `line` of the series (frame k): its step and the order column's value. */
static boids_status series_row(const app_traj_in *t, const char *path, char *row, long line,
                               int col, size_t k, double *order, boids_error *err) {
    char *end;
    errno = 0;
    unsigned long long step = strtoull(row, &end, 10);
    if (end == row || *end != ',' || errno || k >= t->frames || step != app_traj_in_step(t, k))
        return boids_error_set(
            err, BOIDS_ERR_INPUT, "%s:%ld: not the step %llu of frame %zu of %s", path, line,
            k < t->frames ? (unsigned long long)app_traj_in_step(t, k) : 0ull, k, t->path);
    char *p = row;
    for (int c = 0; c < col && p; c++) p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL;
    double v = p ? strtod(p, &end) : 0;
    if (!p || end == p || (*end && *end != ',' && *end != '\n' && *end != '\r'))
        return boids_error_set(err, BOIDS_ERR_INPUT, "%s:%ld: no order value", path, line);
    /* The order is |sum of N unit vectors| / N, each rounded: a parallel flock may print
     * 1 + a few ulps, a rounding error that grows like N * 2^-53, below 1e-6 for N <= 1e9. */
    if (!(v >= 0 && v <= 1 + 1e-6))
        return boids_error_set(err, BOIDS_ERR_INPUT, "%s:%ld: order %.17g is outside [0, 1]", path,
                               line, v);
    order[k] = v;
    return BOIDS_OK;
}

boids_status app_traj_in_series_order(const app_traj_in *t, const char *path, double **order,
                                      boids_error *err) {
    FILE *f = text_fopen_input(path, "--series file", 1, err);
    if (!f) return err->status;
    char row[8192];
    int col = fgets(row, sizeof row, f) && !strncmp(row, "step,", 5) ? column(row, "order") : -1;
    double *o = col > 0 ? malloc(t->frames * sizeof *o) : NULL;
    boids_status st = BOIDS_OK;
    if (col <= 0)
        st = boids_error_set(err, BOIDS_ERR_INPUT,
                             "%s:1: not a series (a header step,...,order,...)", path);
    else if (!o)
        st = boids_error_set(err, BOIDS_ERR_NOMEM, "--series %s: out of memory", path);
    size_t k = 0;
    for (long line = 2; !st && fgets(row, sizeof row, f); line++, k++)
        st = series_row(t, path, row, line, col, k, o, err);
    if (!st && k != t->frames)
        st = boids_error_set(err, BOIDS_ERR_INPUT, "%s: %zu rows, %s has %zu frames", path, k,
                             t->path, t->frames);
    fclose(f);
    if (st) free(o);
    *order = st ? NULL : o;
    return st;
}
