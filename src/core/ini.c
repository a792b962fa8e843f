#include <string.h>

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
 * after whitespace. Every line stands alone: no continuation lines, no sections. */
static boids_status parse_line(boids_params *p, char *line, const char *where, boids_error *err) {
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
    char *key = trim(s), *value = eq + 1;
    for (char *c = value; *c; c++)
        if ((*c == '#' || *c == ';') && c > value && (c[-1] == ' ' || c[-1] == '\t')) {
            *c = '\0';
            break;
        }
    value = trim(value);
    if (*key == '\0')
        return boids_error_set(err, BOIDS_ERR_INPUT, "%s: syntax error: no key before `=`", where);
    return boids_params_set(p, key, value, where, err);
}

boids_status boids_params_load_ini(boids_params *p, const char *path, boids_error *err) {
    text_lines t;
    boids_status s = text_open(&t, path, "config file", INI_MAX_LINE, INI_MAX_BYTES, 1, err);
    if (s) return s;
    /* Parse into a copy so that a file that fails half-way changes nothing. */
    boids_params tmp = *p;
    char *line;
    int r = 0;
    while (!s && (r = text_next(&t, &line, err)) == 1) {
        char where[200];
        snprintf(where, sizeof where, "%s:%zu", t.path, t.lineno);
        s = parse_line(&tmp, line, where, err);
    }
    if (!s && r < 0) s = err ? err->status : BOIDS_ERR_INPUT;
    text_close(&t);
    if (!s) *p = tmp;
    return s;
}
