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

/* Median, quartiles (linear interpolation between order statistics) and extremes. */
typedef struct bench_stats {
    double median, q1, q3, min, max;
} bench_stats;

/* Sorts v in place and summarises it; n >= 1. */
bench_stats bench_stats_of(double *v, size_t n);

typedef enum bench_state { BENCH_OK, BENCH_SKIPPED, BENCH_FAILED } bench_state;

typedef struct bench_point {
    bench_backend backend;
    size_t n;
    double width, height;
    bench_state state;
    char reason[1024]; /* why skipped or failed */

    int threads;            /* CPU threads the backend used (GPU: 0) */
    unsigned steps_per_rep; /* timed steps in one repetition */
    unsigned reps, warmup;  /* timed and untimed repetitions */
    bench_stats ms;         /* wall milliseconds per step over the repetitions */
    double cpu_util;        /* process CPU time / wall time while timing: cores kept busy */
    double load1;           /* 1-minute load average when the point started */
    double nbrs;            /* mean neighbours per boid in the initial state (-1: unknown) */
    unsigned ncx, ncy;      /* grid cells of the step (model for the CPU paths) */

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
    double speedup[3]; /* against cpu-1t, cpu-all, cpu-ref at the same N */
    double exponent;   /* d log t / d log N from this backend's previous measured N */
    double bytes_per_step, gbytes_per_s;

    /* Memory per boid (NAN where unknown): the GPU buffers the backend holds
     * (boids_gpu_bytes; 0 for the CPU paths), and the host heap the backend's creation and
     * first steps added (glibc's mallinfo2: on llvmpipe this includes the "GPU" buffers,
     * which live in host memory). Both include the per-cell arrays, spread over N. */
    double gpu_bytes_per_boid, host_bytes_per_boid;
} bench_point;

/* Estimated bytes moved to and from memory by one step (see bench/README.md, "Byte
 * model"); ncells is the grid size, threads the CPU threads of the step. */
double bench_bytes_per_step(bench_backend b, size_t n, size_t ncells, int threads);

/* Machine description, filled once at start (GL fields "" without a context). */
typedef struct bench_machine {
    char cpu_model[256];
    int cpu_threads; /* OpenMP's default thread count */
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
    unsigned long age; /* steps the initial state is advanced (cpu path) before timing */
    double rep_ms, budget_s;
    int quick;
    int contend;     /* a busy process on one core beside the sweep (--contend) */
    int stage_timer; /* BENCH_TIMER_* */
    const char *out;
    int plot;
    int plot_png; /* 1: PNG (pngcairo), 0: SVG */
} bench_config;

enum { BENCH_MAX_REPS = 100 };

/* Measures pt (backend and N set, state BENCH_OK on entry) with parameters p from the
 * initial state init; on failure sets BENCH_FAILED and the backend's message. GPU points
 * need the GL context current on this thread. */
void bench_measure(const bench_config *c, bench_point *pt, const boids_params *p,
                   const boids_flock *init);

/* Writers: all files go through a temporary name renamed at the end. */
void bench_print_table(const bench_config *c, const bench_machine *m, const bench_point *pts,
                       size_t npts);
boids_status bench_write_csv(const char *path, const bench_point *pts, size_t npts,
                             boids_error *err);
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
