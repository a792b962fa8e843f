/* SPDX-License-Identifier: MIT */
/* Pinned golden state hashes: fixed scenarios, in the plane and in the box, run for a fixed
 * number of steps, the whole final state hashed and compared with a constant. Any change of
 * results on these paths (a reordered sum, a rule edit, a new rounding) then fails a test
 * and has to be pinned again on purpose, with the reason in its commit.
 *
 * The hash is boids_flock_hash: FNV-1a 64 over the raw bytes of x, then y, vx, vy (and z,
 * vz for a 3-D flock), each in id order as doubles (a float backend's values widened
 * exactly). The bytes are those of a little-endian IEEE 754 machine (x86-64, aarch64),
 * where these constants hold.
 *
 * Where each column of golden_pinned is checked:
 *  - cpu_ref: tests/golden_cpu_test.c (cpu-ref, double, the seed-exact path), at 1 and 2
 *    threads and with its scalar scan;
 *  - cpu: the same program, at 1 and at 2 threads (the cpu backend promises the same bits
 *    for every thread count), built at the default level and at -O0;
 *  - gpu_llvmpipe: tests/gpu/golden_gpu_test.c, deterministic mode, only when the GL
 *    renderer is Mesa llvmpipe: the constants are a property of llvmpipe's float arithmetic
 *    and of its shader compiler; another device prints its hashes as not pinned. 0 where
 *    no GPU hash is pinned (the 3-D scenarios).
 *
 * Re-pinning: run the test programs with BOIDS_GOLDEN_PRINT=1 (for example
 *   BOIDS_GOLDEN_PRINT=1 build/tests/golden_cpu_test
 *   BOIDS_GOLDEN_PRINT=1 build/tests/golden_gpu_test)
 * and paste the table each prints (its own columns measured, the others as pinned) over
 * the one below, saying in the commit why the results changed. */
#ifndef BOIDS_TEST_GOLDEN_H
#define BOIDS_TEST_GOLDEN_H

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "boids/flock.h"
#include "boids/params.h"

typedef struct golden_scenario {
    const char *name;
    const char *preset;
    const char *set; /* key=value settings, space-separated: applied after the preset, in order */
    unsigned steps;
    uint64_t seed; /* of boids_flock_randomize */
} golden_scenario;

enum { GOLDEN_COUNT = 9 };

/* A few hundred boids and some tens of steps: long enough for neighbours to interact and
 * for a changed rounding to spread through the state, short enough for cpu-ref (O(N^2))
 * and llvmpipe to run in a second or two. The worlds the scenarios share: the plane's lab
 * world holds 400 boids at the lab preset's density (1500 in 900 x 560); the box's (dim =
 * 3, issue 15) 400 boids at a density that gives each a few neighbours, and the Vicsek box
 * 3.2 agents per unit volume. */
#define GOLDEN_LAB              "count=400 width=465 height=289"
#define GOLDEN_LAB3             "dim=3 count=400 width=200 height=160 depth=120"
#define GOLDEN_VICSEK3          "dim=3 width=5 height=5 depth=5 "
#define GOLDEN_TOPOLOGICAL_OPEN "noise=0.5 noise_seed=23 neighbours=topological k=7 boundary=open"

static const golden_scenario golden_scenarios[GOLDEN_COUNT] = {
    {"lab", "lab", GOLDEN_LAB, 40, 1},
    {"lab-fov270-walls", "lab", GOLDEN_LAB " fov=270 boundary=walls", 40, 2},
    {"lab-topological", "lab", GOLDEN_LAB " neighbours=topological k=7", 40, 3},
    {"vicsek-noise", "vicsek", "noise=2 noise_seed=17", 40, 4},
    {"vicsek-topological-open", "vicsek", GOLDEN_TOPOLOGICAL_OPEN, 40, 5},
    {"lab3-fov270-predator", "lab", GOLDEN_LAB3 " fov=270 predator=1 predator_z=60", 40, 1},
    {"lab3-walls-topological", "lab", GOLDEN_LAB3 " boundary=walls neighbours=topological k=7", 40,
     2},
    {"vicsek3-noise", "vicsek", GOLDEN_VICSEK3 "noise=1 noise_seed=17", 40, 3},
    {"vicsek3-topological-open", "vicsek", GOLDEN_VICSEK3 GOLDEN_TOPOLOGICAL_OPEN, 40, 4},
};

/* The pinned hashes of one scenario, one column per path. */
typedef struct golden_pins {
    uint64_t cpu_ref, cpu, gpu_llvmpipe;
} golden_pins;

/* cpu and gpu_llvmpipe agree for lab-topological, where both backends apply the rules over
 * the k nearest in (d2, id) order (shaders/steer_topo.comp), and for lab-fov270-walls, where
 * both sum a boid's metric neighbours cell by cell with each cell's boids in id order;
 * elsewhere their summation orders differ. */
/* clang-format off */
static const golden_pins golden_pinned[GOLDEN_COUNT] = {
    /* cpu_ref               cpu                    gpu_llvmpipe */
    {0x7eea21f9ac889916ull, 0x84b7080de9cd0dd1ull, 0xf069b87bf882c547ull}, /* lab */
    {0xd44d8aa7c21c77f0ull, 0x400ca6a32bb4d841ull, 0x400ca6a32bb4d841ull}, /* lab-fov270-walls */
    {0xec5c03b8d976f084ull, 0x918b7da7aa4dbbfaull, 0x918b7da7aa4dbbfaull}, /* lab-topological */
    {0xf072444a3fb626b8ull, 0x1ce6ce80656a2817ull, 0x799f85f72554da5eull}, /* vicsek-noise */
    {0x5db3e3445dd38fc3ull, 0x4e017da0da6ca36cull, 0x152b4c6fe987ce42ull}, /* vicsek-topological-open */
    {0xfc4fccf0ce8b3f3dull, 0x64a35c42d4cc250eull, 0}, /* lab3-fov270-predator */
    {0x6de7151dbbb136a6ull, 0xd84e8d77950ec710ull, 0}, /* lab3-walls-topological */
    {0xfb9e6257e420d64cull, 0xfb5b3537b08f6f2aull, 0}, /* vicsek3-noise */
    {0xbd8fb6bd39e54fcdull, 0xff754d60c10ecdcbull, 0}, /* vicsek3-topological-open */
};
/* clang-format on */

/* The parameters and initial flock of scenario g; exits on an error (a broken scenario
 * table, not a test result). */
static void golden_setup(const golden_scenario *g, boids_params *p, boids_flock *f) {
    boids_error err;
    int bad = boids_preset_apply(p, g->preset, &err) != BOIDS_OK;
    char key[64], value[64];
    for (const char *at = g->set; !bad && *at; at += strspn(at, " ")) {
        int used = 0;
        if (sscanf(at, "%63[^= ]=%63s%n", key, value, &used) != 2) {
            fprintf(stderr, "golden scenario %s: '%s' is not key=value\n", g->name, at);
            exit(1);
        }
        bad = boids_params_set(p, key, value, g->name, &err) != BOIDS_OK;
        at += used;
    }
    bad = bad || boids_params_validate(p, &err) != BOIDS_OK ||
          boids_flock_alloc_dim(f, (size_t)p->count, p->dim, &err) != BOIDS_OK;
    if (bad) {
        fprintf(stderr, "golden scenario %s: %s\n", g->name, err.msg);
        exit(1);
    }
    boids_flock_randomize(f, p, g->seed);
}

static int golden_print_wanted(void) {
    const char *v = getenv("BOIDS_GOLDEN_PRINT");
    return v && *v && strcmp(v, "0") != 0;
}

/* With BOIDS_GOLDEN_PRINT set: the table of the hashes got, ready to paste here. */
static void golden_print_table(const golden_pins got[GOLDEN_COUNT]) {
    if (!golden_print_wanted()) return;
    printf("static const golden_pins golden_pinned[GOLDEN_COUNT] = {\n");
    for (int i = 0; i < GOLDEN_COUNT; i++)
        printf("    {0x%016" PRIx64 "ull, 0x%016" PRIx64 "ull, 0x%016" PRIx64 "ull}, /* %s */\n",
               got[i].cpu_ref, got[i].cpu, got[i].gpu_llvmpipe, golden_scenarios[i].name);
    printf("};\n");
}

#endif
