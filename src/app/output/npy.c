/* SPDX-License-Identifier: MIT */
#include "output/npy.h"

#include <string.h>

#include "../core/npy_format.h"

boids_status app_npy_open(app_npy *w, const char *path, size_t frames, size_t n, int dim, int f8,
                          boids_error *err) {
    size_t item = f8 ? 8 : 4, cols = dim == 3 ? 6 : 4;
    /* frames * n * cols * item must stay below 2^62 bytes, checked without overflow. */
    if (n && frames > (((size_t)1 << 62) / (cols * item)) / n)
        return boids_error_set(err, BOIDS_ERR_LIMIT,
                               "%s: %zu frames of %zu boids exceed the largest file written", path,
                               frames, n);
    memset(w, 0, sizeof *w);
    boids_status st = boids_atomic_open(&w->file, path, err);
    if (st) return st;
    w->frames = frames;
    w->n = n;
    w->f8 = f8;
    w->cols = (int)cols;
    size_t shape[3] = {frames, n, cols};
    npy_write_header(w->file.f, shape, 3, f8);
    return BOIDS_OK;
}

boids_status app_npy_frame(app_npy *w, const boids_flock *f, boids_error *err) {
    if (npy_write_flock(w->file.f, f, w->f8))
        return boids_error_set(err, BOIDS_ERR_RUNTIME, "%s: write failed at frame %zu",
                               w->file.path, w->written);
    w->written++;
    return BOIDS_OK;
}

boids_status app_npy_close(app_npy *w, boids_error *err) {
    if (w->written != w->frames) {
        boids_atomic_abort(&w->file);
        return boids_error_set(err, BOIDS_ERR_RUNTIME, "%s: %zu of %zu frames written",
                               w->file.path, w->written, w->frames);
    }
    return boids_atomic_commit(&w->file, err);
}

void app_npy_abort(app_npy *w) {
    boids_atomic_abort(&w->file);
}
