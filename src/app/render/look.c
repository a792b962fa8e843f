/* SPDX-License-Identifier: MIT */
/* The look of the flock from a config file's `view.` lines (render.h: render_look). The
 * parameter reader leaves these keys alone; this is their only reader. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ini.h"
#include "render/render.h"

render_look render_look_default(void) {
    render_look l = {.background = {0.043f, 0.055f, 0.09f},
                     .palette = 0,
                     .stops = {{0.25f, 0.45f, 1.0f}, {1.0f, 0.85f, 0.3f}, {0.9f, 0.3f, 0.5f}},
                     .plain = {0.88f, 0.9f, 0.95f},
                     .shape = RENDER_DART,
                     .trail = 0,
                     .density = RENDER_DENSITY_AUTO,
                     .colour = -1,
                     .size = 0,
                     .clean = RENDER_CLEAN_OFF};
    return l;
}

render_look render_look_for_preset(const char *preset) {
    render_look l = render_look_default();
    if (preset && !strcmp(preset, "murmuration")) {
        /* Starlings at dusk: dark birds against a pale evening sky, into which the depth
         * cue's fog fades the far ones as haze does. */
        const float sky[3] = {0.78f, 0.71f, 0.67f}, bird[3] = {0.09f, 0.09f, 0.11f};
        memcpy(l.background, sky, sizeof sky);
        memcpy(l.plain, bird, sizeof bird);
        l.colour = RENDER_PLAIN;
    }
    return l;
}

/* "#RRGGBB" into rgb; 0 if malformed. end receives what follows. */
static int hex_colour(const char *text, float rgb[3], const char **end) {
    while (*text == ' ' || *text == '\t') text++;
    unsigned v;
    int n = 0;
    if (text[0] != '#' || sscanf(text + 1, "%6x%n", &v, &n) != 1 || n != 6) return 0;
    rgb[0] = (float)((v >> 16) & 255) / 255.0f;
    rgb[1] = (float)((v >> 8) & 255) / 255.0f;
    rgb[2] = (float)(v & 255) / 255.0f;
    *end = text + 7;
    return 1;
}

static int only_blanks(const char *s) {
    while (*s == ' ' || *s == '\t') s++;
    return *s == '\0';
}

static int one_colour(const char *text, float rgb[3]) {
    const char *end;
    return hex_colour(text, rgb, &end) && only_blanks(end);
}

/* Named palettes: three stops each, or the rainbow. */
static int palette(render_look *l, const char *value) {
    static const struct {
        const char *name;
        unsigned stops[3];
    } named[] = {
        {"ocean", {0x0b3d91, 0x1fb5c9, 0xb8f2e6}},
        {"ember", {0x7a0c02, 0xf25c05, 0xffd166}},
        {"mono", {0x5d6678, 0xdde3ef, 0xa0a8b8}},
    };
    if (!strcmp(value, "rainbow")) return l->palette = 0, 1;
    for (size_t i = 0; i < sizeof named / sizeof named[0]; i++) {
        if (strcmp(value, named[i].name)) continue;
        for (int k = 0; k < 3; k++)
            for (int c = 0; c < 3; c++)
                l->stops[k][c] = (float)((named[i].stops[k] >> (16 - 8 * c)) & 255) / 255.0f;
        return l->palette = 1, 1;
    }
    float stops[3][3];
    const char *at = value;
    for (int k = 0; k < 3; k++)
        if (!hex_colour(at, stops[k], &at)) return 0;
    if (!only_blanks(at)) return 0;
    memcpy(l->stops, stops, sizeof stops);
    return l->palette = 1, 1;
}

static int choice(const char *const *names, const char *value, int *out) {
    for (int i = 0; names[i]; i++)
        if (!strcmp(names[i], value)) return *out = i, 1;
    return 0;
}

static int number(const char *value, double lo, double hi, int lo_open, double *out) {
    char *end;
    errno = 0;
    double v = strtod(value, &end);
    if (end == value || !only_blanks(end) || errno || !isfinite(v)) return 0;
    if (v < lo || v > hi || (lo_open && v == lo)) return 0;
    return *out = v, 1;
}

boids_status render_look_set(render_look *l, const char *key, const char *value, const char *where,
                             boids_error *err) {
    render_look n = *l;
    const char *expect = NULL;
    while (*value == ' ' || *value == '\t') value++;
    if (!strcmp(key, "view.background")) {
        if (!one_colour(value, n.background)) expect = "#RRGGBB";
    } else if (!strcmp(key, "view.plain")) {
        if (!one_colour(value, n.plain)) expect = "#RRGGBB";
    } else if (!strcmp(key, "view.palette")) {
        if (!palette(&n, value)) expect = "rainbow, ocean, ember, mono or three #RRGGBB";
    } else if (!strcmp(key, "view.colour") || !strcmp(key, "view.color")) {
        if (!choice(render_colour_names, value, &n.colour)) expect = "heading, speed or plain";
    } else if (!strcmp(key, "view.shape")) {
        if (!choice(render_shape_names, value, &n.shape)) expect = "dart, needle or kite";
    } else if (!strcmp(key, "view.density")) { /* auto: render_density_on */
        if (!choice(render_density_names, value, &n.density)) expect = "auto, off or on";
    } else if (!strcmp(key, "view.trail")) {
        if (!number(value, 0, 10000, 0, &n.trail)) expect = "frames in [0, 10000]";
    } else if (!strcmp(key, "view.size")) {
        if (!number(value, 0, 1e6, 1, &n.size)) expect = "world units in (0, 1e6]";
    } else if (!strcmp(key, "view.clean")) {
        if (!choice(render_clean_names, value, &n.clean)) expect = "off, on or all";
    } else {
        return boids_error_set(err, BOIDS_ERR_INPUT,
                               "%s: unknown key '%s' (view keys: background, palette, plain, "
                               "colour, shape, trail, density, size, clean)",
                               where, key);
    }
    if (expect)
        return boids_error_set(err, BOIDS_ERR_INPUT, "%s: %s = '%s': expected %s", where, key,
                               value, expect);
    *l = n;
    return BOIDS_OK;
}

int render_look_is_key(const char *key) {
    return strncmp(key, "view.", 5) == 0;
}

/* The `view.` lines of a config file; its other keys are other readers'. */
static boids_status set_look(void *user, const char *key, const char *value, const char *where,
                             boids_error *err) {
    if (!render_look_is_key(key)) return BOIDS_OK;
    return render_look_set(user, key, value, where, err);
}

boids_status render_look_load_ini(render_look *l, const char *path, boids_error *err) {
    render_look tmp = *l; /* a file that fails half-way changes nothing */
    boids_status st = boids_ini_read(path, set_look, &tmp, err);
    if (!st) *l = tmp;
    return st;
}
