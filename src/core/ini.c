/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <string.h>

#include "boids/ini.h"
#include "boids/params.h"
#include "text_lines.h"

/* Config files are small: a bound far above any real one keeps /dev/zero-like input out. */
enum { INI_MAX_BYTES = 1 << 20, INI_MAX_LINE = 1024 };

static char *trim(char *s) {
    while (*s == ' ' || *s == '\t') s++;
    size_t len = strlen(s);
    while (len && (s[len - 1] == ' ' || s[len - 1] == '\t')) s[--len] = '\0';
    return s;
}

/* One line: blank, a comment (`#` or `;` first), or `key = value` with an optional comment
 * after whitespace, handed to fn. Every line stands alone: no continuation lines, no
 * sections. */
static boids_status parse_line(char *line, const char *where, boids_ini_fn fn, void *user,
                               boids_error *err) {
    char *s = trim(line);
    if (*s == '\0' || *s == '#' || *s == ';') return BOIDS_OK;
    if (*s == '[')
        return boids_error_set(err, BOIDS_ERR_INPUT,
                               "%s: section %s is not supported: write `key = value` lines only",
                               where, s);
    char *eq = strchr(s, '=');
    if (!eq)
        return boids_error_set(err, BOIDS_ERR_INPUT, "%s: syntax error: expected `key = value`",
                               where);
    *eq = '\0';
    /* A comment starts at `#` or `;` after whitespace inside the value, not at its first
     * character: `view.background = #102030` is a colour. */
    char *key = trim(s), *value = trim(eq + 1);
    for (char *c = value; *c; c++)
        if ((*c == '#' || *c == ';') && c > value && (c[-1] == ' ' || c[-1] == '\t')) {
            *c = '\0';
            break;
        }
    value = trim(value);
    if (*key == '\0')
        return boids_error_set(err, BOIDS_ERR_INPUT, "%s: syntax error: no key before `=`", where);
    return fn(user, key, value, where, err);
}

boids_status boids_ini_read(const char *path, boids_ini_fn fn, void *user, boids_error *err) {
    if (!path || !fn)
        return boids_error_set(err, BOIDS_ERR_INPUT, "boids_ini_read: %s is NULL",
                               !path ? "the file name" : "the function");
    text_lines t;
    boids_status s = text_open(&t, path, "config file", INI_MAX_LINE, INI_MAX_BYTES, 1, err);
    if (s) return s;
    char *line;
    int r = 0;
    while (!s && (r = text_next(&t, &line, err)) == 1) {
        char where[200];
        snprintf(where, sizeof where, "%s:%zu", t.path, t.lineno);
        s = parse_line(line, where, fn, user, err);
    }
    if (!s && r < 0) s = err ? err->status : BOIDS_ERR_INPUT;
    text_close(&t);
    return s;
}

/* The parameters' reader: every key is a parameter, except those `theirs` claims for
 * another reader of the same file. */
typedef struct params_ctx {
    boids_params *p;
    int (*theirs)(const char *key);
} params_ctx;

static boids_status set_param(void *user, const char *key, const char *value, const char *where,
                              boids_error *err) {
    params_ctx *c = user;
    if (c->theirs && c->theirs(key)) return BOIDS_OK;
    return boids_params_set(c->p, key, value, where, err);
}

boids_status boids_params_load_ini_except(boids_params *p, const char *path,
                                          int (*theirs)(const char *key), boids_error *err) {
    if (!p) return boids_error_set(err, BOIDS_ERR_INPUT, "boids_params_load_ini: p is NULL");
    /* Parse into a copy so that a file that fails half-way changes nothing. */
    boids_params tmp = *p;
    params_ctx c = {&tmp, theirs};
    boids_status s = boids_ini_read(path, set_param, &c, err);
    if (!s) *p = tmp;
    return s;
}

boids_status boids_params_load_ini(boids_params *p, const char *path, boids_error *err) {
    return boids_params_load_ini_except(p, path, NULL, err);
}
