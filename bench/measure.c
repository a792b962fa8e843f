/* SPDX-License-Identifier: MIT */
/* boids-bench: measuring one point (one backend at one N).
 *
 * Every repetition starts from the same initial state (upload, then one untimed step that
 * absorbs first-touch costs after the upload), then times K steps, fenced with glFinish on
 * the GPU. Restarting keeps every backend and repetition on the same stretch of the flock's
 * life: left running, boids gather into flocks, neighbour counts grow and a later
 * repetition would measure a different workload. K is chosen from a calibration step so
 * that one repetition lasts about --rep-ms, and capped by --max-steps for the same reason. */
#define _GNU_SOURCE /* sched_setaffinity, CPU_SET, prctl: --contend pins its busy loop */
#include <errno.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <string.h>
#include <time.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include <glad/gl.h>

#include "boids/gpu.h"

#include "bench.h"
#include "clock.h"
#include "cpu_ref.h"

static boids_backend *create(bench_backend kind, const boids_flock *f, int threads, int timing,
                             boids_error *err) {
    switch (kind) {
    case BENCH_CPU_REF: {
        boids_backend *b = boids_cpu_ref_create(f, err);
        if (b) boids_cpu_ref_set_threads(b, threads);
        return b;
    }
    case BENCH_CPU_1T:
        return boids_cpu_create(f, 1, err);
    case BENCH_CPU_ALL:
        return boids_cpu_create(f, threads, err);
    case BENCH_GPU:
    case BENCH_GPU_DET:
    case BENCH_GPU_FUSED:
    case BENCH_GPU_FUSED_DET: {
        boids_gpu_options opt = boids_gpu_options_default();
        opt.deterministic = bench_backend_is_det(kind);
        opt.variant = (boids_gpu_variant)bench_backend_variant(kind);
        opt.timing = timing;
        return boids_gpu_create(NULL, f, &opt, err);
    }
    case BENCH_BACKENDS:
        break;
    }
    boids_error_set(err, BOIDS_ERR_INPUT, "unknown backend");
    return NULL;
}

/* The backend of kind holding f, stepping with the config file's points and obstacles. */
static boids_backend *make(const bench_config *c, bench_backend kind, const boids_flock *f,
                           int threads, int timing, boids_error *err) {
    boids_backend *b = create(kind, f, threads, timing, err);
    if (b && boids_backend_set_interact(b, &c->inter, err)) {
        boids_backend_destroy(b);
        return NULL;
    }
    return b;
}

/* Waits until the backend's work is done: the CPU paths return when it is. */
static void finish(bench_backend kind) {
    if (bench_backend_is_gpu(kind)) glFinish();
}

typedef struct rep {
    double wall_s, cpu_s;
    double stage_ms[BENCH_STAGES];      /* per step, GL_TIME_ELAPSED (timing on) */
    double stage_wall_ms[BENCH_STAGES]; /* per step, glFinish fences on the CPU clock */
} rep;

static boids_status run_rep(boids_backend *b, bench_backend kind, const boids_params *p,
                            const boids_flock *init, unsigned steps, int timing, rep *r,
                            boids_error *err) {
    boids_status s;
    if ((s = boids_backend_upload(b, init, err))) return s;
    if ((s = boids_backend_step(b, p, 1, err))) return s;
    finish(kind);
    if (timing) boids_gpu_timings_reset(b);
    double c0 = cpu_seconds(), t0 = mono_seconds();
    if ((s = boids_backend_step(b, p, steps, err))) return s;
    finish(kind);
    double t1 = mono_seconds(), c1 = cpu_seconds();
    r->wall_s = t1 - t0;
    r->cpu_s = c1 - c0;
    memset(r->stage_ms, 0, sizeof r->stage_ms);
    memset(r->stage_wall_ms, 0, sizeof r->stage_wall_ms);
    if (timing) {
        boids_gpu_timing t = boids_gpu_timings(b);
        for (int i = 0; i < BENCH_STAGES && i < BOIDS_GPU_STAGES; i++) {
            r->stage_ms[i] = t.steps ? t.ms[i] / (double)t.steps : 0.0;
            r->stage_wall_ms[i] = t.steps ? t.wall_ms[i] / (double)t.steps : 0.0;
        }
    }
    return BOIDS_OK;
}

/* Runs warm-up and timed repetitions of `steps` steps; fills wall (ms per step), what the
 * machine did during the timed ones (usage, when not NULL) and, when timing, the medians of
 * the stage times by GL queries and by glFinish fences. */
static boids_status run_reps(boids_backend *b, bench_backend kind, const boids_params *p,
                             const boids_flock *init, unsigned steps, unsigned warmup,
                             unsigned reps, int timing, double *wall_ms, double *cpu_util,
                             bench_usage *usage, double stage_ms[BENCH_STAGES],
                             double stage_wall_ms[BENCH_STAGES], boids_error *err) {
    rep r;
    boids_status s;
    for (unsigned i = 0; i < warmup; i++)
        if ((s = run_rep(b, kind, p, init, steps, timing, &r, err))) return s;
    double stage[BENCH_STAGES][BENCH_MAX_REPS], fenced[BENCH_STAGES][BENCH_MAX_REPS];
    double wall_sum = 0.0, cpu_sum = 0.0;
    static bench_sample before, after; /* 8 KB each; one point is measured at a time */
    if (usage) bench_sample_take(&before);
    for (unsigned i = 0; i < reps; i++) {
        if ((s = run_rep(b, kind, p, init, steps, timing, &r, err))) return s;
        wall_ms[i] = 1e3 * r.wall_s / steps;
        wall_sum += r.wall_s;
        cpu_sum += r.cpu_s;
        for (int k = 0; k < BENCH_STAGES; k++) {
            stage[k][i] = r.stage_ms[k];
            fenced[k][i] = r.stage_wall_ms[k];
        }
    }
    if (usage) {
        bench_sample_take(&after);
        bench_usage_of(&before, &after, 0.0, usage);
    }
    if (cpu_util) *cpu_util = wall_sum > 0.0 ? cpu_sum / wall_sum : NAN;
    if (stage_ms)
        for (int k = 0; k < BENCH_STAGES; k++) {
            stage_ms[k] = bench_stats_of(stage[k], reps).median;
            stage_wall_ms[k] = bench_stats_of(fenced[k], reps).median;
        }
    return BOIDS_OK;
}

/* Bytes of host heap in use (NAN where the C library cannot say). */
static double heap_bytes(void) {
#if defined(__GLIBC__) && (__GLIBC__ > 2 || __GLIBC_MINOR__ >= 33)
    struct mallinfo2 mi = mallinfo2();
    return (double)mi.uordblks + (double)mi.hblkhd;
#else
    return NAN;
#endif
}

/* The timed repetitions' usage into pt: the threads that really ran (the cpu path runs
 * small steps on one thread whatever it was given; a GPU point's are the driver's, e.g.
 * llvmpipe's workers), capped for a CPU backend at the threads it was given; then the
 * verdict. */
static void record_usage(bench_point *pt, const bench_usage *u) {
    int gpu = bench_backend_is_gpu(pt->backend);
    if (u->busy_threads > 0 && (gpu || u->busy_threads < pt->threads))
        pt->threads = u->busy_threads;
    pt->load1 = u->load_before;
    pt->load1_end = u->load_after;
    pt->others_cpu = u->others_cpu;
    pt->utilisation = pt->threads > 0 ? pt->cpu_util / pt->threads : NAN;
    bench_point_judge(pt);
}

void bench_measure(const bench_config *c, bench_point *pt, const boids_params *p,
                   const boids_flock *init) {
    boids_error err;
    boids_error_clear(&err);
    int threads = c->threads;
#ifdef _OPENMP
    if (threads <= 0) threads = omp_get_max_threads();
#else
    threads = 1;
#endif
    pt->threads = pt->backend == BENCH_CPU_1T ? 1 : bench_backend_is_gpu(pt->backend) ? 0 : threads;
    double heap0 = heap_bytes();
    boids_backend *b = make(c, pt->backend, init, threads, 0, &err);
    boids_status s = b ? BOIDS_OK : err.status;
    double t1 = 0.0;
    if (!s) {
        /* Calibration: one step to settle, one timed. */
        rep r;
        if (!(s = run_rep(b, pt->backend, p, init, 1, 0, &r, &err))) t1 = r.wall_s;
        pt->host_bytes_per_boid = (heap_bytes() - heap0) / (double)pt->n;
        pt->gpu_bytes_per_boid = 0.0;
        if (bench_backend_is_gpu(pt->backend))
            pt->gpu_bytes_per_boid = (double)boids_gpu_bytes(b) / (double)pt->n;
    }
    if (!s) {
        double k = ceil(c->rep_ms * 1e-3 / (t1 > 0.0 ? t1 : 1e-9));
        pt->steps_per_rep = (unsigned)(k < 1.0 ? 1.0 : k > c->max_steps ? c->max_steps : k);
        pt->warmup = c->warmup;
        pt->reps = c->reps;
        /* A slow point (cpu-ref at large N) gets fewer repetitions rather than blowing the
         * budget: at least 3, so that a median and a spread still exist. */
        double per_rep = t1 * (pt->steps_per_rep + 1);
        while (pt->reps > 3 && per_rep * (pt->reps + pt->warmup) > c->budget_s) pt->reps--;
        while (pt->warmup > 1 && per_rep * (pt->reps + pt->warmup) > c->budget_s) pt->warmup--;
        double wall[BENCH_MAX_REPS];
        bench_usage u;
        s = run_reps(b, pt->backend, p, init, pt->steps_per_rep, pt->warmup, pt->reps, 0, wall,
                     &pt->cpu_util, &u, NULL, NULL, &err);
        if (!s) {
            memcpy(pt->times, wall, pt->reps * sizeof *wall);
            pt->ntimes = pt->reps;
            pt->ms = bench_stats_of(wall, pt->reps);
        }
        if (!s) record_usage(pt, &u);
    }
    if (!s && bench_backend_is_gpu(pt->backend)) {
        boids_gpu_grid(b, &pt->ncx, &pt->ncy);
        /* Stage times come from a second instance with timer queries on: they wait for
         * their results after each step, which would inflate the wall time above. */
        boids_backend_destroy(b);
        b = make(c, pt->backend, init, threads, 1, &err);
        if (!b) s = err.status;
        /* The backend times each stage both ways in the same run: GL_TIME_ELAPSED queries
         * and glFinish fences around the stage on the CPU clock. The fences are the fallback
         * where the queries are implausible, as on llvmpipe, which answers them with ~1 ns. */
        double wall[BENCH_MAX_REPS] = {0}, stage[BENCH_STAGES] = {0},
               stage_wall[BENCH_STAGES] = {0};
        if (!s)
            s = run_reps(b, pt->backend, p, init, pt->steps_per_rep, 1, pt->reps, 1, wall, NULL,
                         NULL, stage, stage_wall, &err);
        double sum = 0.0;
        for (int k = 0; k < BENCH_STAGES; k++) sum += stage[k];
        pt->gl_stage_sum_ms = sum;
        int fenced = c->stage_timer == BENCH_TIMER_FENCED ||
                     (c->stage_timer == BENCH_TIMER_AUTO &&
                      sum < 0.05 * bench_stats_of(wall, pt->reps).median && sum < 0.002);
        if (fenced) memcpy(stage, stage_wall, sizeof stage);
        if (!s && fenced >= 0) {
            pt->have_stages = 1;
            pt->stage_source = fenced ? "cpu-fenced" : "gl-timer";
            memcpy(pt->stage_ms, stage, sizeof stage);
            pt->timed_wall_ms = bench_stats_of(wall, pt->reps).median;
        }
    }
    boids_backend_destroy(b);
    if (s) {
        pt->state = BENCH_FAILED;
        snprintf(pt->reason, sizeof pt->reason, "%s", err.msg);
    } else {
        pt->state = BENCH_OK;
    }
}

long bench_contend_start(boids_error *err) {
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set)) {
        boids_error_set(err, BOIDS_ERR_RUNTIME, "--contend: sched_getaffinity: %s",
                        strerror(errno));
        return -1;
    }
    int core = -1;
    for (int i = 0; i < CPU_SETSIZE; i++)
        if (CPU_ISSET(i, &set)) core = i;
    fflush(NULL); /* the child must not write this process's buffered output again */
    const pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0) {
        boids_error_set(err, BOIDS_ERR_RUNTIME, "--contend: fork: %s", strerror(errno));
        return -1;
    }
    if (pid == 0) {
        /* Dies with the benchmark, even if that is killed. */
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent) _exit(0);
        CPU_ZERO(&set);
        CPU_SET(core, &set);
        sched_setaffinity(0, sizeof set, &set);
        volatile unsigned long spin = 0;
        for (;;) spin++;
    }
    return (long)pid;
}

void bench_contend_stop(long pid) {
    if (pid <= 0) return;
    kill((pid_t)pid, SIGKILL);
    waitpid((pid_t)pid, NULL, 0);
}
