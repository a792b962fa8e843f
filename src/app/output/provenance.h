/* SPDX-License-Identifier: MIT */
/* Provenance of an output file: a JSON sidecar (cJSON) that says what made it, so that a CSV
 * or .npy file found months later can be traced to its program, parameters and machine while
 * the data file itself stays plain (a CSV header row first, no comment lines).
 *
 * The document every sidecar shares:
 *   program      "boids" and its version; commit: `git rev-parse HEAD` when CMake last
 *                configured the build, "unknown" when the source was not a git checkout
 *   command_line the process's exact argv (from /proc/self/cmdline), as a list and as one
 *                shell-quoted string that can be pasted into a shell
 *   parameters   the full parameter set of the base run, every key of `boids params`
 *                (numbers, booleans as true/false, enums as their names), and how it was
 *                built (preset, config file, --set pairs, seed: a number, every digit)
 *   interaction  the points and obstacles every backend stepped with (the config file's
 *                predator.I, attractor.I and obstacle lines): "predators" and "attractors",
 *                the points that are on ({index, x, y, radius, weight}), and "obstacles"
 *                ({kind: "circle", x, y, radius} or {kind: "segment", x0, y0, x1, y1})
 *   backend      cpu-ref, cpu or gpu ("name"), with the gpu mode or the cpu thread count
 *                (a number: --threads, or OpenMP's default for all)
 *   renderer     the GL renderer string with the gpu backend, "none" otherwise
 *   machine      host name, operating system, CPU model, online CPUs
 *   start, end   UTC times (ISO 8601) and the wall time between them in seconds
 * Each command adds an "output" object describing the file (columns as a list, layout,
 * statistics). Numbers are JSON numbers and lists JSON arrays throughout. */
#ifndef BOIDS_APP_PROVENANCE_H
#define BOIDS_APP_PROVENANCE_H

#include <stdint.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "boids/error.h"
#include "boids/interact.h"
#include "boids/params.h"

typedef struct app_prov {
    time_t start;      /* wall clock at the start */
    double start_mono; /* CLOCK_MONOTONIC seconds at the start */
} app_prov;

/* What the shared document says of a run besides its parameters, as plain values that the
 * caller fills from its options and the backend it made. */
typedef struct app_prov_run {
    const char *preset;      /* NULL: the default parameters (lab) */
    const char *config;      /* --config's file; NULL: none */
    const char *const *sets; /* the --set pairs as given (nsets of them) */
    int nsets;
    uint64_t seed;
    const char *load;            /* --load's state file; NULL: a random initial state */
    const boids_interact *inter; /* the points and obstacles; NULL: none */
    const char *backend;         /* cpu-ref, cpu or gpu */
    int deterministic;           /* gpu: 1 deterministic, 0 fast */
    int threads;                 /* cpu: the thread count asked; 0: all (OpenMP's default) */
    const char *renderer;        /* the GL renderer string; NULL: none */
} app_prov_run;

/* Records the start time. */
void app_prov_begin(app_prov *pv);

/* The shared document, ending now; run and base describe the base run. NULL when out of
 * memory. */
cJSON *app_prov_document(const app_prov *pv, const app_prov_run *run, const boids_params *base);

/* The value of parameter key given as text, typed as in "parameters": a number, true/false or
 * an enum's name (text itself when the key does not take it). */
cJSON *app_prov_value(const char *key, const char *text);

/* An unsigned integer as a JSON number, every digit kept (cJSON's own numbers are doubles,
 * exact only up to 2^53: a 64-bit seed needs this). */
cJSON *app_prov_integer(unsigned long long v);

/* A CSV header line ("a,b,c") as a list of its column names. */
cJSON *app_prov_columns(const char *header);

/* Writes doc to path, pretty-printed, atomically (boids_atomic_file). */
boids_status app_prov_write(const char *path, const cJSON *doc, boids_error *err);

/* The sidecar's name of file: file's name with ".json" appended (free it); NULL when out of
 * memory. */
char *app_prov_sidecar_name(const char *file);

/* Writes doc to the sidecar of file: file's name with ".json" appended. */
boids_status app_prov_sidecar(const char *file, const cJSON *doc, boids_error *err);

/* Checks, before a long run, that the sidecar of file can be written later. */
boids_status app_prov_check_sidecar(const char *file, boids_error *err);

#endif
