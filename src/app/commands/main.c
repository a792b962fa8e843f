/* SPDX-License-Identifier: MIT */
/* boids: the program. Dispatches subcommands; only this layer picks exit codes. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atomic_file.h"
#include "boids/version.h"
#include "cli/cli.h"
#include "commands/commands.h"

static const char usage[] =
    "usage: boids COMMAND [OPTIONS]\n"
    "Huge flocks with OpenGL 4.3 compute shaders, and an exact CPU reference beside them.\n"
    "\n"
    "Commands:\n"
    "  view       open a window on the flock (the default when a display is present)\n"
    "  render     draw frames offscreen (no display): PNG sequence or raw RGBA for ffmpeg\n"
    "  sim        run headless; CSV metrics on stdout, optional final state\n"
    "  sweep      observables against a parameter and N, with errors over seeds; CSV, plot\n"
    "  verify     compare the gpu and cpu backends with the exact reference\n"
    "  params     list every parameter key with its value, unit and range\n"
    "  presets    list the presets\n"
    "\n"
    "`boids COMMAND --help` describes each command. Exit codes: 0 ok, 1 the run failed,\n"
    "2 bad usage or input.\n";

static const app_command presets_command = {
    .prog = "boids presets",
    .synopsis = "usage: boids presets\n"
                "Lists the presets (--preset NAME) with what each one sets.\n"};

static int cmd_presets(int argc, char **argv) {
    app_opts o;
    int rc = app_parse(&presets_command, NULL, 0, &o, argc, argv);
    if (rc != APP_RUN) return rc;
    size_t n;
    int w = 0;
    const boids_preset_info *t = boids_preset_table(&n);
    for (size_t i = 0; i < n; i++)
        if ((int)strlen(t[i].name) > w) w = (int)strlen(t[i].name);
    for (size_t i = 0; i < n; i++) printf("%-*s  %s\n", w, t[i].name, t[i].summary);
    return 0;
}

static const app_command params_command = {
    .prog = "boids params",
    .synopsis = "usage: boids params [--preset NAME] [--config FILE] [--set KEY=VALUE]...\n"
                "Lists every key (the same names in INI files and --set) with its value\n"
                "after the given preset, file and pairs, its unit, range and meaning: the\n"
                "model key and the model's own keys first, the other model's keys last.\n",
    .shared = APP_PARAMS};

/* One row of `boids params`: the key's value, unit and range as text. */
typedef struct param_row {
    const boids_param_info *info;
    char value[64], range[96];
    const char *unit;
} param_row;

/* Where key info goes in the list for a flock of model `model`: 0 the model key itself, 1 the
 * model's own keys (a meaning that starts "vicsek:"), 2 the keys of every model, 3 the other
 * models' own keys. */
static int param_rank(const boids_param_info *info, const char *model,
                      const boids_param_info *models) {
    if (info == models) return 0;
    for (int k = 0; models->choices[k]; k++) {
        size_t len = strlen(models->choices[k]);
        if (!strncmp(info->doc, models->choices[k], len) && info->doc[len] == ':')
            return strcmp(models->choices[k], model) ? 3 : 1;
    }
    return 2;
}

/* The cells of info's row, each column's width w[] grown to hold them. */
static void param_cells(const boids_params *p, const boids_param_info *info, param_row *r,
                        int w[4]) {
    r->info = info;
    r->unit = info->unit[0] ? info->unit : "-";
    boids_params_format(p, info, r->value, sizeof r->value);
    if (info->type == BOIDS_KEY_ENUM) {
        size_t len = 0;
        r->range[0] = '\0';
        for (int k = 0; info->choices[k]; k++)
            len += (size_t)snprintf(r->range + len, sizeof r->range - len, "%s%s", k ? "|" : "",
                                    info->choices[k]);
    } else if (info->type == BOIDS_KEY_BOOL) {
        snprintf(r->range, sizeof r->range, "0|1");
    } else if (info->min == -1.0 / 0.0) {
        snprintf(r->range, sizeof r->range, "any");
    } else {
        boids_param_range(info, r->range, sizeof r->range);
    }
    const char *cell[4] = {info->key, r->value, r->unit, r->range};
    for (int c = 0; c < 4; c++)
        if ((int)strlen(cell[c]) > w[c]) w[c] = (int)strlen(cell[c]);
}

int boids_cmd_params(int argc, char **argv) {
    app_opts o;
    int rc = app_parse(&params_command, NULL, 0, &o, argc, argv);
    if (rc != APP_RUN) return rc;
    boids_error err;
    boids_params p;
    if (app_params(&o, &p, &err)) return app_fail(&err);
    size_t n;
    const boids_param_info *t = boids_param_table(&n);
    param_row *row = calloc(n, sizeof *row);
    if (!row) {
        fputs("boids params: out of memory\n", stderr);
        return 1;
    }
    /* The columns as wide as their widest cell, the rows in the order of param_rank. */
    int w[4] = {3, 5, 4, 5}; /* "key", "value", "unit", "range" */
    char model[32];
    boids_params_format(&p, boids_param_find("model"), model, sizeof model);
    const boids_param_info *models = boids_param_find("model");
    size_t k = 0;
    for (int rank = 0; rank < 4; rank++)
        for (size_t i = 0; i < n; i++)
            if (param_rank(&t[i], model, models) == rank) param_cells(&p, &t[i], &row[k++], w);
    printf("%-*s  %-*s  %-*s  %-*s  %s\n", w[0], "key", w[1], "value", w[2], "unit", w[3], "range",
           "meaning");
    for (size_t i = 0; i < k; i++)
        printf("%-*s  %-*s  %-*s  %-*s  %s\n", w[0], row[i].info->key, w[1], row[i].value, w[2],
               row[i].unit, w[3], row[i].range, row[i].info->doc);
    free(row);
    return 0;
}

#ifndef BOIDS_HAVE_VIEWER
/* Built with BOIDS_BUILD_VIEWER off: no window and no offscreen rendering in this binary. */
static int no_viewer(const char *cmd) {
    fprintf(stderr, "boids %s: this boids was built without the viewer (BOIDS_BUILD_VIEWER=OFF)\n",
            cmd);
    return 2;
}
int boids_cmd_view(int argc, char **argv) {
    (void)argc;
    (void)argv;
    return no_viewer("view");
}
int boids_cmd_render(int argc, char **argv) {
    (void)argc;
    (void)argv;
    return no_viewer("render");
}
#endif

/* A display GLFW could open a window on: an X server or a Wayland compositor. */
static int have_display(void) {
    const char *x = getenv("DISPLAY"), *w = getenv("WAYLAND_DISPLAY");
    return (x && *x) || (w && *w);
}

static int dispatch(int argc, char **argv) {
    if (argc < 2 || (argv[1][0] == '-' && strcmp(argv[1], "-h") && strcmp(argv[1], "--help") &&
                     strcmp(argv[1], "--version"))) {
        /* No command: the window, with any options meant for it. */
        if (have_display()) return boids_cmd_view(argc, argv);
        fputs("boids: no display to open a window on (DISPLAY and WAYLAND_DISPLAY are unset).\n"
              "  boids render   draws frames offscreen to PNG files or to ffmpeg\n"
              "  boids sim      runs the simulation headless with metrics on stdout\n"
              "  boids --help   lists every command\n",
              stderr);
        return 2;
    }
    const char *cmd = argv[1];
    int top = !strcmp(cmd, "-h") || !strcmp(cmd, "--help") || !strcmp(cmd, "help") ||
              !strcmp(cmd, "--version");
    if (top && argc > 2) {
        fprintf(stderr, "boids: unexpected argument '%s' after %s\n", argv[2], cmd);
        return 2;
    }
    if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help") || !strcmp(cmd, "help")) {
        app_help_text(stdout, usage);
        return 0;
    }
    if (!strcmp(cmd, "--version")) {
        printf("boids %s\n", boids_version());
        return 0;
    }
    if (!strcmp(cmd, "view")) return boids_cmd_view(argc - 1, argv + 1);
    if (!strcmp(cmd, "render")) return boids_cmd_render(argc - 1, argv + 1);
    if (!strcmp(cmd, "sim")) return boids_cmd_sim(argc - 1, argv + 1);
    if (!strcmp(cmd, "sweep")) return boids_cmd_sweep(argc - 1, argv + 1);
    if (!strcmp(cmd, "verify")) return boids_cmd_verify(argc - 1, argv + 1);
    if (!strcmp(cmd, "params")) return boids_cmd_params(argc - 1, argv + 1);
    if (!strcmp(cmd, "presets")) return cmd_presets(argc - 1, argv + 1);
    fprintf(stderr, "boids: unknown command '%s' (see boids --help)\n", cmd);
    return 2;
}

/* Every command's stdout is checked here, once: output that never reached its destination
 * (a full disk, /dev/full, a closed pipe with SIGPIPE ignored) fails the run even when the
 * command itself succeeded. */
static int finish_stdout(int rc) {
    int bad = fflush(stdout) != 0 || ferror(stdout);
    int code = bad ? errno : 0;
    if (fclose(stdout) != 0 && !bad) bad = 1, code = errno;
    if (!bad || rc) return rc; /* a failed command has said why already */
    fprintf(stderr, "boids: writing to stdout failed: %s\n", code ? strerror(code) : "I/O error");
    return 1;
}

int main(int argc, char **argv) {
    boids_atomic_cleanup_on_signals();
    return finish_stdout(dispatch(argc, argv));
}
