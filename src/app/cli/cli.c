/* SPDX-License-Identifier: MIT */
#include "cli/cli.h"
#include "cli/control.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "boids/gpu.h"

/* Ids of the shared options in getopt_long (short ones use their letter); a command's own
 * options get OPT_OWN + their index in its table. */
enum {
    OPT_PRESET = 1000,
    OPT_CONFIG,
    OPT_SET,
    OPT_SEED,
    OPT_BACKEND,
    OPT_THREADS,
    OPT_DETERMINISTIC,
    OPT_FAST,
    OPT_GPU_VARIANT,
    OPT_LOAD,
    OPT_MODEL,
    OPT_NEIGHBOURS,
    OPT_FIXED_WORLD,
    OPT_HELP,
    OPT_OWN = 2000
};

/* The shared options: the one table getopt_long, the handler and the help are made from. */
typedef struct shared_option {
    unsigned group;
    int id;                   /* a letter: the short option */
    const char *name, *alias; /* long names ("k": -k alone in the help) */
    const char *meta;         /* the value in the help; NULL: the option takes none */
    const char *help;
} shared_option;

static const shared_option shared[] = {
    {APP_PARAMS, OPT_PRESET, "preset", NULL, "NAME",
     "classic, lab, flock, school, swarm, chaos, vicsek, chate,\n"
     "murmuration"},
    {APP_PARAMS, OPT_CONFIG, "config", NULL, "FILE", "INI file of key = value lines"},
    {APP_PARAMS, 'n', "count", NULL, "N",
     "number of boids; above the parameters' N the world grows\n"
     "to keep their density (per area, per volume in 3-D) at\n"
     "their shape (view, render: the window's or frame's),\n"
     "unless --fixed-world, or --set or --config give width,\n"
     "height or depth and no count"},
    {APP_PARAMS, OPT_FIXED_WORLD, "fixed-world", NULL, NULL,
     "keep the parameters' world whatever N (density follows N)"},
    {APP_PARAMS, OPT_MODEL, "model", NULL, "M", "reynolds or vicsek (same as --set model=M)"},
    {APP_PARAMS, OPT_NEIGHBOURS, "neighbours", "neighbors", "R",
     "metric or topological (same as --set neighbours=R)"},
    {APP_PARAMS, 'k', "k", NULL, "K",
     "topological: nearest neighbours (same as --set k=K; default 7)"},
    {APP_PARAMS, OPT_SET, "set", NULL, "KEY=VALUE",
     "set one parameter (repeatable, applied last); `boids params` lists them"},
    {APP_PARAMS, OPT_SEED, "seed", NULL, "S",
     "random initial state as Python's random.Random(S), and the\nVicsek noise stream"},
    {APP_LOAD, OPT_LOAD, "load", NULL, "FILE",
     "state CSV (x,y,vx,vy; 3-D x,y,z,vx,vy,vz) or FILE.npy (NumPy\n"
     "(N, 4) or (N, 6), '<f8' or '<f4'); N from the file;\n"
     "the step and noise seed from FILE.json (--seed wins)"},
    {APP_BACKEND, OPT_BACKEND, "backend", NULL, "NAME",
     "cpu-ref (exact, O(N^2)), cpu (grid, OpenMP) or gpu (OpenGL\ncompute)"},
    {APP_THREADS, OPT_THREADS, "threads", NULL, "T", "cpu: number of threads (default: all)"},
    {APP_GPU_MODE, OPT_DETERMINISTIC, "deterministic", NULL, NULL,
     "gpu: sort each cell by id, bit-reproducible run to run on one device"},
    {APP_GPU_MODE, OPT_FAST, "fast", NULL, NULL,
     "gpu: skip the per-cell sort (faster; not reproducible run to run)"},
    {APP_GPU_MODE, OPT_GPU_VARIANT, "gpu-variant", NULL, "NAME",
     "gpu: pipeline variant, plain (default) or fused (the steer stage\n"
     "counts the next step's cells; bench/README.md)"},
    {APP_VERBOSE, 'v', "verbose", NULL, NULL,
     "diagnostics on stderr (renderer, timings); -vv: gpu with a GL debug\n"
     "context, any GL error or high-severity message fails the run"},
};
enum { NSHARED = sizeof shared / sizeof shared[0] };

static void opts_init(app_opts *o, const app_command *cmd) {
    memset(o, 0, sizeof *o);
    o->preset = cmd->preset;
    o->count = cmd->count;
    o->seed = cmd->seed;
    o->backend = cmd->backend ? cmd->backend : "cpu-ref";
    o->deterministic = cmd->deterministic;
    o->gpu_variant = -1;
    o->config_theirs = app_interact_is_key; /* the points' and obstacles' lines */
}

/* strtol and strtod skip leading white space, and strtoull then negates " -1" into a huge
 * seed: a number starts with a sign or a digit, as the trailing text is checked too. */
static int starts_number(const char *text) {
    return text[0] == '-' || text[0] == '+' || text[0] == '.' || (text[0] >= '0' && text[0] <= '9');
}

boids_status app_parse_long(const char *flag, const char *text, long lo, long hi, long *out,
                            boids_error *err) {
    char *end;
    errno = 0;
    long long v = strtoll(text, &end, 10);
    if (!starts_number(text) || end == text || *end != '\0')
        return boids_error_set(err, BOIDS_ERR_INPUT, "%s: '%s' is not an integer", flag, text);
    if (errno == ERANGE || v < lo || v > hi)
        return boids_error_set(err, BOIDS_ERR_INPUT, "%s: %s is out of range [%ld, %ld]", flag,
                               text, lo, hi);
    *out = (long)v;
    return BOIDS_OK;
}

boids_status app_parse_real(const char *flag, const char *text, double lo, double hi, double *out,
                            boids_error *err) {
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    if (!starts_number(text) || end == text || *end != '\0' || errno == ERANGE ||
        !(v >= lo && v <= hi))
        return boids_error_set(err, BOIDS_ERR_INPUT, "%s: '%s' is not a number in [%g, %g]", flag,
                               text, lo, hi);
    *out = v;
    return BOIDS_OK;
}

boids_status app_parse_size(const char *flag, const char *text, void *dst, boids_error *err) {
    int *wh = dst;
    char *end;
    errno = 0;
    long a = strtol(text, &end, 10), b = 0;
    int ok = starts_number(text) && end != text && (*end == 'x' || *end == 'X');
    if (ok) {
        const char *s2 = end + 1;
        b = strtol(s2, &end, 10);
        ok = starts_number(s2) && end != s2 && !*end && !errno && a >= 16 && b >= 16 &&
             a <= 16384 && b <= 16384;
    }
    if (!ok)
        return boids_error_set(err, BOIDS_ERR_INPUT, "%s: '%s' is not WIDTHxHEIGHT in [16, 16384]",
                               flag, text);
    wh[0] = (int)a;
    wh[1] = (int)b;
    return BOIDS_OK;
}

boids_status app_check_list(const char *flag, const char *list, boids_error *err) {
    for (const char *a = list;;) {
        size_t len = strcspn(a, ",");
        if (len == 0)
            return boids_error_set(err, BOIDS_ERR_INPUT, "%s: an empty item in '%s'", flag, list);
        for (const char *b = list; b < a; b += strcspn(b, ",") + 1)
            if (strcspn(b, ",") == len && !strncmp(a, b, len))
                return boids_error_set(err, BOIDS_ERR_INPUT, "%s: '%.*s' named twice in '%s'", flag,
                                       (int)len, a, list);
        if (!a[len]) return BOIDS_OK;
        a += len + 1;
    }
}

static boids_status parse_seed(const char *text, uint64_t *seed, boids_error *err) {
    char *end;
    errno = 0;
    unsigned long long s = strtoull(text, &end, 10);
    if (!starts_number(text) || end == text || *end != '\0' || text[0] == '-' || errno == ERANGE)
        return boids_error_set(err, BOIDS_ERR_INPUT,
                               "--seed: '%s' is not an integer in [0, 18446744073709551615]", text);
    *seed = s;
    return BOIDS_OK;
}

static boids_status parse_set(app_opts *o, const char *arg, boids_error *err) {
    if (o->nsets == APP_MAX_SETS)
        return boids_error_set(err, BOIDS_ERR_INPUT, "--set: more than %d pairs", APP_MAX_SETS);
    if (!strchr(arg, '='))
        return boids_error_set(err, BOIDS_ERR_INPUT, "--set %s: expected KEY=VALUE", arg);
    o->sets[o->nsets++] = arg;
    return BOIDS_OK;
}

/* The handler of the shared options. */
static boids_status shared_parse(app_opts *o, int id, const char *arg, boids_error *err) {
    long v;
    switch (id) {
    case OPT_PRESET:
        o->preset = arg;
        break;
    case OPT_CONFIG:
        o->config = arg;
        break;
    case OPT_SET:
        return parse_set(o, arg, err);
    case 'n':
        if (app_parse_long("--count", arg, 1, 1000000000L, &v, err)) return err->status;
        o->count = v;
        break;
    case OPT_SEED:
        o->seed_given = 1;
        return parse_seed(arg, &o->seed, err);
    case OPT_BACKEND:
        if (strcmp(arg, "cpu-ref") && strcmp(arg, "cpu") && strcmp(arg, "gpu"))
            return boids_error_set(err, BOIDS_ERR_INPUT,
                                   "--backend: unknown backend '%s' (cpu-ref, cpu, gpu)", arg);
        o->backend = arg;
        break;
    case OPT_THREADS:
        if (app_parse_long("--threads", arg, 1, 4096, &v, err)) return err->status;
        o->threads = (int)v;
        break;
    case OPT_DETERMINISTIC:
        o->deterministic = 1;
        break;
    case OPT_FAST:
        o->deterministic = 0;
        break;
    case OPT_GPU_VARIANT: {
        boids_error e;
        boids_gpu_variant v;
        if (boids_gpu_variant_parse(arg, &v, &e))
            return boids_error_set(err, BOIDS_ERR_INPUT, "--gpu-variant: %s", e.msg);
        o->gpu_variant = (int)v;
        break;
    }
    case OPT_LOAD:
        o->load = arg;
        break;
    case OPT_MODEL:
        o->model = arg;
        break;
    case OPT_NEIGHBOURS:
        o->neighbours = arg;
        break;
    case 'k':
        o->k = arg;
        break;
    case 'v':
        o->verbose++;
        break;
    case OPT_FIXED_WORLD:
        o->fixed_world = 1;
        break;
    }
    return BOIDS_OK;
}

static boids_status own_parse(const app_option *op, const char *arg, boids_error *err) {
    char flag[80];
    snprintf(flag, sizeof flag, "--%s", op->name);
    long v;
    double d;
    switch (op->kind) {
    case APP_FLAG:
        *(int *)op->dst = (int)op->lo;
        break;
    case APP_TEXT:
        *(const char **)op->dst = arg;
        break;
    case APP_LONG:
    case APP_INT:
        if (app_parse_long(flag, arg, (long)op->lo, (long)op->hi, &v, err)) return err->status;
        if (op->kind == APP_LONG)
            *(long *)op->dst = v;
        else
            *(int *)op->dst = (int)v;
        break;
    case APP_REAL:
        if (app_parse_real(flag, arg, op->lo, op->hi, &d, err)) return err->status;
        if (op->open && d == op->lo)
            return boids_error_set(err, BOIDS_ERR_INPUT, "%s: '%s' is not a number in (%g, %g]",
                                   flag, arg, op->lo, op->hi);
        *(double *)op->dst = d;
        break;
    case APP_CHOICE: {
        char list[256] = "";
        for (int i = 0; op->choices[i]; i++) {
            if (!strcmp(arg, op->choices[i])) return *(int *)op->dst = i, BOIDS_OK;
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? ", " : "",
                     op->choices[i]);
        }
        return boids_error_set(err, BOIDS_ERR_INPUT, "%s: unknown value '%s' (%s)", flag, arg,
                               list);
    }
    case APP_CUSTOM:
        return op->parse(flag, arg, op->dst, err);
    case APP_SECTION:
        break;
    }
    return BOIDS_OK;
}

/* Appends one getopt_long entry and, for a letter, its short-option characters. */
static void add_longopt(struct option *lo, size_t *nl, char *so, const char *name, int has_arg,
                        int id) {
    lo[(*nl)++] = (struct option){name, has_arg ? required_argument : no_argument, NULL, id};
    if (id < 128 && !strchr(so, id)) {
        size_t l = strlen(so);
        so[l] = (char)id;
        if (has_arg) so[++l] = ':';
        so[l + 1] = '\0';
    }
}

/* The getopt_long tables of a command: the shared groups it takes, then its own options. */
static struct option *make_longopts(const app_command *cmd, const app_option *own, size_t n,
                                    char *shortopts) {
    struct option *lo = calloc(2 * (NSHARED + n) + 2, sizeof *lo);
    if (!lo) return NULL;
    size_t nl = 0;
    strcpy(shortopts, ":h");
    for (size_t i = 0; i < NSHARED; i++) {
        if (!(cmd->shared & shared[i].group)) continue;
        const shared_option *s = &shared[i];
        add_longopt(lo, &nl, shortopts, s->name, s->meta != NULL, s->id);
        if (s->alias) add_longopt(lo, &nl, shortopts, s->alias, s->meta != NULL, s->id);
    }
    for (size_t i = 0; i < n; i++) {
        if (own[i].kind == APP_SECTION) continue;
        int has_arg = own[i].kind != APP_FLAG,
            id = own[i].letter ? own[i].letter : OPT_OWN + (int)i;
        add_longopt(lo, &nl, shortopts, own[i].name, has_arg, id);
        if (own[i].alias) add_longopt(lo, &nl, shortopts, own[i].alias, has_arg, id);
    }
    lo[nl++] = (struct option){"help", no_argument, NULL, 'h'};
    return lo;
}

/* The command's own option that getopt_long returned as id, or NULL. */
static const app_option *own_find(const app_option *own, size_t n, int id) {
    for (size_t i = 0; i < n; i++)
        if (own[i].kind != APP_SECTION && (own[i].letter ? own[i].letter : OPT_OWN + (int)i) == id)
            return &own[i];
    return NULL;
}

/* An option as given, to refuse a second value for what it sets. */
typedef struct given {
    int setting;            /* a shared option: its id, --fast that of --deterministic; own: 0 */
    const void *dst;        /* an own option: its destination (two options writing one are one) */
    const char *name, *arg; /* long name ("steps") and value ("3"); arg NULL for a flag */
} given;

/* "--name 'value'", "--name", or "-k" for a one-letter name. */
static const char *flag_text(char *buf, size_t size, const char *name, const char *arg) {
    snprintf(buf, size, "%s%s%s%s%s", name[1] ? "--" : "-", name, arg ? " '" : "", arg ? arg : "",
             arg ? "'" : "");
    return buf;
}

/* Refuses an option that sets what an earlier one set: a second value where one is meant,
 * or --fast after --deterministic. --set and -v repeat by design, and so do the options a
 * command marks `repeat` (take_option does not record them). Records g otherwise. */
static boids_status note_given(given *seen, size_t *nseen, const given *g, boids_error *err) {
    if (g->setting == OPT_SET || g->setting == 'v') return BOIDS_OK;
    for (size_t i = 0; i < *nseen; i++) {
        const given *e = &seen[i];
        if (e->setting != g->setting || e->dst != g->dst) continue;
        char now[160], before[160];
        flag_text(now, sizeof now, g->name, g->arg);
        flag_text(before, sizeof before, e->name, e->arg);
        if (strcmp(e->name, g->name))
            return boids_error_set(err, BOIDS_ERR_INPUT, "%s: conflicts with %s given before", now,
                                   before);
        return boids_error_set(err, BOIDS_ERR_INPUT, "%s: given twice (first %s); give it once",
                               now, before);
    }
    seen[(*nseen)++] = *g;
    return BOIDS_OK;
}

/* The long name of a shared option. */
static const char *shared_name(int id) {
    for (size_t i = 0; i < NSHARED; i++)
        if (shared[i].id == id) return shared[i].name;
    return "?";
}

/* The option getopt_long returned as c (with optarg): a value that is not empty, parsed into
 * o or the command's own destination, and not a second one for its setting. */
static boids_status take_option(const app_option *own, size_t n, app_opts *o, int c, given *seen,
                                size_t *nseen, boids_error *err) {
    const app_option *op = own_find(own, n, c);
    given g = {op              ? 0
               : c == OPT_FAST ? OPT_DETERMINISTIC
                               : c,
               op ? op->dst : NULL, op ? op->name : shared_name(c), optarg};
    char flag[160];
    if (optarg && !*optarg)
        return boids_error_set(err, BOIDS_ERR_INPUT, "%s: an empty value",
                               flag_text(flag, sizeof flag, g.name, optarg));
    boids_status s = op ? own_parse(op, optarg, err) : shared_parse(o, c, optarg, err);
    if (s || (op && op->repeat)) return s;
    return note_given(seen, nseen, &g, err);
}

/* One message for a bad option: prefixed "boids" for the subcommands (as app_fail), the
 * program's name otherwise. */
static int bad_value(const app_command *cmd, const boids_error *err) {
    const char *space = strchr(cmd->prog, ' ');
    int len = space ? (int)(space - cmd->prog) : (int)strlen(cmd->prog);
    fprintf(stderr, "%.*s: %s\n", len, cmd->prog, err->msg);
    return 2;
}

int app_parse(const app_command *cmd, const app_option *own, size_t n, app_opts *o, int argc,
              char **argv) {
    char shortopts[128]; /* ":h" and at most two characters per option letter */
    struct option *lo = make_longopts(cmd, own, n, shortopts);
    given *seen = calloc(NSHARED + n + 1, sizeof *seen); /* each setting at most once */
    size_t nseen = 0;
    if (!lo || !seen) {
        free(lo);
        free(seen);
        fprintf(stderr, "%s: out of memory\n", cmd->prog);
        return 1;
    }
    boids_error err;
    int c, rc = APP_RUN;
    opts_init(o, cmd);
    optind = 1;
    opterr = 0;
    while (rc == APP_RUN && (c = getopt_long(argc, argv, shortopts, lo, NULL)) != -1) {
        if (c == 'h') {
            app_help(stdout, cmd, own, n);
            rc = 0;
        } else if (c == ':') {
            fprintf(stderr, "%s: %s needs a value (see %s --help)\n", cmd->prog, argv[optind - 1],
                    cmd->prog);
            rc = 2;
        } else if (c == '?') {
            fprintf(stderr, "%s: unknown option '%s' (see %s --help)\n", cmd->prog,
                    argv[optind - 1], cmd->prog);
            rc = 2;
        } else if (take_option(own, n, o, c, seen, &nseen, &err)) {
            rc = bad_value(cmd, &err);
        }
    }
    free(lo);
    free(seen);
    if (rc == APP_RUN && optind < argc) {
        fprintf(stderr, "%s: unexpected argument '%s' (see %s --help)\n", cmd->prog, argv[optind],
                cmd->prog);
        rc = 2;
    }
    return rc;
}

/* ---- --help: every command's text goes through one writer that reflows it to HELP_WIDTH
 * columns. It breaks lines only at spaces outside `quotes`, so no number or token
 * ("8192x8192", "-1e15", "50,000") is ever split; a word wider than a whole line (verify's
 * scenario list) breaks after a comma that no digit follows. The texts' own line breaks are
 * soft, except: after a line that introduces something (ending in ':'), after a usage line,
 * before and after an indented line (an example or a table, kept as written), and a blank
 * line (a paragraph break; never two in a row). */
enum { HELP_WIDTH = 80, HELP_COLUMN = 21 /* where an option's text starts */ };

typedef struct help_flow {
    FILE *out;
    int width; /* columns of a line */
    int col;   /* the cursor's column; -1 before a line is started */
    int words; /* words on the current line */
    int blank; /* the last line written was blank, or nothing was written */
} help_flow;

static void flow_newline(help_flow *h) {
    fputc('\n', h->out);
    h->blank = h->col < 0;
    h->col = -1;
    h->words = 0;
}

/* Ends the line being filled, if any. */
static void flow_end(help_flow *h) {
    if (h->col >= 0) flow_newline(h);
}

/* One blank line, unless the last one written is blank. */
static void flow_blank(help_flow *h) {
    flow_end(h);
    if (!h->blank) flow_newline(h);
}

/* Writes len characters of a word; a fresh line starts at column indent. */
static void flow_put(help_flow *h, const char *w, int len, int indent) {
    if (h->words && h->col + 1 + len > h->width) flow_newline(h);
    if (h->col < 0)
        h->col = fprintf(h->out, "%*s", indent, "");
    else if (h->words)
        fputc(' ', h->out), h->col++;
    h->col += (int)fwrite(w, 1, (size_t)len, h->out);
    h->words++;
    h->blank = 0;
}

/* A word, split after commas when it is wider than a line from indent (a long list). */
static void flow_word(help_flow *h, const char *w, int len, int indent) {
    while (len > h->width - indent) {
        int cut = 0;
        for (int i = 0; i < h->width - indent && i + 1 < len; i++)
            if (w[i] == ',' && !isdigit((unsigned char)w[i + 1])) cut = i + 1;
        if (!cut) break;
        flow_put(h, w, cut, indent);
        flow_end(h);
        w += cut;
        len -= cut;
    }
    flow_put(h, w, len, indent);
}

/* The words of a paragraph, to lay out together. */
enum { HELP_MAX_WORDS = 512 };
typedef struct help_words {
    const char *at[HELP_MAX_WORDS];
    int len[HELP_MAX_WORDS];
    int n;
} help_words;

/* Whether word i of p is a bare number ("2", "500"): it stays on the line of the word after
 * it ("2 bad usage", "500 boids"). */
static int bare_number(const help_words *p, int i) {
    for (int c = 0; c < p->len[i]; c++)
        if (!isdigit((unsigned char)p->at[i][c])) return 0;
    return 1;
}

/* One past the last word of the unit that starts at word i: bare numbers and the word after. */
static int unit_end(const help_words *p, int i) {
    while (i + 1 < p->n && bare_number(p, i)) i++;
    return i + 1;
}

/* The columns words [i, end) take on one line. */
static int unit_width(const help_words *p, int i, int end) {
    int w = -1;
    for (; i < end; i++) w += p->len[i] + 1;
    return w;
}

/* Lays out the words collected, a unit at a time, then forgets them. A short last unit ("on)",
 * "7)") does not go to a line of its own: the unit before it goes along. */
static void flow_paragraph(help_flow *h, help_words *p, int indent) {
    for (int i = 0; i < p->n;) {
        int end = unit_end(p, i), w = unit_width(p, i, end);
        if (h->words && end < p->n && unit_end(p, end) == p->n) {
            int last = unit_width(p, end, p->n);
            if (last <= 4 && h->col + 1 + w <= h->width && h->col + 2 + w + last > h->width &&
                indent + w + 1 + last <= h->width)
                flow_end(h);
        }
        if (h->words && h->col + 1 + w > h->width && indent + w <= h->width) flow_end(h);
        for (; i < end; i++) flow_word(h, p->at[i], p->len[i], indent);
    }
    p->n = 0;
}

/* Adds the words of one line (len characters) to p. A `quoted command` is one word. */
static void add_words(help_flow *h, help_words *p, const char *line, int len, int indent) {
    for (int i = 0; i < len;) {
        while (i < len && line[i] == ' ') i++;
        int j = i, quoted = 0;
        for (; j < len && (quoted || line[j] != ' '); j++) quoted ^= line[j] == '`';
        if (j == i) break;
        if (p->n == HELP_MAX_WORDS) flow_paragraph(h, p, indent);
        p->at[p->n] = line + i;
        p->len[p->n++] = j - i;
        i = j;
    }
}

/* Text reflowed with continuation lines at column indent (see above). */
static void flow_text(help_flow *h, const char *text, int indent) {
    help_words p = {.n = 0};
    for (const char *line = text; *line;) {
        int len = (int)strcspn(line, "\n"), lead = (int)strspn(line, " ");
        const char *next = line[len] ? line + len + 1 : line + len;
        if (lead < len && !lead) {
            int usage = !strncmp(line, "usage: ", 7); /* continued under its program */
            if (usage) {
                flow_paragraph(h, &p, indent);
                flow_end(h);
                h->col = fprintf(h->out, "%*s", indent, "");
                h->blank = 0;
            }
            add_words(h, &p, line, len, indent);
            if (usage || (line[len] && line[len - 1] == ':')) {
                flow_paragraph(h, &p, indent + (usage ? 9 : 0));
                flow_end(h);
            }
        } else {
            flow_paragraph(h, &p, indent);
            flow_end(h);
            if (lead == len) {
                flow_blank(h);
            } else if (indent + len <= h->width) { /* as written, its spacing too */
                h->col = fprintf(h->out, "%*s%.*s", indent, "", len, line);
                h->words = 1;
                h->blank = 0;
            } else { /* wrapped, continued under its second column, or 2 further in */
                const char *gap = strstr(line + lead, "  ");
                int head =
                        gap && gap < line + len ? (int)(gap - line) + (int)strspn(gap, " ") : lead,
                    more = head > lead ? head : lead + 2;
                h->col = fprintf(h->out, "%*s%.*s", indent, "", head, line);
                add_words(h, &p, line + head, len - head, indent + more);
                flow_paragraph(h, &p, indent + more);
            }
            flow_end(h);
        }
        line = next;
    }
    flow_paragraph(h, &p, indent);
}

/* One option of the help: the left column, then its text and the default the command states,
 * reflowed from HELP_COLUMN. */
static void help_line(help_flow *h, const char *left, const char *help, const char *dflt) {
    flow_end(h);
    h->col = fprintf(h->out, "  %-*s", HELP_COLUMN - 3, left);
    h->col += fprintf(h->out, h->col < HELP_COLUMN ? " " : "  ");
    h->blank = 0;
    char text[4096];
    snprintf(text, sizeof text, "%s%s", help, dflt);
    flow_text(h, text, HELP_COLUMN);
    flow_end(h);
}

void app_text_wrap(FILE *out, const char *text, int width) {
    help_flow h = {out, width, -1, 0, 1};
    flow_text(&h, text, 0);
    flow_end(&h);
}

void app_help_text(FILE *out, const char *text) {
    app_text_wrap(out, text, HELP_WIDTH);
}

/* An option as the help shows it: "-o, --output PAT", "--steps K", "-k K". */
static const char *left_column(char *buf, size_t size, int letter, const char *name,
                               const char *meta) {
    int len = 0;
    if (letter && strlen(name) == 1)
        len = snprintf(buf, size, "-%c", letter);
    else if (letter)
        len = snprintf(buf, size, "-%c, --%s", letter, name);
    else
        len = snprintf(buf, size, "--%s", name);
    if (meta) snprintf(buf + len, size - (size_t)len, " %s", meta);
    return buf;
}

static const char *group_heading(unsigned group, int deterministic, char *buf, size_t size) {
    switch (group) {
    case APP_PARAMS:
        return "Parameters (applied in this order):";
    case APP_LOAD:
        return "Initial state:";
    case APP_GPU_MODE:
        snprintf(buf, size, "GPU mode (default here: %s):",
                 deterministic > 0    ? "--deterministic"
                 : deterministic == 0 ? "--fast"
                                      : "both, as the gpu-det and gpu backends");
        return buf;
    case APP_VERBOSE:
        return "Diagnostics:";
    default:
        return "Backend:";
    }
}

/* The default a command states for a shared option, as " (default ...)", or "". */
static void shared_default(const app_command *cmd, int id, char *buf, size_t size) {
    buf[0] = '\0';
    if (id == OPT_PRESET) snprintf(buf, size, " (default %s)", cmd->preset ? cmd->preset : "lab");
    if (id == 'n' && cmd->count) snprintf(buf, size, " (default %ld)", cmd->count);
    if (id == 'n' && !cmd->count) snprintf(buf, size, " (default: the preset's)");
    if (id == OPT_SEED) snprintf(buf, size, " (default %llu)", (unsigned long long)cmd->seed);
    if (id == OPT_BACKEND) snprintf(buf, size, " (default %s)", cmd->backend);
}

void app_help(FILE *out, const app_command *cmd, const app_option *own, size_t n) {
    help_flow h = {out, HELP_WIDTH, -1, 0, 1};
    flow_text(&h, cmd->synopsis, 0);
    for (size_t i = 0; i < n; i++) {
        const app_option *op = &own[i];
        char left[64];
        if (op->kind == APP_SECTION) {
            flow_end(&h);
            flow_text(&h, op->name, 0);
        } else {
            help_line(&h, left_column(left, sizeof left, op->letter, op->name, op->meta), op->help,
                      "");
        }
    }
    help_line(&h, "-h, --help", "this text", "");
    if (cmd->notes) flow_text(&h, cmd->notes, 0);
    if (cmd->shared) flow_blank(&h);
    unsigned last = 0;
    for (size_t i = 0; i < NSHARED; i++) {
        const shared_option *s = &shared[i];
        if (!(cmd->shared & s->group)) continue;
        char hbuf[96], dflt[64];
        unsigned heading = s->group == APP_THREADS ? APP_BACKEND : s->group; /* one heading */
        if (heading != last) {
            flow_end(&h);
            flow_text(&h, group_heading(heading, cmd->deterministic, hbuf, sizeof hbuf), 0);
        }
        last = heading;
        shared_default(cmd, s->id, dflt, sizeof dflt);
        char left[64];
        left_column(left, sizeof left, s->id < 128 ? s->id : 0, s->name, s->meta);
        help_line(&h, left, s->help, dflt);
    }
    flow_end(&h);
}

int app_fail(const boids_error *err) {
    fprintf(stderr, "boids: %s\n", err->msg);
    return boids_status_exit_code(err->status);
}
