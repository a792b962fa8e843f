/* boids-bench: time per step of every backend over a sweep of flock sizes.
 *
 * The sweep runs size by size and, within a size, backend by backend, so that a change in
 * the machine's load during the run spreads over all backends instead of biasing one.
 * Points that cannot finish in reasonable time or do not fit are skipped with the reason;
 * nothing here is a pass/fail test. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#if BOIDS_BENCH_GPU
#include "boids/gpu.h"
#endif

#include "bench.h"
#include "boids/atomic_file.h"
#include "cli.h"
#include "cpu_grid.h"

static const char usage[] =
    "usage: boids-bench [OPTIONS]\n"
    "Times every backend over a sweep of flock sizes; prints a table, writes bench.csv,\n"
    "bench.json, bench.gp and SVG plots (when gnuplot is on PATH) into --out.\n"
    "\n"
    "Sweep:\n"
    "  -N, --sizes LIST     boid counts, comma separated, k/M/G suffixes allowed\n"
    "                       (default 1k,10k,100k,1M)\n"
    "  --backends LIST      any of cpu-ref,cpu-1t,cpu-all,gpu,gpu-det (default: all)\n"
    "  --fixed-world        keep the preset's world for every N (default: keep its density,\n"
    "                       boids per area, and grow the world with N at the same aspect)\n"
    "  --threads T          threads of cpu-all (default: all, OpenMP's default)\n"
    "  --age K              advance the random initial state K steps (cpu path) before timing,\n"
    "                       to time formed flocks: more neighbours per boid (default 0)\n"
    "Timing:\n"
    "  --reps R             timed repetitions per point (default 7; 3..100)\n"
    "  --warmup W           untimed repetitions before them (default 2)\n"
    "  --rep-ms MS          target length of one repetition (default 200)\n"
    "  --max-steps K        at most K steps per repetition (default 30): each repetition\n"
    "                       restarts from the initial state, so this bounds how far the\n"
    "                       flock evolves while being timed\n"
    "  --stage-timer HOW    GPU stage times from: gl (GL_TIME_ELAPSED queries), fenced\n"
    "                       (glFinish around each stage, CPU clock), auto (gl unless its\n"
    "                       stages sum to under 2 us and 5% of the wall time, as on llvmpipe;\n"
    "                       default)\n"
    "  --budget S           skip a point whose estimated time exceeds S seconds (default 120)\n"
    "  --quick              seconds-long harness check: 500 and 2000 boids, 3 reps, 1 warm-up,\n"
    "                       short repetitions (explicit flags still win)\n"
    "Output:\n"
    "  --out DIR            folder for the files (created; default .)\n"
    "  --no-plot            do not write bench.gp or run gnuplot\n"
    "  --plot-format F      svg (default) or png\n"
    "Parameters (as in `boids sim`):\n"
    "  --preset NAME        classic, lab (default), flock, school, swarm, chaos\n"
    "  --config FILE        INI file of key = value lines\n"
    "  --set KEY=VALUE      set one parameter (repeatable); `boids params` lists them\n"
    "  --seed S             random initial state (default 0)\n"
    "  -h, --help           this text\n"
    "Exit status: 0 done (skipped points are not failures), 1 a run or a write failed,\n"
    "2 bad usage.\n";

enum {
    OPT_SIZES = OPT_FIRST_FREE,
    OPT_BACKENDS,
    OPT_FIXED_WORLD,
    OPT_REPS,
    OPT_WARMUP,
    OPT_REP_MS,
    OPT_MAX_STEPS,
    OPT_BUDGET,
    OPT_QUICK,
    OPT_OUT,
    OPT_NO_PLOT,
    OPT_BENCH_THREADS,
    OPT_STAGE_TIMER,
    OPT_PLOT_FORMAT,
    OPT_AGE
};

static int fail(const boids_error *err) {
    fprintf(stderr, "boids-bench: %s\n", err->msg);
    return boids_status_exit_code(err->status);
}

static int usage_error(const char *fmt, const char *arg) {
    fprintf(stderr, "boids-bench: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, " (see boids-bench --help)\n");
    return 2;
}

/* "1k,10k,2.5M": positive counts up to 1e9, sorted and without repeats. */
static boids_status parse_sizes(const char *text, bench_config *c, boids_error *err) {
    c->nsizes = 0;
    const char *s = text;
    while (*s) {
        char *end;
        errno = 0;
        double v = strtod(s, &end);
        if (end == s || errno == ERANGE)
            return boids_error_set(err, BOIDS_ERR_INPUT, "--sizes: '%s' is not a list of counts",
                                   text);
        double mult = 1.0;
        if (*end == 'k' || *end == 'K')
            mult = 1e3, end++;
        else if (*end == 'M' || *end == 'm')
            mult = 1e6, end++;
        else if (*end == 'G' || *end == 'g')
            mult = 1e9, end++;
        v *= mult;
        if (*end != ',' && *end != '\0')
            return boids_error_set(err, BOIDS_ERR_INPUT,
                                   "--sizes: bad entry in '%s' (use e.g. 1k,10k,100k,1M)", text);
        if (!(v >= 1.0 && v <= 1e9) || v != floor(v))
            return boids_error_set(err, BOIDS_ERR_INPUT,
                                   "--sizes: %.17g is not a whole count in [1, 1e9]", v);
        if (c->nsizes == (int)(sizeof c->sizes / sizeof c->sizes[0]))
            return boids_error_set(err, BOIDS_ERR_INPUT, "--sizes: more than %d sizes",
                                   (int)(sizeof c->sizes / sizeof c->sizes[0]));
        c->sizes[c->nsizes++] = (size_t)v;
        s = *end == ',' ? end + 1 : end;
        if (*end == ',' && *s == '\0')
            return boids_error_set(err, BOIDS_ERR_INPUT, "--sizes: '%s' ends with a comma", text);
    }
    if (!c->nsizes) return boids_error_set(err, BOIDS_ERR_INPUT, "--sizes: empty list");
    for (int i = 1; i < c->nsizes; i++)
        for (int j = i; j > 0 && c->sizes[j] < c->sizes[j - 1]; j--) {
            size_t t = c->sizes[j];
            c->sizes[j] = c->sizes[j - 1];
            c->sizes[j - 1] = t;
        }
    int k = 1;
    for (int i = 1; i < c->nsizes; i++)
        if (c->sizes[i] != c->sizes[k - 1]) c->sizes[k++] = c->sizes[i];
    c->nsizes = k;
    return BOIDS_OK;
}

static boids_status parse_backends(const char *text, bench_config *c, boids_error *err) {
    memset(c->enabled, 0, sizeof c->enabled);
    const char *s = text;
    while (*s) {
        size_t len = strcspn(s, ",");
        int found = 0;
        for (int b = 0; b < BENCH_BACKENDS; b++) {
            const char *name = bench_backend_name((bench_backend)b);
            if (strlen(name) == len && strncmp(s, name, len) == 0) c->enabled[b] = found = 1;
        }
        if (!found)
            return boids_error_set(err, BOIDS_ERR_INPUT,
                                   "--backends: unknown backend '%.*s' (cpu-ref, cpu-1t, "
                                   "cpu-all, gpu, gpu-det)",
                                   (int)len, s);
        s += len;
        if (*s == ',') s++;
    }
    for (int b = 0; b < BENCH_BACKENDS; b++)
        if (c->enabled[b]) return BOIDS_OK;
    return boids_error_set(err, BOIDS_ERR_INPUT, "--backends: empty list");
}

static boids_status parse_double(const char *flag, const char *text, double lo, double hi,
                                 double *out, boids_error *err) {
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    if (end == text || *end != '\0' || errno == ERANGE || !(v >= lo && v <= hi))
        return boids_error_set(err, BOIDS_ERR_INPUT, "%s: '%s' is not a number in [%g, %g]", flag,
                               text, lo, hi);
    *out = v;
    return BOIDS_OK;
}

/* mkdir -p. */
static boids_status make_dir(const char *path, boids_error *err) {
    char buf[4096];
    if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf)
        return boids_error_set(err, BOIDS_ERR_INPUT, "--out: path too long");
    for (char *p = buf + 1;; p++) {
        if (*p == '/' || *p == '\0') {
            char c = *p;
            *p = '\0';
            if (mkdir(buf, 0777) != 0 && errno != EEXIST)
                return boids_error_set(err, BOIDS_ERR_INPUT, "--out %s: cannot create %s: %s", path,
                                       buf, strerror(errno));
            *p = c;
            if (!c) break;
        }
    }
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode))
        return boids_error_set(err, BOIDS_ERR_INPUT, "--out %s: not a folder", path);
    if (access(path, W_OK) != 0)
        return boids_error_set(err, BOIDS_ERR_INPUT, "--out %s: not writable", path);
    return BOIDS_OK;
}

/* The parameters of a point: N boids, and the world scaled to keep the density. */
static void scale_params(const bench_config *c, size_t n, boids_params *p) {
    *p = c->base;
    p->count = (long)n;
    if (c->fixed_world) return;
    double k = sqrt((double)n / (c->density * c->base.width * c->base.height));
    p->width = c->base.width * k;
    p->height = c->base.height * k;
    /* Positions given relative to the world move with it. */
    p->predator_x *= k, p->predator_y *= k, p->food_x *= k, p->food_y *= k;
}

/* Cells of the grid the CPU path builds: as many whole cells of at least the vision
 * radius as fit, as DESIGN.md prescribes (used only by the byte model). */
static void model_grid(const boids_params *p, unsigned *ncx, unsigned *ncy) {
    double cx = floor(p->width / p->vision_radius), cy = floor(p->height / p->vision_radius);
    *ncx = cx < 1 ? 1 : cx > 65535 ? 65535 : (unsigned)cx;
    *ncy = cy < 1 ? 1 : cy > 65535 ? 65535 : (unsigned)cy;
}

/* Host bytes a point needs besides the shared initial flock: the backend's working state. */
static double host_bytes(bench_backend b, size_t n) {
    switch (b) {
    case BENCH_CPU_REF:
        return 96.0 * (double)n; /* double state and its snapshot, with slack */
    case BENCH_CPU_1T:
    case BENCH_CPU_ALL:
        return 64.0 * (double)n; /* two float states + ids + cells, with slack */
    default:
        return 48.0 * (double)n; /* driver staging copies of the state */
    }
}

/* Mean neighbours per boid of the initial state, from the cpu backend's neighbour hook
 * (-1 if it is missing or fails): the workload a point's time should be read against. */
static double mean_neighbours(const boids_params *p, const boids_flock *f, int threads) {
    boids_error err;
    boids_backend *b = boids_cpu_create(f, threads, &err);
    if (!b) return -1.0;
    double mean = -1.0;
    uint32_t *count = malloc(f->n * sizeof *count);
    uint64_t *hash = malloc(f->n * sizeof *hash);
    if (count && hash && b->ops->neighbours &&
        b->ops->neighbours(b, p, count, hash, &err) == BOIDS_OK) {
        double sum = 0.0;
        for (size_t i = 0; i < f->n; i++) sum += count[i];
        mean = sum / (double)f->n;
    }
    free(count);
    free(hash);
    boids_backend_destroy(b);
    return mean;
}

/* Advances f by steps steps on the cpu path: every backend then starts from the same formed
 * flock. */
static boids_status age_flock(const boids_params *p, boids_flock *f, int threads,
                              unsigned long steps, boids_error *err) {
    boids_backend *b = boids_cpu_create(f, threads, err);
    if (!b) return err->status;
    boids_status s = BOIDS_OK;
    for (unsigned long done = 0; !s && done < steps; done += 1000)
        s = boids_backend_step(b, p, (unsigned)(steps - done < 1000 ? steps - done : 1000), err);
    if (!s) s = boids_backend_download(b, f, err);
    boids_backend_destroy(b);
    return s;
}

/* Fills the derived columns once every point is known. */
static void derive(const bench_config *c, bench_point *pts, size_t npts) {
    static const bench_backend against[3] = {BENCH_CPU_1T, BENCH_CPU_ALL, BENCH_CPU_REF};
    for (size_t i = 0; i < npts; i++) {
        bench_point *p = &pts[i];
        p->ns_per_boid_step = p->boid_steps_per_s = p->exponent = NAN;
        p->bytes_per_step = p->gbytes_per_s = NAN;
        for (int k = 0; k < 3; k++) p->speedup[k] = NAN;
        if (p->state != BENCH_OK) continue;
        double t = p->ms.median * 1e-3;
        p->ns_per_boid_step = 1e9 * t / (double)p->n;
        p->boid_steps_per_s = (double)p->n / t;
        for (int k = 0; k < 3; k++)
            for (size_t j = 0; j < npts; j++)
                if (pts[j].backend == against[k] && pts[j].n == p->n && pts[j].state == BENCH_OK)
                    p->speedup[k] = pts[j].ms.median / p->ms.median;
        /* The previous measured N of the same backend (points are in sweep order). */
        for (size_t j = i; j-- > 0;)
            if (pts[j].backend == p->backend && pts[j].state == BENCH_OK && pts[j].n < p->n) {
                p->exponent =
                    log(p->ms.median / pts[j].ms.median) / log((double)p->n / (double)pts[j].n);
                break;
            }
        p->bytes_per_step =
            bench_bytes_per_step(p->backend, p->n, (size_t)p->ncx * p->ncy, p->threads);
        p->gbytes_per_s = p->bytes_per_step / t * 1e-9;
    }
    (void)c;
}

/* bench.csv and bench.json in the output folder. */
static boids_status write_data(const bench_config *c, const bench_machine *m,
                               const bench_point *pts, size_t npts, const char *note,
                               boids_error *err) {
    char path[4096];
    snprintf(path, sizeof path, "%s/bench.csv", c->out);
    boids_status s = bench_write_csv(path, pts, npts, err);
    snprintf(path, sizeof path, "%s/bench.json", c->out);
    if (!s) s = bench_write_json(path, c, m, pts, npts, note, err);
    return s;
}

int main(int argc, char **argv) {
    static const struct option longopts[] = {
        {"preset", required_argument, NULL, OPT_PRESET},
        {"config", required_argument, NULL, OPT_CONFIG},
        {"set", required_argument, NULL, OPT_SET},
        {"seed", required_argument, NULL, OPT_SEED},
        {"sizes", required_argument, NULL, 'N'},
        {"backends", required_argument, NULL, OPT_BACKENDS},
        {"fixed-world", no_argument, NULL, OPT_FIXED_WORLD},
        {"threads", required_argument, NULL, OPT_BENCH_THREADS},
        {"reps", required_argument, NULL, OPT_REPS},
        {"warmup", required_argument, NULL, OPT_WARMUP},
        {"rep-ms", required_argument, NULL, OPT_REP_MS},
        {"max-steps", required_argument, NULL, OPT_MAX_STEPS},
        {"budget", required_argument, NULL, OPT_BUDGET},
        {"quick", no_argument, NULL, OPT_QUICK},
        {"age", required_argument, NULL, OPT_AGE},
        {"stage-timer", required_argument, NULL, OPT_STAGE_TIMER},
        {"out", required_argument, NULL, OPT_OUT},
        {"no-plot", no_argument, NULL, OPT_NO_PLOT},
        {"plot-format", required_argument, NULL, OPT_PLOT_FORMAT},
        {"help", no_argument, NULL, 'h'},
        {0, 0, 0, 0}};
    boids_atomic_cleanup_on_signals(); /* an interrupted sweep leaves no temporary files */
    app_opts o;
    app_opts_init(&o);
    bench_config c;
    memset(&c, 0, sizeof c);
    c.out = ".";
    c.plot = 1;
    for (int b = 0; b < BENCH_BACKENDS; b++) c.enabled[b] = 1;
    /* Explicit values, -1 / NAN until given, so that --quick can fill in the rest. */
    long reps = -1, warmup = -1, max_steps = -1;
    double rep_ms = NAN, budget = NAN;
    const char *sizes = NULL;
    boids_error err;
    boids_error_clear(&err);
    int ch;
    opterr = 0;
    while ((ch = getopt_long(argc, argv, ":N:h", longopts, NULL)) != -1) {
        int r = app_opts_parse(&o, ch, optarg, &err);
        if (r < 0) return fail(&err);
        if (r) continue;
        long v;
        boids_status s = BOIDS_OK;
        switch (ch) {
        case 'N':
            sizes = optarg;
            break;
        case OPT_BACKENDS:
            s = parse_backends(optarg, &c, &err);
            break;
        case OPT_FIXED_WORLD:
            c.fixed_world = 1;
            break;
        case OPT_BENCH_THREADS:
            if (!(s = app_parse_long("--threads", optarg, 1, 4096, &v, &err))) c.threads = (int)v;
            break;
        case OPT_REPS:
            s = app_parse_long("--reps", optarg, 3, BENCH_MAX_REPS, &reps, &err);
            break;
        case OPT_WARMUP:
            s = app_parse_long("--warmup", optarg, 0, 100, &warmup, &err);
            break;
        case OPT_MAX_STEPS:
            s = app_parse_long("--max-steps", optarg, 1, 100000, &max_steps, &err);
            break;
        case OPT_REP_MS:
            s = parse_double("--rep-ms", optarg, 0.0, 1e6, &rep_ms, &err);
            break;
        case OPT_BUDGET:
            s = parse_double("--budget", optarg, 0.0, 1e7, &budget, &err);
            break;
        case OPT_AGE:
            if (!(s = app_parse_long("--age", optarg, 0, 10000000L, &v, &err)))
                c.age = (unsigned long)v;
            break;
        case OPT_QUICK:
            c.quick = 1;
            break;
        case OPT_STAGE_TIMER:
            if (!strcmp(optarg, "auto"))
                c.stage_timer = BENCH_TIMER_AUTO;
            else if (!strcmp(optarg, "gl"))
                c.stage_timer = BENCH_TIMER_GL;
            else if (!strcmp(optarg, "fenced"))
                c.stage_timer = BENCH_TIMER_FENCED;
            else
                s = boids_error_set(&err, BOIDS_ERR_INPUT,
                                    "--stage-timer: '%s' is not one of auto, gl, fenced", optarg);
            break;
        case OPT_OUT:
            c.out = optarg;
            break;
        case OPT_PLOT_FORMAT:
            if (!strcmp(optarg, "svg") || !strcmp(optarg, "png"))
                c.plot_png = !strcmp(optarg, "png");
            else
                s = boids_error_set(&err, BOIDS_ERR_INPUT, "--plot-format: '%s' is not svg or png",
                                    optarg);
            break;
        case OPT_NO_PLOT:
            c.plot = 0;
            break;
        case 'h':
            fputs(usage, stdout);
            return 0;
        case ':':
            return usage_error("%s needs a value", argv[optind - 1]);
        default:
            return usage_error("unknown option '%s'", argv[optind - 1]);
        }
        if (s) return fail(&err);
    }
    if (optind < argc) return usage_error("unexpected argument '%s'", argv[optind]);

    if (parse_sizes(sizes ? sizes : c.quick ? "500,2000" : "1k,10k,100k,1M", &c, &err))
        return fail(&err);
    c.reps = (unsigned)(reps > 0 ? reps : c.quick ? 3 : 7);
    c.warmup = (unsigned)(warmup >= 0 ? warmup : c.quick ? 1 : 2);
    c.max_steps = (unsigned)(max_steps > 0 ? max_steps : c.quick ? 5 : 30);
    c.rep_ms = !isnan(rep_ms) ? rep_ms : c.quick ? 5.0 : 200.0;
    c.budget_s = !isnan(budget) ? budget : c.quick ? 2.0 : 120.0;
    c.preset = o.preset;
    c.seed = o.seed;
    if (app_params(&o, &c.base, &err)) return fail(&err);
    c.density = (double)c.base.count / (c.base.width * c.base.height);
    if (make_dir(c.out, &err)) return fail(&err);

    bench_machine m;
    bench_machine_fill(&m);
#if BOIDS_BENCH_GPU
    /* One context for the whole sweep, current on this thread: every GPU instance is made
     * on it (boids_gpu_create with gl NULL), and its limits are known before sizing. */
    boids_gl *gl = NULL;
    if (c.enabled[BENCH_GPU] || c.enabled[BENCH_GPU_DET]) {
        gl = boids_gl_create(0, &err);
        if (gl) {
            snprintf(m.gl_renderer, sizeof m.gl_renderer, "%s", boids_gl_renderer(gl));
            snprintf(m.gl_version, sizeof m.gl_version, "%s", boids_gl_version(gl));
            snprintf(m.gl_platform, sizeof m.gl_platform, "%s", boids_gl_platform(gl));
            m.gpu_max_n = boids_gpu_max_count(m.gpu_max_why, sizeof m.gpu_max_why);
        } else {
            snprintf(m.gpu_note, sizeof m.gpu_note, "no GL 4.3 context: %.300s", err.msg);
        }
    }
#else
    snprintf(m.gpu_note, sizeof m.gpu_note, "built without the GPU backend");
#endif

    size_t cap = (size_t)c.nsizes * BENCH_BACKENDS, npts = 0;
    bench_point *pts = calloc(cap, sizeof *pts);
    if (!pts) {
        boids_error_set(&err, BOIDS_ERR_NOMEM, "out of memory");
        return fail(&err);
    }
    /* Why each backend stopped, once it has: larger N are skipped for the same reason. */
    char stopped[BENCH_BACKENDS][1024] = {{0}};
    int all_threads = c.threads > 0 ? c.threads : m.cpu_threads;

    for (int si = 0; si < c.nsizes; si++) {
        size_t n = c.sizes[si];
        boids_params p;
        scale_params(&c, n, &p);
        boids_error perr;
        boids_status ps = boids_params_validate(&p, &perr);
        boids_flock init = {0};
        if (!ps) ps = boids_flock_alloc(&init, n, &perr);
        if (!ps) boids_flock_randomize(&init, &p, c.seed);
        if (!ps && c.age) ps = age_flock(&p, &init, c.threads, c.age, &perr);
        double nbrs = ps ? -1.0 : mean_neighbours(&p, &init, c.threads);
        unsigned ncx, ncy;
        model_grid(&p, &ncx, &ncy);
        for (int b = 0; b < BENCH_BACKENDS; b++) {
            if (!c.enabled[b]) continue;
            bench_point *pt = &pts[npts++];
            pt->backend = (bench_backend)b;
            pt->n = n;
            pt->width = p.width;
            pt->height = p.height;
            pt->nbrs = nbrs;
            pt->ncx = ncx;
            pt->ncy = ncy;
            pt->state = BENCH_SKIPPED;
            pt->threads = b == BENCH_CPU_ALL                  ? all_threads
                          : bench_backend_is_gpu(pt->backend) ? 0
                                                              : 1;
            if (ps) {
                snprintf(pt->reason, sizeof pt->reason, "N=%zu does not fit the parameters: %.500s",
                         n, perr.msg);
                continue;
            }
            if (stopped[b][0]) {
                memcpy(pt->reason, stopped[b], sizeof pt->reason);
                continue;
            }
            if (bench_backend_is_gpu(pt->backend)) {
                if (m.gpu_note[0]) {
                    snprintf(pt->reason, sizeof pt->reason, "%s", m.gpu_note);
                    continue;
                }
                if (n > m.gpu_max_n) {
                    snprintf(stopped[b], sizeof stopped[b],
                             "the GPU holds at most %zu boids (limit: %s)", m.gpu_max_n,
                             m.gpu_max_why);
                    memcpy(pt->reason, stopped[b], sizeof pt->reason);
                    continue;
                }
            }
            double need = host_bytes(pt->backend, n), avail = bench_mem_available();
            if (avail > 0.0 && need > 0.8 * avail) {
                snprintf(stopped[b], sizeof stopped[b],
                         "from N=%zu: needs about %.1f GiB of host memory, %.1f GiB available", n,
                         need / 1073741824.0, avail / 1073741824.0);
                memcpy(pt->reason, stopped[b], sizeof pt->reason);
                continue;
            }
            /* Time estimate from this backend's previous point: O(N^2) for the reference,
             * at least linear for the others. A point costs warm-up + reps + calibration
             * repetitions of at least one step (plus one settling step each). */
            const bench_point *prev = NULL;
            for (size_t j = npts - 1; j-- > 0;)
                if (pts[j].backend == pt->backend && pts[j].state == BENCH_OK) {
                    prev = &pts[j];
                    break;
                }
            if (prev) {
                double e = pt->backend == BENCH_CPU_REF                     ? 2.0
                           : !isnan(prev->exponent) && prev->exponent > 1.0 ? prev->exponent
                                                                            : 1.0;
                double step_s = prev->ms.median * 1e-3 * pow((double)n / (double)prev->n, e);
                double min_s = step_s * 2.0 * (3 + 1 + 1);
                if (min_s > c.budget_s) {
                    snprintf(stopped[b], sizeof stopped[b],
                             "from N=%zu: estimated %.3g s per step (N^%.2g from %.3g ms at "
                             "N=%zu), at least %.0f s for the point > --budget %g s",
                             n, step_s, e, prev->ms.median, prev->n, min_s, c.budget_s);
                    memcpy(pt->reason, stopped[b], sizeof pt->reason);
                    continue;
                }
            }
            fprintf(stderr, "boids-bench: %-8s N=%zu ...", bench_backend_name(pt->backend), n);
            fflush(stderr);
            double load[3];
            bench_loadavg(load);
            pt->load1 = load[0];
            pt->state = BENCH_OK;
            pt->reason[0] = '\0';
            bench_measure(&c, pt, &p, &init);
            if (pt->state == BENCH_OK) {
                fprintf(stderr, " %.4g ms/step (%u reps of %u steps)\n", pt->ms.median, pt->reps,
                        pt->steps_per_rep);
            } else {
                fprintf(stderr, " failed: %s\n", pt->reason);
                snprintf(stopped[b], sizeof stopped[b], "N=%zu failed before: %.900s", n,
                         pt->reason);
            }
            /* The files so far, after every point: a sweep killed by a time limit (a lent
             * GPU machine) still leaves what it measured. */
            bench_loadavg(m.load_end);
            derive(&c, pts, npts);
            if (write_data(&c, &m, pts, npts, "plot pending: sweep not finished", &err))
                fprintf(stderr, "boids-bench: %s\n", err.msg);
        }
        boids_flock_free(&init);
    }
    {
        /* The neighbour kernel of the cpu path, for the record. */
        boids_flock one;
        if (!boids_flock_alloc(&one, 1, &err)) {
            boids_backend *b = boids_cpu_create(&one, 1, &err);
            const char *k = b ? boids_cpu_kernel_name(b) : NULL;
            snprintf(m.cpu_kernel, sizeof m.cpu_kernel, "%s", k ? k : "unknown");
            boids_backend_destroy(b);
            boids_flock_free(&one);
        }
    }
#if BOIDS_BENCH_GPU
    boids_gl_destroy(gl);
#endif
    bench_loadavg(m.load_end);
    derive(&c, pts, npts);
    bench_print_table(&c, &m, pts, npts);

    char path[4096], note[512] = "plot not requested (--no-plot)";
    int rc = 0;
    snprintf(path, sizeof path, "%s/bench.csv", c.out);
    if (bench_write_csv(path, pts, npts, &err)) rc = fail(&err);
    if (c.plot && bench_plot(c.out, &c, &m, pts, npts, note, sizeof note, &err)) rc = fail(&err);
    snprintf(path, sizeof path, "%s/bench.json", c.out);
    if (bench_write_json(path, &c, &m, pts, npts, note, &err)) rc = fail(&err);
    if (!rc) fprintf(stderr, "boids-bench: wrote %s/bench.csv, bench.json; %s\n", c.out, note);
    free(pts);
    /* The table on stdout is output too: lost (a full disk), the run failed. */
    if ((fflush(stdout) != 0 || ferror(stdout)) && !rc) {
        fprintf(stderr, "boids-bench: writing to stdout failed\n");
        rc = 1;
    }
    return rc;
}
