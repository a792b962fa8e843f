/* SPDX-License-Identifier: MIT */
#include "npy_format.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const char magic[] = "\x93NUMPY";
enum { MAGIC_LEN = 6 };
/* The longest header read: NumPy writes about 120 bytes for these shapes; the bound keeps a
 * hostile length from being allocated. */
enum { NPY_MAX_HEADER = 65535 };

void npy_write_header(FILE *f, const size_t *shape, int ndim, int f8) {
    char dims[3 * 24], dict[160];
    size_t used = 0;
    for (int d = 0; d < ndim; d++)
        used += (size_t)snprintf(dims + used, sizeof dims - used, d ? ", %zu" : "%zu", shape[d]);
    if (ndim == 1) snprintf(dims + used, sizeof dims - used, ",");
    int len =
        snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }",
                 f8 ? "<f8" : "<f4", dims);
    size_t total = MAGIC_LEN + 4 + (size_t)len + 1, padded = (total + 63) / 64 * 64;
    unsigned hlen = (unsigned)(padded - MAGIC_LEN - 4);
    fwrite(magic, 1, MAGIC_LEN, f);
    fputc(1, f);
    fputc(0, f);
    fputc((int)(hlen & 0xff), f);
    fputc((int)(hlen >> 8), f);
    fputs(dict, f);
    for (size_t i = total; i < padded; i++) fputc(' ', f);
    fputc('\n', f);
}

unsigned char *npy_put_le(unsigned char *out, uint64_t bits, size_t bytes) {
    for (size_t b = 0; b < bytes; b++) out[b] = (unsigned char)(bits >> (8 * b));
    return out + bytes;
}

unsigned char *npy_put_value(unsigned char *out, double v, int f8) {
    if (f8) {
        uint64_t bits;
        memcpy(&bits, &v, sizeof bits);
        return npy_put_le(out, bits, 8);
    }
    float x = (float)v; /* round to nearest: numpy's float32(v) */
    uint32_t bits;
    memcpy(&bits, &x, sizeof bits);
    return npy_put_le(out, bits, 4);
}

int npy_write_flock(FILE *f, const boids_flock *fl, int f8) {
    enum { CHUNK = 1024 }; /* boids per write: a fixed 48 KiB buffer */
    unsigned char buf[CHUNK * 6 * 8];
    for (size_t i = 0; i < fl->n; i += CHUNK) {
        size_t end = i + CHUNK < fl->n ? i + CHUNK : fl->n;
        unsigned char *p = buf;
        for (size_t k = i; k < end; k++) {
            p = npy_put_value(p, fl->x[k], f8);
            p = npy_put_value(p, fl->y[k], f8);
            if (fl->z) p = npy_put_value(p, fl->z[k], f8);
            p = npy_put_value(p, fl->vx[k], f8);
            p = npy_put_value(p, fl->vy[k], f8);
            if (fl->z) p = npy_put_value(p, fl->vz[k], f8);
        }
        if (fwrite(buf, 1, (size_t)(p - buf), f) != (size_t)(p - buf)) return -1;
    }
    return 0;
}

double npy_get_value(const unsigned char *in, int f8) {
    uint64_t bits = 0;
    for (int b = f8 ? 7 : 3; b >= 0; b--) bits = bits << 8 | in[b];
    if (f8) {
        double v;
        memcpy(&v, &bits, sizeof v);
        return v;
    }
    uint32_t b32 = (uint32_t)bits;
    float x;
    memcpy(&x, &b32, sizeof x);
    return x;
}

/* ---- reading the header: a Python dict literal ------------------------------------------ */

typedef struct dict_in {
    const char *path, *p;
} dict_in;

static boids_status bad(const dict_in *d, boids_error *err, const char *what) {
    return boids_error_set(err, BOIDS_ERR_INPUT, "%s: bad .npy header: %s", d->path, what);
}

static void space(dict_in *d) {
    while (*d->p == ' ' || *d->p == '\t' || *d->p == '\n' || *d->p == '\r') d->p++;
}

/* A quoted string without escapes ('...' or "...") into buf (size bytes). */
static int quoted(dict_in *d, char *buf, size_t size) {
    char q = *d->p;
    if (q != '\'' && q != '"') return 0;
    const char *start = ++d->p, *end = strchr(start, q);
    if (!end || (size_t)(end - start) >= size || memchr(start, '\\', (size_t)(end - start)))
        return 0;
    memcpy(buf, start, (size_t)(end - start));
    buf[end - start] = '\0';
    d->p = end + 1;
    return 1;
}

/* After an item of a tuple or dict: a ',' (skipped) or the closing character; 0 if neither. */
static int separator(dict_in *d, char close) {
    space(d);
    if (*d->p == ',') return d->p++, 1;
    return *d->p == close;
}

/* A tuple of non-negative decimal integers: (), (N,), (N, M), ... */
static boids_status shape_tuple(dict_in *d, npy_header *h, boids_error *err) {
    if (*d->p != '(') return bad(d, err, "'shape' is not a tuple");
    d->p++;
    h->ndim = 0;
    for (;;) {
        space(d);
        if (*d->p == ')') break;
        if (*d->p < '0' || *d->p > '9')
            return bad(d, err, "'shape' holds something not an integer");
        if (h->ndim == NPY_MAX_DIMS) return bad(d, err, "'shape' has too many axes");
        char *end;
        errno = 0;
        unsigned long long v = strtoull(d->p, &end, 10);
        if (errno == ERANGE || v > SIZE_MAX) return bad(d, err, "a length in 'shape' is too large");
        h->shape[h->ndim++] = (size_t)v;
        d->p = end;
        if (!separator(d, ')')) return bad(d, err, "'shape' is not a tuple of integers");
    }
    d->p++;
    return BOIDS_OK;
}

/* The dict {'descr': ..., 'fortran_order': ..., 'shape': ...} in any order, each key once. */
static boids_status parse_dict(dict_in *d, npy_header *h, boids_error *err) {
    int seen[3] = {0, 0, 0};
    static const char *const keys[3] = {"descr", "fortran_order", "shape"};
    space(d);
    if (*d->p != '{') return bad(d, err, "not a dict");
    d->p++;
    for (;;) {
        space(d);
        if (*d->p == '}') break;
        char key[32];
        if (!quoted(d, key, sizeof key)) return bad(d, err, "expected a quoted key");
        int k = 0;
        while (k < 3 && strcmp(key, keys[k])) k++;
        char what[96];
        if (k == 3 || seen[k]) {
            snprintf(what, sizeof what, "key '%s' %s", key, k == 3 ? "unknown" : "given twice");
            return bad(d, err, what);
        }
        seen[k] = 1;
        space(d);
        if (*d->p != ':') return bad(d, err, "expected ':' after a key");
        d->p++;
        space(d);
        boids_status s = BOIDS_OK;
        if (k == 0) {
            char descr[32];
            if (!quoted(d, descr, sizeof descr)) return bad(d, err, "'descr' is not a string");
            h->f8 = !strcmp(descr, "<f8");
            if (!h->f8 && strcmp(descr, "<f4")) {
                snprintf(what, sizeof what, "dtype '%s' (expected '<f8' or '<f4')", descr);
                return bad(d, err, what);
            }
        } else if (k == 1) {
            if (!strncmp(d->p, "True", 4))
                return bad(d, err, "fortran_order is True (expected C order: False)");
            if (strncmp(d->p, "False", 5)) return bad(d, err, "'fortran_order' is not False");
            d->p += 5;
        } else if ((s = shape_tuple(d, h, err))) {
            return s;
        }
        if (!separator(d, '}')) return bad(d, err, "expected ',' or '}'");
    }
    d->p++;
    space(d);
    if (*d->p) return bad(d, err, "text after the dict");
    for (int k = 0; k < 3; k++)
        if (!seen[k]) {
            char what[64];
            snprintf(what, sizeof what, "no '%s' key", keys[k]);
            return bad(d, err, what);
        }
    return BOIDS_OK;
}

boids_status npy_read_header(FILE *f, const char *path, npy_header *h, boids_error *err) {
    memset(h, 0, sizeof *h);
    unsigned char pre[MAGIC_LEN + 2 + 4];
    size_t got = fread(pre, 1, MAGIC_LEN + 2, f);
    if (got < MAGIC_LEN || memcmp(pre, magic, MAGIC_LEN))
        return boids_error_set(err, BOIDS_ERR_INPUT,
                               "%s: not a .npy file (it does not start with \\x93NUMPY)", path);
    if (got < MAGIC_LEN + 2)
        return boids_error_set(err, BOIDS_ERR_INPUT, "%s: bad .npy header: truncated", path);
    int major = pre[MAGIC_LEN], minor = pre[MAGIC_LEN + 1];
    if (major < 1 || major > 3 || minor != 0)
        return boids_error_set(err, BOIDS_ERR_INPUT,
                               "%s: .npy format version %d.%d (read: 1.0, 2.0, 3.0)", path, major,
                               minor);
    size_t lbytes = major == 1 ? 2 : 4;
    if (fread(pre + MAGIC_LEN + 2, 1, lbytes, f) != lbytes)
        return boids_error_set(err, BOIDS_ERR_INPUT, "%s: bad .npy header: truncated", path);
    unsigned long hlen = 0;
    for (size_t b = lbytes; b-- > 0;) hlen = hlen << 8 | pre[MAGIC_LEN + 2 + b];
    if (hlen > NPY_MAX_HEADER)
        return boids_error_set(err, BOIDS_ERR_INPUT,
                               "%s: bad .npy header: %lu bytes long (at most %d read)", path, hlen,
                               NPY_MAX_HEADER);
    char *text = malloc(hlen + 1);
    if (!text) return boids_error_set(err, BOIDS_ERR_NOMEM, "%s: out of memory", path);
    boids_status s = BOIDS_OK;
    if (fread(text, 1, hlen, f) != hlen)
        s = boids_error_set(err, BOIDS_ERR_INPUT, "%s: bad .npy header: truncated", path);
    else if (memchr(text, '\0', hlen))
        s = boids_error_set(err, BOIDS_ERR_INPUT, "%s: bad .npy header: a NUL byte", path);
    if (!s) {
        text[hlen] = '\0';
        dict_in d = {path, text};
        s = parse_dict(&d, h, err);
    }
    free(text);
    h->data_offset = MAGIC_LEN + 2 + lbytes + hlen;
    return s;
}
