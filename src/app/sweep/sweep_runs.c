/* SPDX-License-Identifier: MIT */
/* boids sweep: run ids, the runs table and the journal that makes a sweep resumable. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sweep/sweep.h"

/* FNV-1a, 64 bits, continued from h over the bytes of text. */
static uint64_t fnv1a(uint64_t h, const char *text) {
    for (const unsigned char *c = (const unsigned char *)text; *c; c++) {
        h ^= *c;
        h *= 0x100000001b3ull;
    }
    return h;
}

/* The id of a run with parameters p: the hash of the text "key=value\n" of every parameter
 * (values as boids_params_format writes them, a real as %.17g: the text ids were first made
 * of, kept so that a journal of an earlier build resumes), then the seed, the backend (and GPU
 * mode) and the sampling. The thread count is left out: results do not depend on it. */
static uint64_t run_id(const sweep *s, const app_opts *o, const boids_params *p, uint64_t seed) {
    uint64_t h = 0xcbf29ce484222325ull;
    size_t n;
    const boids_param_info *t = boids_param_table(&n);
    char line[160], value[64];
    for (size_t i = 0; i < n; i++) {
        if (t[i].type == BOIDS_KEY_REAL)
            snprintf(value, sizeof value, "%.17g",
                     *(const double *)((const char *)p + t[i].offset));
        else
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
    h = fnv1a(h, line);
    /* Only with corr_length, so that the ids of a sweep without it stay what they were. */
    if (s->obs.range > 0) {
        snprintf(line, sizeof line, "correlation_range=%.17g\ncorrelation_bins=%ld\n", s->obs.range,
                 s->obs.bins);
        h = fnv1a(h, line);
    }
    return h;
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
        if (!st) st = app_obs_check(&s->obs, &p, err);
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
    for (int k = 0; k < s->obs.count; k++) fprintf(f, ",%s_avg", app_obs_name(&s->obs, k));
    for (int k = 0; k < s->obs.count; k++)
        fprintf(f, ",%s_tau,%s_se_blocks", app_obs_name(&s->obs, k), app_obs_name(&s->obs, k));
    fputs(",order_m2,order_m4\n", f);
}

/* The row of run `run` up to its seed (run_id, N, width, height, the swept values, seed), as
 * the runs table writes it: what a row read back on --resume must repeat exactly. */
static boids_status row_key(FILE *f, const sweep *s, const app_opts *o, size_t run,
                            boids_error *err) {
    boids_params p;
    boids_status st = sweep_run_params(o, s, run, &p, err);
    if (st) return st;
    size_t ci, vi[SWEEP_MAX_KEYS];
    sweep_point_coords(s, run / (size_t)s->seeds, &ci, vi);
    fprintf(f, "%016" PRIx64 ",%ld,%.17g,%.17g", s->ids[run], p.count, p.width, p.height);
    for (size_t i = 0; i < s->naxes; i++) fprintf(f, ",%s", s->axes[i].values[vi[i]]);
    fprintf(f, ",%" PRIu64, sweep_run_seed(o, s, run));
    return BOIDS_OK;
}

boids_status sweep_runs_row(FILE *f, const sweep *s, const app_opts *o, size_t run,
                            const sweep_result *r, boids_error *err) {
    boids_status st = row_key(f, s, o, run, err);
    if (st) return st;
    fprintf(f, ",%ld", r->samples);
    /* %.17g: a resumed sweep reads these back into the same doubles. */
    for (int k = 0; k < s->obs.count; k++) fprintf(f, ",%.17g", r->avg[k]);
    for (int k = 0; k < s->obs.count; k++) fprintf(f, ",%.17g,%.17g", r->tau[k], r->se_blocks[k]);
    fprintf(f, ",%.17g,%.17g\n", r->m2, r->m4);
    return BOIDS_OK;
}

/* Text written to a memory stream by write (the caller frees it), or NULL when out of memory
 * (err set) or when write fails (err set by it). */
static char *mem_text(boids_status (*write)(FILE *, const void *, boids_error *), const void *arg,
                      boids_error *err) {
    char *buf = NULL;
    size_t size = 0;
    FILE *m = open_memstream(&buf, &size);
    if (!m) {
        boids_error_set(err, BOIDS_ERR_NOMEM, "out of memory");
        return NULL;
    }
    boids_status st = write(m, arg, err);
    if (fclose(m) != 0 && !st) st = boids_error_set(err, BOIDS_ERR_NOMEM, "out of memory");
    if (st) {
        free(buf);
        return NULL;
    }
    return buf;
}

static boids_status header_write(FILE *f, const void *s, boids_error *err) {
    (void)err;
    sweep_runs_header(f, s);
    return BOIDS_OK;
}

/* The fields of a runs table's row: run_id, N, width, height, the keys, seed, samples, each
 * observable's average, then its tau and se_blocks, then order_m2 and order_m4. */
enum { RUN_FIELDS_MAX = 8 + SWEEP_MAX_KEYS + 3 * APP_OBS_MAX };

static size_t run_fields(const sweep *s) {
    return 8 + s->naxes + 3 * (size_t)s->obs.count;
}

/* What a resumed table is read with: the sweep, its runs by id, the header's columns. */
typedef struct reader {
    const sweep *s;
    const app_opts *o;
    id_index *ix;
    sweep_result *res;
    unsigned char *from; /* per run: 0 not read yet, else the table (1, 2) that held it */
    char *header;        /* the header row, its commas turned into NULs: column names */
    char *column[RUN_FIELDS_MAX];
} reader;

typedef struct key_args {
    const reader *rd;
    size_t run;
} key_args;

static boids_status key_write(FILE *f, const void *arg, boids_error *err) {
    const key_args *k = arg;
    return row_key(f, k->rd->s, k->rd->o, k->run, err);
}

/* Splits line at its commas into at most max fields; returns how many (max + 1: too many). */
static size_t split(char *line, char **field, size_t max) {
    size_t k = 0;
    for (char *c = line;; *c++ = '\0') {
        if (k == max) return max + 1;
        field[k++] = c;
        c += strcspn(c, ",");
        if (!*c) return k;
    }
}

/* The range a run average of observable m can take with N boids (an average of values in a
 * range stays in it; every bound is a double that rounding cannot cross). */
static int avg_in_range(const sweep *s, int m, double v, long n, char *range, size_t size) {
    double lo = 0, hi = 1;
    int open_lo = 0;
    /* a species' order and largest_cluster: in [0, 1]; its clusters in [0, N] (0: no boids) */
    if (app_obs_species_metric(&s->obs, m) >= 0)
        m = app_obs_species_metric(&s->obs, m) == 4 ? -1 : 0;
    switch (m) {
    case -1:
        hi = (double)n;
        break;
    case APP_OBS_GNF: /* a fitted slope, NaN when the flock has too few fit levels */
        snprintf(range, size, "a finite number or nan");
        return !isinf(v);
    case APP_OBS_CORR: /* a distance within the range, NaN when C stays positive over it */
        snprintf(range, size, "nan or in [0, %.17g]", s->obs.range);
        return isnan(v) || (v >= 0 && v <= s->obs.range);
    case 2: /* nn_distance: NaN exactly when N < 2 */
        if (n < 2) {
            snprintf(range, size, "nan (one boid: no nearest neighbour)");
            return isnan(v);
        }
        snprintf(range, size, "a finite distance >= 0");
        return isfinite(v) && v >= 0;
    case 3:
        hi = (double)(n - 1);
        break;
    case 4:
        lo = 1, hi = (double)n;
        break;
    case 5:
        open_lo = 1;
        break;
    }
    snprintf(range, size, "%c%.17g, %.17g]", open_lo ? '(' : '[', lo, hi);
    return (open_lo ? v > lo : v >= lo) && v <= hi;
}

/* A number of column `name` (the whole field); BOIDS_ERR_INPUT otherwise. */
static boids_status number(const char *text, const char *name, const char *where, double *v,
                           boids_error *err) {
    char *end;
    *v = strtod(text, &end);
    if (*end || end == text)
        return boids_error_set(err, BOIDS_ERR_INPUT, "%s: column %s: '%s' is not a number", where,
                               name, text);
    return BOIDS_OK;
}

/* Observable k's tau and se_blocks: NaN both when its average is (a sample was NaN), else
 * tau finite and > 0, se_blocks finite and >= 0 (NaN below 4 samples: fewer than 2 blocks). */
static boids_status check_errors(const sweep_result *r, int k, char **field, char **name,
                                 const char *where, boids_error *err) {
    int undefined = isnan(r->avg[k]);
    if (undefined ? !isnan(r->tau[k]) : !(isfinite(r->tau[k]) && r->tau[k] > 0))
        return boids_error_set(err, BOIDS_ERR_INPUT, "%s: column %s is %s, but it must be %s",
                               where, name[0], field[0],
                               undefined ? "nan (the average is)" : "a finite time > 0");
    int blocks = !undefined && r->samples >= 4;
    if (blocks ? !(isfinite(r->se_blocks[k]) && r->se_blocks[k] >= 0) : !isnan(r->se_blocks[k]))
        return boids_error_set(err, BOIDS_ERR_INPUT, "%s: column %s is %s, but it must be %s",
                               where, name[1], field[1],
                               blocks      ? "a finite error >= 0"
                               : undefined ? "nan (the average is)"
                                           : "nan (fewer than 4 samples: no 2 blocks)");
    return BOIDS_OK;
}

/* The results of a row (field[0]: the first average; name: those fields' columns) into the
 * run's entry of the reader: each average in its observable's range (N boids), the errors as
 * check_errors says, the moments of order in [0, 1]; the same as another table's row of it. */
static boids_status parse_results(reader *rd, char **field, char **name, long n, const char *where,
                                  sweep_result *r, size_t run, int table, boids_error *err) {
    const sweep *s = rd->s;
    int count = s->obs.count;
    for (int m = 0; m < count; m++) {
        char range[64];
        if (number(field[m], name[m], where, &r->avg[m], err)) return err->status;
        if (!avg_in_range(s, m, r->avg[m], n, range, sizeof range))
            return boids_error_set(err, BOIDS_ERR_INPUT,
                                   "%s: column %s is %s, outside what a run of %ld boids gives: %s",
                                   where, name[m], field[m], n, range);
    }
    for (int m = 0; m < count; m++) {
        char **f = field + count + 2 * m, **c = name + count + 2 * m;
        if (number(f[0], c[0], where, &r->tau[m], err) ||
            number(f[1], c[1], where, &r->se_blocks[m], err) ||
            check_errors(r, m, f, c, where, err))
            return err->status;
    }
    double *moment[2] = {&r->m2, &r->m4};
    for (int i = 0; i < 2; i++) {
        char **f = field + 3 * count + i, **c = name + 3 * count + i;
        if (number(*f, *c, where, moment[i], err)) return err->status;
        if (!(*moment[i] >= 0 && *moment[i] <= 1))
            return boids_error_set(err, BOIDS_ERR_INPUT,
                                   "%s: column %s is %s, outside [0, 1] (a mean of a power of "
                                   "the order parameter)",
                                   where, *c, *f);
    }
    /* Moments no series has (a variance below 0) would make a negative susceptibility: the
     * sweep writes m2 >= avg^2 and m4 >= m2^2 to the last bit (boids_order_moments). */
    if (r->m2 < r->avg[0] * r->avg[0] || r->m4 < r->m2 * r->m2) {
        int second = r->m2 < r->avg[0] * r->avg[0];
        return boids_error_set(err, BOIDS_ERR_INPUT,
                               "%s: column %s is %s, below the square of column %s (%s): "
                               "moments that no series of samples has",
                               where, name[3 * count + !second], field[3 * count + !second],
                               second ? name[0] : name[3 * count],
                               second ? field[0] : field[3 * count]);
    }
    sweep_result *have = &rd->res[run];
    if (rd->from[run] &&
        (have->samples != r->samples || memcmp(have->avg, r->avg, sizeof r->avg) != 0 ||
         memcmp(have->tau, r->tau, sizeof r->tau) != 0 ||
         memcmp(have->se_blocks, r->se_blocks, sizeof r->se_blocks) != 0 || have->m2 != r->m2 ||
         have->m4 != r->m4))
        return boids_error_set(err, BOIDS_ERR_INPUT,
                               "%s: run %016" PRIx64 " has other results than in %s", where,
                               s->ids[run], s->runs_out);
    *have = *r;
    rd->from[run] = (unsigned char)table;
    return BOIDS_OK;
}

/* One row of a runs table (table 1: the runs file, 2: the journal) into the results: a run of
 * this sweep, read once per table, repeating the run's N, world, values and seed, with the
 * sweep's sample count and results as parse_results checks them. */
static boids_status parse_row(reader *rd, char *line, int table, const char *where,
                              boids_error *err) {
    const sweep *s = rd->s;
    size_t nf = run_fields(s);
    char *field[RUN_FIELDS_MAX];
    size_t k = split(line, field, nf);
    if (k > nf) return boids_error_set(err, BOIDS_ERR_INPUT, "%s: more than %zu fields", where, nf);
    if (k != nf)
        return boids_error_set(err, BOIDS_ERR_INPUT, "%s: %zu fields, expected %zu", where, k, nf);
    char *end;
    errno = 0;
    id_index key = {strtoull(field[0], &end, 16), 0};
    const id_index *hit = bsearch(&key, rd->ix, s->nruns, sizeof *rd->ix, cmp_id);
    if (*end || errno || !hit)
        return boids_error_set(err, BOIDS_ERR_INPUT,
                               "%s: run '%s' is not a run of this sweep (were its keys, values, "
                               "counts, seeds or base parameters changed?)",
                               where, field[0]);
    size_t run = hit->run;
    if (rd->from[run] == table)
        return boids_error_set(err, BOIDS_ERR_INPUT,
                               "%s: run %s appears a second time in this file", where, field[0]);
    /* The columns before the results repeat the run's own: an edited row is refused. */
    key_args ka = {rd, run};
    char *want = mem_text(key_write, &ka, err), *wf[6 + SWEEP_MAX_KEYS];
    if (!want) return err->status;
    split(want, wf, 5 + s->naxes);
    boids_status st = BOIDS_OK;
    for (size_t i = 1; !st && i < 5 + s->naxes; i++)
        if (strcmp(field[i], wf[i]))
            st = boids_error_set(err, BOIDS_ERR_INPUT,
                                 "%s: column %s is '%s', but run %s of this sweep has '%s'", where,
                                 rd->column[i], field[i], field[0], wf[i]);
    long n = strtol(wf[1], NULL, 10);
    free(want);
    if (st) return st;
    sweep_result r = {.done = 1};
    long samples = (s->steps - s->burn_in) / s->every + 1;
    errno = 0;
    r.samples = strtol(field[5 + s->naxes], &end, 10);
    if (*end || end == field[5 + s->naxes] || errno || r.samples != samples)
        return boids_error_set(err, BOIDS_ERR_INPUT,
                               "%s: column samples is '%s', but this sweep takes %ld samples a "
                               "run (burn-in %ld, steps %ld, every %ld)",
                               where, field[5 + s->naxes], samples, s->burn_in, s->steps, s->every);
    return parse_results(rd, field + 6 + s->naxes, rd->column + 6 + s->naxes, n, where, &r, run,
                         table, err);
}

/* Reads a runs table (the runs file or the journal) into results: LF or CRLF line ends, a
 * UTF-8 byte order mark before the header skipped. *good: the offset after the last complete
 * line, where a torn last line (the sweep killed mid-write) starts. */
static boids_status load_table(reader *rd, FILE *f, const char *path, int table, long *good,
                               boids_error *err) {
    char *line = NULL, where[600];
    size_t cap = 0;
    boids_status st = BOIDS_OK;
    *good = 0;
    for (long ln = 1; !st; ln++) {
        ssize_t len = getline(&line, &cap, f);
        if (len <= 0 || line[len - 1] != '\n') break; /* torn: never a finished run */
        snprintf(where, sizeof where, "%s line %ld", path, ln);
        char *text = line;
        line[--len] = '\0';
        if (len && line[len - 1] == '\r') line[--len] = '\0';
        if (memchr(line, '\0', (size_t)len)) {
            st = boids_error_set(err, BOIDS_ERR_INPUT, "%s: holds a NUL byte (a damaged file)",
                                 where);
        } else if (ln == 1) {
            if (!strncmp(text, "\xEF\xBB\xBF", 3)) text += 3;
            char *want = mem_text(header_write, rd->s, err);
            if (!want) return err->status;
            want[strcspn(want, "\n")] = '\0';
            /* A file of a version before the estimators: its header stops after the six
             * metrics' averages, which this one continues with gnf_alpha's. */
            size_t old = strstr(want, ",gnf_alpha_avg")
                             ? (size_t)(strstr(want, ",gnf_alpha_avg") - want)
                             : 0;
            if (old && !strncmp(text, want, old) && !text[old])
                st = boids_error_set(err, BOIDS_ERR_INPUT,
                                     "%s: the runs file is from an older version of boids sweep "
                                     "(no gnf_alpha, tau or se_blocks columns); its runs cannot "
                                     "be resumed: run the sweep again without --resume",
                                     where);
            else if (strcmp(text, want))
                st = boids_error_set(err, BOIDS_ERR_INPUT,
                                     "%s: its header is not this sweep's (another set of swept "
                                     "keys, or --correlation-range given or left out?)",
                                     where);
            free(want);
        } else {
            st = parse_row(rd, text, table, where, err);
        }
        if (!st) *good = ftell(f);
    }
    free(line);
    return st;
}

/* The kind of a file that is not a regular one, for messages. */
static const char *kind(mode_t mode) {
    return S_ISDIR(mode)                    ? "a folder"
           : S_ISFIFO(mode)                 ? "a FIFO"
           : S_ISCHR(mode) || S_ISBLK(mode) ? "a device"
           : S_ISSOCK(mode)                 ? "a socket"
                                            : "not a regular file";
}

/* Opens a runs table or journal without following a symbolic link and without blocking on a
 * FIFO, and only if it is a regular file: read-only (fd returned, -1 and *missing set when it
 * does not exist), or for the journal read-write, created if missing (*missing set then). */
static int open_table(const char *path, int journal, int *missing, boids_error *err) {
    *missing = 0;
    int flags = (journal ? O_RDWR : O_RDONLY) | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC;
    int fd = open(path, flags);
    if (fd < 0 && errno == ENOENT) {
        *missing = 1;
        if (!journal) return -1;
        fd = open(path, flags | O_CREAT | O_EXCL, 0666);
    }
    if (fd < 0) {
        struct stat ls;
        if (errno == ELOOP || (errno == EEXIST && !lstat(path, &ls) && S_ISLNK(ls.st_mode)))
            boids_error_set(err, BOIDS_ERR_INPUT,
                            "%s: is a symbolic link; a sweep's records are not written or "
                            "read through one (name its target instead)",
                            path);
        else
            boids_error_set(err, BOIDS_ERR_INPUT, "%s: cannot %s it: %s", path,
                            journal ? "write" : "read", strerror(errno));
        *missing = 0;
        return -1;
    }
    struct stat st;
    int bad = fstat(fd, &st);
    if (bad || !S_ISREG(st.st_mode)) {
        if (bad)
            boids_error_set(err, BOIDS_ERR_INPUT, "%s: cannot read it: %s", path, strerror(errno));
        else
            boids_error_set(err, BOIDS_ERR_INPUT, "%s: is %s, not a runs table", path,
                            kind(st.st_mode));
        close(fd);
        *missing = 0;
        return -1;
    }
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    return fd;
}

/* 1 when the file holds a finished run: a line after the header (read from the start). */
static int holds_runs(FILE *f) {
    int c, lines = 0;
    while ((c = getc(f)) != EOF)
        if (c == '\n' && ++lines == 1) {
            if ((c = getc(f)) != EOF) return 1;
            break;
        }
    return 0;
}

/* The journal goes straight to its final name and grows a line at a time: it is a record
 * of progress that must survive a kill, not an output (the runs file, written whole at the
 * end through boids_atomic_file, is). Its lock (flock) is held until sweep_journal_close, so
 * a second sweep on the same files stops at once instead of writing into it. */
boids_status sweep_journal_open(sweep_journal *j, const sweep *s, const app_opts *o,
                                sweep_result *results, size_t *resumed, boids_error *err) {
    j->f = NULL;
    *resumed = 0;
    if (!(j->path = malloc(strlen(s->runs_out) + 9)))
        return boids_error_set(err, BOIDS_ERR_NOMEM, "out of memory");
    strcat(strcpy(j->path, s->runs_out), ".partial");
    int missing;
    int fd = open_table(j->path, 1, &j->created, err);
    if (fd < 0) return err->status;
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        close(fd);
        return boids_error_set(err, BOIDS_ERR_INPUT,
                               "%s: in use by another sweep (it holds the journal's lock); wait "
                               "for it to end or stop it",
                               j->path);
    }
    if (!(j->f = fdopen(fd, "r+"))) {
        close(fd);
        return boids_error_set(err, BOIDS_ERR_NOMEM, "out of memory");
    }
    if (!s->resume && !j->created && holds_runs(j->f))
        return boids_error_set(err, BOIDS_ERR_INPUT,
                               "%s: a journal of finished runs is there: pass --resume to go on "
                               "from it, or remove it to start afresh",
                               j->path);
    boids_status st = BOIDS_OK;
    long good = 0;
    if (s->resume) {
        reader rd = {s, o, sorted_ids(s), results, calloc(s->nruns, 1), NULL, {NULL}};
        rd.header = mem_text(header_write, s, err);
        if (!rd.ix || !rd.from || !rd.header) {
            st = boids_error_set(err, BOIDS_ERR_NOMEM, "out of memory");
        } else {
            rd.header[strcspn(rd.header, "\n")] = '\0';
            split(rd.header, rd.column, RUN_FIELDS_MAX);
            int rfd = open_table(s->runs_out, 0, &missing, err);
            FILE *rf = rfd >= 0 ? fdopen(rfd, "r") : NULL;
            if (rfd >= 0 && !rf) close(rfd);
            if (rf) {
                st = load_table(&rd, rf, s->runs_out, 1, &good, err);
                fclose(rf);
            } else if (!missing) {
                st = err->status ? err->status : BOIDS_ERR_NOMEM;
            }
            if (!st) st = load_table(&rd, j->f, j->path, 2, &good, err);
        }
        free(rd.ix);
        free(rd.from);
        free(rd.header);
    }
    /* Append after the last complete line, dropping a torn one; without --resume the journal
     * holds no finished run (or was just made) and starts afresh. */
    if (!st && (fflush(j->f) || ftruncate(fileno(j->f), good) || fseek(j->f, good, SEEK_SET)))
        st = boids_error_set(err, BOIDS_ERR_RUNTIME, "%s: cannot append to it: %s", j->path,
                             strerror(errno));
    if (!st && good == 0) {
        sweep_runs_header(j->f, s);
        if (fflush(j->f)) st = boids_error_set(err, BOIDS_ERR_RUNTIME, "%s: write failed", j->path);
    }
    *resumed = sweep_done(s, results);
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
    /* Removed while still locked: a sweep starting now makes a new journal, never takes over
     * this one on its way out. */
    if (remove && j->path) unlink(j->path);
    if (j->f) fclose(j->f);
    free(j->path);
    j->f = NULL;
    j->path = NULL;
}
