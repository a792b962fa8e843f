/* SPDX-License-Identifier: MIT */
/* boids-bench: whether a point's numbers can be trusted.
 *
 * A point is timed on a machine other processes may share. What they took is measured
 * around the point: the busy time of the CPUs this process may run on (/proc/stat) less
 * this process's own CPU time is the CPU the others used; the CPU time of each of this
 * process's threads (/proc/self/task) says how many threads the point really kept busy.
 * The judgement is a pure function of those numbers (bench_trust_judge), so that it can be
 * tested with synthetic ones. */
#define _GNU_SOURCE /* sched_getaffinity, CPU_ISSET */
#include <dirent.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "clock.h"

int bench_trust_judge(const bench_trust_in *in, char *why, size_t size) {
    size_t len = 0;
    why[0] = '\0';
    const int threads = in->threads > 0 ? in->threads : 1;
    const double free_cores = in->cores > threads ? (double)(in->cores - threads) : 0.0;
    if (!isnan(in->others_cpu) && in->others_cpu > free_cores + BENCH_OTHERS_SLACK)
        len += (size_t)snprintf(
            why + len, size - len, "others used %.2f cores, %.0f free (%d cores, %d thread%s)",
            in->others_cpu, free_cores, in->cores, threads, threads == 1 ? "" : "s");
    else if (isnan(in->others_cpu) && in->load > (double)in->cores + BENCH_LOAD_SLACK)
        len += (size_t)snprintf(why + len, size - len, "load %.2f > %d cores", in->load, in->cores);
    if (len >= size) len = size - 1;
    if (!isnan(in->utilisation) && in->utilisation < BENCH_MIN_UTILISATION)
        snprintf(why + len, size - len, "%sutilisation %.2f of %d thread%s", len ? "; " : "",
                 in->utilisation, threads, threads == 1 ? "" : "s");
    return why[0] == '\0';
}

void bench_point_judge(bench_point *pt) {
    bench_trust_in in = {.cores = bench_cores(),
                         .threads = pt->threads,
                         .others_cpu = pt->others_cpu,
                         .load = pt->load1 > pt->load1_end ? pt->load1 : pt->load1_end,
                         .utilisation = bench_backend_is_gpu(pt->backend) ? NAN : pt->utilisation};
    pt->trusted = bench_trust_judge(&in, pt->why, sizeof pt->why);
}

/* The CPUs this process may run on (all online ones if the mask is unreadable). */
static int allowed(cpu_set_t *set) {
    if (sched_getaffinity(0, sizeof *set, set) == 0) return CPU_COUNT(set);
    CPU_ZERO(set);
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    for (long i = 0; i < n && i < CPU_SETSIZE; i++) CPU_SET((int)i, set);
    return n > 0 ? (int)n : 1;
}

int bench_cores(void) {
    cpu_set_t set;
    return allowed(&set);
}

/* Seconds the CPUs in this process's mask spent busy since boot (user, nice, system, irq,
 * softirq and steal: a hypervisor's steal is time another guest held the core); NAN if
 * /proc/stat is unreadable. */
static double busy_seconds(void) {
    cpu_set_t set;
    allowed(&set);
    FILE *f = fopen("/proc/stat", "r");
    if (!f) return NAN;
    const double tick = 1.0 / (double)sysconf(_SC_CLK_TCK);
    double busy = 0.0;
    int found = 0;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        int cpu;
        unsigned long long v[8] = {0};
        if (sscanf(line, "cpu%d %llu %llu %llu %llu %llu %llu %llu %llu", &cpu, &v[0], &v[1], &v[2],
                   &v[3], &v[4], &v[5], &v[6], &v[7]) < 9 ||
            cpu < 0 || cpu >= CPU_SETSIZE || !CPU_ISSET(cpu, &set))
            continue;
        busy += (double)(v[0] + v[1] + v[2] + v[5] + v[6] + v[7]) * tick;
        found = 1;
    }
    fclose(f);
    return found ? busy : NAN;
}

/* CPU seconds of thread tid: schedstat's nanoseconds on the CPU, else stat's utime + stime
 * in clock ticks; -1 if neither is readable (the thread ended). */
static double task_seconds(const char *tid) {
    char path[128];
    snprintf(path, sizeof path, "/proc/self/task/%s/schedstat", tid);
    FILE *f = fopen(path, "r");
    unsigned long long ns;
    if (f) {
        int ok = fscanf(f, "%llu", &ns) == 1;
        fclose(f);
        if (ok) return (double)ns * 1e-9;
    }
    snprintf(path, sizeof path, "/proc/self/task/%s/stat", tid);
    if (!(f = fopen(path, "r"))) return -1.0;
    char buf[1024];
    size_t len = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[len] = '\0';
    /* The name in parentheses may hold spaces: fields are counted after its ')'. */
    const char *p = strrchr(buf, ')');
    unsigned long long ut, st;
    if (!p ||
        sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ut, &st) != 2)
        return -1.0;
    return (double)(ut + st) / (double)sysconf(_SC_CLK_TCK);
}

void bench_sample_take(bench_sample *s) {
    s->wall_s = mono_seconds();
    s->cpu_s = cpu_seconds();
    s->busy_s = busy_seconds();
    double load[3];
    bench_loadavg(load);
    s->load1 = load[0];
    s->ntasks = 0;
    DIR *d = opendir("/proc/self/task");
    if (!d) return;
    struct dirent *e;
    while ((e = readdir(d)) && s->ntasks < BENCH_MAX_TASKS) {
        if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
        double sec = task_seconds(e->d_name);
        if (sec < 0) continue;
        s->task[s->ntasks].tid = atol(e->d_name);
        s->task[s->ntasks++].cpu_s = sec;
    }
    closedir(d);
}

/* Threads whose CPU time between a and b is at least a quarter of the busiest one's: the
 * threads that did the point's work. Relative to the busiest rather than to the wall time,
 * so that threads slowed alike by other processes still count, and OpenMP workers left
 * idle (the cpu path runs small steps on one thread) do not. 0 if unknown. */
static int busy_threads(const bench_sample *a, const bench_sample *b) {
    double used[BENCH_MAX_TASKS], most = 0.0;
    for (int i = 0; i < b->ntasks; i++) {
        used[i] = b->task[i].cpu_s;
        for (int j = 0; j < a->ntasks; j++)
            if (a->task[j].tid == b->task[i].tid) used[i] -= a->task[j].cpu_s;
        if (used[i] > most) most = used[i];
    }
    if (most < 1e-3) return 0; /* too little CPU time to tell who ran */
    int n = 0;
    for (int i = 0; i < b->ntasks; i++) n += used[i] >= 0.25 * most;
    return n;
}

void bench_usage_of(const bench_sample *a, const bench_sample *b, double child_cpu_s,
                    bench_usage *u) {
    u->wall_s = b->wall_s - a->wall_s;
    u->cpu_s = b->cpu_s - a->cpu_s + child_cpu_s;
    u->others_cpu = NAN;
    /* /proc/stat counts each CPU in clock ticks: over the window, the rounding can reach a
     * tick per CPU, so the others' share is known only where that stays within half the
     * slack; and it lies in [0, cores] whatever the rounding says. */
    const int cores = bench_cores();
    const double tick = 1.0 / (double)sysconf(_SC_CLK_TCK);
    if (cores * tick <= 0.5 * BENCH_OTHERS_SLACK * u->wall_s && !isnan(a->busy_s) &&
        !isnan(b->busy_s)) {
        double others = (b->busy_s - a->busy_s - u->cpu_s) / u->wall_s;
        u->others_cpu = others < 0 ? 0.0 : others > cores ? cores : others;
    }
    u->busy_threads = busy_threads(a, b);
    u->load_before = a->load1;
    u->load_after = b->load1;
}
