/* SPDX-License-Identifier: MIT */
#include "boids/state_io.h"

#include "boids/atomic_file.h"
#include "check.h"
#include "text_lines.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A boid's line holds four (3-D: six) numbers of at most 24 characters (%.17g) and any further
 * columns; the bound keeps a file of one huge line from being read into memory. */
enum { STATE_MAX_LINE = 4096 };
/* The count key's maximum: more boids than any parameter set allows is not a state. */
#define STATE_MAX_BOIDS 1000000000u

static char *trim(char *s) {
    while (*s == ' ' || *s == '\t') s++;
    size_t len = strlen(s);
    while (len && (s[len - 1] == ' ' || s[len - 1] == '\t')) s[--len] = '\0';
    return s;
}

/* Cuts the first six comma-separated fields of line into f (trimmed) and returns the number
 * of fields of the whole line, however many. */
static size_t fields(char *line, char *f[6]) {
    size_t n = 0;
    for (char *s = line;; n++) {
        char *c = strchr(s, ',');
        if (c && n < 6) *c = '\0';
        if (n < 6) f[n] = trim(s);
        if (!c) return n + 1;
        s = c + 1;
    }
}

/* `# step=K` with K a decimal integer in [0, 2^32 - 1]; returns 0 if line is not that. */
static int parse_step(const char *line, uint32_t *step) {
    static const char prefix[] = "# step=";
    if (strncmp(line, prefix, sizeof prefix - 1) != 0) return 0;
    const char *digits = line + sizeof prefix - 1;
    if (*digits < '0' || *digits > '9') return 0;
    char *end;
    errno = 0;
    unsigned long long k = strtoull(digits, &end, 10);
    if (*end != '\0' || errno == ERANGE || k > UINT32_MAX) return 0;
    *step = (uint32_t)k;
    return 1;
}

/* `# dim=D` with D 2 or 3; returns 0 if line is not that. */
static int parse_dim(const char *line, int *dim) {
    if (!strcmp(line, "# dim=2")) return *dim = 2, 1;
    if (!strcmp(line, "# dim=3")) return *dim = 3, 1;
    return 0;
}

/* The header of a state of dim 2 or 3 and its leading columns. */
static const char *const names2[4] = {"x", "y", "vx", "vy"};
static const char *const names3[6] = {"x", "y", "z", "vx", "vy", "vz"};

typedef struct loader {
    text_lines t;
    const boids_params *p; /* NULL: no check against parameters */
    size_t columns, n, cap;
    double *rows; /* 2 * dim values a boid, grown as the file is read */
    uint32_t step;
    int dim;     /* from the `# dim=D` line; 2 without one */
    int vals;    /* 2 * dim: values a boid */
    int has_dim; /* the file had a `# dim=D` line */
} loader;

/* The comment lines before the header: `# step=K` first if present, then `# dim=D` if
 * present. Leaves *line at the first other line; *r is text_next's result for it. */
static boids_status read_comments(loader *L, char **line, int *r, boids_error *err) {
    *r = text_next(&L->t, line, err);
    if (*r == 1 && (*line)[0] == '#' && parse_step(*line, &L->step))
        *r = text_next(&L->t, line, err);
    if (*r == 1 && (*line)[0] == '#') {
        if (!parse_dim(*line, &L->dim))
            return boids_error_set(err, BOIDS_ERR_INPUT,
                                   "%s:%zu: expected %s`# dim=D` (D 2 or 3) or the header",
                                   L->t.path, L->t.lineno,
                                   L->t.lineno == 1 ? "`# step=K` (K in [0, 4294967295]), " : "");
        L->has_dim = 1;
        *r = text_next(&L->t, line, err);
    }
    return BOIDS_OK;
}

/* The lines before the boids: an optional step line, an optional dim line, then the header
 * (x,y,vx,vy in 2-D, x,y,z,vx,vy,vz in 3-D). */
static boids_status read_head(loader *L, boids_error *err) {
    char *line;
    int r;
    L->dim = 2;
    boids_status s = read_comments(L, &line, &r, err);
    if (s) return s;
    L->vals = 2 * L->dim;
    const char *header = L->dim == 3 ? "x,y,z,vx,vy,vz" : "x,y,vx,vy";
    if (r < 0) return err ? err->status : BOIDS_ERR_INPUT;
    if (r == 0 && L->t.lineno >= 1)
        return boids_error_set(err, BOIDS_ERR_INPUT,
                               "%s:%zu: expected the header %s after the %s line, found the end "
                               "of the file",
                               L->t.path, L->t.lineno + 1, header, L->has_dim ? "dim" : "step");
    if (r == 0)
        return boids_error_set(err, BOIDS_ERR_INPUT, "%s: empty file (expected the header %s)",
                               L->t.path, header);
    if (L->p && L->p->dim != L->dim)
        return boids_error_set(err, BOIDS_ERR_INPUT,
                               "%s: the state is %d-D (%s) but the parameters say dim = %d (set "
                               "dim = %d to run it)",
                               L->t.path, L->dim, L->has_dim ? "its `# dim=3` line" : "no dim line",
                               L->p->dim, L->dim);
    const char *const *names = L->dim == 3 ? names3 : names2;
    char *f[6];
    size_t nf = fields(line, f);
    for (int c = 0; c < L->vals; c++)
        if (nf < (size_t)L->vals || strcmp(f[c], names[c]) != 0)
            return boids_error_set(err, BOIDS_ERR_INPUT,
                                   "%s:%zu: bad header: expected %s (further columns allowed)%s",
                                   L->t.path, L->t.lineno, header,
                                   L->dim == 2 && nf >= 3 && !strcmp(f[2], "z")
                                       ? "; a 3-D state needs the line `# dim=3` before it"
                                       : "");
    L->columns = nf;
    return BOIDS_OK;
}

/* One boid's line: the column count of the header, four finite numbers and, with
 * parameters, a boid they allow (boids_boid_check). */
static boids_status read_boid(loader *L, char *line, boids_error *err) {
    const char *const *names = L->dim == 3 ? names3 : names2;
    const char *path = L->t.path;
    size_t lineno = L->t.lineno;
    char *f[6];
    size_t nf = fields(line, f);
    if (nf == 1 && f[0][0] == '\0')
        return boids_error_set(err, BOIDS_ERR_INPUT, "%s:%zu: empty line", path, lineno);
    if (nf != L->columns)
        return boids_error_set(err, BOIDS_ERR_INPUT,
                               "%s:%zu: expected %zu columns as in the header, found %zu", path,
                               lineno, L->columns, nf);
    if (L->n == STATE_MAX_BOIDS)
        return boids_error_set(err, BOIDS_ERR_INPUT, "%s:%zu: more than %u boids", path, lineno,
                               STATE_MAX_BOIDS);
    if (L->n == L->cap) {
        size_t cap = L->cap ? 2 * L->cap : 1024;
        double *grown = realloc(L->rows, cap * (size_t)L->vals * sizeof(double));
        if (!grown)
            return boids_error_set(err, BOIDS_ERR_NOMEM, "%s:%zu: out of memory", path, lineno);
        L->rows = grown;
        L->cap = cap;
    }
    double *v = &L->rows[(size_t)L->vals * L->n];
    for (int c = 0; c < L->vals; c++) {
        char *end;
        v[c] = strtod(f[c], &end);
        if (end == f[c] || *end != '\0')
            return boids_error_set(err, BOIDS_ERR_INPUT, "%s:%zu: column %s: '%s' is not a number",
                                   path, lineno, names[c], f[c]);
        if (!isfinite(v[c]))
            return boids_error_set(err, BOIDS_ERR_INPUT,
                                   "%s:%zu: column %s: '%s' is not a finite number", path, lineno,
                                   names[c], f[c]);
    }
    if (L->p) {
        char where[200];
        snprintf(where, sizeof where, "%s:%zu: boid %zu", path, lineno, L->n);
        boids_status s = L->dim == 3 ? boids_boid_check3(L->p, v, 1, where, err)
                                     : boids_boid_check(L->p, v, 1, where, err);
        if (s) return s;
    }
    L->n++;
    return BOIDS_OK;
}

static boids_status load(const char *path, const boids_params *p, boids_flock *out,
                         boids_error *err) {
    if (!path || !out)
        return boids_error_set(err, BOIDS_ERR_INPUT, "boids_state_load: %s is NULL",
                               !path ? "the file name" : "the flock");
    memset(out, 0, sizeof *out);
    loader L;
    memset(&L, 0, sizeof L);
    L.p = p;
    boids_status s = text_open(&L.t, path, "state file", STATE_MAX_LINE, 0, 0, err);
    if (s) return s;
    s = read_head(&L, err);
    char *line;
    int r = 0;
    while (!s && (r = text_next(&L.t, &line, err)) == 1) s = read_boid(&L, line, err);
    if (!s && r < 0) s = err ? err->status : BOIDS_ERR_INPUT;
    if (!s && L.n == 0)
        s = boids_error_set(err, BOIDS_ERR_INPUT, "%s: no boids after the header", L.t.path);
    if (!s) s = boids_flock_alloc_dim(out, L.n, L.dim, err);
    for (size_t i = 0; !s && i < L.n && L.dim == 2; i++) {
        out->x[i] = L.rows[4 * i];
        out->y[i] = L.rows[4 * i + 1];
        out->vx[i] = L.rows[4 * i + 2];
        out->vy[i] = L.rows[4 * i + 3];
    }
    for (size_t i = 0; !s && i < L.n && L.dim == 3; i++) {
        out->x[i] = L.rows[6 * i];
        out->y[i] = L.rows[6 * i + 1];
        out->z[i] = L.rows[6 * i + 2];
        out->vx[i] = L.rows[6 * i + 3];
        out->vy[i] = L.rows[6 * i + 4];
        out->vz[i] = L.rows[6 * i + 5];
    }
    if (!s) out->step = L.step;
    free(L.rows);
    text_close(&L.t);
    return s;
}

boids_status boids_state_load(const char *path, boids_flock *out, boids_error *err) {
    return load(path, NULL, out, err);
}

boids_status boids_state_load_for(const char *path, const boids_params *p, boids_flock *out,
                                  boids_error *err) {
    if (!p) return boids_error_set(err, BOIDS_ERR_INPUT, "boids_state_load_for: p is NULL");
    return load(path, p, out, err);
}

boids_status boids_state_save(const char *path, const boids_flock *fl, boids_error *err) {
    const char *bad = path ? boids_flock_bad_arrays(fl) : "the file name is NULL";
    if (bad) return boids_error_set(err, BOIDS_ERR_INPUT, "boids_state_save: %s", bad);
    boids_atomic_file a;
    boids_status s = boids_atomic_open(&a, path, err);
    if (s) return s;
    if (fl->z) {
        fprintf(a.f, "# step=%lu\n# dim=3\nx,y,z,vx,vy,vz\n", (unsigned long)fl->step);
        for (size_t i = 0; i < fl->n; i++)
            fprintf(a.f, "%.17g,%.17g,%.17g,%.17g,%.17g,%.17g\n", fl->x[i], fl->y[i], fl->z[i],
                    fl->vx[i], fl->vy[i], fl->vz[i]);
        return boids_atomic_commit(&a, err);
    }
    fprintf(a.f, "# step=%lu\nx,y,vx,vy\n", (unsigned long)fl->step);
    for (size_t i = 0; i < fl->n; i++)
        fprintf(a.f, "%.17g,%.17g,%.17g,%.17g\n", fl->x[i], fl->y[i], fl->vx[i], fl->vy[i]);
    return boids_atomic_commit(&a, err);
}
