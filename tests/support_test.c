/* SPDX-License-Identifier: MIT */
/* The support library (src/support) called wrongly, as tests/api_test.c calls the public API:
 * NULL for each pointer argument, a zeroed or committed atomic file. Each call must refuse
 * with BOIDS_ERR_INPUT and a message (or, without an error return, do nothing) and never
 * crash or leave a file; every row runs twice, the second time with a NULL error report.
 * And the clocks: the monotonic one never goes back and counts a sleep, the CPU one counts
 * busy work and not a sleep. And the shortest text of a double: it reads back as the double,
 * and no other %.Pg text that does is shorter.
 *
 * Built against the support headers and the core that holds the support library's objects,
 * as the programs link them. */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "atomic_file.h"
#include "boids/rng.h"
#include "clock.h"
#include "ini.h"
#include "shortest.h"

#include "check.h"

enum {
    NEUTRAL = -1, /* the row expects the neutral value of a function without a status */
    NO_ERR = -2   /* what a row gives in the pass with a NULL error report */
};

static char dir[64];

static char *in_dir(const char *name) {
    static char path[128];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return path;
}

/* The number of files in the folder. */
static int files_in(void) {
    DIR *d = opendir(dir);
    int n = 0;
    for (struct dirent *de; d && (de = readdir(d));) n += de->d_name[0] != '.';
    if (d) closedir(d);
    return n;
}

static boids_status count_line(void *user, const char *key, const char *value, const char *where,
                               boids_error *err) {
    (void)key, (void)value, (void)where, (void)err;
    return user ? BOIDS_ERR_RUNTIME : BOIDS_OK; /* the row passes no user */
}

static int ini_read_user_null(boids_error *e) {
    FILE *f = fopen(in_dir("u.ini"), "w");
    if (!f) return 0;
    fputs("width = 800\n", f);
    fclose(f);
    int st = boids_ini_read(in_dir("u.ini"), count_line, NULL, e);
    unlink(in_dir("u.ini"));
    return st == BOIDS_OK ? NEUTRAL : st;
}

static int atomic_commit_twice(boids_error *e) {
    boids_atomic_file a;
    if (boids_atomic_open(&a, in_dir("a.csv"), e)) return 0;
    fputs("1\n", a.f);
    if (boids_atomic_commit(&a, e)) return 0;
    int st = boids_atomic_commit(&a, e);
    int files = files_in();
    unlink(in_dir("a.csv"));
    return files == 1 ? st : -99; /* the file committed once, no temporary */
}

static int atomic_commit_zeroed(boids_error *e) {
    boids_atomic_file a;
    memset(&a, 0, sizeof a);
    return boids_atomic_commit(&a, e);
}

/* C(function, misuse, expected status or NEUTRAL, the call with error report e) */
#define ROWS(C)                                                                                    \
    C("boids_ini_read", "NULL path", BOIDS_ERR_INPUT, boids_ini_read(NULL, count_line, NULL, e))   \
    C("boids_ini_read", "NULL fn", BOIDS_ERR_INPUT,                                                \
      boids_ini_read("/nonexistent.ini", NULL, NULL, e))                                           \
    C("boids_ini_read", "NULL user (handed to fn)", NEUTRAL, ini_read_user_null(e))                \
    C("boids_atomic_open", "NULL a", BOIDS_ERR_INPUT, boids_atomic_open(NULL, in_dir("a.csv"), e)) \
    C("boids_atomic_open", "NULL path", BOIDS_ERR_INPUT,                                           \
      boids_atomic_open(&(boids_atomic_file){0}, NULL, e))                                         \
    C("boids_atomic_commit", "NULL a", BOIDS_ERR_INPUT, boids_atomic_commit(NULL, e))              \
    C("boids_atomic_commit", "a zeroed struct", BOIDS_ERR_INPUT, atomic_commit_zeroed(e))          \
    C("boids_atomic_commit", "a second commit", BOIDS_ERR_INPUT, atomic_commit_twice(e))           \
    C("boids_atomic_abort", "NULL a", NEUTRAL, (boids_atomic_abort(NULL), NEUTRAL))                \
    C("boids_atomic_abort", "a zeroed struct", NEUTRAL,                                            \
      (boids_atomic_abort(&(boids_atomic_file){0}), NEUTRAL))                                      \
    C("boids_atomic_cleanup_on_signals", "no argument", NEUTRAL,                                   \
      (boids_atomic_cleanup_on_signals(), NEUTRAL))                                                \
    C("boids_atomic_track", "NULL name", NEUTRAL, (boids_atomic_track(NULL), NEUTRAL))             \
    C("boids_atomic_untrack", "NULL name", NEUTRAL, (boids_atomic_untrack(NULL), NEUTRAL))         \
    C("boids_atomic_track_hook", "NULL hook", NEUTRAL, (boids_atomic_track_hook(NULL), NEUTRAL))   \
    C("boids_atomic_untrack_hook", "NULL hook", NEUTRAL,                                           \
      (boids_atomic_untrack_hook(NULL), NEUTRAL))                                                  \
    C("boids_atomic_check_writable", "NULL path", BOIDS_ERR_INPUT,                                 \
      boids_atomic_check_writable(NULL, e))

typedef struct row {
    const char *entry, *misuse;
    int expect;
} row;
#define AS_ROW(entry, misuse, expect, expr) {entry, misuse, expect},
static const row rows[] = {ROWS(AS_ROW)};

/* Row id's call. */
static int run_row(size_t id, boids_error *e) {
    size_t i = 0;
#define AS_CALL(entry, misuse, expect, expr)                                                       \
    if (id == i++) return (expr);
    ROWS(AS_CALL)
    return -99;
}

static void test_clocks(void) {
    double t0 = mono_seconds(), c0 = cpu_seconds(), prev = t0;
    for (int i = 0; i < 100000; i++) {
        double t = mono_seconds();
        CHECK(t >= prev, "the monotonic clock went back: %.9f after %.9f", t, prev);
        prev = t;
    }
    struct timespec pause = {0, 50000000};
    double before = mono_seconds(), cpu_before = cpu_seconds();
    nanosleep(&pause, NULL);
    double slept = mono_seconds() - before, cpu_slept = cpu_seconds() - cpu_before;
    CHECK(slept >= 0.049 && slept < 30, "a 50 ms sleep took %.6f s", slept);
    CHECK(cpu_slept < 0.04, "a 50 ms sleep used %.6f s of CPU", cpu_slept);
    /* Busy until the CPU clock has counted a millisecond (at most 10 s of wall time). */
    volatile double sink = 0;
    double c1 = c0;
    for (double end = mono_seconds() + 10; c1 - c0 < 1e-3 && mono_seconds() < end;) {
        for (int i = 0; i < 100000; i++) sink += i;
        c1 = cpu_seconds();
    }
    CHECK(c0 >= 0 && c1 - c0 >= 1e-3, "busy work: %.6f s of CPU from %.6f", c1 - c0, c0);
    CHECK(mono_seconds() > t0, "the monotonic clock stood still");
}

static void test_shortest(void) {
    static const struct {
        double v;
        const char *text;
    } known[] = {{0.03, "0.03"},
                 {10, "10"},
                 {1e7, "1e+07"},
                 {360, "360"},
                 {2 * 3.14159265358979323846, "6.283185307179586"},
                 {1.0 / 60, "0.016666666666666666"},
                 {-0.5, "-0.5"},
                 {0, "0"}};
    char buf[32];
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        CHECK(!strcmp(shortest_double(known[i].v, buf, sizeof buf), known[i].text),
              "shortest %.17g: '%s', expected '%s'", known[i].v, buf, known[i].text);
    /* Doubles of every magnitude: the text reads back, and no %.Pg text that reads back is
     * shorter. */
    boids_rng r;
    boids_rng_seed(&r, 30);
    for (int i = 0; i < 20000; i++) {
        double v = (boids_rng_random(&r) - 0.5) * pow(10, (double)(i % 40) - 20);
        shortest_double(v, buf, sizeof buf);
        CHECK(strtod(buf, NULL) == v, "%.17g printed as %s, which reads back otherwise", v, buf);
        for (int p = 1; p <= 17; p++) {
            char t[40];
            snprintf(t, sizeof t, "%.*g", p, v);
            CHECK(strtod(t, NULL) != v || strlen(t) >= strlen(buf),
                  "%.17g: %s is shorter than %s and reads back", v, t, buf);
        }
    }
    CHECK(!strcmp(shortest_double(1.0 / 0.0, buf, sizeof buf), "inf"), "inf: %s", buf);
    shortest_double(1.0 / 3, buf, 5);
    CHECK(!strcmp(buf, "0.33"), "a short buffer: cut, NUL-terminated (%s)", buf);
}

int main(void) {
    test_clocks();
    test_shortest();
    snprintf(dir, sizeof dir, "/tmp/boids-support-XXXXXX");
    CHECK(mkdtemp(dir) != NULL, "mkdtemp");
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        const row *r = &rows[i];
        boids_error err = {BOIDS_OK, ""};
        int got = run_row(i, &err);
        CHECK(got == r->expect, "%s with %s: got %d, expected %d (%s)", r->entry, r->misuse, got,
              r->expect, err.msg);
        if (r->expect != NEUTRAL)
            CHECK((int)err.status == r->expect && err.msg[0], "%s with %s: no message", r->entry,
                  r->misuse);
        got = run_row(i, NULL);
        CHECK(got == r->expect || got == NO_ERR, "%s with %s and a NULL error: got %d", r->entry,
              r->misuse, got);
    }
    CHECK(files_in() == 0, "a row left a file in %s", dir);
    rmdir(dir);
    return CHECK_DONE("support_test");
}
