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
    return boids_error_set(err, BOIDS_ERR_RUNTIME, "%s: write failed at frame %zu", w->path,
                           w->written);
}

/* Starts the chunk `id` of the current frame at the file's end (its n x m values of type
 * follow); its place in the file into *at. Every writer of a file keeps the same index. */
static boids_status begin_chunk(app_gsd *w, int id, int type, uint64_t n, uint32_t m, uint64_t *at,
                                boids_error *err) {
    if (w->entries == w->cap) {
        size_t cap = w->cap ? 2 * w->cap : 64;
        app_gsd_entry *q = realloc(w->index, cap * sizeof *q);
        if (!q)
            return boids_error_set(err, BOIDS_ERR_NOMEM, "%s: out of memory for the index",
                                   w->path);
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
    *at = w->at;
    w->at += n * m * type_bytes[type];
    return BOIDS_OK;
}

/* A chunk of a few bytes, whole, written by the lead. */
static boids_status small_chunk(app_gsd *w, const app_out *o, int lead, int id, int type,
                                uint64_t n, uint32_t m, const unsigned char *bytes, size_t size,
                                boids_error *err) {
    uint64_t at;
    boids_status s = begin_chunk(w, id, type, n, m, &at, err);
    if (s || !lead) return s;
    return o->write_at(o->ctx, at, bytes, size) ? write_failed(w, err) : BOIDS_OK;
}

boids_status app_gsd_start(app_gsd *w, const char *path, size_t frames, size_t n, int dim, int f8,
                           const double *side, boids_error *err) {
    memset(w, 0, sizeof *w);
    w->ntypes = 1;
    if (f8)
        return boids_error_set(err, BOIDS_ERR_INPUT,
                               "%s: a GSD trajectory holds float32 values (the HOOMD schema's "
                               "type); leave --trajectory-dtype out or write a .npy for f8",
                               path);
    if (n > UINT32_MAX)
        return boids_error_set(err, BOIDS_ERR_LIMIT,
                               "%s: %zu boids exceed the 2^32 - 1 of a GSD particles/N", path, n);
    w->path = path;
    w->frames = frames;
    w->n = n;
    w->dim = dim;
    for (int a = 0; a < 3; a++) {
        w->box[a] = a < dim ? (float)side[a] : 0.0f;
        w->half[a] = a < dim ? (float)(side[a] / 2) : 0.0f;
    }
    w->at = HEADER_BYTES; /* the header is written last, when the index's place is known */
    return BOIDS_OK;
}

boids_status app_gsd_open(app_gsd *w, const char *path, size_t frames, size_t n, int dim, int f8,
                          const double *side, boids_error *err) {
    boids_status s = app_gsd_start(w, path, frames, n, dim, f8, side, err);
    if (!s) s = boids_atomic_open(&w->file, path, err);
    if (s) return s;
    w->path = w->file.path;
    static const unsigned char zero[HEADER_BYTES];
    if (fwrite(zero, 1, sizeof zero, w->file.f) != sizeof zero) {
        boids_atomic_abort(&w->file);
        return boids_error_set(err, BOIDS_ERR_INPUT, "%s: cannot write", path);
    }
    return BOIDS_OK;
}

void app_gsd_set_species(app_gsd *w, const boids_params *p) {
    w->ntypes = p && p->species > 1 ? p->species : 1;
    if (w->ntypes > 1) w->types = *p;
}

/* A per-boid chunk, its rows r: POSITION or VELOCITY (3 float32 a boid), TYPEID (a uint32 a
 * boid: its species, 0 with one type); through a fixed buffer. */
static boids_status boid_chunk(app_gsd *w, const app_out *o, const app_rows *r, int id,
                               boids_error *err) {
    const uint32_t m = id == TYPEID ? 1 : 3;
    uint64_t at;
    boids_status s = begin_chunk(w, id, id == TYPEID ? T_UINT32 : T_FLOAT, w->n, m, &at, err);
    if (s) return s;
    const boids_flock *f = r->f;
    const double *c[3] = {id == POSITION ? f->x : f->vx, id == POSITION ? f->y : f->vy,
                          id == POSITION ? f->z : f->vz};
    at += (uint64_t)r->first * m * 4;
    unsigned char buf[CHUNK_BOIDS * 3 * 4];
    for (size_t i0 = 0; i0 < f->n; i0 += CHUNK_BOIDS) {
        size_t k = f->n - i0 < CHUNK_BOIDS ? f->n - i0 : CHUNK_BOIDS;
        unsigned char *p = buf;
        for (size_t i = i0; i < i0 + k; i++)
            for (uint32_t a = 0; a < m; a++) {
                if (id == TYPEID) {
                    const int s = w->ntypes > 1 ? boids_species_of(&w->types, r->first + i) : 0;
                    p = npy_put_le(p, (uint64_t)s, 4);
                    continue;
                }
                float v = (int)a < w->dim ? (float)c[a][i] : 0.0f;
                /* float32 arithmetic: the .npy's float32 value minus the half side */
                if (id == POSITION) v = v - w->half[a];
                p = put_float(p, v);
            }
        if (o->write_at(o->ctx, at, buf, (size_t)(p - buf))) return write_failed(w, err);
        at += (uint64_t)(p - buf);
    }
    return BOIDS_OK;
}

boids_status app_gsd_put_frame(app_gsd *w, const app_out *o, const app_rows *r, unsigned long step,
                               boids_error *err) {
    unsigned char b[64];
    boids_status s = BOIDS_OK;
    const int lead = r->lead;
    if (w->written == 0) {
        unsigned char *p = b;
        for (int a = 0; a < 6; a++) p = put_float(p, a < 3 ? w->box[a] : 0.0f);
        s = small_chunk(w, o, lead, BOX, T_FLOAT, 6, 1, b, (size_t)(p - b), err);
        b[0] = (unsigned char)w->dim;
        if (!s) s = small_chunk(w, o, lead, DIMENSIONS, T_UINT8, 1, 1, b, 1, err);
    }
    npy_put_le(b, step, 8);
    if (!s) s = small_chunk(w, o, lead, STEP, T_UINT64, 1, 1, b, 8, err);
    if (!s && w->written == 0) {
        npy_put_le(b, w->n, 4);
        s = small_chunk(w, o, lead, PART_N, T_UINT32, 1, 1, b, 4, err);
    }
    if (!s) s = boid_chunk(w, o, r, POSITION, err);
    if (!s && w->written == 0) {
        s = boid_chunk(w, o, r, TYPEID, err);
        /* The names, each with its zero: "boid", or "species0" ... one a species. */
        enum { SPECIES_NAME = 9 };
        unsigned char names[BOIDS_MAX_SPECIES * SPECIES_NAME] = "boid";
        const uint32_t m = w->ntypes > 1 ? SPECIES_NAME : TYPE_NAME_BYTES;
        for (int t = 0; w->ntypes > 1 && t < w->ntypes; t++)
            memcpy(names + t * SPECIES_NAME,
                   (const char[SPECIES_NAME]){'s', 'p', 'e', 'c', 'i', 'e', 's', (char)('0' + t)},
                   SPECIES_NAME);
        if (!s)
            s = small_chunk(w, o, lead, TYPES, T_INT8, (uint64_t)w->ntypes, m, names,
                            (size_t)w->ntypes * m, err);
    }
    if (!s) s = boid_chunk(w, o, r, VELOCITY, err);
    if (!s) w->written++;
    return s;
}

boids_status app_gsd_frame(app_gsd *w, const boids_flock *f, unsigned long step, boids_error *err) {
    const app_out o = app_out_file(w->file.f);
    const app_rows r = app_rows_whole(f);
    return app_gsd_put_frame(w, &o, &r, step, err);
}

boids_status app_gsd_put_end(app_gsd *w, const app_out *o, int lead, boids_error *err) {
    /* The index, with one zero entry after the last (a location of 0 ends it), a buffer of
     * entries at a time. */
    const uint64_t index_at = w->at, allocated = w->entries + 1;
    enum { BATCH = 128 };
    unsigned char e[BATCH * ENTRY_BYTES];
    int bad = 0;
    for (size_t i0 = 0; lead && i0 <= w->entries && !bad; i0 += BATCH) {
        const size_t end = i0 + BATCH < w->entries + 1 ? i0 + BATCH : w->entries + 1;
        memset(e, 0, sizeof e);
        for (size_t i = i0; i < end && i < w->entries; i++) {
            const app_gsd_entry *x = &w->index[i];
            unsigned char *p = npy_put_le(e + (i - i0) * ENTRY_BYTES, x->frame, 8);
            p = npy_put_le(p, x->n, 8);
            p = npy_put_le(p, x->location, 8);
            p = npy_put_le(p, x->m, 4);
            p = npy_put_le(p, x->id, 2);
            *p++ = x->type; /* and flags 0 */
        }
        bad = o->write_at(o->ctx, index_at + i0 * ENTRY_BYTES, e, (end - i0) * ENTRY_BYTES) != 0;
    }
    /* The names, each ended by a zero, then zeros to whole segments (at least one zero
     * after the last name: an empty name ends the list). */
    size_t bytes = 1;
    for (int k = 0; k < NAMES; k++) bytes += strlen(names[k]) + 1;
    const size_t segments = (bytes + NAME_SEGMENT - 1) / NAME_SEGMENT;
    const uint64_t names_at = index_at + allocated * ENTRY_BYTES;
    unsigned char list[NAMES * 32 + NAME_SEGMENT] = {0}, *q = list;
    for (int k = 0; k < NAMES; k++) q += sprintf((char *)q, "%s", names[k]) + 1;
    if (lead && !bad) bad = o->write_at(o->ctx, names_at, list, segments * NAME_SEGMENT) != 0;
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
    if (lead && !bad) bad = o->write_at(o->ctx, 0, h, sizeof h) != 0;
    free(w->index);
    w->index = NULL;
    if (bad)
        return boids_error_set(err, BOIDS_ERR_RUNTIME, "%s: write failed at the index", w->path);
    return BOIDS_OK;
}

boids_status app_gsd_close(app_gsd *w, boids_error *err) {
    if (w->written != w->frames) {
        app_gsd_abort(w);
        return boids_error_set(err, BOIDS_ERR_RUNTIME, "%s: %zu of %zu frames written",
                               w->file.path, w->written, w->frames);
    }
    const app_out o = app_out_file(w->file.f);
    boids_status s = app_gsd_put_end(w, &o, 1, err);
    if (s) {
        boids_atomic_abort(&w->file);
        return s;
    }
    return boids_atomic_commit(&w->file, err);
}

void app_gsd_abort(app_gsd *w) {
    free(w->index);
    w->index = NULL;
    boids_atomic_abort(&w->file);
}
