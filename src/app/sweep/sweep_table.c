/* SPDX-License-Identifier: MIT */
/* boids sweep: what a sweep writes from its runs' results. The table (one row per point:
 * means and standard errors over the seeds, block errors, tau, n_eff and the transition
 * estimators of the order parameter), the runs file, their JSON provenance sidecars and the
 * gnuplot figure. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atomic_file.h"
#include "boids/estimators.h"
#include "cli/cli.h"
#include "output/gnuplot.h"
#include "output/provenance.h"
#include "sweep/sweep.h"

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

static const char *const column_suffix[] = {[SWEEP_MEAN] = "_mean",
                                            [SWEEP_SE] = "_se",
                                            [SWEEP_SE_BLOCKS] = "_se_blocks",
                                            [SWEEP_TAU] = "_tau",
                                            [SWEEP_NEFF] = "_neff"};
static const char *const order_column[] = {[SWEEP_CHI] = "order_chi",
                                           [SWEEP_CHI_SE] = "order_chi_se",
                                           [SWEEP_BINDER] = "order_binder",
                                           [SWEEP_BINDER_SE] = "order_binder_se"};

boids_status sweep_plot_column(sweep *s, const char *name, boids_error *err) {
    for (int c = SWEEP_CHI; c <= SWEEP_BINDER_SE; c++)
        if (!strcmp(name, order_column[c])) {
            s->plot_y = 0, s->plot_col = c;
            return BOIDS_OK;
        }
    for (int k = 0; k < s->obs.count; k++) {
        const char *x = app_obs_name(&s->obs, k);
        size_t len = strlen(x);
        if (strncmp(name, x, len)) continue;
        if (!name[len]) { /* the observable's own name: its mean */
            s->plot_y = k, s->plot_col = SWEEP_MEAN;
            return BOIDS_OK;
        }
        for (int c = SWEEP_MEAN; c <= SWEEP_NEFF; c++)
            if (!strcmp(name + len, column_suffix[c])) {
                s->plot_y = k, s->plot_col = c;
                return BOIDS_OK;
            }
    }
    return boids_error_set(err, BOIDS_ERR_INPUT,
                           "--plot-y: '%s' is no numeric column of the table (an observable "
                           "(%s,gnf_alpha%s) or its _mean, _se, _se_blocks, _tau or _neff, or "
                           "order_chi, order_binder and their _se)",
                           name, boids_metrics_columns, s->obs.range > 0 ? ",corr_length" : "");
}

/* The plotted column's value at point q, and its error bar (NAN: none). */
static void column_value(const sweep *s, const point *q, double *v, double *e) {
    const int y = s->plot_y;
    *v = NAN, *e = NAN;
    switch ((sweep_column)s->plot_col) {
    case SWEEP_MEAN:
        *v = q->mean[y], *e = q->se[y];
        break;
    case SWEEP_SE:
        *v = q->se[y];
        break;
    case SWEEP_SE_BLOCKS:
        *v = q->se_blocks[y];
        break;
    case SWEEP_TAU:
        *v = q->tau[y];
        break;
    case SWEEP_NEFF:
        *v = q->neff[y];
        break;
    case SWEEP_CHI:
        *v = q->order.chi, *e = q->order.chi_se;
        break;
    case SWEEP_CHI_SE:
        *v = q->order.chi_se;
        break;
    case SWEEP_BINDER:
        *v = q->order.binder, *e = q->order.binder_se;
        break;
    case SWEEP_BINDER_SE:
        *v = q->order.binder_se;
        break;
    }
}

/* The figure: a data block per N (x, value, error) drawn with error bars where the column
 * has them (an observable's mean: its standard error over seeds; order_chi and order_binder:
 * their jackknife errors), else as points joined by lines; for order's mean it adds the
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
    const int order_mean = s->plot_y == 0 && s->plot_col == SWEEP_MEAN;
    const int bars =
        s->plot_col == SWEEP_MEAN || s->plot_col == SWEEP_CHI || s->plot_col == SWEEP_BINDER;
    for (size_t ci = 0; ci < s->ncounts; ci++) {
        fprintf(g, "$n%zu << EOD\n", ci);
        for (size_t vi = 0; vi < s->nvalues; vi++) {
            double v, e;
            column_value(s, &pts[ci * s->nvalues + vi], &v, &e);
            /* The value as the parameter took it (it parsed as a number), not the text. */
            fprintf(g, "%.17g %.10g %.10g\n", strtod(s->values[vi], NULL), v, isnan(e) ? 0 : e);
        }
        fputs("EOD\n", g);
    }
    char name[96];
    if (s->plot_col >= SWEEP_CHI)
        snprintf(name, sizeof name, "%s", order_column[s->plot_col]);
    else if (s->plot_col == SWEEP_MEAN)
        snprintf(name, sizeof name, "%s", app_obs_name(&s->obs, s->plot_y));
    else
        snprintf(name, sizeof name, "%s%s", app_obs_name(&s->obs, s->plot_y),
                 column_suffix[s->plot_col]);
    /* noenhanced: key and observable names are printed as they are (enhanced text would make
     * "separation_radius" a subscript); the key goes below the plot, off the curves. */
    fprintf(g, "set terminal %s size 900,600 %s noenhanced\n", svg ? "svg" : "pngcairo",
            svg ? "dynamic" : "font 'sans,11'");
    fprintf(g, "set output 'plot.%s'\n", svg ? "svg" : "png");
    fprintf(g,
            "set xlabel '%s'\nset ylabel '%s'\nset key below center horizontal\nset grid\n"
            "set autoscale xfix\nset offsets graph 0.02, graph 0.02, 0, 0\n",
            s->key->key, name);
    fprintf(g, "set title \"%s against %s: %s\"\n", name, s->key->key,
            s->plot_col == SWEEP_MEAN ? "mean over the seeds, bars: standard error over seeds"
            : bars ? "pooled over the seeds' runs, bars: jackknife error over seeds"
                   : "as in the table");
    if (order_mean) fputs("set yrange [0:1.05]\n", g);
    fputs("plot ", g);
    for (size_t ci = 0; ci < s->ncounts; ci++) {
        fprintf(g, "%s$n%zu using 1:2%s with %s lc %zu pt 7 ps 0.6 title 'N = %ld'", ci ? ", " : "",
                ci, bars ? ":3" : "", bars ? "yerrorlines" : "linespoints", ci + 1, s->counts[ci]);
        if (order_mean)
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

boids_status sweep_finish(const sweep *s, const app_opts *o, const app_prov *pv,
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
