/* SPDX-License-Identifier: MIT */
/* Build-time tool: writes the shader prelude to a file so that glslangValidator checks each
 * shader exactly as it is compiled at run time. */
#include <stdio.h>
#include <stdlib.h>

#include "prelude.h"

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s OUTPUT\n", argv[0]);
        return 2;
    }
    size_t len = boids_gpu_prelude(NULL, 0);
    char *buf = malloc(len + 1);
    if (!buf) return 1;
    boids_gpu_prelude(buf, len + 1);
    FILE *f = fopen(argv[1], "w");
    if (!f || fputs(buf, f) == EOF || fclose(f) != 0) {
        fprintf(stderr, "%s: cannot write %s\n", argv[0], argv[1]);
        free(buf);
        return 1;
    }
    free(buf);
    return 0;
}
