/* Options shared by the subcommands: where parameters, the initial state and the backend
 * come from. */
#ifndef BOIDS_APP_CLI_H
#define BOIDS_APP_CLI_H

#include <getopt.h>
#include <stdint.h>

#include "boids/backend.h"
#include "boids/error.h"
#include "boids/flock.h"
#include "boids/params.h"

enum { APP_MAX_SETS = 256 };

typedef struct app_opts {
    const char *preset;
    const char *config;
    const char *sets[APP_MAX_SETS];
    int nsets;
    long count; /* 0: from the parameters */
    uint64_t seed;
    const char *backend;
    int threads;       /* cpu backend: 0 = all */
    int deterministic; /* gpu backend: -1 = its default */
    int verbose;
    const char *load;
    const char *model, *neighbours, *k; /* --model, --neighbours, -k: shorthands of --set */
} app_opts;

/* Long-option ids of the shared options (short ones use their letter). */
enum {
    OPT_PRESET = 1000,
    OPT_CONFIG,
    OPT_SET,
    OPT_SEED,
    OPT_BACKEND,
    OPT_THREADS,
    OPT_DETERMINISTIC,
    OPT_NONDETERMINISTIC,
    OPT_LOAD,
    OPT_MODEL,
    OPT_NEIGHBOURS,
    OPT_FIRST_FREE
};

/* getopt_long entries for the shared options, terminated so they can be appended. */
/* clang-format off */
#define APP_COMMON_LONGOPTS                                                                        \
    {"preset", required_argument, NULL, OPT_PRESET},                                               \
    {"config", required_argument, NULL, OPT_CONFIG},                                               \
    {"set", required_argument, NULL, OPT_SET},                                                     \
    {"count", required_argument, NULL, 'n'},                                                       \
    {"seed", required_argument, NULL, OPT_SEED},                                                   \
    {"backend", required_argument, NULL, OPT_BACKEND},                                             \
    {"threads", required_argument, NULL, OPT_THREADS},                                             \
    {"deterministic", no_argument, NULL, OPT_DETERMINISTIC},                                       \
    {"fast", no_argument, NULL, OPT_NONDETERMINISTIC},                                             \
    {"load", required_argument, NULL, OPT_LOAD},                                                   \
    {"verbose", no_argument, NULL, 'v'},                                                           \
    {"model", required_argument, NULL, OPT_MODEL},                                                 \
    {"neighbours", required_argument, NULL, OPT_NEIGHBOURS},                                       \
    {"neighbors", required_argument, NULL, OPT_NEIGHBOURS},                                        \
    {"k", required_argument, NULL, 'k'}
/* clang-format on */

/* The short options of the shared ones, for getopt_long's option string. */
#define APP_COMMON_SHORTOPTS "n:k:v"

/* Help text of the shared options. */
extern const char app_common_help[];

void app_opts_init(app_opts *o);

/* Handles one shared option; returns 1 if it was one, 0 if not, and -1 with err set if its
 * argument is bad. */
int app_opts_parse(app_opts *o, int opt, const char *arg, boids_error *err);

/* Parses an integer flag value in [lo, hi]; names the flag in the message. */
boids_status app_parse_long(const char *flag, const char *text, long lo, long hi, long *out,
                            boids_error *err);

/* Parameters from the defaults, then --preset, --config, -n and the --set pairs, validated. */
boids_status app_params(const app_opts *o, boids_params *p, boids_error *err);

/* The initial state: --load FILE (checked against p; p->count becomes its N) or random
 * from --seed. */
boids_status app_initial_flock(const app_opts *o, boids_params *p, boids_flock *f,
                               boids_error *err);

/* The backend named by --backend (cpu-ref, cpu, gpu) holding f. */
boids_backend *app_backend_create(const app_opts *o, const boids_params *p, const boids_flock *f,
                                  boids_error *err);

/* For a getopt_long loop of command `cmd` that returned ':' (missing value) or an unknown
 * option: prints one message naming the option and returns the exit code 2. */
int app_option_error(const char *cmd, int opt, char **argv);

/* After the options: 0 if none are left, else one message naming the first and 2. */
int app_no_operands(const char *cmd, int argc, char **argv);

/* Prints "boids: message" for a failed status and returns its exit code. */
int app_fail(const boids_error *err);

#endif
