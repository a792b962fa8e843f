/* SPDX-License-Identifier: MIT */
/* boids sweep: observables over the cartesian product of several parameters, N and seeds,
 * averaged after a burn-in, with standard errors over seeds; CSV tables with JSON provenance
 * sidecars, resumable, and an optional gnuplot figure. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "boids/atomic_file.h"
#include "boids/estimators.h"
#include "boids/metrics.h"
#include "boids/state_io.h"
#include "cli/cli.h"
#include "commands/commands.h"
#include "output/gnuplot.h"
#include "cli/progress.h"
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
        "(order, milling, nn_distance, neighbours, clusters, largest_cluster, gnf_alpha, and\n"
        "corr_length with --correlation-range) as CSV.\n"
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

/* Per point, for each observable: the mean and standard error over seeds of the run
 * averages, the error of that mean from the runs' blocks, the mean tau and the summed n_eff;
 * and the transition estimators of the order parameter over the point's runs. */
typedef struct point {
    double width, height;
    long samples;
    double mean[APP_OBS_MAX], se[APP_OBS_MAX];
    double se_blocks[APP_OBS_MAX], tau[APP_OBS_MAX], neff[APP_OBS_MAX];
    boids_transition order;
} point;

/* The serial sweep's progress line (run_all sets it; NULL in an MPI rank): runs done, and
 * the fraction of the current one, which run_one updates at each sample. */
static app_progress *sweep_bar;

/* The samples of one run: each observable's at steps burn_in, burn_in + every, ... into
 * x[k * n + i] (n samples), and the means of order^2 and order^4 into r. */
static boids_status run_samples(const app_opts *o, boids_params *pp, const sweep *s, double *x,
                                long n, sweep_result *r, boids_error *err) {
    boids_flock f;
    boids_status st = app_initial_flock(o, pp, &f, err);
    if (st) return st;
    boids_backend *b = app_backend_create(o, pp, &f, err);
    if (!b) {
        boids_flock_free(&f);
        return err->status;
    }
    app_obs ob = s->obs;
    double m2 = 0, m4 = 0, v[APP_OBS_MAX];
    long done = 0, i = 0;
    if (!(st = app_obs_begin(&ob, err))) {
        for (long t = s->burn_in; t <= s->steps && i < n; t += s->every, i++) {
            if (t > done && (st = boids_backend_step(b, pp, (unsigned)(t - done), err))) break;
            done = t;
            boids_metrics m;
            if ((st = boids_backend_download(b, &f, err)) ||
                (st = app_obs_sample(&ob, &f, pp, &m, v, err)))
                break;
            for (int k = 0; k < ob.count; k++) x[(size_t)k * (size_t)n + (size_t)i] = v[k];
            app_obs_add_moments(m.order, &m2, &m4);
            if (sweep_bar)
                app_progress_update(sweep_bar,
                                    floor(sweep_bar->done) + (double)t / (double)s->steps, NULL, 0);
        }
    }
    app_obs_free(&ob);
    boids_backend_destroy(b);
    boids_flock_free(&f);
    r->m2 = m2 / (double)n;
    r->m4 = m4 / (double)n;
    return st;
}

/* One run: the statistics of each observable over its samples (sweep_result). */
static boids_status run_one(const app_opts *o, const boids_params *p, const sweep *s, uint64_t seed,
                            sweep_result *r, boids_error *err) {
    app_opts ro = *o;
    ro.seed = seed;
    boids_params pp = *p;
    long n = (s->steps - s->burn_in) / s->every + 1;
    double *x = malloc((size_t)s->obs.count * (size_t)n * sizeof *x);
    if (!x) return boids_error_set(err, BOIDS_ERR_NOMEM, "out of memory for %ld samples", n);
    boids_status st = run_samples(&ro, &pp, s, x, n, r, err);
    for (int k = 0; !st && k < s->obs.count; k++) {
        boids_series_stats ss;
        st = app_obs_series(x + (size_t)k * (size_t)n, (size_t)n, &ss, err);
        if (!st) r->avg[k] = ss.mean, r->tau[k] = ss.tau, r->se_blocks[k] = ss.se_blocks;
    }
    free(x);
    r->samples = n;
    return st;
}

/* The table's header row: plain, first, no comments (its sidecar says what made it). */
static void write_header(FILE *out, const sweep *s) {
    fputs("N,width,height", out);
    for (size_t i = 0; i < s->naxes; i++) fprintf(out, ",%s", s->axes[i].key->key);
    fputs(",seeds,samples", out);
    /* The columns of the six metrics first, where they always were; then the others'. */
    for (int k = 0; k < s->obs.count; k++)
        fprintf(out, ",%s_mean,%s_se", app_obs_name(&s->obs, k), app_obs_name(&s->obs, k));
    for (int k = 0; k < s->obs.count; k++) {
        const char *x = app_obs_name(&s->obs, k);
        fprintf(out, ",%s_se_blocks,%s_tau,%s_neff", x, x, x);
    }
    fputs(",order_chi,order_chi_se,order_binder,order_binder_se\n", out);
}

static void write_csv(FILE *out, const sweep *s, const point *pts) {
    write_header(out, s);
    for (size_t pi = 0; pi < s->npoints; pi++) {
        const point *q = &pts[pi];
        size_t ci, vi[SWEEP_MAX_KEYS];
        sweep_point_coords(s, pi, &ci, vi);
        fprintf(out, "%ld,%.17g,%.17g", s->counts[ci], q->width, q->height);
        for (size_t i = 0; i < s->naxes; i++) fprintf(out, ",%s", s->axes[i].values[vi[i]]);
        fprintf(out, ",%ld,%ld", s->seeds, q->samples);
        for (int k = 0; k < s->obs.count; k++) fprintf(out, ",%.10g,%.10g", q->mean[k], q->se[k]);
        for (int k = 0; k < s->obs.count; k++)
            fprintf(out, ",%.10g,%.10g,%.10g", q->se_blocks[k], q->tau[k], q->neff[k]);
        fprintf(out, ",%.10g,%.10g,%.10g,%.10g\n", q->order.chi, q->order.chi_se, q->order.binder,
                q->order.binder_se);
    }
}

/* The figure: a data block per N (x, mean, se) drawn with error bars; for order it adds the
 * null-model scale 1/sqrt(N) (the RMS polarization of independent uniform headings, seed 003
 * 246.5) as a dashed line per N. The script names its output plot.png or plot.svg and
 * app_gnuplot moves it to path: no file name is pasted into gnuplot code. */
static boids_status plot(const char *path, const sweep *s, const point *pts, boids_error *err) {
    const char *ext = strrchr(path, '.');
    int svg = ext && !strcmp(ext, ".svg");
    char *script = NULL;
    size_t len = 0;
    FILE *g = open_memstream(&script, &len);
    if (!g) return boids_error_set(err, BOIDS_ERR_NOMEM, "plot: out of memory");
    int y = s->plot_y;
    for (size_t ci = 0; ci < s->ncounts; ci++) {
        fprintf(g, "$n%zu << EOD\n", ci);
        for (size_t vi = 0; vi < s->nvalues; vi++) {
            const point *q = &pts[ci * s->nvalues + vi];
            /* The value as the parameter took it (it parsed as a number), not the text. */
            fprintf(g, "%.17g %.10g %.10g\n", strtod(s->values[vi], NULL), q->mean[y],
                    isnan(q->se[y]) ? 0 : q->se[y]);
        }
        fputs("EOD\n", g);
    }
    const char *name = app_obs_name(&s->obs, y);
    /* noenhanced: key and observable names are printed as they are (enhanced text would make
     * "separation_radius" a subscript); the key goes below the plot, off the curves. */
    fprintf(g, "set terminal %s size 900,600 %s noenhanced\n", svg ? "svg" : "pngcairo",
            svg ? "dynamic" : "font 'sans,11'");
    fprintf(g, "set output 'plot.%s'\n", svg ? "svg" : "png");
    fprintf(g,
            "set xlabel '%s'\nset ylabel '%s'\nset key below center horizontal\nset grid\n"
            "set autoscale xfix\nset offsets graph 0.02, graph 0.02, 0, 0\n",
            s->key->key, name);
    fprintf(g,
            "set title \"%s against %s: mean over %ld seeds, bars: standard error over seeds\"\n",
            name, s->key->key, s->seeds);
    if (y == 0) fputs("set yrange [0:1.05]\n", g);
    fputs("plot ", g);
    for (size_t ci = 0; ci < s->ncounts; ci++) {
        fprintf(g, "%s$n%zu using 1:2:3 with yerrorlines lc %zu pt 7 ps 0.6 title 'N = %ld'",
                ci ? ", " : "", ci, ci + 1, s->counts[ci]);
        if (y == 0)
            fprintf(g, ", %.10g with lines dt 2 lc %zu title '1/sqrt(%ld): null-model RMS'",
                    1 / sqrt((double)s->counts[ci]), ci + 1, s->counts[ci]);
    }
    fputc('\n', g);
    int bad = ferror(g);
    if (fclose(g) != 0 || bad) {
        free(script);
        return boids_error_set(err, BOIDS_ERR_NOMEM, "plot: out of memory");
    }
    const char *out = svg ? "plot.svg" : "plot.png";
    boids_status st = app_gnuplot(script, 1, &out, &path, err);
    free(script);
    return st;
}

/* The options as given, before they are checked against each other. */
typedef struct sweep_args {
    const char *plot_y;
} sweep_args;

/* The observable to plot, the output files and their sidecars (writable before any run, checked
 * by the process that writes them) and the burn-in. */
static boids_status sweep_outputs(sweep *s, const sweep_args *a, int writer, boids_error *err) {
    s->plot_y = -1;
    boids_status st = app_obs_begin(&s->obs, err);
    if (st) return st;
    for (int k = 0; k < s->obs.count; k++)
        if (!strcmp(a->plot_y, app_obs_name(&s->obs, k))) s->plot_y = k;
    if (s->plot_y < 0)
        return boids_error_set(err, BOIDS_ERR_INPUT, "--plot-y: unknown observable '%s' (%s%s%s)",
                               a->plot_y, boids_metrics_columns, ",gnf_alpha",
                               s->obs.count > APP_OBS_CORR ? ",corr_length" : "");
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
    if (s->burn_in < 0) s->burn_in = s->steps / 2;
    if (s->burn_in > s->steps)
        return boids_error_set(err, BOIDS_ERR_INPUT,
                               "--burn-in %ld is beyond --steps %ld: no sample left", s->burn_in,
                               s->steps);
    return BOIDS_OK;
}

/* The point's statistics from its seeds runs res (see point): SE = sd / sqrt(S), sd with
 * S - 1; se_blocks = sqrt(sum_r se_r^2) / S, the error of the same mean from each run's
 * blocks; tau the mean over runs, n_eff the sum of samples / tau. */
static boids_status point_stats(point *q, const sweep *s, const sweep_result *res, long n,
                                boids_error *err) {
    long seeds = s->seeds;
    for (int m = 0; m < s->obs.count; m++) {
        double sum = 0, ss = 0, se2 = 0, tau = 0, neff = 0;
        for (long k = 0; k < seeds; k++) sum += res[k].avg[m];
        double mean = sum / (double)seeds;
        for (long k = 0; k < seeds; k++) {
            double d = res[k].avg[m] - mean;
            ss += d * d;
            se2 += res[k].se_blocks[m] * res[k].se_blocks[m];
            tau += res[k].tau[m];
            neff += (double)res[k].samples / res[k].tau[m];
        }
        q->mean[m] = mean;
        q->se[m] = seeds > 1 ? sqrt(ss / (double)(seeds - 1) / (double)seeds) : NAN;
        q->se_blocks[m] = sqrt(se2) / (double)seeds;
        q->tau[m] = tau / (double)seeds;
        q->neff[m] = neff;
    }
    q->samples = res[0].samples;
    double *m = malloc(3 * (size_t)seeds * sizeof *m);
    if (!m) return boids_error_set(err, BOIDS_ERR_NOMEM, "out of memory");
    for (long k = 0; k < seeds; k++)
        m[k] = res[k].avg[0], m[seeds + k] = res[k].m2, m[2 * seeds + k] = res[k].m4;
    boids_status st = boids_transition_estimate((size_t)seeds, m, m + seeds, m + 2 * seeds,
                                                (double)n, &q->order, err);
    free(m);
    return st;
}

boids_status sweep_execute(const app_opts *o, const sweep *s, size_t r, sweep_result *res,
                           boids_error *err) {
    boids_params p;
    boids_status st = sweep_run_params(o, s, r, &p, err);
    if (!st) st = run_one(o, &p, s, sweep_run_seed(o, s, r), &res[r], err);
    if (st) return st;
    res[r].done = 1;
    return BOIDS_OK;
}

void sweep_progress(const app_opts *o, const sweep *s, size_t r, const sweep_result *res,
                    size_t done, double t0) {
    if (sweep_bar) app_progress_clear(sweep_bar);
    char what[512] = "";
    size_t ci, vi[SWEEP_MAX_KEYS];
    sweep_point_coords(s, r / (size_t)s->seeds, &ci, vi);
    for (size_t i = 0; i < s->naxes; i++)
        snprintf(what + strlen(what), sizeof what - strlen(what), ", %s %s", s->axes[i].key->key,
                 s->axes[i].values[vi[i]]);
    fprintf(stderr, "boids sweep: [%zu/%zu] N %ld%s, seed %llu: order %.4f (%.1f s)\n", done,
            sweep_part_runs(s), s->counts[ci], what, (unsigned long long)sweep_run_seed(o, s, r),
            res[r].avg[0], app_now() - t0);
}

size_t sweep_done(const sweep *s, const sweep_result *res) {
    size_t done = 0;
    for (size_t r = 0; r < s->nruns; r++) done += res[r].done && sweep_in_part(s, r);
    return done;
}

/* The sweep's part of the sidecars: the grid, the sampling and what the statistics mean. */
static cJSON *sweep_object(const sweep *s, const app_opts *o, size_t resumed) {
    cJSON *obj = cJSON_CreateObject(), *keys = obj ? cJSON_AddArrayToObject(obj, "keys") : NULL;
    if (!keys) return obj;
    for (size_t i = 0; i < s->naxes; i++) {
        cJSON *k = cJSON_CreateObject();
        cJSON *values = cJSON_CreateArray();
        for (size_t v = 0; values && v < s->axes[i].nvalues; v++) /* as "parameters" types them */
            cJSON_AddItemToArray(values, app_prov_value(s->axes[i].key->key, s->axes[i].values[v]));
        cJSON_AddStringToObject(k, "key", s->axes[i].key->key);
        cJSON_AddItemToObject(k, "values", values);
        cJSON_AddItemToArray(keys, k);
    }
    cJSON *counts = cJSON_AddArrayToObject(obj, "counts");
    for (size_t i = 0; counts && i < s->ncounts; i++)
        cJSON_AddItemToArray(counts, cJSON_CreateNumber((double)s->counts[i]));
    if (s->density > 0)
        cJSON_AddNumberToObject(obj, "density", s->density);
    else
        cJSON_AddNullToObject(obj, "density"); /* no --density */
    cJSON_AddNumberToObject(obj, "seeds", (double)s->seeds);
    cJSON_AddItemToObject(obj, "first_seed", app_prov_integer(o->seed));
    cJSON_AddNumberToObject(obj, "steps", (double)s->steps);
    cJSON_AddNumberToObject(obj, "burn_in", (double)s->burn_in);
    cJSON_AddNumberToObject(obj, "sample_every", (double)s->every);
    cJSON_AddNumberToObject(obj, "points", (double)s->npoints);
    cJSON_AddNumberToObject(obj, "runs", (double)s->nruns);
    cJSON_AddNumberToObject(obj, "resumed_runs", (double)resumed);
    if (s->part.m) { /* --part K/M: this file holds the runs r with r % M == K - 1 */
        cJSON *part = cJSON_AddObjectToObject(obj, "part");
        cJSON_AddNumberToObject(part, "k", (double)s->part.k);
        cJSON_AddNumberToObject(part, "m", (double)s->part.m);
        cJSON_AddNumberToObject(part, "runs", (double)sweep_part_runs(s));
    } else {
        cJSON_AddNullToObject(obj, "part");
    }
    cJSON_AddStringToObject(
        obj, "statistics",
        "each run: the average of each observable over its samples at steps burn_in, "
        "burn_in + sample_every, ... up to steps, their integrated autocorrelation time tau "
        "(samples, Sokal window c = 5) and block standard error (16 blocks); boids/estimators.h. "
        "X_mean: the mean over seeds of the run averages; X_se: its standard error "
        "sd / sqrt(seeds), seed-to-seed variation only, not the autocorrelation within a run "
        "(nan with one seed); X_se_blocks: sqrt(sum of the runs' squared block errors) / seeds; "
        "X_tau: the mean of the runs' tau; X_neff: the sum of samples / tau; order_chi, "
        "order_binder: N (<phi^2> - <phi>^2) and 1 - <phi^4> / (3 <phi^2>^2) pooled over the "
        "point's runs, _se: jackknife over the runs.");
    /* The columns the rows follow, slowest first (a table row averages the seeds). */
    cJSON *order = cJSON_AddArrayToObject(obj, "order");
    cJSON_AddItemToArray(order, cJSON_CreateString("N"));
    for (size_t i = 0; order && i < s->naxes; i++)
        cJSON_AddItemToArray(order, cJSON_CreateString(s->axes[i].key->key));
    cJSON_AddItemToArray(order, cJSON_CreateString("seed"));
    return obj;
}

/* The sidecar of one table (kind "table", "runs" or "stdout"): the shared provenance, the
 * sweep, and the output's name and columns. */
static boids_status write_sidecar(const cJSON *base, const char *file, const char *kind,
                                  const sweep *s, boids_error *err) {
    cJSON *doc = cJSON_Duplicate(base, 1),
          *out = doc ? cJSON_AddObjectToObject(doc, "output") : NULL;
    char *buf = NULL;
    size_t size = 0;
    FILE *m = out ? open_memstream(&buf, &size) : NULL;
    if (m) {
        if (strcmp(kind, "runs"))
            write_header(m, s);
        else
            sweep_runs_header(m, s);
        fclose(m);
        if (buf) buf[strcspn(buf, "\n")] = '\0';
    }
    boids_status st = BOIDS_OK;
    if (!buf)
        st = boids_error_set(err, BOIDS_ERR_NOMEM, "out of memory writing provenance");
    else {
        cJSON_AddStringToObject(out, "file", file);
        cJSON_AddStringToObject(out, "kind", kind);
        cJSON_AddItemToObject(out, "columns", app_prov_columns(buf));
        /* --meta FILE is written as FILE, with or without --out; a table gets FILE.json. */
        st = file != s->meta ? app_prov_sidecar(file, doc, err) : app_prov_write(file, doc, err);
    }
    free(buf);
    cJSON_Delete(doc);
    return st;
}

/* The serial driver: every run not finished yet, in run order, each added to the journal (if
 * any) as it ends. The first failure stops the sweep; the journal keeps what finished before. */
static boids_status run_all(const sweep *s, const app_opts *o, sweep_result *res, sweep_journal *j,
                            boids_error *err) {
    double t0 = app_now();
    size_t done = sweep_done(s, res), ran = 0;
    app_progress bar;
    app_progress_begin(&bar, "boids sweep", "runs", (double)(sweep_part_runs(s) - done));
    sweep_bar = &bar;
    boids_status st = BOIDS_OK;
    for (size_t r = 0; !st && r < s->nruns; r++) {
        if (res[r].done || !sweep_in_part(s, r)) continue;
        bar.done = (double)ran;
        st = sweep_execute(o, s, r, res, err);
        if (!st) sweep_progress(o, s, r, res, ++done, t0);
        if (!st && j->f) st = sweep_journal_add(j, s, o, r, &res[r], err);
        if (!st) app_progress_update(&bar, (double)++ran, NULL, 1);
    }
    app_progress_end(&bar);
    sweep_bar = NULL;
    return st;
}

/* The runs table (the part's runs alone with --part), complete or not at all. */
static boids_status save_runs(const sweep *s, const app_opts *o, const sweep_result *res,
                              boids_error *err) {
    boids_atomic_file a;
    boids_status st = boids_atomic_open(&a, s->runs_out, err);
    if (st) return st;
    sweep_runs_header(a.f, s);
    for (size_t r = 0; !st && r < s->nruns; r++)
        if (sweep_in_part(s, r)) st = sweep_runs_row(a.f, s, o, r, &res[r], err);
    if (st) {
        boids_atomic_abort(&a);
        return st;
    }
    return boids_atomic_commit(&a, err);
}

/* The sidecars of the tables written (--out, --runs-out) and --meta. */
static boids_status save_sidecars(const sweep *s, const app_opts *o, const app_prov *pv,
                                  size_t resumed, boids_error *err) {
    boids_params base;
    boids_status st = app_params(o, &base, err);
    if (st) return st;
    const char *renderer = app_backend_renderer();
    const app_prov_run run = {o->preset, o->config,  o->sets,          o->nsets,   o->seed, o->load,
                              o->inter,  o->backend, o->deterministic, o->threads, renderer};
    cJSON *doc = app_prov_document(pv, &run, &base);
    cJSON *sw = doc ? sweep_object(s, o, resumed) : NULL;
    if (!sw) {
        cJSON_Delete(doc);
        return boids_error_set(err, BOIDS_ERR_NOMEM, "out of memory writing provenance");
    }
    cJSON_AddItemToObject(doc, "sweep", sw);
    if (s->out) st = write_sidecar(doc, s->out, "table", s, err);
    if (!st && s->runs_out) st = write_sidecar(doc, s->runs_out, "runs", s, err);
    if (!st && s->meta) st = write_sidecar(doc, s->meta, s->out ? "table" : "stdout", s, err);
    cJSON_Delete(doc);
    return st;
}

/* From every run's result: the table (--out or stdout), the runs file, the sidecars and
 * the plot; with --part the runs file and its sidecar alone. */
static boids_status sweep_finish(const sweep *s, const app_opts *o, const app_prov *pv,
                                 const sweep_result *res, size_t resumed, boids_error *err) {
    if (s->part.m) {
        boids_status st = save_runs(s, o, res, err);
        return st ? st : save_sidecars(s, o, pv, resumed, err);
    }
    point *pts = calloc(s->npoints, sizeof *pts);
    if (!pts) return boids_error_set(err, BOIDS_ERR_NOMEM, "out of memory");
    boids_status st = BOIDS_OK;
    for (size_t pi = 0; !st && pi < s->npoints; pi++) {
        boids_params p;
        st = sweep_run_params(o, s, pi * (size_t)s->seeds, &p, err);
        pts[pi].width = p.width;
        pts[pi].height = p.height;
        if (!st) st = point_stats(&pts[pi], s, &res[pi * (size_t)s->seeds], p.count, err);
    }
    /* The table and the plot all or nothing: the table's file is committed only once the
     * plot is written, so a failed plot leaves no table behind either. */
    boids_atomic_file csv = {0};
    if (!st && s->out) {
        if (!(st = boids_atomic_open(&csv, s->out, err))) write_csv(csv.f, s, pts);
    } else if (!st) {
        write_csv(stdout, s, pts);
        if (fflush(stdout) != 0 || ferror(stdout))
            st = boids_error_set(err, BOIDS_ERR_RUNTIME, "writing to stdout failed");
    }
    if (!st && s->plot) st = plot(s->plot, s, pts, err);
    if (csv.tmp) {
        if (st)
            boids_atomic_abort(&csv);
        else
            st = boids_atomic_commit(&csv, err);
    }
    if (!st && s->runs_out) st = save_runs(s, o, res, err);
    if (!st) st = save_sidecars(s, o, pv, resumed, err);
    free(pts);
    return st;
}

/* Before the first run: the results, and in the writer the journal (resuming from it with
 * --resume). */
static boids_status sweep_start(const sweep *s, const app_opts *o, const sweep_driver *drv,
                                sweep_result **res, sweep_journal *j, size_t *resumed,
                                boids_error *err) {
    if (!(*res = calloc(s->nruns, sizeof **res)))
        return boids_error_set(err, BOIDS_ERR_NOMEM, "out of memory");
    boids_status st = BOIDS_OK;
    if (drv->writer && s->runs_out) st = sweep_journal_open(j, s, o, *res, resumed, err);
    if (!st && drv->writer && s->resume)
        fprintf(stderr, "boids sweep: resuming: %zu of %zu runs already done (%s)\n", *resumed,
                sweep_part_runs(s), s->runs_out);
    return st;
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
        {APP_TEXT, "meta", 0, "FILE", &s.meta,
         .help = "write the provenance of the table (JSON) to FILE, e.g. when the table\n"
                 "goes to stdout"},
        {APP_TEXT, "plot", 0, "FILE", &s.plot,
         .help = "draw an observable against KEY, one curve per N, with error bars\n"
                 "(one swept key; .png or .svg; needs gnuplot)"},
        {APP_TEXT, "plot-y", 0, "NAME", &a.plot_y,
         .help = "the observable to plot (default order)"},
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
    boids_status st = sweep_grid_check(&s, &o, &err);
    if (!st) st = sweep_interact(&o, &inter, &err);
    if (!st) st = sweep_outputs(&s, &a, drv->writer, &err);
    if (!st) st = sweep_ids(&s, &o, &err); /* checks every run's parameters before the first */
    if (!st && drv->writer) cpu_ref_note(&s, &o);
    sweep_result *res = NULL;
    sweep_journal j = {NULL, NULL, 0};
    size_t resumed = 0;
    if (!st) st = sweep_start(&s, &o, drv, &res, &j, &resumed, &err);
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
    const sweep_driver serial = {1, NULL, NULL, run_all};
    return sweep_main(argc, argv, &serial);
}
