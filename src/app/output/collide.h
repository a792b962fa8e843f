/* SPDX-License-Identifier: MIT */
/* Files a command names that would be one file: two outputs on one path, an output on another's
 * sidecar (FILE.json), a sweep's table on its own journal (FILE.partial), an output on an input.
 * Each command lists the paths it was given, with what goes beside each, and calls
 * app_paths_check once before it runs (docs/cli.md, "Hostile input").
 *
 * Names are compared as the file they reach: the folder resolved (realpath: "./x", "x",
 * "d/../x", a folder reached through a symbolic link), an existing file by its device and inode
 * too (a hard link, a symbolic link to it). */
#ifndef BOIDS_APP_COLLIDE_H
#define BOIDS_APP_COLLIDE_H

#include <stddef.h>

#include "boids/error.h"

enum {
    APP_PATH_IN = 0,         /* read by the command */
    APP_PATH_OUT = 1,        /* written (made or replaced) by the command */
    APP_PATH_SIDECAR = 2,    /* FILE.json beside it, read with an input, written with an output */
    APP_PATH_JOURNAL = 4,    /* FILE.partial beside it, written (a sweep's --runs-out) */
    APP_PATH_TRAJECTORY = 8, /* a FILE ending in .pvd: its frames' folder FILE without .pvd */
    APP_PATH_STATE = 16      /* a state file: a state output may replace the state input, which
                                is read whole before the first step (--load s --save s) */
};

typedef struct app_path {
    const char *option; /* as messages name it: "--save", "--out" */
    const char *path;   /* NULL: the option was not given */
    unsigned flags;     /* APP_PATH_* */
} app_path;

/* Checks every pair of names among the n paths and what goes beside them, where at least one of
 * the two is written: BOIDS_ERR_INPUT naming both options and paths when they reach one file. */
boids_status app_paths_check(const app_path *paths, size_t n, boids_error *err);

#endif
