/* SPDX-License-Identifier: MIT */
/* boids-bench: the table on stdout, CSV, JSON (cJSON) and the gnuplot plots. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "bench.h"
#include "cli/cli.h"
#include "output/gnuplot.h"

/* ---- a growing text buffer ----------------------------------------------------------- */

typedef struct sbuf {
    char *s;
    size_t len, cap;
    int oom;
} sbuf;

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static void
sb_printf(sbuf *b, const char *fmt, ...) {
    if (b->oom) return;
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        size_t room = b->cap - b->len;
        int n = vsnprintf(b->s ? b->s + b->len : NULL, b->s ? room : 0, fmt, ap);
        va_end(ap);
        if (n < 0) {
            b->oom = 1;
            return;
        }
        if (b->s && (size_t)n < room) {
            b->len += (size_t)n;
            return;
        }
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->len + (size_t)n + 1) cap *= 2;
        char *s = realloc(b->s, cap);
        if (!s) {
            b->oom = 1;
            return;
        }
        b->s = s;
        b->cap = cap;
    }
}

static boids_status sb_write(sbuf *b, const char *path, boids_error *err) {
    boids_status s = b->oom
                         ? boids_error_set(err, BOIDS_ERR_NOMEM, "out of memory writing %s", path)
                         : bench_write_file(path, b->s ? b->s : "", b->len, err);
    free(b->s);
    memset(b, 0, sizeof *b);
    return s;
}

/* ---- helpers ------------------------------------------------------------------------- */

static const char *state_name(bench_state s) {
    return s == BENCH_OK ? "ok" : s == BENCH_SKIPPED ? "skipped" : "failed";
}

/* The row's name: the backend, "@baseline" for the --baseline build's rows. */
static const char *label(const bench_point *p, char *buf, size_t size) {
    snprintf(buf, size, "%s%s", bench_backend_name(p->backend), p->baseline ? "@baseline" : "");
    return buf;
}

/* The row's name in the table and the plots: the label, with the threads cpu-all used (the
 * cpu path runs a step on one thread where that is faster), e.g. "cpu-all(2t)@baseline". */
static const char *row_name(const bench_point *p, char *buf, size_t size) {
    if (p->backend == BENCH_CPU_ALL && p->threads > 0)
        snprintf(buf, size, "%s(%dt)%s", bench_backend_name(p->backend), p->threads,
                 p->baseline ? "@baseline" : "");
    else
        label(p, buf, size);
    return buf;
}

static const char *flock_name(const bench_point *p) {
    return p->formed ? "formed" : "random";
}

/* The larger load average of a point's start and end: the one it is judged by. */
static double point_load(const bench_point *p) {
    return p->load1 > p->load1_end ? p->load1 : p->load1_end;
}

/* "1k", "10M": the sizes as a reader types them. */
static void fmt_n(char *buf, size_t size, size_t n) {
    if (n >= 1000000 && n % 1000000 == 0)
        snprintf(buf, size, "%zuM", n / 1000000);
    else if (n >= 1000 && n % 1000 == 0)
        snprintf(buf, size, "%zuk", n / 1000);
    else
        snprintf(buf, size, "%zu", n);
}

/* A number in a fixed-width column, "-" when it does not apply. */
static void fmt_num(char *buf, size_t size, double v, const char *fmt) {
    if (isnan(v) || isinf(v))
        snprintf(buf, size, "-");
    else
        snprintf(buf, size, fmt, v);
}

/* The stage that takes the largest share of a GPU point. */
static int dominant_stage(const bench_point *p) {
    int best = 0;
    for (int k = 1; k < BENCH_STAGES; k++)
        if (p->stage_ms[k] > p->stage_ms[best]) best = k;
    return best;
}

static double stage_sum(const bench_point *p) {
    double s = 0.0;
    for (int k = 0; k < BENCH_STAGES; k++) s += p->stage_ms[k];
    return s;
}

/* ---- the table ------------------------------------------------------------------------ */

/* Every line the report prints fits this many columns: a text longer than a line is wrapped
 * at spaces (app_text_wrap). */
enum { REPORT_WIDTH = 100 };

#if defined(__GNUC__)
__attribute__((format(printf, 1, 2)))
#endif
static void
report(const char *fmt, ...) {
    char text[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    app_text_wrap(stdout, text, REPORT_WIDTH);
}

/* The load averages' range over the measured points (lo > hi when none is known) and the
 * most CPU other processes used during one (NAN unknown); returns the number of untrusted
 * points. */
static int load_range(const bench_point *pts, size_t npts, double *lo, double *hi, double *others) {
    *lo = INFINITY, *hi = -INFINITY, *others = NAN;
    int untrusted = 0;
    for (size_t i = 0; i < npts; i++) {
        const bench_point *p = &pts[i];
        if (p->state != BENCH_OK) continue;
        untrusted += !p->trusted;
        const double load[2] = {p->load1, p->load1_end};
        for (int k = 0; k < 2; k++)
            if (load[k] >= 0) {
                if (load[k] < *lo) *lo = load[k];
                if (load[k] > *hi) *hi = load[k];
            }
        if (!isnan(p->others_cpu) && !(p->others_cpu <= *others)) *others = p->others_cpu;
    }
    return untrusted;
}

/* The run's setting, the machine, and the load over the measured points. */
static void print_header(const bench_config *c, const bench_machine *m, const bench_point *pts,
                         size_t npts) {
    report("boids-bench: %s preset, %s, seed %llu, %u timed reps of up to %u steps (+%u "
           "warm-up)%s",
           c->preset ? c->preset : "lab",
           c->fixed_world ? "fixed world" : "fixed density (world grows with N)", c->seed, c->reps,
           c->max_steps, c->warmup, c->contend ? ", --contend" : "");
    /* How each N's formed flock came about, once per N. */
    for (size_t i = 0; i < npts; i++) {
        const bench_point *p = &pts[i], *r = NULL;
        int first = p->formed && !p->baseline;
        for (size_t j = 0; j < i && first; j++) first = !(pts[j].formed && pts[j].n == p->n);
        if (!first) continue;
        for (size_t j = 0; j < npts && !r; j++)
            if (!pts[j].formed && pts[j].n == p->n) r = &pts[j];
        char n[24], from[32] = "", settle[96];
        fmt_n(n, sizeof n, p->n);
        snprintf(settle, sizeof settle, " (settled: under %g%% more in the last %d steps)",
                 100.0 * BENCH_SETTLE, BENCH_SETTLE_BLOCK);
        if (r && r->nbrs >= 0) snprintf(from, sizeof from, "%.1f -> ", r->nbrs);
        report("N=%s formed flock: %lu steps from the random start, %s%.1f neighbours per boid%s",
               n, p->age, from, p->nbrs,
               p->settled > 0    ? settle
               : p->settled == 0 ? " (not settled at --age-max)"
                                 : " (--age)");
    }
    if (c->baseline) report("baseline: %s (rows NAME@baseline)", c->baseline);
    report("CPU: %s%s%s%s, %d threads, cpu kernels %s%s%s; GL: %s | %s", m->cpu_model,
           m->cpu_id[0] ? " (" : "", m->cpu_id, m->cpu_id[0] ? ")" : "", m->cpu_threads,
           m->cpu_kernel, m->omp_env[0] ? ", " : "", m->omp_env,
           m->gl_renderer[0] ? m->gl_renderer : "none",
           m->gl_version[0] ? m->gl_version : m->gpu_note);
    if (m->gpu_max_n) report("GPU limit: N <= %zu (%s)", m->gpu_max_n, m->gpu_max_why);
    double lo, hi, others;
    int untrusted = load_range(pts, npts, &lo, &hi, &others);
    char range[64] = "", oth[64] = "";
    if (lo <= hi) snprintf(range, sizeof range, "; %.2f-%.2f over the points", lo, hi);
    if (!isnan(others)) snprintf(oth, sizeof oth, ", other processes up to %.2f cores", others);
    report("load average: %.2f at start, %.2f at end%s%s; %d point%s untrusted", m->load_start[0],
           m->load_end[0], range, oth, untrusted, untrusted == 1 ? "" : "s");
}

/* The width of the name column: the longest row name, at least 8. */
static int name_width(const bench_point *pts, size_t npts) {
    int w = 8;
    char name[48];
    for (size_t i = 0; i < npts; i++) {
        int len = (int)strlen(row_name(&pts[i], name, sizeof name));
        if (len > w) w = len;
    }
    return w;
}

/* The measured points, backend by backend (the baseline's row under this build's; each N's
 * random start, then its formed flock), in three tables of at most 100 columns: the times,
 * cost per neighbour and speedups; the spread over the repetitions; the load and the memory. */
static void print_rows(const bench_point *pts, size_t npts) {
    int w = name_width(pts, npts);
    printf("\n%-*s %3s %6s %6s %6s %9s %8s %7s %7s %8s %7s %s\n", w, "backend", "thr", "N", "flock",
           "nbrs", "ms/step", "ns/b-st", "ns/nbr", "x cpu1t", "x cpuall", "x ref", "!");
    for (int b = 0; b < BENCH_BACKENDS; b++)
        for (size_t i = 0; i < npts; i++) {
            const bench_point *p = &pts[i];
            if ((int)p->backend != b || p->state != BENCH_OK) continue;
            char name[48], n[24], nb[16], ns[16], nn[16], s0[16], s1[16], s2[16];
            fmt_n(n, sizeof n, p->n);
            fmt_num(nb, sizeof nb, p->nbrs >= 0 ? p->nbrs : NAN, "%.1f");
            fmt_num(ns, sizeof ns, p->ns_per_boid_step, "%.1f");
            fmt_num(nn, sizeof nn, p->ns_per_nbr, "%.3f");
            fmt_num(s0, sizeof s0, p->speedup[0], "%.2f");
            fmt_num(s1, sizeof s1, p->speedup[1], "%.2f");
            fmt_num(s2, sizeof s2, p->speedup[2], "%.1f");
            printf("%-*s %3d %6s %6s %6s %9.4g %8s %7s %7s %8s %7s %s\n", w,
                   row_name(p, name, sizeof name), p->threads, n, flock_name(p), nb, p->ms.median,
                   ns, nn, s0, s1, s2, p->trusted ? "" : "!");
        }
    printf("\n%-*s %6s %6s %19s %20s %7s %5s %6s\n", w, "backend", "N", "flock", "mean +- sd",
           "[q1 .. q3]", "Mb-st/s", "exp", "x base");
    for (int b = 0; b < BENCH_BACKENDS; b++)
        for (size_t i = 0; i < npts; i++) {
            const bench_point *p = &pts[i];
            if ((int)p->backend != b || p->state != BENCH_OK) continue;
            char name[48], n[24], ms[48], q[48], tp[16], ex[16], rt[16];
            fmt_n(n, sizeof n, p->n);
            if (isnan(p->ms.mean))
                snprintf(ms, sizeof ms, "-");
            else
                snprintf(ms, sizeof ms, "%.4g +- %.2g", p->ms.mean, p->ms.sd);
            snprintf(q, sizeof q, "[%.4g .. %.4g]", p->ms.q1, p->ms.q3);
            fmt_num(tp, sizeof tp, p->boid_steps_per_s * 1e-6, "%.1f");
            fmt_num(ex, sizeof ex, p->exponent, "%.2f");
            fmt_num(rt, sizeof rt, p->ratio, "%.2f");
            printf("%-*s %6s %6s %19s %20s %7s %5s %6s\n", w, row_name(p, name, sizeof name), n,
                   flock_name(p), ms, q, tp, ex, rt);
        }
    printf("\n%-*s %6s %6s %5s %5s %6s %6s %7s %8s\n", w, "backend", "N", "flock", "util", "load",
           "others", "GB/s", "gpuB/b", "hostB/b");
    for (int b = 0; b < BENCH_BACKENDS; b++)
        for (size_t i = 0; i < npts; i++) {
            const bench_point *p = &pts[i];
            if ((int)p->backend != b || p->state != BENCH_OK) continue;
            char name[48], n[24], ut[16], ld[16], ot[16], bw[16], gm[16], hm[16];
            fmt_n(n, sizeof n, p->n);
            fmt_num(ut, sizeof ut, p->cpu_util, "%.2f");
            fmt_num(ld, sizeof ld, point_load(p) >= 0 ? point_load(p) : NAN, "%.2f");
            fmt_num(ot, sizeof ot, p->others_cpu, "%.2f");
            fmt_num(bw, sizeof bw, p->gbytes_per_s, "%.2f");
            fmt_num(gm, sizeof gm, p->gpu_bytes_per_boid, "%.1f");
            fmt_num(hm, sizeof hm, p->host_bytes_per_boid, "%.1f");
            printf("%-*s %6s %6s %5s %5s %6s %6s %7s %8s\n", w, row_name(p, name, sizeof name), n,
                   flock_name(p), ut, ld, ot, bw, gm, hm);
        }
}

/* One comparison, as hyperfine prints it: `faster` ran `ratio` +- `sd` times faster than
 * `slower` (the ratio of their means, the sd propagated from both; where a point lacks the
 * repetitions' times, an older baseline's, from the medians with sd (q3 - q1) / 1.349, the
 * normal distribution's, and `from_medians` set). */
typedef struct bench_cmp {
    const bench_point *faster, *slower;
    double ratio, sd;
    int from_medians;
} bench_cmp;

static bench_cmp compare(const bench_point *a, const bench_point *b) {
    int med = isnan(a->ms.mean) || isnan(b->ms.mean);
    double ma = med ? a->ms.median : a->ms.mean, mb = med ? b->ms.median : b->ms.mean;
    double sa = med ? (a->ms.q3 - a->ms.q1) / 1.349 : a->ms.sd;
    double sb = med ? (b->ms.q3 - b->ms.q1) / 1.349 : b->ms.sd;
    bench_cmp c = {.faster = a, .slower = b, .from_medians = med};
    if (mb < ma) {
        c.faster = b, c.slower = a;
        c.ratio = bench_ratio_sd(mb, sb, ma, sa, &c.sd);
    } else {
        c.ratio = bench_ratio_sd(ma, sa, mb, sb, &c.sd);
    }
    return c;
}

/* The comparisons of the sweep into out (at most max; returns how many): at every N and
 * flock, the fastest of this build's backends against each other one, then each of this
 * build's points against its baseline twin (--baseline). */
static size_t comparisons(const bench_point *pts, size_t npts, bench_cmp *out, size_t max) {
    size_t m = 0;
    for (size_t i = 0; i < npts; i++) {
        const bench_point *g = &pts[i];
        if (g->state != BENCH_OK || g->baseline) continue;
        /* The first measured point of its group (N, flock) leads the group's comparisons. */
        const bench_point *best = g;
        int first = 1;
        for (size_t j = 0; j < npts; j++) {
            const bench_point *q = &pts[j];
            if (q->state != BENCH_OK || q->baseline || q->n != g->n || q->formed != g->formed)
                continue;
            if (j < i) first = 0;
            if (q->ms.median < best->ms.median) best = q;
        }
        if (!first) continue;
        for (size_t j = 0; j < npts && m < max; j++) {
            const bench_point *q = &pts[j];
            if (q == best || q->state != BENCH_OK || q->baseline || q->n != g->n ||
                q->formed != g->formed)
                continue;
            out[m++] = compare(best, q);
        }
        for (size_t j = 0; j < npts && m < max; j++) {
            const bench_point *q = &pts[j];
            if (q->state != BENCH_OK || q->baseline || q->n != g->n || q->formed != g->formed)
                continue;
            for (size_t k = 0; k < npts && m < max; k++) {
                const bench_point *t = &pts[k];
                if (t->baseline && t->state == BENCH_OK && t->backend == q->backend &&
                    t->n == q->n && t->formed == q->formed)
                    out[m++] = compare(q, t);
            }
        }
    }
    return m;
}

static void print_comparisons(const bench_point *pts, size_t npts) {
    size_t cap = 2 * npts + 1;
    bench_cmp *cmp = malloc(cap * sizeof *cmp);
    if (!cmp) return;
    size_t m = comparisons(pts, npts, cmp, cap);
    if (m) {
        printf("\n");
        report("Comparisons (the ratio of the mean times per step, +- its standard deviation "
               "propagated from both points' repetitions, as hyperfine prints it):");
    }
    for (size_t i = 0; i < m; i++) {
        char n[24], a[48], b[48];
        fmt_n(n, sizeof n, cmp[i].faster->n);
        report("  N=%s %s: %s ran %.3g +- %.2g times faster than %s%s", n,
               flock_name(cmp[i].faster), row_name(cmp[i].faster, a, sizeof a), cmp[i].ratio,
               cmp[i].sd, row_name(cmp[i].slower, b, sizeof b),
               cmp[i].from_medians ? " (medians, sd from the quartiles)" : "");
    }
    free(cmp);
}

/* Milliseconds in at most 7 columns: 4 decimals under 10 ms, fewer above. */
static void fmt_ms(char *buf, size_t size, double v) {
    snprintf(buf, size, v < 10 ? "%.4f" : v < 100 ? "%.3f" : v < 1000 ? "%.2f" : "%.1f", v);
}

/* The GPU stage times of every GPU point that has them. */
static void print_stages(const bench_point *pts, size_t npts) {
    int any_stage = 0;
    for (size_t i = 0; i < npts; i++) any_stage |= pts[i].state == BENCH_OK && pts[i].have_stages;
    if (!any_stage) return;
    printf("\n");
    report("GPU stages, ms per step (median; N with f: the formed flock; source gl: "
           "GL_TIME_ELAPSED, fenced: glFinish around each stage, CPU clock, used when the "
           "driver's queries are implausible; timed: the wall time with the stage timing on; "
           "wall: without it, as ms/step above):");
    int w = name_width(pts, npts);
    printf("%-*s %6s", w, "backend", "N");
    for (int k = 0; k < BENCH_STAGES; k++) printf(" %7s", bench_stage_names[k]);
    printf(" %7s %7s %7s %6s\n", "sum", "timed", "wall", "source");
    for (int b = BENCH_GPU; b < BENCH_BACKENDS; b++) {
        for (size_t i = 0; i < npts; i++) {
            const bench_point *p = &pts[i];
            if ((int)p->backend != b || p->state != BENCH_OK || !p->have_stages) continue;
            char n[24], name[48];
            fmt_n(n, sizeof n, p->n);
            if (p->formed) snprintf(n + strlen(n), sizeof n - strlen(n), "f");
            printf("%-*s %6s", w, row_name(p, name, sizeof name), n);
            char v[BENCH_STAGES + 3][16];
            for (int k = 0; k < BENCH_STAGES; k++) fmt_ms(v[k], sizeof v[k], p->stage_ms[k]);
            fmt_ms(v[BENCH_STAGES], sizeof v[0], stage_sum(p));
            fmt_ms(v[BENCH_STAGES + 1], sizeof v[0], p->timed_wall_ms);
            fmt_ms(v[BENCH_STAGES + 2], sizeof v[0], p->ms.median);
            for (int k = 0; k < BENCH_STAGES + 3; k++) printf(" %7s", v[k]);
            printf(" %6s\n", strcmp(p->stage_source, "gl-timer") ? "fenced" : "gl");
        }
    }
    /* The dominant stage of each point, as one line per backend. */
    for (int b = BENCH_GPU; b < BENCH_BACKENDS; b++) {
        char line[1024];
        int len = 0;
        for (size_t i = 0; i < npts; i++) {
            const bench_point *p = &pts[i];
            if ((int)p->backend != b || p->baseline || p->state != BENCH_OK || !p->have_stages)
                continue;
            char n[24];
            fmt_n(n, sizeof n, p->n);
            double sum = stage_sum(p);
            int d = dominant_stage(p);
            len +=
                snprintf(line + len, sizeof line - (size_t)len, "%s %s %s %.0f%%", len ? "," : "",
                         n, bench_stage_names[d], sum > 0 ? 100.0 * p->stage_ms[d] / sum : 0.0);
            if (len >= (int)sizeof line) len = (int)sizeof line - 1;
        }
        if (len) report("  %s: largest stage at N =%s", bench_backend_name((bench_backend)b), line);
    }
}

/* The untrusted points with their reasons, then the points not measured with theirs. */
static void print_notes(const bench_config *c, const bench_point *pts, size_t npts) {
    char n[24], name[48];
    int any = 0;
    for (size_t i = 0; i < npts; i++) {
        const bench_point *p = &pts[i];
        if (p->state != BENCH_OK || p->trusted) continue;
        if (!any) {
            printf("\n");
            report("! untrusted (other processes held cores the point needed, or its threads "
                   "ran far less than the wall time%s):",
                   c->contend ? "; --contend's busy loop is such a process" : "");
        }
        any = 1;
        fmt_n(n, sizeof n, p->n);
        report("  %-22s N=%-6s %s %s", row_name(p, name, sizeof name), n, flock_name(p), p->why);
    }
    any = 0;
    for (size_t i = 0; i < npts; i++) {
        const bench_point *p = &pts[i];
        if (p->state == BENCH_OK) continue;
        if (!any) printf("\nNot measured:\n");
        any = 1;
        fmt_n(n, sizeof n, p->n);
        report("  %-22s N=%-6s %s %s: %s", label(p, name, sizeof name), n, flock_name(p),
               state_name(p->state), p->reason);
    }
}

/* This build's measured point of backend b at N = n, or NULL. */
static const bench_point *measured(const bench_point *pts, size_t npts, bench_backend b, size_t n,
                                   int formed) {
    for (size_t i = 0; i < npts; i++)
        if (pts[i].backend == b && pts[i].n == n && !pts[i].baseline && pts[i].state == BENCH_OK &&
            pts[i].formed == formed)
            return &pts[i];
    return NULL;
}

/* A speedup as "45x", "1.9x", "0.06x": three significant digits at most, no exponent. */
static const char *fmt_times(char *buf, size_t size, double v) {
    snprintf(buf, size, v >= 100 ? "%.0fx" : v >= 10 ? "%.1fx" : "%.2fx", v);
    return buf;
}

/* One line per N and flock of the sweep ("N=1k:" the random start, "N=1k formed:"): the
 * parallel cpu path against the exact reference and the serial path, and the gpu against
 * the cpu path and the reference, from the medians (the table's x columns), naming only
 * backends measured at that N. */
static void print_summary(const bench_config *c, const bench_point *pts, size_t npts) {
    printf("\n");
    for (int s = 0; s < 2 * c->nsizes; s++) {
        size_t n = c->sizes[s / 2];
        const int formed = s % 2;
        if (!(c->flocks & (formed ? BENCH_FLOCK_FORMED : BENCH_FLOCK_RANDOM))) continue;
        const bench_point *ref = measured(pts, npts, BENCH_CPU_REF, n, formed),
                          *one = measured(pts, npts, BENCH_CPU_1T, n, formed),
                          *all = measured(pts, npts, BENCH_CPU_ALL, n, formed),
                          *cpu = all ? all : one, *gpu = NULL;
        for (int b = BENCH_GPU; b < BENCH_BACKENDS && !gpu; b++)
            gpu = measured(pts, npts, (bench_backend)b, n, formed);
        char line[512], nn[24], x[32];
        int len = 0, clauses = 0;
        fmt_n(nn, sizeof nn, n);
        len += snprintf(line, sizeof line, "N=%s%s:", nn, formed ? " formed" : "");
        if (cpu && (ref || (cpu == all && one))) {
            if (cpu == all)
                len +=
                    snprintf(line + len, sizeof line - (size_t)len,
                             " cpu-all, %d thread%s:", cpu->threads, cpu->threads == 1 ? "" : "s");
            else
                len += snprintf(line + len, sizeof line - (size_t)len, " cpu-1t:");
            if (ref)
                len += snprintf(line + len, sizeof line - (size_t)len, " %s cpu-ref",
                                fmt_times(x, sizeof x, cpu->speedup[2]));
            if (cpu == all && one)
                len += snprintf(line + len, sizeof line - (size_t)len, "%s %s cpu-1t",
                                ref ? "," : "", fmt_times(x, sizeof x, cpu->speedup[0]));
            clauses++;
        }
        if (gpu && (cpu || ref)) {
            len += snprintf(line + len, sizeof line - (size_t)len, "%s %s:", clauses ? ";" : "",
                            bench_backend_name(gpu->backend));
            if (cpu)
                len += snprintf(line + len, sizeof line - (size_t)len, " %s %s",
                                fmt_times(x, sizeof x, gpu->speedup[cpu == all ? 1 : 0]),
                                bench_backend_name(cpu->backend));
            if (ref)
                len += snprintf(line + len, sizeof line - (size_t)len, "%s %s cpu-ref",
                                cpu ? "," : "", fmt_times(x, sizeof x, gpu->speedup[2]));
            clauses++;
        }
        if (!clauses)
            snprintf(line + len, sizeof line - (size_t)len, " fewer than two backends measured");
        report("%s", line);
    }
}

void bench_print_table(const bench_config *c, const bench_machine *m, const bench_point *pts,
                       size_t npts) {
    print_header(c, m, pts, npts);
    print_rows(pts, npts);
    print_stages(pts, npts);
    print_notes(c, pts, npts);
    print_summary(c, pts, npts);
    print_comparisons(pts, npts);
    printf("\n");
    report("thr: threads that ran the steps (the cpu path runs small N on one thread; gpu: the "
           "driver's, e.g. llvmpipe's workers); ns/b-st: nanoseconds per boid-step; Mb-st/s: "
           "million boid-steps per second; flock: the random start, or formed (aged until its "
           "neighbour count settles, see the header); nbrs: mean neighbours per boid of the flock "
           "timed; ns/nbr: ns/b-st / nbrs; cpu-all(Nt): the threads it ran on; mean +- sd: ms per "
           "step over the repetitions; x: speedup (this build's other backend's time / this "
           "row's) at the same N; exp: d log t / d log N from the previous N; util: CPU cores "
           "kept busy; load: 1-min load average, the larger of the point's start and end; "
           "others: cores other processes used during the point; GB/s: byte model "
           "(bench/README.md) / time; gpuB/b: GPU buffer bytes per boid; hostB/b: host heap "
           "bytes per boid the backend added (llvmpipe's buffers included); x base: the "
           "baseline's time / this build's (--baseline); !: untrusted, see above.");
    fflush(stdout);
}

/* ---- CSV ----------------------------------------------------------------------------- */

static void csv_num(sbuf *b, double v) {
    if (isnan(v) || isinf(v))
        sb_printf(b, ",");
    else
        sb_printf(b, ",%.6g", v);
}

static void csv_text(sbuf *b, const char *s) {
    sb_printf(b, ",\"");
    for (; *s; s++) sb_printf(b, *s == '"' ? "\"\"" : "%c", *s);
    sb_printf(b, "\"");
}

boids_status bench_write_csv(const char *path, const bench_config *c, const bench_point *pts,
                             size_t npts, boids_error *err) {
    sbuf b = {0};
    sb_printf(&b, "backend,state,n,threads,width,height,ncx,ncy,neighbours,steps_per_rep,reps,"
                  "warmup,ms_median,ms_q1,ms_q3,ms_min,ms_max,cpu_util,load1,ns_per_boid_step,"
                  "boid_steps_per_s,speedup_vs_cpu_1t,speedup_vs_cpu_all,speedup_vs_cpu_ref,"
                  "scaling_exponent,bytes_per_step,gbytes_per_s,gpu_bytes_per_boid,"
                  "host_bytes_per_boid");
    for (int k = 0; k < BENCH_STAGES; k++) sb_printf(&b, ",gpu_%s_ms", bench_stage_names[k]);
    /* New columns go last (before the reason): scripts read ms_median as the 13th. */
    sb_printf(&b, ",gpu_stage_sum_ms,gpu_timed_wall_ms,gpu_stage_source,gpu_gl_query_sum_ms,"
                  "load1_end,load,others_cpu,utilisation,trusted,why,contend,baseline_ratio,"
                  "flock,age_steps,settled,label,ns_per_nbr,ms_mean,ms_sd,times_ms,reason\n");
    for (size_t i = 0; i < npts; i++) {
        const bench_point *p = &pts[i];
        int ok = p->state == BENCH_OK;
        char name[48];
        sb_printf(&b, "%s,%s,%zu,%d,%.17g,%.17g", label(p, name, sizeof name), state_name(p->state),
                  p->n, p->threads, p->width, p->height);
        if (ok)
            sb_printf(&b, ",%u,%u", p->ncx, p->ncy);
        else
            sb_printf(&b, ",,");
        csv_num(&b, p->nbrs >= 0 ? p->nbrs : NAN);
        if (ok)
            sb_printf(&b, ",%u,%u,%u", p->steps_per_rep, p->reps, p->warmup);
        else
            sb_printf(&b, ",,,");
        double na = NAN;
        csv_num(&b, ok ? p->ms.median : na);
        csv_num(&b, ok ? p->ms.q1 : na);
        csv_num(&b, ok ? p->ms.q3 : na);
        csv_num(&b, ok ? p->ms.min : na);
        csv_num(&b, ok ? p->ms.max : na);
        csv_num(&b, ok ? p->cpu_util : na);
        csv_num(&b, ok ? p->load1 : na);
        csv_num(&b, ok ? p->ns_per_boid_step : na);
        csv_num(&b, ok ? p->boid_steps_per_s : na);
        for (int k = 0; k < 3; k++) csv_num(&b, ok ? p->speedup[k] : na);
        csv_num(&b, ok ? p->exponent : na);
        csv_num(&b, ok ? p->bytes_per_step : na);
        csv_num(&b, ok ? p->gbytes_per_s : na);
        csv_num(&b, ok ? p->gpu_bytes_per_boid : na);
        csv_num(&b, ok ? p->host_bytes_per_boid : na);
        int st = ok && p->have_stages;
        for (int k = 0; k < BENCH_STAGES; k++) csv_num(&b, st ? p->stage_ms[k] : na);
        csv_num(&b, st ? stage_sum(p) : na);
        csv_num(&b, st ? p->timed_wall_ms : na);
        sb_printf(&b, ",%s", st ? p->stage_source : "");
        csv_num(&b, st ? p->gl_stage_sum_ms : na);
        csv_num(&b, ok && p->load1_end >= 0 ? p->load1_end : na);
        csv_num(&b, ok && point_load(p) >= 0 ? point_load(p) : na);
        csv_num(&b, ok ? p->others_cpu : na);
        csv_num(&b, ok ? p->utilisation : na);
        sb_printf(&b, ok ? ",%d" : ",", p->trusted);
        csv_text(&b, ok ? p->why : "");
        sb_printf(&b, ",%d", c->contend);
        csv_num(&b, ok ? p->ratio : na);
        sb_printf(&b, ",%s,%lu,%d", flock_name(p), p->age, p->settled);
        csv_text(&b, row_name(p, name, sizeof name));
        csv_num(&b, ok ? p->ns_per_nbr : na);
        csv_num(&b, ok ? p->ms.mean : na);
        csv_num(&b, ok ? p->ms.sd : na);
        sb_printf(&b, ",");
        for (unsigned k = 0; ok && k < p->ntimes; k++)
            sb_printf(&b, "%s%.6g", k ? " " : "", p->times[k]);
        csv_text(&b, p->reason);
        sb_printf(&b, "\n");
    }
    return sb_write(&b, path, err);
}

/* ---- JSON ---------------------------------------------------------------------------- */

static void json_num(cJSON *o, const char *key, double v) {
    if (isnan(v) || isinf(v))
        cJSON_AddNullToObject(o, key);
    else
        cJSON_AddNumberToObject(o, key, v);
}

/* An object `key` in o of n numbers named by names. */
static void json_nums(cJSON *o, const char *key, const char *const *names, const double *v, int n) {
    cJSON *g = cJSON_AddObjectToObject(o, key);
    for (int k = 0; k < n; k++) json_num(g, names[k], v[k]);
}

static cJSON *json_machine(const bench_machine *m) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "cpu_model", m->cpu_model);
    cJSON_AddStringToObject(o, "cpu_id", m->cpu_id);
    cJSON_AddNumberToObject(o, "cpu_threads", m->cpu_threads);
    cJSON_AddNumberToObject(o, "online_cpus", m->online_cpus);
    cJSON_AddStringToObject(o, "cpu_kernel", m->cpu_kernel);
    cJSON_AddStringToObject(o, "omp_env", m->omp_env);
    json_num(o, "mem_total_gib", m->mem_total_gib);
    cJSON_AddStringToObject(o, "os", m->os);
    cJSON_AddStringToObject(o, "compiler", m->compiler);
    cJSON_AddStringToObject(o, "gl_renderer", m->gl_renderer);
    cJSON_AddStringToObject(o, "gl_version", m->gl_version);
    cJSON_AddStringToObject(o, "gl_platform", m->gl_platform);
    cJSON_AddStringToObject(o, "gpu_note", m->gpu_note);
    cJSON_AddNumberToObject(o, "gpu_max_n", (double)m->gpu_max_n);
    cJSON_AddStringToObject(o, "gpu_max_n_limit", m->gpu_max_why);
    cJSON_AddItemToObject(o, "load_start", cJSON_CreateDoubleArray(m->load_start, 3));
    cJSON_AddItemToObject(o, "load_end", cJSON_CreateDoubleArray(m->load_end, 3));
    cJSON_AddStringToObject(o, "started_utc", m->started);
    return o;
}

static cJSON *json_config(const bench_config *c) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "preset", c->preset ? c->preset : "lab");
    cJSON_AddStringToObject(o, "world", c->fixed_world ? "fixed" : "fixed-density");
    cJSON_AddNumberToObject(o, "density", c->density);
    cJSON_AddNumberToObject(o, "base_width", c->base.width);
    cJSON_AddNumberToObject(o, "base_height", c->base.height);
    cJSON_AddNumberToObject(o, "vision_radius", c->base.vision_radius);
    cJSON_AddNumberToObject(o, "seed", (double)c->seed);
    cJSON *sizes = cJSON_AddArrayToObject(o, "sizes");
    for (int i = 0; i < c->nsizes; i++)
        cJSON_AddItemToArray(sizes, cJSON_CreateNumber((double)c->sizes[i]));
    cJSON *bk = cJSON_AddArrayToObject(o, "backends");
    for (int b = 0; b < BENCH_BACKENDS; b++)
        if (c->enabled[b])
            cJSON_AddItemToArray(bk, cJSON_CreateString(bench_backend_name((bench_backend)b)));
    cJSON_AddNumberToObject(o, "age_steps", (double)c->age);
    cJSON *fl = cJSON_AddArrayToObject(o, "flocks");
    if (c->flocks & BENCH_FLOCK_RANDOM) cJSON_AddItemToArray(fl, cJSON_CreateString("random"));
    if (c->flocks & BENCH_FLOCK_FORMED) cJSON_AddItemToArray(fl, cJSON_CreateString("formed"));
    cJSON_AddNumberToObject(o, "age_max", (double)c->age_max);
    cJSON_AddNumberToObject(o, "settle", BENCH_SETTLE);
    cJSON_AddNumberToObject(o, "settle_block", BENCH_SETTLE_BLOCK);
    cJSON_AddNumberToObject(o, "reps", c->reps);
    cJSON_AddNumberToObject(o, "warmup", c->warmup);
    cJSON_AddNumberToObject(o, "max_steps", c->max_steps);
    cJSON_AddNumberToObject(o, "rep_ms", c->rep_ms);
    cJSON_AddNumberToObject(o, "budget_s", c->budget_s);
    cJSON_AddBoolToObject(o, "quick", c->quick);
    cJSON_AddBoolToObject(o, "contend", c->contend);
    if (c->baseline)
        cJSON_AddStringToObject(o, "baseline", c->baseline);
    else
        cJSON_AddNullToObject(o, "baseline");
    cJSON_AddStringToObject(o, "stage_timer",
                            c->stage_timer == BENCH_TIMER_GL       ? "gl"
                            : c->stage_timer == BENCH_TIMER_FENCED ? "fenced"
                                                                   : "auto");
    return o;
}

static cJSON *json_point(const bench_point *p) {
    cJSON *o = cJSON_CreateObject();
    char name[48];
    cJSON_AddStringToObject(o, "backend", label(p, name, sizeof name));
    cJSON_AddBoolToObject(o, "baseline", p->baseline);
    cJSON_AddStringToObject(o, "state", state_name(p->state));
    cJSON_AddNumberToObject(o, "n", (double)p->n);
    cJSON_AddNumberToObject(o, "threads", p->threads);
    cJSON_AddNumberToObject(o, "width", p->width);
    cJSON_AddNumberToObject(o, "height", p->height);
    json_num(o, "neighbours", p->nbrs >= 0 ? p->nbrs : NAN);
    cJSON_AddStringToObject(o, "flock", flock_name(p));
    cJSON_AddNumberToObject(o, "age_steps", (double)p->age);
    if (p->formed)
        cJSON_AddStringToObject(o, "formed_by",
                                p->settled > 0    ? "settled"
                                : p->settled == 0 ? "age-max"
                                                  : "age");
    if (p->state != BENCH_OK) {
        cJSON_AddStringToObject(o, "reason", p->reason);
        return o;
    }
    if (p->reason[0]) cJSON_AddStringToObject(o, "note", p->reason);
    cJSON_AddNumberToObject(o, "ncx", p->ncx);
    cJSON_AddNumberToObject(o, "ncy", p->ncy);
    cJSON_AddNumberToObject(o, "steps_per_rep", p->steps_per_rep);
    cJSON_AddNumberToObject(o, "reps", p->reps);
    cJSON_AddNumberToObject(o, "warmup", p->warmup);
    cJSON_AddStringToObject(o, "label", row_name(p, name, sizeof name));
    static const char *const stats[] = {"median", "q1", "q3", "min", "max", "mean", "sd"};
    json_nums(o, "ms_per_step", stats,
              (const double[]){p->ms.median, p->ms.q1, p->ms.q3, p->ms.min, p->ms.max, p->ms.mean,
                               p->ms.sd},
              7);
    cJSON_AddItemToObject(o, "times_ms", cJSON_CreateDoubleArray(p->times, (int)p->ntimes));
    json_num(o, "ns_per_nbr", p->ns_per_nbr);
    json_num(o, "cpu_util", p->cpu_util);
    json_num(o, "load1", p->load1 >= 0 ? p->load1 : NAN);
    json_num(o, "load1_end", p->load1_end >= 0 ? p->load1_end : NAN);
    json_num(o, "load", point_load(p) >= 0 ? point_load(p) : NAN);
    json_num(o, "others_cpu", p->others_cpu);
    json_num(o, "utilisation", p->utilisation);
    cJSON_AddBoolToObject(o, "trusted", p->trusted);
    cJSON_AddStringToObject(o, "why", p->why);
    json_num(o, "baseline_ratio", p->ratio);
    json_num(o, "ns_per_boid_step", p->ns_per_boid_step);
    json_num(o, "boid_steps_per_s", p->boid_steps_per_s);
    static const char *const against[] = {"cpu-1t", "cpu-all", "cpu-ref"};
    json_nums(o, "speedup_vs", against, p->speedup, 3);
    json_num(o, "scaling_exponent", p->exponent);
    json_num(o, "bytes_per_step", p->bytes_per_step);
    json_num(o, "gbytes_per_s", p->gbytes_per_s);
    json_num(o, "gpu_bytes_per_boid", p->gpu_bytes_per_boid);
    json_num(o, "host_bytes_per_boid", p->host_bytes_per_boid);
    if (p->have_stages) {
        json_nums(o, "gpu_stage_ms", bench_stage_names, p->stage_ms, BENCH_STAGES);
        json_num(o, "gpu_stage_sum_ms", stage_sum(p));
        json_num(o, "gpu_timed_wall_ms", p->timed_wall_ms);
        cJSON_AddStringToObject(o, "gpu_dominant_stage", bench_stage_names[dominant_stage(p)]);
        cJSON_AddStringToObject(o, "gpu_stage_source", p->stage_source);
        json_num(o, "gpu_gl_query_sum_ms", p->gl_stage_sum_ms);
    }
    return o;
}

boids_status bench_write_json(const char *path, const bench_config *c, const bench_machine *m,
                              const bench_point *pts, size_t npts, const char *plot_note,
                              boids_error *err) {
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "tool", "boids-bench");
    cJSON_AddNumberToObject(root, "format", 1);
    cJSON_AddItemToObject(root, "machine", json_machine(m));
    cJSON_AddItemToObject(root, "config", json_config(c));
    char rule[512];
    snprintf(rule, sizeof rule,
             "untrusted: other processes used more CPU than the cores the point left free "
             "(+%g), or, where that is unknown, the load average exceeded the cores (+%g); or "
             "a CPU backend's utilisation (cpu_util / threads) was under %g (bench/README.md, "
             "Trust)",
             BENCH_OTHERS_SLACK, BENCH_LOAD_SLACK, BENCH_MIN_UTILISATION);
    cJSON_AddStringToObject(root, "trust", rule);
    cJSON_AddNumberToObject(root, "cores", bench_cores());
    cJSON_AddStringToObject(root, "byte_model",
                            "minimum DRAM traffic per step, see bench/README.md: gpu 112 B/boid "
                            "+ 28 B/cell; gpu-det 152 B/boid + 36 B/cell; cpu 88 B/boid + "
                            "(16 x threads + 8) B/cell; cpu-ref 64 B/boid");
    cJSON *stages = cJSON_AddArrayToObject(root, "gpu_stages");
    for (int k = 0; k < BENCH_STAGES; k++)
        cJSON_AddItemToArray(stages, cJSON_CreateString(bench_stage_names[k]));
    cJSON *res = cJSON_AddArrayToObject(root, "results");
    for (size_t i = 0; i < npts; i++) cJSON_AddItemToArray(res, json_point(&pts[i]));
    size_t cap = 2 * npts + 1;
    bench_cmp *cmp = malloc(cap * sizeof *cmp);
    cJSON *cl = cJSON_AddArrayToObject(root, "comparisons");
    for (size_t i = 0, m = cmp ? comparisons(pts, npts, cmp, cap) : 0; i < m; i++) {
        cJSON *o = cJSON_CreateObject();
        char a[48], b[48];
        cJSON_AddNumberToObject(o, "n", (double)cmp[i].faster->n);
        cJSON_AddStringToObject(o, "flock", flock_name(cmp[i].faster));
        cJSON_AddStringToObject(o, "faster", row_name(cmp[i].faster, a, sizeof a));
        cJSON_AddStringToObject(o, "slower", row_name(cmp[i].slower, b, sizeof b));
        json_num(o, "ratio", cmp[i].ratio);
        json_num(o, "sd", cmp[i].sd);
        cJSON_AddStringToObject(o, "from", cmp[i].from_medians ? "medians" : "means");
        cJSON_AddItemToArray(cl, o);
    }
    free(cmp);
    cJSON_AddStringToObject(root, "plot", plot_note ? plot_note : "");
    char *text = cJSON_Print(root);
    cJSON_Delete(root);
    if (!text) return boids_error_set(err, BOIDS_ERR_NOMEM, "out of memory writing %s", path);
    size_t len = strlen(text);
    char *withnl = realloc(text, len + 2);
    if (!withnl) {
        free(text);
        return boids_error_set(err, BOIDS_ERR_NOMEM, "out of memory writing %s", path);
    }
    withnl[len] = '\n';
    withnl[len + 1] = '\0';
    boids_status s = bench_write_file(path, withnl, len + 1, err);
    free(withnl);
    return s;
}

/* ---- gnuplot ------------------------------------------------------------------------- */

/* 1 if an executable named prog is on PATH. */
static int on_path(const char *prog) {
    const char *path = getenv("PATH");
    if (!path) return 0;
    char dir[4096];
    while (*path) {
        size_t len = strcspn(path, ":");
        if (len > 0 && len < sizeof dir - strlen(prog) - 2) {
            memcpy(dir, path, len);
            snprintf(dir + len, sizeof dir - len, "/%s", prog);
            if (access(dir, X_OK) == 0) return 1;
        }
        path += len;
        if (*path == ':') path++;
    }
    return 0;
}

/* gnuplot strings in single quotes: a quote is doubled, and a control character (a newline
 * would end the command) becomes a space. */
static void gp_quoted(sbuf *b, const char *s) {
    sb_printf(b, "'");
    for (; *s; s++) sb_printf(b, *s == '\'' ? "''" : "%c", (unsigned char)*s < 0x20 ? ' ' : *s);
    sb_printf(b, "'");
}

/* Series: this build's backend k, k + BENCH_BACKENDS for the baseline's; plus
 * 2 BENCH_BACKENDS for the formed flock. */
enum { SERIES = 4 * BENCH_BACKENDS };

static int in_series(const bench_point *p, int series) {
    return (int)p->backend == series % BENCH_BACKENDS &&
           p->baseline == series / BENCH_BACKENDS % 2 && p->formed == series / (2 * BENCH_BACKENDS);
}

/* The series' name: the label, and " formed" for the formed flock. */
static const char *series_name(const bench_point *p, char *buf, size_t size) {
    char name[48];
    snprintf(buf, size, "%s%s", label(p, name, sizeof name), p->formed ? " formed" : "");
    return buf;
}

static int count_ok(const bench_point *pts, size_t npts, int series, int stages) {
    int n = 0;
    for (size_t i = 0; i < npts; i++)
        n += in_series(&pts[i], series) && pts[i].state == BENCH_OK &&
             (!stages || pts[i].have_stages);
    return n;
}

/* Output names are fixed and relative: bench.gp regenerates the plots in its folder, and
 * boids-bench runs it in a private folder (app_gnuplot), never pasting a path into it. The
 * title carries the load the points were taken under. */
static void gp_header(sbuf *b, const bench_config *c, const bench_machine *m, const char *file,
                      const char *what, const char *load) {
    if (c->plot_png)
        sb_printf(b, "\nset terminal pngcairo size 1200,750 enhanced font 'sans,11' "
                     "background '#ffffff'\n");
    else
        sb_printf(b, "\nset terminal svg size 960,600 dynamic enhanced font 'sans,12' "
                     "background '#ffffff'\n");
    sb_printf(b, "set output '%s.%s'\n", file, c->plot_png ? "png" : "svg");
    sb_printf(b, "set title ");
    char title[1024];
    snprintf(title, sizeof title, "%s - %s / %s", what,
             m->gl_renderer[0] ? m->gl_renderer : "no GPU", m->cpu_model);
    gp_quoted(b, title);
    sb_printf(b, ".\"\\n\".");
    gp_quoted(b, load);
    sb_printf(b, " noenhanced\n");
}

/* The title's second line: the load range, the others' CPU, the untrusted points. */
static void load_note(const bench_config *c, const bench_point *pts, size_t npts, char *out,
                      size_t size) {
    double lo, hi, others;
    int untrusted = load_range(pts, npts, &lo, &hi, &others), len = 0, measured = 0;
    for (size_t i = 0; i < npts; i++) measured += pts[i].state == BENCH_OK;
    if (lo <= hi)
        len = snprintf(out, size, "load %.2f-%.2f, ", lo, hi);
    else
        len = snprintf(out, size, "load unknown, ");
    if (!isnan(others))
        len += snprintf(out + len, size - (size_t)len, "others up to %.2f cores, ", others);
    snprintf(out + len, size - (size_t)len, "%d of %d points untrusted (hollow)%s", untrusted,
             measured, c->contend ? ", --contend" : "");
}

/* The points of series k in increasing N, measured or not, into idx; returns their count. */
static size_t series_points(const bench_point *pts, size_t npts, int k, size_t *idx) {
    size_t m = 0;
    for (size_t i = 0; i < npts; i++) {
        if (!in_series(&pts[i], k)) continue;
        size_t j = m++;
        for (; j > 0 && pts[idx[j - 1]].n > pts[i].n; j--) idx[j] = idx[j - 1];
        idx[j] = i;
    }
    return m;
}

/* The data, measured points only. One block per series ($sK): N, median, min, max, ns per
 * boid-step, trusted (1/0), speedup against this build's cpu-1t (NaN where cpu-1t was not
 * measured at that N: gnuplot draws nothing there and breaks the line); a point not measured
 * is a blank line, so no line is drawn across it. One block per series with stage times
 * ($gK): N and the six stages of each point that has them. */
static void gp_data(sbuf *b, const bench_point *pts, size_t npts) {
    size_t *idx = malloc((npts ? npts : 1) * sizeof *idx);
    if (!idx) {
        b->oom = 1;
        return;
    }
    for (int k = 0; k < SERIES; k++) {
        if (!count_ok(pts, npts, k, 0)) continue;
        size_t m = series_points(pts, npts, k, idx);
        char name[64];
        sb_printf(b, "# %s: N ms_median ms_min ms_max ns_per_boid_step trusted speedup_vs_cpu_1t\n",
                  series_name(&pts[idx[0]], name, sizeof name));
        sb_printf(b, "$s%d << EOD\n", k);
        int gap = 0, rows = 0;
        for (size_t j = 0; j < m; j++) {
            const bench_point *p = &pts[idx[j]];
            if (p->state != BENCH_OK) {
                gap = rows > 0;
                continue;
            }
            if (gap) sb_printf(b, "\n");
            gap = 0;
            rows++;
            sb_printf(b, "%zu %.6g %.6g %.6g %.6g %d", p->n, p->ms.median, p->ms.min, p->ms.max,
                      p->ns_per_boid_step, p->trusted);
            if (isnan(p->speedup[0]))
                sb_printf(b, " NaN\n");
            else
                sb_printf(b, " %.6g\n", p->speedup[0]);
        }
        sb_printf(b, "EOD\n");
        if (!count_ok(pts, npts, k, 1)) continue;
        sb_printf(b, "# %s: N", name);
        for (int s = 0; s < BENCH_STAGES; s++) sb_printf(b, " %s_ms", bench_stage_names[s]);
        sb_printf(b, "\n$g%d << EOD\n", k);
        for (size_t j = 0; j < m; j++) {
            const bench_point *p = &pts[idx[j]];
            if (p->state != BENCH_OK || !p->have_stages) continue;
            sb_printf(b, "%zu", p->n);
            for (int s = 0; s < BENCH_STAGES; s++) sb_printf(b, " %.6g", p->stage_ms[s]);
            sb_printf(b, "\n");
        }
        sb_printf(b, "EOD\n");
    }
    free(idx);
}

/* The axes every plot against N shares: log N over every size of the sweep (so that the
 * marks of points not measured are inside), log y; each point not measured is a cross at
 * the bottom, one row per backend, in its series' colour. */
static void gp_axes(sbuf *b, const bench_point *pts, size_t npts, const char *ylabel) {
    size_t lo = (size_t)-1, hi = 0;
    for (size_t i = 0; i < npts; i++) {
        if (pts[i].n < lo) lo = pts[i].n;
        if (pts[i].n > hi) hi = pts[i].n;
    }
    sb_printf(b,
              "set logscale xy\nset grid\nset key outside right top\nset format x '10^{%%L}'\n"
              "set xrange [%g:%g]\nset xlabel 'boids N'\nset ylabel '%s'\nunset label\n",
              (double)lo / 1.5, (double)hi * 1.5, ylabel);
    for (size_t i = 0; i < npts; i++)
        if (pts[i].state != BENCH_OK)
            sb_printf(b, "set label '' at first %zu, graph %.3f point pt 2 ps 1.5 lc %d\n",
                      pts[i].n, 0.03 + 0.025 * (int)pts[i].backend, (int)pts[i].backend + 1);
}

/* The plot command for column y (a gnuplot expression) of every series: a line through
 * all points (dashed for the baseline), filled markers for trusted points, hollow ones for
 * untrusted, and with bars the min..max spread; then the key's entries for the markers. */
static void gp_series(sbuf *b, const bench_point *pts, size_t npts, const char *y, int bars) {
    sb_printf(b, "plot");
    const char *sep = " ";
    for (int k = 0; k < SERIES; k++) {
        if (!count_ok(pts, npts, k, 0)) continue;
        int lc = k % BENCH_BACKENDS + 1, dt = 1 + k / BENCH_BACKENDS; /* 1 2, formed 3 4 */
        if (bars) {
            sb_printf(b, "%s$s%d using 1:2:3:4 with yerrorbars ps 0 lc %d notitle", sep, k, lc);
            sep = ", \\\n    ";
        }
        sb_printf(b, "%s$s%d using 1:%s with lines lw 2 lc %d dt %d title '%s%s%s' noenhanced", sep,
                  k, y, lc, dt, bench_backend_name((bench_backend)(k % BENCH_BACKENDS)),
                  k / BENCH_BACKENDS % 2 ? "@baseline" : "",
                  k >= 2 * BENCH_BACKENDS ? " formed" : "");
        sep = ", \\\n    ";
        sb_printf(b,
                  "%s$s%d using 1:($6 > 0 ? %s : 1/0) with points pt 7 ps 0.8 lc %d notitle"
                  "%s$s%d using 1:($6 > 0 ? 1/0 : %s) with points pt 6 ps 1.5 lc %d notitle",
                  sep, k, y, lc, sep, k, y, lc);
    }
    sb_printf(b, "%sNaN with points pt 6 ps 1.5 lc rgb 'black' title 'untrusted'", sep);
    int skipped = 0;
    for (size_t i = 0; i < npts; i++) skipped |= pts[i].state != BENCH_OK;
    if (skipped)
        sb_printf(b, "%sNaN with points pt 2 ps 1.5 lc rgb 'black' title 'not measured'", sep);
    sb_printf(b, "\n");
}

/* Time per step (log-log, bars span min..max), cost per boid-step (flat means linear
 * scaling) and, when cpu-1t was measured, the speedup against it, every series. Returns 1
 * if the speedup plot was drawn. */
static int gp_time_cost(sbuf *b, const bench_config *c, const bench_machine *m,
                        const bench_point *pts, size_t npts, const char *load) {
    gp_header(b, c, m, "bench_time", "boids-bench: time per step", load);
    gp_axes(b, pts, npts, "ms per step (median; bars min..max)");
    gp_series(b, pts, npts, "($2)", 1);
    gp_header(b, c, m, "bench_cost", "boids-bench: cost per boid-step", load);
    gp_axes(b, pts, npts, "ns per boid-step (median)");
    gp_series(b, pts, npts, "($5)", 0);
    if (!count_ok(pts, npts, BENCH_CPU_1T, 0)) return 0;
    gp_header(b, c, m, "bench_speedup", "boids-bench: speedup against cpu-1t of this build", load);
    gp_axes(b, pts, npts, "time of cpu-1t / time of the backend (median)");
    sb_printf(b, "set arrow from graph 0, first 1 to graph 1, first 1 nohead dt 3 lc rgb "
                 "'#808080'\n");
    gp_series(b, pts, npts, "($7)", 0);
    sb_printf(b, "unset arrow\n");
    return 1;
}

/* GPU stage breakdown, one panel per GPU mode measured: stacked bars per N. Returns 1 if
 * there was a panel to draw. */
static int gp_stages(sbuf *b, const bench_config *c, const bench_machine *m, const bench_point *pts,
                     size_t npts, const char *load) {
    int panels =
        (count_ok(pts, npts, BENCH_GPU, 1) > 0) + (count_ok(pts, npts, BENCH_GPU_DET, 1) > 0);
    if (!panels) return 0;
    gp_header(b, c, m, "bench_stages", "boids-bench: GPU time per stage", load);
    sb_printf(b,
              "unset title\nunset logscale\nunset label\nset autoscale x\nset format x '%%g'\n"
              "set multiplot layout 1,%d title ",
              panels);
    char title[768];
    const char *source = "";
    for (size_t i = 0; i < npts && !source[0]; i++)
        if (pts[i].state == BENCH_OK && pts[i].have_stages) source = pts[i].stage_source;
    snprintf(title, sizeof title, "GPU time per stage (%s) - %s",
             strcmp(source, "gl-timer") ? "CPU clock, glFinish around each stage"
                                        : "GL time-elapsed queries",
             m->gl_renderer[0] ? m->gl_renderer : "no GPU");
    gp_quoted(b, title);
    sb_printf(b, "\nset style data histograms\nset style histogram rowstacked\n"
                 "set style fill solid 0.8 border -1\nset boxwidth 0.7\nset grid y\n"
                 "set key outside bottom center horizontal\nset ylabel 'ms per step'\n"
                 "set xlabel 'boids N'\n");
    for (int k = BENCH_GPU; k <= BENCH_GPU_DET; k++) {
        if (!count_ok(pts, npts, k, 1)) continue;
        sb_printf(b, "set title '%s'\nplot", bench_backend_name((bench_backend)k));
        for (int s = 0; s < BENCH_STAGES; s++)
            sb_printf(b, "%s$g%d using %d:xtic(1) title '%s'", s ? ", \\\n    " : " ", k, 2 + s,
                      bench_stage_names[s]);
        sb_printf(b, "\n");
    }
    sb_printf(b, "unset multiplot\n");
    return 1;
}

/* Runs the script on the plots it names (n of stems) and writes them into dir through the
 * atomic writer. */
static boids_status run_plots(const char *dir, const char *script, int png,
                              const char *const *stems, int n, boids_error *err) {
    char names[4][32], targets[4][4096];
    const char *np[4], *tp[4];
    for (int i = 0; i < n; i++) {
        snprintf(names[i], sizeof names[i], "%s.%s", stems[i], png ? "png" : "svg");
        snprintf(targets[i], sizeof targets[i], "%s/%s", dir, names[i]);
        np[i] = names[i];
        tp[i] = targets[i];
    }
    return app_gnuplot(script, (size_t)n, np, tp, err);
}

boids_status bench_plot(const char *dir, const bench_config *c, const bench_machine *m,
                        const bench_point *pts, size_t npts, char *note, size_t note_size,
                        boids_error *err) {
    int nplots = 0;
    for (int k = 0; k < SERIES; k++) nplots += count_ok(pts, npts, k, 0) > 0;
    if (!nplots) {
        snprintf(note, note_size, "no plot: no point was measured");
        return BOIDS_OK;
    }
    sbuf b = {0};
    sb_printf(&b, "# boids-bench plots; regenerate with: gnuplot bench.gp (in this folder)\n");
    gp_data(&b, pts, npts);
    char load[256];
    load_note(c, pts, npts, load, sizeof load);
    const char *stems[4] = {"bench_time", "bench_cost"};
    int n = 2;
    if (gp_time_cost(&b, c, m, pts, npts, load)) stems[n++] = "bench_speedup";
    if (gp_stages(&b, c, m, pts, npts, load)) stems[n++] = "bench_stages";
    const char *ext = c->plot_png ? "png" : "svg";
    char made[160] = "", path[4096];
    for (int i = 0; i < n; i++) {
        size_t len = strlen(made);
        snprintf(made + len, sizeof made - len, "%s%s.%s", i ? ", " : "", stems[i], ext);
    }
    /* The script is kept beside the plots; sb_write frees it, so run gnuplot on a copy. */
    char *script = b.oom ? NULL : strdup(b.s);
    snprintf(path, sizeof path, "%s/bench.gp", dir);
    boids_status s = sb_write(&b, path, err);
    if (!s && !script) s = boids_error_set(err, BOIDS_ERR_NOMEM, "out of memory writing %s", path);
    if (!s && !on_path("gnuplot")) {
        snprintf(note, note_size,
                 "no plot: gnuplot is not on PATH (install gnuplot-nox, then run "
                 "`gnuplot bench.gp` in %s)",
                 dir);
    } else if (!s && (s = run_plots(dir, script, c->plot_png, stems, n, err))) {
        snprintf(note, note_size, "%s", err->msg);
    } else if (!s) {
        snprintf(note, note_size, "%s (gnuplot, from bench.gp)", made);
    }
    free(script);
    return s;
}
