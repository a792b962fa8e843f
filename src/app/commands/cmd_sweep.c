/* SPDX-License-Identifier: MIT */
/* boids sweep: observables over the cartesian product of several parameters, N and seeds,
 * averaged after a burn-in, with standard errors over seeds; CSV tables with JSON provenance
 * sidecars, resumable, and an optional gnuplot figure. This file is the command: its options,
 * their checks against each other, and the calls to the grid (sweep/sweep_grid.c), the runs
 * (sweep/sweep_exec.c, or boids-mpi's driver) and the outputs (sweep/sweep_table.c). */
#include <float.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "atomic_file.h"
#include "boids/metrics.h"
#include "cli/cli.h"
#include "cli/progress.h"
#include "commands/commands.h"
#include "output/collide.h"
#include "output/provenance.h"
#include "sweep/sweep.h"

static const app_command sweep_command = {
    .prog = "boids sweep",
    .synopsis =
        "usage: boids sweep (--key KEY (--values V1,V2,... | --range A:B:STEP))... [OPTIONS]\n"
        "       boids sweep (--grid KEY=V1,V2,... | --grid KEY=A:B:STEP)... [OPTIONS]\n"
        "Runs the simulation for every combination of the values of the swept keys (any key of\n"
        "`boids params`; --key and --grid repeat, one key each), every N of --counts and\n"
        "--seeds seeds each, and prints for each point (N, values) the observables\n"
        "(order, milling, nn_distance, neighbours, clusters, largest_cluster, gnf_alpha,\n"
        "corr_length with --correlation-range, and with species each one's order, clusters and\n"
        "largest_cluster: order.0 ..., clusters.0 ..., largest_cluster.0 ...) as CSV.\n"
        "\n"
        "Statistics (docs/research.md, section 3): each run takes the samples at steps B,\n"
        "B + E, ..., K (B = --burn-in, E = --sample-every, K = --steps) and gives per\n"
        "observable X its average, its integrated autocorrelation time tau (in samples,\n"
        "Sokal's window: the smallest W with W >= 5 tau(W)) and a standard error from 16\n"
        "blocks of its samples. Per point: X_mean, the mean of the run averages over the\n"
        "seeds; X_se = sd / sqrt(seeds), their seed-to-seed standard error; X_se_blocks =\n"
        "sqrt(sum of the runs' squared block errors) / seeds, the error of the same mean\n"
        "from within the runs (a gap between the two: runs in different states, or blocks\n"
        "shorter than tau); X_tau, the mean over seeds of tau; X_neff, the sum over seeds of\n"
        "samples / tau. For the order parameter phi pooled over every sample of the point's\n"
        "runs: order_chi = N (<phi^2> - <phi>^2) and order_binder = 1 - <phi^4> / (3 <phi^2>^2)\n"
        "with jackknife errors over the seeds (_se). Seeds are --seed, --seed + 1, ...; each\n"
        "seed sets the initial state and the Vicsek noise stream. --runs-out keeps every\n"
        "run's numbers, one row per run.\n"
        "\n",
    .notes = "Every CSV starts with its header row (pandas.read_csv reads it as is); what made it\n"
             "(version, commit, command line, parameters, machine, times) goes to FILE.json.\n"
             "Rows follow N, then the keys in the order given (the last fastest), then seeds.\n"
             "Progress goes to stderr. --load is refused: each seed draws its own state.\n\n",
    .shared = APP_ALL,
    .backend = "cpu-ref",
    .deterministic = 1};

/* The options as given, before they are checked against each other. */
typedef struct sweep_args {
    const char *plot_y;
} sweep_args;

/* The observable to plot, the output files and their sidecars (writable before any run, checked
 * by the process that writes them) and the burn-in. */
static boids_status sweep_outputs(sweep *s, const sweep_args *a, int writer, boids_error *err) {
    boids_status st = app_obs_begin(&s->obs, err);
    if (st || (st = sweep_plot_column(s, a->plot_y, err))) return st;
    if (s->plot) {
        const char *ext = strrchr(s->plot, '.');
        if (!ext || (strcmp(ext, ".png") && strcmp(ext, ".svg")))
            return boids_error_set(err, BOIDS_ERR_INPUT,
                                   "--plot %s: the name must end in .png or .svg", s->plot);
        if (s->naxes != 1)
            return boids_error_set(err, BOIDS_ERR_INPUT,
                                   "--plot draws one swept key against N; with %zu keys use "
                                   "--runs-out and plot in Python (docs/research.md)",
                                   s->naxes);
        if (s->key->type != BOIDS_KEY_REAL && s->key->type != BOIDS_KEY_INT)
            return boids_error_set(err, BOIDS_ERR_INPUT,
                                   "--plot: key '%s' is not numeric, nothing to put on an axis",
                                   s->key->key);
        if (writer && boids_atomic_check_writable(s->plot, err)) return err->status;
    }
    if (s->resume && !s->runs_out)
        return boids_error_set(err, BOIDS_ERR_INPUT,
                               "--resume needs --runs-out FILE (the record of finished runs)");
    if (s->part.m && (!s->runs_out || s->out || s->plot || s->meta))
        return boids_error_set(err, BOIDS_ERR_INPUT,
                               "--part %ld/%ld writes its runs to --runs-out FILE and no table: "
                               "%s (the table comes from the --resume that merges the parts)",
                               s->part.k, s->part.m,
                               !s->runs_out ? "give --runs-out"
                               : s->out     ? "not with --out"
                               : s->plot    ? "not with --plot"
                                            : "not with --meta");
    const char *tables[] = {s->out, s->runs_out};
    for (int i = 0; writer && i < 2; i++)
        if (tables[i] &&
            (boids_atomic_check_writable(tables[i], err) || app_prov_check_sidecar(tables[i], err)))
            return err->status;
    if (writer && s->meta && boids_atomic_check_writable(s->meta, err)) return err->status;
    if (s->series_dir) {
        struct stat sb;
        if (stat(s->series_dir, &sb) != 0 || !S_ISDIR(sb.st_mode) ||
            access(s->series_dir, W_OK | X_OK) != 0)
            return boids_error_set(err, BOIDS_ERR_INPUT,
                                   "--series-dir %s: not a folder this process can write in "
                                   "(make it first)",
                                   s->series_dir);
    }
    if (s->burn_in < 0) s->burn_in = s->steps / 2;
    if (s->burn_in > s->steps)
        return boids_error_set(err, BOIDS_ERR_INPUT,
                               "--burn-in %ld is beyond --steps %ld: no sample left", s->burn_in,
                               s->steps);
    return BOIDS_OK;
}

/* Every file the sweep reads or writes, and what goes beside each: no two may be one file. */
static boids_status sweep_paths(const sweep *s, const app_opts *o, boids_error *err) {
    const app_path paths[] = {
        {"--config", o->config, APP_PATH_IN},
        {"--out", s->out, APP_PATH_OUT | APP_PATH_SIDECAR},
        {"--runs-out", s->runs_out, APP_PATH_OUT | APP_PATH_SIDECAR | APP_PATH_JOURNAL},
        {"--meta", s->meta, APP_PATH_OUT},
        {"--plot", s->plot, APP_PATH_OUT},
    };
    return app_paths_check(paths, APP_COUNT(paths), err);
}

/* --series-dir DIR writes DIR/RUN_ID.csv for every run: refused when a file the sweep reads or
 * writes is one of those, which a run would replace. (Sidecars and journals end in .json and
 * .partial, never in a run file's .csv.) The folders are compared by device and inode, so
 * "DIR", "./DIR" and a link to it are one. */
static boids_status sweep_series_paths(const sweep *s, const app_opts *o, boids_error *err) {
    struct stat dir;
    if (!s->series_dir || stat(s->series_dir, &dir) != 0) return BOIDS_OK; /* sweep_outputs */
    const struct {
        const char *option, *path;
    } files[] = {{"--config", o->config},
                 {"--out", s->out},
                 {"--runs-out", s->runs_out},
                 {"--meta", s->meta},
                 {"--plot", s->plot}};
    for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
        const char *name = files[f].path;
        if (!name) continue;
        const char *slash = strrchr(name, '/');
        const char *base = slash ? slash + 1 : name;
        if (strlen(base) != 20 || strcmp(base + 16, ".csv") != 0 ||
            strspn(base, "0123456789abcdef") != 16)
            continue;
        uint64_t id = strtoull(base, NULL, 16);
        size_t r = 0;
        while (r < s->nruns && s->ids[r] != id) r++;
        if (r == s->nruns) continue;
        char folder[4096] = ".";
        if (slash && snprintf(folder, sizeof folder, "%.*s", (int)(slash - name + 1), name) >=
                         (int)sizeof folder)
            continue; /* no such folder can be named: the file's own open fails */
        struct stat at;
        if (stat(folder, &at) == 0 && at.st_dev == dir.st_dev && at.st_ino == dir.st_ino)
            return boids_error_set(err, BOIDS_ERR_INPUT,
                                   "%s %s: the file --series-dir %s writes for run %016" PRIx64
                                   " (its samples would replace it); name another file",
                                   files[f].option, name, s->series_dir, id);
    }
    return BOIDS_OK;
}

/* The points and obstacles of --config, the same in every run (their off points take the
 * base parameters' predator and food radius and weight); o->inter points to t. */
static boids_status sweep_interact(app_opts *o, boids_interact *t, boids_error *err) {
    boids_params base;
    boids_status st = app_params(o, &base, err);
    if (!st) st = app_interact(o, &base, t, err);
    if (!st) o->inter = t;
    return st;
}

/* The observables order.0 ..., clusters.0 ..., largest_cluster.0 ... of the runs' species: as many
 * as the most of any run's (a run with fewer has 0 for the others). */
static boids_status sweep_species(sweep *s, const app_opts *o, boids_error *err) {
    for (size_t r = 0; r < s->nruns; r++) {
        boids_params p;
        boids_status st = sweep_run_params(o, s, r, &p, err);
        if (st) return st;
        if (p.species > s->obs.species) s->obs.species = (int)p.species;
    }
    return BOIDS_OK;
}

/* The cpu-ref backend's estimate of a step (app_cpu_ref_estimate) at the sweep's largest N. */
static void cpu_ref_note(const sweep *s, const app_opts *o) {
    size_t big = 0;
    for (size_t i = 1; i < s->ncounts; i++)
        if (s->counts[i] > s->counts[big]) big = i;
    boids_params p;
    boids_error err;
    /* Runs are numbered N outermost: the first run of count `big`. */
    if (!sweep_run_params(o, s, big * (s->nruns / s->ncounts), &p, &err))
        app_cpu_ref_estimate("boids sweep", o->backend, &p, s->steps);
}

int sweep_main(int argc, char **argv, const sweep_driver *drv) {
    sweep s = {.seeds = 3, .steps = 1000, .burn_in = -1, .every = 10};
    sweep_args a = {.plot_y = "order"};
    const app_option own[] = {
        {APP_CUSTOM, "key", 0, "KEY", &s, .parse = sweep_parse_key, .repeat = 1,
         .help = "a parameter to sweep (repeatable, each followed by its --values or\n"
                 "--range; not count: use --counts)"},
        {APP_CUSTOM, "values", 0, "LIST", &s, .parse = sweep_parse_values, .repeat = 1,
         .help = "comma-separated values of the latest --key (any value it accepts)"},
        {APP_CUSTOM, "range", 0, "A:B:STEP", &s, .parse = sweep_parse_range, .repeat = 1,
         .help = "A, A + STEP, ... up to B, for the latest --key (numeric keys)"},
        {APP_CUSTOM, "grid", 0, "KEY=VALUES", &s, .parse = sweep_parse_grid, .repeat = 1,
         .help = "a key and its values at once: KEY=V1,V2,... or KEY=A:B:STEP\n"
                 "(repeatable; the same as --key KEY --values/--range)"},
        {APP_CUSTOM, "counts", 0, "LIST", &s, .parse = sweep_parse_counts,
         .help = "comma-separated N values, each as -n gives it (default: -n or the\n"
                 "parameters' count)"},
        {APP_REAL, "density", 0, "D", &s.density, 0, DBL_MAX, .open = 1,
         .help = "density D at every N, below the parameters' N too: a square world\n"
                 "of side sqrt(N / D) (a cube of side cbrt(N / D) in 3-D) instead"},
        {APP_LONG, "seeds", 0, "S", &s.seeds, 1, 100000, .help = "runs per point (default 3)"},
        {APP_LONG, "steps", 0, "K", &s.steps, 0, 2000000000L,
         .help = "steps per run (default 1000)"},
        {APP_LONG, "burn-in", 0, "B", &s.burn_in, 0, 2000000000L,
         .help = "steps before the first sample (default K / 2)"},
        {APP_LONG, "sample-every", 0, "E", &s.every, 1, 2000000000L,
         .help = "steps between samples (default 10)"},
        {APP_TEXT, "out", 0, "FILE", &s.out,
         .help = "write the table to FILE (atomically) instead of stdout, and its\n"
                 "provenance to FILE.json"},
        {APP_TEXT, "series-dir", 0, "DIR", &s.series_dir,
         .help = "keep each run's samples: DIR/RUN_ID.csv (step, then each observable at\n"
                 "every sample; RUN_ID as in --runs-out), written as the run ends"},
        {APP_TEXT, "runs-out", 0, "FILE", &s.runs_out,
         .help = "write one row per run to FILE (run id, N, values, seed, samples,\n"
                 "each observable's run average, then its tau and se_blocks, then\n"
                 "order_m2 and order_m4) and FILE.json; FILE.partial records\n"
                 "runs as they finish until the sweep ends (locked meanwhile; one that\n"
                 "holds runs is never overwritten: resume it or remove it)"},
        {APP_FLAG, "resume", 0, NULL, &s.resume, 1,
         .help = "skip the runs that --runs-out FILE or FILE.partial already holds\n"
                 "(each row checked first; the result is the same, byte for\n"
                 "byte, as one uninterrupted sweep)"},
        {APP_CUSTOM, "part", 0, "K/M", &s.part, .parse = sweep_parse_part,
         .help = "run only part K of M (1 <= K <= M): the runs r = 0, 1, ... (in\n"
                 "the rows' order) with r % M == K - 1, their rows to --runs-out\n"
                 "FILE, no table; with every part's rows in ALL.partial, --resume\n"
                 "--runs-out ALL writes the whole sweep's files (docs/research.md)"},
        {APP_LONG, "jobs", 0, "J", &s.jobs, 1, 1024,
         .help = "runs at once, each a process of its own (default: the cores it\n"
                 "may run on / T, T = --threads or 1; 1 with --backend gpu); each run gets\n"
                 "T threads (default: cores / J); the files are the same, byte for\n"
                 "byte, as with --jobs 1 (one run after the other)"},
        {APP_TEXT, "meta", 0, "FILE", &s.meta,
         .help = "write the provenance of the table (JSON) to FILE, e.g. when the table\n"
                 "goes to stdout"},
        {APP_TEXT, "plot", 0, "FILE", &s.plot,
         .help = "draw an observable against KEY, one curve per N, with error bars\n"
                 "(one swept key; .png or .svg; needs gnuplot)"},
        {APP_TEXT, "plot-y", 0, "NAME", &a.plot_y,
         .help = "the column to plot: an observable (its mean, with error bars) or any "
                 "numeric column of the table, e.g. order_binder or order_chi (default order)"},
        APP_OBS_OPTIONS(&s.obs),
    };
    app_opts o;
    int rc = app_parse(&sweep_command, own, APP_COUNT(own), &o, argc, argv);
    if (drv->parsed) rc = drv->parsed(rc);
    if (rc != APP_RUN) {
        sweep_free(&s);
        return rc;
    }
    app_prov pv;
    app_prov_begin(&pv);
    boids_error err;
    boids_interact inter;
    boids_status st = sweep_paths(&s, &o, &err);
    if (!st) st = sweep_grid_check(&s, &o, &err);
    if (!st) st = sweep_interact(&o, &inter, &err);
    if (!st) st = sweep_species(&s, &o, &err);
    if (!st) st = sweep_outputs(&s, &a, drv->writer, &err);
    if (!st) st = sweep_ids(&s, &o, &err); /* checks every run's parameters before the first */
    if (!st) st = sweep_series_paths(&s, &o, &err);
    if (!st && s.jobs && !drv->jobs)
        st = boids_error_set(&err, BOIDS_ERR_INPUT,
                             "--jobs: not with boids-mpi (each rank runs one run at a time)");
    sweep_result *res = NULL;
    sweep_journal j = {NULL, NULL, 0};
    size_t resumed = 0;
    if (!st) st = sweep_start(&s, &o, drv, &res, &j, &resumed, &err);
    if (!st && drv->jobs) sweep_jobs(&s, &o, res); /* before anything starts OpenMP threads */
    if (!st && drv->writer) cpu_ref_note(&s, &o);
    if (drv->agree) st = drv->agree(st, &s, &o, &err);
    int ran = !st;
    if (!st) st = drv->run(&s, &o, res, &j, &err);
    if (!st && drv->writer) st = sweep_finish(&s, &o, &pv, res, resumed, &err);
    /* Kept on failure, --resume goes on from it; but not one this sweep made and ran nothing
     * into (another rank failed before the first run). */
    sweep_journal_close(&j, !st || (!ran && j.created));
    free(res);
    sweep_free(&s);
    if (!st) return 0;
    return drv->writer ? app_fail(&err) : boids_status_exit_code(st); /* one message, not K */
}

int boids_cmd_sweep(int argc, char **argv) {
    const sweep_driver local = {1, NULL, NULL, sweep_run_jobs, 1};
    return sweep_main(argc, argv, &local);
}
