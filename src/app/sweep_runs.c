/* SPDX-License-Identifier: MIT */
/* boids sweep: run ids, the runs table and the journal that makes a sweep resumable. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sweep.h"

/* FNV-1a, 64 bits, continued from h over the bytes of text. */
static uint64_t fnv1a(uint64_t h, const char *text) {
    for (const unsigned char *c = (const unsigned char *)text; *c; c++) {
        h ^= *c;
        h *= 0x100000001b3ull;
    }
    return h;
}

/* The id of a run with parameters p: the hash of the text "key=value\n" of every parameter
 * (values as boids_params_format writes them, exact), then the seed, the backend (and GPU
 * mode) and the sampling. The thread count is left out: results do not depend on it. */
static uint64_t run_id(const sweep *s, const app_opts *o, const boids_params *p, uint64_t seed) {
    uint64_t h = 0xcbf29ce484222325ull;
    size_t n;
    const boids_param_info *t = boids_param_table(&n);
    char line[160], value[64];
    for (size_t i = 0; i < n; i++) {
        boids_params_format(p, &t[i], value, sizeof value);
        snprintf(line, sizeof line, "%s=%s\n", t[i].key, value);
        h = fnv1a(h, line);
    }
    snprintf(line, sizeof line,
             "seed=%" PRIu64 "\nbackend=%s%s\nsteps=%ld\nburn_in=%ld\nevery=%ld\n", seed,
             o->backend,
             strcmp(o->backend, "gpu") ? ""
             : o->deterministic        ? " deterministic"
                                       : " fast",
             s->steps, s->burn_in, s->every);
    return fnv1a(h, line);
}

typedef struct id_index {
    uint64_t id;
    size_t run;
} id_index;

static int cmp_id(const void *a, const void *b) {
    const id_index *x = a, *y = b;
    return x->id < y->id ? -1 : x->id > y->id;
}

/* The runs sorted by id, for the look-ups of sweep_journal_open; NULL when out of memory. */
static id_index *sorted_ids(const sweep *s) {
    id_index *ix = malloc(s->nruns * sizeof *ix);
    if (!ix) return NULL;
    for (size_t r = 0; r < s->nruns; r++) ix[r] = (id_index){s->ids[r], r};
    qsort(ix, s->nruns, sizeof *ix, cmp_id);
    return ix;
}

boids_status sweep_ids(sweep *s, const app_opts *o, boids_error *err) {
    if (!(s->ids = malloc(s->nruns * sizeof *s->ids)))
        return boids_error_set(err, BOIDS_ERR_NOMEM, "out of memory");
    for (size_t r = 0; r < s->nruns; r++) {
        boids_params p;
        boids_status st = sweep_run_params(o, s, r, &p, err);
        if (st) return st;
        s->ids[r] = run_id(s, o, &p, sweep_run_seed(o, s, r));
    }
    id_index *ix = sorted_ids(s);
    if (!ix) return boids_error_set(err, BOIDS_ERR_NOMEM, "out of memory");
    boids_status st = BOIDS_OK;
    for (size_t i = 1; !st && i < s->nruns; i++)
        if (ix[i].id == ix[i - 1].id)
            st = boids_error_set(err, BOIDS_ERR_INPUT,
                                 "sweep: runs %zu and %zu have the same parameters and seed "
                                 "(a value given twice?)",
                                 ix[i - 1].run < ix[i].run ? ix[i - 1].run : ix[i].run,
                                 ix[i - 1].run < ix[i].run ? ix[i].run : ix[i - 1].run);
    free(ix);
    return st;
}

void sweep_runs_header(FILE *f, const sweep *s) {
    fputs("run_id,N,width,height", f);
    for (size_t i = 0; i < s->naxes; i++) fprintf(f, ",%s", s->axes[i].key->key);
    fputs(",seed,samples", f);
    /* "_avg": the bare names would clash with a swept key of the same name (neighbours). */
    for (int k = 0; k < BOIDS_METRICS_COUNT; k++) fprintf(f, ",%s_avg", boids_metrics_names[k]);
    fputc('\n', f);
}

boids_status sweep_runs_row(FILE *f, const sweep *s, const app_opts *o, size_t run,
                            const sweep_result *r, boids_error *err) {
    boids_params p;
    boids_status st = sweep_run_params(o, s, run, &p, err);
    if (st) return st;
    size_t ci, vi[SWEEP_MAX_KEYS];
    sweep_point_coords(s, run / (size_t)s->seeds, &ci, vi);
    fprintf(f, "%016" PRIx64 ",%ld,%.17g,%.17g", s->ids[run], p.count, p.width, p.height);
    for (size_t i = 0; i < s->naxes; i++) fprintf(f, ",%s", s->axes[i].values[vi[i]]);
    fprintf(f, ",%" PRIu64 ",%ld", sweep_run_seed(o, s, run), r->samples);
    /* %.17g: a resumed sweep reads these back into the same doubles. */
    for (int k = 0; k < BOIDS_METRICS_COUNT; k++) fprintf(f, ",%.17g", r->avg[k]);
    fputc('\n', f);
    return BOIDS_OK;
}

/* The header row as text (the caller frees it), or NULL when out of memory. */
static char *header_text(const sweep *s) {
    char *buf = NULL;
    size_t size = 0;
    FILE *m = open_memstream(&buf, &size);
    if (!m) return NULL;
    sweep_runs_header(m, s);
    fclose(m);
    return buf;
}

/* One row of a runs table into results: its id must be a run of this sweep. */
static boids_status parse_row(char *line, const sweep *s, const id_index *ix, sweep_result *res,
                              const char *where, boids_error *err) {
    size_t nf = 6 + s->naxes + BOIDS_METRICS_COUNT, k = 0;
    char *field[6 + SWEEP_MAX_KEYS + BOIDS_METRICS_COUNT];
    for (char *c = line;; *c++ = '\0') {
        if (k == nf)
            return boids_error_set(err, BOIDS_ERR_INPUT, "%s: more than %zu fields", where, nf);
        field[k++] = c;
        c += strcspn(c, ",");
        if (!*c) break;
    }
    if (k != nf)
        return boids_error_set(err, BOIDS_ERR_INPUT, "%s: %zu fields, expected %zu", where, k, nf);
    char *end;
    errno = 0;
    id_index key = {strtoull(field[0], &end, 16), 0};
    const id_index *hit = bsearch(&key, ix, s->nruns, sizeof *ix, cmp_id);
    if (*end || errno || !hit)
        return boids_error_set(err, BOIDS_ERR_INPUT,
                               "%s: run '%s' is not a run of this sweep (were its keys, values, "
                               "counts, seeds or base parameters changed?)",
                               where, field[0]);
    sweep_result *r = &res[hit->run];
    r->samples = strtol(field[5 + s->naxes], &end, 10);
    int bad = *end != '\0' || r->samples < 1;
    for (int m = 0; m < BOIDS_METRICS_COUNT; m++) {
        const char *text = field[6 + s->naxes + (size_t)m];
        r->avg[m] = strtod(text, &end);
        bad |= *end != '\0' || end == text; /* "nan" is a number here: nn_distance at N 1 */
    }
    if (bad) return boids_error_set(err, BOIDS_ERR_INPUT, "%s: malformed number", where);
    r->done = 1;
    return BOIDS_OK;
}

/* Reads a runs table (the runs file or the journal) into results. *good: the offset after
 * the last complete line, where a torn last line (the sweep killed mid-write) starts. */
static boids_status load_table(FILE *f, const char *path, const sweep *s, const id_index *ix,
                               sweep_result *res, long *good, boids_error *err) {
    char *header = header_text(s), *line = NULL;
    size_t cap = 0;
    if (!header) return boids_error_set(err, BOIDS_ERR_NOMEM, "out of memory");
    boids_status st = BOIDS_OK;
    ssize_t len = getline(&line, &cap, f);
    *good = 0;
    if (len <= 0) { /* empty: killed before its header reached the disk */
        free(header);
        free(line);
        return BOIDS_OK;
    }
    if (strcmp(line, header))
        st = boids_error_set(err, BOIDS_ERR_INPUT,
                             "%s: its header is not this sweep's (another set of swept keys?)",
                             path);
    *good = ftell(f);
    for (long ln = 2; !st && (len = getline(&line, &cap, f)) > 0; ln++) {
        if (line[len - 1] != '\n') break; /* torn: never a finished run */
        line[len - 1] = '\0';
        char where[600];
        snprintf(where, sizeof where, "%s line %ld", path, ln);
        if (!(st = parse_row(line, s, ix, res, where, err))) *good = ftell(f);
    }
    free(line);
    free(header);
    return st;
}

/* Loads path into results if it exists; *good as load_table. */
static boids_status load_if_present(const char *path, FILE **keep, const sweep *s,
                                    const id_index *ix, sweep_result *res, long *good,
                                    boids_error *err) {
    FILE *f = fopen(path, keep ? "r+" : "r");
    if (!f)
        return errno == ENOENT ? BOIDS_OK
                               : boids_error_set(err, BOIDS_ERR_INPUT, "%s: cannot read it: %s",
                                                 path, strerror(errno));
    boids_status st = load_table(f, path, s, ix, res, good, err);
    if (!st && keep) {
        *keep = f;
        return BOIDS_OK;
    }
    fclose(f);
    return st;
}

/* The journal goes straight to its final name and grows a line at a time: it is a record
 * of progress that must survive a kill, not an output (the runs file, written whole at the
 * end through boids_atomic_file, is). */
boids_status sweep_journal_open(sweep_journal *j, const sweep *s, sweep_result *results,
                                size_t *resumed, boids_error *err) {
    j->f = NULL;
    if (!(j->path = malloc(strlen(s->runs_out) + 9)))
        return boids_error_set(err, BOIDS_ERR_NOMEM, "out of memory");
    strcat(strcpy(j->path, s->runs_out), ".partial");
    boids_status st = BOIDS_OK;
    long good = 0;
    if (s->resume) {
        id_index *ix = sorted_ids(s);
        if (!ix) return boids_error_set(err, BOIDS_ERR_NOMEM, "out of memory");
        st = load_if_present(s->runs_out, NULL, s, ix, results, &good, err);
        if (!st) st = load_if_present(j->path, &j->f, s, ix, results, &good, err);
        free(ix);
    }
    if (!st && j->f) { /* append after the last complete line, dropping a torn one */
        if (fflush(j->f) || ftruncate(fileno(j->f), good) || fseek(j->f, good, SEEK_SET))
            st = boids_error_set(err, BOIDS_ERR_RUNTIME, "%s: cannot append to it", j->path);
    } else if (!st && !(j->f = fopen(j->path, "w"))) {
        st = boids_error_set(err, BOIDS_ERR_INPUT, "%s: cannot write it: %s", j->path,
                             strerror(errno));
    }
    if (!st && ftell(j->f) == 0) {
        sweep_runs_header(j->f, s);
        if (fflush(j->f)) st = boids_error_set(err, BOIDS_ERR_RUNTIME, "%s: write failed", j->path);
    }
    *resumed = 0;
    for (size_t r = 0; r < s->nruns; r++) *resumed += (size_t)results[r].done;
    return st;
}

boids_status sweep_journal_add(sweep_journal *j, const sweep *s, const app_opts *o, size_t run,
                               const sweep_result *r, boids_error *err) {
    boids_status st = sweep_runs_row(j->f, s, o, run, r, err);
    if (!st && (fflush(j->f) || fsync(fileno(j->f))))
        st = boids_error_set(err, BOIDS_ERR_RUNTIME, "%s: write failed: %s", j->path,
                             strerror(errno));
    return st;
}

void sweep_journal_close(sweep_journal *j, int remove) {
    if (j->f) fclose(j->f);
    if (remove && j->path) unlink(j->path);
    free(j->path);
    j->f = NULL;
    j->path = NULL;
}
