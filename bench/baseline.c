/* SPDX-License-Identifier: MIT */
/* boids-bench --baseline: another build's boids-bench times the same points, one at a time,
 * alternating with this build, so that both see the same machine and the same load.
 *
 * The other build may be older than this one: it is driven only through options every
 * boids-bench since the CSV output has (--sizes, --backends, --out, --no-plot, the timing
 * and parameter options), and read through its bench.csv by column name, so that columns it
 * lacks are simply unknown. Its --help is read once to check that it takes every option the
 * run forwards. */
#define _GNU_SOURCE /* wait4 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"
#include "cli/cli.h"

/* Appends a copy of text to the forwarded options. */
static void fwd_add(bench_forward *f, const char *text) {
    size_t len = strlen(text) + 1;
    if (f->n + 1 >= BENCH_FWD_MAX || f->used + len > sizeof f->pool) {
        f->overflow = 1;
        return;
    }
    memcpy(f->pool + f->used, text, len);
    f->arg[f->n++] = f->pool + f->used;
    f->arg[f->n] = NULL;
    f->used += len;
}

static void fwd_pair(bench_forward *f, const char *flag, const char *fmt, double v) {
    char buf[64];
    snprintf(buf, sizeof buf, fmt, v);
    fwd_add(f, flag);
    fwd_add(f, buf);
}

void bench_forward_build(bench_forward *f, const bench_config *c, const app_opts *o) {
    memset(f, 0, sizeof *f);
    fwd_pair(f, "--reps", "%.0f", c->reps);
    fwd_pair(f, "--warmup", "%.0f", c->warmup);
    fwd_pair(f, "--rep-ms", "%.17g", c->rep_ms);
    fwd_pair(f, "--max-steps", "%.0f", c->max_steps);
    fwd_pair(f, "--budget", "%.17g", c->budget_s);
    char seed[32];
    snprintf(seed, sizeof seed, "%llu", c->seed);
    fwd_add(f, "--seed");
    fwd_add(f, seed);
    const char *text[][2] = {{"--preset", o->preset},
                             {"--config", o->config},
                             {"--model", o->model},
                             {"--neighbours", o->neighbours},
                             {"-k", o->k}};
    for (size_t i = 0; i < sizeof text / sizeof text[0]; i++)
        if (text[i][1]) fwd_add(f, text[i][0]), fwd_add(f, text[i][1]);
    for (int i = 0; i < o->nsets; i++) fwd_add(f, "--set"), fwd_add(f, o->sets[i]);
    if (c->threads > 0) fwd_pair(f, "--threads", "%.0f", c->threads);
    if (c->fixed_world) fwd_add(f, "--fixed-world");
    /* --age goes with each formed point (bench_baseline_point): the steps this build aged
     * that point's flock. */
    if (c->stage_timer != BENCH_TIMER_AUTO) {
        fwd_add(f, "--stage-timer");
        fwd_add(f, c->stage_timer == BENCH_TIMER_GL ? "gl" : "fenced");
    }
}

/* Runs argv with stdout to out_path (or /dev/null) and stderr to err_path; returns the wait
 * status, or -1 with errno; child_cpu_s gets its CPU time. */
static int run_child(char *const argv[], const char *out_path, const char *err_path,
                     double *child_cpu_s) {
    fflush(NULL); /* the child must not write this process's buffered output again */
    pid_t pid = fork();
    if (pid < 0) return -1;
    if (pid == 0) {
        int out = open(out_path ? out_path : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0600);
        int errfd = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (out < 0 || errfd < 0 || dup2(out, 1) < 0 || dup2(errfd, 2) < 0) _exit(127);
        execv(argv[0], argv);
        fprintf(stderr, "cannot run %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    int status;
    struct rusage ru;
    while (wait4(pid, &status, 0, &ru) < 0)
        if (errno != EINTR) return -1;
    *child_cpu_s = (double)ru.ru_utime.tv_sec + 1e-6 * (double)ru.ru_utime.tv_usec +
                   (double)ru.ru_stime.tv_sec + 1e-6 * (double)ru.ru_stime.tv_usec;
    return status;
}

/* A private folder for one run of the baseline, and its removal with what it holds. */
static int make_tmp(char *dir, size_t size) {
    const char *t = getenv("TMPDIR");
    snprintf(dir, size, "%s/boids-bench-baseline-XXXXXX", t && *t ? t : "/tmp");
    return mkdtemp(dir) ? 0 : -1;
}

static void remove_tmp(const char *dir) {
    DIR *d = opendir(dir);
    if (d) {
        struct dirent *e;
        char path[4096];
        while ((e = readdir(d)))
            if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
                snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
                unlink(path);
            }
        closedir(d);
    }
    rmdir(dir);
}

/* The whole of a small file, NUL-terminated (NULL if unreadable or over 1 MiB). */
static char *slurp(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    char *s = malloc((1 << 20) + 1);
    size_t len = s ? fread(s, 1, 1 << 20, f) : 0;
    int whole = s && feof(f);
    fclose(f);
    if (!whole) {
        free(s);
        return NULL;
    }
    s[len] = '\0';
    return s;
}

/* The last non-empty line of text, into out: what a failed child said last. */
static void last_line(const char *text, char *out, size_t size) {
    const char *end = text + strlen(text);
    while (end > text && (end[-1] == '\n' || end[-1] == '\r')) end--;
    const char *start = end;
    while (start > text && start[-1] != '\n') start--;
    snprintf(out, size, "%.*s", (int)(end - start), start);
}

boids_status bench_baseline_check(const char *path, bench_forward *f, boids_error *err) {
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode) || access(path, X_OK) != 0)
        return boids_error_set(err, BOIDS_ERR_INPUT, "--baseline %s: not an executable file", path);
    if (f->overflow)
        return boids_error_set(err, BOIDS_ERR_INPUT, "--baseline: too many options to forward");
    char dir[4096], out[4200], log[4200];
    if (make_tmp(dir, sizeof dir))
        return boids_error_set(err, BOIDS_ERR_RUNTIME, "--baseline: cannot make a folder in %s: %s",
                               getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", strerror(errno));
    snprintf(out, sizeof out, "%s/help.txt", dir);
    snprintf(log, sizeof log, "%s/stderr.txt", dir);
    char *argv[] = {(char *)path, "--help", NULL};
    double cpu;
    int status = run_child(argv, out, log, &cpu);
    char *help = status == 0 ? slurp(out) : NULL;
    remove_tmp(dir);
    if (!help)
        return boids_error_set(err, BOIDS_ERR_INPUT,
                               "--baseline %s: `--help` failed, so it is not a boids-bench", path);
    static const char *const needed[] = {"--sizes", "--backends", "--out", "--no-plot", "--age"};
    f->flocks = strstr(help, "--flocks") != NULL;
    const char *missing = NULL;
    for (size_t i = 0; i < sizeof needed / sizeof needed[0] && !missing; i++)
        if (!strstr(help, needed[i])) missing = needed[i];
    for (int i = 0; i < f->n && !missing; i++)
        if (f->arg[i][0] == '-' && (i == 0 || strcmp(f->arg[i - 1], "--set")) &&
            !strstr(help, f->arg[i]))
            missing = f->arg[i];
    if (missing) {
        boids_error_set(err, BOIDS_ERR_INPUT,
                        "--baseline %s: its --help lists no %s, which this run needs", path,
                        missing);
    }
    free(help);
    return missing ? BOIDS_ERR_INPUT : BOIDS_OK;
}

/* ---- the baseline's bench.csv ------------------------------------------------------------ */

/* Splits the next CSV record of *pos in place (quotes removed, "" unescaped) into at most
 * max fields; returns their number, 0 at the end of the text. */
static int csv_record(char **pos, char **field, int max) {
    char *s = *pos;
    if (!*s) return 0;
    int n = 0;
    for (;;) {
        char *out = s, *start = s;
        if (*s == '"') {
            for (s++; *s && !(*s == '"' && s[1] != '"'); s++) *out++ = *s == '"' ? *++s : *s;
            if (*s == '"') s++;
        }
        while (*s && *s != ',' && *s != '\n' && *s != '\r') *out++ = *s++;
        char end = *s;
        *out = '\0';
        if (n < max) field[n++] = start;
        if (end == ',') {
            s++;
            continue;
        }
        if (end) s++; /* the NUL above may stand where the line's end was */
        while (*s == '\r' || *s == '\n') s++;
        *pos = s;
        return n;
    }
}

enum { CSV_MAX = 128 };

typedef struct csv_row {
    char *name[CSV_MAX], *value[CSV_MAX];
    int n;
} csv_row;

static const char *csv_get(const csv_row *r, const char *name) {
    for (int i = 0; i < r->n; i++)
        if (!strcmp(r->name[i], name)) return r->value[i];
    return NULL;
}

/* A number of the row, NAN when the column is absent or empty. */
static double csv_num(const csv_row *r, const char *name) {
    const char *v = csv_get(r, name);
    char *end;
    double x = v && *v ? strtod(v, &end) : NAN;
    return v && *v && !*end ? x : NAN;
}

/* The row of backend name in the CSV text (modified in place); 0 if none. */
static int csv_find(char *text, const char *name, csv_row *r) {
    char *pos = text;
    r->n = csv_record(&pos, r->name, CSV_MAX);
    char *value[CSV_MAX];
    int n;
    while ((n = csv_record(&pos, value, CSV_MAX)) > 0) {
        if (n != r->n || strcmp(value[0], name)) continue;
        memcpy(r->value, value, sizeof value);
        return 1;
    }
    return 0;
}

/* pt's measured fields from the baseline's row; the trust fields from its own columns
 * where it has them (a build with them measured them over the timed repetitions only),
 * else from u, what this process saw around the whole child. */
static void from_row(bench_point *pt, const csv_row *r, const bench_usage *u) {
    const char *state = csv_get(r, "state"), *reason = csv_get(r, "reason");
    pt->state = state && !strcmp(state, "ok")        ? BENCH_OK
                : state && !strcmp(state, "skipped") ? BENCH_SKIPPED
                                                     : BENCH_FAILED;
    snprintf(pt->reason, sizeof pt->reason, "%s%s",
             pt->state == BENCH_OK ? "" : "baseline: ", reason ? reason : "");
    double threads = csv_num(r, "threads");
    pt->threads = isnan(threads) ? 0 : (int)threads;
    if (pt->state != BENCH_OK) return;
    pt->steps_per_rep = (unsigned)csv_num(r, "steps_per_rep");
    pt->reps = (unsigned)csv_num(r, "reps");
    pt->warmup = (unsigned)csv_num(r, "warmup");
    pt->ms = (bench_stats){csv_num(r, "ms_median"),
                           csv_num(r, "ms_q1"),
                           csv_num(r, "ms_q3"),
                           csv_num(r, "ms_min"),
                           csv_num(r, "ms_max"),
                           NAN,
                           NAN};
    /* Every repetition's time, the mean and the sd: unknown (ntimes 0, NAN) where an older
     * baseline lacks the columns. */
    pt->ms.mean = csv_num(r, "ms_mean");
    pt->ms.sd = csv_num(r, "ms_sd");
    pt->ntimes = 0;
    const char *times = csv_get(r, "times_ms");
    for (char *end; times && pt->ntimes < BENCH_MAX_REPS; times = end) {
        double v = strtod(times, &end);
        if (end == times) break;
        pt->times[pt->ntimes++] = v;
    }
    pt->cpu_util = csv_num(r, "cpu_util");
    pt->gpu_bytes_per_boid = csv_num(r, "gpu_bytes_per_boid");
    pt->host_bytes_per_boid = csv_num(r, "host_bytes_per_boid");
    pt->have_stages = !isnan(csv_num(r, "gpu_steer_ms"));
    for (int k = 0; k < BENCH_STAGES && pt->have_stages; k++) {
        char col[32];
        snprintf(col, sizeof col, "gpu_%s_ms", bench_stage_names[k]);
        pt->stage_ms[k] = csv_num(r, col);
    }
    const char *src = csv_get(r, "gpu_stage_source");
    pt->stage_source = src && !strcmp(src, "gl-timer") ? "gl-timer" : "cpu-fenced";
    pt->timed_wall_ms = csv_num(r, "gpu_timed_wall_ms");
    pt->gl_stage_sum_ms = csv_num(r, "gpu_gl_query_sum_ms");
    pt->load1 = u->load_before;
    pt->load1_end = u->load_after;
    double others = csv_num(r, "others_cpu"), util = csv_num(r, "utilisation");
    pt->others_cpu = !isnan(others) ? others : u->others_cpu;
    pt->utilisation = !isnan(util) ? util : pt->threads > 0 ? pt->cpu_util / pt->threads : NAN;
    bench_point_judge(pt);
}

void bench_baseline_point(const char *path, const bench_forward *f, bench_point *pt) {
    pt->baseline = 1;
    pt->state = BENCH_FAILED;
    char dir[4096], csv[4200], log[4200], n[32];
    if (make_tmp(dir, sizeof dir)) {
        snprintf(pt->reason, sizeof pt->reason, "baseline: cannot make a folder: %s",
                 strerror(errno));
        return;
    }
    snprintf(csv, sizeof csv, "%s/bench.csv", dir);
    snprintf(log, sizeof log, "%s/stderr.txt", dir);
    snprintf(n, sizeof n, "%zu", pt->n);
    const char *argv[BENCH_FWD_MAX + 16] = {
        path,        "--sizes", n,  "--backends", bench_backend_name(pt->backend),
        "--no-plot", "--out",   dir};
    int argc = 8;
    for (int i = 0; i < f->n; i++) argv[argc++] = f->arg[i];
    /* The point's flock: the formed one by the steps this build aged it (a boids-bench with
     * --flocks then times that flock only), the random start by --flocks random where the
     * baseline knows it (older ones time only the random start). */
    char age[32];
    snprintf(age, sizeof age, "%lu", pt->age);
    if (pt->formed) {
        argv[argc++] = "--age";
        argv[argc++] = age;
    } else if (f->flocks) {
        argv[argc++] = "--flocks";
        argv[argc++] = "random";
    }
    argv[argc] = NULL;
    static bench_sample before, after; /* 8 KB each; one point runs at a time */
    bench_sample_take(&before);
    double child_cpu = 0.0;
    int status = run_child((char *const *)argv, NULL, log, &child_cpu);
    bench_sample_take(&after);
    bench_usage u;
    bench_usage_of(&before, &after, child_cpu, &u);
    char *text = slurp(csv), *said = slurp(log);
    csv_row r;
    char last[512] = "";
    if (said) last_line(said, last, sizeof last);
    if (status < 0)
        snprintf(pt->reason, sizeof pt->reason, "baseline: cannot run %s: %s", path,
                 strerror(errno));
    else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || !text)
        snprintf(pt->reason, sizeof pt->reason, "baseline: %s %d%s%.500s",
                 WIFEXITED(status) ? "exit status" : "killed by signal",
                 WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status), last[0] ? ": " : "",
                 last);
    else if (!csv_find(text, bench_backend_name(pt->backend), &r))
        snprintf(pt->reason, sizeof pt->reason, "baseline: its bench.csv has no %s row",
                 bench_backend_name(pt->backend));
    else
        from_row(pt, &r, &u);
    free(text);
    free(said);
    remove_tmp(dir);
}
