/* SPDX-License-Identifier: MIT */
/* boids-bench: names, the parameters of a size, statistics, the byte model, machine
 * information, file writing. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "atomic_file.h"
#include "bench.h"

const char *const bench_stage_names[BENCH_STAGES] = {"clear",   "count", "scan",
                                                     "scatter", "sort",  "steer"};

static const char *const backend_names[BENCH_BACKENDS] = {
    "cpu-ref", "cpu-1t", "cpu-all", "gpu", "gpu-det", "gpu-fused", "gpu-fused-det"};

const char *bench_backend_name(bench_backend b) {
    return backend_names[b];
}

int bench_backend_is_gpu(bench_backend b) {
    return b >= BENCH_GPU && b < BENCH_BACKENDS;
}

int bench_backend_is_det(bench_backend b) {
    return b == BENCH_GPU_DET || b == BENCH_GPU_FUSED_DET;
}

/* 0 plain, 1 fused: the values of boids_gpu_variant, which this file does not include (the
 * bench builds without the GPU backend too). */
int bench_backend_variant(bench_backend b) {
    return b == BENCH_GPU_FUSED || b == BENCH_GPU_FUSED_DET;
}

/* The parameters of a point (bench.h): main.c's sweep of backends and structure.c's of the
 * observables take their sizes the same way. */
void bench_scale_params(const bench_config *c, size_t n, boids_params *p) {
    *p = c->base;
    p->count = (long)n;
    if (!c->fixed_world) boids_params_fit_world(p, &c->base, 0, NULL);
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Quantile q of sorted v by linear interpolation between the closest ranks (the
 * "type 7" definition of R and NumPy), so that quartiles of few repetitions still move
 * smoothly with the data. */
static double quantile(const double *v, size_t n, double q) {
    double pos = q * (double)(n - 1);
    size_t i = (size_t)pos;
    if (i + 1 >= n) return v[n - 1];
    double f = pos - (double)i;
    return v[i] + f * (v[i + 1] - v[i]);
}

bench_stats bench_stats_of(double *v, size_t n) {
    qsort(v, n, sizeof *v, cmp_double);
    bench_stats s;
    s.min = v[0];
    s.max = v[n - 1];
    s.median = quantile(v, n, 0.5);
    s.q1 = quantile(v, n, 0.25);
    s.q3 = quantile(v, n, 0.75);
    double sum = 0.0, dev = 0.0;
    for (size_t i = 0; i < n; i++) sum += v[i];
    s.mean = sum / (double)n;
    for (size_t i = 0; i < n; i++) dev += (v[i] - s.mean) * (v[i] - s.mean);
    s.sd = n > 1 ? sqrt(dev / (double)(n - 1)) : 0.0;
    return s;
}

double bench_ratio_sd(double mean_a, double sd_a, double mean_b, double sd_b, double *sd) {
    double x = mean_b / mean_a, ra = sd_a / mean_a, rb = sd_b / mean_b;
    *sd = x * sqrt(ra * ra + rb * rb);
    return x;
}

/* Byte model: the DRAM traffic one step must cause at least, assuming that what a stage
 * reads several times (a boid's neighbours, the cell starts of a row) stays in cache and
 * that every array is streamed once per stage that touches it. Per boid and per cell:
 *
 *   gpu  count   read state vec4 16, write rank 4                    atomics 8 per cell
 *        clear / scan                                                4 + 8 per cell
 *        scatter read rank 4, state 16, id 4; write 16 + 4           starts 4 per cell
 *        steer   read state 16, id 4; write state 16, id 4           starts 4 per cell
 *        = 104 B per boid + 28 B per cell
 *   gpu-det adds the sort: read state 16, id 4, write 16 + 4 = 40 B per boid, 4 per cell
 *   gpu-fused drops the count pass (20 B per boid, its 8 B of atomics per cell move to the
 *        steer) and writes the rank in the steer (4 B): 88 B per boid + 28 B per cell
 *   cpu  cells: read x, y 8, write cell 4; scatter: read cell 4, state 20, write 20;
 *        steer: read 16, write 16 (ids swap, no copy) = 88 B per boid, plus per cell the
 *        per-thread histograms (clear, count, scan: 16 B per thread) and starts 8
 *   cpu-ref  read and write the double state once: 64 B per boid; its O(N^2) pair loop
 *        reads from cache, so its "bandwidth" only shows how far it is from memory-bound.
 *
 * In 3-D (dim = 3; bench/README.md, "3-D") the GPU state is positions and velocities as two
 * vec4 arrays and the ids:
 *   gpu  count   read positions 16, write rank 4                     atomics 8 per cell
 *        clear / scan                                                4 + 8 per cell
 *        scatter read rank 4, positions 16, velocities 16, id 4; write 16 + 16 + 4
 *        steer   read positions 16, velocities 16, id 4; write the same 36
 *        = 168 B per boid + 28 B per cell
 *   gpu-det adds the sort: read 36, write 36 = 72 B per boid, 4 per cell
 *   cpu  cells: read x, y, z 12, write cell 4; scatter: read cell 4, state 28, write 28;
 *        steer: read 24, write 24 = 124 B per boid, the cells as in 2-D
 *   cpu-ref  the double state, 48 B, read and written: 96 B per boid
 * (the fused variant is 2-D only). */
static const struct {
    double boid, cell; /* bytes per boid and per cell; the cpu rows add 16 per thread per cell */
} step_bytes[2][BENCH_BACKENDS] = {
    /* cpu-ref, cpu-1t, cpu-all, gpu, gpu-det, gpu-fused, gpu-fused-det */
    {{64, 0}, {88, 8}, {88, 8}, {104, 28}, {144, 32}, {88, 28}, {128, 32}},
    {{96, 0}, {124, 8}, {124, 8}, {168, 28}, {240, 32}, {NAN, NAN}, {NAN, NAN}},
};

double bench_bytes_per_step(bench_backend b, size_t n, size_t ncells, int threads, int dim) {
    if (b >= BENCH_BACKENDS) return NAN;
    const double N = (double)n, C = (double)ncells;
    double boid = step_bytes[dim == 3][b].boid, cell = step_bytes[dim == 3][b].cell;
    if (b == BENCH_CPU_1T || b == BENCH_CPU_ALL) cell += 16.0 * (threads > 0 ? threads : 1);
    return boid * N + cell * C;
}

static void trim(char *s) {
    size_t n = strlen(s);
    while (n && (s[n - 1] == '\n' || s[n - 1] == ' ' || s[n - 1] == '\t')) s[--n] = '\0';
}

/* The value of the first line of f whose key is key (followed by blanks or the colon), after
 * the colon. */
static int proc_field(const char *path, const char *key, char *out, size_t size) {
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    char line[512];
    size_t klen = strlen(key);
    int found = 0;
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, key, klen) != 0 || !strchr(" \t:", line[klen])) continue;
        const char *colon = strchr(line, ':');
        if (!colon) continue;
        colon++;
        while (*colon == ' ' || *colon == '\t') colon++;
        snprintf(out, size, "%s", colon);
        trim(out);
        found = 1;
        break;
    }
    fclose(f);
    return found;
}

void bench_loadavg(double load[3]) {
    load[0] = load[1] = load[2] = -1.0;
    FILE *f = fopen("/proc/loadavg", "r");
    if (!f) return;
    if (fscanf(f, "%lf %lf %lf", &load[0], &load[1], &load[2]) != 3)
        load[0] = load[1] = load[2] = -1.0;
    fclose(f);
}

double bench_mem_available(void) {
    char v[128];
    if (!proc_field("/proc/meminfo", "MemAvailable", v, sizeof v)) return 0.0;
    return strtod(v, NULL) * 1024.0; /* kB */
}

void bench_machine_fill(bench_machine *m) {
    memset(m, 0, sizeof *m);
    if (!proc_field("/proc/cpuinfo", "model name", m->cpu_model, sizeof m->cpu_model))
        snprintf(m->cpu_model, sizeof m->cpu_model, "unknown (no model name in /proc/cpuinfo)");
    char fam[32], model[32], step[32];
    if (proc_field("/proc/cpuinfo", "cpu family", fam, sizeof fam) &&
        proc_field("/proc/cpuinfo", "model", model, sizeof model) &&
        proc_field("/proc/cpuinfo", "stepping", step, sizeof step))
        snprintf(m->cpu_id, sizeof m->cpu_id, "family %s model %s stepping %s", fam, model, step);
#ifdef _OPENMP
    m->cpu_threads = omp_get_max_threads();
#else
    m->cpu_threads = 1;
#endif
    m->online_cpus = (int)sysconf(_SC_NPROCESSORS_ONLN);
    char v[128];
    if (proc_field("/proc/meminfo", "MemTotal", v, sizeof v))
        m->mem_total_gib = strtod(v, NULL) / (1024.0 * 1024.0);
    struct utsname u;
    if (uname(&u) == 0) snprintf(m->os, sizeof m->os, "%s %s %s", u.sysname, u.release, u.machine);
#if defined(__clang__)
    snprintf(m->compiler, sizeof m->compiler, "clang %s", __clang_version__);
#elif defined(__GNUC__)
    snprintf(m->compiler, sizeof m->compiler, "gcc %s", __VERSION__);
#endif
    /* OpenMP's waiting policy decides how threads behave on a shared machine (spinning
     * threads descheduled at a barrier stall the others), so it belongs to the record. */
    static const char *const omp_vars[] = {"OMP_NUM_THREADS", "OMP_WAIT_POLICY", "OMP_PROC_BIND",
                                           "OMP_PLACES", "GOMP_SPINCOUNT"};
    for (size_t i = 0; i < sizeof omp_vars / sizeof omp_vars[0]; i++) {
        const char *v = getenv(omp_vars[i]);
        size_t len = strlen(m->omp_env);
        if (v && len < sizeof m->omp_env)
            snprintf(m->omp_env + len, sizeof m->omp_env - len, "%s%s=%.60s", len ? " " : "",
                     omp_vars[i], v);
    }
    bench_loadavg(m->load_start);
    time_t now = time(NULL);
    struct tm tm;
    if (gmtime_r(&now, &tm)) strftime(m->started, sizeof m->started, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

boids_status bench_write_file(const char *path, const char *text, size_t len, boids_error *err) {
    boids_atomic_file a;
    boids_status s = boids_atomic_open(&a, path, err);
    if (s) return s;
    fwrite(text, 1, len, a.f);
    return boids_atomic_commit(&a, err);
}
