/* SPDX-License-Identifier: MIT */
/* Every public entry point called wrongly: NULL for each pointer argument, partly filled
 * structs (a flock without some arrays, a table with a negative count, an enum value out of
 * range), states that are not finite, empty flocks, a flock of another N, invalid parameters
 * (one step longer than half the world), a backend of the wrong kind. Each must refuse with
 * an error status and a message (or, where a function has no error return, give its neutral
 * value: 0, NULL, "") and never crash, run a step or leave a file. tests/api_table_test.py
 * checks that the table below has a row for every function of the public headers and for
 * every pointer argument of each; every row runs twice, the second time with a NULL error
 * report, which every function must accept. The support library's functions (atomic files,
 * the INI reader), which are not public, have their rows in tests/support_test.c.
 *
 * Built against the public headers and the shared libraries only, as a user links them.
 * The GPU rows (built with the GPU library, BOIDS_TEST_GPU) need no GL context: they are the
 * misuses that must be caught before one is touched. */
#include <dirent.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <boids/boids.h>

#include "check.h"

enum {
    NEUTRAL = -1, /* the row expects the neutral value of a function without a status */
    NO_ERR = -2   /* what ST(e) gives in the pass with a NULL error report */
};

/* The status a creator left in e (which returned NULL), or NO_ERR without a report. */
#define ST(e) ((e) ? (int)(e)->status : NO_ERR)

typedef struct fixture {
    boids_params p, far;              /* valid; one step longer than half the world */
    boids_flock f, other, empty, nan; /* 80 boids; 10; none; 80 with a NaN */
    boids_flock bare, novy;           /* n = 10 without arrays; f's arrays but vy */
    boids_backend *cpu, *ref;
    boids_interact t; /* the default table */
    char dir[64];     /* a fresh folder for the rows that write files */
} fixture;

static const char *expect_name(int expect) {
    switch (expect) {
    case BOIDS_ERR_INPUT:
        return "BOIDS_ERR_INPUT";
    case BOIDS_ERR_LIMIT:
        return "BOIDS_ERR_LIMIT";
    case BOIDS_ERR_RUNTIME:
        return "BOIDS_ERR_RUNTIME";
    case NEUTRAL:
        return "neutral value";
    }
    return "?";
}

static int asserts_fired;
static void count_assert(const char *condition, const char *file, int line) {
    (void)condition, (void)file, (void)line;
    asserts_fired++;
}

static char *in_dir(fixture *x, const char *name) {
    static char path[128];
    snprintf(path, sizeof path, "%s/%s", x->dir, name);
    return path;
}

/* The number of files in the fixture's folder. */
static int files_in(const fixture *x) {
    DIR *d = opendir(x->dir);
    int n = 0;
    for (struct dirent *de; d && (de = readdir(d));) n += de->d_name[0] != '.';
    if (d) closedir(d);
    return n;
}

/* ---- rows that need more than one call ------------------------------------------------------ */
static int error_set_null_fmt(void) {
    boids_error l = {BOIDS_OK, ""};
    const char *none = NULL;
    return boids_error_set(&l, BOIDS_ERR_INPUT, none) == BOIDS_ERR_INPUT && l.msg[0] ? NEUTRAL : 0;
}
static int assert_handler_null(void) {
    boids_assert_handler old = boids_set_assert_handler(NULL);
    boids_assert_handler dflt = boids_set_assert_handler(count_assert);
    return old == count_assert && dflt != NULL && dflt != count_assert ? NEUTRAL : 0;
}
static int flock_alloc_zero(boids_error *e) {
    boids_flock g;
    return boids_flock_alloc(&g, 0, e);
}
static int flock_alloc_dim4(boids_error *e) {
    boids_flock g;
    return boids_flock_alloc_dim(&g, 5, 4, e);
}
static int flock_copy(const boids_flock *src, boids_error *e) {
    boids_flock g;
    boids_status st = boids_flock_copy(&g, src, e);
    if (!st) boids_flock_free(&g);
    return st;
}
static int randomize_untouched(fixture *x, boids_flock *f, const boids_params *p) {
    uint64_t h = boids_flock_hash(&x->f);
    boids_flock_randomize(f, p, 3);
    return boids_flock_hash(&x->f) == h ? NEUTRAL : 0;
}
static int boid_check(fixture *x, int dim, int null_p, int null_v, const char *where,
                      boids_error *e) {
    double v[6] = {NAN, 1, 1, 1, 1, 1};
    const boids_params *p = null_p ? NULL : &x->p;
    return dim == 3 ? boids_boid_check3(p, null_v ? NULL : v, 1, where, e)
                    : boids_boid_check(p, null_v ? NULL : v, 1, where, e);
}
static int defaults_valid(boids_error *e) {
    boids_params d = boids_params_default();
    return boids_params_validate(&d, e) ? 0 : NEUTRAL;
}
static int interact_default_null_p(void) {
    boids_interact t;
    boids_params d = boids_params_default();
    boids_interact_default(&t, NULL);
    return t.predators[0].x == d.width / 2 && t.obstacle_count == 0 ? NEUTRAL : 0;
}
static int add_obstacle(fixture *x, int count, const boids_obstacle *o, const char *where,
                        boids_error *e) {
    boids_interact t = x->t, before;
    t.obstacle_count = count;
    before = t;
    int st = boids_interact_add_obstacle(&t, o, where, e);
    /* A refused obstacle leaves the table as it was, every byte of it. */
    return st && memcmp(&t, &before, sizeof t) ? -99 : st;
}
static const boids_obstacle circle = {BOIDS_OBSTACLE_CIRCLE, 5, 5, 0, 0, 2, 0};
static const boids_obstacle bad_circle = {BOIDS_OBSTACLE_CIRCLE, 5, 5, 0, 0, -1, 0};
static int interact_with_count(fixture *x, int count, int what, boids_error *e) {
    boids_interact t = x->t;
    t.obstacle_count = count;
    if (what == 0) return boids_interact_check(&t, NULL, e);
    if (what == 1) return boids_interact_check_dim(&t, 2, e);
    return boids_backend_set_interact(x->cpu, &t, e);
}
static int check_point_bad(boids_error *e) {
    boids_point pt = {1, 1, 1, -5, 1, 0};
    return boids_interact_check_point(&pt, NULL, e);
}
static int write_file(fixture *x, const char *name, const char *text) {
    FILE *f = fopen(in_dir(x, name), "w");
    if (!f) return 0;
    fputs(text, f);
    return fclose(f) == 0;
}
static int load_ini_theirs_null(fixture *x, boids_error *e) {
    boids_params q = x->p;
    if (!write_file(x, "p.ini", "width = 800\n")) return 0;
    int st = boids_params_load_ini_except(&q, in_dir(x, "p.ini"), NULL, e);
    unlink(in_dir(x, "p.ini"));
    return st == BOIDS_OK && q.width == 800 ? NEUTRAL : st;
}
static int range_null(void) {
    char buf[16] = "x";
    boids_param_range(NULL, buf, sizeof buf);
    boids_param_range(boids_param_find("width"), NULL, 16);
    return buf[0] == '\0' ? NEUTRAL : 0;
}
static int format_null(fixture *x, int which) {
    char buf[16] = "x";
    const boids_param_info *info = boids_param_find("count");
    if (which == 0) boids_params_format(NULL, info, buf, sizeof buf);
    if (which == 1) boids_params_format(&x->p, NULL, buf, sizeof buf);
    if (which == 2) boids_params_format(&x->p, info, NULL, sizeof buf);
    return which == 2 || buf[0] == '\0' ? NEUTRAL : 0;
}
static int format_model77(fixture *x) {
    char buf[16];
    boids_params q = x->p;
    q.model = 77;
    boids_params_format(&q, boids_param_find("model"), buf, sizeof buf);
    return !strcmp(buf, "77") ? NEUTRAL : 0;
}
static int state_save_novy(fixture *x, boids_error *e) {
    int st = boids_state_save(in_dir(x, "s.csv"), &x->novy, e);
    return files_in(x) ? -99 : st; /* neither the state nor a temporary file */
}
static int state_save_seeded_novy(fixture *x, boids_error *e) {
    int st = boids_state_save_seeded(in_dir(x, "s.csv"), &x->novy, 1, e);
    return files_in(x) ? -99 : st; /* neither file nor its sidecar, nor a temporary one */
}
/* Loads a file that does not exist, with p or the noise seed's place NULL (both allowed),
 * into a flock of its own: a load allocates the flock it fills. */
static int load_seeded_missing(fixture *x, int with_p, boids_error *e) {
    boids_flock g = {0};
    long seed = 7;
    int st = boids_state_load_seeded(in_dir(x, "none.csv"), with_p ? &x->p : NULL, &g,
                                     with_p ? NULL : &seed, e);
    boids_flock_free(&g);
    return st;
}
static int fit_world_nan_aspect(fixture *x, boids_error *e) {
    boids_params q = x->p;
    int st = boids_params_fit_world(&q, &x->p, NAN, e);
    return memcmp(&q, &x->p, sizeof q) ? -99 : st; /* refused and p unchanged */
}
static int centre_null(fixture *x, int which) {
    double cx = 1, cy = 1;
    boids_metrics_centre(which == 0 ? NULL : &x->f, which == 1 ? NULL : &x->p,
                         which == 2 ? NULL : &cx, which == 3 ? NULL : &cy);
    return which >= 2 || (cx == 0 && cy == 0) ? NEUTRAL : 0;
}
/* boids_order_species with argument which NULL (0 f: every order 0; 1 p: one species, the
 * flock's order; 2 out: nothing to write). */
static int order_species_null(fixture *x, int which) {
    double out[BOIDS_MAX_SPECIES] = {-1, -1, -1, -1};
    boids_order_species(which == 0 ? NULL : &x->f, which == 1 ? NULL : &x->p,
                        which == 2 ? NULL : out);
    if (which == 0) return out[0] == 0.0 ? NEUTRAL : 0;
    if (which == 1) return out[0] == boids_order(&x->f) && out[1] == -1 ? NEUTRAL : 0;
    return NEUTRAL;
}
static int centre3_null(fixture *x, int which) {
    double c[3] = {1, 1, 1};
    boids_metrics_centre3(which == 0 ? NULL : &x->f, which == 1 ? NULL : &x->p,
                          which == 2 ? NULL : c);
    return which == 2 || (c[0] == 0 && c[1] == 0 && c[2] == 0) ? NEUTRAL : 0;
}
/* boids_velocity_correlation_add with argument which NULL (0 f, 1 p, 2 sum, 3 pairs; 4: a
 * flock without vy), or none (-1); a refusal must leave the sums as they were. */
static int correlation_add(fixture *x, int which, double range, size_t bins, boids_error *e) {
    double sum[4] = {0}, pairs[4] = {0};
    int st = boids_velocity_correlation_add(which == 0   ? NULL
                                            : which == 4 ? &x->novy
                                                         : &x->f,
                                            which == 1 ? NULL : &x->p, range, bins,
                                            which == 2 ? NULL : sum, which == 3 ? NULL : pairs, e);
    for (int b = 0; b < 4; b++)
        if (sum[b] != 0 || pairs[b] != 0) return -99;
    return st;
}
static int rng_null(void) {
    boids_rng_seed(NULL, 1);
    return boids_rng_u32(NULL) == 0 && boids_rng_random(NULL) == 0 &&
                   boids_rng_uniform(NULL, 2, 5) == 2
               ? NEUTRAL
               : 0;
}
static int create_nan(fixture *x, int which, boids_error *e) {
    boids_backend *b =
        which == 0 ? boids_cpu_ref_create(&x->nan, e) : boids_cpu_create(&x->nan, 1, e);
    boids_backend_destroy(b);
    return b ? 0 : ST(e);
}

#if BOIDS_TEST_GPU
/* ---- GPU (no context is made) -------------------------------------------------------------- */
/* boids_gl_create with the environment variable name set to value (and then unset). */
static int gl_create_env(const char *name, const char *value, boids_error *e) {
    setenv(name, value, 1);
    boids_gl *gl = boids_gl_create(0, e);
    unsetenv(name);
    boids_gl_destroy(gl);
    return gl ? 0 : ST(e);
}
static int gpu_check_k(fixture *x, boids_error *e) {
    boids_params q = x->p;
    q.neighbours = BOIDS_NEIGHBOURS_TOPOLOGICAL;
    q.k = BOIDS_GPU_MAX_K + 1;
    return boids_gpu_check_params(&q, e);
}
static int gpu_max_count_no_gl(int with_why) {
    char why[160] = "";
    return boids_gpu_max_count(with_why ? why : NULL, sizeof why) == 0 && (!with_why || why[0])
               ? NEUTRAL
               : 0;
}
static int gpu_grid_null(fixture *x, int which) {
    unsigned ncx = 1, ncy = 1;
    boids_gpu_grid(which == 0 ? NULL : x->cpu, which == 1 ? NULL : &ncx, which == 2 ? NULL : &ncy);
    return (which == 1 || ncx == 0) && (which == 2 || ncy == 0) ? NEUTRAL : 0;
}
static int gpu_timings_null(void) {
    boids_gpu_timings_reset(NULL);
    return boids_gpu_timings(NULL).steps == 0 ? NEUTRAL : 0;
}
/* A CPU backend given to the GPU getters: asserted in debug builds, zeros otherwise. */
static int gpu_getters_cpu(fixture *x) {
    int fired = asserts_fired;
    unsigned ncx = 1, ncy = 1;
    boids_gpu_grid(x->cpu, &ncx, &ncy);
    boids_gpu_timings_reset(x->cpu);
    boids_gpu_timing t = boids_gpu_timings(x->cpu);
    int zeros = boids_gpu_state_buffer(x->cpu) == 0 && boids_gpu_id_buffer(x->cpu) == 0 &&
                boids_gpu_velocity_buffer(x->cpu) == 0 && ncx == 0 && ncy == 0 && t.steps == 0 &&
                !boids_backend_is_gpu(x->cpu) && boids_gpu_bytes(x->cpu) == 0;
    CHECK((asserts_fired > fired) == (boids_asserts_enabled() != 0),
          "GPU getters with a cpu backend: %d assertion(s), assertions %s", asserts_fired - fired,
          boids_asserts_enabled() ? "on" : "off");
    return zeros ? NEUTRAL : 0;
}
static int options_default(void) {
    boids_gpu_options o = boids_gpu_options_default();
    return o.deterministic == 1 && o.variant == BOIDS_GPU_VARIANT_PLAIN && !o.log ? NEUTRAL : 0;
}
#endif

/* ---- the table ------------------------------------------------------------------------------
 * C(function, misuse, expected, expression): the expression makes the call with fixture x and
 * error report e and gives a status, NEUTRAL, or 0 / -99 for a wrong answer. The misuse of a
 * NULL pointer argument reads "NULL <the argument's name in the header>". */
#define CORE_ROWS(C)                                                                               \
    C("boids_error_set", "NULL err", NEUTRAL,                                                      \
      boids_error_set(NULL, BOIDS_ERR_LIMIT, "x") == BOIDS_ERR_LIMIT ? NEUTRAL : 0)                \
    C("boids_error_set", "NULL fmt", NEUTRAL, error_set_null_fmt())                                \
    C("boids_error_clear", "NULL err", NEUTRAL, (boids_error_clear(NULL), NEUTRAL))                \
    C("boids_status_exit_code", "status 99 (1)", NEUTRAL,                                          \
      boids_status_exit_code((boids_status)99) == 1 ? NEUTRAL : 0)                                 \
    C("boids_set_assert_handler", "NULL handler (the default again)", NEUTRAL,                     \
      assert_handler_null())                                                                       \
    C("boids_asserts_enabled", "no argument (0 or 1)", NEUTRAL,                                    \
      boids_asserts_enabled() == !!boids_asserts_enabled() ? NEUTRAL : 0)                          \
    C("boids_version", "no argument (a version)", NEUTRAL, boids_version()[0] ? NEUTRAL : 0)       \
    C("boids_flock_alloc", "NULL f", BOIDS_ERR_INPUT, boids_flock_alloc(NULL, 5, e))               \
    C("boids_flock_alloc", "n = 0", BOIDS_ERR_INPUT, flock_alloc_zero(e))                          \
    C("boids_flock_alloc_dim", "NULL f", BOIDS_ERR_INPUT, boids_flock_alloc_dim(NULL, 5, 3, e))    \
    C("boids_flock_alloc_dim", "dim = 4", BOIDS_ERR_INPUT, flock_alloc_dim4(e))                    \
    C("boids_flock_dim", "NULL f (2)", NEUTRAL, boids_flock_dim(NULL) == 2 ? NEUTRAL : 0)          \
    C("boids_flock_free", "NULL f", NEUTRAL, (boids_flock_free(NULL), NEUTRAL))                    \
    C("boids_flock_copy", "NULL dst", BOIDS_ERR_INPUT, boids_flock_copy(NULL, &x->f, e))           \
    C("boids_flock_copy", "NULL src", BOIDS_ERR_INPUT, flock_copy(NULL, e))                        \
    C("boids_flock_copy", "a source without arrays", BOIDS_ERR_INPUT, flock_copy(&x->bare, e))     \
    C("boids_flock_copy", "a source without vy", BOIDS_ERR_INPUT, flock_copy(&x->novy, e))         \
    C("boids_flock_randomize", "NULL f", NEUTRAL, randomize_untouched(x, NULL, &x->p))             \
    C("boids_flock_randomize", "NULL p", NEUTRAL, randomize_untouched(x, &x->f, NULL))             \
    C("boids_flock_randomize", "n = 10 without arrays", NEUTRAL,                                   \
      randomize_untouched(x, &x->bare, &x->p))                                                     \
    C("boids_flock_randomize", "without vy", NEUTRAL, randomize_untouched(x, &x->novy, &x->p))     \
    C("boids_flock_check", "NULL f", BOIDS_ERR_INPUT, boids_flock_check(NULL, &x->p, "t", e))      \
    C("boids_flock_check", "NULL p", BOIDS_ERR_INPUT, boids_flock_check(&x->f, NULL, "t", e))      \
    C("boids_flock_check", "NULL origin (a NaN: named flock)", BOIDS_ERR_INPUT,                    \
      boids_flock_check(&x->nan, &x->p, NULL, e))                                                  \
    C("boids_flock_check", "without vy", BOIDS_ERR_INPUT,                                          \
      boids_flock_check(&x->novy, &x->p, "t", e))                                                  \
    C("boids_boid_check", "NULL p", BOIDS_ERR_INPUT, boid_check(x, 2, 1, 0, "t", e))               \
    C("boids_boid_check", "NULL v", BOIDS_ERR_INPUT, boid_check(x, 2, 0, 1, "t", e))               \
    C("boids_boid_check", "NULL where (a NaN)", BOIDS_ERR_INPUT, boid_check(x, 2, 0, 0, NULL, e))  \
    C("boids_boid_check3", "NULL p", BOIDS_ERR_INPUT, boid_check(x, 3, 1, 0, "t", e))              \
    C("boids_boid_check3", "NULL v", BOIDS_ERR_INPUT, boid_check(x, 3, 0, 1, "t", e))              \
    C("boids_boid_check3", "NULL where (a NaN)", BOIDS_ERR_INPUT, boid_check(x, 3, 0, 0, NULL, e)) \
    C("boids_order", "NULL f", NEUTRAL, boids_order(NULL) == 0.0 ? NEUTRAL : 0)                    \
    C("boids_order", "without vy (0)", NEUTRAL, boids_order(&x->novy) == 0.0 ? NEUTRAL : 0)        \
    C("boids_order_species", "NULL f (0)", NEUTRAL, order_species_null(x, 0))                      \
    C("boids_order_species", "NULL p (one species)", NEUTRAL, order_species_null(x, 1))            \
    C("boids_order_species", "NULL out", NEUTRAL, order_species_null(x, 2))                        \
    C("boids_flock_hash", "NULL f", NEUTRAL,                                                       \
      boids_flock_hash(NULL) == boids_flock_hash(&x->empty) ? NEUTRAL : 0)                         \
    C("boids_flock_hash", "without vy", NEUTRAL,                                                   \
      boids_flock_hash(&x->novy) == boids_flock_hash(&x->empty) ? NEUTRAL : 0)                     \
    C("boids_interact_default", "NULL s", NEUTRAL, (boids_interact_default(NULL, &x->p), NEUTRAL)) \
    C("boids_interact_default", "NULL p (the default world)", NEUTRAL, interact_default_null_p())  \
    C("boids_interact_is_key", "NULL key (0)", NEUTRAL,                                            \
      !boids_interact_is_key(NULL) ? NEUTRAL : 0)                                                  \
    C("boids_interact_set", "NULL s", BOIDS_ERR_INPUT,                                             \
      boids_interact_set(NULL, "obstacle", "circle 1 1 1", "t", e))                                \
    C("boids_interact_set", "NULL key", BOIDS_ERR_INPUT,                                           \
      boids_interact_set(&x->t, NULL, "circle 1 1 1", "t", e))                                     \
    C("boids_interact_set", "NULL value", BOIDS_ERR_INPUT,                                         \
      boids_interact_set(&x->t, "obstacle", NULL, "t", e))                                         \
    C("boids_interact_set", "NULL where (an unknown key)", BOIDS_ERR_INPUT,                        \
      boids_interact_set(&x->t, "nope", "1", NULL, e))                                             \
    C("boids_interact_add_obstacle", "NULL s", BOIDS_ERR_INPUT,                                    \
      boids_interact_add_obstacle(NULL, &circle, "t", e))                                          \
    C("boids_interact_add_obstacle", "NULL o", BOIDS_ERR_INPUT, add_obstacle(x, 0, NULL, "t", e))  \
    C("boids_interact_add_obstacle", "NULL where (radius -1)", BOIDS_ERR_INPUT,                    \
      add_obstacle(x, 0, &bad_circle, NULL, e))                                                    \
    C("boids_interact_add_obstacle", "obstacle_count = -100000", BOIDS_ERR_INPUT,                  \
      add_obstacle(x, -100000, &circle, "t", e))                                                   \
    C("boids_interact_add_obstacle", "a full table", BOIDS_ERR_INPUT,                              \
      add_obstacle(x, BOIDS_MAX_OBSTACLES, &circle, "t", e))                                       \
    C("boids_interact_check_point", "NULL pt", BOIDS_ERR_INPUT,                                    \
      boids_interact_check_point(NULL, "t", e))                                                    \
    C("boids_interact_check_point", "NULL where (radius -5)", BOIDS_ERR_INPUT, check_point_bad(e)) \
    C("boids_interact_check_obstacle", "NULL o", BOIDS_ERR_INPUT,                                  \
      boids_interact_check_obstacle(NULL, "t", e))                                                 \
    C("boids_interact_check_obstacle", "NULL where (radius -1)", BOIDS_ERR_INPUT,                  \
      boids_interact_check_obstacle(&bad_circle, NULL, e))                                         \
    C("boids_interact_check", "NULL s", BOIDS_ERR_INPUT, boids_interact_check(NULL, "t", e))       \
    C("boids_interact_check", "NULL where (obstacle_count = -100000)", BOIDS_ERR_INPUT,            \
      interact_with_count(x, -100000, 0, e))                                                       \
    C("boids_interact_load_ini", "NULL s", BOIDS_ERR_INPUT,                                        \
      boids_interact_load_ini(NULL, "/nonexistent.ini", e))                                        \
    C("boids_interact_load_ini", "NULL path", BOIDS_ERR_INPUT,                                     \
      boids_interact_load_ini(&x->t, NULL, e))                                                     \
    C("boids_interact_check_dim", "NULL s", BOIDS_ERR_INPUT, boids_interact_check_dim(NULL, 2, e)) \
    C("boids_interact_check_dim", "obstacle_count = -100000", BOIDS_ERR_INPUT,                     \
      interact_with_count(x, -100000, 1, e))                                                       \
    C("boids_interact_check_world", "NULL s", BOIDS_ERR_INPUT,                                     \
      boids_interact_check_world(NULL, &x->p, e))                                                  \
    C("boids_interact_check_world", "NULL p", BOIDS_ERR_INPUT,                                     \
      boids_interact_check_world(&x->t, NULL, e))                                                  \
    C("boids_params_default", "no argument (valid)", NEUTRAL, defaults_valid(e))                   \
    C("boids_param_table", "NULL count", NEUTRAL, boids_param_table(NULL) ? NEUTRAL : 0)           \
    C("boids_param_find", "NULL key", NEUTRAL, boids_param_find(NULL) ? 0 : NEUTRAL)               \
    C("boids_params_of_species", "NULL p (the defaults)", NEUTRAL,                                 \
      boids_params_of_species(NULL, 1).count == boids_params_default().count ? NEUTRAL : 0)        \
    C("boids_species_of", "NULL p (species 0)", NEUTRAL,                                           \
      boids_species_of(NULL, 5) == 0 ? NEUTRAL : 0)                                                \
    C("boids_species_count", "NULL p (all of species 0)", NEUTRAL,                                 \
      boids_species_count(NULL, 7, 0) == 7 && boids_species_count(NULL, 7, 1) == 0 ? NEUTRAL : 0)  \
    C("boids_params_reach", "NULL p (0)", NEUTRAL, boids_params_reach(NULL) == 0 ? NEUTRAL : 0)    \
    C("boids_params_set", "NULL p", BOIDS_ERR_INPUT, boids_params_set(NULL, "count", "5", "t", e)) \
    C("boids_params_set", "NULL key", BOIDS_ERR_INPUT, boids_params_set(&x->p, NULL, "5", "t", e)) \
    C("boids_params_set", "NULL value", BOIDS_ERR_INPUT,                                           \
      boids_params_set(&x->p, "count", NULL, "t", e))                                              \
    C("boids_params_set", "NULL where (count = 0)", BOIDS_ERR_INPUT,                               \
      boids_params_set(&x->p, "count", "0", NULL, e))                                              \
    C("boids_params_set", "count = nan", BOIDS_ERR_INPUT,                                          \
      boids_params_set(&x->p, "count", "nan", "t", e))                                             \
    C("boids_params_load_ini", "NULL p", BOIDS_ERR_INPUT,                                          \
      boids_params_load_ini(NULL, "/nonexistent/boids.ini", e))                                    \
    C("boids_params_load_ini", "NULL path", BOIDS_ERR_INPUT,                                       \
      boids_params_load_ini(&x->p, NULL, e))                                                       \
    C("boids_params_load_ini", "missing file", BOIDS_ERR_INPUT,                                    \
      boids_params_load_ini(&x->p, "/nonexistent/boids.ini", e))                                   \
    C("boids_params_load_ini_except", "NULL p", BOIDS_ERR_INPUT,                                   \
      boids_params_load_ini_except(NULL, "/nonexistent/boids.ini", boids_interact_is_key, e))      \
    C("boids_params_load_ini_except", "NULL path", BOIDS_ERR_INPUT,                                \
      boids_params_load_ini_except(&x->p, NULL, boids_interact_is_key, e))                         \
    C("boids_params_load_ini_except", "NULL theirs (every key a parameter)", NEUTRAL,              \
      load_ini_theirs_null(x, e))                                                                  \
    C("boids_param_range", "NULL info", NEUTRAL, range_null())                                     \
    C("boids_param_range", "NULL buf", NEUTRAL, range_null())                                      \
    C("boids_params_format", "NULL p (empty text)", NEUTRAL, format_null(x, 0))                    \
    C("boids_params_format", "NULL info (empty text)", NEUTRAL, format_null(x, 1))                 \
    C("boids_params_format", "NULL buf", NEUTRAL, format_null(x, 2))                               \
    C("boids_params_format", "model = 77 (its number)", NEUTRAL, format_model77(x))                \
    C("boids_params_validate", "NULL p", BOIDS_ERR_INPUT, boids_params_validate(NULL, e))          \
    C("boids_params_validate", "max_speed * dt > half the world", BOIDS_ERR_INPUT,                 \
      boids_params_validate(&x->far, e))                                                           \
    C("boids_preset_table", "NULL count", NEUTRAL, boids_preset_table(NULL) ? NEUTRAL : 0)         \
    C("boids_preset_apply", "NULL p", BOIDS_ERR_INPUT, boids_preset_apply(NULL, "classic", e))     \
    C("boids_preset_apply", "NULL name", BOIDS_ERR_INPUT, boids_preset_apply(&x->p, NULL, e))      \
    C("boids_preset_apply", "unknown name", BOIDS_ERR_INPUT, boids_preset_apply(&x->p, "nope", e)) \
    C("boids_state_load", "NULL path", BOIDS_ERR_INPUT, boids_state_load(NULL, &x->other, e))      \
    C("boids_state_load", "NULL f", BOIDS_ERR_INPUT, boids_state_load("x.csv", NULL, e))           \
    C("boids_state_load_for", "NULL path", BOIDS_ERR_INPUT,                                        \
      boids_state_load_for(NULL, &x->p, &x->other, e))                                             \
    C("boids_state_load_for", "NULL p", BOIDS_ERR_INPUT,                                           \
      boids_state_load_for("x.csv", NULL, &x->other, e))                                           \
    C("boids_state_load_for", "NULL f", BOIDS_ERR_INPUT,                                           \
      boids_state_load_for("x.csv", &x->p, NULL, e))                                               \
    C("boids_state_save", "NULL path", BOIDS_ERR_INPUT, boids_state_save(NULL, &x->f, e))          \
    C("boids_state_save", "NULL f", BOIDS_ERR_INPUT,                                               \
      boids_state_save(in_dir(x, "s.csv"), NULL, e))                                               \
    C("boids_state_save", "only vy NULL (no file left)", BOIDS_ERR_INPUT, state_save_novy(x, e))   \
    C("boids_state_load_seeded", "NULL path", BOIDS_ERR_INPUT,                                     \
      boids_state_load_seeded(NULL, &x->p, &x->other, NULL, e))                                    \
    C("boids_state_load_seeded", "NULL f", BOIDS_ERR_INPUT,                                        \
      boids_state_load_seeded("x.csv", &x->p, NULL, NULL, e))                                      \
    C("boids_state_load_seeded", "NULL p (allowed: no check; no such file)", BOIDS_ERR_INPUT,      \
      load_seeded_missing(x, 0, e))                                                                \
    C("boids_state_load_seeded", "NULL noise_seed (allowed: not asked; no such file)",             \
      BOIDS_ERR_INPUT, load_seeded_missing(x, 1, e))                                               \
    C("boids_state_save_seeded", "NULL path", BOIDS_ERR_INPUT,                                     \
      boids_state_save_seeded(NULL, &x->f, 1, e))                                                  \
    C("boids_state_save_seeded", "NULL f", BOIDS_ERR_INPUT,                                        \
      boids_state_save_seeded(in_dir(x, "s.csv"), NULL, 1, e))                                     \
    C("boids_state_save_seeded", "only vy NULL (no file left)", BOIDS_ERR_INPUT,                   \
      state_save_seeded_novy(x, e))                                                                \
    C("boids_state_save_seeded", "noise seed -2", BOIDS_ERR_INPUT,                                 \
      boids_state_save_seeded(in_dir(x, "s.csv"), &x->f, -2, e))                                   \
    C("boids_params_fit_world", "NULL p", BOIDS_ERR_INPUT,                                         \
      boids_params_fit_world(NULL, &x->p, 0, e))                                                   \
    C("boids_params_fit_world", "NULL base", BOIDS_ERR_INPUT,                                      \
      boids_params_fit_world(&x->far, NULL, 0, e))                                                 \
    C("boids_params_fit_world", "NaN aspect (p unchanged)", BOIDS_ERR_INPUT,                       \
      fit_world_nan_aspect(x, e))                                                                  \
    C("boids_series_analyse", "NULL x", BOIDS_ERR_INPUT,                                           \
      boids_series_analyse(NULL, 3, &(boids_series_stats){0}, e))                                  \
    C("boids_series_analyse", "NULL out", BOIDS_ERR_INPUT,                                         \
      boids_series_analyse((double[3]){1, 2, 3}, 3, NULL, e))                                      \
    C("boids_series_analyse", "no samples", BOIDS_ERR_INPUT,                                       \
      boids_series_analyse((double[1]){1}, 0, &(boids_series_stats){0}, e))                        \
    C("boids_transition_estimate", "NULL m1", BOIDS_ERR_INPUT,                                     \
      boids_transition_estimate(1, NULL, (double[1]){1}, (double[1]){1}, 10,                       \
                                &(boids_transition){0}, e))                                        \
    C("boids_transition_estimate", "NULL m2", BOIDS_ERR_INPUT,                                     \
      boids_transition_estimate(1, (double[1]){1}, NULL, (double[1]){1}, 10,                       \
                                &(boids_transition){0}, e))                                        \
    C("boids_transition_estimate", "NULL m4", BOIDS_ERR_INPUT,                                     \
      boids_transition_estimate(1, (double[1]){1}, (double[1]){1}, NULL, 10,                       \
                                &(boids_transition){0}, e))                                        \
    C("boids_transition_estimate", "NULL out", BOIDS_ERR_INPUT,                                    \
      boids_transition_estimate(1, (double[1]){1}, (double[1]){1}, (double[1]){1}, 10, NULL, e))   \
    C("boids_transition_estimate", "no runs", BOIDS_ERR_INPUT,                                     \
      boids_transition_estimate(0, (double[1]){1}, (double[1]){1}, (double[1]){1}, 10,             \
                                &(boids_transition){0}, e))                                        \
    C("boids_order_moments", "NULL x", BOIDS_ERR_INPUT,                                            \
      boids_order_moments(NULL, 1, 1, &(double){0}, &(double){0}, &(double){0}, e))                \
    C("boids_order_moments", "NULL m1", BOIDS_ERR_INPUT,                                           \
      boids_order_moments((double[1]){1}, 1, 1, NULL, &(double){0}, &(double){0}, e))              \
    C("boids_order_moments", "NULL m2", BOIDS_ERR_INPUT,                                           \
      boids_order_moments((double[1]){1}, 1, 1, &(double){0}, NULL, &(double){0}, e))              \
    C("boids_order_moments", "NULL m4", BOIDS_ERR_INPUT,                                           \
      boids_order_moments((double[1]){1}, 1, 1, &(double){0}, &(double){0}, NULL, e))              \
    C("boids_order_moments", "no samples", BOIDS_ERR_INPUT,                                        \
      boids_order_moments((double[1]){1}, 0, 1, &(double){0}, &(double){0}, &(double){0}, e))      \
    C("boids_transition_estimate", "moments of no series", BOIDS_ERR_INPUT,                        \
      boids_transition_estimate(1, (double[1]){0.5}, (double[1]){0.2}, (double[1]){0.04}, 10,      \
                                &(boids_transition){0}, e))                                        \
    C("boids_metrics_compute", "NULL f", BOIDS_ERR_INPUT,                                          \
      boids_metrics_compute(NULL, &x->p, &(boids_metrics){0}, e))                                  \
    C("boids_metrics_compute", "NULL p", BOIDS_ERR_INPUT,                                          \
      boids_metrics_compute(&x->f, NULL, &(boids_metrics){0}, e))                                  \
    C("boids_metrics_compute", "NULL out", BOIDS_ERR_INPUT,                                        \
      boids_metrics_compute(&x->f, &x->p, NULL, e))                                                \
    C("boids_metrics_compute", "empty flock", BOIDS_ERR_INPUT,                                     \
      boids_metrics_compute(&x->empty, &x->p, &(boids_metrics){0}, e))                             \
    C("boids_metrics_compute", "without vy", BOIDS_ERR_INPUT,                                      \
      boids_metrics_compute(&x->novy, &x->p, &(boids_metrics){0}, e))                              \
    C("boids_clusters_species", "NULL f", BOIDS_ERR_INPUT,                                         \
      boids_clusters_species(NULL, &x->p, (double[4]){0}, (double[4]){0}, e))                      \
    C("boids_clusters_species", "NULL p", BOIDS_ERR_INPUT,                                         \
      boids_clusters_species(&x->f, NULL, (double[4]){0}, (double[4]){0}, e))                      \
    C("boids_clusters_species", "NULL clusters", BOIDS_ERR_INPUT,                                  \
      boids_clusters_species(&x->f, &x->p, NULL, (double[4]){0}, e))                               \
    C("boids_clusters_species", "NULL largest", BOIDS_ERR_INPUT,                                   \
      boids_clusters_species(&x->f, &x->p, (double[4]){0}, NULL, e))                               \
    C("boids_metrics_centre", "NULL f ((0, 0))", NEUTRAL, centre_null(x, 0))                       \
    C("boids_metrics_centre", "NULL p ((0, 0))", NEUTRAL, centre_null(x, 1))                       \
    C("boids_metrics_centre", "NULL cx", NEUTRAL, centre_null(x, 2))                               \
    C("boids_metrics_centre", "NULL cy", NEUTRAL, centre_null(x, 3))                               \
    C("boids_metrics_centre3", "NULL f ((0, 0, 0))", NEUTRAL, centre3_null(x, 0))                  \
    C("boids_metrics_centre3", "NULL p ((0, 0, 0))", NEUTRAL, centre3_null(x, 1))                  \
    C("boids_metrics_centre3", "NULL c", NEUTRAL, centre3_null(x, 2))                              \
    C("boids_metrics_get", "NULL m (NaN)", NEUTRAL,                                                \
      isnan(boids_metrics_get(NULL, 0)) ? NEUTRAL : 0)                                             \
    C("boids_metrics_format", "NULL m (-1)", NEUTRAL,                                              \
      boids_metrics_format(NULL, (char[8]){0}, 8) < 0 ? NEUTRAL : 0)                               \
    C("boids_metrics_format", "NULL buf (the length)", NEUTRAL,                                    \
      boids_metrics_format(&(boids_metrics){0}, NULL, 8) == 11 ? NEUTRAL : 0)                      \
    C("boids_number_fluctuations", "NULL f", BOIDS_ERR_INPUT,                                      \
      boids_number_fluctuations(NULL, &x->p, &(boids_fluct){0}, e))                                \
    C("boids_number_fluctuations", "NULL p", BOIDS_ERR_INPUT,                                      \
      boids_number_fluctuations(&x->f, NULL, &(boids_fluct){0}, e))                                \
    C("boids_number_fluctuations", "NULL out", BOIDS_ERR_INPUT,                                    \
      boids_number_fluctuations(&x->f, &x->p, NULL, e))                                            \
    C("boids_number_fluctuations", "empty flock", BOIDS_ERR_INPUT,                                 \
      boids_number_fluctuations(&x->empty, &x->p, &(boids_fluct){0}, e))                           \
    C("boids_number_fluctuations", "a NaN velocity", BOIDS_ERR_INPUT,                              \
      boids_number_fluctuations(&x->nan, &x->p, &(boids_fluct){0}, e))                             \
    C("boids_fluct_fit", "NULL levels (NaN)", NEUTRAL, isnan(boids_fluct_fit(NULL)) ? NEUTRAL : 0) \
    C("boids_velocity_correlation_add", "NULL f", BOIDS_ERR_INPUT,                                 \
      correlation_add(x, 0, 50, 4, e))                                                             \
    C("boids_velocity_correlation_add", "NULL p", BOIDS_ERR_INPUT,                                 \
      correlation_add(x, 1, 50, 4, e))                                                             \
    C("boids_velocity_correlation_add", "NULL sum", BOIDS_ERR_INPUT,                               \
      correlation_add(x, 2, 50, 4, e))                                                             \
    C("boids_velocity_correlation_add", "NULL pairs", BOIDS_ERR_INPUT,                             \
      correlation_add(x, 3, 50, 4, e))                                                             \
    C("boids_velocity_correlation_add", "range 0", BOIDS_ERR_INPUT,                                \
      correlation_add(x, -1, 0, 4, e))                                                             \
    C("boids_velocity_correlation_add", "bins 0", BOIDS_ERR_INPUT,                                 \
      correlation_add(x, -1, 50, 0, e))                                                            \
    C("boids_velocity_correlation_add", "without vy", BOIDS_ERR_INPUT,                             \
      correlation_add(x, 4, 50, 4, e))                                                             \
    C("boids_correlation_length", "NULL sum (NaN)", NEUTRAL,                                       \
      isnan(boids_correlation_length(NULL, (double[1]){1}, 1, 1)) ? NEUTRAL : 0)                   \
    C("boids_correlation_length", "NULL pairs (NaN)", NEUTRAL,                                     \
      isnan(boids_correlation_length((double[1]){1}, NULL, 1, 1)) ? NEUTRAL : 0)                   \
    C("boids_rng_seed", "NULL rng", NEUTRAL, rng_null())                                           \
    C("boids_rng_u32", "NULL rng (0)", NEUTRAL, rng_null())                                        \
    C("boids_rng_random", "NULL rng (0)", NEUTRAL, rng_null())                                     \
    C("boids_rng_uniform", "NULL rng (a)", NEUTRAL, rng_null())                                    \
    C("boids_cpu_ref_create", "NULL initial", BOIDS_ERR_INPUT,                                     \
      boids_cpu_ref_create(NULL, e) ? 0 : ST(e))                                                   \
    C("boids_cpu_ref_create", "empty flock", BOIDS_ERR_INPUT,                                      \
      boids_cpu_ref_create(&x->empty, e) ? 0 : ST(e))                                              \
    C("boids_cpu_ref_create", "without vy", BOIDS_ERR_INPUT,                                       \
      boids_cpu_ref_create(&x->novy, e) ? 0 : ST(e))                                               \
    C("boids_cpu_ref_create", "a NaN in the state", BOIDS_ERR_INPUT, create_nan(x, 0, e))          \
    C("boids_cpu_create", "NULL initial", BOIDS_ERR_INPUT,                                         \
      boids_cpu_create(NULL, 1, e) ? 0 : ST(e))                                                    \
    C("boids_cpu_create", "empty flock", BOIDS_ERR_INPUT,                                          \
      boids_cpu_create(&x->empty, 1, e) ? 0 : ST(e))                                               \
    C("boids_cpu_create", "a NaN in the state", BOIDS_ERR_INPUT, create_nan(x, 1, e))              \
    C("boids_backend_step", "NULL b", BOIDS_ERR_INPUT, boids_backend_step(NULL, &x->p, 1, e))      \
    C("boids_backend_step", "NULL p", BOIDS_ERR_INPUT, boids_backend_step(x->cpu, NULL, 1, e))     \
    C("boids_backend_step", "cpu: max_speed * dt > half the world", BOIDS_ERR_INPUT,               \
      boids_backend_step(x->cpu, &x->far, 1, e))                                                   \
    C("boids_backend_step", "cpu-ref: max_speed * dt > half the world", BOIDS_ERR_INPUT,           \
      boids_backend_step(x->ref, &x->far, 1, e))                                                   \
    C("boids_backend_download", "NULL b", BOIDS_ERR_INPUT, boids_backend_download(NULL, &x->f, e)) \
    C("boids_backend_download", "NULL out", BOIDS_ERR_INPUT,                                       \
      boids_backend_download(x->cpu, NULL, e))                                                     \
    C("boids_backend_download", "flock of another N", BOIDS_ERR_INPUT,                             \
      boids_backend_download(x->cpu, &x->other, e))                                                \
    C("boids_backend_download", "empty flock", BOIDS_ERR_INPUT,                                    \
      boids_backend_download(x->ref, &x->empty, e))                                                \
    C("boids_backend_upload", "NULL b", BOIDS_ERR_INPUT, boids_backend_upload(NULL, &x->f, e))     \
    C("boids_backend_upload", "NULL in", BOIDS_ERR_INPUT, boids_backend_upload(x->cpu, NULL, e))   \
    C("boids_backend_upload", "empty flock", BOIDS_ERR_INPUT,                                      \
      boids_backend_upload(x->ref, &x->empty, e))                                                  \
    C("boids_backend_upload", "cpu: a NaN in the state", BOIDS_ERR_INPUT,                          \
      boids_backend_upload(x->cpu, &x->nan, e))                                                    \
    C("boids_backend_upload", "cpu-ref: a NaN in the state", BOIDS_ERR_INPUT,                      \
      boids_backend_upload(x->ref, &x->nan, e))                                                    \
    C("boids_backend_neighbours", "NULL b", BOIDS_ERR_INPUT,                                       \
      boids_backend_neighbours(NULL, &x->p, (uint32_t[80]){0}, (uint64_t[80]){0}, e))              \
    C("boids_backend_neighbours", "NULL p", BOIDS_ERR_INPUT,                                       \
      boids_backend_neighbours(x->ref, NULL, (uint32_t[80]){0}, (uint64_t[80]){0}, e))             \
    C("boids_backend_neighbours", "NULL count", BOIDS_ERR_INPUT,                                   \
      boids_backend_neighbours(x->cpu, &x->p, NULL, (uint64_t[80]){0}, e))                         \
    C("boids_backend_neighbours", "NULL set_hash", BOIDS_ERR_INPUT,                                \
      boids_backend_neighbours(x->cpu, &x->p, (uint32_t[80]){0}, NULL, e))                         \
    C("boids_backend_neighbours", "max_speed * dt > half the world", BOIDS_ERR_INPUT,              \
      boids_backend_neighbours(x->ref, &x->far, (uint32_t[80]){0}, (uint64_t[80]){0}, e))          \
    C("boids_backend_has_neighbours", "NULL b (0)", NEUTRAL,                                       \
      !boids_backend_has_neighbours(NULL) ? NEUTRAL : 0)                                           \
    C("boids_backend_set_interact", "NULL b", BOIDS_ERR_INPUT,                                     \
      boids_backend_set_interact(NULL, &x->t, e))                                                  \
    C("boids_backend_set_interact", "NULL s (clears the table)", NEUTRAL,                          \
      boids_backend_set_interact(x->cpu, NULL, e) ? 0 : NEUTRAL)                                   \
    C("boids_backend_set_interact", "obstacle_count = -100000", BOIDS_ERR_INPUT,                   \
      interact_with_count(x, -100000, 2, e))                                                       \
    C("boids_backend_destroy", "NULL b", NEUTRAL, (boids_backend_destroy(NULL), NEUTRAL))          \
    C("boids_backend_n", "NULL b (0)", NEUTRAL, boids_backend_n(NULL) == 0 ? NEUTRAL : 0)          \
    C("boids_backend_name", "NULL b (\"\")", NEUTRAL, !*boids_backend_name(NULL) ? NEUTRAL : 0)

#if BOIDS_TEST_GPU
#define GPU_ROWS(C)                                                                                \
    C("boids_gl_create", "BOIDS_EGL_PLATFORM=nonsense", BOIDS_ERR_INPUT,                           \
      gl_create_env("BOIDS_EGL_PLATFORM", "nonsense", e))                                          \
    C("boids_gl_create", "BOIDS_EGL_DEVICE=nonsense", BOIDS_ERR_INPUT,                             \
      gl_create_env("BOIDS_EGL_DEVICE", "nonsense", e))                                            \
    C("boids_gl_create", "BOIDS_EGL_DEVICE=100000 (beyond the devices)", BOIDS_ERR_INPUT,          \
      gl_create_env("BOIDS_EGL_DEVICE", "100000", e))                                              \
    C("boids_gl_device_count", "no argument (0 or more)", NEUTRAL,                                 \
      boids_gl_device_count() >= 0 ? NEUTRAL : 0)                                                  \
    C("boids_gl_destroy", "NULL gl", NEUTRAL, (boids_gl_destroy(NULL), NEUTRAL))                   \
    C("boids_gl_renderer", "NULL gl (\"\")", NEUTRAL, !*boids_gl_renderer(NULL) ? NEUTRAL : 0)     \
    C("boids_gl_version", "NULL gl (\"\")", NEUTRAL, !*boids_gl_version(NULL) ? NEUTRAL : 0)       \
    C("boids_gl_platform", "NULL gl (\"\")", NEUTRAL, !*boids_gl_platform(NULL) ? NEUTRAL : 0)     \
    C("boids_gl_debug_log", "NULL gl (NULL)", NEUTRAL, !boids_gl_debug_log(NULL) ? NEUTRAL : 0)    \
    C("boids_gl_load", "NULL load", BOIDS_ERR_INPUT, boids_gl_load(NULL, e))                       \
    C("boids_gl_debug_enable", "NULL log", BOIDS_ERR_INPUT, boids_gl_debug_enable(NULL, e))        \
    C("boids_gpu_variant_name", "variant 99 (\"?\")", NEUTRAL,                                     \
      !strcmp(boids_gpu_variant_name((boids_gpu_variant)99), "?") ? NEUTRAL : 0)                   \
    C("boids_gpu_variant_parse", "NULL name", BOIDS_ERR_INPUT,                                     \
      boids_gpu_variant_parse(NULL, &(boids_gpu_variant){0}, e))                                   \
    C("boids_gpu_variant_parse", "NULL out", BOIDS_ERR_INPUT,                                      \
      boids_gpu_variant_parse("plain", NULL, e))                                                   \
    C("boids_gpu_variant_parse", "unknown name", BOIDS_ERR_INPUT,                                  \
      boids_gpu_variant_parse("nope", &(boids_gpu_variant){0}, e))                                 \
    C("boids_gpu_options_default", "no argument (the documented defaults)", NEUTRAL,               \
      options_default())                                                                           \
    C("boids_gpu_create", "NULL initial", BOIDS_ERR_INPUT,                                         \
      boids_gpu_create(NULL, NULL, NULL, e) ? 0 : ST(e))                                           \
    C("boids_gpu_create", "empty flock", BOIDS_ERR_INPUT,                                          \
      boids_gpu_create(NULL, &x->empty, NULL, e) ? 0 : ST(e))                                      \
    C("boids_gpu_create", "without vy", BOIDS_ERR_INPUT,                                           \
      boids_gpu_create(NULL, &x->novy, NULL, e) ? 0 : ST(e))                                       \
    C("boids_gpu_create", "NULL gl (no context loaded)", BOIDS_ERR_RUNTIME,                        \
      boids_gpu_create(NULL, &x->f, &(boids_gpu_options){0}, e) ? 0 : ST(e))                       \
    C("boids_gpu_create", "NULL opt (no context loaded)", BOIDS_ERR_RUNTIME,                       \
      boids_gpu_create(NULL, &x->f, NULL, e) ? 0 : ST(e))                                          \
    C("boids_gpu_max_count", "no GL context loaded (0, with why)", NEUTRAL,                        \
      gpu_max_count_no_gl(1))                                                                      \
    C("boids_gpu_max_count", "NULL why (no context loaded: 0)", NEUTRAL, gpu_max_count_no_gl(0))   \
    C("boids_gpu_bytes", "NULL b (0)", NEUTRAL, boids_gpu_bytes(NULL) == 0 ? NEUTRAL : 0)          \
    C("boids_gpu_check_count", "n = 1 (answered without a context)", NEUTRAL,                      \
      boids_gpu_check_count(1, e) ? 0 : NEUTRAL)                                                   \
    C("boids_gpu_check_params", "NULL p", BOIDS_ERR_INPUT, boids_gpu_check_params(NULL, e))        \
    C("boids_gpu_check_params", "k = BOIDS_GPU_MAX_K + 1", BOIDS_ERR_LIMIT, gpu_check_k(x, e))     \
    C("boids_backend_is_gpu", "NULL b (0)", NEUTRAL, !boids_backend_is_gpu(NULL) ? NEUTRAL : 0)    \
    C("boids_gpu_state_buffer", "NULL b (0)", NEUTRAL,                                             \
      boids_gpu_state_buffer(NULL) == 0 ? NEUTRAL : 0)                                             \
    C("boids_gpu_id_buffer", "NULL b (0)", NEUTRAL, boids_gpu_id_buffer(NULL) == 0 ? NEUTRAL : 0)  \
    C("boids_gpu_velocity_buffer", "NULL b (0)", NEUTRAL,                                          \
      boids_gpu_velocity_buffer(NULL) == 0 ? NEUTRAL : 0)                                          \
    C("boids_gpu_grid", "NULL b ((0, 0))", NEUTRAL, gpu_grid_null(x, 0))                           \
    C("boids_gpu_grid", "NULL ncx", NEUTRAL, gpu_grid_null(x, 1))                                  \
    C("boids_gpu_grid", "NULL ncy", NEUTRAL, gpu_grid_null(x, 2))                                  \
    C("boids_gpu_stage_name", "stage 99 (\"?\")", NEUTRAL,                                         \
      !strcmp(boids_gpu_stage_name((boids_gpu_stage)99), "?") ? NEUTRAL : 0)                       \
    C("boids_gpu_timings", "NULL b (zeros)", NEUTRAL, gpu_timings_null())                          \
    C("boids_gpu_timings_reset", "NULL b", NEUTRAL, gpu_timings_null())                            \
    C("boids_gpu_timings", "a cpu backend (zeros; asserted in debug builds)", NEUTRAL,             \
      gpu_getters_cpu(x))
#else
#define GPU_ROWS(C)
#endif

#define ROWS(C) CORE_ROWS(C) GPU_ROWS(C)

typedef struct row {
    const char *entry, *misuse;
    int expect; /* a boids_status or NEUTRAL */
} row;

#define AS_ROW(entry, misuse, expect, expr) {entry, misuse, expect},
static const row rows[] = {ROWS(AS_ROW)};

/* Row id's call. */
static int run_row(size_t id, fixture *x, boids_error *e) {
    size_t i = 0;
#define AS_CALL(entry, misuse, expect, expr)                                                       \
    if (id == i++) return (expr);
    ROWS(AS_CALL)
    return -99;
}

static void fixture_open(fixture *x) {
    boids_error err = {BOIDS_OK, ""};
    memset(x, 0, sizeof *x);
    x->p = boids_params_default();
    CHECK(boids_preset_apply(&x->p, "classic", &err) == BOIDS_OK, "%s", err.msg);
    x->far = x->p;
    x->far.max_speed = x->far.width; /* one step crosses the whole world */
    CHECK(boids_flock_alloc(&x->f, 80, &err) == BOIDS_OK, "%s", err.msg);
    CHECK(boids_flock_alloc(&x->other, 10, &err) == BOIDS_OK, "%s", err.msg);
    boids_flock_randomize(&x->f, &x->p, 7);
    CHECK(boids_flock_copy(&x->nan, &x->f, &err) == BOIDS_OK, "%s", err.msg);
    if (x->nan.x) x->nan.vy[3] = NAN;
    x->bare.n = 10;
    x->novy = x->f;
    x->novy.vy = NULL;
    boids_interact_default(&x->t, &x->p);
    x->cpu = boids_cpu_create(&x->f, 1, &err);
    x->ref = boids_cpu_ref_create(&x->f, &err);
    CHECK(x->cpu && x->ref, "backends: %s", err.msg);
    snprintf(x->dir, sizeof x->dir, "/tmp/boids-api-XXXXXX");
    CHECK(mkdtemp(x->dir) != NULL, "mkdtemp");
}

static uint64_t state_hash(boids_backend *b, boids_flock *tmp) {
    boids_error err;
    return boids_backend_download(b, tmp, &err) == BOIDS_OK ? boids_flock_hash(tmp) : 0;
}

int main(void) {
    fixture x;
    fixture_open(&x);
    if (!x.cpu || !x.ref) return CHECK_DONE("api_test");
    boids_set_assert_handler(count_assert);
    const uint64_t cpu0 = state_hash(x.cpu, &x.f), ref0 = state_hash(x.ref, &x.f);
    printf("%-34s %-52s %s\n", "entry point", "misuse", "expected");
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        const row *r = &rows[i];
        boids_error err = {BOIDS_OK, ""};
        int got = run_row(i, &x, &err);
        printf("%-34s %-52s %s\n", r->entry, r->misuse, expect_name(r->expect));
        CHECK(got == r->expect, "%s with %s: got %d, expected %d (%s)", r->entry, r->misuse, got,
              r->expect, err.msg);
        if (r->expect != NEUTRAL)
            CHECK((int)err.status == r->expect && err.msg[0], "%s with %s: no message", r->entry,
                  r->misuse);
        /* The same call without an error report: the same answer (a creator's NULL is all it
         * can say then), and no crash. */
        got = run_row(i, &x, NULL);
        CHECK(got == r->expect || got == NO_ERR, "%s with %s and a NULL error: got %d", r->entry,
              r->misuse, got);
    }
    /* Nothing above ran a step: both states are as created. */
    CHECK(state_hash(x.cpu, &x.f) == cpu0, "a refused call changed the cpu state");
    CHECK(state_hash(x.ref, &x.f) == ref0, "a refused call changed the cpu-ref state");
    CHECK(files_in(&x) == 0, "a row left a file in %s", x.dir);
    rmdir(x.dir);
    boids_backend_destroy(x.cpu);
    boids_backend_destroy(x.ref);
    boids_flock_free(&x.f);
    boids_flock_free(&x.other);
    boids_flock_free(&x.nan);
    return CHECK_DONE("api_test");
}
