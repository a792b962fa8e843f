/* SPDX-License-Identifier: MIT */
/* Build-time tool: writes the shader prelude of one dimension (0: none, 2 or 3; 2t or 3t: in
 * tile mode) to a file so that glslangValidator checks each shader unit exactly as it is
 * compiled at run time. */
#include <stdio.h>
#include <stdlib.h>

#include "prelude.h"

int main(int argc, char **argv) {
    const char *d = argc == 3 ? argv[2] : "";
    int tile = (d[0] == '2' || d[0] == '3') && d[1] == 't';
    if ((d[0] != '0' && d[0] != '2' && d[0] != '3') || d[1 + tile]) {
        fprintf(stderr, "usage: %s OUTPUT DIM (DIM: 0, 2, 3, 2t or 3t)\n", argv[0]);
        return 2;
    }
    int dim = (d[0] - '0') | (tile ? BOIDS_GPU_TILE : 0);
    size_t len = boids_gpu_prelude(NULL, 0, dim);
    char *buf = malloc(len + 1);
    if (!buf) return 1;
    boids_gpu_prelude(buf, len + 1, dim);
    FILE *f = fopen(argv[1], "w");
    if (!f || fputs(buf, f) == EOF || fclose(f) != 0) {
        fprintf(stderr, "%s: cannot write %s\n", argv[0], argv[1]);
        free(buf);
        return 1;
    }
    free(buf);
    return 0;
}
