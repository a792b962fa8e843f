/* SPDX-License-Identifier: MIT */
/* Core unit tests: state file round trip, parameter keys, RNG, order parameter. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "atomic_file.h"
#include "boids/flock.h"
#include "boids/params.h"
#include "boids/rng.h"
#include "boids/state_io.h"
#include "check.h"

static uint64_t bits(double d) {
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    return u;
}

/* Save then load is bit-exact for awkward doubles: subnormals, -0, extremes, values whose
 * shortest form needs 17 significant digits, and random bit patterns. */
static void test_round_trip(void) {
    const double special[] = {
        0.0, -0.0,    DBL_MIN,         DBL_MIN / 3,        DBL_MAX, -DBL_MAX, DBL_TRUE_MIN,
        0.1, 1.0 / 3, 2.0 / 3 * 1e300, 399.99999999999994, 5e-324,  M_PI,     -M_E * 1e-200};
    size_t ns = sizeof special / sizeof special[0], n = ns + 1000;
    boids_flock f, g;
    boids_error err;
    CHECK(boids_flock_alloc(&f, n, &err) == BOIDS_OK, "%s", err.msg);
    boids_rng r;
    boids_rng_seed(&r, 42);
    for (size_t i = 0; i < n; i++) {
        double *cols[4] = {f.x, f.y, f.vx, f.vy};
        for (int c = 0; c < 4; c++) {
            if (i < ns) {
                cols[c][i] = special[(i + (size_t)c) % ns];
            } else {
                double d;
                do { /* random finite bit patterns */
                    uint64_t u = (uint64_t)boids_rng_u32(&r) << 32 | boids_rng_u32(&r);
                    memcpy(&d, &u, sizeof d);
                } while (!isfinite(d));
                cols[c][i] = d;
            }
        }
    }
    char path[] = "/tmp/boids-core-test-XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0, "mkstemp");
    close(fd);
    f.step = 4000000000u; /* the step counter travels with the state */
    CHECK(boids_state_save(path, &f, &err) == BOIDS_OK, "%s", err.msg);
    CHECK(boids_state_load(path, &g, &err) == BOIDS_OK, "%s", err.msg);
    CHECK(g.n == n, "loaded %zu boids, saved %zu", g.n, n);
    CHECK(g.step == f.step, "loaded step %u, saved %u", (unsigned)g.step, (unsigned)f.step);
    size_t mismatches = 0;
    for (size_t i = 0; i < n && g.n == n; i++)
        mismatches += (bits(f.x[i]) != bits(g.x[i])) + (bits(f.y[i]) != bits(g.y[i])) +
                      (bits(f.vx[i]) != bits(g.vx[i])) + (bits(f.vy[i]) != bits(g.vy[i]));
    CHECK(mismatches == 0, "%zu values changed in the round trip", mismatches);
    CHECK(boids_flock_hash(&f) == boids_flock_hash(&g), "hash differs after round trip");
    /* The noise seed travels in the sidecar, up to 2^53; a plain save records none. */
    char sidecar[sizeof path + 5];
    snprintf(sidecar, sizeof sidecar, "%s.json", path);
    boids_flock h;
    long seed = 0;
    CHECK(boids_state_load_seeded(path, NULL, &h, &seed, &err) == BOIDS_OK && seed == -1 &&
              h.step == f.step,
          "a plain save has no noise seed: %ld (%s)", seed, err.msg);
    boids_flock_free(&h);
    CHECK(boids_state_save_seeded(path, &f, 9007199254740992L, &err) == BOIDS_OK, "%s", err.msg);
    CHECK(boids_state_load_seeded(path, NULL, &h, &seed, &err) == BOIDS_OK &&
              seed == 9007199254740992L && h.step == f.step &&
              boids_flock_hash(&h) == boids_flock_hash(&f),
          "the noise seed 2^53 and the step come back: %ld (%s)", seed, err.msg);
    boids_flock_free(&h);
    CHECK(boids_state_save_seeded(path, &f, -2, &err) == BOIDS_ERR_INPUT &&
              strstr(err.msg, "noise seed"),
          "a noise seed below -1 is refused: %s", err.msg);
    unlink(path);
    unlink(sidecar);
    boids_flock_free(&f);
    boids_flock_free(&g);
}

/* Every key's formatted default parses back to the same value. */
static void test_param_keys(void) {
    size_t n;
    const boids_param_info *t = boids_param_table(&n);
    boids_params p = boids_params_default(), q;
    memset(&q, 0xff, sizeof q);
    q = boids_params_default();
    boids_error err;
    CHECK(boids_params_validate(&p, &err) == BOIDS_OK, "defaults invalid: %s", err.msg);
    for (size_t i = 0; i < n; i++) {
        char buf[64];
        boids_params_format(&p, &t[i], buf, sizeof buf);
        CHECK(boids_params_set(&q, t[i].key, buf, "test", &err) == BOIDS_OK, "%s", err.msg);
    }
    CHECK(memcmp(&p, &q, sizeof p) == 0, "formatted defaults do not parse back to the defaults");
    size_t np;
    const boids_preset_info *pt = boids_preset_table(&np);
    for (size_t i = 0; i < np; i++) {
        boids_params x;
        CHECK(boids_preset_apply(&x, pt[i].name, &err) == BOIDS_OK, "%s", err.msg);
        CHECK(boids_params_validate(&x, &err) == BOIDS_OK, "preset %s invalid: %s", pt[i].name,
              err.msg);
    }
    boids_params x = p;
    CHECK(boids_params_set(&x, "vision_radius", "1e999", "t", &err) == BOIDS_ERR_INPUT,
          "overflow accepted");
    CHECK(memcmp(&x, &p, sizeof p) == 0, "a refused value changed the parameters");
}

/* Order is 1 for a parallel flock, within [0, 1] always, and counts resting boids as 0. */
static void test_order(void) {
    boids_flock f;
    boids_error err;
    boids_flock_alloc(&f, 4, &err);
    for (int i = 0; i < 4; i++) f.vx[i] = 1 + i, f.vy[i] = 0;
    CHECK_NEAR(boids_order(&f), 1.0, 1e-15, "parallel boids (rounding of unit vectors)");
    f.vx[1] = -2;
    f.vx[3] = -4;
    CHECK_NEAR(boids_order(&f), 0.0, 1e-15, "two pairs of opposite boids");
    f.vx[3] = 0;
    CHECK_NEAR(boids_order(&f), 0.25, 1e-15, "a resting boid adds nothing, still divides by N");
    boids_flock_free(&f);
    boids_params p = boids_params_default();
    boids_flock_alloc(&f, 10000, &err);
    boids_flock_randomize(&f, &p, 3);
    double o = boids_order(&f);
    CHECK(o >= 0 && o <= 1, "order %g outside [0, 1]", o);
    boids_flock_free(&f);
}

/* Number of entries in a folder besides . and .. */
static int entries(const char *dir) {
    DIR *d = opendir(dir);
    int n = 0;
    for (struct dirent *e; d && (e = readdir(d));)
        n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
    if (d) closedir(d);
    return n;
}

static void slurp(const char *path, char *buf, size_t size) {
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(buf, 1, size - 1, f) : 0;
    buf[n] = '\0';
    if (f) fclose(f);
}

/* An output file is complete or absent: commit replaces the target whole, abort leaves it as
 * it was, and neither leaves a temporary file; a missing folder is bad input. */
static void test_atomic_file(void) {
    char dir[] = "/tmp/boids-atomic-XXXXXX", path[64], buf[64];
    boids_error err;
    CHECK(mkdtemp(dir) != NULL, "mkdtemp");
    snprintf(path, sizeof path, "%s/out.txt", dir);
    boids_atomic_file a;
    CHECK(boids_atomic_open(&a, path, &err) == BOIDS_OK, "%s", err.msg);
    fputs("first", a.f);
    CHECK(access(path, F_OK) != 0, "the target exists before the commit");
    CHECK(boids_atomic_commit(&a, &err) == BOIDS_OK, "%s", err.msg);
    slurp(path, buf, sizeof buf);
    CHECK(strcmp(buf, "first") == 0, "committed content '%s'", buf);
    CHECK(boids_atomic_open(&a, path, &err) == BOIDS_OK, "%s", err.msg);
    fputs("second, abandoned", a.f);
    boids_atomic_abort(&a);
    slurp(path, buf, sizeof buf);
    CHECK(strcmp(buf, "first") == 0, "abort changed the target: '%s'", buf);
    CHECK(entries(dir) == 1, "%d entries: a temporary file was left", entries(dir));
    char missing[96];
    snprintf(missing, sizeof missing, "%s/no-such-folder/out.txt", dir);
    CHECK(boids_atomic_open(&a, missing, &err) == BOIDS_ERR_INPUT && strstr(err.msg, missing),
          "missing folder: %s", err.msg);
    CHECK(boids_atomic_check_writable(path, &err) == BOIDS_OK && entries(dir) == 1,
          "check_writable left something behind");
    unlink(path);
    rmdir(dir);
}

/* Only a regular file or nothing is replaced: a folder, a device, a FIFO, a symbolic link
 * and an empty name are bad input, and the node is left as it was. */
static void test_atomic_refuses_non_regular_targets(void) {
    char dir[] = "/tmp/boids-atomic-XXXXXX", fifo[64], link[64];
    boids_error err;
    CHECK(mkdtemp(dir) != NULL, "mkdtemp");
    snprintf(fifo, sizeof fifo, "%s/fifo", dir);
    snprintf(link, sizeof link, "%s/link", dir);
    CHECK(mkfifo(fifo, 0600) == 0 && symlink("nowhere", link) == 0, "mkfifo, symlink");
    const char *targets[] = {"/dev/null", dir, fifo, link, "", "some/folder/"};
    const char *words[] = {"device", "folder", "FIFO", "symbolic link", "empty", "folder"};
    for (int i = 0; i < 6; i++) {
        boids_atomic_file a;
        boids_status s = boids_atomic_open(&a, targets[i], &err);
        CHECK(s == BOIDS_ERR_INPUT && strstr(err.msg, words[i]) && strstr(err.msg, targets[i]),
              "'%s': status %d, %s", targets[i], s, err.msg);
        if (!s) boids_atomic_abort(&a);
    }
    struct stat st;
    CHECK(lstat(fifo, &st) == 0 && S_ISFIFO(st.st_mode), "the FIFO was replaced");
    CHECK(lstat(link, &st) == 0 && S_ISLNK(st.st_mode), "the link was replaced");
    CHECK(entries(dir) == 2, "%d entries: a temporary file was left", entries(dir));
    unlink(fifo);
    unlink(link);
    rmdir(dir);
}

/* The hook of test_atomic_signal_removes_temporaries: removes the file its argument names. */
static void unlink_arg(void *name) {
    unlink(name);
}

/* SIGTERM while a temporary file is open removes it (and a tracked private folder with its
 * file, and a file that only a hook removes, before the folder), then ends the process by
 * that signal, as without the handler. */
static void test_atomic_signal_removes_temporaries(void) {
    char dir[] = "/tmp/boids-atomic-XXXXXX", path[64], priv[64], inner[80], hooked[80];
    CHECK(mkdtemp(dir) != NULL, "mkdtemp");
    snprintf(path, sizeof path, "%s/out.txt", dir);
    snprintf(priv, sizeof priv, "%s/private", dir);
    snprintf(inner, sizeof inner, "%s/private/plot.svg", dir);
    snprintf(hooked, sizeof hooked, "%s/private/frame_0.vtp", dir);
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        boids_atomic_cleanup_on_signals();
        boids_atomic_file a;
        boids_error err;
        if (boids_atomic_open(&a, path, &err) || mkdir(priv, 0700)) _exit(3);
        boids_atomic_track(priv);
        FILE *f = fopen(inner, "w");
        if (!f) _exit(3);
        boids_atomic_track(inner);
        FILE *g = fopen(hooked, "w");
        if (!g) _exit(3);
        boids_atomic_hook hook = {unlink_arg, hooked};
        boids_atomic_track_hook(&hook);
        fputs("partial", a.f);
        fflush(a.f);
        raise(SIGTERM);
        _exit(4); /* not reached: the default action ends the process */
    }
    int status = 0;
    CHECK(pid > 0 && waitpid(pid, &status, 0) == pid, "fork, wait");
    CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM, "child status %#x", status);
    CHECK(entries(dir) == 0, "%d entries left after SIGTERM", entries(dir));
    rmdir(priv);
    rmdir(dir);
}

int main(void) {
    test_atomic_file();
    test_atomic_refuses_non_regular_targets();
    test_atomic_signal_removes_temporaries();
    test_round_trip();
    test_param_keys();
    test_order();
    return CHECK_DONE("core_test");
}
