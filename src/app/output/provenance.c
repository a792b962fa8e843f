/* SPDX-License-Identifier: MIT */
#include "output/provenance.h"

#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "atomic_file.h"
#include "clock.h"
#include "boids/version.h"

#ifndef BOIDS_GIT_COMMIT
#error "BOIDS_GIT_COMMIT is defined by CMake (configure-time git rev-parse, or unknown)"
#endif

void app_prov_begin(app_prov *pv) {
    pv->start = time(NULL);
    pv->start_mono = mono_seconds();
}

static void utc_text(time_t t, char *buf, size_t size) {
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(buf, size, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* The whole of /proc/self/cmdline (NUL-separated arguments), or NULL when unreadable. */
static char *read_cmdline(size_t *len) {
    FILE *f = fopen("/proc/self/cmdline", "rb");
    if (!f) return NULL;
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap + 1);
    for (size_t got; buf && (got = fread(buf + n, 1, cap - n, f)) > 0;) {
        n += got;
        if (n == cap) {
            char *b = realloc(buf, 2 * cap + 1);
            if (!b) free(buf);
            buf = b;
            cap *= 2;
        }
    }
    fclose(f);
    if (buf) buf[n] = '\0';
    *len = n;
    return buf;
}

/* A word a POSIX shell reads back as itself: bare when it holds only safe characters,
 * otherwise in single quotes with each ' written as '\''. */
static void shell_quote(const char *w, char *out) {
    int bare = *w != '\0';
    for (const char *c = w; *c; c++)
        if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./:=,+-@%", *c))
            bare = 0;
    if (bare) {
        strcpy(out, w);
        return;
    }
    *out++ = '\'';
    for (const char *c = w; *c; c++) {
        if (*c == '\'') {
            memcpy(out, "'\\''", 4);
            out += 4;
        } else {
            *out++ = *c;
        }
    }
    strcpy(out, "'");
}

/* "argv": the arguments, "command_line": the same as one shell line. */
static int add_command_line(cJSON *doc) {
    size_t len = 0;
    char *buf = read_cmdline(&len);
    cJSON *argv = cJSON_AddArrayToObject(doc, "argv");
    char *line = buf ? malloc(4 * len + 2) : NULL; /* quoting at most quadruples a word */
    if (!argv || (buf && !line)) {
        free(buf);
        return -1;
    }
    if (line) line[0] = '\0';
    for (size_t i = 0; buf && i < len; i += strlen(buf + i) + 1) {
        cJSON_AddItemToArray(argv, cJSON_CreateString(buf + i));
        if (i) strcat(line, " ");
        shell_quote(buf + i, line + strlen(line));
    }
    cJSON *cl = line ? cJSON_AddStringToObject(doc, "command_line", line)
                     : cJSON_AddNullToObject(doc, "command_line");
    free(line);
    free(buf);
    return cl ? 0 : -1;
}

/* The value of key t in p: a number, true/false, or an enum's name. */
static cJSON *param_json(const boids_param_info *t, const boids_params *p) {
    const char *field = (const char *)p + t->offset;
    switch (t->type) {
    case BOIDS_KEY_REAL:
        return cJSON_CreateNumber(*(const double *)(const void *)field);
    case BOIDS_KEY_INT:
        return cJSON_CreateNumber((double)*(const long *)(const void *)field);
    case BOIDS_KEY_BOOL:
        return cJSON_CreateBool(*(const int *)(const void *)field);
    case BOIDS_KEY_ENUM:
        return cJSON_CreateString(t->choices[*(const int *)(const void *)field]);
    }
    return cJSON_CreateNull();
}

/* Every key of the parameter table with its value in p. */
static cJSON *params_object(const boids_params *p) {
    cJSON *obj = cJSON_CreateObject();
    size_t n;
    const boids_param_info *t = boids_param_table(&n);
    for (size_t i = 0; obj && i < n; i++)
        cJSON_AddItemToObject(obj, t[i].key, param_json(&t[i], p));
    return obj;
}

cJSON *app_prov_value(const char *key, const char *text) {
    size_t n;
    const boids_param_info *t = boids_param_table(&n);
    boids_params p = boids_params_default();
    boids_error err;
    for (size_t i = 0; i < n; i++)
        if (!strcmp(t[i].key, key) && !boids_params_set(&p, key, text, "sweep", &err))
            return param_json(&t[i], &p);
    return cJSON_CreateString(text);
}

cJSON *app_prov_integer(unsigned long long v) {
    char text[32];
    snprintf(text, sizeof text, "%llu", v);
    return cJSON_CreateRaw(text);
}

cJSON *app_prov_columns(const char *header) {
    cJSON *arr = cJSON_CreateArray();
    for (const char *c = header; arr && *c && *c != '\n';) {
        size_t len = strcspn(c, ",\n");
        char name[256];
        snprintf(name, sizeof name, "%.*s", (int)(len < sizeof name ? len : sizeof name - 1), c);
        cJSON_AddItemToArray(arr, cJSON_CreateString(name));
        c += len + (c[len] == ',');
    }
    return arr;
}

/* How the base parameters were built, then their values. */
static cJSON *parameters_object(const app_prov_run *run, const boids_params *base) {
    cJSON *obj = cJSON_CreateObject();
    if (!obj) return NULL;
    cJSON_AddStringToObject(obj, "preset", run->preset ? run->preset : "lab");
    if (run->config)
        cJSON_AddStringToObject(obj, "config", run->config);
    else
        cJSON_AddNullToObject(obj, "config");
    cJSON_AddItemToObject(obj, "set", cJSON_CreateStringArray(run->sets, run->nsets));
    cJSON_AddItemToObject(obj, "seed", app_prov_integer(run->seed));
    if (run->load)
        cJSON_AddStringToObject(obj, "load", run->load);
    else
        cJSON_AddNullToObject(obj, "load");
    cJSON_AddItemToObject(obj, "values", params_object(base));
    return obj;
}

/* The points that are on (index, position, radius, weight) of one of the table's lists; z
 * only in a 3-D world (dim 3), where the rules take it. */
static cJSON *points_array(const boids_point *t, int dim) {
    cJSON *arr = cJSON_CreateArray();
    for (int i = 0; arr && i < BOIDS_MAX_POINTS; i++) {
        if (!t[i].on) continue;
        cJSON *pt = cJSON_CreateObject();
        if (!pt) return cJSON_Delete(arr), NULL;
        cJSON_AddNumberToObject(pt, "index", i);
        cJSON_AddNumberToObject(pt, "x", t[i].x);
        cJSON_AddNumberToObject(pt, "y", t[i].y);
        if (dim == 3) cJSON_AddNumberToObject(pt, "z", t[i].z);
        cJSON_AddNumberToObject(pt, "radius", t[i].radius);
        cJSON_AddNumberToObject(pt, "weight", t[i].weight);
        cJSON_AddItemToArray(arr, pt);
    }
    return arr;
}

/* The interaction table the backends stepped with, in a world of dimension dim: the points
 * that are on and every obstacle, as the config file's lines give them (NULL: none). */
static cJSON *interaction_object(const boids_interact *in, int dim) {
    static const boids_interact none; /* no points on, no obstacles */
    if (!in) in = &none;
    cJSON *obj = cJSON_CreateObject(), *obs = cJSON_CreateArray();
    if (!obj || !obs) return cJSON_Delete(obj), cJSON_Delete(obs), NULL;
    cJSON_AddItemToObject(obj, "predators", points_array(in->predators, dim));
    cJSON_AddItemToObject(obj, "attractors", points_array(in->attractors, dim));
    cJSON_AddItemToObject(obj, "obstacles", obs);
    for (int i = 0; i < in->obstacle_count; i++) {
        const boids_obstacle *o = &in->obstacles[i];
        cJSON *ob = cJSON_CreateObject();
        if (!ob) return cJSON_Delete(obj), NULL;
        int circle = o->kind == BOIDS_OBSTACLE_CIRCLE, sphere = o->kind == BOIDS_OBSTACLE_SPHERE;
        cJSON_AddStringToObject(ob, "kind", sphere ? "sphere" : circle ? "circle" : "segment");
        cJSON_AddNumberToObject(ob, circle || sphere ? "x" : "x0", o->x0);
        cJSON_AddNumberToObject(ob, circle || sphere ? "y" : "y0", o->y0);
        if (sphere) cJSON_AddNumberToObject(ob, "z", o->z0);
        if (circle || sphere) {
            cJSON_AddNumberToObject(ob, "radius", o->radius);
        } else {
            cJSON_AddNumberToObject(ob, "x1", o->x1);
            cJSON_AddNumberToObject(ob, "y1", o->y1);
        }
        cJSON_AddItemToArray(obs, ob);
    }
    if (!cJSON_GetObjectItemCaseSensitive(obj, "predators") ||
        !cJSON_GetObjectItemCaseSensitive(obj, "attractors"))
        return cJSON_Delete(obj), NULL;
    return obj;
}

/* The model name of the first CPU in /proc/cpuinfo, or "unknown". */
static void cpu_model(char *buf, size_t size) {
    snprintf(buf, size, "unknown");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f) return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        const char *colon = strchr(line, ':');
        if (strncmp(line, "model name", 10) || !colon) continue;
        snprintf(buf, size, "%s", colon + 1 + (colon[1] == ' '));
        buf[strcspn(buf, "\n")] = '\0';
        break;
    }
    fclose(f);
}

static cJSON *machine_object(void) {
    cJSON *obj = cJSON_CreateObject();
    if (!obj) return NULL;
    char host[256] = "unknown", cpu[256], os[3 * 65 + 3] = "unknown";
    if (gethostname(host, sizeof host - 1) != 0) strcpy(host, "unknown");
    host[sizeof host - 1] = '\0';
    struct utsname u;
    if (uname(&u) == 0) snprintf(os, sizeof os, "%s %s %s", u.sysname, u.release, u.machine);
    cpu_model(cpu, sizeof cpu);
    cJSON_AddStringToObject(obj, "host", host);
    cJSON_AddStringToObject(obj, "os", os);
    cJSON_AddStringToObject(obj, "cpu_model", cpu);
    cJSON_AddNumberToObject(obj, "online_cpus", (double)sysconf(_SC_NPROCESSORS_ONLN));
    return obj;
}

static cJSON *backend_object(const app_prov_run *run) {
    cJSON *obj = cJSON_CreateObject();
    if (!obj) return NULL;
    cJSON_AddStringToObject(obj, "name", run->backend);
    if (!strcmp(run->backend, "gpu"))
        cJSON_AddStringToObject(obj, "gpu_mode", run->deterministic ? "deterministic" : "fast");
    /* --threads, or all: OpenMP's default, as the backend takes it. */
    if (!strcmp(run->backend, "cpu")) {
#ifdef _OPENMP
        int all = omp_get_max_threads();
#else
        int all = 1;
#endif
        cJSON_AddNumberToObject(obj, "threads", run->threads > 0 ? run->threads : all);
    }
    return obj;
}

cJSON *app_prov_document(const app_prov *pv, const app_prov_run *run, const boids_params *base) {
    cJSON *doc = cJSON_CreateObject();
    if (!doc) return NULL;
    char start[32], end[32];
    utc_text(pv->start, start, sizeof start);
    utc_text(time(NULL), end, sizeof end);
    cJSON *prog = cJSON_AddObjectToObject(doc, "program");
    if (prog) {
        cJSON_AddStringToObject(prog, "name", "boids");
        cJSON_AddStringToObject(prog, "version", boids_version());
        cJSON_AddStringToObject(prog, "commit", BOIDS_GIT_COMMIT);
    }
    int bad = !prog || add_command_line(doc) != 0;
    cJSON_AddItemToObject(doc, "parameters", parameters_object(run, base));
    cJSON_AddItemToObject(doc, "interaction", interaction_object(run->inter, base->dim));
    cJSON_AddItemToObject(doc, "backend", backend_object(run));
    cJSON_AddStringToObject(doc, "renderer", run->renderer ? run->renderer : "none");
    cJSON_AddItemToObject(doc, "machine", machine_object());
    cJSON_AddStringToObject(doc, "start", start);
    cJSON_AddStringToObject(doc, "end", end);
    cJSON_AddNumberToObject(doc, "wall_seconds", mono_seconds() - pv->start_mono);
    const char *need[] = {"parameters", "interaction", "backend", "renderer",
                          "machine",    "start",       "end",     "wall_seconds"};
    for (size_t i = 0; i < sizeof need / sizeof need[0]; i++)
        if (!cJSON_GetObjectItemCaseSensitive(doc, need[i])) bad = 1;
    if (bad) {
        cJSON_Delete(doc);
        return NULL;
    }
    return doc;
}

boids_status app_prov_write(const char *path, const cJSON *doc, boids_error *err) {
    char *text = cJSON_Print(doc);
    if (!text) return boids_error_set(err, BOIDS_ERR_NOMEM, "out of memory writing %s", path);
    boids_atomic_file a;
    boids_status st = boids_atomic_open(&a, path, err);
    if (!st) {
        fputs(text, a.f);
        fputc('\n', a.f);
        st = boids_atomic_commit(&a, err);
    }
    free(text);
    return st;
}

/* file + ".json" in a buffer the caller frees, or NULL. */
char *app_prov_sidecar_name(const char *file) {
    char *name = malloc(strlen(file) + 6);
    if (name) strcat(strcpy(name, file), ".json");
    return name;
}

boids_status app_prov_sidecar(const char *file, const cJSON *doc, boids_error *err) {
    char *name = app_prov_sidecar_name(file);
    if (!name) return boids_error_set(err, BOIDS_ERR_NOMEM, "out of memory");
    boids_status st = app_prov_write(name, doc, err);
    free(name);
    return st;
}

boids_status app_prov_check_sidecar(const char *file, boids_error *err) {
    char *name = app_prov_sidecar_name(file);
    if (!name) return boids_error_set(err, BOIDS_ERR_NOMEM, "out of memory");
    boids_status st = boids_atomic_check_writable(name, err);
    free(name);
    return st;
}
