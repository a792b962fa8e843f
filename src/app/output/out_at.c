/* SPDX-License-Identifier: MIT */
#include "output/out_at.h"

#include <sys/types.h>

static int file_write_at(void *ctx, uint64_t at, const void *bytes, size_t len) {
    FILE *f = ctx;
    if ((uint64_t)ftello(f) != at && fseeko(f, (off_t)at, SEEK_SET) != 0) return -1;
    return fwrite(bytes, 1, len, f) == len ? 0 : -1;
}

app_out app_out_file(FILE *f) {
    return (app_out){file_write_at, f};
}

app_rows app_rows_whole(const boids_flock *f) {
    return (app_rows){f, 0, 1};
}
