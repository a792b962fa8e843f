/* SPDX-License-Identifier: MIT */
#include "npy.h"

#include <stdint.h>
#include <string.h>

/* The header: magic, version 1.0, a little-endian 16-bit length, then the dict padded with
 * spaces and ended by '\n' so that the data starts at a multiple of 64 bytes (the alignment
 * NumPy itself writes, which lets memory maps stay aligned). */
static void write_header(FILE *f, size_t frames, size_t n, int cols, int f8) {
    char dict[128];
    int len = snprintf(dict, sizeof dict,
                       "{'descr': '%s', 'fortran_order': False, 'shape': (%zu, %zu, %d), }",
                       f8 ? "<f8" : "<f4", frames, n, cols);
    size_t total = 10 + (size_t)len + 1, padded = (total + 63) / 64 * 64;
    unsigned hlen = (unsigned)(padded - 10);
    fwrite("\x93NUMPY\x01\x00", 1, 8, f);
    fputc((int)(hlen & 0xff), f);
    fputc((int)(hlen >> 8), f);
    fputs(dict, f);
    for (size_t i = total; i < padded; i++) fputc(' ', f);
    fputc('\n', f);
}

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
    write_header(w->file.f, frames, n, w->cols, f8);
    return BOIDS_OK;
}

/* Little-endian bytes of a value whatever the host's byte order. */
static unsigned char *put_le(unsigned char *out, uint64_t bits, size_t bytes) {
    for (size_t b = 0; b < bytes; b++) out[b] = (unsigned char)(bits >> (8 * b));
    return out + bytes;
}

static unsigned char *put_value(unsigned char *out, double v, int f8) {
    if (f8) {
        uint64_t bits;
        memcpy(&bits, &v, sizeof bits);
        return put_le(out, bits, 8);
    }
    float x = (float)v; /* round to nearest: numpy's float32(v) */
    uint32_t bits;
    memcpy(&bits, &x, sizeof bits);
    return put_le(out, bits, 4);
}

boids_status app_npy_frame(app_npy *w, const boids_flock *f, boids_error *err) {
    if (f->n != w->n || w->written == w->frames || 2 * boids_flock_dim(f) != w->cols)
        return boids_error_set(err, BOIDS_ERR_RUNTIME,
                               "%s: frame %zu of %zu %d-D boids does not fit the declared %zu x "
                               "%zu x %d",
                               w->file.path, w->written, f->n, boids_flock_dim(f), w->frames, w->n,
                               w->cols);
    enum { CHUNK = 1024 }; /* boids per write: a fixed 48 KiB buffer */
    unsigned char buf[CHUNK * 6 * 8];
    for (size_t i = 0; i < f->n; i += CHUNK) {
        size_t end = i + CHUNK < f->n ? i + CHUNK : f->n;
        unsigned char *p = buf;
        for (size_t k = i; k < end; k++) {
            p = put_value(p, f->x[k], w->f8);
            p = put_value(p, f->y[k], w->f8);
            if (f->z) p = put_value(p, f->z[k], w->f8);
            p = put_value(p, f->vx[k], w->f8);
            p = put_value(p, f->vy[k], w->f8);
            if (f->z) p = put_value(p, f->vz[k], w->f8);
        }
        if (fwrite(buf, 1, (size_t)(p - buf), w->file.f) != (size_t)(p - buf))
            return boids_error_set(err, BOIDS_ERR_RUNTIME, "%s: write failed at frame %zu",
                                   w->file.path, w->written);
    }
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
