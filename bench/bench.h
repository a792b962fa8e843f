/* SPDX-License-Identifier: MIT */
/* boids-bench internals: the sweep's points, their statistics, and the writers.
 *
 * A point is one (backend, N) pair. It is measured, skipped before running (with the
 * reason: too slow by estimate, too big for the GPU or host memory, world beyond the
 * parameter limits) or failed while running (with the backend's message). */
#ifndef BOIDS_BENCH_H
#define BOIDS_BENCH_H

#include <stddef.h>

#include "boids/backend.h"
#include "boids/error.h"
#include "boids/flock.h"
#include "boids/params.h"

/* The backends of the sweep, in table order. */
typedef enum bench_backend {
    BENCH_CPU_REF,       /* exact O(N^2) reference */
    BENCH_CPU_1T,        /* grid path on one thread */
    BENCH_CPU_ALL,       /* grid path on every thread (or --threads) */
    BENCH_GPU,           /* compute shaders, atomic ranks (fast mode) */
    BENCH_GPU_DET,       /* compute shaders with the per-cell sort (deterministic mode) */
    BENCH_GPU_FUSED,     /* variant fused (boids_gpu_variant): the steer counts the next step */
    BENCH_GPU_FUSED_DET, /* the same in deterministic mode */
    BENCH_BACKENDS
} bench_backend;

/* The GPU stages, mirrored from boids_gpu_stage so that a build without the GPU backend
 * still writes the same columns. */
enum { BENCH_STAGES = 6 };
extern const char *const bench_stage_names[BENCH_STAGES]; /* clear count scan scatter sort steer */

const char *bench_backend_name(bench_backend b);
int bench_backend_is_gpu(bench_backend b);
/* GPU backends: 1 for deterministic mode; and the pipeline variant (a boids_gpu_variant). */
int bench_backend_is_det(bench_backend b);
int bench_backend_variant(bench_backend b);

/* Median, quartiles (linear interpolation between order statistics) and extremes; the mean
 * and the sample standard deviation (n - 1; 0 for one value), as hyperfine reports them. */
typedef struct bench_stats {
    double median, q1, q3, min, max;
    double mean, sd;
} bench_stats;

/* Sorts v in place and summarises it; n >= 1. */
bench_stats bench_stats_of(double *v, size_t n);

/* "A ran X +- s times faster than B" (hyperfine's comparison): X = mean_b / mean_a and its
 * standard deviation propagated from both: s = X sqrt((sd_a / mean_a)^2 + (sd_b / mean_b)^2).
 * Returns X; *sd gets s. */
double bench_ratio_sd(double mean_a, double sd_a, double mean_b, double sd_b, double *sd);

enum { BENCH_MAX_REPS = 100 }; /* timed repetitions of a point, at most */

typedef enum bench_state { BENCH_OK, BENCH_SKIPPED, BENCH_FAILED } bench_state;

typedef struct bench_point {
    bench_backend backend;
    size_t n;
    double width, height;
    bench_state state;
    char reason[1024]; /* why skipped or failed */

    int baseline;                 /* 1: measured by the --baseline build, labelled name@baseline */
    int threads;                  /* threads that ran the steps (see bench_usage.busy_threads) */
    unsigned steps_per_rep;       /* timed steps in one repetition */
    unsigned reps, warmup;        /* timed and untimed repetitions */
    bench_stats ms;               /* wall milliseconds per step over the repetitions */
    double times[BENCH_MAX_REPS]; /* each timed repetition's ms per step, in the order run */
    unsigned ntimes;              /* entries in times (0: unknown, an older baseline) */
    int formed;                   /* the flock: 0 the random start, 1 formed (aged) */
    unsigned long age;            /* steps the initial state was advanced before timing */
    int settled;      /* formed: 1 its neighbour count settled, 0 --age-max came first, -1 --age */
    double cpu_util;  /* process CPU time / wall time while timing: cores kept busy */
    double load1;     /* 1-minute load average when the point started */
    double load1_end; /* ... and when it ended */

    /* Trust (bench_trust_judge): CPU the other processes used while the point was timed,
     * in cores (NAN unknown); cpu_util / threads (NAN unknown); the verdict and why. */
    double others_cpu, utilisation;
    int trusted;
    char why[256];
    double nbrs;       /* mean neighbours per boid in the initial state (-1: unknown) */
    unsigned ncx, ncy; /* grid cells of the step (model for the CPU paths) */
    unsigned ncz;      /* dim = 3: grid cells along z (model); 1 in 2-D */
    int dim;           /* the flock's dimension, 2 or 3 (the byte model differs) */

    /* GPU only: GL_TIME_ELAPSED per stage, ms per step, median over repetitions, from a
     * second instance with timer queries on (they wait after each step, so the wall time
     * above comes from an instance without them); and that instance's wall time. */
    int have_stages;
    double stage_ms[BENCH_STAGES];
    double timed_wall_ms;
    const char *stage_source; /* "gl-timer" or "cpu-fenced" (see stage_timer.c) */
    double gl_stage_sum_ms;   /* what the GL queries said, kept when they were not used */

    /* Derived after the sweep (NAN where it does not apply). */
    double ns_per_boid_step, boid_steps_per_s;
    double ns_per_nbr; /* ns per boid-step / the mean neighbours per boid of the flock timed */
    double speedup[3]; /* against cpu-1t, cpu-all, cpu-ref at the same N */
    double exponent;   /* d log t / d log N from this backend's previous measured N */
    double ratio;      /* this build's rows: the baseline's median / this one's (--baseline) */
    double bytes_per_step, gbytes_per_s;

    /* Memory per boid (NAN where unknown): the GPU buffers the backend holds
     * (boids_gpu_bytes; 0 for the CPU paths), and the host heap the backend's creation and
     * first steps added (glibc's mallinfo2: on llvmpipe this includes the "GPU" buffers,
     * which live in host memory). Both include the per-cell arrays, spread over N. */
    double gpu_bytes_per_boid, host_bytes_per_boid;
} bench_point;

/* Estimated bytes moved to and from memory by one step (see bench/README.md, "Byte
 * model" and "3-D"); ncells is the grid size, threads the CPU threads of the step, dim the
 * flock's dimension. */
double bench_bytes_per_step(bench_backend b, size_t n, size_t ncells, int threads, int dim);

/* Machine description, filled once at start (GL fields "" without a context). */
typedef struct bench_machine {
    char cpu_model[256];
    char cpu_id[128]; /* "family F model M stepping S" (/proc/cpuinfo), "" if not there: one
                       * model name covers processors of several generations (AMD EPYC) */
    int cpu_threads;  /* OpenMP's default thread count */
    int online_cpus;
    double mem_total_gib;
    char os[256];
    char compiler[128];
    char gl_renderer[256], gl_version[256], gl_platform[64];
    char gpu_note[384]; /* why there is no GPU backend, "" if there is */
    size_t gpu_max_n;   /* 0 without a GPU */
    char gpu_max_why[256];
    char cpu_kernel[32]; /* the `cpu` backend's neighbour kernel: avx2 or scalar */
    char omp_env[256];   /* OMP_* / GOMP_SPINCOUNT settings in the environment, "" if none */
    double load_start[3], load_end[3];
    char started[64]; /* UTC, ISO 8601 */
} bench_machine;

void bench_machine_fill(bench_machine *m);
/* The 1, 5 and 15 minute load averages from /proc/loadavg (-1 if unreadable). */
void bench_loadavg(double load[3]);
/* Bytes of host memory available now (MemAvailable), 0 if unknown. */
double bench_mem_available(void);

/* ---- trust (trust.c) ----------------------------------------------------------------
 *
 * A point is untrusted when other processes took cores it needed, or when its threads ran
 * far less than the wall time. Precisely, with C the CPUs this process may run on and T the
 * threads the point kept busy (at least 1):
 * - others: the CPU other processes used during the point, in cores, exceeds the C - T
 *   cores the point left free by more than BENCH_OTHERS_SLACK (kernel threads and
 *   daemons, and /proc/stat's 10 ms ticks over a short point);
 * - load, only where the others' CPU is unknown: the larger 1-minute load average of the
 *   point's start and end exceeds C + BENCH_LOAD_SLACK. The load counts this process's T
 *   threads too, so this is "the others' load > C - T" again; it lags by a minute, which is
 *   why it is only the fallback, and the wider slack;
 * - utilisation: process CPU time / wall time / T under BENCH_MIN_UTILISATION (the CPU
 *   backends only: a GPU point's host thread may sleep while the device works). A healthy
 *   point reads 0.9-1.0; the serial parts of a threaded step lower it a little. */
#define BENCH_OTHERS_SLACK    0.25
#define BENCH_LOAD_SLACK      0.5
#define BENCH_MIN_UTILISATION 0.7

typedef struct bench_trust_in {
    int cores;          /* C */
    int threads;        /* T; <= 0 counts as 1 */
    double others_cpu;  /* cores; NAN unknown */
    double load;        /* 1-minute load average; < 0 unknown */
    double utilisation; /* NAN: not judged */
} bench_trust_in;

/* 1 if trusted; 0 with the reasons, "; "-separated, in why (e.g. "others used 1.62 cores,
 * 0 free (2 cores, 2 threads)", "utilisation 0.41 of 2 threads"). Pure. */
int bench_trust_judge(const bench_trust_in *in, char *why, size_t size);

/* Judges pt from its measured fields (threads, others_cpu, load1, load1_end, utilisation)
 * and sets trusted and why. */
void bench_point_judge(bench_point *pt);

/* C: the CPUs this process may run on. */
int bench_cores(void);

enum { BENCH_MAX_TASKS = 512 };

/* What the machine and this process had used up to one moment. */
typedef struct bench_sample {
    double wall_s, cpu_s; /* monotonic clock; this process's CPU time */
    double busy_s;        /* busy seconds of the CPUs of the mask since boot; NAN unknown */
    double load1;         /* 1-minute load average; -1 unknown */
    int ntasks;
    struct {
        long tid;
        double cpu_s;
    } task[BENCH_MAX_TASKS]; /* this process's threads */
} bench_sample;

/* What happened between two samples. */
typedef struct bench_usage {
    double wall_s, cpu_s; /* cpu_s: this process's, plus child_cpu_s */
    double others_cpu;    /* cores; NAN unknown */
    int busy_threads;     /* threads that ran at least a quarter of the busiest one; 0 unknown */
    double load_before, load_after;
} bench_usage;

void bench_sample_take(bench_sample *s);
/* child_cpu_s: CPU time of children that ran between the samples (their rusage), which
 * counts as this process's own and not as the others'. */
void bench_usage_of(const bench_sample *a, const bench_sample *b, double child_cpu_s,
                    bench_usage *u);

/* --contend: a child process that spins on one core (the last this process may run on,
 * pinned there) for the whole sweep, as another user's job would on a shared machine.
 * Returns its pid, or -1 with the reason in err; bench_contend_stop ends it. */
long bench_contend_start(boids_error *err);
void bench_contend_stop(long pid);

/* Where GPU stage times come from: GL_TIME_ELAPSED queries, CPU-fenced timing of each
 * stage (stage_timer.c), or the queries unless their sum is implausible: under 2 us per step
 * for six dispatches and under 5% of the wall time of the same steps (llvmpipe reports a few
 * ns). The absolute floor keeps a real GPU at small N, where launch overhead dominates the
 * wall time, on its own queries. */
enum { BENCH_TIMER_AUTO, BENCH_TIMER_GL, BENCH_TIMER_FENCED };

/* The flocks a sweep times at every N (--flocks): the random start, and the same flock
 * formed: advanced on the cpu path (--age K steps, or until its mean neighbour count
 * settles: grows by less than BENCH_SETTLE over a block of BENCH_SETTLE_BLOCK steps, at most
 * --age-max steps). */
enum { BENCH_FLOCK_RANDOM = 1, BENCH_FLOCK_FORMED = 2 };
#define BENCH_SETTLE       0.05
#define BENCH_SETTLE_BLOCK 50

/* What the sweep was asked to do. */
typedef struct bench_config {
    const char *preset; /* for the record; NULL means lab */
    boids_params base;  /* the resolved parameters before scaling to N */
    int fixed_world;    /* 1: keep base's world for every N; 0: keep its density */
    double density;     /* base.count / (base.width * base.height), and / base.depth in 3-D */
    unsigned long long seed;
    size_t sizes[64];
    int nsizes;
    int enabled[BENCH_BACKENDS];
    int threads; /* of cpu-all */
    unsigned reps, warmup, max_steps;
    unsigned long age;     /* --age: the formed flock's steps, fixed (0: until it settles) */
    int flocks;            /* BENCH_FLOCK_RANDOM | BENCH_FLOCK_FORMED: the flocks timed */
    unsigned long age_max; /* the settling rule's most steps (--age-max) */
    double rep_ms, budget_s;
    int quick;
    int contend;          /* a busy process on one core beside the sweep (--contend) */
    const char *baseline; /* --baseline: another build's boids-bench, NULL without */
    int stage_timer;      /* BENCH_TIMER_* */
    const char *out;
    int plot;
    int plot_png;         /* 1: PNG (pngcairo), 0: SVG */
    boids_interact inter; /* the points and obstacles of --config, on every backend */
} bench_config;

/* Measures pt (backend and N set, state BENCH_OK on entry) with parameters p from the
 * initial state init; on failure sets BENCH_FAILED and the backend's message. GPU points
 * need the GL context current on this thread. */
void bench_measure(const bench_config *c, bench_point *pt, const boids_params *p,
                   const boids_flock *init);

/* The parameters of size n: base's, with N boids in the world of the one rule
 * (boids_params_fit_world), or base's world with --fixed-world. */
void bench_scale_params(const bench_config *c, size_t n, boids_params *p);

/* --structure (structure.c): times the structure observables over c's sizes instead of the
 * backends, prints the table and writes structure.csv into c->out. Returns the exit code. */
int bench_structure(const bench_config *c, const bench_machine *m);

/* ---- --baseline (baseline.c) ----------------------------------------------------------- */

enum { BENCH_FWD_MAX = 640 };

/* The options every run of the baseline gets: the timing and the parameters of this run. */
typedef struct bench_forward {
    const char *arg[BENCH_FWD_MAX]; /* NULL-terminated */
    int n;
    char pool[16384];
    size_t used;
    int overflow; /* more than arg or pool hold */
    int flocks;   /* the baseline takes --flocks (bench_baseline_check finds out) */
} bench_forward;

struct app_opts;
void bench_forward_build(bench_forward *f, const bench_config *c, const struct app_opts *o);

/* Whether path is an executable boids-bench whose --help lists every option of f and the
 * ones each point needs (--sizes, --backends, --out, --no-plot); BOIDS_ERR_INPUT naming
 * what is missing otherwise. */
boids_status bench_baseline_check(const char *path, bench_forward *f, boids_error *err);

/* Runs the baseline at path for pt's backend and N (set on entry, with the world and the
 * neighbours copied from this build's point) in a private temporary folder and fills pt
 * from its bench.csv: the baseline flag, state and reason, times, threads and trust. */
void bench_baseline_point(const char *path, const bench_forward *f, bench_point *pt);

/* Writers: all files go through a temporary name renamed at the end. */
void bench_print_table(const bench_config *c, const bench_machine *m, const bench_point *pts,
                       size_t npts);
boids_status bench_write_csv(const char *path, const bench_config *c, const bench_point *pts,
                             size_t npts, boids_error *err);
boids_status bench_write_json(const char *path, const bench_config *c, const bench_machine *m,
                              const bench_point *pts, size_t npts, const char *plot_note,
                              boids_error *err);
/* Writes bench.gp in dir and runs gnuplot there if it is on PATH. Fills note with what
 * happened (the files made, or why there is no plot). BOIDS_OK also when gnuplot is absent;
 * BOIDS_ERR_RUNTIME if it ran and failed. */
boids_status bench_plot(const char *dir, const bench_config *c, const bench_machine *m,
                        const bench_point *pts, size_t npts, char *note, size_t note_size,
                        boids_error *err);

/* Writes text to path through path.tmp + rename. */
boids_status bench_write_file(const char *path, const char *text, size_t len, boids_error *err);

#endif
