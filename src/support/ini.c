/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <string.h>

#include "ini.h"
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
