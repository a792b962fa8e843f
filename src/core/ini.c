#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <ini.h>

#include "boids/interact.h"
#include "boids/params.h"

typedef struct ini_ctx {
    boids_params *p;
    const char *path;
    boids_error *err;
    int failed;
    FILE *file;
    int lineno; /* lines read so far: Debian's libinih passes no line number to handlers */
} ini_ctx;

/* libinih reads one line per call of its reader, so counting calls gives the line. */
static char *read_line(char *buf, int size, void *stream) {
    ini_ctx *c = stream;
    char *r = fgets(buf, size, c->file);
    if (r) c->lineno++;
    return r;
}

static int on_value(void *user, const char *section, const char *name, const char *value) {
    ini_ctx *c = user;
    int lineno = c->lineno;
    char where[512];
    snprintf(where, sizeof where, "%s:%d", c->path, lineno);
    if (section[0] != '\0') {
        boids_error_set(c->err, BOIDS_ERR_INPUT,
                        "%s: section [%s] is not supported: write `key = value` lines only", where,
                        section);
        c->failed = 1;
        return 0;
    }
    /* Keys read by others from the same file: the interaction points and obstacles
     * (boids_interact_load_ini) and the look of the program that draws (`view.` keys). */
    if (boids_interact_is_key(name) || !strncmp(name, "view.", 5)) return 1;
    if (boids_params_set(c->p, name, value, where, c->err)) {
        c->failed = 1;
        return 0;
    }
    return 1;
}

boids_status boids_params_load_ini(boids_params *p, const char *path, boids_error *err) {
    FILE *f = fopen(path, "r");
    if (!f)
        return boids_error_set(err, BOIDS_ERR_INPUT, "%s: cannot open config file: %s", path,
                               strerror(errno));
    /* Parse into a copy so that a file that fails half-way changes nothing. */
    boids_params tmp = *p;
    ini_ctx c = {&tmp, path, err, 0, f, 0};
    int line = ini_parse_stream(read_line, &c, on_value, &c);
    fclose(f);
    if (c.failed) return err ? err->status : BOIDS_ERR_INPUT;
    if (line != 0)
        return boids_error_set(err, BOIDS_ERR_INPUT, "%s:%d: syntax error: expected `key = value`",
                               path, line);
    *p = tmp;
    return BOIDS_OK;
}
