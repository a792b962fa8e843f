/* SPDX-License-Identifier: MIT */
/* boids-bench --structure: the time of the structure observables (boids/structure.h) on the
 * random initial state of each size, at the parameters' density: the number fluctuations and
 * the velocity correlation at ranges of 2 and 8 vision radii. Both are claimed O(N) for a
 * fixed range and density; the table's exponent (d log t / d log N from the previous size)
 * says whether they are. Each measure is timed like a backend's point (bench/README.md):
 * a first untimed call, --warmup more, then --reps timed calls (fewer, at least 3, when they
 * would exceed --budget), judged by the same trust rule. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "bench.h"
#include "boids/structure.h"
#include "clock.h"

enum { STRUCT_BINS = 32, STRUCT_MEASURES = 3 };

/* The measures of one size: 0 the fluctuations, then the correlation at these ranges (in
 * vision radii). */
static const double range_radii[STRUCT_MEASURES] = {0, 2, 8};

typedef struct struct_point {
    size_t n;
    int measure; /* index into range_radii */
    double range, pairs_per_boid;
    unsigned reps;
    bench_stats ms;
    double exponent;
    int threads;
    double cpu_util, load1, load1_end, others_cpu;
    double cpu_ms; /* this process's CPU time per call, every thread: the work, whatever the
                      machine's load (a shared core stretches the wall time, not this) */
    int trusted;
    char why[256];
    char not_run[BOIDS_ERROR_MSG_MAX]; /* why the call refused (a range beyond half a small
                                          wrap world's side); "" when measured */
} struct_point;

/* The monotonic clock in ms: read around each call (a bench_sample reads /proc, too slow to
 * bracket a call of a tenth of a millisecond). */
static double now_ms(void) {
    return 1e3 * mono_seconds();
}

/* One call of the measure; the correlation's pair count into pairs_per_boid (each pair
 * counted from both ends: the boids within range of a boid, on average). */
static boids_status call(const struct_point *pt, const boids_flock *f, const boids_params *p,
                         double *pairs_per_boid, boids_error *err) {
    if (pt->measure == 0) {
        boids_fluct g;
        return boids_number_fluctuations(f, p, &g, err);
    }
    double sum[STRUCT_BINS] = {0}, pairs[STRUCT_BINS] = {0}, total = 0;
    boids_status s = boids_velocity_correlation_add(f, p, pt->range, STRUCT_BINS, sum, pairs, err);
    for (int b = 0; b < STRUCT_BINS; b++) total += pairs[b];
    *pairs_per_boid = 2 * total / (double)f->n;
    return s;
}

static void measure(const bench_config *c, struct_point *pt, const boids_flock *f,
                    const boids_params *p) {
    boids_error err = {BOIDS_OK, ""};
    double first = now_ms(), ms[BENCH_MAX_REPS];
    if (call(pt, f, p, &pt->pairs_per_boid, &err)) {
        snprintf(pt->not_run, sizeof pt->not_run, "%s", err.msg);
        return;
    }
    const double once_s = (now_ms() - first) / 1e3;
    const double fit = once_s > 0 ? floor(c->budget_s / once_s) : c->reps;
    pt->reps = fit < c->reps ? (unsigned)fmax(3, fit) : c->reps;
    for (unsigned w = 0; w < c->warmup && once_s * (w + 1 + pt->reps) <= c->budget_s; w++)
        call(pt, f, p, &pt->pairs_per_boid, &err);
    bench_sample a, b;
    bench_sample_take(&a);
    for (unsigned r = 0; r < pt->reps; r++) {
        const double t0 = now_ms();
        call(pt, f, p, &pt->pairs_per_boid, &err);
        ms[r] = now_ms() - t0;
    }
    bench_sample_take(&b);
    bench_usage u;
    bench_usage_of(&a, &b, 0, &u);
    pt->ms = bench_stats_of(ms, pt->reps);
    pt->threads = u.busy_threads > 0 ? u.busy_threads : 1;
    pt->cpu_util = u.wall_s > 0 ? u.cpu_s / u.wall_s : NAN;
    pt->cpu_ms = u.cpu_s * 1e3 / pt->reps;
    pt->load1 = u.load_before;
    pt->load1_end = u.load_after;
    pt->others_cpu = u.others_cpu;
    const bench_trust_in in = {.cores = bench_cores(),
                               .threads = pt->threads,
                               .others_cpu = u.others_cpu,
                               .load = fmax(u.load_before, u.load_after),
                               .utilisation = pt->cpu_util / pt->threads};
    pt->trusted = bench_trust_judge(&in, pt->why, sizeof pt->why);
}

/* The measure's name in the CSV, and its short one in the table. */
static const char *measure_name(int m) {
    return m == 0 ? "number_fluctuations" : "velocity_correlation";
}

static const char *measure_short(int m) {
    return m == 0 ? "gnf" : "corr";
}

static void print_table(const bench_config *c, const bench_machine *m, const struct_point *pts,
                        size_t npts) {
    printf("boids-bench --structure: %s, %d threads, %s\n", m->cpu_model, m->cpu_threads,
           m->started);
    printf("%d-D random state at %.3g boids per %s, vision radius %g, %d bins, seed %llu\n",
           c->base.dim, c->density, c->base.dim == 3 ? "volume" : "area", c->base.vision_radius,
           STRUCT_BINS, c->seed);
    printf("%-4s %9s %5s %7s %9s %20s %8s %8s %5s %3s %4s %5s %s\n", "what", "N", "range",
           "pairs/b", "ms", "[q1 .. q3]", "ns/boid", "cpu ns/b", "exp", "thr", "util", "load", "!");
    for (size_t i = 0; i < npts; i++) {
        const struct_point *pt = &pts[i];
        char range[16] = "-", pairs[16] = "-", exp[16] = "", q[48];
        if (pt->measure) {
            snprintf(range, sizeof range, "%gR", range_radii[pt->measure]);
            snprintf(pairs, sizeof pairs, "%.1f", pt->pairs_per_boid);
        }
        if (pt->not_run[0]) {
            printf("%-4s %9zu %5s not run (below)\n", measure_short(pt->measure), pt->n, range);
            continue;
        }
        if (!isnan(pt->exponent)) snprintf(exp, sizeof exp, "%.2f", pt->exponent);
        snprintf(q, sizeof q, "[%.4g .. %.4g]", pt->ms.q1, pt->ms.q3);
        printf("%-4s %9zu %5s %7s %9.4g %20s %8.1f %8.1f %5s %3d %4.2f %5.2f%s\n",
               measure_short(pt->measure), pt->n, range, pairs, pt->ms.median, q,
               pt->ms.median * 1e6 / (double)pt->n, pt->cpu_ms * 1e6 / (double)pt->n, exp,
               pt->threads, pt->cpu_util, fmax(pt->load1, pt->load1_end), pt->trusted ? "" : " !");
    }
    for (size_t i = 0; i < npts; i++) {
        const struct_point *pt = &pts[i];
        char what[32];
        snprintf(what, sizeof what, pt->measure ? "corr N=%zu %gR" : "gnf N=%zu", pt->n,
                 range_radii[pt->measure]);
        if (pt->not_run[0])
            printf("not run: %s: %s\n", what, pt->not_run);
        else if (!pt->trusted)
            printf("! %s: %s\n", what, pt->why);
    }
    printf("gnf: boids_number_fluctuations; corr: boids_velocity_correlation_add at range = k\n"
           "vision radii (R), pairs/b the boids within range of a boid; ms per call, median of\n"
           "the reps; cpu ns/b: CPU time of every thread per call and boid, the work whatever\n"
           "the load; exp: d log t / d log N from the previous size (1: linear)\n");
}

static boids_status write_csv(const char *path, const struct_point *pts, size_t npts,
                              boids_error *err) {
    /* a row: its numbers, the reasons (at most 256 characters) and a failure's message */
    const size_t row = 512 + 256 + BOIDS_ERROR_MSG_MAX, cap = row * (npts + 1);
    size_t len = 0;
    char *text = malloc(cap);
    if (!text) return boids_error_set(err, BOIDS_ERR_NOMEM, "out of memory for %s", path);
    len +=
        (size_t)snprintf(text, cap,
                         "measure,n,range,range_radii,bins,pairs_per_boid,reps,ms_median,"
                         "ms_q1,ms_q3,ms_min,ms_max,ns_per_boid,cpu_ms,exponent,threads,cpu_util,"
                         "load1,load1_end,others_cpu,trusted,why,not_run\n");
    for (size_t i = 0; i < npts && len < cap - row; i++) {
        const struct_point *pt = &pts[i];
        len += (size_t)snprintf(
            text + len, row,
            "%s,%zu,%.17g,%g,%d,%.17g,%u,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.4g,%d,%.4g,%.3g,%.3g,"
            "%.4g,%d,\"%s\",\"%s\"\n",
            measure_name(pt->measure), pt->n, pt->measure ? pt->range : NAN,
            range_radii[pt->measure], pt->measure ? STRUCT_BINS : 0,
            pt->measure ? pt->pairs_per_boid : NAN, pt->reps, pt->ms.median, pt->ms.q1, pt->ms.q3,
            pt->ms.min, pt->ms.max, pt->ms.median * 1e6 / (double)pt->n, pt->cpu_ms, pt->exponent,
            pt->threads, pt->cpu_util, pt->load1, pt->load1_end, pt->others_cpu, pt->trusted,
            pt->why, pt->not_run);
    }
    boids_status s = bench_write_file(path, text, len, err);
    free(text);
    return s;
}

int bench_structure(const bench_config *c, const bench_machine *m) {
#ifdef _OPENMP
    if (c->threads > 0) omp_set_num_threads(c->threads);
#endif
    const size_t npts = (size_t)c->nsizes * STRUCT_MEASURES;
    struct_point *pts = calloc(npts, sizeof *pts);
    boids_error err = {BOIDS_OK, ""};
    if (!pts) boids_error_set(&err, BOIDS_ERR_NOMEM, "out of memory");
    for (int si = 0; pts && si < c->nsizes && !err.status; si++) {
        boids_params p;
        bench_scale_params(c, c->sizes[si], &p);
        boids_flock f;
        if (boids_flock_alloc_dim(&f, c->sizes[si], p.dim, &err)) break;
        boids_flock_randomize(&f, &p, c->seed);
        for (int k = 0; k < STRUCT_MEASURES; k++) {
            struct_point *pt = &pts[(size_t)si * STRUCT_MEASURES + (size_t)k];
            *pt = (struct_point){.n = f.n, .measure = k, .exponent = NAN};
            pt->range = range_radii[k] * p.vision_radius;
            if (k)
                fprintf(stderr, "boids-bench: corr N=%zu, range %gR\n", f.n, range_radii[k]);
            else
                fprintf(stderr, "boids-bench: gnf N=%zu\n", f.n);
            measure(c, pt, &f, &p);
            const struct_point *prev = si ? pt - STRUCT_MEASURES : NULL;
            if (prev && !prev->not_run[0] && !pt->not_run[0])
                pt->exponent =
                    log(pt->ms.median / prev->ms.median) / log((double)pt->n / (double)prev->n);
        }
        boids_flock_free(&f);
    }
    if (err.status) {
        fprintf(stderr, "boids-bench: %s\n", err.msg);
        free(pts);
        return boids_status_exit_code(err.status);
    }
    print_table(c, m, pts, npts);
    char path[4096];
    snprintf(path, sizeof path, "%s/structure.csv", c->out);
    int rc = 0;
    if (write_csv(path, pts, npts, &err)) {
        fprintf(stderr, "boids-bench: %s\n", err.msg);
        rc = boids_status_exit_code(err.status);
    } else {
        fprintf(stderr, "boids-bench: wrote %s\n", path);
    }
    free(pts);
    return rc;
}
