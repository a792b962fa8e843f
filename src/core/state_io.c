/* SPDX-License-Identifier: MIT */
#include "boids/state_io.h"

#include "atomic_file.h"
#include "check.h"
#include "flock_part.h"
#include "npy_format.h"
#include "text_lines.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <ctype.h>

/* A boid's line holds four (3-D: six) numbers of at most 24 characters (%.17g) and any further
 * columns; the bound keeps a file of one huge line from being read into memory. */
enum { STATE_MAX_LINE = 4096 };
/* The count key's maximum: more boids than any parameter set allows is not a state. */
#define STATE_MAX_BOIDS 1000000000u

static char *trim(char *s) {
    while (*s == ' ' || *s == '\t') s++;
    size_t len = strlen(s);
    while (len && (s[len - 1] == ' ' || s[len - 1] == '\t')) s[--len] = '\0';
    return s;
}

/* Cuts the first six comma-separated fields of line into f (trimmed) and returns the number
 * of fields of the whole line, however many. */
static size_t fields(char *line, char *f[6]) {
    size_t n = 0;
    for (char *s = line;; n++) {
        char *c = strchr(s, ',');
        if (c && n < 6) *c = '\0';
        if (n < 6) f[n] = trim(s);
        if (!c) return n + 1;
        s = c + 1;
    }
}

/* `# step=K` with K a decimal integer in [0, 2^32 - 1]; returns 0 if line is not that. */
static int parse_step(const char *line, uint32_t *step) {
    static const char prefix[] = "# step=";
    if (strncmp(line, prefix, sizeof prefix - 1) != 0) return 0;
    const char *digits = line + sizeof prefix - 1;
    if (*digits < '0' || *digits > '9') return 0;
    char *end;
    errno = 0;
    unsigned long long k = strtoull(digits, &end, 10);
    if (*end != '\0' || errno == ERANGE || k > UINT32_MAX) return 0;
    *step = (uint32_t)k;
    return 1;
}

/* `# dim=D` with D 2 or 3; returns 0 if line is not that. */
static int parse_dim(const char *line, int *dim) {
    if (!strcmp(line, "# dim=2")) return *dim = 2, 1;
    if (!strcmp(line, "# dim=3")) return *dim = 3, 1;
    return 0;
}

/* The header of a state of dim 2 or 3 and its leading columns. */
static const char *const names2[4] = {"x", "y", "vx", "vy"};
static const char *const names3[6] = {"x", "y", "z", "vx", "vy", "vz"};

typedef struct loader {
    text_lines t;
    const boids_params *p; /* NULL: no check against parameters */
    size_t columns, n, cap;
    size_t lo, hi; /* the boids kept: lo .. hi - 1 (a part; the whole file: 0, SIZE_MAX) */
    double *rows;  /* 2 * dim values a kept boid, grown as the file is read */
    uint32_t step;
    int dim;      /* from the `# dim=D` line; 2 without one */
    int vals;     /* 2 * dim: values a boid */
    int has_dim;  /* the file had a `# dim=D` line (boids 0.3 and earlier) */
    int has_step; /* the file had a `# step=K` line (boids 0.3 and earlier) */
} loader;

/* The comment lines before the header that boids 0.3 and earlier wrote: `# step=K` first if
 * present, then `# dim=D` if present. Leaves *line at the first other line; *r is
 * text_next's result for it. */
static boids_status read_comments(loader *L, char **line, int *r, boids_error *err) {
    *r = text_next(&L->t, line, err);
    if (*r == 1 && (*line)[0] == '#' && parse_step(*line, &L->step)) {
        L->has_step = 1;
        *r = text_next(&L->t, line, err);
    }
    if (*r == 1 && (*line)[0] == '#') {
        if (!parse_dim(*line, &L->dim))
            return boids_error_set(err, BOIDS_ERR_INPUT,
                                   "%s:%zu: expected %s`# dim=D` (D 2 or 3) or the header",
                                   L->t.path, L->t.lineno,
                                   L->t.lineno == 1 ? "`# step=K` (K in [0, 4294967295]), " : "");
        L->has_dim = 1;
        *r = text_next(&L->t, line, err);
    }
    return BOIDS_OK;
}

/* The lines before the boids: the legacy step and dim lines if present, then the header
 * (x,y,vx,vy in 2-D, x,y,z,vx,vy,vz in 3-D), which gives the dim unless a dim line did. */
static boids_status read_head(loader *L, boids_error *err) {
    char *line;
    int r;
    L->dim = 2;
    boids_status s = read_comments(L, &line, &r, err);
    if (s) return s;
    if (r < 0) return err ? err->status : BOIDS_ERR_INPUT;
    if (r == 0 && L->t.lineno >= 1)
        return boids_error_set(err, BOIDS_ERR_INPUT,
                               "%s:%zu: expected the header x,y,vx,vy or x,y,z,vx,vy,vz after the "
                               "%s line, found the end of the file",
                               L->t.path, L->t.lineno + 1, L->has_dim ? "dim" : "step");
    if (r == 0)
        return boids_error_set(err, BOIDS_ERR_INPUT,
                               "%s: empty file (expected the header x,y,vx,vy or x,y,z,vx,vy,vz)",
                               L->t.path);
    char *f[6];
    size_t nf = fields(line, f);
    if (!L->has_dim && nf >= 3 && !strcmp(f[2], "z")) L->dim = 3;
    L->vals = 2 * L->dim;
    const char *header = L->dim == 3 ? "x,y,z,vx,vy,vz" : "x,y,vx,vy";
    const char *const *names = L->dim == 3 ? names3 : names2;
    for (int c = 0; c < L->vals; c++)
        if (nf < (size_t)L->vals || strcmp(f[c], names[c]) != 0)
            return boids_error_set(
                err, BOIDS_ERR_INPUT, "%s:%zu: bad header: expected %s (further columns allowed)%s",
                L->t.path, L->t.lineno, L->has_dim ? header : "x,y,vx,vy or x,y,z,vx,vy,vz",
                L->dim == 2 && L->has_dim && nf >= 3 && !strcmp(f[2], "z")
                    ? "; its `# dim=2` line says 2-D"
                    : "");
    if (L->p && L->p->dim != L->dim)
        return boids_error_set(err, BOIDS_ERR_INPUT,
                               "%s: the state is %d-D (its header %s) but the parameters say dim = "
                               "%d (set dim = %d to run it)",
                               L->t.path, L->dim, header, L->p->dim, L->dim);
    L->columns = nf;
    return BOIDS_OK;
}

/* One boid's line: the column count of the header, four finite numbers and, with
 * parameters, a boid they allow (boids_boid_check). */
static boids_status read_boid(loader *L, char *line, boids_error *err) {
    const char *const *names = L->dim == 3 ? names3 : names2;
    const char *path = L->t.path;
    size_t lineno = L->t.lineno;
    char *f[6];
    size_t nf = fields(line, f);
    if (nf == 1 && f[0][0] == '\0')
        return boids_error_set(err, BOIDS_ERR_INPUT, "%s:%zu: empty line", path, lineno);
    if (nf != L->columns)
        return boids_error_set(err, BOIDS_ERR_INPUT,
                               "%s:%zu: expected %zu columns as in the header, found %zu", path,
                               lineno, L->columns, nf);
    if (L->n == STATE_MAX_BOIDS)
        return boids_error_set(err, BOIDS_ERR_INPUT, "%s:%zu: more than %u boids", path, lineno,
                               STATE_MAX_BOIDS);
    const int keep = L->n >= L->lo && L->n < L->hi;
    if (keep && L->n - L->lo == L->cap) {
        size_t cap = L->cap ? 2 * L->cap : 1024;
        double *grown = realloc(L->rows, cap * (size_t)L->vals * sizeof(double));
        if (!grown)
            return boids_error_set(err, BOIDS_ERR_NOMEM, "%s:%zu: out of memory", path, lineno);
        L->rows = grown;
        L->cap = cap;
    }
    double other[6], *v = keep ? &L->rows[(size_t)L->vals * (L->n - L->lo)] : other;
    for (int c = 0; c < L->vals; c++) {
        char *end;
        v[c] = strtod(f[c], &end);
        if (end == f[c] || *end != '\0')
            return boids_error_set(err, BOIDS_ERR_INPUT, "%s:%zu: column %s: '%s' is not a number",
                                   path, lineno, names[c], f[c]);
        if (!isfinite(v[c]))
            return boids_error_set(err, BOIDS_ERR_INPUT,
                                   "%s:%zu: column %s: '%s' is not a finite number", path, lineno,
                                   names[c], f[c]);
    }
    if (L->p) {
        boids_status s =
            boids_boid_check_at(L->p, L->dim, v, 1, err, "%s:%zu: boid %zu", path, lineno, L->n);
        if (s) return s;
    }
    L->n++;
    return BOIDS_OK;
}

/* ---- the sidecar PATH.json -------------------------------------------------------------- */

/* A sidecar holds a few short keys (about 150 bytes as saved); the bound keeps a huge file
 * from being read. */
enum { SIDECAR_MAX = 4096 };
/* noise_seed's range, as boids_params.noise_seed's. */
#define SIDECAR_SEED_MAX 9007199254740992ull

typedef struct sidecar {
    int present; /* the file exists */
    int has_step, has_seed, has_dim, has_n, has_hash;
    uint32_t step;
    long noise_seed;
    int dim;
    unsigned long long n;
    uint64_t hash;
} sidecar;

/* The JSON text being read and where: messages name the sidecar, line and column. */
typedef struct json_in {
    const char *path, *s, *p;
} json_in;

static boids_status json_fail(const json_in *j, boids_error *err, const char *what,
                              const char *key) {
    size_t line = 1, col = 1;
    for (const char *c = j->s; c < j->p; c++) line += *c == '\n', col = *c == '\n' ? 1 : col + 1;
    if (key)
        return boids_error_set(err, BOIDS_ERR_INPUT, "%s:%zu:%zu: key \"%s\": %s", j->path, line,
                               col, key, what);
    return boids_error_set(err, BOIDS_ERR_INPUT,
                           "%s:%zu:%zu: %s (a state sidecar is one JSON "
                           "object of step, noise_seed, dim, n, flock_hash)",
                           j->path, line, col, what);
}

static void json_space(json_in *j) {
    while (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r') j->p++;
}

/* A string without escapes into buf (size bytes): keys and the hash need none. */
static boids_status json_string(json_in *j, char *buf, size_t size, const char *key,
                                boids_error *err) {
    if (*j->p != '"') return json_fail(j, err, key ? "expected a string" : "expected a key", key);
    const char *start = ++j->p;
    while (*j->p != '"') {
        if (*j->p == '\0') return json_fail(j, err, "unterminated string", key);
        if (*j->p == '\\' || (unsigned char)*j->p < 0x20)
            return json_fail(j, err, "escapes and control characters are not used here", key);
        j->p++;
    }
    size_t len = (size_t)(j->p - start);
    j->p++;
    if (len >= size) return json_fail(j, err, "too long", key);
    memcpy(buf, start, len);
    buf[len] = '\0';
    return BOIDS_OK;
}

/* A JSON integer literal (-?digits, no fraction or exponent) in [0, max]. */
static boids_status json_uint(json_in *j, unsigned long long max, const char *key,
                              unsigned long long *out, boids_error *err) {
    const char *start = j->p;
    if (*j->p == '-') j->p++;
    const char *digits = j->p;
    while (*j->p >= '0' && *j->p <= '9') j->p++;
    int bad = j->p == digits || (*digits == '0' && j->p - digits > 1) || *j->p == '.' ||
              *j->p == 'e' || *j->p == 'E';
    if (bad) {
        j->p = start;
        return json_fail(j, err, "expected an integer (digits only)", key);
    }
    errno = 0;
    unsigned long long v = strtoull(digits, NULL, 10);
    if (*start == '-' || errno == ERANGE || v > max) {
        char what[96];
        snprintf(what, sizeof what, "%.*s is out of range [0, %llu]", (int)(j->p - start), start,
                 max);
        j->p = start;
        return json_fail(j, err, what, key);
    }
    *out = v;
    return BOIDS_OK;
}

static boids_status json_member(json_in *j, sidecar *c, boids_error *err) {
    char key[32];
    const char *at = j->p;
    boids_status s = json_string(j, key, sizeof key, NULL, err);
    if (s) return s;
    static const char *const keys[] = {"step", "noise_seed", "dim", "n", "flock_hash"};
    int *seen[] = {&c->has_step, &c->has_seed, &c->has_dim, &c->has_n, &c->has_hash};
    int k = 0;
    while (k < 5 && strcmp(key, keys[k])) k++;
    if (k == 5) {
        j->p = at;
        return json_fail(j, err, "unknown key", key);
    }
    if (*seen[k]) {
        j->p = at;
        return json_fail(j, err, "given twice", key);
    }
    *seen[k] = 1;
    json_space(j);
    if (*j->p != ':') return json_fail(j, err, "expected ':'", key);
    j->p++;
    json_space(j);
    unsigned long long v = 0;
    if (k == 4) {
        char hex[32];
        const char *value = j->p;
        if ((s = json_string(j, hex, sizeof hex, key, err))) return s;
        size_t d = 0;
        while (isxdigit((unsigned char)hex[d])) d++;
        if (d != 16 || hex[d] != '\0') {
            j->p = value;
            return json_fail(j, err, "expected 16 hexadecimal digits", key);
        }
        c->hash = strtoull(hex, NULL, 16);
        return BOIDS_OK;
    }
    static const unsigned long long max[] = {UINT32_MAX, SIDECAR_SEED_MAX, 3, STATE_MAX_BOIDS};
    if ((s = json_uint(j, max[k], key, &v, err))) return s;
    if (k == 0) c->step = (uint32_t)v;
    if (k == 1) c->noise_seed = (long)v;
    if (k == 2 && v < 2) {
        j->p = at;
        return json_fail(j, err, "the dim is 2 or 3", key);
    }
    if (k == 2) c->dim = (int)v;
    if (k == 3) c->n = v;
    return BOIDS_OK;
}

/* path with ".json" appended (free it), or NULL out of memory with err set. */
static char *sidecar_name(const char *path, boids_error *err) {
    size_t len = strlen(path);
    char *name = malloc(len + sizeof ".json");
    if (!name) {
        boids_error_set(err, BOIDS_ERR_NOMEM, "%s: out of memory", path);
        return NULL;
    }
    memcpy(name, path, len);
    memcpy(name + len, ".json", sizeof ".json");
    return name;
}

/* Reads the sidecar of path, if there is one, into c. */
static boids_status read_sidecar(const char *path, sidecar *c, boids_error *err) {
    memset(c, 0, sizeof *c);
    char *name = sidecar_name(path, err);
    if (!name) return BOIDS_ERR_NOMEM;
    struct stat st;
    int found = stat(name, &st) == 0;
    if (!found && errno == ENOENT) {
        free(name);
        return BOIDS_OK;
    }
    c->present = 1;
    text_lines t;
    memset(&t, 0, sizeof t);
    char *text = NULL;
    boids_status s = BOIDS_OK;
    /* A FIFO would block the open: only a regular file is opened. */
    if (found && !S_ISREG(st.st_mode))
        s = boids_error_set(err, BOIDS_ERR_INPUT, "%s: state sidecar is %s", name,
                            S_ISDIR(st.st_mode) ? "a folder" : "not a regular file");
    if (!s) s = text_open(&t, name, "state sidecar", SIDECAR_MAX, SIDECAR_MAX, 1, err);
    if (!s && !(text = malloc(SIDECAR_MAX + 2)))
        s = boids_error_set(err, BOIDS_ERR_NOMEM, "%s: out of memory", name);
    size_t used = 0;
    char *line;
    int r = 0;
    while (!s && (r = text_next(&t, &line, err)) == 1) {
        size_t l = strlen(line); /* text_next bounds the file to SIDECAR_MAX bytes */
        if (t.lineno > 1) text[used++] = '\n';
        memcpy(text + used, line, l);
        used += l;
    }
    if (!s && r < 0) s = err ? err->status : BOIDS_ERR_INPUT;
    if (!s) {
        text[used] = '\0';
        json_in j = {t.path, text, text};
        json_space(&j);
        if (*j.p != '{') s = json_fail(&j, err, "expected '{'", NULL);
        if (!s) j.p++, json_space(&j);
        int first = 1;
        while (!s && !(first && *j.p == '}')) {
            if ((s = json_member(&j, c, err))) break;
            json_space(&j);
            first = 0;
            if (*j.p == '}') break;
            if (*j.p != ',') s = json_fail(&j, err, "expected ',' or '}'", NULL);
            if (!s) j.p++, json_space(&j);
        }
        if (!s) j.p++, json_space(&j);
        if (!s && *j.p) s = json_fail(&j, err, "text after the object", NULL);
    }
    free(text);
    if (t.f) text_close(&t);
    free(name);
    return s;
}

/* What a state file held beside its boids, for the sidecar check: the file as messages name
 * it, what they call it, and the legacy comment lines of a CSV. */
typedef struct state_read {
    const char *path, *kind;
    int dim, has_step, has_dim;
    size_t n;
} state_read;

/* Checks the sidecar against the state just read into out. */
static boids_status check_sidecar(const state_read *r, const sidecar *c, const boids_flock *out,
                                  boids_error *err) {
    char name[200];
    snprintf(name, sizeof name, "%s.json", r->path);
    if (r->has_step || r->has_dim)
        return boids_error_set(err, BOIDS_ERR_INPUT,
                               "%s: its `# %s` line and %s both describe the state; remove the "
                               "comment lines (the sidecar holds the step)",
                               r->path, r->has_step ? "step=K" : "dim=D", name);
    if (c->has_dim && c->dim != r->dim)
        return boids_error_set(err, BOIDS_ERR_INPUT, "%s: key \"dim\": %d, but %s is %d-D (its %s)",
                               name, c->dim, r->path, r->dim,
                               strcmp(r->kind, "CSV") ? "shape" : "header");
    if (c->has_n && c->n != r->n)
        return boids_error_set(err, BOIDS_ERR_INPUT, "%s: key \"n\": %llu, but %s holds %zu boids",
                               name, c->n, r->path, r->n);
    if (c->has_hash && out)
        return boids_state_hash_check(r->path, c->hash, boids_flock_hash(out), err);
    return BOIDS_OK;
}

/* A state file whose name ends in .npy is a NumPy array, any other a CSV. */
static int is_npy(const char *path) {
    size_t len = strlen(path);
    return len > 4 && !strcmp(path + len - 4, ".npy");
}

boids_status boids_state_hash_check(const char *path, uint64_t want, uint64_t got,
                                    boids_error *err) {
    if (want == got) return BOIDS_OK;
    return boids_error_set(err, BOIDS_ERR_INPUT,
                           "%s.json: key \"flock_hash\": %016llx, but the boids of %s hash to "
                           "%016llx: the %s changed after the save, so the step and seed may "
                           "be another state's (delete the sidecar to start at step 0, or "
                           "its flock_hash to keep them)",
                           path, (unsigned long long)want, path, (unsigned long long)got,
                           is_npy(path) ? ".npy file" : "CSV");
}

/* Where the line of boid k * CSV_MARK starts, at[k], recorded by a first reading, so that a
 * second one starts near its part rather than at the top. */
enum { CSV_MARK = 4096 };
typedef struct csv_marks {
    off_t *at;
    size_t n, cap;
} csv_marks;

/* One reading of a CSV state into L (opened here; closed here on a failure), with every
 * check, keeping the boids lo .. hi - 1 and stopping after them: all of them for 0, SIZE_MAX,
 * none for SIZE_MAX, SIZE_MAX. With marks: a reading of every line records them (marks->n
 * 0), or a reading of a part starts at the last mark before lo. */
static boids_status csv_pass(loader *L, const char *path, const boids_params *p, size_t lo,
                             size_t hi, csv_marks *marks, boids_error *err) {
    memset(L, 0, sizeof *L);
    L->p = p;
    L->lo = lo;
    L->hi = hi;
    boids_status s = text_open(&L->t, path, "state file", STATE_MAX_LINE, 0, 0, err);
    if (s) return s;
    s = read_head(L, err);
    if (!s && hi != SIZE_MAX && lo < hi) { /* a part: its rows at once, not grown */
        if (!(L->rows = malloc((hi - lo) * (size_t)L->vals * sizeof(double))))
            s = boids_error_set(err, BOIDS_ERR_NOMEM, "%s: out of memory", L->t.path);
        L->cap = hi - lo;
    }
    const int record = marks && marks->n == 0;
    const size_t k = lo / CSV_MARK, head = L->t.lineno; /* the lines before the boids' */
    if (!s && marks && !record && k > 0 && k < marks->n) {
        if (fseeko(L->t.f, marks->at[k], SEEK_SET) != 0)
            s = boids_error_set(err, BOIDS_ERR_INPUT, "%s: cannot read state file: %s", L->t.path,
                                strerror(errno));
        L->t.lineno = head + k * CSV_MARK, L->n = k * CSV_MARK; /* a line a boid */
    }
    char *line;
    int got = 0;
    while (!s && L->n < hi) {
        if (record && L->n % CSV_MARK == 0 && marks->n == marks->cap) {
            off_t *g = realloc(marks->at, (2 * marks->cap + 64) * sizeof *g);
            if (!g) {
                s = boids_error_set(err, BOIDS_ERR_NOMEM, "%s: out of memory", L->t.path);
                break;
            }
            marks->at = g, marks->cap = 2 * marks->cap + 64;
        }
        if (record && L->n % CSV_MARK == 0) marks->at[marks->n++] = ftello(L->t.f);
        if ((got = text_next(&L->t, &line, err)) != 1) break;
        s = read_boid(L, line, err);
    }
    if (!s && got < 0) s = err ? err->status : BOIDS_ERR_INPUT;
    if (!s && L->n == 0)
        s = boids_error_set(err, BOIDS_ERR_INPUT, "%s: no boids after the header", L->t.path);
    if (s) {
        free(L->rows);
        text_close(&L->t);
    }
    return s;
}

/* The boids of a CSV state, or of its part `part` of `parts` (*first: the first id), into out
 * (allocated here); *r and *step say what else it held. A part takes two readings: the first
 * checks every line and counts the boids, keeping none; the second starts at the mark
 * before the part and keeps the part's (their lines checked again), stopping after them: no
 * process holds more than its part, nor reads more than its part again. */
static boids_status read_csv(const char *path, const boids_params *p, boids_flock *out,
                             state_read *r, char *shown, size_t shown_size, uint32_t *step,
                             size_t part, size_t parts, size_t *first, boids_error *err) {
    loader L;
    csv_marks marks = {0};
    *first = 0;
    boids_status s =
        csv_pass(&L, path, p, parts > 1 ? SIZE_MAX : 0, SIZE_MAX, parts > 1 ? &marks : NULL, err);
    if (s) return free(marks.at), s;
    snprintf(shown, shown_size, "%s", L.t.path);
    *r = (state_read){shown, "CSV", L.dim, L.has_step, L.has_dim, L.n};
    *step = L.step;
    size_t cnt = L.n;
    if (parts > 1) {
        text_close(&L.t);
        boids_part_range(r->n, part, parts, first, &cnt);
        if (cnt == 0)
            s = boids_error_set(err, BOIDS_ERR_INPUT,
                                "%s: %zu boids for %zu parts: a part is empty", shown, r->n, parts);
        if (!s) s = csv_pass(&L, path, p, *first, *first + cnt, &marks, err);
        free(marks.at);
        if (s) return s;
        if (L.n != *first + cnt || L.dim != r->dim) /* the file changed between the readings */
            s = boids_error_set(err, BOIDS_ERR_INPUT,
                                "%s: changed while it was read (%zu boids, then %zu or fewer)",
                                shown, r->n, L.n);
    }
    if (!s) s = boids_flock_alloc_dim(out, cnt, L.dim, err);
    double *cols[6] = {out->x, out->y, out->z, out->vx, out->vy, out->vz};
    if (L.dim == 2) cols[2] = out->vx, cols[3] = out->vy;
    for (size_t i = 0; !s && i < cnt; i++)
        for (int c = 0; c < L.vals; c++) cols[c][i] = L.rows[(size_t)L.vals * i + (size_t)c];
    free(L.rows);
    text_close(&L.t);
    return s;
}

/* The header of a .npy state: a shape (N, 4) or (N, 6) that p allows, and a file of exactly
 * the bytes it needs (so that nothing is allocated for data the file does not hold). */
static boids_status npy_state_header(FILE *f, const struct stat *st, const char *shown,
                                     const boids_params *p, npy_header *h, boids_error *err) {
    boids_status s = npy_read_header(f, shown, h, err);
    if (s) return s;
    if (h->ndim != 2 || (h->shape[1] != 4 && h->shape[1] != 6)) {
        char dims[80] = "";
        for (int d = 0, used = 0; d < h->ndim; d++)
            used +=
                snprintf(dims + used, sizeof dims - (size_t)used, d ? ", %zu" : "%zu", h->shape[d]);
        return boids_error_set(err, BOIDS_ERR_INPUT,
                               "%s: shape (%s%s) is not a state's: expected (N, 4) (x, y, vx, "
                               "vy) or (N, 6) (x, y, z, vx, vy, vz)",
                               shown, dims, h->ndim == 1 ? "," : "");
    }
    size_t n = h->shape[0], vals = h->shape[1], dim = vals / 2, item = h->f8 ? 8 : 4;
    if (n == 0 || n > STATE_MAX_BOIDS)
        return boids_error_set(err, BOIDS_ERR_INPUT, "%s: shape (%zu, %zu): %s", shown, n, vals,
                               n ? "more than 1000000000 boids" : "no boids");
    if (p && (size_t)p->dim != dim)
        return boids_error_set(err, BOIDS_ERR_INPUT,
                               "%s: the state is %zu-D (its shape (%zu, %zu)) but the parameters "
                               "say dim = %d (set dim = %zu to run it)",
                               shown, dim, n, vals, p->dim, dim);
    unsigned long long need = (unsigned long long)n * vals * item;
    long long held = (long long)st->st_size - (long long)h->data_offset;
    if (held < 0 || (unsigned long long)held != need)
        return boids_error_set(err, BOIDS_ERR_INPUT,
                               "%s: %s: shape (%zu, %zu) of '%s' is %llu bytes of data, the file "
                               "holds %lld",
                               shown,
                               held < 0 || (unsigned long long)held < need ? "truncated"
                                                                           : "bytes after the data",
                               n, vals, h->f8 ? "<f8" : "<f4", need, held < 0 ? 0 : held);
    return BOIDS_OK;
}

/* The boids of a .npy state into out (allocated here), each checked as a CSV line is: finite
 * numbers and, with parameters, a boid they allow. */
static boids_status read_npy(const char *path, const boids_params *p, boids_flock *out,
                             state_read *r, char *shown, size_t shown_size, size_t part,
                             size_t parts, size_t *first, boids_error *err) {
    text_short_path(path, shown, shown_size);
    /* Only a regular file is opened (a FIFO would block the open), and its size bounds what
     * is allocated; fstat on the open file checks what is actually read. */
    struct stat st;
    FILE *f = NULL;
    boids_status s = BOIDS_OK;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
        return boids_error_set(err, BOIDS_ERR_INPUT, "%s: state file is %s", shown,
                               S_ISDIR(st.st_mode) ? "a folder" : "not a regular file");
    if (!(f = fopen(path, "rb")))
        return boids_error_set(err, BOIDS_ERR_INPUT, "%s: cannot open state file: %s", shown,
                               strerror(errno));
    npy_header h = {0};
    if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode))
        s = boids_error_set(err, BOIDS_ERR_INPUT, "%s: cannot read state file as a regular file",
                            shown);
    if (!s) s = npy_state_header(f, &st, shown, p, &h, err);
    size_t n = s ? 0 : h.shape[0], vals = s ? 0 : h.shape[1], item = h.f8 ? 8 : 4;
    int dim = (int)vals / 2;
    size_t lo = 0, count = n; /* the part's rows: lo .. lo + count - 1 */
    if (!s) boids_part_range(n, part, parts, &lo, &count);
    *first = lo;
    if (!s && count == 0)
        s = boids_error_set(err, BOIDS_ERR_INPUT, "%s: %zu boids for %zu parts: a part is empty",
                            shown, n, parts);
    if (!s) s = boids_flock_alloc_dim(out, count, dim, err);
    if (!s && lo && fseeko(f, (off_t)(h.data_offset + lo * vals * item), SEEK_SET) != 0)
        s = boids_error_set(err, BOIDS_ERR_INPUT, "%s: cannot read state file: %s", shown,
                            strerror(errno));
    double *cols[6] = {out->x, out->y, out->z, out->vx, out->vy, out->vz};
    if (dim == 2) cols[2] = out->vx, cols[3] = out->vy;
    const char *const *names = dim == 3 ? names3 : names2;
    enum { CHUNK = 1024 }; /* boids a read: a fixed 48 KiB buffer */
    unsigned char buf[CHUNK * 6 * 8];
    for (size_t i = lo; !s && i < lo + count; i += CHUNK) {
        size_t end = i + CHUNK < lo + count ? i + CHUNK : lo + count,
               bytes = (end - i) * vals * item;
        if (fread(buf, 1, bytes, f) != bytes)
            s = boids_error_set(err, BOIDS_ERR_INPUT, "%s: truncated at boid %zu", shown, i);
        for (size_t k = i; !s && k < end; k++) {
            double v[6];
            for (size_t c = 0; !s && c < vals; c++) {
                v[c] = npy_get_value(buf + ((k - i) * vals + c) * item, h.f8);
                cols[c][k - lo] = v[c];
                if (!isfinite(v[c]))
                    s = boids_error_set(err, BOIDS_ERR_INPUT,
                                        "%s: boid %zu (row %zu): column %s: %g is not a finite "
                                        "number",
                                        shown, k, k, names[c], v[c]);
            }
            if (!s && p)
                s = boids_boid_check_at(p, dim, v, 1, err, "%s: boid %zu (row %zu)", shown, k, k);
        }
    }
    fclose(f);
    *r = (state_read){shown, ".npy file", dim, 0, 0, n};
    return s;
}

/* The state of path, or its part `part` of `parts` (*first: its first id; *n: the state's N),
 * into out; the sidecar into c, checked but for its hash when a part is read. */
static boids_status load_part(const char *path, const boids_params *p, size_t part, size_t parts,
                              boids_flock *out, size_t *first, size_t *n, sidecar *c,
                              boids_error *err) {
    memset(out, 0, sizeof *out);
    state_read r;
    char shown[160];
    uint32_t legacy_step = 0;
    *first = 0;
    boids_status s = is_npy(path)
                         ? read_npy(path, p, out, &r, shown, sizeof shown, part, parts, first, err)
                         : read_csv(path, p, out, &r, shown, sizeof shown, &legacy_step, part,
                                    parts, first, err);
    *n = s ? 0 : r.n;
    if (!s) s = read_sidecar(path, c, err);
    if (!s && c->present) s = check_sidecar(&r, c, parts > 1 ? NULL : out, err);
    if (!s) out->step = c->has_step ? c->step : legacy_step;
    if (s && out->x) boids_flock_free(out);
    if (s) memset(out, 0, sizeof *out);
    return s;
}

boids_status boids_state_load_part(const char *path, const boids_params *p, size_t part,
                                   size_t parts, boids_flock *f, boids_state_part *info,
                                   boids_error *err) {
    if (!path || !f || !info || parts == 0 || part >= parts)
        return boids_error_set(err, BOIDS_ERR_INPUT, "boids_state_load_part: bad arguments");
    sidecar c;
    boids_status s = load_part(path, p, part, parts, f, &info->first, &info->n_total, &c, err);
    info->has_hash = !s && c.has_hash;
    info->hash = c.hash;
    info->noise_seed = !s && c.has_seed ? c.noise_seed : -1;
    return s;
}

static boids_status load(const char *path, const boids_params *p, boids_flock *out,
                         long *noise_seed, boids_error *err) {
    if (!path || !out)
        return boids_error_set(err, BOIDS_ERR_INPUT, "boids_state_load: %s is NULL",
                               !path ? "the file name" : "the flock");
    if (noise_seed) *noise_seed = -1;
    sidecar c;
    size_t first, n;
    boids_status s = load_part(path, p, 0, 1, out, &first, &n, &c, err);
    if (!s && noise_seed && c.has_seed) *noise_seed = c.noise_seed;
    return s;
}

boids_status boids_state_load(const char *path, boids_flock *out, boids_error *err) {
    return load(path, NULL, out, NULL, err);
}

boids_status boids_state_load_for(const char *path, const boids_params *p, boids_flock *out,
                                  boids_error *err) {
    if (!p) return boids_error_set(err, BOIDS_ERR_INPUT, "boids_state_load_for: p is NULL");
    return load(path, p, out, NULL, err);
}

boids_status boids_state_load_seeded(const char *path, const boids_params *p, boids_flock *out,
                                     long *noise_seed, boids_error *err) {
    return load(path, p, out, noise_seed, err);
}

const char *boids_state_csv_header(int dim) {
    return dim == 3 ? "x,y,z,vx,vy,vz\n" : "x,y,vx,vy\n";
}

int boids_state_csv_row(char *buf, size_t size, const boids_flock *fl, size_t i) {
    if (fl->z)
        return snprintf(buf, size, "%.17g,%.17g,%.17g,%.17g,%.17g,%.17g\n", fl->x[i], fl->y[i],
                        fl->z[i], fl->vx[i], fl->vy[i], fl->vz[i]);
    return snprintf(buf, size, "%.17g,%.17g,%.17g,%.17g\n", fl->x[i], fl->y[i], fl->vx[i],
                    fl->vy[i]);
}

/* The rows of fl into the open state file csv: a .npy array of shape (N, 2 * dim), '<f8', or the
 * CSV. A write error shows in ferror(out). */
static void write_rows(FILE *csv, int npy, const boids_flock *fl) {
    if (npy) {
        size_t shape[2] = {fl->n, 2 * (size_t)boids_flock_dim(fl)};
        npy_write_header(csv, shape, 2, 1);
        npy_write_flock(csv, fl, 1); /* a failed write shows in ferror, at the commit */
        return;
    }
    fputs(boids_state_csv_header(boids_flock_dim(fl)), csv);
    char line[BOIDS_STATE_CSV_ROW];
    for (size_t i = 0; i < fl->n; i++) {
        boids_state_csv_row(line, sizeof line, fl, i);
        fputs(line, csv);
    }
}

void boids_state_sidecar_write(FILE *json, int dim, size_t n, uint32_t step, long noise_seed,
                               uint64_t hash) {
    fprintf(json, "{\n  \"step\": %lu,\n", (unsigned long)step);
    if (noise_seed >= 0) fprintf(json, "  \"noise_seed\": %ld,\n", noise_seed);
    fprintf(json, "  \"dim\": %d,\n  \"n\": %zu,\n  \"flock_hash\": \"%016llx\"\n}\n", dim, n,
            (unsigned long long)hash);
}

/* The sidecar's object of fl into the open file. */
static void write_sidecar(FILE *json, const boids_flock *fl, long noise_seed) {
    boids_state_sidecar_write(json, boids_flock_dim(fl), fl->n, fl->step, noise_seed,
                              boids_flock_hash(fl));
}

boids_status boids_state_save_seeded(const char *path, const boids_flock *fl, long noise_seed,
                                     boids_error *err) {
    const char *bad = path ? boids_flock_bad_arrays(fl) : "the file name is NULL";
    if (bad) return boids_error_set(err, BOIDS_ERR_INPUT, "boids_state_save: %s", bad);
    if (noise_seed < -1 || (noise_seed >= 0 && (unsigned long long)noise_seed > SIDECAR_SEED_MAX))
        return boids_error_set(err, BOIDS_ERR_INPUT,
                               "boids_state_save: noise seed %ld is out of range [0, 2^53] (or -1)",
                               noise_seed);
    char *name = sidecar_name(path, err);
    if (!name) return BOIDS_ERR_NOMEM;
    /* Both temporary files exist before either target is replaced; the CSV goes first, so a
     * failure up to its rename changes neither file, and a sidecar left from an earlier save
     * after a failure of the last rename no longer matches the new state's flock_hash. */
    boids_atomic_file a, j;
    boids_status s = boids_atomic_open(&a, path, err);
    if (!s && (s = boids_atomic_open(&j, name, err))) boids_atomic_abort(&a);
    if (!s) {
        write_rows(a.f, is_npy(path), fl);
        write_sidecar(j.f, fl, noise_seed);
        /* The state first: when the disk fills up, it is the file that did not fit. */
        const char *failed = fflush(a.f) != 0 || ferror(a.f)   ? path
                             : fflush(j.f) != 0 || ferror(j.f) ? name
                                                               : NULL;
        if (failed) {
            s = boids_error_set(err, BOIDS_ERR_RUNTIME, "%s: writing failed: %s", failed,
                                strerror(errno));
            boids_atomic_abort(&a);
            boids_atomic_abort(&j);
        } else if ((s = boids_atomic_commit(&a, err))) {
            boids_atomic_abort(&j);
        } else {
            s = boids_atomic_commit(&j, err);
        }
    }
    free(name);
    return s;
}

boids_status boids_state_save(const char *path, const boids_flock *fl, boids_error *err) {
    return boids_state_save_seeded(path, fl, -1, err);
}
