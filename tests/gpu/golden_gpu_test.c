/* SPDX-License-Identifier: MIT */
/* The pinned golden state hashes of tests/golden.h on the GPU backend in deterministic mode.
 * The constants are compared only when the GL renderer is Mesa llvmpipe (CI's device): they
 * are a property of llvmpipe's float arithmetic and shader compiler, and another device
 * rounds its transcendental functions and sums differently. There the hashes are printed
 * as not pinned, and the test checks only that two runs give the same bits. A mismatch
 * prints the hash got; BOIDS_GOLDEN_PRINT=1 prints the table to paste (see tests/golden.h).
 * Exit 77 (skip) only when no GL 4.3 context can be made at all, and then a failure with
 * BOIDS_REQUIRE_GPU set. Scenarios without a GPU column (the box's) are not run here. */
#include <string.h>

#include "../golden.h"
#include "gpu_fixture.h"

int main(void) {
    boids_error err;
    gl = boids_gl_create(1, &err);
    if (!gl) return no_gpu_exit("golden_gpu_test", err.msg);
    const char *renderer = boids_gl_renderer(gl);
    int pinned = strstr(renderer, "llvmpipe") != NULL;
    printf("GL: %s, %s: %s\n", renderer, boids_gl_version(gl),
           pinned ? "hashes pinned for llvmpipe" : "not llvmpipe: hashes printed, not pinned");
    golden_pins got[GOLDEN_COUNT];
    for (int i = 0; i < GOLDEN_COUNT; i++) {
        const golden_scenario *g = &golden_scenarios[i];
        const uint64_t pin = golden_pinned[i].gpu_llvmpipe;
        got[i] = golden_pinned[i];
        if (!pin) continue;
        boids_params p;
        boids_flock f;
        golden_setup(g, &p, &f);
        const uint64_t h = got[i].gpu_llvmpipe = run_hash(&p, &f, 1, g->steps);
        /* Deterministic mode promises the same bits run after run on any device. */
        uint64_t again = run_hash(&p, &f, 1, g->steps);
        CHECK(again == h, "%s: two deterministic runs give 0x%016" PRIx64 " and 0x%016" PRIx64,
              g->name, h, again);
        const char *verdict = !pinned    ? "not pinned on this device"
                              : h == pin ? "pinned"
                                         : "DIFFERS";
        printf("%-24s gpu deterministic 0x%016" PRIx64 " %s\n", g->name, h, verdict);
        CHECK(!pinned || h == pin,
              "%s gpu deterministic on llvmpipe: state hash 0x%016" PRIx64 ", pinned 0x%016" PRIx64
              " (a change of results: if intended, re-pin as tests/golden.h says)",
              g->name, h, pin);
        boids_flock_free(&f);
    }
    golden_print_table(got);
    const boids_gl_debug *log = boids_gl_debug_log(gl);
    CHECK(log->errors == 0, "%lu GL debug errors, last: %s", log->errors, log->last_error);
    boids_gl_destroy(gl);
    return CHECK_DONE("golden_gpu_test");
}
