#include "cli.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "boids/gpu.h"
#include "boids/state_io.h"

const char app_common_help[] =
    "Parameters (applied in this order):\n"
    "  --preset NAME      classic, lab (default), flock, school, swarm, chaos, vicsek\n"
    "  --config FILE      INI file of key = value lines\n"
    "  -n, --count N      number of boids\n"
    "  --model M          reynolds or vicsek (same as --set model=M)\n"
    "  --neighbours R     metric or topological (same as --set neighbours=R)\n"
    "  -k K               topological: nearest neighbours (same as --set k=K; default 7)\n"
    "  --set KEY=VALUE    set one parameter (repeatable, applied last); `boids params` lists them\n"
    "Initial state:\n"
    "  --seed S           random initial state as Python's random.Random(S) (default 0)\n"
    "  --load FILE        state CSV (x,y,vx,vy); N comes from the file\n"
    "Backend:\n"
    "  --backend NAME     cpu-ref (exact, O(N^2)), cpu (grid, OpenMP), gpu (OpenGL compute)\n"
    "  --threads T        cpu: number of threads (default: all)\n"
    "  --deterministic    gpu: bit-reproducible order within cells (default)\n"
    "  --fast             gpu: skip the per-cell sort (not reproducible run to run)\n"
    "  -v, --verbose      diagnostics on stderr (renderer, timings); -vv: gpu with a GL debug\n"
    "                     context, any GL error or high-severity message fails the run\n";

void app_opts_init(app_opts *o) {
    memset(o, 0, sizeof *o);
    o->backend = "cpu-ref";
    o->deterministic = -1;
}

boids_status app_parse_long(const char *flag, const char *text, long lo, long hi, long *out,
                            boids_error *err) {
    char *end;
    errno = 0;
    long long v = strtoll(text, &end, 10);
    if (end == text || *end != '\0')
        return boids_error_set(err, BOIDS_ERR_INPUT, "%s: '%s' is not an integer", flag, text);
    if (errno == ERANGE || v < lo || v > hi)
        return boids_error_set(err, BOIDS_ERR_INPUT, "%s: %s is out of range [%ld, %ld]", flag,
                               text, lo, hi);
    *out = (long)v;
    return BOIDS_OK;
}

int app_opts_parse(app_opts *o, int opt, const char *arg, boids_error *err) {
    long v;
    switch (opt) {
    case OPT_PRESET:
        o->preset = arg;
        return 1;
    case OPT_CONFIG:
        o->config = arg;
        return 1;
    case OPT_SET:
        if (o->nsets == APP_MAX_SETS) {
            boids_error_set(err, BOIDS_ERR_INPUT, "--set: more than %d pairs", APP_MAX_SETS);
            return -1;
        }
        if (!strchr(arg, '=')) {
            boids_error_set(err, BOIDS_ERR_INPUT, "--set %s: expected KEY=VALUE", arg);
            return -1;
        }
        o->sets[o->nsets++] = arg;
        return 1;
    case 'n':
        if (app_parse_long("--count", arg, 1, 1000000000L, &v, err)) return -1;
        o->count = v;
        return 1;
    case OPT_SEED: {
        char *end;
        errno = 0;
        unsigned long long s = strtoull(arg, &end, 10);
        if (end == arg || *end != '\0' || arg[0] == '-' || errno == ERANGE) {
            boids_error_set(err, BOIDS_ERR_INPUT,
                            "--seed: '%s' is not an integer in [0, 18446744073709551615]", arg);
            return -1;
        }
        o->seed = s;
        return 1;
    }
    case OPT_BACKEND:
        if (strcmp(arg, "cpu-ref") && strcmp(arg, "cpu") && strcmp(arg, "gpu")) {
            boids_error_set(err, BOIDS_ERR_INPUT,
                            "--backend: unknown backend '%s' (cpu-ref, cpu, gpu)", arg);
            return -1;
        }
        o->backend = arg;
        return 1;
    case OPT_THREADS:
        if (app_parse_long("--threads", arg, 1, 4096, &v, err)) return -1;
        o->threads = (int)v;
        return 1;
    case OPT_DETERMINISTIC:
        o->deterministic = 1;
        return 1;
    case OPT_NONDETERMINISTIC:
        o->deterministic = 0;
        return 1;
    case OPT_LOAD:
        o->load = arg;
        return 1;
    case OPT_MODEL:
        o->model = arg;
        return 1;
    case OPT_NEIGHBOURS:
        o->neighbours = arg;
        return 1;
    case 'k':
        o->k = arg;
        return 1;
    case 'v':
        o->verbose++;
        return 1;
    }
    return 0;
}

boids_status app_params(const app_opts *o, boids_params *p, boids_error *err) {
    *p = boids_params_default();
    boids_status s;
    if (o->preset && (s = boids_preset_apply(p, o->preset, err))) return s;
    /* The Vicsek noise follows the run's seed unless a file or --set names its own. */
    p->noise_seed = (long)(o->seed % 9007199254740993ull);
    if (o->config && (s = boids_params_load_ini(p, o->config, err))) return s;
    if (o->count) p->count = o->count;
    if (o->model && (s = boids_params_set(p, "model", o->model, "--model", err))) return s;
    if (o->neighbours &&
        (s = boids_params_set(p, "neighbours", o->neighbours, "--neighbours", err)))
        return s;
    if (o->k && (s = boids_params_set(p, "k", o->k, "-k", err))) return s;
    for (int i = 0; i < o->nsets; i++) {
        char key[128];
        const char *eq = strchr(o->sets[i], '=');
        size_t len = (size_t)(eq - o->sets[i]);
        if (len == 0 || len >= sizeof key)
            return boids_error_set(err, BOIDS_ERR_INPUT, "--set %s: bad key", o->sets[i]);
        memcpy(key, o->sets[i], len);
        key[len] = '\0';
        if ((s = boids_params_set(p, key, eq + 1, "--set", err))) return s;
    }
    return boids_params_validate(p, err);
}

boids_status app_initial_flock(const app_opts *o, boids_params *p, boids_flock *f,
                               boids_error *err) {
    if (!o->load) {
        /* The device limit first: a flock beyond it takes seconds to allocate and fill. */
        if (!strcmp(o->backend, "gpu") && boids_gpu_check_count((size_t)p->count, err))
            return err->status;
        boids_status s = boids_flock_alloc(f, (size_t)p->count, err);
        if (s) return s;
        boids_flock_randomize(f, p, o->seed);
        return BOIDS_OK;
    }
    boids_status s = boids_state_load_for(o->load, p, f, err);
    if (s) return s;
    if (o->count && (size_t)o->count != f->n) {
        s = boids_error_set(err, BOIDS_ERR_INPUT,
                            "--count %ld disagrees with %s, which holds %zu boids", o->count,
                            o->load, f->n);
    } else {
        p->count = (long)f->n;
    }
    if (s) boids_flock_free(f);
    return s;
}

int app_option_error(const char *cmd, int opt, char **argv) {
    const char *name = argv[optind - 1];
    if (opt == ':')
        fprintf(stderr, "boids %s: %s needs a value (see boids %s --help)\n", cmd, name, cmd);
    else
        fprintf(stderr, "boids %s: unknown option '%s' (see boids %s --help)\n", cmd, name, cmd);
    return 2;
}

int app_no_operands(const char *cmd, int argc, char **argv) {
    if (optind >= argc) return 0;
    fprintf(stderr, "boids %s: unexpected argument '%s' (see boids %s --help)\n", cmd, argv[optind],
            cmd);
    return 2;
}

int app_fail(const boids_error *err) {
    fprintf(stderr, "boids: %s\n", err->msg);
    return boids_status_exit_code(err->status);
}
