/* SPDX-License-Identifier: MIT */
#include "cli/progress.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "boids/backend.h"
#include "clock.h"

/* A duration as people read it: "42 s", "3 min 20 s", "2 h 05 min", "3 d 4 h", "2.1e+04
 * years" (a cpu-ref sweep over a billion boids is an estimate worth reading too). */
static const char *duration(double s, char *buf, size_t size) {
    if (!(s >= 0) || isinf(s)) return snprintf(buf, size, "?"), buf;
    if (s >= 365.25 * 86400) return snprintf(buf, size, "%.3g years", s / (365.25 * 86400)), buf;
    long t = lround(s);
    if (s < 10)
        snprintf(buf, size, "%.2g s", s);
    else if (t < 60)
        snprintf(buf, size, "%ld s", t);
    else if (t < 3600)
        snprintf(buf, size, "%ld min %02ld s", t / 60, t % 60);
    else if (t < 86400)
        snprintf(buf, size, "%ld h %02ld min", t / 3600, t / 60 % 60);
    else
        snprintf(buf, size, "%ld d %ld h", t / 86400, t / 3600 % 24);
    return buf;
}

void app_progress_begin(app_progress *p, const char *prog, const char *unit, double total) {
    memset(p, 0, sizeof *p);
    p->on = isatty(fileno(stderr));
    p->prog = prog;
    p->unit = unit;
    p->total = total;
    p->t0 = p->last = mono_seconds();
}

void app_progress_update(app_progress *p, double done, const char *note, int now) {
    p->done = done;
    if (note) snprintf(p->note, sizeof p->note, "%s", note);
    if (!p->on) return;
    double t = mono_seconds(), spent = t - p->t0;
    if (!now && (t - p->last < 0.25 || spent < 0.25)) return;
    p->last = t;
    char line[320], left[32];
    int len =
        snprintf(line, sizeof line, "%s: %.0f/%.0f %s", p->prog, floor(done), p->total, p->unit);
    if (p->total > 0)
        len += snprintf(line + len, sizeof line - (size_t)len, " (%.0f%%)",
                        floor(100 * done / p->total));
    if (done > 0 && spent > 0) {
        double rate = done / spent;
        len += snprintf(line + len, sizeof line - (size_t)len, ", %.3g %s/s, ETA %s", rate, p->unit,
                        duration((p->total - done) / rate, left, sizeof left));
    }
    if (p->note[0]) snprintf(line + len, sizeof line - (size_t)len, ": %s", p->note);
    /* Back to the line's start, the text, then erase what a longer line left after it. */
    fprintf(stderr, "\r%s\033[K", line);
    fflush(stderr);
    p->drawn = 1;
}

void app_progress_clear(app_progress *p) {
    if (!p->drawn) return;
    fputs("\r\033[K", stderr);
    fflush(stderr);
    p->drawn = 0;
}

void app_progress_end(app_progress *p) {
    app_progress_clear(p);
    p->on = 0;
}

enum { CPU_REF_NOTE_N = 20000, PROBE_N = 2000 };

void app_cpu_ref_estimate(const char *prog, const char *backend, const boids_params *p,
                          long steps) {
    if (strcmp(backend, "cpu-ref") || p->count <= CPU_REF_NOTE_N || steps <= 0) return;
    /* The probe: PROBE_N boids in p's world, one step. The pairs' loop is the cost (the
     * neighbours within reach are a few percent of the pairs at any density). */
    boids_params q = *p;
    q.count = PROBE_N;
    boids_error err;
    boids_flock f;
    if (boids_flock_alloc_dim(&f, PROBE_N, q.dim, &err)) return;
    boids_flock_randomize(&f, &q, 1);
    boids_backend *b = boids_cpu_ref_create(&f, &err);
    double t = -1;
    if (b) {
        double t0 = mono_seconds();
        if (!boids_backend_step(b, &q, 1, &err)) t = mono_seconds() - t0;
        boids_backend_destroy(b);
    }
    boids_flock_free(&f);
    if (t <= 0) return;
    double n = (double)p->count, step = t * (n / PROBE_N) * (n / PROBE_N);
    char one[32], all[32];
    fprintf(stderr,
            "%s: cpu-ref compares every pair of boids: at N = %ld a step will take about %s "
            "here, %ld steps about %s (an estimate: one step of %d boids took %.3g s, times "
            "(N / %d)^2); --backend cpu is the fast path (the same model on a grid)\n",
            prog, p->count, duration(step, one, sizeof one), steps,
            duration(step * (double)steps, all, sizeof all), PROBE_N, t, PROBE_N);
}
