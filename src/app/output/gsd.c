/* SPDX-License-Identifier: MIT */
#include "output/gsd.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/npy_format.h"
#include "boids/version.h"

/* The chunks' names, in alphabetical order: a name's id is its place here, and the index is
 * sorted by frame and then by id. */
enum { BOX, DIMENSIONS, STEP, PART_N, POSITION, TYPEID, TYPES, VELOCITY, NAMES };
static const char *const names[NAMES] = {
    "configuration/box",  "configuration/dimensions", "configuration/step", "particles/N",
    "particles/position", "particles/typeid",         "particles/types",    "particles/velocity"};

/* The file layer's type codes. */
enum { T_UINT8 = 1, T_UINT32 = 3, T_UINT64 = 4, T_INT8 = 5, T_FLOAT = 9 };

enum { HEADER_BYTES = 256, ENTRY_BYTES = 32, NAME_SEGMENT = 64, TYPE_NAME_BYTES = 5 };

/* Boids per buffered write of a per-boid chunk. */
enum { CHUNK_BOIDS = 1024 };

int app_gsd_wanted(const char *path) {
    size_t k = strlen(path);
    return k >= 4 && !strcmp(path + k - 4, ".gsd");
}

static unsigned char *put_float(unsigned char *p, float v) {
    uint32_t bits;
    memcpy(&bits, &v, sizeof bits);
    return npy_put_le(p, bits, 4);
}

static boids_status write_failed(app_gsd *w, boids_error *err) {
    return boids_error_set(err, BOIDS_ERR_RUNTIME, "%s: write failed at frame %zu", w->file.path,
                           w->written);
}

/* Starts the chunk `id` of the current frame at the file's end (its n x m values of type
 * follow). */
static boids_status begin_chunk(app_gsd *w, int id, int type, uint64_t n, uint32_t m,
                                boids_error *err) {
    if (w->entries == w->cap) {
        size_t cap = w->cap ? 2 * w->cap : 64;
        app_gsd_entry *q = realloc(w->index, cap * sizeof *q);
        if (!q)
            return boids_error_set(err, BOIDS_ERR_NOMEM, "%s: out of memory for the index",
                                   w->file.path);
        w->index = q;
        w->cap = cap;
    }
    static const size_t type_bytes[] = {
        [T_UINT8] = 1, [T_UINT32] = 4, [T_UINT64] = 8, [T_INT8] = 1, [T_FLOAT] = 4};
    w->index[w->entries++] = (app_gsd_entry){.frame = w->written,
                                             .n = n,
                                             .location = w->at,
                                             .m = m,
                                             .id = (uint16_t)id,
                                             .type = (uint8_t)type};
    w->at += n * m * type_bytes[type];
    return BOIDS_OK;
}

/* A chunk of a few bytes, whole. */
static boids_status small_chunk(app_gsd *w, int id, int type, uint64_t n, uint32_t m,
                                const unsigned char *bytes, size_t size, boids_error *err) {
    boids_status s = begin_chunk(w, id, type, n, m, err);
    if (s) return s;
    return fwrite(bytes, 1, size, w->file.f) == size ? BOIDS_OK : write_failed(w, err);
}

boids_status app_gsd_open(app_gsd *w, const char *path, size_t frames, size_t n, int dim, int f8,
                          const double *side, boids_error *err) {
    memset(w, 0, sizeof *w);
    if (f8)
        return boids_error_set(err, BOIDS_ERR_INPUT,
                               "%s: a GSD trajectory holds float32 values (the HOOMD schema's "
                               "type); leave --trajectory-dtype out or write a .npy for f8",
                               path);
    if (n > UINT32_MAX)
        return boids_error_set(err, BOIDS_ERR_LIMIT,
                               "%s: %zu boids exceed the 2^32 - 1 of a GSD particles/N", path, n);
    boids_status s = boids_atomic_open(&w->file, path, err);
    if (s) return s;
    w->frames = frames;
    w->n = n;
    w->dim = dim;
    for (int a = 0; a < 3; a++) {
        w->box[a] = a < dim ? (float)side[a] : 0.0f;
        w->half[a] = a < dim ? (float)(side[a] / 2) : 0.0f;
    }
    static const unsigned char zero[HEADER_BYTES];
    w->at = HEADER_BYTES; /* the header is written last, when the index's place is known */
    if (fwrite(zero, 1, sizeof zero, w->file.f) != sizeof zero) {
        boids_atomic_abort(&w->file);
        return boids_error_set(err, BOIDS_ERR_INPUT, "%s: cannot write", path);
    }
    return BOIDS_OK;
}

/* The per-boid chunk POSITION or VELOCITY: 3 float32 a boid, through a fixed buffer. */
static boids_status boid_chunk(app_gsd *w, int id, const boids_flock *f, boids_error *err) {
    boids_status s = begin_chunk(w, id, T_FLOAT, f->n, 3, err);
    if (s) return s;
    const double *c[3] = {id == POSITION ? f->x : f->vx, id == POSITION ? f->y : f->vy,
                          id == POSITION ? f->z : f->vz};
    unsigned char buf[CHUNK_BOIDS * 3 * 4];
    for (size_t i0 = 0; i0 < f->n; i0 += CHUNK_BOIDS) {
        size_t k = f->n - i0 < CHUNK_BOIDS ? f->n - i0 : CHUNK_BOIDS;
        unsigned char *p = buf;
        for (size_t i = i0; i < i0 + k; i++)
            for (int a = 0; a < 3; a++) {
                float v = a < w->dim ? (float)c[a][i] : 0.0f;
                /* float32 arithmetic: the .npy's float32 value minus the half side */
                if (id == POSITION) v = v - w->half[a];
                p = put_float(p, v);
            }
        if (fwrite(buf, 1, (size_t)(p - buf), w->file.f) != (size_t)(p - buf))
            return write_failed(w, err);
    }
    return BOIDS_OK;
}

boids_status app_gsd_frame(app_gsd *w, const boids_flock *f, unsigned long step, boids_error *err) {
    unsigned char b[64];
    boids_status s = BOIDS_OK;
    if (w->written == 0) {
        unsigned char *p = b;
        for (int a = 0; a < 6; a++) p = put_float(p, a < 3 ? w->box[a] : 0.0f);
        s = small_chunk(w, BOX, T_FLOAT, 6, 1, b, (size_t)(p - b), err);
        b[0] = (unsigned char)w->dim;
        if (!s) s = small_chunk(w, DIMENSIONS, T_UINT8, 1, 1, b, 1, err);
    }
    npy_put_le(b, step, 8);
    if (!s) s = small_chunk(w, STEP, T_UINT64, 1, 1, b, 8, err);
    if (!s && w->written == 0) {
        npy_put_le(b, w->n, 4);
        s = small_chunk(w, PART_N, T_UINT32, 1, 1, b, 4, err);
    }
    if (!s) s = boid_chunk(w, POSITION, f, err);
    if (!s && w->written == 0) {
        s = begin_chunk(w, TYPEID, T_UINT32, w->n, 1, err);
        unsigned char zero[CHUNK_BOIDS * 4] = {0};
        for (size_t i0 = 0; !s && i0 < w->n; i0 += CHUNK_BOIDS) {
            size_t k = w->n - i0 < CHUNK_BOIDS ? w->n - i0 : CHUNK_BOIDS;
            if (fwrite(zero, 4, k, w->file.f) != k) s = write_failed(w, err);
        }
        static const unsigned char type_name[TYPE_NAME_BYTES] = "boid"; /* with its zero */
        if (!s)
            s = small_chunk(w, TYPES, T_INT8, 1, TYPE_NAME_BYTES, type_name, TYPE_NAME_BYTES, err);
    }
    if (!s) s = boid_chunk(w, VELOCITY, f, err);
    if (!s) w->written++;
    return s;
}

boids_status app_gsd_close(app_gsd *w, boids_error *err) {
    if (w->written != w->frames) {
        app_gsd_abort(w);
        return boids_error_set(err, BOIDS_ERR_RUNTIME, "%s: %zu of %zu frames written",
                               w->file.path, w->written, w->frames);
    }
    /* The index, with one zero entry after the last (a location of 0 ends it). */
    const uint64_t index_at = w->at, allocated = w->entries + 1;
    unsigned char e[ENTRY_BYTES];
    int bad = 0;
    for (size_t i = 0; i <= w->entries && !bad; i++) {
        memset(e, 0, sizeof e);
        if (i < w->entries) {
            const app_gsd_entry *x = &w->index[i];
            unsigned char *p = npy_put_le(e, x->frame, 8);
            p = npy_put_le(p, x->n, 8);
            p = npy_put_le(p, x->location, 8);
            p = npy_put_le(p, x->m, 4);
            p = npy_put_le(p, x->id, 2);
            *p++ = x->type; /* and flags 0 */
        }
        bad = fwrite(e, 1, sizeof e, w->file.f) != sizeof e;
    }
    /* The names, each ended by a zero, then zeros to whole segments (at least one zero
     * after the last name: an empty name ends the list). */
    size_t bytes = 1;
    for (int k = 0; k < NAMES; k++) bytes += strlen(names[k]) + 1;
    const size_t segments = (bytes + NAME_SEGMENT - 1) / NAME_SEGMENT;
    const uint64_t names_at = index_at + allocated * ENTRY_BYTES;
    for (int k = 0; k < NAMES && !bad; k++)
        bad = fwrite(names[k], 1, strlen(names[k]) + 1, w->file.f) != strlen(names[k]) + 1;
    static const unsigned char zero[NAME_SEGMENT];
    const size_t pad = segments * NAME_SEGMENT - (bytes - 1);
    if (!bad) bad = fwrite(zero, 1, pad, w->file.f) != pad;
    /* The header. */
    unsigned char h[HEADER_BYTES] = {0}, *p = npy_put_le(h, 0x65DF65DF65DF65DFull, 8);
    p = npy_put_le(p, index_at, 8);
    p = npy_put_le(p, allocated, 8);
    p = npy_put_le(p, names_at, 8);
    p = npy_put_le(p, segments, 8);
    p = npy_put_le(p, (1u << 16) | 4u, 4); /* the HOOMD schema 1.4 */
    p = npy_put_le(p, 2u << 16, 4);        /* the file layer 2.0 */
    snprintf((char *)p, 64, "boids %s", boids_version());
    memcpy(p + 64, "hoomd", 5);
    if (!bad)
        bad = fseek(w->file.f, 0, SEEK_SET) != 0 || fwrite(h, 1, sizeof h, w->file.f) != sizeof h;
    free(w->index);
    w->index = NULL;
    if (bad) {
        boids_atomic_abort(&w->file);
        return boids_error_set(err, BOIDS_ERR_RUNTIME, "%s: write failed at the index",
                               w->file.path);
    }
    return boids_atomic_commit(&w->file, err);
}

void app_gsd_abort(app_gsd *w) {
    free(w->index);
    w->index = NULL;
    boids_atomic_abort(&w->file);
}
