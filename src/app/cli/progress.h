/* SPDX-License-Identifier: MIT */
/* Progress of long work on stderr: one line, rewritten in place ("\r") at most four times a
 * second, with the units done of the total, their rate and an estimate of the time left.
 * Only when stderr is a terminal: in a pipe or a file, nothing is written. `sim`, `sweep`,
 * `render` and `boids-bench` keep one each. */
#ifndef BOIDS_APP_PROGRESS_H
#define BOIDS_APP_PROGRESS_H

#include "boids/flock.h"
#include "boids/params.h"

typedef struct app_progress {
    int on;           /* stderr is a terminal */
    const char *prog; /* "boids sim", as messages name the program */
    const char *unit; /* what is counted: "steps", "runs", "frames", "points" */
    double total, done;
    double t0, last; /* seconds: the start, the latest drawing */
    int drawn;       /* the line is on the terminal now */
    char note[160];  /* what is under way, after the counts ("cpu-1t N=1000"), or "" */
} app_progress;

/* Starts the count of `total` units (on only when stderr is a terminal). */
void app_progress_begin(app_progress *p, const char *prog, const char *unit, double total);

/* done units of the total so far (fractions allowed: a run half done), and what is under way
 * (NULL: as before). Redraws the line when a quarter second has passed since the last time,
 * or at once with `now`; not in the first quarter second, so that short work shows none. */
void app_progress_update(app_progress *p, double done, const char *note, int now);

/* Erases the line, if it is drawn, before other output to the terminal; the next update
 * draws it again. */
void app_progress_clear(app_progress *p);

/* The end: erases the line. */
void app_progress_end(app_progress *p);

/* Before a run of `steps` steps of the cpu-ref backend with more than 20,000 boids: a line on
 * stderr (terminal or not) with the time a step will take, estimated from one timed step of a
 * 2,000-boid flock at p's density (cpu-ref compares every pair: the time grows as N^2), and
 * that `--backend cpu` is the fast path. Nothing for other backends, smaller N or no steps. */
void app_cpu_ref_estimate(const char *prog, const char *backend, const boids_params *p, long steps);

#endif
