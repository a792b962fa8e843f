#include "boids/state_io.h"

#include "boids/atomic_file.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Splits a CSV line in place at commas; returns the number of fields (at most max). */
static int split(char *line, char **fields, int max) {
    int n = 0;
    char *s = line;
    for (;;) {
        if (n < max) fields[n] = s;
        n++;
        char *c = strchr(s, ',');
        if (!c) break;
        *c = '\0';
        s = c + 1;
    }
    return n;
}

static void chomp(char *s) {
    size_t len = strlen(s);
    while (len && (s[len - 1] == '\n' || s[len - 1] == '\r')) s[--len] = '\0';
}

static char *trim(char *s) {
    while (*s == ' ' || *s == '\t') s++;
    size_t len = strlen(s);
    while (len && (s[len - 1] == ' ' || s[len - 1] == '\t')) s[--len] = '\0';
    return s;
}

boids_status boids_state_load(const char *path, boids_flock *out, boids_error *err) {
    static const char *names[4] = {"x", "y", "vx", "vy"};
    if (!path || !out)
        return boids_error_set(err, BOIDS_ERR_INPUT, "boids_state_load: %s is NULL",
                               !path ? "the file name" : "the flock");
    memset(out, 0, sizeof *out);
    FILE *f = fopen(path, "r");
    if (!f)
        return boids_error_set(err, BOIDS_ERR_INPUT, "%s: cannot open state file: %s", path,
                               strerror(errno));
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    boids_status s = BOIDS_OK;
    size_t lineno = 0, n = 0, capn = 0;
    int columns = 0;
    double *rows = NULL; /* 4 values a boid, grown as the file is read */

    while ((len = getline(&line, &cap, f)) != -1) {
        lineno++;
        if ((size_t)len != strlen(line)) {
            s = boids_error_set(err, BOIDS_ERR_INPUT, "%s:%zu: contains a NUL byte", path, lineno);
            goto done;
        }
        chomp(line);
        char *fields[64];
        int nf = split(line, fields, 64);
        if (lineno == 1) {
            if (nf < 4 || nf > 64) goto bad_header;
            for (int c = 0; c < 4; c++)
                if (strcmp(trim(fields[c]), names[c]) != 0) goto bad_header;
            columns = nf;
            continue;
        }
        if (nf == 1 && trim(fields[0])[0] == '\0') {
            s = boids_error_set(err, BOIDS_ERR_INPUT, "%s:%zu: empty line", path, lineno);
            goto done;
        }
        if (nf != columns) {
            s = boids_error_set(err, BOIDS_ERR_INPUT,
                                "%s:%zu: expected %d columns as in the header, found %d", path,
                                lineno, columns, nf);
            goto done;
        }
        if (n == capn) {
            capn = capn ? 2 * capn : 1024;
            double *grown = realloc(rows, capn * 4 * sizeof(double));
            if (!grown) {
                s = boids_error_set(err, BOIDS_ERR_NOMEM, "%s:%zu: out of memory", path, lineno);
                goto done;
            }
            rows = grown;
        }
        for (int c = 0; c < 4; c++) {
            char *text = trim(fields[c]), *end;
            errno = 0;
            double v = strtod(text, &end);
            if (end == text || *end != '\0') {
                s = boids_error_set(err, BOIDS_ERR_INPUT, "%s:%zu: column %s: '%s' is not a number",
                                    path, lineno, names[c], text);
                goto done;
            }
            if (!isfinite(v)) {
                s = boids_error_set(err, BOIDS_ERR_INPUT,
                                    "%s:%zu: column %s: '%s' is not a finite number", path, lineno,
                                    names[c], text);
                goto done;
            }
            rows[4 * n + c] = v;
        }
        n++;
    }
    if (ferror(f)) {
        s = boids_error_set(err, BOIDS_ERR_INPUT, "%s: read error: %s", path, strerror(errno));
        goto done;
    }
    if (lineno == 0) {
        s = boids_error_set(err, BOIDS_ERR_INPUT, "%s: empty file (expected the header x,y,vx,vy)",
                            path);
        goto done;
    }
    if (n == 0) {
        s = boids_error_set(err, BOIDS_ERR_INPUT, "%s: no boids after the header", path);
        goto done;
    }
    s = boids_flock_alloc(out, n, err);
    if (s) goto done;
    for (size_t i = 0; i < n; i++) {
        out->x[i] = rows[4 * i];
        out->y[i] = rows[4 * i + 1];
        out->vx[i] = rows[4 * i + 2];
        out->vy[i] = rows[4 * i + 3];
    }
    goto done;
bad_header:
    s = boids_error_set(err, BOIDS_ERR_INPUT,
                        "%s:1: bad header: expected x,y,vx,vy (further columns allowed)", path);
done:
    free(rows);
    free(line);
    fclose(f);
    return s;
}

boids_status boids_state_save(const char *path, const boids_flock *fl, boids_error *err) {
    if (!path || !fl || (fl->n && !fl->x))
        return boids_error_set(err, BOIDS_ERR_INPUT, "boids_state_save: %s",
                               !path ? "the file name is NULL"
                               : !fl ? "the flock is NULL"
                                     : "the flock's arrays are not allocated");
    boids_atomic_file a;
    boids_status s = boids_atomic_open(&a, path, err);
    if (s) return s;
    fputs("x,y,vx,vy\n", a.f);
    for (size_t i = 0; i < fl->n; i++)
        fprintf(a.f, "%.17g,%.17g,%.17g,%.17g\n", fl->x[i], fl->y[i], fl->vx[i], fl->vy[i]);
    return boids_atomic_commit(&a, err);
}
