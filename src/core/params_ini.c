/* SPDX-License-Identifier: MIT */
/* The parameters from a config file, through the one INI reader (src/support/ini.h). */
#include "boids/params.h"
#include "ini.h"

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
