/* Runs `boids verify` in-process with the arguments given, after checking that a GL 4.3
 * context can be made at all: without one the test is skipped (exit 77), visibly. */
#include <stdio.h>

#include "boids/gpu.h"
#include "commands.h"

int main(int argc, char **argv) {
    boids_error err;
    boids_gl *gl = boids_gl_create(1, &err);
    if (!gl) {
        printf("SKIP: no OpenGL 4.3 context: %s\n", err.msg);
        return 77;
    }
    boids_gl_destroy(gl);
    argv[0] = "verify";
    return boids_cmd_verify(argc, argv);
}
