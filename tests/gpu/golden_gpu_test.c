/* SPDX-License-Identifier: MIT */
/* The pinned golden state hashes of tests/golden.h on the GPU backend in deterministic mode.
 * The constants are compared only when the GL renderer is Mesa llvmpipe (CI's device): they
 * are a property of llvmpipe's float arithmetic and shader compiler, and another device
 * rounds its transcendental functions and sums differently. There the hashes are printed
 * as not pinned, and the test checks only that two runs give the same bits. A mismatch
 * prints the hash got; BOIDS_GOLDEN_PRINT=1 prints the table to paste (see tests/golden.h).
 * Exit 77 (skip) only when no GL 4.3 context can be made at all, and then a failure with
 * BOIDS_REQUIRE_GPU set. */
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
    uint64_t got[GOLDEN_COUNT];
    for (int i = 0; i < GOLDEN_COUNT; i++) {
        const golden_scenario *g = &golden_scenarios[i];
        boids_params p;
        boids_flock f;
        golden_setup(g, &p, &f);
        got[i] = run_hash(&p, &f, 1, g->steps);
        /* Deterministic mode promises the same bits run after run on any device. */
        uint64_t again = run_hash(&p, &f, 1, g->steps);
        CHECK(again == got[i], "%s: two deterministic runs give 0x%016" PRIx64 " and 0x%016" PRIx64,
              g->name, got[i], again);
        const char *verdict = !pinned                            ? "not pinned on this device"
                              : got[i] == golden_gpu_llvmpipe[i] ? "pinned"
                                                                 : "DIFFERS";
        printf("%-24s gpu deterministic 0x%016" PRIx64 " %s\n", g->name, got[i], verdict);
        CHECK(!pinned || got[i] == golden_gpu_llvmpipe[i],
              "%s gpu deterministic on llvmpipe: state hash 0x%016" PRIx64 ", pinned 0x%016" PRIx64
              " (a change of results: if intended, re-pin as tests/golden.h says)",
              g->name, got[i], golden_gpu_llvmpipe[i]);
        boids_flock_free(&f);
    }
    golden_print_table("golden_gpu_llvmpipe", got);
    const boids_gl_debug *log = boids_gl_debug_log(gl);
    CHECK(log->errors == 0, "%lu GL debug errors, last: %s", log->errors, log->last_error);
    boids_gl_destroy(gl);
    return CHECK_DONE("golden_gpu_test");
}
