/* SPDX-License-Identifier: MIT */
#include "render/camera_path.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cglm/cglm.h>

/* A keyframe file is a few thousand lines at most in practice; the bounds keep a hostile
 * file (a huge one, a device) from taking the machine's memory. */
enum { LINE_MAX_BYTES = 1024, KEYS_MAX = 1000000 };

/* One number of an orbit spec: all of text, finite, within [lo, hi]. */
static int number(const char *text, double lo, double hi, double *out) {
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    if (end == text || *end || errno || !isfinite(v) || v < lo || v > hi) return 0;
    *out = v;
    return 1;
}

static boids_status parse_orbit(camera_path *cp, const char *spec, boids_error *err) {
    char buf[256];
    if (strlen(spec) >= sizeof buf)
        return boids_error_set(err, BOIDS_ERR_INPUT, "--camera: the orbit spec is too long");
    strcpy(buf, spec + 6);
    cp->orbit = 1;
    cp->elev_deg = NAN;
    int first = 1;
    for (char *save = NULL, *item = strtok_r(buf, ",", &save); item;
         item = strtok_r(NULL, ",", &save), first = 0) {
        int ok;
        if (first)
            ok = number(item, -1e6, 1e6, &cp->deg_per_s);
        else if (!strncmp(item, "elev=", 5))
            ok = number(item + 5, -89, 89, &cp->elev_deg);
        else if (!strncmp(item, "dist=", 5))
            ok = number(item + 5, 1e-9, 1e9, &cp->dist);
        else
            ok = 0;
        if (!ok)
            return boids_error_set(err, BOIDS_ERR_INPUT,
                                   "--camera '%s': bad item '%s' (orbit:DEG_PER_S[,elev=DEG]"
                                   "[,dist=F], DEG_PER_S in [-1e6, 1e6], elev in [-89, 89], dist "
                                   "> 0)",
                                   spec, item);
    }
    if (first)
        return boids_error_set(err, BOIDS_ERR_INPUT,
                               "--camera '%s': orbit needs its rate, e.g. orbit:20 (degrees a "
                               "second)",
                               spec);
    return BOIDS_OK;
}

/* One key line: 7 finite numbers, eye apart from target, after the previous key's time. */
static boids_status parse_key(camera_path *cp, const char *path, long lineno, char *line,
                              boids_error *err) {
    double v[7];
    int n = 0;
    char *save = NULL;
    for (char *tok = strtok_r(line, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
        if (n == 7)
            return boids_error_set(err, BOIDS_ERR_INPUT,
                                   "%s:%ld: more than 7 columns; a key is 't eye_x eye_y eye_z "
                                   "target_x target_y target_z'",
                                   path, lineno);
        char *end;
        errno = 0;
        double x = strtod(tok, &end);
        if (end == tok || *end || errno || !isfinite(x) || fabs(x) > 1e15)
            return boids_error_set(err, BOIDS_ERR_INPUT,
                                   "%s:%ld: column %d, '%.40s', is not a finite number "
                                   "(|x| <= 1e15)",
                                   path, lineno, n + 1, tok);
        v[n++] = x;
    }
    if (n != 7)
        return boids_error_set(err, BOIDS_ERR_INPUT,
                               "%s:%ld: %d columns; a key is 't eye_x eye_y eye_z target_x "
                               "target_y target_z'",
                               path, lineno, n);
    if (cp->nkeys && v[0] <= cp->keys[cp->nkeys - 1].t)
        return boids_error_set(err, BOIDS_ERR_INPUT,
                               "%s:%ld: time %g is not after the previous key's (%g)", path, lineno,
                               v[0], cp->keys[cp->nkeys - 1].t);
    if (v[1] == v[4] && v[2] == v[5] && v[3] == v[6])
        return boids_error_set(err, BOIDS_ERR_INPUT,
                               "%s:%ld: the eye is the target: no direction to look in", path,
                               lineno);
    if (cp->nkeys >= KEYS_MAX)
        return boids_error_set(err, BOIDS_ERR_INPUT, "%s:%ld: more than %d keys", path, lineno,
                               KEYS_MAX);
    if ((cp->nkeys & (cp->nkeys - 1)) == 0) { /* grows at powers of two */
        camera_key *k = realloc(cp->keys, (cp->nkeys ? 2 * cp->nkeys : 16) * sizeof *k);
        if (!k) return boids_error_set(err, BOIDS_ERR_NOMEM, "%s: out of memory", path);
        cp->keys = k;
    }
    camera_key *k = &cp->keys[cp->nkeys++];
    k->t = v[0];
    for (int i = 0; i < 3; i++) {
        k->eye[i] = (float)v[1 + i];
        k->target[i] = (float)v[4 + i];
    }
    return BOIDS_OK;
}

static boids_status read_keys(camera_path *cp, const char *path, FILE *f, boids_error *err) {
    char line[LINE_MAX_BYTES + 2];
    long lineno = 0;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        size_t len = strlen(line);
        if (len && line[len - 1] == '\n')
            line[--len] = '\0';
        else if (!feof(f))
            return boids_error_set(err, BOIDS_ERR_INPUT, "%s:%ld: longer than %d bytes", path,
                                   lineno, LINE_MAX_BYTES);
        if (len && line[len - 1] == '\r') line[--len] = '\0';
        char *hash = strchr(line, '#');
        if (hash) *hash = '\0';
        if (strspn(line, " \t") == strlen(line)) continue;
        if (parse_key(cp, path, lineno, line, err)) return err->status;
    }
    if (ferror(f))
        return boids_error_set(err, BOIDS_ERR_INPUT, "%s: read error: %s", path, strerror(errno));
    if (!cp->nkeys)
        return boids_error_set(err, BOIDS_ERR_INPUT,
                               "%s: no keys (lines 't eye_x eye_y eye_z target_x target_y "
                               "target_z'); or did you mean orbit:DEG_PER_S?",
                               path);
    return BOIDS_OK;
}

boids_status camera_path_parse(camera_path *cp, const char *spec, boids_error *err) {
    memset(cp, 0, sizeof *cp);
    boids_status st;
    if (!strncmp(spec, "orbit:", 6)) {
        st = parse_orbit(cp, spec, err);
    } else {
        struct stat sb;
        FILE *f = NULL;
        if (stat(spec, &sb) || !S_ISREG(sb.st_mode) || !(f = fopen(spec, "r")))
            return boids_error_set(err, BOIDS_ERR_INPUT,
                                   "--camera '%s': neither orbit:DEG_PER_S[,elev=DEG][,dist=F] "
                                   "nor a readable keyframe file",
                                   spec);
        st = read_keys(cp, spec, f, err);
        fclose(f);
    }
    if (st) camera_path_free(cp);
    return st;
}

void camera_path_free(camera_path *cp) {
    free(cp->keys);
    memset(cp, 0, sizeof *cp);
}

/* The look rotation of key k: (0, 0, -1) to its direction, about the world's up. */
static void key_rotation(const camera_key *k, versor q, float *dist) {
    vec3 d, up = {0.0f, -1.0f, 0.0f};
    glm_vec3_sub((float *)k->target, (float *)k->eye, d);
    *dist = glm_vec3_norm(d);
    glm_vec3_scale(d, 1.0f / *dist, d);
    glm_quat_for(d, up, q);
}

void camera_path_at(const camera_path *cp, double t, camera3 *c) {
    if (cp->orbit) {
        c->yaw += (float)glm_rad((float)(cp->deg_per_s * t));
        if (!isnan(cp->elev_deg)) c->pitch = glm_rad((float)cp->elev_deg);
        if (cp->dist > 0) c->distance = (float)cp->dist;
        return;
    }
    size_t i = 0;
    while (i + 1 < cp->nkeys && cp->keys[i + 1].t <= t) i++;
    const camera_key *a = &cp->keys[i], *b = i + 1 < cp->nkeys ? &cp->keys[i + 1] : a;
    float u = b == a ? 0.0f : (float)glm_clamp((float)((t - a->t) / (b->t - a->t)), 0.0f, 1.0f);
    versor qa, qb, q;
    float da, db;
    key_rotation(a, qa, &da);
    key_rotation(b, qb, &db);
    glm_quat_slerp(qa, qb, u, q);
    vec3 eye, fwd, target, ahead = {0.0f, 0.0f, -1.0f};
    glm_vec3_lerp((float *)a->eye, (float *)b->eye, u, eye);
    glm_quat_rotatev(q, ahead, fwd);
    glm_vec3_copy(eye, target);
    glm_vec3_muladds(fwd, da + (db - da) * u, target);
    camera3_look_at(c, eye, target);
}
