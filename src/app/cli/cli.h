/* SPDX-License-Identifier: MIT */
/* The command-line layer of `boids` and `boids-bench` (the library boids_app_cli): one table of
 * the options every command shares (parameters, GPU mode, backend, initial state,
 * verbosity), one handler and one help block for them, and a declarative table for each
 * command's own options, so that a command's body is its option table plus calls. */
#ifndef BOIDS_APP_CLI_H
#define BOIDS_APP_CLI_H

#include <stdint.h>
#include <stdio.h>

#include "boids/backend.h"
#include "boids/error.h"
#include "boids/flock.h"
#include "boids/gpu.h"
#include "boids/interact.h"
#include "boids/params.h"

enum { APP_MAX_SETS = 256 };

typedef struct app_opts {
    const char *preset;
    const char *config;
    const char *sets[APP_MAX_SETS];
    int nsets;
    long count; /* 0: from the parameters */
    uint64_t seed;
    int seed_given; /* --seed was on the command line (it outranks a loaded state's seed) */
    const char *backend;
    int threads;       /* cpu backend: 0 = all */
    int deterministic; /* gpu backend: 1 per-cell id order, 0 fast; -1 both (boids-bench) */
    int gpu_variant;   /* gpu backend: --gpu-variant, a boids_gpu_variant; -1 not given (plain) */
    int verbose;
    const char *load;
    const char *model, *neighbours, *k; /* --model, --neighbours, -k: shorthands of --set */
    int fixed_world;                    /* --fixed-world: -n keeps the parameters' world */
    /* The --config keys another reader of the command takes, left out of the parameters:
     * app_parse sets app_interact_is_key (every command reads the points and obstacles,
     * app_interact); the viewer and render add their look. NULL: every key is a parameter. */
    int (*config_theirs)(const char *key);
    /* The interaction points and obstacles (app_interact) that app_backend_create hands to
     * every backend it makes; NULL: none. The command owns the table. */
    const boids_interact *inter;
} app_opts;

/* The groups of shared options a command takes. Every command that takes model parameters
 * takes APP_PARAMS and APP_GPU_MODE. */
enum {
    APP_PARAMS = 1,   /* --preset --config --set -n --fixed-world --seed --model --neighbours -k */
    APP_GPU_MODE = 2, /* --deterministic --fast --gpu-variant */
    APP_BACKEND = 4,  /* --backend */
    APP_THREADS = 8,  /* --threads */
    APP_LOAD = 16,    /* --load */
    APP_VERBOSE = 32, /* -v, --verbose */
    APP_ALL = 63      /* every group: the commands that run a flock (sim, sweep, view, render) */
};

/* A command: its name, help text around the option lists, the shared groups it takes and
 * its defaults. The defaults are stated here once: they initialise app_opts and --help
 * prints them. */
typedef struct app_command {
    const char *prog;     /* as messages name it: "boids sim", "boids-bench" */
    const char *synopsis; /* usage line and description, before the options */
    const char *notes;    /* after the command's own options; NULL: none */
    unsigned shared;      /* APP_* groups */
    const char *preset;   /* NULL: the default parameters (lab) */
    long count;           /* 0: the preset's */
    uint64_t seed;
    const char *backend; /* NULL for commands without APP_BACKEND */
    int deterministic;   /* the GPU mode: 1, 0, or -1 both (the benchmark times both) */
} app_command;

/* What an option of a command's own table does with its value. */
typedef enum app_kind {
    APP_SECTION, /* no option: a heading of the help ("Window:") */
    APP_FLAG,    /* no value: stores (int)lo into an int */
    APP_TEXT,    /* the value as given, into a const char * */
    APP_LONG,    /* an integer in [lo, hi], into a long */
    APP_INT,     /* an integer in [lo, hi], into an int */
    APP_REAL,    /* a finite number in [lo, hi] (lo excluded with open), into a double */
    APP_CHOICE,  /* one of choices, its index into an int */
    APP_CUSTOM   /* parse(flag, value, dst, err) */
} app_kind;

typedef boids_status (*app_parse_fn)(const char *flag, const char *text, void *dst,
                                     boids_error *err);

typedef struct app_option {
    app_kind kind;
    const char *name; /* long name without "--"; SECTION: the heading */
    int letter;       /* short option letter, 0 if none */
    const char *meta; /* the value in the help ("K", "WxH"); NULL for a flag */
    void *dst;
    double lo, hi;
    const char *const *choices; /* CHOICE: NULL-terminated */
    app_parse_fn parse;         /* CUSTOM */
    const char *help;           /* '\n' starts a continuation line */
    const char *alias;          /* another long name, not in the help ("color") */
    int open;                   /* REAL: lo excluded */
    int repeat;                 /* may be given again (CUSTOM options that accumulate) */
} app_option;

/* Returned by app_parse when the command should go on. */
enum { APP_RUN = -1 };

/* The number of entries of an option table. */
#define APP_COUNT(table) (sizeof(table) / sizeof(table)[0])

/* Sets o to the command's defaults, then parses argv (argv[0] is the command's name) against the
 * shared groups of cmd and its own table (n entries). Returns APP_RUN to go on, 0 after --help, or
 * 2 after one message naming the option and its value (missing value, unknown option, bad value, an
 * operand). */
int app_parse(const app_command *cmd, const app_option *own, size_t n, app_opts *o, int argc,
              char **argv);

/* The --help text: synopsis, the command's own options, notes, then the shared options of
 * its groups with its defaults, wrapped at 80 columns as app_help_text. */
void app_help(FILE *out, const app_command *cmd, const app_option *own, size_t n);

/* Help text reflowed to 80 columns, breaking lines only at spaces (a number or a token is
 * never split). A line break in text is a space, except after a line ending in ':',
 * after a "usage:" line, around an indented line (kept as written) and at a blank line (one
 * blank line, never two). */
void app_help_text(FILE *out, const char *text);

/* The same at width columns (boids-bench's report: 100). */
void app_text_wrap(FILE *out, const char *text, int width);

/* Parses an integer flag value in [lo, hi]; names the flag in the message. */
boids_status app_parse_long(const char *flag, const char *text, long lo, long hi, long *out,
                            boids_error *err);

/* Parses a finite number in [lo, hi]; names the flag in the message. */
boids_status app_parse_real(const char *flag, const char *text, double lo, double hi, double *out,
                            boids_error *err);

/* Parses WIDTHxHEIGHT, each in [16, 16384], into int[2]; an app_parse_fn. */
boids_status app_parse_size(const char *flag, const char *text, void *dst, boids_error *err);

/* Checks a comma-separated list of a flag: at least one item, none empty (no leading,
 * trailing or doubled comma), none named twice. */
boids_status app_check_list(const char *flag, const char *list, boids_error *err);

/* ---- a run's set-up from the options (setup.c) ---- */

/* Parameters from the defaults, then --preset, --config, --model, --neighbours, -k and the
 * --set pairs, then -n, validated. The world follows N (boids_params_fit_world) unless it
 * is fixed (app_world_fixed). */
boids_status app_params(const app_opts *o, boids_params *p, boids_error *err);

/* app_params with the world, where it follows, also shaped to a frame's aspect ratio
 * (width / height; 0 keeps the parameters' shape): view and render. base gets the
 * parameters without -n, *follows whether the world may follow N and the frame: not fixed
 * and not from --load (a loaded state lies in the world it was saved in; -n, its N, still
 * fits that world). */
boids_status app_params_world(const app_opts *o, double aspect, boids_params *p, boids_params *base,
                              int *follows, boids_error *err);

/* Whether the world keeps its size whatever N: --fixed-world, or --set or --config give
 * width, height or depth and no count (a size and a count given together state a density,
 * which N keeps, as a preset's do). */
int app_world_fixed(const app_opts *o);

/* The interaction table of the run: every point off (with p's predator and food radius
 * and weight), no obstacles, then the predator.I, attractor.I and obstacle lines of
 * --config. A bad line: BOIDS_ERR_INPUT naming the file, line and key. */
boids_status app_interact(const app_opts *o, const boids_params *p, boids_interact *t,
                          boids_error *err);
/* The same, and which entries follow the world (places may be NULL): with the config line
 * `places = relative` its points and obstacles are fractions of the world (positions of
 * each side, radii of the smallest side), placed into p's world here, all marked. */
struct app_places;
boids_status app_interact_places(const app_opts *o, const boids_params *p, boids_interact *t,
                                 struct app_places *places, boids_error *err);

/* The initial state: --load FILE (checked against p; p->count becomes its N, and its
 * sidecar's noise_seed becomes p->noise_seed unless --seed, --config or --set gave the noise
 * seed: then that one stays, with a note on stderr when it differs from the state's) or
 * random from --seed. */
boids_status app_initial_flock(const app_opts *o, boids_params *p, boids_flock *f,
                               boids_error *err);

/* What app_initial_flock does once a state of n boids is loaded (its sidecar's noise seed
 * saved, -1: none): --count checked against n, p->count set, the noise seed chosen. For a
 * program that loads the state itself (boids-mpi sim, in parts). */
boids_status app_loaded_state(const app_opts *o, boids_params *p, size_t n, long saved,
                              boids_error *err);

/* The backend named by --backend (cpu-ref, cpu, gpu) holding f, with o->inter's table. */
boids_backend *app_backend_create(const app_opts *o, const boids_params *p, const boids_flock *f,
                                  boids_error *err);

/* The GL renderer string of the latest gpu backend app_backend_create made, or NULL when it
 * made none: output provenance records it. */
const char *app_backend_renderer(void);

/* The cores this process may run on: its affinity mask where there is one (taskset, a
 * cpuset, a batch system's allocation, mpirun's binding: what OpenMP counts too, and so the
 * cpu backend's --threads 0), else the online processors. */
long app_usable_cores(void);

/* What decides a model run, one item a line (no newline after the last): every parameter of
 * p by key, then the interaction table in (NULL: none), each value exactly (%.17g), so that
 * two processes can compare their runs as text. */
void app_describe_model(FILE *out, const boids_params *p, const boids_interact *in);

/* Prints "boids: message" for a failed status and returns its exit code. */
int app_fail(const boids_error *err);

#endif
