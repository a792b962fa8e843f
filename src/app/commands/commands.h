/* SPDX-License-Identifier: MIT */
#ifndef BOIDS_APP_COMMANDS_H
#define BOIDS_APP_COMMANDS_H

#include "boids/metrics.h"
#include "boids/structure.h"
#include "cli/cli.h"

/* Each subcommand takes the arguments after `boids` (argv[0] is its own name) and returns
 * the process exit code: 0 ok, 1 the run failed, 2 bad usage or input. */
int boids_cmd_sim(int argc, char **argv);
int boids_cmd_verify(int argc, char **argv);
int boids_cmd_params(int argc, char **argv);
int boids_cmd_osc_map(int argc, char **argv); /* cmd_osc_map.c */
int boids_cmd_sweep(int argc, char **argv);
int boids_cmd_view(int argc, char **argv);
int boids_cmd_render(int argc, char **argv);

/* A sample's velocity correlation asked of a driver (sim_driver.observe): its range and bins
 * and C(r)'s sums, added to sum and pairs (bins each, zero before), on the writer; on the
 * other processes {0, 0, NULL, NULL} (the driver takes range and bins from the writer). */
typedef struct sim_corr {
    double range;
    long bins;
    double *sum, *pairs;
} sim_corr;

/* How `boids sim` runs in a process (cmd_sim.c): alone ({.writer = 1}, boids_cmd_sim), or as
 * one of the ranks that step one flock together (`boids-mpi sim`, src/app/mpi/sim_mpi.c).
 * Every hook may be NULL (then the serial behaviour). */
typedef struct sim_driver {
    int writer;                 /* this process writes stdout and every file */
    const app_command *command; /* the help and messages' name; NULL: boids sim's */
    const app_option *extra;    /* more options after sim's own (at most 8) */
    size_t nextra;
    /* Called by every process with app_parse's rc: the rc to go on with (APP_RUN only when
     * every process parsed its command line). */
    int (*parsed)(int rc);
    /* Called by every process once set up (st: how that went here; setup: what decides the
     * run, as text, NULL after a failure): a failure when any process failed or was set up
     * otherwise than the writer. */
    boids_status (*agree)(boids_status st, const char *setup, boids_error *err);
    /* The process's part of the initial flock into f (set up as app_initial_flock sets up the
     * whole: p->count becomes the state's N), and the initial state as a line of the setup
     * text; NULL: every process makes the whole flock (app_initial_flock). With it, every
     * process samples and saves through order, pull and save below (all called by every
     * process), and the writer's flock is the whole one only where a sample needs it. */
    boids_status (*initial)(const app_opts *o, boids_params *p, boids_flock *f, char *line,
                            size_t size, boids_error *err);
    /* With initial: boids_order of the whole flock on every process, of the parts in part
     * (the initial ones, at step 0) or else of b's state; the initial whole flock into out
     * on the writer from the parts (out NULL elsewhere); the state saved to path
     * (boids_state_save_seeded's file) by every process at once. */
    boids_status (*order)(boids_backend *b, const boids_flock *part, double *order,
                          boids_error *err);
    boids_status (*whole)(const boids_flock *part, boids_flock *out, boids_error *err);
    boids_status (*save)(boids_backend *b, const char *path, long noise_seed, boids_error *err);
    /* With initial, optional: boids_metrics_compute of the whole flock (of the parts in part
     * at step 0, else of b's state) into *m and, with fl, its boids_number_fluctuations,
     * with corr its velocity correlation (sim_corr), with sp (species > 1) its
     * boids_order_species into sp[0] and boids_clusters_species into sp[1] and sp[2],
     * computed by every process from the parts, valid on the writer: a sample then needs no
     * whole flock. */
    boids_status (*observe)(boids_backend *b, const boids_flock *part, const boids_params *p,
                            boids_metrics *m, boids_fluct *fl, const struct sim_corr *corr,
                            double (*sp)[BOIDS_MAX_SPECIES], boids_error *err);
    /* With initial, optional: the --trajectory (any format: app_traj_open's arguments)
     * written by every process at once (open, a frame of b's state or of the initial parts
     * in part after `step` steps, close: called by every process; abort: by each alone),
     * instead of by the writer from the whole flock. */
    boids_status (*traj_open)(const char *path, size_t frames, size_t n, int dim, int f8, double dt,
                              const double *side, boids_error *err);
    boids_status (*traj_frame)(boids_backend *b, const boids_flock *part, unsigned long step,
                               boids_error *err);
    boids_status (*traj_close)(boids_error *err);
    void (*traj_abort)(void);
    /* The backend that holds the flock f (every process has f, or its part), with o->inter's
     * table, for a run of `steps` steps (--steps). */
    boids_backend *(*create)(const app_opts *o, const boids_params *p, const boids_flock *f,
                             long steps, boids_error *err);
    /* The state into out (the writer's flock; NULL in the other processes, which take part). */
    boids_status (*pull)(boids_backend *b, boids_flock *out, boids_error *err);
    /* After the last step (every process): the driver's own report. */
    boids_status (*finish)(boids_backend *b, boids_error *err);
    /* A failure after the first step, with the outputs already discarded: ends every process
     * if they cannot all know of it (may not return). */
    void (*fatal)(boids_backend *b, const boids_error *err);
} sim_driver;

/* boids sim through driver drv; returns the exit code (only the writer prints a failure). */
int sim_main(int argc, char **argv, const sim_driver *drv);

/* boids sweep (argv[0] "sweep") through driver drv (cmd_sweep.c; the driver: sweep/sweep.h):
 * parse, check, run, write. Returns the exit code; only a writer prints the failure's message. */
struct sweep_driver;
int sweep_main(int argc, char **argv, const struct sweep_driver *drv);

#endif
