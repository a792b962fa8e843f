/* SPDX-License-Identifier: MIT */
/* Every public entry point called wrongly: NULL pointers, empty flocks, a flock of another
 * N, invalid parameters (one step longer than half the world), a backend of the wrong kind.
 * Each must refuse with an error status and a message (or, where a function has no error
 * return, give its neutral value: 0, NULL, "") and never crash or run a step.
 *
 * Built against the public headers and the shared libraries only, as a user links them.
 * The GPU rows (built with the GPU library, BOIDS_TEST_GPU) need no GL context: they are the
 * misuses that must be caught before one is touched. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <boids/boids.h>

#include "check.h"

enum { NEUTRAL = -1 }; /* the row expects the neutral value of a function without a status */

typedef struct fixture {
    boids_params p, far;         /* valid; one step longer than half the world */
    boids_flock f, other, empty; /* 80 boids; 10 boids; no boids */
    boids_backend *cpu, *ref;
} fixture;

typedef struct row {
    const char *entry, *misuse;
    int expect; /* a boids_status or NEUTRAL */
    int (*run)(fixture *x, boids_error *err);
} row;

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

/* ---- core ---------------------------------------------------------------------------------- */
static int flock_alloc_null(fixture *x, boids_error *e) {
    (void)x;
    return boids_flock_alloc(NULL, 5, e);
}
static int flock_alloc_zero(fixture *x, boids_error *e) {
    boids_flock g;
    (void)x;
    return boids_flock_alloc(&g, 0, e);
}
static int flock_copy_null_src(fixture *x, boids_error *e) {
    boids_flock g;
    (void)x;
    return boids_flock_copy(&g, NULL, e);
}
static int flock_copy_null_dst(fixture *x, boids_error *e) {
    return boids_flock_copy(NULL, &x->f, e);
}
static int flock_check_null(fixture *x, boids_error *e) {
    return boids_flock_check(NULL, &x->p, "t", e);
}
static int flock_check_null_p(fixture *x, boids_error *e) {
    return boids_flock_check(&x->f, NULL, "t", e);
}
static int flock_order_null(fixture *x, boids_error *e) {
    (void)x, (void)e;
    return boids_order(NULL) == 0.0 ? NEUTRAL : 0;
}
static int flock_hash_null(fixture *x, boids_error *e) {
    (void)x, (void)e;
    return boids_flock_hash(NULL) == boids_flock_hash(&x->empty) ? NEUTRAL : 0;
}
static int params_set_null(fixture *x, boids_error *e) {
    (void)x;
    return boids_params_set(NULL, "count", "5", "t", e);
}
static int params_set_null_key(fixture *x, boids_error *e) {
    return boids_params_set(&x->p, NULL, "5", "t", e);
}
static int params_set_null_value(fixture *x, boids_error *e) {
    return boids_params_set(&x->p, "count", NULL, "t", e);
}
static int params_set_bad(fixture *x, boids_error *e) {
    return boids_params_set(&x->p, "count", "nan", "t", e);
}
static int params_validate_null(fixture *x, boids_error *e) {
    (void)x;
    return boids_params_validate(NULL, e);
}
static int params_validate_far(fixture *x, boids_error *e) {
    return boids_params_validate(&x->far, e);
}
static int params_find_null(fixture *x, boids_error *e) {
    (void)x, (void)e;
    return boids_param_find(NULL) ? 0 : NEUTRAL;
}
static int preset_null_name(fixture *x, boids_error *e) {
    return boids_preset_apply(&x->p, NULL, e);
}
static int preset_null_p(fixture *x, boids_error *e) {
    (void)x;
    return boids_preset_apply(NULL, "classic", e);
}
static int preset_unknown(fixture *x, boids_error *e) {
    return boids_preset_apply(&x->p, "nope", e);
}
static int ini_missing(fixture *x, boids_error *e) {
    return boids_params_load_ini(&x->p, "/nonexistent/boids.ini", e);
}
static int state_load_null(fixture *x, boids_error *e) {
    return boids_state_load(NULL, &x->other, e);
}
static int state_load_null_out(fixture *x, boids_error *e) {
    (void)x;
    return boids_state_load("x.csv", NULL, e);
}
static int state_save_null(fixture *x, boids_error *e) {
    (void)x;
    return boids_state_save("x.csv", NULL, e);
}
static int state_save_null_path(fixture *x, boids_error *e) {
    return boids_state_save(NULL, &x->f, e);
}
static int state_load_seeded_null(fixture *x, boids_error *e) {
    long seed;
    return boids_state_load_seeded(NULL, &x->p, &x->other, &seed, e);
}
static int state_load_seeded_null_out(fixture *x, boids_error *e) {
    long seed;
    return boids_state_load_seeded("x.csv", &x->p, NULL, &seed, e);
}
static int state_save_seeded_null(fixture *x, boids_error *e) {
    (void)x;
    return boids_state_save_seeded("x.csv", NULL, 1, e);
}
static int state_save_seeded_null_path(fixture *x, boids_error *e) {
    return boids_state_save_seeded(NULL, &x->f, 1, e);
}
static int state_save_seeded_no_vy(fixture *x, boids_error *e) {
    boids_flock g = x->f;
    g.vy = NULL; /* refused before any file is made */
    return boids_state_save_seeded("api_test_state.csv", &g, 1, e);
}
static int state_save_seeded_bad_seed(fixture *x, boids_error *e) {
    return boids_state_save_seeded("api_test_state.csv", &x->f, -2, e);
}
static int metrics_null_f(fixture *x, boids_error *e) {
    boids_metrics m;
    return boids_metrics_compute(NULL, &x->p, &m, e);
}
static int metrics_null_p(fixture *x, boids_error *e) {
    boids_metrics m;
    return boids_metrics_compute(&x->f, NULL, &m, e);
}
static int metrics_null_out(fixture *x, boids_error *e) {
    return boids_metrics_compute(&x->f, &x->p, NULL, e);
}
static int metrics_empty(fixture *x, boids_error *e) {
    boids_metrics m;
    return boids_metrics_compute(&x->empty, &x->p, &m, e);
}
static int metrics_get_null(fixture *x, boids_error *e) {
    (void)x, (void)e;
    return boids_metrics_get(NULL, 0) != boids_metrics_get(NULL, 0) ? NEUTRAL : 0;
}
static int metrics_format_null(fixture *x, boids_error *e) {
    char buf[8];
    (void)x, (void)e;
    return boids_metrics_format(NULL, buf, sizeof buf) < 0 ? NEUTRAL : 0;
}
static int metrics_centre_null(fixture *x, boids_error *e) {
    double cx = 1, cy = 1;
    (void)e;
    boids_metrics_centre(NULL, &x->p, &cx, &cy);
    boids_metrics_centre(&x->f, &x->p, NULL, NULL);
    return cx == 0 && cy == 0 ? NEUTRAL : 0;
}
static int params_format_null(fixture *x, boids_error *e) {
    char buf[8] = "x";
    (void)x, (void)e;
    boids_params_format(NULL, boids_param_find("count"), buf, sizeof buf);
    return buf[0] == '\0' ? NEUTRAL : 0;
}
static int error_set_null(fixture *x, boids_error *e) {
    (void)x, (void)e;
    boids_error_clear(NULL);
    return boids_error_set(NULL, BOIDS_ERR_LIMIT, "no error to fill") == BOIDS_ERR_LIMIT &&
                   boids_status_exit_code((boids_status)99) == 1
               ? NEUTRAL
               : 0;
}

/* ---- backends ------------------------------------------------------------------------------ */
static int ref_create_null(fixture *x, boids_error *e) {
    (void)x;
    return boids_cpu_ref_create(NULL, e) ? 0 : e->status;
}
static int ref_create_empty(fixture *x, boids_error *e) {
    return boids_cpu_ref_create(&x->empty, e) ? 0 : e->status;
}
static int cpu_create_null(fixture *x, boids_error *e) {
    (void)x;
    return boids_cpu_create(NULL, 1, e) ? 0 : e->status;
}
static int cpu_create_empty(fixture *x, boids_error *e) {
    return boids_cpu_create(&x->empty, 1, e) ? 0 : e->status;
}
static int step_null_b(fixture *x, boids_error *e) {
    return boids_backend_step(NULL, &x->p, 1, e);
}
static int step_null_p(fixture *x, boids_error *e) {
    return boids_backend_step(x->cpu, NULL, 1, e);
}
static int step_far_cpu(fixture *x, boids_error *e) {
    return boids_backend_step(x->cpu, &x->far, 1, e);
}
static int step_far_ref(fixture *x, boids_error *e) {
    return boids_backend_step(x->ref, &x->far, 1, e);
}
static int download_null_b(fixture *x, boids_error *e) {
    return boids_backend_download(NULL, &x->f, e);
}
static int download_null_out(fixture *x, boids_error *e) {
    return boids_backend_download(x->cpu, NULL, e);
}
static int download_other_n(fixture *x, boids_error *e) {
    return boids_backend_download(x->cpu, &x->other, e);
}
static int download_empty(fixture *x, boids_error *e) {
    return boids_backend_download(x->ref, &x->empty, e);
}
static int upload_null_b(fixture *x, boids_error *e) {
    return boids_backend_upload(NULL, &x->f, e);
}
static int upload_null_in(fixture *x, boids_error *e) {
    return boids_backend_upload(x->cpu, NULL, e);
}
static int upload_empty(fixture *x, boids_error *e) {
    return boids_backend_upload(x->ref, &x->empty, e);
}
static int neighbours_null_out(fixture *x, boids_error *e) {
    return boids_backend_neighbours(x->cpu, &x->p, NULL, NULL, e);
}
static int neighbours_null_b(fixture *x, boids_error *e) {
    uint32_t c[80];
    uint64_t h[80];
    return boids_backend_neighbours(NULL, &x->p, c, h, e);
}
static int neighbours_far(fixture *x, boids_error *e) {
    uint32_t c[80];
    uint64_t h[80];
    return boids_backend_neighbours(x->ref, &x->far, c, h, e);
}
static int backend_getters_null(fixture *x, boids_error *e) {
    (void)x, (void)e;
    boids_backend_destroy(NULL);
    return boids_backend_n(NULL) == 0 && strcmp(boids_backend_name(NULL), "") == 0 &&
                   !boids_backend_has_neighbours(NULL)
               ? NEUTRAL
               : 0;
}

#if BOIDS_TEST_GPU
/* ---- GPU (no context is made) -------------------------------------------------------------- */
static int gpu_create_null(fixture *x, boids_error *e) {
    (void)x;
    return boids_gpu_create(NULL, NULL, NULL, e) ? 0 : e->status;
}
static int gpu_create_empty(fixture *x, boids_error *e) {
    return boids_gpu_create(NULL, &x->empty, NULL, e) ? 0 : e->status;
}
static int gpu_create_no_gl(fixture *x, boids_error *e) {
    return boids_gpu_create(NULL, &x->f, NULL, e) ? 0 : e->status;
}
static int gl_create_bad_platform(fixture *x, boids_error *e) {
    (void)x;
    setenv("BOIDS_EGL_PLATFORM", "nonsense", 1);
    boids_gl *gl = boids_gl_create(0, e);
    unsetenv("BOIDS_EGL_PLATFORM");
    boids_gl_destroy(gl);
    return gl ? 0 : e->status;
}
static int gpu_stage_name_bad(fixture *x, boids_error *e) {
    (void)x, (void)e;
    return strcmp(boids_gpu_stage_name((boids_gpu_stage)99), "?") == 0 ? NEUTRAL : 0;
}
static int gpu_check_null(fixture *x, boids_error *e) {
    (void)x;
    return boids_gpu_check_params(NULL, e);
}
static int gpu_check_k(fixture *x, boids_error *e) {
    boids_params q = x->p;
    q.neighbours = BOIDS_NEIGHBOURS_TOPOLOGICAL;
    q.k = BOIDS_GPU_MAX_K + 1;
    return boids_gpu_check_params(&q, e);
}
static int gpu_max_count_no_gl(fixture *x, boids_error *e) {
    char why[128];
    (void)x, (void)e;
    return boids_gpu_max_count(why, sizeof why) == 0 && why[0] ? NEUTRAL : 0;
}
static int gl_load_null(fixture *x, boids_error *e) {
    (void)x;
    return boids_gl_load(NULL, e);
}
static int gl_debug_null(fixture *x, boids_error *e) {
    (void)x;
    return boids_gl_debug_enable(NULL, e);
}
static int gl_getters_null(fixture *x, boids_error *e) {
    (void)x, (void)e;
    boids_gl_destroy(NULL);
    return !*boids_gl_renderer(NULL) && !*boids_gl_version(NULL) && !*boids_gl_platform(NULL) &&
                   !boids_gl_debug_log(NULL)
               ? NEUTRAL
               : 0;
}
/* A CPU backend given to the GPU getters: asserted in debug builds, zeros otherwise. */
static int gpu_getters_cpu(fixture *x, boids_error *e) {
    (void)e;
    unsigned ncx = 1, ncy = 1;
    boids_gpu_grid(x->cpu, &ncx, &ncy);
    boids_gpu_timings_reset(x->cpu);
    boids_gpu_timing t = boids_gpu_timings(x->cpu);
    return boids_gpu_state_buffer(x->cpu) == 0 && boids_gpu_id_buffer(x->cpu) == 0 && ncx == 0 &&
                   ncy == 0 && t.steps == 0 && !boids_backend_is_gpu(x->cpu) &&
                   !boids_backend_is_gpu(NULL)
               ? NEUTRAL
               : 0;
}
#endif

#define R(entry, misuse, expect, fn)                                                               \
    { entry, misuse, expect, fn }
static const row rows[] = {
    R("boids_flock_alloc", "NULL flock", BOIDS_ERR_INPUT, flock_alloc_null),
    R("boids_flock_alloc", "n = 0", BOIDS_ERR_INPUT, flock_alloc_zero),
    R("boids_flock_copy", "NULL source", BOIDS_ERR_INPUT, flock_copy_null_src),
    R("boids_flock_copy", "NULL destination", BOIDS_ERR_INPUT, flock_copy_null_dst),
    R("boids_flock_check", "NULL flock", BOIDS_ERR_INPUT, flock_check_null),
    R("boids_flock_check", "NULL parameters", BOIDS_ERR_INPUT, flock_check_null_p),
    R("boids_order", "NULL flock", NEUTRAL, flock_order_null),
    R("boids_flock_hash", "NULL flock", NEUTRAL, flock_hash_null),
    R("boids_params_set", "NULL parameters", BOIDS_ERR_INPUT, params_set_null),
    R("boids_params_set", "NULL key", BOIDS_ERR_INPUT, params_set_null_key),
    R("boids_params_set", "NULL value", BOIDS_ERR_INPUT, params_set_null_value),
    R("boids_params_set", "count = nan", BOIDS_ERR_INPUT, params_set_bad),
    R("boids_params_validate", "NULL parameters", BOIDS_ERR_INPUT, params_validate_null),
    R("boids_params_validate", "max_speed * dt > half the world", BOIDS_ERR_INPUT,
      params_validate_far),
    R("boids_param_find", "NULL key", NEUTRAL, params_find_null),
    R("boids_preset_apply", "NULL name", BOIDS_ERR_INPUT, preset_null_name),
    R("boids_preset_apply", "NULL parameters", BOIDS_ERR_INPUT, preset_null_p),
    R("boids_preset_apply", "unknown name", BOIDS_ERR_INPUT, preset_unknown),
    R("boids_params_load_ini", "missing file", BOIDS_ERR_INPUT, ini_missing),
    R("boids_state_load", "NULL file name", BOIDS_ERR_INPUT, state_load_null),
    R("boids_state_load", "NULL flock", BOIDS_ERR_INPUT, state_load_null_out),
    R("boids_state_save", "NULL flock", BOIDS_ERR_INPUT, state_save_null),
    R("boids_state_save", "NULL file name", BOIDS_ERR_INPUT, state_save_null_path),
    R("boids_state_load_seeded", "NULL file name", BOIDS_ERR_INPUT, state_load_seeded_null),
    R("boids_state_load_seeded", "NULL flock", BOIDS_ERR_INPUT, state_load_seeded_null_out),
    R("boids_state_save_seeded", "NULL flock", BOIDS_ERR_INPUT, state_save_seeded_null),
    R("boids_state_save_seeded", "NULL file name", BOIDS_ERR_INPUT, state_save_seeded_null_path),
    R("boids_state_save_seeded", "vy NULL", BOIDS_ERR_INPUT, state_save_seeded_no_vy),
    R("boids_state_save_seeded", "noise seed -2", BOIDS_ERR_INPUT, state_save_seeded_bad_seed),
    R("boids_metrics_compute", "NULL flock", BOIDS_ERR_INPUT, metrics_null_f),
    R("boids_metrics_compute", "NULL parameters", BOIDS_ERR_INPUT, metrics_null_p),
    R("boids_metrics_compute", "NULL output", BOIDS_ERR_INPUT, metrics_null_out),
    R("boids_metrics_compute", "empty flock", BOIDS_ERR_INPUT, metrics_empty),
    R("boids_metrics_get", "NULL metrics (NaN)", NEUTRAL, metrics_get_null),
    R("boids_metrics_format", "NULL metrics (-1)", NEUTRAL, metrics_format_null),
    R("boids_metrics_centre", "NULL flock or outputs", NEUTRAL, metrics_centre_null),
    R("boids_params_format", "NULL parameters (empty text)", NEUTRAL, params_format_null),
    R("boids_error_set/clear/status_exit_code", "NULL error, unknown status", NEUTRAL,
      error_set_null),
    R("boids_cpu_ref_create", "NULL flock", BOIDS_ERR_INPUT, ref_create_null),
    R("boids_cpu_ref_create", "empty flock", BOIDS_ERR_INPUT, ref_create_empty),
    R("boids_cpu_create", "NULL flock", BOIDS_ERR_INPUT, cpu_create_null),
    R("boids_cpu_create", "empty flock", BOIDS_ERR_INPUT, cpu_create_empty),
    R("boids_backend_step", "NULL backend", BOIDS_ERR_INPUT, step_null_b),
    R("boids_backend_step", "NULL parameters", BOIDS_ERR_INPUT, step_null_p),
    R("boids_backend_step", "cpu: max_speed * dt > half the world", BOIDS_ERR_INPUT, step_far_cpu),
    R("boids_backend_step", "cpu-ref: max_speed * dt > half the world", BOIDS_ERR_INPUT,
      step_far_ref),
    R("boids_backend_download", "NULL backend", BOIDS_ERR_INPUT, download_null_b),
    R("boids_backend_download", "NULL flock", BOIDS_ERR_INPUT, download_null_out),
    R("boids_backend_download", "flock of another N", BOIDS_ERR_INPUT, download_other_n),
    R("boids_backend_download", "empty flock", BOIDS_ERR_INPUT, download_empty),
    R("boids_backend_upload", "NULL backend", BOIDS_ERR_INPUT, upload_null_b),
    R("boids_backend_upload", "NULL flock", BOIDS_ERR_INPUT, upload_null_in),
    R("boids_backend_upload", "empty flock", BOIDS_ERR_INPUT, upload_empty),
    R("boids_backend_neighbours", "NULL outputs", BOIDS_ERR_INPUT, neighbours_null_out),
    R("boids_backend_neighbours", "NULL backend", BOIDS_ERR_INPUT, neighbours_null_b),
    R("boids_backend_neighbours", "max_speed * dt > half the world", BOIDS_ERR_INPUT,
      neighbours_far),
    R("boids_backend_n/name/has_neighbours/destroy", "NULL backend", NEUTRAL, backend_getters_null),
#if BOIDS_TEST_GPU
    R("boids_gpu_create", "NULL flock", BOIDS_ERR_INPUT, gpu_create_null),
    R("boids_gpu_create", "empty flock", BOIDS_ERR_INPUT, gpu_create_empty),
    R("boids_gpu_create", "no GL context loaded", BOIDS_ERR_RUNTIME, gpu_create_no_gl),
    R("boids_gl_create", "BOIDS_EGL_PLATFORM=nonsense", BOIDS_ERR_INPUT, gl_create_bad_platform),
    R("boids_gpu_stage_name", "stage 99 (\"?\")", NEUTRAL, gpu_stage_name_bad),
    R("boids_gpu_check_params", "NULL parameters", BOIDS_ERR_INPUT, gpu_check_null),
    R("boids_gpu_check_params", "k = BOIDS_GPU_MAX_K + 1", BOIDS_ERR_LIMIT, gpu_check_k),
    R("boids_gpu_max_count", "no GL context loaded (0, with why)", NEUTRAL, gpu_max_count_no_gl),
    R("boids_gl_load", "NULL loader", BOIDS_ERR_INPUT, gl_load_null),
    R("boids_gl_debug_enable", "NULL log", BOIDS_ERR_INPUT, gl_debug_null),
    R("boids_gl_renderer/version/platform/debug_log/destroy", "NULL context", NEUTRAL,
      gl_getters_null),
    R("boids_gpu_state_buffer/id_buffer/grid/timings/timings_reset", "a cpu backend", NEUTRAL,
      gpu_getters_cpu),
#endif
};

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
    x->cpu = boids_cpu_create(&x->f, 1, &err);
    x->ref = boids_cpu_ref_create(&x->f, &err);
    CHECK(x->cpu && x->ref, "backends: %s", err.msg);
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
    printf("%-58s %-40s %s\n", "entry point", "misuse", "expected");
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        const row *r = &rows[i];
        boids_error err = {BOIDS_OK, ""};
        int fired = asserts_fired;
        int got = r->run(&x, &err);
        printf("%-58s %-40s %s\n", r->entry, r->misuse, expect_name(r->expect));
        CHECK(got == r->expect, "%s with %s: got %d, expected %d (%s)", r->entry, r->misuse, got,
              r->expect, err.msg);
        if (r->expect != NEUTRAL)
            CHECK((int)err.status == r->expect && err.msg[0], "%s with %s: no message", r->entry,
                  r->misuse);
#if BOIDS_TEST_GPU
        if (r->run == gpu_getters_cpu)
            CHECK((asserts_fired > fired) == (boids_asserts_enabled() != 0),
                  "GPU getters with a cpu backend: %d assertion(s), assertions %s",
                  asserts_fired - fired, boids_asserts_enabled() ? "on" : "off");
#else
        (void)fired;
#endif
    }
    /* Nothing above ran a step: both states are as created. */
    CHECK(state_hash(x.cpu, &x.f) == cpu0, "a refused call changed the cpu state");
    CHECK(state_hash(x.ref, &x.f) == ref0, "a refused call changed the cpu-ref state");
    boids_backend_destroy(x.cpu);
    boids_backend_destroy(x.ref);
    boids_flock_free(&x.f);
    boids_flock_free(&x.other);
    return CHECK_DONE("api_test");
}
