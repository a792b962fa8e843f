/* SPDX-License-Identifier: MIT */
/* .npy state files: a save/load round trip keeps every bit (2-D and 3-D, any finite double),
 * a .npy state saved as CSV gives the CSV save's bytes, a '<f4' array (the trajectory dtype)
 * loads as its float values, and every bad header, truncated or padded data, non-finite value
 * or boid the parameters do not allow is refused with BOIDS_ERR_INPUT, one message naming the
 * file and what is wrong, and an empty flock. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "boids/flock.h"
#include "boids/params.h"
#include "boids/rng.h"
#include "boids/state_io.h"
#include "check.h"

static char dir[] = "/tmp/boids-npy-test-XXXXXX";

static const char *in_dir(const char *name) {
    static char path[4][128];
    static int k;
    k = (k + 1) % 4;
    snprintf(path[k], sizeof path[k], "%s/%s", dir, name);
    return path[k];
}

static char *slurp(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    rewind(f);
    char *text = malloc((size_t)size + 1);
    *len = text ? fread(text, 1, (size_t)size, f) : 0;
    fclose(f);
    return text;
}

static int same_file(const char *a, const char *b) {
    size_t la, lb;
    char *x = slurp(a, &la), *y = slurp(b, &lb);
    int same = x && y && la == lb && memcmp(x, y, la) == 0;
    free(x);
    free(y);
    return same;
}

/* Any finite bit patterns, awkward ones first: the round trip must keep them all. */
static void fill(boids_flock *f, uint64_t seed) {
    const double special[] = {0.0,     -0.0,     DBL_MIN, DBL_MIN / 3, DBL_TRUE_MIN,
                              DBL_MAX, -DBL_MAX, 0.1,     1.0 / 3,     399.99999999999994};
    size_t ns = sizeof special / sizeof special[0];
    boids_rng r;
    boids_rng_seed(&r, seed);
    double *cols[6] = {f->x, f->y, f->vx, f->vy, f->z, f->vz};
    for (int c = 0; c < 2 * boids_flock_dim(f); c++)
        for (size_t i = 0; i < f->n; i++) {
            double d = special[(i + (size_t)c) % ns];
            while (i >= ns) { /* random finite bit patterns */
                uint64_t u = (uint64_t)boids_rng_u32(&r) << 32 | boids_rng_u32(&r);
                memcpy(&d, &u, sizeof d);
                if (isfinite(d)) break;
            }
            cols[c][i] = d;
        }
}

static int same_bits(const boids_flock *a, const boids_flock *b) {
    int vals = 2 * boids_flock_dim(a);
    const double *ca[6] = {a->x, a->y, a->vx, a->vy, a->z, a->vz};
    const double *cb[6] = {b->x, b->y, b->vx, b->vy, b->z, b->vz};
    if (a->n != b->n || boids_flock_dim(b) != boids_flock_dim(a)) return 0;
    for (int c = 0; c < vals; c++)
        if (memcmp(ca[c], cb[c], a->n * sizeof(double))) return 0;
    return 1;
}

/* Save then load through .npy is bit-exact with the step and noise seed; the file is what
 * NumPy writes for such an array (64-byte aligned header, then the rows). */
static void test_round_trip(int dim) {
    boids_flock f, g;
    boids_error err;
    size_t n = 3000; /* more than one chunk of the streamed writer and reader */
    CHECK(boids_flock_alloc_dim(&f, n, dim, &err) == BOIDS_OK, "%s", err.msg);
    fill(&f, 42 + (uint64_t)dim);
    f.step = 4000000000u;
    const char *path = in_dir(dim == 3 ? "r3.npy" : "r2.npy");
    CHECK(boids_state_save_seeded(path, &f, 9007199254740992L, &err) == BOIDS_OK, "%s", err.msg);
    long seed = 0;
    CHECK(boids_state_load_seeded(path, NULL, &g, &seed, &err) == BOIDS_OK, "%s", err.msg);
    CHECK(same_bits(&f, &g), "%d-D: the .npy round trip changed a value", dim);
    CHECK(boids_flock_hash(&f) == boids_flock_hash(&g), "%d-D: hash differs", dim);
    CHECK(g.step == f.step && seed == 9007199254740992L, "%d-D: step %u, seed %ld", dim,
          (unsigned)g.step, seed);
    size_t len;
    char *text = slurp(path, &len);
    char want[64];
    snprintf(want, sizeof want, "'shape': (%zu, %d), }", n, 2 * dim);
    CHECK(text && len == 128 + n * (size_t)(2 * dim) * 8 && !memcmp(text, "\x93NUMPY\x01\x00", 8) &&
              strstr(text + 10, "'descr': '<f8'") && strstr(text + 10, want) && text[127] == '\n',
          "%d-D: the file is a 128-byte 1.0 header and N x %d doubles (%zu bytes)", dim, 2 * dim,
          len);
    /* The first value is boid 0's x, little-endian. */
    uint64_t x0 = 0, want0;
    for (int b = 7; text && b >= 0; b--) x0 = x0 << 8 | (unsigned char)text[128 + b];
    memcpy(&want0, &f.x[0], sizeof want0);
    CHECK(x0 == want0, "%d-D: row 0 starts with x", dim);
    free(text);
    boids_flock_free(&f);
    boids_flock_free(&g);
}

/* A flock a run could hold, saved as CSV, as .npy, and the .npy loaded and saved as CSV: the
 * same bytes as the first CSV, sidecar included. */
static void test_csv_npy_csv(int dim) {
    boids_params p = boids_params_default();
    p.dim = dim;
    boids_flock f, g;
    boids_error err;
    CHECK(boids_flock_alloc_dim(&f, 500, dim, &err) == BOIDS_OK, "%s", err.msg);
    boids_flock_randomize(&f, &p, 7);
    f.step = 12;
    const char *a = in_dir("a.csv"), *b = in_dir("b.npy"), *c = in_dir("c.csv");
    CHECK(boids_state_save_seeded(a, &f, 3, &err) == BOIDS_OK, "%s", err.msg);
    boids_flock_free(&f);
    long seed;
    CHECK(boids_state_load_seeded(a, &p, &f, &seed, &err) == BOIDS_OK, "%s", err.msg);
    CHECK(boids_state_save_seeded(b, &f, seed, &err) == BOIDS_OK, "%s", err.msg);
    CHECK(boids_state_load_seeded(b, &p, &g, &seed, &err) == BOIDS_OK, "%s", err.msg);
    CHECK(boids_state_save_seeded(c, &g, seed, &err) == BOIDS_OK, "%s", err.msg);
    char aj[160], cj[160];
    snprintf(aj, sizeof aj, "%s.json", a);
    snprintf(cj, sizeof cj, "%s.json", c);
    CHECK(same_file(a, c) && same_file(aj, cj), "%d-D: CSV -> .npy -> CSV changed the bytes", dim);
    boids_flock_free(&f);
    boids_flock_free(&g);
}

/* A .npy file of the given header dict and data. */
static const char *npy(const char *name, const char *magic, const char *dict, const void *data,
                       size_t bytes) {
    const char *path = in_dir(name);
    FILE *f = fopen(path, "wb");
    size_t len = strlen(dict) + 1, hlen = (10 + len + 63) / 64 * 64 - 10;
    fwrite(magic, 1, 8, f);
    fputc((int)(hlen & 0xff), f);
    fputc((int)(hlen >> 8), f);
    fputs(dict, f);
    for (size_t i = len; i < hlen; i++) fputc(' ', f);
    fputc('\n', f);
    fwrite(data, 1, bytes, f);
    fclose(f);
    return path;
}

static const char V1[] = "\x93NUMPY\x01\x00";

/* '<f4', the trajectory dtype: each value is the float's, exactly. */
static void test_f4(void) {
    float v[2][4] = {{1.5f, 2.25f, 0.1f, -0.2f}, {399.75f, 1.0f / 3, 0, 0.5f}};
    const char *path = npy(
        "f4.npy", V1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 4), }", v, sizeof v);
    boids_params p = boids_params_default();
    boids_flock f;
    boids_error err;
    CHECK(boids_state_load_for(path, &p, &f, &err) == BOIDS_OK, "%s", err.msg);
    CHECK(f.n == 2 && f.x[0] == 1.5 && f.y[1] == (double)(1.0f / 3) && f.vx[0] == (double)0.1f &&
              f.vy[0] == (double)-0.2f && f.y[0] == 2.25 && f.x[1] == 399.75 && f.vx[1] == 0 &&
              f.vy[1] == 0.5 && f.step == 0,
          "'<f4' values load as their floats");
    boids_flock_free(&f);
    /* Another order of the keys, double quotes and no trailing comma are a dict too. */
    path = npy("keys.npy", V1, "{\"shape\": (2, 4), \"fortran_order\": False, \"descr\": \"<f4\"}",
               v, sizeof v);
    CHECK(boids_state_load_for(path, &p, &f, &err) == BOIDS_OK && f.n == 2, "%s", err.msg);
    boids_flock_free(&f);
}

/* Format 2.0 (and 3.0, the same layout): a 32-bit header length, as NumPy writes for a header
 * beyond 65535 bytes. */
static void test_version2(void) {
    double v[1][4] = {{1, 2, 0.5, 0}};
    const char dict[] = "{'descr': '<f8', 'fortran_order': False, 'shape': (1, 4), }";
    for (int major = 2; major <= 3; major++) {
        const char *path = in_dir("v2.npy");
        FILE *f = fopen(path, "wb");
        size_t hlen = (12 + sizeof dict + 63) / 64 * 64 - 12; /* dict, padding, '\n' */
        fwrite("\x93NUMPY", 1, 6, f);
        fputc(major, f);
        fputc(0, f);
        for (int b = 0; b < 4; b++) fputc((int)(hlen >> (8 * b)) & 0xff, f);
        fputs(dict, f);
        for (size_t i = sizeof dict; i < hlen; i++) fputc(' ', f);
        fputc('\n', f);
        fwrite(v, 1, sizeof v, f);
        fclose(f);
        boids_flock g;
        boids_error err;
        CHECK(boids_state_load(path, &g, &err) == BOIDS_OK && g.n == 1 && g.x[0] == 1 &&
                  g.vx[0] == 0.5,
              "format %d.0 loads: %s", major, err.msg);
        if (g.x) boids_flock_free(&g);
    }
}

/* Each bad file: BOIDS_ERR_INPUT, an empty flock, a message naming the file and each word. */
static void refused(const char *what, const char *path, const boids_params *p, const char *w1,
                    const char *w2) {
    boids_flock f;
    boids_error err;
    memset(&f, 0x5a, sizeof f);
    boids_status s = boids_state_load_for(path, p, &f, &err);
    CHECK(s == BOIDS_ERR_INPUT && f.n == 0 && f.x == NULL, "%s: status %d, %zu boids", what, (int)s,
          s ? f.n : 0);
    const char *base = strrchr(path, '/') + 1;
    CHECK(s && strstr(err.msg, base) && strstr(err.msg, w1) && (!w2 || strstr(err.msg, w2)),
          "%s: the message names %s, '%s' and '%s': %s", what, base, w1, w2 ? w2 : "", err.msg);
    if (!s) boids_flock_free(&f);
    if (getenv("BOIDS_TEST_VERBOSE")) printf("%s: %s\n", what, err.msg);
}

static void test_refused(void) {
    boids_params p = boids_params_default();
    double good[2][4] = {{1, 2, 0.5, 0}, {3, 4, 0, 0.5}};
    const char *d24 = "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 4), }";
    refused("wrong magic", npy("m.npy", "\x93NUMPZ\x01\x00", d24, good, sizeof good), &p,
            "not a .npy file", NULL);
    refused("version 4.0", npy("v.npy", "\x93NUMPY\x04\x00", d24, good, sizeof good), &p,
            "version 4.0", NULL);
    refused("big-endian",
            npy("be.npy", V1, "{'descr': '>f8', 'fortran_order': False, 'shape': (2, 4), }", good,
                sizeof good),
            &p, "dtype '>f8'", "'<f8' or '<f4'");
    refused("integers",
            npy("i8.npy", V1, "{'descr': '<i8', 'fortran_order': False, 'shape': (2, 4), }", good,
                sizeof good),
            &p, "dtype '<i8'", NULL);
    refused("Fortran order",
            npy("fo.npy", V1, "{'descr': '<f8', 'fortran_order': True, 'shape': (2, 4), }", good,
                sizeof good),
            &p, "fortran_order is True", NULL);
    refused("1-D",
            npy("s1.npy", V1, "{'descr': '<f8', 'fortran_order': False, 'shape': (8,), }", good,
                sizeof good),
            &p, "shape (8,)", "(N, 4)");
    refused(
        "5 columns",
        npy("s5.npy", V1, "{'descr': '<f8', 'fortran_order': False, 'shape': (1, 5), }", good, 40),
        &p, "shape (1, 5)", "(N, 6)");
    refused("3 axes",
            npy("s3.npy", V1, "{'descr': '<f8', 'fortran_order': False, 'shape': (1, 2, 4), }",
                good, sizeof good),
            &p, "shape (1, 2, 4)", NULL);
    refused(
        "no boids",
        npy("s0.npy", V1, "{'descr': '<f8', 'fortran_order': False, 'shape': (0, 4), }", good, 0),
        &p, "no boids", NULL);
    refused("no shape",
            npy("ns.npy", V1, "{'descr': '<f8', 'fortran_order': False}", good, sizeof good), &p,
            "no 'shape' key", NULL);
    refused("an unknown key", npy("uk.npy", V1, "{'descr': '<f8', 'order': 1}", good, sizeof good),
            &p, "key 'order' unknown", NULL);
    refused("not a dict", npy("nd.npy", V1, "[1, 2]", good, sizeof good), &p, "not a dict", NULL);
    refused("truncated data", npy("tr.npy", V1, d24, good, sizeof good - 8), &p, "truncated",
            "the file holds 56");
    double padded[12] = {1, 2, 0.5, 0, 3, 4, 0, 0.5}; /* the two boids and four more values */
    refused("bytes after the data", npy("pad.npy", V1, d24, padded, sizeof padded), &p,
            "bytes after the data", "holds 96");
    refused("a billion boids in a small file",
            npy("big.npy", V1,
                "{'descr': '<f8', 'fortran_order': False, 'shape': (1000000000, 4), }", good,
                sizeof good),
            &p, "truncated", NULL);
    FILE *f = fopen(in_dir("short.npy"), "wb");
    fwrite("\x93NUMPY\x01\x00\x76", 1, 9, f);
    fclose(f);
    refused("a truncated header", in_dir("short.npy"), &p, "truncated", NULL);
    f = fopen(in_dir("empty.npy"), "wb");
    fclose(f);
    refused("an empty file", in_dir("empty.npy"), &p, "not a .npy file", NULL);
    double inf[2][4] = {{1, 2, 0.5, 0}, {3, 4, INFINITY, 0.5}};
    refused("an infinite velocity", npy("inf.npy", V1, d24, inf, sizeof inf), &p, "boid 1",
            "column vx");
    double out[2][4] = {{1, 2, 0.5, 0}, {3, 1e6, 0, 0.5}};
    refused("a position outside the world", npy("out.npy", V1, d24, out, sizeof out), &p,
            "boid 1 (row 1)", "outside");
    p.dim = 3;
    refused("a 2-D state for 3-D parameters", npy("dim.npy", V1, d24, good, sizeof good), &p, "2-D",
            "dim = 3");
    p.dim = 2;
    /* The sidecar's checks hold as for a CSV. */
    const char *path = npy("side.npy", V1, d24, good, sizeof good);
    f = fopen(in_dir("side.npy.json"), "w");
    fputs("{\"n\": 3}", f);
    fclose(f);
    refused("a sidecar of another N", path, &p, "side.npy.json", "holds 2 boids");
    f = fopen(in_dir("side.npy.json"), "w");
    fputs("{\"flock_hash\": \"0123456789abcdef\"}", f);
    fclose(f);
    refused("a stale sidecar", path, &p, "side.npy.json", ".npy file changed after the save");
    unlink(in_dir("side.npy.json"));
    mkdir(in_dir("folder.npy"), 0700);
    refused("a folder", in_dir("folder.npy"), &p, "state file is a folder", NULL);
}

int main(void) {
    if (!mkdtemp(dir)) return 1;
    test_round_trip(2);
    test_round_trip(3);
    test_csv_npy_csv(2);
    test_csv_npy_csv(3);
    test_f4();
    test_version2();
    test_refused();
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0) CHECK(0, "removing %s", dir);
    return CHECK_DONE("state_npy_test");
}
