/* SPDX-License-Identifier: MIT */
/* `boids verify`: checks that the grid backends (cpu, gpu) compute the model of cpu-ref.
 *
 * 1. One step from the same state, per scenario (verify/verify_scenarios.c), each backend's
 *    against cpu-ref's within a tolerance calibrated on the same input, and its neighbour
 *    counts and sets against cpu-ref's brute force (verify/verify_compare.c).
 * 2. The order parameter over many steps and seeds: each backend's mean curve against
 *    cpu-ref's, within the seed-to-seed spread (verify/verify_curves.c).
 * This file is the command: its options, the GL context when the gpu is checked, and the exit
 * code. */
#include <stdio.h>
#include <string.h>

#include "boids/backend.h"
#include "boids/gpu.h"
#include "cli/cli.h"
#include "commands/commands.h"
#include "verify/verify_checks.h"

/* --backends into o->backends (pointing into buf) and whether the gpu is among them. */
static boids_status parse_backends(verify_opts *o, const char *list, char *buf, size_t size,
                                   int *need_gpu, boids_error *err) {
    if (strlen(list) >= size)
        return boids_error_set(err, BOIDS_ERR_INPUT, "--backends: '%s' is too long", list);
    strcpy(buf, list);
    *need_gpu = 0;
    for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
        if (strcmp(tok, "cpu") && strcmp(tok, "gpu"))
            return boids_error_set(err, BOIDS_ERR_INPUT,
                                   "--backends: unknown backend '%s' (cpu, gpu)", tok);
        if (o->nbackends == VERIFY_MAX_BACKENDS)
            return boids_error_set(err, BOIDS_ERR_INPUT, "--backends: more than %d",
                                   VERIFY_MAX_BACKENDS);
        o->backends[o->nbackends++] = tok;
        *need_gpu |= !strcmp(tok, "gpu");
    }
    return BOIDS_OK;
}

/* Every name of --scenarios is a scenario; the order curves have a sample after step 0. */
static boids_status check_lists(const verify_opts *o, boids_error *err) {
    for (const char *p = o->scenarios; *p;) {
        const char *q = strchr(p, ',');
        char item[64];
        size_t l = q ? (size_t)(q - p) : strlen(p);
        snprintf(item, sizeof item, "%.*s", (int)l, p);
        if (!verify_is_scenario(item))
            return boids_error_set(err, BOIDS_ERR_INPUT, "--scenarios: unknown scenario '%s' (%s)",
                                   item, VERIFY_SCENARIOS);
        if (!q) break;
        p = q + 1;
    }
    if (o->seeds == 1)
        return boids_error_set(err, BOIDS_ERR_INPUT,
                               "--seeds 1: a standard error needs 2 seeds or more (0 skips)");
    if (o->seeds && o->every > o->steps)
        return boids_error_set(err, BOIDS_ERR_INPUT, "--every %d is more than --steps %d", o->every,
                               o->steps);
    return BOIDS_OK;
}

/* The checks, on a GL context when the gpu is among the backends; returns the exit code. */
static int verify_run(const verify_opts *o, const boids_params *base, int need_gpu) {
    boids_error err;
    boids_error_clear(&err);
    verify_ctx c = {o, NULL, NULL, 0};
    if (need_gpu) {
        /* Debug context: any GL error or high-severity message fails the run. */
        c.gl = boids_gl_create(1, &err);
        if (!c.gl) {
            fprintf(stderr, "boids verify: %s\n", err.msg);
            return 1;
        }
        if (o->common.verbose)
            fprintf(stderr, "GL: %s, %s (EGL %s platform)\n", boids_gl_renderer(c.gl),
                    boids_gl_version(c.gl), boids_gl_platform(c.gl));
    }
    verify_print_header(o);
    int rc = 0;
    /* Item by item, the list as long as it is (a copy into 256 bytes once cut the default
     * list, and with it vicsek-menu, silently). */
    for (const char *q = o->scenarios; rc == 0 && *q;) {
        const size_t l = strcspn(q, ",");
        char item[64];
        snprintf(item, sizeof item, "%.*s", (int)l, q);
        if (l && verify_scenario(&c, item, base, &err) < 0) rc = 1;
        q += l + (q[l] == ',');
    }
    if (rc == 0 && o->seeds > 0 && verify_curves(&c, &err) < 0) rc = 1;
    if (rc) fprintf(stderr, "boids verify: %s\n", err.msg);
    if (c.gl && boids_gl_debug_log(c.gl)->errors) {
        fprintf(stderr, "boids verify: %lu GL debug errors, last: %s\n",
                boids_gl_debug_log(c.gl)->errors, boids_gl_debug_log(c.gl)->last_error);
        rc = 1;
    }
    boids_backend_destroy(c.gpu);
    boids_gl_destroy(c.gl);
    if (rc == 0 && c.failures) {
        printf("\n%d check(s) FAILED\n", c.failures);
        rc = 1;
    } else if (rc == 0) {
        printf("\nall checks passed\n");
    }
    return rc;
}

static const app_command verify_command = {
    .prog = "boids verify",
    .synopsis =
        "usage: boids verify [OPTIONS]\n"
        "Compares the grid backends with the exact reference cpu-ref; exit 0 pass, 1 fail,\n"
        "2 bad usage.\n"
        "\n",
    .notes = "The parameter options below make both checks: -n the one-step scenarios' N, and\n"
             "the order curves run the same preset, model and neighbour rule with --curve-count\n"
             "boids at the preset's density (Vicsek without noise: noise 2); each seed has its\n"
             "own initial state and noise stream.\n",
    .shared = APP_PARAMS | APP_GPU_MODE | APP_VERBOSE,
    .preset = "lab",
    .count = 2000,
    .seed = 1,
    .deterministic = 0};

int boids_cmd_verify(int argc, char **argv) {
    static const char default_scenarios[] = VERIFY_SCENARIOS;
    /* 120 steps sampled every 20: the order's rise from random headings (Reynolds, about
     * 0.1 to 0.95 in the lab preset) and the Vicsek model's approach to its noisy steady
     * state, where a wrong backend's curve departs from cpu-ref's. */
    verify_opts o = {.steps = 120, .every = 20, .seeds = 12, .scenarios = default_scenarios};
    const char *backends = "cpu,gpu";
    const app_option own[] = {
        {APP_TEXT, "backends", 0, "LIST", &backends,
         .help = "backends to check against cpu-ref (default cpu,gpu)"},
        {APP_TEXT, "scenarios", 0, "LIST", &o.scenarios,
         .help = "one-step scenarios (default all: " VERIFY_SCENARIOS ")"},
        {APP_INT, "steps", 0, "K", &o.steps, 0, 1000000,
         .help = "order curves: steps (default 120)"},
        {APP_INT, "every", 0, "E", &o.every, 1, 1000000,
         .help = "order curves: sample every E steps (default 20)"},
        {APP_INT, "seeds", 0, "M", &o.seeds, 0, 10000,
         .help = "order curves: seeds (default 12; 0 skips the curves)"},
        {APP_TEXT, "curve-preset", 0, "NAME", &o.curve_preset,
         .help = "order curves: another preset than --preset's (with --config, --set and "
                 "the model options)"},
        {APP_LONG, "curve-count", 0, "N", &o.curve_count, 1, 100000000,
         .help = "order curves: boids (default 100), in the preset's world scaled to "
                 "keep its density"},
    };
    int rc = app_parse(&verify_command, own, APP_COUNT(own), &o.common, argc, argv);
    if (rc != APP_RUN) return rc;
    boids_error err;
    char buf[256];
    int need_gpu = 0;
    boids_params base;
    boids_interact inter;
    if (app_check_list("--backends", backends, &err) ||
        app_check_list("--scenarios", o.scenarios, &err) ||
        parse_backends(&o, backends, buf, sizeof buf, &need_gpu, &err) || check_lists(&o, &err) ||
        verify_params(&o, o.common.preset, o.common.count, &base, &err) ||
        app_interact(&o.common, &base, &inter, &err)) {
        fprintf(stderr, "boids verify: %s\n", err.msg);
        return 2;
    }
    o.common.inter = &inter;
    return verify_run(&o, &base, need_gpu);
}
