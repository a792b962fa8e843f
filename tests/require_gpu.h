/* SPDX-License-Identifier: MIT */
/* What a test does when no GL 4.3 context can be made. By default it exits 77, which ctest
 * shows as a SKIP: a machine without any GL driver still runs every other test. With
 * BOIDS_REQUIRE_GPU set (to anything but "" or "0") it fails instead: CI sets it, because
 * its machines have Mesa llvmpipe, and there a missing context means a broken driver or EGL
 * setup that would otherwise hide every GPU test behind a skip. */
#ifndef BOIDS_TEST_REQUIRE_GPU_H
#define BOIDS_TEST_REQUIRE_GPU_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int gpu_required(void) {
    const char *v = getenv("BOIDS_REQUIRE_GPU");
    return v && *v && strcmp(v, "0") != 0;
}

/* Says that test has no context and why (the library's message, which names the missing
 * context); returns the test's exit code. */
static int no_gpu_exit(const char *test, const char *why) {
    if (gpu_required()) {
        fprintf(stderr,
                "%s: FAIL: %s; BOIDS_REQUIRE_GPU is set, so this fails instead of skipping\n", test,
                why);
        return 1;
    }
    printf("%s: SKIP: %s; set BOIDS_REQUIRE_GPU=1 to make this a failure\n", test, why);
    return 77;
}

#endif
