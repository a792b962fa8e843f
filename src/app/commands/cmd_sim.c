/* SPDX-License-Identifier: MIT */
/* boids sim: headless simulation with metrics on stdout and an optional final state.
 * The same command runs one flock over MPI ranks (`boids-mpi sim`, src/app/mpi): sim_main
 * takes a driver that says which process writes, how the processes agree before the first
 * step, which backend holds the flock and how its state reaches the writer. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "atomic_file.h"
#include "boids/metrics.h"
#include "clock.h"
#include "boids/state_io.h"
#include "cli/cli.h"
#include "commands/commands.h"
#include "cli/progress.h"
#include "output/collide.h"
#include "output/provenance.h"
#include "observe/sim_stats.h"
#include "output/trajectory.h"
#include "output/vtk.h"

static const app_command sim_command = {
    .prog = "boids sim",
    .synopsis =
        "usage: boids sim [OPTIONS]\n"
        "Runs the simulation without a window. Prints CSV metrics on stdout: a header line, then\n"
        "one line every --every steps (step 0 included) with the columns\n"
        "  step,order,milling,nn_distance,neighbours,clusters,largest_cluster\n"
        "(see README, Observables). --order-only prints step,order alone, for huge flocks.\n"
        "\n",
    .shared = APP_ALL,
    .backend = "cpu-ref",
    .deterministic = 1};

/* Where the samples go: stdout, and on request a series CSV, a trajectory and sidecars. */
typedef struct sim_out {
    const char *save, *series, *trajectory, *meta, *dtype, *checkpoint;
    int order_only;
    long steps, every, checkpoint_every;
    const sim_driver *drv;
    boids_atomic_file series_file; /* .f NULL: no series */
    app_traj traj;                 /* .open 0: no trajectory */
    app_progress bar;              /* steps done, on a terminal's stderr */
    sim_stats stats;               /* the observables of each sample and the estimators */
    int stdout_tty;                /* the metrics share the terminal with the bar */
    size_t n;                      /* the flock's N */
    int dim;
    int whole;        /* with drv->initial (a part each): a sample needs the whole flock */
    int fluct;        /* a sample takes the number fluctuations (series or estimators) */
    int corr;         /* ... and the velocity correlation (a correlation range) */
    boids_flock part; /* with drv->initial, until step 0 is sampled: the initial part */
    int traj_parts;   /* the .npy trajectory written in parts (drv->traj_open) */
} sim_out;

/* The number of samples: step 0, then every K-th step, or the last step alone without
 * --every (the same steps as the metrics on stdout). */
static size_t sample_count(long steps, long every) {
    return every ? (size_t)(steps / every) + 1 : steps ? 2 : 1;
}

/* The state of b into f (the writer's) through the driver; another process only takes part.
 * With a part in each process, the writer's flock becomes the whole one first. */
static boids_status pull(boids_backend *b, boids_flock *f, const sim_out *so, boids_error *err) {
    if (so->drv->initial && so->drv->writer && f->n != so->n) {
        boids_flock_free(f);
        boids_status s = boids_flock_alloc_dim(f, so->n, so->dim, err);
        if (s) return s;
    }
    if (so->drv->pull) return so->drv->pull(b, so->drv->writer ? f : NULL, err);
    return boids_backend_download(b, f, err);
}

/* The columns of the lines on stdout: step, the order alone (--order-only) or the metrics
 * and with species each one's order, clusters and largest_cluster (order.0 ...,
 * clusters.0 ..., largest_cluster.0 ...: the observables' last ones). */
static void stdout_columns(const sim_out *so, char *buf, size_t size) {
    const app_obs *ob = &so->stats.obs; /* the run's species (sim_stats_begin) */
    size_t len =
        (size_t)snprintf(buf, size, "step,%s", so->order_only ? "order" : boids_metrics_columns);
    for (int k = ob->sp_first; !so->order_only && ob->species > 1 && k < ob->count && len < size;
         k++)
        len += (size_t)snprintf(buf + len, size - len, ",%s", app_obs_name(ob, k));
}

/* One sample: the metrics line on stdout, a series row, a trajectory frame. The state comes
 * from b, but at step 0 of a process that holds the whole flock f already. */
static boids_status sample(unsigned long step, boids_backend *b, boids_flock *f,
                           const boids_params *p, sim_out *so, boids_error *err) {
    const int parts = so->drv->initial != NULL, by_parts = parts && !so->whole;
    /* the parts observed where more than the order is asked (the metrics on the writer) */
    const int observed = by_parts && (!so->order_only || so->fluct);
    double order = 0;
    boids_metrics m;
    boids_status s = BOIDS_OK;
    const boids_flock *initial = parts && step == 0 ? &so->part : NULL;
    double(*sp)[BOIDS_MAX_SPECIES] = so->order_only || p->species < 2 ? NULL : so->stats.obs.sp;
    if (observed) {
        app_obs *ob = &so->stats.obs;
        if (so->corr && so->drv->writer) app_obs_clear(ob);
        const sim_corr corr = so->drv->writer ? (sim_corr){ob->range, ob->bins, ob->sum, ob->pairs}
                                              : (sim_corr){0, 0, NULL, NULL};
        s = so->drv->observe(b, initial, p, &m, so->fluct ? &ob->fluct : NULL,
                             so->corr ? &corr : NULL, sp, err);
    } else if (by_parts)
        s = so->drv->order(b, initial, &order, err);
    else if (initial && so->drv->writer && !(s = boids_flock_alloc_dim(f, so->n, so->dim, err)))
        s = so->drv->whole(initial, f, err);
    else if (initial)
        s = so->drv->whole(initial, NULL, err);
    else if (parts || step > 0)
        s = pull(b, f, so, err);
    if (!s && so->traj_parts) s = so->drv->traj_frame(b, initial, step, err);
    if (initial) boids_flock_free(&so->part); /* the split flock holds it now */
    if (s || !so->drv->writer) return s;
    if (!by_parts && so->order_only) order = boids_order(f);
    if (observed) order = m.order;
    double x[APP_OBS_MAX];
    char line[1024];
    size_t mlen = 0; /* the metrics' part of line (then each species' order) */
    if (so->stats.on || !so->order_only) {
        if (observed) {
            app_obs_fill(&so->stats.obs, &m, x);
            s = so->stats.on ? sim_stats_keep(&so->stats, step, x, err) : BOIDS_OK;
        } else {
            s = so->stats.on ? sim_stats_sample(&so->stats, step, f, p, &m, x, err)
                             : boids_metrics_compute(f, p, &m, err);
            if (!s && sp && !so->stats.on) s = app_obs_species(f, p, sp, err); /* else sampled */
        }
        if (s) return s;
        mlen = (size_t)boids_metrics_format(&m, line, sizeof line);
        for (size_t k = 0, len = mlen;
             sp && k < APP_OBS_SP_KINDS * (size_t)p->species && len < sizeof line;
             k++) /* order.s ..., clusters.s ..., largest_cluster.s ... */
            len += (size_t)snprintf(line + len, sizeof line - len, ",%.17g",
                                    sp[k / (size_t)p->species][k % (size_t)p->species]);
    }
    /* A line between the bar's rewrites would start after it: erase it, print, redraw. */
    int bar = so->stdout_tty && so->bar.drawn;
    if (bar) app_progress_clear(&so->bar);
    if (so->order_only)
        printf("%lu,%.17g\n", step, order);
    else
        printf("%lu,%s\n", step, line);
    if (bar) app_progress_update(&so->bar, so->bar.done, NULL, 1);
    if (so->series_file.f) {
        fprintf(so->series_file.f, "%lu,%.*s", step, (int)mlen, line);
        for (int k = BOIDS_METRICS_COUNT; k < so->stats.obs.count; k++)
            fprintf(so->series_file.f, ",%.17g", x[k]);
        fputc('\n', so->series_file.f);
    }
    return so->traj_parts ? BOIDS_OK : app_traj_frame(&so->traj, f, step, err);
}

/* Opens the series and trajectory files (temporary until the run ends) and checks that
 * every output and sidecar can be written, before the first step. */
static boids_status open_outputs(sim_out *so, size_t n, const boids_params *p, boids_error *err) {
    const char *files[] = {so->save, so->meta, so->series, so->trajectory};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++)
        if (files[i] && boids_atomic_check_writable(files[i], err)) return err->status;
    if ((so->save && app_prov_check_sidecar(so->save, err)) || /* the state's sidecar */
        (so->series && app_prov_check_sidecar(so->series, err)) ||
        (so->trajectory && app_prov_check_sidecar(so->trajectory, err)))
        return err->status;
    if (so->dtype && strcmp(so->dtype, "f4") && strcmp(so->dtype, "f8"))
        return boids_error_set(err, BOIDS_ERR_INPUT, "--trajectory-dtype: '%s' is not f4 or f8",
                               so->dtype);
    if (so->dtype && !so->trajectory)
        return boids_error_set(err, BOIDS_ERR_INPUT, "--trajectory-dtype needs --trajectory FILE");
    if (so->series) {
        boids_status s = boids_atomic_open(&so->series_file, so->series, err);
        if (s) return s;
        char columns[512];
        sim_stats_columns(&so->stats, columns, sizeof columns);
        fprintf(so->series_file.f, "step,%s\n", columns);
    }
    if (so->trajectory && !so->traj_parts) {
        int f8 = so->dtype && !strcmp(so->dtype, "f8");
        const double side[3] = {p->width, p->height, p->depth};
        boids_status s =
            app_traj_open(&so->traj, so->trajectory, sample_count(so->steps, so->every), n, p->dim,
                          f8, p->dt, side, err);
        if (s) return s;
        app_traj_set_species(&so->traj, p);
    }
    return BOIDS_OK;
}

/* Every file the run reads or writes, and what goes beside each: no two may be one file. A
 * driver's own FILE options (boids-mpi's --mpi-stats) are outputs too. */
static boids_status check_paths(const app_opts *o, const sim_out *so, boids_error *err) {
    enum { IN = APP_PATH_IN, OUT = APP_PATH_OUT, SIDE = APP_PATH_SIDECAR, ST = APP_PATH_STATE };
    enum { OWN = 10, MAX_EXTRA = 8 };
    app_path paths[OWN + MAX_EXTRA] = {
        {"--config", o->config, IN},
        {"--load", o->load, IN | SIDE | ST},
        {"--save", so->save, OUT | SIDE | ST},
        {"--checkpoint", so->checkpoint, OUT | SIDE | ST},
        {"--series", so->series, OUT | SIDE},
        {"--trajectory", so->trajectory, OUT | SIDE | APP_PATH_TRAJECTORY},
        {"--meta", so->meta, OUT},
        {"--estimates", so->stats.estimates, OUT | SIDE},
        {"--correlation", so->stats.correlation, OUT | SIDE},
        {"--fluctuations", so->stats.fluctuations, OUT | SIDE},
    };
    char flags[MAX_EXTRA][64];
    size_t n = OWN;
    for (size_t i = 0; i < so->drv->nextra && n < OWN + MAX_EXTRA; i++) {
        const app_option *x = &so->drv->extra[i];
        if (x->kind != APP_TEXT || !x->meta || strcmp(x->meta, "FILE")) continue;
        snprintf(flags[n - OWN], sizeof flags[0], "--%s", x->name);
        paths[n] = (app_path){flags[n - OWN], *(const char *const *)x->dst, OUT};
        n++;
    }
    return app_paths_check(paths, n, err);
}

static void abort_outputs(sim_out *so) {
    if (so->series_file.f) boids_atomic_abort(&so->series_file);
    app_traj_abort(&so->traj);
    if (so->traj_parts) so->drv->traj_abort();
}

/* What the samples were: which steps (first, first + every, ... last: range(first, last + 1,
 * every) in Python, without a list as long as the run), which columns. */
static void add_sampling(cJSON *out, const sim_out *so) {
    long every = so->every ? so->every : so->steps ? so->steps : 1;
    cJSON_AddNumberToObject(out, "steps", (double)so->steps);
    if (so->every)
        cJSON_AddNumberToObject(out, "every", (double)so->every);
    else
        cJSON_AddNullToObject(out, "every");
    cJSON *at = cJSON_AddObjectToObject(out, "sample_steps");
    cJSON_AddNumberToObject(at, "first", 0);
    cJSON_AddNumberToObject(at, "last", (double)(so->steps / every * every));
    cJSON_AddNumberToObject(at, "every", (double)every);
    cJSON_AddNumberToObject(out, "samples", (double)sample_count(so->steps, so->every));
}

/* The sidecar document of one output: the shared provenance plus its "output" object. */
static cJSON *output_doc(const cJSON *base, const char *file, const char *kind, const sim_out *so,
                         size_t n, int dim) {
    cJSON *doc = cJSON_Duplicate(base, 1), *out = cJSON_CreateObject();
    if (!doc || !out) {
        cJSON_Delete(doc);
        cJSON_Delete(out);
        return NULL;
    }
    cJSON_AddItemToObject(doc, "output", out);
    cJSON_AddStringToObject(out, "file", file);
    cJSON_AddStringToObject(out, "kind", kind);
    add_sampling(out, so);
    if (!strcmp(kind, "trajectory")) {
        int f8 = so->dtype && !strcmp(so->dtype, "f8");
        app_traj_describe(out, file, sample_count(so->steps, so->every), n, dim, f8);
    } else if (!strcmp(kind, "series") || !strcmp(kind, "stdout")) {
        char columns[640], obs[512]; /* 3 columns per species: up to 20 observables */
        sim_stats_columns(&so->stats, obs, sizeof obs);
        if (strcmp(kind, "stdout"))
            snprintf(columns, sizeof columns, "step,%s", obs);
        else
            stdout_columns(so, columns, sizeof columns);
        cJSON_AddItemToObject(out, "columns", app_prov_columns(columns));
        cJSON_AddStringToObject(out, "observables",
                                strcmp(kind, "stdout")
                                    ? "README, Observables; boids/metrics.h, boids/structure.h"
                                    : "README, Observables; boids/metrics.h");
    } else {
        sim_stats_describe(&so->stats, kind, out);
    }
    return doc;
}

/* The checkpoint: the state at this step, replacing the previous one (atomically), with
 * its sidecar (step, noise seed), so that `--load FILE` goes on as the run would have. */
static boids_status checkpoint(boids_backend *b, boids_flock *f, const boids_params *p,
                               const sim_out *so, boids_error *err) {
    if (so->drv->save) return so->drv->save(b, so->checkpoint, p->noise_seed, err);
    boids_status s = pull(b, f, so, err);
    if (s || !so->drv->writer) return s;
    return boids_state_save_seeded(so->checkpoint, f, p->noise_seed, err);
}

/* The next step after done that is a multiple of k (0: none), or steps. */
static long next_multiple(long done, long k, long steps) {
    long next = k ? (done / k + 1) * k : steps;
    return next < steps ? next : steps;
}

/* Steps b through so->steps, sampling step 0 and every so->every-th step (or the last), and
 * writing the checkpoint every so->checkpoint_every steps. */
static boids_status run_steps(boids_backend *b, boids_flock *f, const boids_params *p, sim_out *so,
                              boids_error *err) {
    long done = 0, steps = so->steps, every = so->every, ck = so->checkpoint_every;
    /* With the bar, steps go in chunks of about a tenth of a second, so that it moves even
     * without --every (the same steps, the same result: the step count is the backend's). */
    double chunk = 1;
    boids_status s = sample(0, b, f, p, so, err);
    while (!s && done < steps) {
        long next = next_multiple(done, every, steps), nck = next_multiple(done, ck, steps);
        if (nck < next) next = nck;
        long to = so->bar.on && (double)(next - done) > chunk ? done + (long)chunk : next;
        double a = mono_seconds();
        if ((s = boids_backend_step(b, p, (unsigned)(to - done), err))) break;
        double per = (mono_seconds() - a) / (double)(to - done);
        chunk = per > 0 ? fmax(1, fmin(1e9, floor(0.1 / per))) : fmin(1e9, 2 * chunk);
        done = to;
        app_progress_update(&so->bar, (double)done, NULL, 0);
        if (done == next && (every ? done % every == 0 : done == steps))
            s = sample((unsigned long)done, b, f, p, so, err);
        if (!s && ck && done % ck == 0) s = checkpoint(b, f, p, so, err);
    }
    return s;
}

/* Commits the series and the trajectory, then writes every sidecar. */
static boids_status finish_outputs(sim_out *so, const app_prov *pv, const app_opts *o,
                                   const boids_params *p, boids_error *err) {
    boids_status s = BOIDS_OK;
    if (so->series_file.f && (s = boids_atomic_commit(&so->series_file, err))) {
        abort_outputs(so);
        return s;
    }
    if ((s = app_traj_close(&so->traj, err))) return s;
    if ((s = sim_stats_write(&so->stats, p, err))) return s;
    const sim_stats *ss = &so->stats;
    const char *files[] = {so->series,      so->trajectory,   ss->estimates,
                           ss->correlation, ss->fluctuations, so->meta};
    const char *kinds[] = {"series",      "trajectory",   "estimates",
                           "correlation", "fluctuations", "stdout"};
    enum { NFILES = sizeof files / sizeof files[0] };
    int any = 0;
    for (int i = 0; i < NFILES; i++) any |= files[i] != NULL;
    if (!any) return BOIDS_OK;
    const char *renderer = app_backend_renderer();
    const app_prov_run run = {o->preset, o->config,  o->sets,          o->nsets,   o->seed, o->load,
                              o->inter,  o->backend, o->deterministic, o->threads, renderer};
    cJSON *base = app_prov_document(pv, &run, p);
    for (int i = 0; !s && i < NFILES; i++) {
        if (!files[i]) continue;
        cJSON *doc =
            base ? output_doc(base, files[i], kinds[i], so, (size_t)p->count, p->dim) : NULL;
        if (!doc)
            s = boids_error_set(err, BOIDS_ERR_NOMEM, "out of memory writing provenance");
        else if (i < NFILES - 1)
            s = app_prov_sidecar(files[i], doc, err);
        else
            s = app_prov_write(files[i], doc, err);
        cJSON_Delete(doc);
    }
    cJSON_Delete(base);
    return s;
}

/* What decides the run, one item a line, for the processes to compare (sim_driver.agree):
 * the model (every parameter, the interaction table), the initial state, the backend and its
 * mode, the steps and the sampling. Not the thread count, which changes no bit. NULL when
 * out of memory. */
static char *setup_text(const app_opts *o, const boids_params *p, const char *state,
                        const sim_out *so) {
    char *buf = NULL;
    size_t len = 0;
    FILE *t = open_memstream(&buf, &len);
    if (!t) return NULL;
    app_describe_model(t, p, o->inter);
    fprintf(t, "\ninitial state: %s\n", state);
    fprintf(t, "--backend %s%s\n--steps %ld\n--every %ld\n--checkpoint-every %ld\n", o->backend,
            strcmp(o->backend, "gpu") ? ""
            : o->deterministic        ? " deterministic"
                                      : " fast",
            so->steps, so->every, so->checkpoint_every);
    if (fclose(t) != 0) {
        free(buf);
        return NULL;
    }
    return buf;
}

int sim_main(int argc, char **argv, const sim_driver *drv) {
    sim_out so = {.steps = 1000, .drv = drv, .stats = {.burn_in = -1}};
    const app_option base[] = {
        {APP_LONG, "steps", 0, "K", &so.steps, 0, 2000000000L,
         .help = "number of steps (default 1000)"},
        {APP_LONG, "every", 0, "K", &so.every, 1, 2000000000L,
         .help = "metrics (and series rows, trajectory frames) every K steps\n"
                 "(default: step 0 and the last step only)"},
        {APP_TEXT, "save", 0, "FILE", &so.save,
         .help = "write the final state and FILE.json (step, noise seed)\n"
                 "for --load: CSV x,y,vx,vy in id order, %.17g (3-D:\n"
                 "x,y,z,vx,vy,vz); FILE.npy: a NumPy array (N, 4) or\n"
                 "(N, 6) of '<f8' in id order, exact"},
        {APP_FLAG, "order-only", 0, NULL, &so.order_only, 1,
         .help = "metrics on stdout: the order parameter only"},
        {APP_TEXT, "series", 0, "FILE", &so.series,
         .help = "also write every observable at each sample to FILE (CSV, header\n"
                 "row first): the six metrics, gnf_alpha, corr_length when a\n"
                 "correlation range is set, and with species each one's order,\n"
                 "clusters and largest_cluster (order.0 ..., clusters.0 ...,\n"
                 "largest_cluster.0 ...); its provenance to FILE.json"},
        {APP_TEXT, "trajectory", 0, "FILE", &so.trajectory,
         .help = "write positions and velocities at each sample to FILE, streamed,\n"
                 "with FILE.json: a NumPy .npy array, x, y, vx, vy of each boid\n"
                 "(samples x N x 4; 3-D: x N x 6 with z, vz), or for a FILE ending in\n"
                 ".pvd a VTK collection for ParaView: one .vtp a frame (points,\n"
                 "velocity, id, time step * dt) in the folder FILE without .pvd"},
        {APP_TEXT, "trajectory-dtype", 0, "T", &so.dtype,
         .help = "f4 (float32, default) or f8 (float64, exact)"},
        {APP_TEXT, "meta", 0, "FILE", &so.meta,
         .help = "write the provenance of the metrics on stdout to FILE (JSON)"},
        {APP_LONG, "checkpoint-every", 0, "K", &so.checkpoint_every, 1, 2000000000L,
         .help = "write the state every K steps to the --checkpoint FILE (replacing\n"
                 "it; --load FILE goes on bit for bit as the run would have)"},
        {APP_TEXT, "checkpoint", 0, "FILE", &so.checkpoint,
         .help = "the checkpoint file (a state file as --save writes it)"},
        {APP_SECTION, .name = "Estimators, over the samples at steps >= --burn-in:"},
        {APP_LONG, "burn-in", 0, "B", &so.stats.burn_in, 0, 2000000000L,
         .help = "the first step the estimators take (default K / 2; a sample is\n"
                 "at step 0 and every --every steps); needs one of the three below"},
        {APP_TEXT, "estimates", 0, "FILE", &so.stats.estimates,
         .help = "write one row to FILE (CSV) and FILE.json: N, samples, per\n"
                 "observable X_mean, X_se_blocks, X_tau, X_neff, then order_chi,\n"
                 "order_binder (this run), corr_length_pooled (with --correlation)\n"
                 "and gnf_alpha_pooled (with --fluctuations)"},
        {APP_TEXT, "correlation", 0, "FILE", &so.stats.correlation,
         .help = "write the velocity correlation C(r) summed over the samples to\n"
                 "FILE: r_lo,r_hi,r,pairs,c per bin (c nan: no pair), FILE.json;\n"
                 "range: --correlation-range, default half the smallest side of a\n"
                 "wrap world (walls, open: required)"},
        {APP_TEXT, "fluctuations", 0, "FILE", &so.stats.fluctuations,
         .help = "write the number fluctuations pooled over the samples to FILE\n"
                 "(CSV, one row per level of boxes: per_axis, boxes, side_x,\n"
                 "side_y, side_z, mean, sd = sqrt(mean variance), fitted), FILE.json"},
        APP_OBS_OPTIONS(&so.stats.obs),
    };
    enum { NBASE = APP_COUNT(base), MAX_OWN = NBASE + 8 };
    app_option own[MAX_OWN];
    size_t nown = NBASE;
    memcpy(own, base, sizeof base);
    for (size_t i = 0; i < drv->nextra && nown < MAX_OWN; i++) own[nown++] = drv->extra[i];
    app_opts o;
    int rc = app_parse(drv->command ? drv->command : &sim_command, own, nown, &o, argc, argv);
    if (drv->parsed) rc = drv->parsed(rc);
    if (rc != APP_RUN) return rc;
    /* Each metrics line leaves as it is computed, into a pipe too (a file's reader, `tail -f`
     * or pandas on a FIFO, sees the run as it goes). */
    setvbuf(stdout, NULL, _IOLBF, 0);
    so.stdout_tty = isatty(fileno(stdout));
    app_prov pv;
    app_prov_begin(&pv);
    boids_error err;
    boids_error_clear(&err);
    boids_params p;
    boids_interact inter;
    boids_flock f = {0};
    boids_status st = check_paths(&o, &so, &err);
    if (!st) st = app_params(&o, &p, &err);
    if (!st) st = app_interact(&o, &p, &inter, &err);
    o.inter = &inter;
    char state[400] = "";
    if (!st && drv->initial) {
        st = drv->initial(&o, &p, &f, state, sizeof state, &err);
    } else if (!st && !(st = app_initial_flock(&o, &p, &f, &err))) {
        snprintf(state, sizeof state, "%s, %zu boids, step %u, hash %016llx",
                 o.load ? "--load" : "--seed", f.n, (unsigned)f.step,
                 (unsigned long long)boids_flock_hash(&f));
    }
    so.n = (size_t)p.count;
    so.dim = p.dim;
    so.traj_parts = drv->initial && drv->traj_open && so.trajectory;
    so.fluct = so.series || so.stats.estimates || so.stats.correlation || so.stats.fluctuations;
    so.corr = so.fluct && (so.stats.correlation || so.stats.obs.range > 0);
    /* A driver that observes the parts needs no whole flock for a sample. */
    so.whole = (so.trajectory && !so.traj_parts) || (!drv->observe && (!so.order_only || so.fluct));
    if (!st && so.checkpoint_every && !so.checkpoint)
        st = boids_error_set(&err, BOIDS_ERR_INPUT, "--checkpoint-every needs --checkpoint FILE");
    if (!st && so.checkpoint && !so.checkpoint_every)
        st = boids_error_set(&err, BOIDS_ERR_INPUT, "--checkpoint needs --checkpoint-every K");
    if (!st && so.checkpoint &&
        (boids_atomic_check_writable(so.checkpoint, &err) ||
         app_prov_check_sidecar(so.checkpoint, &err)))
        st = err.status;
    if (!st && drv->writer)
        st = sim_stats_begin(&so.stats, &p, so.steps, so.every, so.series != NULL, &err);
    if (!st && drv->writer) st = open_outputs(&so, so.n, &p, &err);
    if (drv->agree) {
        char *text = st ? NULL : setup_text(&o, &p, state, &so);
        if (!st && !text) st = boids_error_set(&err, BOIDS_ERR_NOMEM, "out of memory");
        st = drv->agree(st, text, &err);
        free(text);
    }
    boids_backend *b = NULL;
    if (!st) {
        if (drv->writer) app_cpu_ref_estimate("boids sim", o.backend, &p, so.steps);
        b = drv->create ? drv->create(&o, &p, &f, so.steps, &err)
                        : app_backend_create(&o, &p, &f, &err);
        if (!b) st = err.status;
    }
    if (!st && so.traj_parts) { /* open by every process, once every one has its backend */
        const double side[3] = {p.width, p.height, p.depth};
        st = drv->traj_open(so.trajectory, sample_count(so.steps, so.every), so.n, p.dim,
                            so.dtype && !strcmp(so.dtype, "f8"), p.dt, side, &err);
    }
    if (st) {
        abort_outputs(&so);
        boids_backend_destroy(b);
        boids_flock_free(&f);
        sim_stats_free(&so.stats);
        return drv->writer ? app_fail(&err) : boids_status_exit_code(st);
    }
    /* Only the writer samples and saves: the others need no copy of the whole flock; with
     * parts, each process's is in b (the writer's whole flock is made where a sample needs
     * it). The step-0 sample of a whole flock is the initial one. */
    if (drv->initial) {
        so.part = f;
        f = (boids_flock){0};
    } else if (!drv->writer) {
        boids_flock_free(&f);
    }

    double t0 = mono_seconds();
    long steps = so.steps;
    if (drv->writer) {
        char columns[512];
        stdout_columns(&so, columns, sizeof columns);
        printf("%s\n", columns);
        app_progress_begin(&so.bar, "boids sim", "steps", (double)steps);
    }
    boids_status s = run_steps(b, &f, &p, &so, &err);
    if (drv->writer) app_progress_end(&so.bar);
    double sec = mono_seconds() - t0;
    if (!s && o.verbose && drv->writer) {
        fprintf(stderr, "boids sim: %ld steps of %zu boids on %s in %.3f s (%.3f ms/step)\n", steps,
                (size_t)p.count, boids_backend_name(b), sec,
                steps ? 1e3 * sec / (double)steps : 0.0);
    }
    /* stdout first: a run whose metrics were lost leaves no state file either. */
    if (!s && drv->writer && (fflush(stdout) != 0 || ferror(stdout)))
        s = boids_error_set(&err, BOIDS_ERR_RUNTIME, "writing to stdout failed");
    if (!s && so.save && drv->save) {
        s = drv->save(b, so.save, p.noise_seed, &err);
    } else if (!s && so.save) {
        if (!(s = pull(b, &f, &so, &err)) && drv->writer)
            s = boids_state_save_seeded(so.save, &f, p.noise_seed, &err);
    }
    if (!s && so.traj_parts && (s = drv->traj_close(&err))) so.traj_parts = 0; /* removed */
    if (!s && drv->finish) s = drv->finish(b, &err);
    if (s) {
        abort_outputs(&so);
        if (drv->fatal) drv->fatal(b, &err);
    } else if (drv->writer) {
        s = finish_outputs(&so, &pv, &o, &p, &err);
    }
    boids_backend_destroy(b);
    boids_flock_free(&f);
    boids_flock_free(&so.part);
    sim_stats_free(&so.stats);
    if (!s) return 0;
    return drv->writer ? app_fail(&err) : boids_status_exit_code(s);
}

int boids_cmd_sim(int argc, char **argv) {
    const sim_driver serial = {.writer = 1};
    return sim_main(argc, argv, &serial);
}
