/* SPDX-License-Identifier: MIT */
/* boids osc-map: the viewer's OSC addresses as a table a control surface's author loads (CSV:
 * TouchDesigner's Table DAT, a spreadsheet, a script that builds a TouchOSC or Open Stage
 * Control layout), made from the parameter table and the control ranges (cli/control.h),
 * so that it cannot fall behind the program. docs/osc.md describes each address. */
#include <stdio.h>
#include <string.h>

#include "atomic_file.h"
#include "boids/interact.h"
#include "cli/cli.h"
#include "cli/control.h"
#include "commands/commands.h"

static const app_command osc_map_command = {
    .prog = "boids osc-map",
    .synopsis = "usage: boids osc-map [--out FILE]\n"
                "Writes the OSC address map of `boids view --osc-port`: one CSV row per address\n"
                "(address, arguments, range, reply, meaning); every parameter key under\n"
                "/boids/param (its own units) and /boids/norm (0 to 1 over the range given),\n"
                "the 16 predators and 16 attractors, obstacles and the running controls.\n"};

/* One CSV field, quoted (ranges hold commas: "(0, 1e+07]"), a quote doubled. */
static void field(FILE *f, const char *text, char after) {
    fputc('"', f);
    for (const char *c = text; *c; c++) {
        if (*c == '"') fputc('"', f);
        fputc(*c, f);
    }
    fputc('"', f);
    fputc(after, f);
}

static void row(FILE *f, const char *address, const char *args, const char *range,
                const char *reply, const char *meaning) {
    field(f, address, ',');
    field(f, args, ',');
    field(f, range, ',');
    field(f, reply, ',');
    field(f, meaning, '\n');
}

static void keys(FILE *f) {
    size_t n;
    const boids_param_info *t = boids_param_table(&n);
    for (size_t i = 0; i < n; i++) {
        char address[128], range[160], control[96], meaning[256];
        const char *type = t[i].type == BOIDS_KEY_REAL ? "f" : "i";
        if (t[i].type == BOIDS_KEY_INT && t[i].max > 2147483647.0) type = "f";
        snprintf(meaning, sizeof meaning, "%s%s%s%s", t[i].doc, t[i].unit[0] ? " (" : "", t[i].unit,
                 t[i].unit[0] ? ")" : "");
        app_control_describe(&t[i], control, sizeof control);
        snprintf(address, sizeof address, "/boids/norm/%s", t[i].key);
        snprintf(range, sizeof range, "0 .. 1 over %s", control);
        row(f, address, "f", range, "f", meaning);
        snprintf(address, sizeof address, "/boids/param/%s", t[i].key);
        if (t[i].type == BOIDS_KEY_ENUM || t[i].type == BOIDS_KEY_BOOL)
            snprintf(range, sizeof range, "%s (as i: the index)", control);
        else if (t[i].min == -1.0 / 0.0)
            snprintf(range, sizeof range, "any");
        else
            boids_param_range(&t[i], range, sizeof range);
        row(f, address, t[i].type == BOIDS_KEY_ENUM ? "s" : type, range, type, meaning);
    }
}

/* The addresses of one point, after "/boids/[norm/]KIND/I". */
static const struct point_row {
    const char *family, *what, *args, *range, *reply, *meaning;
} point_rows[] = {
    {"norm/", "", "ff or fff", "x y [z]: 0 .. 1 of width height [depth]", "ff or fff",
     "on at a point of the world (an XY pad); follows the world"},
    {"norm/", "/radius", "f", "0 .. 1 of the smallest side", "f", "radius"},
    {"norm/", "/weight", "f", "0 .. 1 over 0 .. 10", "f", "weight"},
    {"norm/", "/z", "f", "0 .. 1 of the depth", "f", "depth (3-D)"},
    {"", "", "ff or fff", "x y [z]: world units", "ff or fff", "on at a world point"},
    {"", "/on", "i or none", "0 | 1", "i", "on (1, or no argument) or off (0): a toggle"},
    {"", "/off", "none", "-", "i", "off where it is"},
    {"", "/radius", "f", "[0, 1e+07]", "f", "radius, world units"},
    {"", "/weight", "f", "[0, 1000]", "f", "weight"},
    {"", "/z", "f", "world units", "f", "depth (3-D)"},
};

static void points(FILE *f, const char *kind) {
    for (int i = 0; i < BOIDS_MAX_POINTS; i++)
        for (size_t k = 0; k < sizeof point_rows / sizeof point_rows[0]; k++) {
            const struct point_row *r = &point_rows[k];
            char a[96], m[160];
            snprintf(a, sizeof a, "/boids/%s%s/%d%s", r->family, kind, i, r->what);
            snprintf(m, sizeof m, "%s %d: %s", kind, i, r->meaning);
            row(f, a, r->args, r->range, r->reply, m);
        }
}

/* The other addresses: obstacles, the running controls, queries, what is sent. */
static const char *const control_rows[][5] = {
    {"/boids/norm/obstacle/circle", "fff", "x y r: 0 .. 1 (r of the smallest side)", "-",
     "adds a circle that follows the world"},
    {"/boids/norm/obstacle/segment", "ffff", "x1 y1 x2 y2: 0 .. 1", "-",
     "adds a wall that follows the world"},
    {"/boids/norm/obstacle/sphere", "ffff", "x y z r: 0 .. 1", "-",
     "adds a sphere that follows the world (3-D)"},
    {"/boids/obstacle/circle", "fff", "world units", "-", "adds a circle"},
    {"/boids/obstacle/segment", "ffff", "world units", "-", "adds a wall"},
    {"/boids/obstacle/sphere", "ffff", "world units", "-", "adds a sphere (3-D)"},
    {"/boids/obstacle/clear", "none", "-", "-", "removes every obstacle"},
    {"/boids/preset", "s", "a name of `boids presets`", "the /boids/norm of every key",
     "a preset, keeping N"},
    {"/boids/pause", "i or none", "0 | 1", "-", "pause (1 or none) or run (0)"},
    {"/boids/step", "i or none", "1 .. 1000", "-", "steps while paused"},
    {"/boids/reset", "none", "-", "the /boids/norm of every key", "starting parameters"},
    {"/boids/restart", "none", "-", "-", "random boids, current settings"},
    {"/boids/screenshot", "none", "-", "-", "a PNG into --screenshot-dir"},
    {"/boids/quit", "none", "-", "-", "closes the viewer"},
    {"/boids/get/norm", "none", "-", "the /boids/norm of every key", "a layout in step"},
    {"/boids/get/norm/KEY", "none", "-", "/boids/norm/KEY f", "one key's position"},
    {"/boids/get/param/KEY", "none", "-", "/boids/param/KEY f or i", "one key's value"},
    {"/boids/get/predator/I", "none", "-", "every address of the point, both families",
     "a predator's values (attractor likewise)"},
    {"/boids/get/obstacle/I", "none", "-", "/boids/obstacle/I iffffff and /boids/norm/...",
     "kind (0 circle 1 segment 2 sphere) x0 y0 x1 y1 radius z0"},
    {"/boids/observables", "out", "-", "ffiii", "order milling clusters N step (sent)"},
};

static void controls(FILE *f) {
    for (size_t k = 0; k < sizeof control_rows / sizeof control_rows[0]; k++)
        row(f, control_rows[k][0], control_rows[k][1], control_rows[k][2], control_rows[k][3],
            control_rows[k][4]);
}

int boids_cmd_osc_map(int argc, char **argv) {
    const char *out = NULL;
    const app_option own[] = {
        {APP_TEXT, "out", 'o', "FILE", &out, .help = "write the map to FILE (default: stdout)"},
    };
    app_opts o;
    int rc = app_parse(&osc_map_command, own, APP_COUNT(own), &o, argc, argv);
    if (rc != APP_RUN) return rc;
    boids_error err;
    boids_atomic_file a = {0};
    FILE *f = stdout;
    if (out) {
        if (boids_atomic_open(&a, out, &err)) return app_fail(&err);
        f = a.f;
    }
    row(f, "address", "arguments", "range", "reply", "meaning");
    keys(f);
    points(f, "predator");
    points(f, "attractor");
    controls(f);
    if (out && boids_atomic_commit(&a, &err)) return app_fail(&err);
    return 0;
}
