/* SPDX-License-Identifier: MIT */
/* boids-bench: time per step of every backend over a sweep of flock sizes.
 *
 * The sweep runs size by size and, within a size, backend by backend, so that a change in
 * the machine's load during the run spreads over all backends instead of biasing one.
 * Points that cannot finish in reasonable time or do not fit are skipped with the reason;
 * nothing here is a pass/fail test. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "boids/gpu.h"

#include "bench.h"
#include "atomic_file.h"
#include "cli/cli.h"
#include "cpu_grid.h"
#include "cli/progress.h"
#include "output/collide.h"

static const app_command bench_command = {
    .prog = "boids-bench",
    .synopsis =
        "usage: boids-bench [OPTIONS]\n"
        "Times every backend over a sweep of flock sizes; prints a table, writes bench.csv,\n"
        "bench.json, bench.gp and SVG plots (when gnuplot is on PATH) into --out.\n"
        "\n",
    .notes = "-n N times the one size N (as --sizes N). --deterministic or --fast times only the\n"
             "gpu-det or only the gpu backend. --threads sets the threads of cpu-all and cpu-ref.\n"
             "\n"
             "A point is marked untrusted when other processes used cores it needed or its\n"
             "threads ran far less than the wall time (bench/README.md, \"Trust\").\n"
             "\n"
             "Exit status: 0 done (skipped points are not failures), 1 a run or a write failed,\n"
             "2 bad usage.\n",
    .shared = APP_PARAMS | APP_GPU_MODE | APP_THREADS,
    .deterministic = -1};

static int fail(const boids_error *err) {
    fprintf(stderr, "boids-bench: %s\n", err->msg);
    return boids_status_exit_code(err->status);
}

/* "1k,10k,2.5M": positive counts up to 1e9, sorted and without repeats. */
static boids_status parse_sizes(const char *text, bench_config *c, boids_error *err) {
    c->nsizes = 0;
    const char *s = text;
    while (*s) {
        char *end;
        errno = 0;
        double v = strtod(s, &end);
        if (end == s || errno == ERANGE)
            return boids_error_set(err, BOIDS_ERR_INPUT, "--sizes: '%s' is not a list of counts",
                                   text);
        double mult = 1.0;
        if (*end == 'k' || *end == 'K')
            mult = 1e3, end++;
        else if (*end == 'M' || *end == 'm')
            mult = 1e6, end++;
        else if (*end == 'G' || *end == 'g')
            mult = 1e9, end++;
        v *= mult;
        if (*end != ',' && *end != '\0')
            return boids_error_set(err, BOIDS_ERR_INPUT,
                                   "--sizes: bad entry in '%s' (use e.g. 1k,10k,100k,1M)", text);
        if (!(v >= 1.0 && v <= 1e9) || v != floor(v))
            return boids_error_set(err, BOIDS_ERR_INPUT,
                                   "--sizes: %.17g is not a whole count in [1, 1e9]", v);
        if (c->nsizes == (int)(sizeof c->sizes / sizeof c->sizes[0]))
            return boids_error_set(err, BOIDS_ERR_INPUT, "--sizes: more than %d sizes",
                                   (int)(sizeof c->sizes / sizeof c->sizes[0]));
        c->sizes[c->nsizes++] = (size_t)v;
        s = *end == ',' ? end + 1 : end;
        if (*end == ',' && *s == '\0')
            return boids_error_set(err, BOIDS_ERR_INPUT, "--sizes: '%s' ends with a comma", text);
    }
    if (!c->nsizes) return boids_error_set(err, BOIDS_ERR_INPUT, "--sizes: empty list");
    for (int i = 1; i < c->nsizes; i++)
        for (int j = i; j > 0 && c->sizes[j] < c->sizes[j - 1]; j--) {
            size_t t = c->sizes[j];
            c->sizes[j] = c->sizes[j - 1];
            c->sizes[j - 1] = t;
        }
    int k = 1;
    for (int i = 1; i < c->nsizes; i++)
        if (c->sizes[i] != c->sizes[k - 1]) c->sizes[k++] = c->sizes[i];
    c->nsizes = k;
    return BOIDS_OK;
}

static boids_status parse_backends(const char *text, bench_config *c, boids_error *err) {
    memset(c->enabled, 0, sizeof c->enabled);
    const char *s = text;
    while (*s) {
        size_t len = strcspn(s, ",");
        int found = 0;
        for (int b = 0; b < BENCH_BACKENDS; b++) {
            const char *name = bench_backend_name((bench_backend)b);
            if (strlen(name) == len && strncmp(s, name, len) == 0) c->enabled[b] = found = 1;
        }
        if (!found)
            return boids_error_set(err, BOIDS_ERR_INPUT,
                                   "--backends: unknown backend '%.*s' (cpu-ref, cpu-1t, "
                                   "cpu-all, gpu, gpu-det, gpu-fused, gpu-fused-det)",
                                   (int)len, s);
        s += len;
        if (*s == ',') s++;
    }
    for (int b = 0; b < BENCH_BACKENDS; b++)
        if (c->enabled[b]) return BOIDS_OK;
    return boids_error_set(err, BOIDS_ERR_INPUT, "--backends: empty list");
}

/* mkdir -p. */
static boids_status make_dir(const char *path, boids_error *err) {
    char buf[4096];
    if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf)
        return boids_error_set(err, BOIDS_ERR_INPUT, "--out: path too long");
    for (char *p = buf + 1;; p++) {
        if (*p == '/' || *p == '\0') {
            char c = *p;
            *p = '\0';
            if (mkdir(buf, 0777) != 0 && errno != EEXIST)
                return boids_error_set(err, BOIDS_ERR_INPUT, "--out %s: cannot create %s: %s", path,
                                       buf, strerror(errno));
            *p = c;
            if (!c) break;
        }
    }
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode))
        return boids_error_set(err, BOIDS_ERR_INPUT, "--out %s: not a folder", path);
    if (access(path, W_OK) != 0)
        return boids_error_set(err, BOIDS_ERR_INPUT, "--out %s: not writable", path);
    return BOIDS_OK;
}

/* The world's area, or its volume in 3-D: what the density is per. */
static double world_size(const boids_params *p) {
    return p->width * p->height * (p->dim == 3 ? p->depth : 1.0);
}

/* Cells of the grid the CPU path builds: as many whole cells of at least the vision
 * radius as fit, so that the 3 x 3 cells around a boid hold all its neighbours (used only
 * by the byte model). */
static unsigned model_cells(double side, double radius) {
    double c = floor(side / radius);
    return c < 1 ? 1 : c > 65535 ? 65535 : (unsigned)c;
}

static void model_grid(const boids_params *p, unsigned *ncx, unsigned *ncy) {
    *ncx = model_cells(p->width, p->vision_radius);
    *ncy = model_cells(p->height, p->vision_radius);
}

/* Host bytes a point needs besides the shared initial flock: the backend's working state. */
static double host_bytes(bench_backend b, size_t n) {
    switch (b) {
    case BENCH_CPU_REF:
        return 96.0 * (double)n; /* double state and its snapshot, with slack */
    case BENCH_CPU_1T:
    case BENCH_CPU_ALL:
        return 64.0 * (double)n; /* two float states + ids + cells, with slack */
    default:
        return 48.0 * (double)n; /* driver staging copies of the state */
    }
}

/* Mean neighbours per boid of the initial state, from the cpu backend's neighbour hook
 * (-1 if it is missing or fails): the workload a point's time should be read against. */
static double mean_neighbours(const boids_params *p, const boids_flock *f, int threads) {
    boids_error err;
    boids_backend *b = boids_cpu_create(f, threads, &err);
    if (!b) return -1.0;
    double mean = -1.0;
    uint32_t *count = malloc(f->n * sizeof *count);
    uint64_t *hash = malloc(f->n * sizeof *hash);
    if (count && hash && boids_backend_has_neighbours(b) &&
        boids_backend_neighbours(b, p, count, hash, &err) == BOIDS_OK) {
        double sum = 0.0;
        for (size_t i = 0; i < f->n; i++) sum += count[i];
        mean = sum / (double)f->n;
    }
    free(count);
    free(hash);
    boids_backend_destroy(b);
    return mean;
}

/* Advances f by steps steps on the cpu path: every backend then starts from the same formed
 * flock. */
static boids_status age_flock(const boids_params *p, const boids_interact *inter, boids_flock *f,
                              int threads, unsigned long steps, boids_error *err) {
    boids_backend *b = boids_cpu_create(f, threads, err);
    if (!b) return err->status;
    boids_status s = boids_backend_set_interact(b, inter, err);
    for (unsigned long done = 0; !s && done < steps; done += 1000)
        s = boids_backend_step(b, p, (unsigned)(steps - done < 1000 ? steps - done : 1000), err);
    if (!s) s = boids_backend_download(b, f, err);
    boids_backend_destroy(b);
    return s;
}

/* Fills the derived columns once every point is known. */
static void derive(const bench_config *c, bench_point *pts, size_t npts) {
    static const bench_backend against[3] = {BENCH_CPU_1T, BENCH_CPU_ALL, BENCH_CPU_REF};
    for (size_t i = 0; i < npts; i++) {
        bench_point *p = &pts[i];
        p->ns_per_boid_step = p->boid_steps_per_s = p->exponent = p->ratio = NAN;
        p->bytes_per_step = p->gbytes_per_s = NAN;
        for (int k = 0; k < 3; k++) p->speedup[k] = NAN;
        if (p->state != BENCH_OK) continue;
        double t = p->ms.median * 1e-3;
        p->ns_per_boid_step = 1e9 * t / (double)p->n;
        p->boid_steps_per_s = (double)p->n / t;
        /* Against this build's backends, for the baseline's rows too: both builds' points
         * then share one scale in the speedup plot. */
        for (int k = 0; k < 3; k++)
            for (size_t j = 0; j < npts; j++)
                if (pts[j].backend == against[k] && pts[j].n == p->n && pts[j].state == BENCH_OK &&
                    !pts[j].baseline)
                    p->speedup[k] = pts[j].ms.median / p->ms.median;
        for (size_t j = 0; j < npts && !p->baseline; j++)
            if (pts[j].baseline && pts[j].backend == p->backend && pts[j].n == p->n &&
                pts[j].state == BENCH_OK)
                p->ratio = pts[j].ms.median / p->ms.median;
        /* The previous measured N of the same backend (points are in sweep order). */
        for (size_t j = i; j-- > 0;)
            if (pts[j].backend == p->backend && pts[j].baseline == p->baseline &&
                pts[j].state == BENCH_OK && pts[j].n < p->n) {
                p->exponent =
                    log(p->ms.median / pts[j].ms.median) / log((double)p->n / (double)pts[j].n);
                break;
            }
        p->bytes_per_step = bench_bytes_per_step(p->backend, p->n, (size_t)p->ncx * p->ncy * p->ncz,
                                                 p->threads, p->dim);
        p->gbytes_per_s = p->bytes_per_step / t * 1e-9;
    }
    (void)c;
}

/* bench.csv and bench.json in the output folder; while the sweep runs (partial), under the
 * names bench.partial.csv and bench.partial.json instead, so that a sweep stopped half way
 * leaves what it measured and the files of the last finished sweep as they were (beside its
 * plots). */
static boids_status write_data(const bench_config *c, const bench_machine *m,
                               const bench_point *pts, size_t npts, const char *note, int partial,
                               boids_error *err) {
    char path[4096];
    const char *part = partial ? ".partial" : "";
    snprintf(path, sizeof path, "%s/bench%s.csv", c->out, part);
    boids_status s = bench_write_csv(path, c, pts, npts, err);
    snprintf(path, sizeof path, "%s/bench%s.json", c->out, part);
    if (!s) s = bench_write_json(path, c, m, pts, npts, note, err);
    return s;
}

/* The files of --out against the one file the benchmark reads (--config). */
static boids_status check_paths(const bench_config *c, const app_opts *o, boids_error *err) {
    static const char *const names[] = {"bench.csv", "bench.json", "bench.partial.csv",
                                        "bench.partial.json", "bench.gp"};
    enum { NNAMES = sizeof names / sizeof names[0] };
    char files[NNAMES][4096];
    app_path paths[NNAMES + 1] = {{"--config", o->config, APP_PATH_IN}};
    for (int i = 0; i < NNAMES; i++) {
        snprintf(files[i], sizeof files[i], "%s/%s", c->out, names[i]);
        paths[i + 1] = (app_path){"--out", files[i], APP_PATH_OUT};
    }
    return app_paths_check(paths, NNAMES + 1, err);
}

/* The options as given: -1 or NAN where not, so that --quick can fill in the rest. */
typedef struct bench_args {
    const char *sizes, *backends;
    long reps, warmup, max_steps, age;
    double rep_ms, budget;
} bench_args;

/* The backends: --backends (default all), less the GPU backends of the mode that
 * --deterministic or --fast leaves out and of the variants --gpu-variant leaves out. */
static boids_status configure_backends(bench_config *c, const bench_args *a, const app_opts *o,
                                       boids_error *err) {
    boids_status s = parse_backends(
        a->backends ? a->backends : "cpu-ref,cpu-1t,cpu-all,gpu,gpu-det,gpu-fused,gpu-fused-det", c,
        err);
    for (int b = BENCH_GPU; !s && b < BENCH_BACKENDS; b++) {
        const char *why = NULL;
        if (o->deterministic >= 0 && bench_backend_is_det((bench_backend)b) != o->deterministic)
            why = o->deterministic ? "--deterministic" : "--fast";
        else if (o->gpu_variant >= 0 && bench_backend_variant((bench_backend)b) != o->gpu_variant)
            why = "--gpu-variant";
        if (!why) continue;
        if (a->backends && c->enabled[b])
            return boids_error_set(err, BOIDS_ERR_INPUT,
                                   "%s: --backends names %s, which that option leaves out", why,
                                   bench_backend_name((bench_backend)b));
        c->enabled[b] = 0;
    }
    return s;
}

/* The sweep from the options: sizes, backends, timing (with --quick's defaults) and the
 * parameters before scaling to N. */
static boids_status configure(bench_config *c, const bench_args *a, const app_opts *o,
                              boids_error *err) {
    char one[32];
    const char *sizes = a->sizes;
    if (o->count && sizes)
        return boids_error_set(err, BOIDS_ERR_INPUT, "give -n or --sizes, not both");
    if (o->count) snprintf(one, sizeof one, "%ld", o->count), sizes = one;
    boids_status s = BOIDS_OK;
    if (a->sizes) s = app_check_list("--sizes", a->sizes, err);
    if (!s && a->backends) s = app_check_list("--backends", a->backends, err);
    if (!s) s = configure_backends(c, a, o, err);
    if (!s) s = parse_sizes(sizes ? sizes : c->quick ? "500,2000" : "1k,10k,100k,1M", c, err);
    if (s) return s;
    c->reps = (unsigned)(a->reps > 0 ? a->reps : c->quick ? 3 : 7);
    c->warmup = (unsigned)(a->warmup >= 0 ? a->warmup : c->quick ? 1 : 2);
    c->max_steps = (unsigned)(a->max_steps > 0 ? a->max_steps : c->quick ? 5 : 30);
    c->rep_ms = !isnan(a->rep_ms) ? a->rep_ms : c->quick ? 5.0 : 200.0;
    c->budget_s = !isnan(a->budget) ? a->budget : c->quick ? 2.0 : 120.0;
    c->age = (unsigned long)a->age;
    c->threads = o->threads;
    c->preset = o->preset;
    c->seed = o->seed;
    app_opts base = *o;
    base.count = 0; /* the sizes are N; the parameters' count gives the density */
    if ((s = app_params(&base, &c->base, err)) ||
        (s = app_interact(&base, &c->base, &c->inter, err)))
        return s;
    c->density = (double)c->base.count / world_size(&c->base);
    c->fixed_world = app_world_fixed(o);
    return BOIDS_OK;
}

/* One context for the whole sweep, current on this thread: every GPU instance is made on it
 * (boids_gpu_create with gl NULL), and its limits are known before sizing. Returns it as
 * an opaque pointer (NULL without one; m->gpu_note says why). */
static void *gpu_open(const bench_config *c, bench_machine *m) {
    boids_error err;
    int any = 0;
    for (int b = BENCH_GPU; b < BENCH_BACKENDS; b++) any |= c->enabled[b];
    if (!any) return NULL;
    boids_gl *gl = boids_gl_create(0, &err);
    if (!gl) {
        snprintf(m->gpu_note, sizeof m->gpu_note, "no GL 4.3 context: %.300s", err.msg);
        return NULL;
    }
    snprintf(m->gl_renderer, sizeof m->gl_renderer, "%s", boids_gl_renderer(gl));
    snprintf(m->gl_version, sizeof m->gl_version, "%s", boids_gl_version(gl));
    snprintf(m->gl_platform, sizeof m->gl_platform, "%s", boids_gl_platform(gl));
    m->gpu_max_n = boids_gpu_max_count(m->gpu_max_why, sizeof m->gpu_max_why);
    return gl;
}

static void gpu_close(void *gl) {
    boids_gl_destroy(gl);
}

/* The sweep in progress. */
typedef struct bench_run {
    const bench_config *c;
    bench_machine *m;
    bench_point *pts;
    size_t npts;
    /* Why each backend stopped, once it has: larger N are skipped for the same reason. */
    char stopped[BENCH_BACKENDS][1024];
    int all_threads;
    const bench_forward *fwd;                /* --baseline's options */
    char base_stopped[BENCH_BACKENDS][1024]; /* the same for the baseline's backends */
    app_progress bar;                        /* points done, on a terminal's stderr */
} bench_run;

/* A point's line starts ("boids-bench: cpu-1t N=1000 ..."), its result follows when it is
 * measured; on a terminal the progress line shows it meanwhile, and the whole line is
 * printed at the end. */
static void point_begin(bench_run *r, const char *head) {
    if (r->bar.on) {
        app_progress_update(&r->bar, r->bar.done, head + strlen("boids-bench: "), 1);
    } else {
        fputs(head, stderr);
        fflush(stderr);
    }
}

static void point_end(bench_run *r, const char *head) {
    if (r->bar.on) {
        app_progress_clear(&r->bar);
        fputs(head, stderr);
    }
}

/* A point that cannot finish within --budget, by an estimate from this backend's previous
 * point: O(N^2) for the reference, at least linear for the others. A point costs warm-up +
 * reps + calibration repetitions of at least one step (plus one settling step each).
 * Returns 1 with the reason in stop. */
static int over_budget(const bench_run *r, const bench_point *pt, char *stop, size_t size) {
    const bench_point *prev = NULL;
    for (size_t j = r->npts - 1; j-- > 0;)
        if (r->pts[j].backend == pt->backend && !r->pts[j].baseline &&
            r->pts[j].state == BENCH_OK) {
            prev = &r->pts[j];
            break;
        }
    if (!prev) return 0;
    double e = pt->backend == BENCH_CPU_REF                     ? 2.0
               : !isnan(prev->exponent) && prev->exponent > 1.0 ? prev->exponent
                                                                : 1.0;
    double step_s = prev->ms.median * 1e-3 * pow((double)pt->n / (double)prev->n, e);
    double min_s = step_s * 2.0 * (3 + 1 + 1);
    if (min_s <= r->c->budget_s) return 0;
    snprintf(stop, size,
             "from N=%zu: estimated %.3g s per step (N^%.2g from %.3g ms at "
             "N=%zu), at least %.0f s for the point > --budget %g s",
             pt->n, step_s, e, prev->ms.median, prev->n, min_s, r->c->budget_s);
    return 1;
}

/* Whether point pt (backend and N set) is skipped before running, with the reason in
 * pt->reason; a reason that holds for larger N too stops the backend. */
static int skip_point(bench_run *r, bench_point *pt) {
    char *stop = r->stopped[pt->backend];
    size_t n = pt->n, size = sizeof r->stopped[0];
    if (!stop[0] && bench_backend_is_gpu(pt->backend)) {
        if (r->m->gpu_note[0]) {
            snprintf(pt->reason, sizeof pt->reason, "%s", r->m->gpu_note);
            return 1;
        }
        if (n > r->m->gpu_max_n)
            snprintf(stop, size, "the GPU holds at most %zu boids (limit: %s)", r->m->gpu_max_n,
                     r->m->gpu_max_why);
    }
    double need = host_bytes(pt->backend, n), avail = bench_mem_available();
    if (!stop[0] && avail > 0.0 && need > 0.8 * avail)
        snprintf(stop, size, "from N=%zu: needs about %.1f GiB of host memory, %.1f GiB available",
                 n, need / 1073741824.0, avail / 1073741824.0);
    if (!stop[0]) over_budget(r, pt, stop, size);
    if (!stop[0]) return 0;
    memcpy(pt->reason, stop, sizeof pt->reason);
    return 1;
}

/* Times pt, then writes the files so far: a sweep killed by a time limit (a lent GPU
 * machine) still leaves what it measured. */
static void measure_point(bench_run *r, bench_point *pt, const boids_params *p,
                          const boids_flock *init) {
    char head[96];
    snprintf(head, sizeof head, "boids-bench: %-8s N=%zu ...", bench_backend_name(pt->backend),
             pt->n);
    point_begin(r, head);
    double load[3];
    bench_loadavg(load);
    pt->load1 = load[0];
    pt->state = BENCH_OK;
    pt->reason[0] = '\0';
    bench_measure(r->c, pt, p, init);
    point_end(r, head);
    if (pt->state == BENCH_OK) {
        fprintf(stderr, " %.4g ms/step (%u reps of %u steps)\n", pt->ms.median, pt->reps,
                pt->steps_per_rep);
    } else {
        fprintf(stderr, " failed: %s\n", pt->reason);
        snprintf(r->stopped[pt->backend], sizeof r->stopped[0], "N=%zu failed before: %.900s",
                 pt->n, pt->reason);
    }
    boids_error err;
    bench_loadavg(r->m->load_end);
    derive(r->c, r->pts, r->npts);
    if (write_data(r->c, r->m, r->pts, r->npts, "plot pending: sweep not finished", 1, &err))
        fprintf(stderr, "boids-bench: %s\n", err.msg);
}

/* The baseline's point beside this build's pt, just measured or skipped: run only where pt
 * ran, and not after the baseline failed at a smaller N. */
static void baseline_point(bench_run *r, const bench_point *pt) {
    bench_point *bp = &r->pts[r->npts++];
    *bp = (bench_point){.backend = pt->backend,
                        .n = pt->n,
                        .width = pt->width,
                        .height = pt->height,
                        .nbrs = pt->nbrs,
                        .ncx = pt->ncx,
                        .ncy = pt->ncy,
                        .baseline = 1,
                        .state = BENCH_SKIPPED};
    char *stop = r->base_stopped[pt->backend];
    if (pt->state == BENCH_SKIPPED) {
        snprintf(bp->reason, sizeof bp->reason, "this build skipped the point");
        return;
    }
    if (stop[0]) {
        memcpy(bp->reason, stop, sizeof bp->reason);
        return;
    }
    char head[96];
    snprintf(head, sizeof head, "boids-bench: %s@baseline N=%zu ...",
             bench_backend_name(pt->backend), pt->n);
    point_begin(r, head);
    bench_baseline_point(r->c->baseline, r->fwd, bp);
    point_end(r, head);
    if (bp->state == BENCH_OK) {
        fprintf(stderr, " %.4g ms/step\n", bp->ms.median);
    } else {
        fprintf(stderr, " %s\n", bp->reason);
        if (bp->state == BENCH_FAILED)
            snprintf(stop, sizeof r->base_stopped[0], "N=%zu failed before: %.900s", pt->n,
                     bp->reason);
    }
}

/* Every enabled backend at N = n, from one initial state. */
static void run_size(bench_run *r, size_t n) {
    const bench_config *c = r->c;
    boids_params p;
    bench_scale_params(c, n, &p);
    boids_error perr;
    boids_status ps = boids_params_validate(&p, &perr);
    boids_flock init = {0};
    if (!ps) ps = boids_flock_alloc_dim(&init, n, p.dim, &perr);
    if (!ps) boids_flock_randomize(&init, &p, c->seed);
    if (!ps && c->age) ps = age_flock(&p, &c->inter, &init, c->threads, c->age, &perr);
    double nbrs = ps ? -1.0 : mean_neighbours(&p, &init, c->threads);
    unsigned ncx, ncy;
    model_grid(&p, &ncx, &ncy);
    for (int b = 0; b < BENCH_BACKENDS; b++) {
        if (!c->enabled[b]) continue;
        bench_point *pt = &r->pts[r->npts++];
        *pt = (bench_point){.backend = (bench_backend)b,
                            .n = n,
                            .width = p.width,
                            .height = p.height,
                            .nbrs = nbrs,
                            .ncx = ncx,
                            .ncy = ncy,
                            .ncz = p.dim == 3 ? model_cells(p.depth, p.vision_radius) : 1,
                            .dim = p.dim,
                            .state = BENCH_SKIPPED};
        pt->threads = b == BENCH_CPU_1T                   ? 1
                      : bench_backend_is_gpu(pt->backend) ? 0
                                                          : r->all_threads;
        if (ps)
            snprintf(pt->reason, sizeof pt->reason, "N=%zu does not fit the parameters: %.500s", n,
                     perr.msg);
        else if (!skip_point(r, pt))
            measure_point(r, pt, &p, &init);
        r->bar.done++;
        if (c->baseline) baseline_point(r, pt);
    }
    boids_flock_free(&init);
}

/* The neighbour kernel of the cpu path, for the record. */
static void record_kernel(bench_machine *m) {
    boids_error err;
    boids_flock one;
    if (boids_flock_alloc(&one, 1, &err)) return;
    boids_backend *b = boids_cpu_create(&one, 1, &err);
    const char *k = b ? boids_cpu_kernel_name(b) : NULL;
    snprintf(m->cpu_kernel, sizeof m->cpu_kernel, "%s", k ? k : "unknown");
    boids_backend_destroy(b);
    boids_flock_free(&one);
}

/* The table on stdout and the files: bench.csv, the plot, bench.json. */
static int finish(const bench_config *c, bench_machine *m, bench_point *pts, size_t npts) {
    boids_error err;
    bench_loadavg(m->load_end);
    derive(c, pts, npts);
    bench_print_table(c, m, pts, npts);
    char path[4096], note[512] = "plot not requested (--no-plot)";
    int rc = 0;
    /* The plot (seconds of gnuplot) first, then the two data files, each renamed into place:
     * a signal during the plot leaves the last sweep's bench.csv and bench.json as they were. */
    if (c->plot && bench_plot(c->out, c, m, pts, npts, note, sizeof note, &err)) rc = fail(&err);
    if (write_data(c, m, pts, npts, note, 0, &err)) rc = fail(&err);
    for (int i = 0; !rc && i < 2; i++) {
        snprintf(path, sizeof path, "%s/bench.partial.%s", c->out, i ? "json" : "csv");
        unlink(path); /* the sweep's progress, now whole in bench.csv and bench.json */
    }
    if (!rc) fprintf(stderr, "boids-bench: wrote %s/bench.csv, bench.json; %s\n", c->out, note);
    /* The table on stdout is output too: lost (a full disk), the run failed. */
    if ((fflush(stdout) != 0 || ferror(stdout)) && !rc) {
        fprintf(stderr, "boids-bench: writing to stdout failed\n");
        rc = 1;
    }
    return rc;
}

static const char *const stage_timers[] = {"auto", "gl", "fenced", NULL}; /* BENCH_TIMER_* */
static const char *const plot_formats[] = {"svg", "png", NULL};           /* plot_png 0, 1 */

int main(int argc, char **argv) {
    boids_atomic_cleanup_on_signals(); /* an interrupted sweep leaves no temporary files */
    bench_config c = {.out = ".", .plot = 1};
    bench_args a = {.reps = -1, .warmup = -1, .max_steps = -1, .rep_ms = NAN, .budget = NAN};
    int structure = 0;
    const app_option own[] = {
        {APP_SECTION, .name = "Sweep:"},
        {APP_TEXT, "sizes", 'N', "LIST", &a.sizes,
         .help = "boid counts, comma separated, k/M/G suffixes allowed\n"
                 "(default 1k,10k,100k,1M)"},
        {APP_TEXT, "backends", 0, "LIST", &a.backends,
         .help =
             "any of cpu-ref,cpu-1t,cpu-all,gpu,gpu-det,gpu-fused,\ngpu-fused-det (default: all)"},
        {APP_FLAG, "structure", 0, NULL, &structure, 1,
         .help = "time the structure observables instead of the backends: number\n"
                 "fluctuations and the velocity correlation at 2 and 8 vision radii\n"
                 "on each size's random state; writes structure.csv (bench/README.md)"},
        {APP_LONG, "age", 0, "K", &a.age, 0, 10000000L,
         .help = "advance the random initial state K steps (cpu path) before timing,\n"
                 "to time formed flocks: more neighbours per boid (default 0)"},
        {APP_SECTION, .name = "Timing:"},
        {APP_LONG, "reps", 0, "R", &a.reps, 3, BENCH_MAX_REPS,
         .help = "timed repetitions per point (default 7; 3..100)"},
        {APP_LONG, "warmup", 0, "W", &a.warmup, 0, 100,
         .help = "untimed repetitions before them (default 2)"},
        {APP_REAL, "rep-ms", 0, "MS", &a.rep_ms, 0.0, 1e6,
         .help = "target length of one repetition (default 200)"},
        {APP_LONG, "max-steps", 0, "K", &a.max_steps, 1, 100000,
         .help = "at most K steps per repetition (default 30): each repetition\n"
                 "restarts from the initial state, so this bounds how far the\n"
                 "flock evolves while being timed"},
        {APP_CHOICE, "stage-timer", 0, "HOW", &c.stage_timer, .choices = stage_timers,
         .help = "GPU stage times from: gl (GL_TIME_ELAPSED queries), fenced\n"
                 "(glFinish around each stage, CPU clock), auto (gl unless its\n"
                 "stages sum to under 2 us and 5% of the wall time, as on llvmpipe;\n"
                 "default)"},
        {APP_REAL, "budget", 0, "S", &a.budget, 0.0, 1e7,
         .help = "skip a point whose estimated time exceeds S seconds (default 120)"},
        {APP_FLAG, "contend", 0, NULL, &c.contend, 1,
         .help = "run a busy process pinned to one core beside the sweep, as on a\n"
                 "shared machine (cpu-all against cpu-1t then shows the cost)"},
        {APP_TEXT, "baseline", 0, "PATH", &c.baseline,
         .help = "another build's boids-bench: it times every point too, right after\n"
                 "this build (same machine, same load), as rows NAME@baseline with\n"
                 "the ratio baseline / this build (bench/README.md)"},
        {APP_FLAG, "quick", 0, NULL, &c.quick, 1,
         .help = "seconds-long harness check: 500 and 2000 boids, 3 reps, 1 warm-up,\n"
                 "short repetitions (explicit flags still win)"},
        {APP_SECTION, .name = "Output:"},
        {APP_TEXT, "out", 0, "DIR", &c.out, .help = "folder for the files (created; default .)"},
        {APP_FLAG, "no-plot", 0, NULL, &c.plot, 0, .help = "do not write bench.gp or run gnuplot"},
        {APP_CHOICE, "plot-format", 0, "F", &c.plot_png, .choices = plot_formats,
         .help = "svg (default) or png"},
    };
    app_opts o;
    int rc = app_parse(&bench_command, own, APP_COUNT(own), &o, argc, argv);
    if (rc != APP_RUN) return rc;
    boids_error err;
    const char *no_structure = a.backends   ? "--backends"
                               : c.baseline ? "--baseline"
                               : c.contend  ? "--contend"
                               : a.age      ? "--age"
                                            : NULL;
    if (structure && no_structure) {
        boids_error_set(&err, BOIDS_ERR_INPUT, "--structure times no backend steps: drop %s",
                        no_structure);
        return fail(&err);
    }
    if (configure(&c, &a, &o, &err) || check_paths(&c, &o, &err) || make_dir(c.out, &err))
        return fail(&err);
    static bench_forward fwd; /* 21 KB */
    bench_forward_build(&fwd, &c, &o);
    if (c.baseline && bench_baseline_check(c.baseline, &fwd, &err)) return fail(&err);
    bench_machine m;
    bench_machine_fill(&m);
    if (structure) return bench_structure(&c, &m);
    void *gl = gpu_open(&c, &m);
    static bench_run r; /* its stop reasons take 28 KB */
    r = (bench_run){.c = &c,
                    .m = &m,
                    .pts = calloc((size_t)c.nsizes * BENCH_BACKENDS * 2, sizeof *r.pts),
                    .all_threads = c.threads > 0 ? c.threads : m.cpu_threads,
                    .fwd = &fwd};
    if (!r.pts) {
        boids_error_set(&err, BOIDS_ERR_NOMEM, "out of memory");
        return fail(&err);
    }
    long contender = c.contend ? bench_contend_start(&err) : 0;
    if (contender < 0) return fail(&err);
    int nb = 0;
    for (int b = 0; b < BENCH_BACKENDS; b++) nb += c.enabled[b];
    app_progress_begin(&r.bar, "boids-bench", "points", (double)(c.nsizes * nb));
    for (int si = 0; si < c.nsizes; si++) run_size(&r, c.sizes[si]);
    app_progress_end(&r.bar);
    bench_contend_stop(contender);
    record_kernel(&m);
    gpu_close(gl);
    rc = finish(&c, &m, r.pts, r.npts);
    free(r.pts);
    return rc;
}
