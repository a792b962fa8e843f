/* SPDX-License-Identifier: MIT */
/* Runs `boids verify` in-process with the arguments given, after checking that a GL 4.3
 * context can be made at all: without one the test is skipped (exit 77), visibly, or fails
 * with BOIDS_REQUIRE_GPU set (tests/require_gpu.h). */
#include <stdio.h>

#include "boids/gpu.h"
#include "../require_gpu.h"
#include "commands/commands.h"

int main(int argc, char **argv) {
    boids_error err;
    boids_gl *gl = boids_gl_create(1, &err);
    if (!gl) {
        return no_gpu_exit("gpu_verify_test", err.msg);
    }
    boids_gl_destroy(gl);
    argv[0] = "verify";
    return boids_cmd_verify(argc, argv);
}
