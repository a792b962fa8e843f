/* SPDX-License-Identifier: MIT */
/* bench.gp on synthetic points: a series' data block holds its measured points only, in
 * increasing N, with a blank line (a break in the curve) where a point between two measured
 * ones was not measured, and the stage block only the points whose stages were timed. Runs
 * without gnuplot (PATH is emptied): the script is written either way. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"

static int failures;

static void expect(const char *name, int ok, const char *detail) {
    printf("%s %s%s%s\n", ok ? "ok  " : "FAIL", name, ok ? "" : ": ", ok ? "" : detail);
    failures += !ok;
}

/* The lines of block name ("$s1") in script, each cut after its first number, joined by '|':
 * "1000||4000" for points 1000 and 4000 with a break between. "" when there is no block. */
static void block(const char *script, const char *name, char *out, size_t size) {
    char head[32];
    snprintf(head, sizeof head, "%s << EOD\n", name);
    out[0] = '\0';
    const char *p = strstr(script, head);
    if (!p) return;
    p += strlen(head);
    size_t len = 0;
    for (int first = 1; *p && strncmp(p, "EOD\n", 4); first = 0) {
        size_t line = strcspn(p, "\n"), num = strcspn(p, " \n");
        len += (size_t)snprintf(out + len, size - len, "%s%.*s", first ? "" : "|", (int)num, p);
        p += line + (p[line] == '\n');
    }
}

static bench_point point(bench_backend b, size_t n, bench_state state, int stages) {
    bench_point p = {
        .backend = b, .n = n, .state = state, .trusted = 1, .ms = {1, 1, 1, 1, 1, 1, 0}};
    p.ns_per_boid_step = 1e6 / (double)n;
    p.speedup[0] = p.speedup[1] = p.speedup[2] = NAN;
    p.have_stages = stages;
    p.stage_source = stages ? "cpu-fenced" : NULL;
    for (int k = 0; k < BENCH_STAGES; k++) p.stage_ms[k] = stages ? 0.1 * (k + 1) : 0;
    if (state != BENCH_OK) snprintf(p.reason, sizeof p.reason, "synthetic");
    return p;
}

int main(void) {
    char dir[] = "/tmp/boids-plot-test-XXXXXX";
    if (!mkdtemp(dir)) return perror("mkdtemp"), 1;
    setenv("PATH", "", 1); /* no gnuplot: the script alone */
    bench_point pts[] = {
        point(BENCH_CPU_1T, 1000, BENCH_OK, 0),       point(BENCH_GPU, 1000, BENCH_OK, 1),
        point(BENCH_CPU_1T, 2000, BENCH_FAILED, 0),   point(BENCH_GPU, 2000, BENCH_OK, 0),
        point(BENCH_CPU_1T, 4000, BENCH_OK, 0),       point(BENCH_GPU, 4000, BENCH_SKIPPED, 0),
        point(BENCH_CPU_REF, 4000, BENCH_SKIPPED, 0),
    };
    size_t npts = sizeof pts / sizeof pts[0];
    bench_config c = {.plot = 1};
    bench_machine m = {0};
    char note[512], path[512], got[512];
    boids_error err;
    if (bench_plot(dir, &c, &m, pts, npts, note, sizeof note, &err))
        return fprintf(stderr, "bench_plot: %s\n", err.msg), 1;
    snprintf(path, sizeof path, "%s/bench.gp", dir);
    FILE *f = fopen(path, "r");
    static char script[1 << 16];
    size_t len = f ? fread(script, 1, sizeof script - 1, f) : 0;
    if (f) fclose(f);
    script[len] = '\0';
    expect("bench.gp written", len > 0, path);

    block(script, "$s1", got, sizeof got);
    expect("cpu-1t: 1000, a break for the failed 2000, then 4000", !strcmp(got, "1000||4000"), got);
    block(script, "$s3", got, sizeof got);
    expect("gpu: 1000 and 2000, nothing for the skipped 4000", !strcmp(got, "1000|2000"), got);
    block(script, "$g3", got, sizeof got);
    expect("gpu stages: 1000 only (2000 had none timed: no zero bars)", !strcmp(got, "1000"), got);
    block(script, "$s0", got, sizeof got);
    expect("cpu-ref: no block, it measured nothing", !got[0], got);
    block(script, "$g1", got, sizeof got);
    expect("cpu-1t: no stage block", !got[0], got);
    expect("the skipped points are marked", strstr(script, "title 'not measured'") != NULL, "");

    snprintf(path, sizeof path, "%s/bench.gp", dir);
    if (unlink(path) != 0 || rmdir(dir) != 0) fprintf(stderr, "could not remove %s\n", dir);
    printf("%s\n", failures ? "FAILED" : "all checks passed");
    return failures ? 1 : 0;
}
