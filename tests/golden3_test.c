/* SPDX-License-Identifier: MIT */
/* Pinned golden state hashes of 3-D flocks (issue 15), as tests/golden.h pins the plane's:
 * fixed 3-D scenarios run for a fixed number of steps on cpu-ref (1 and 2 threads, AVX2 and
 * scalar scan) and on cpu (1 to 4 threads), the final state hashed with boids_flock_hash
 * (x, y, vx, vy, then z, vz, as doubles in id order) and compared with a constant. Built at
 * the default level and at -O0: the bits must not depend on either. A change of 3-D results
 * fails here and is re-pinned on purpose: run with BOIDS_GOLDEN_PRINT=1, paste the printed
 * tables below and say why in the commit. */
#include <string.h>

#include "boids/backend.h"
#include "check.h"
#include "cpu_fixture.h"

enum { COUNT = 4 };

typedef struct golden3 {
    const char *name, *preset;
    const char *set[10][2];
    unsigned steps;
    uint64_t seed;
} golden3;

/* 400 boids: the lab flock at a density that gives each a few neighbours in 3-D, and the
 * Vicsek box at density 3.2 per unit volume. */
static const golden3 scenarios[COUNT] = {
    {"lab3-fov270-predator",
     "lab",
     {{"dim", "3"},
      {"count", "400"},
      {"width", "200"},
      {"height", "160"},
      {"depth", "120"},
      {"fov", "270"},
      {"predator", "1"},
      {"predator_z", "60"}},
     40,
     1},
    {"lab3-walls-topological",
     "lab",
     {{"dim", "3"},
      {"count", "400"},
      {"width", "200"},
      {"height", "160"},
      {"depth", "120"},
      {"boundary", "walls"},
      {"neighbours", "topological"},
      {"k", "7"}},
     40,
     2},
    {"vicsek3-noise",
     "vicsek",
     {{"dim", "3"},
      {"width", "5"},
      {"height", "5"},
      {"depth", "5"},
      {"noise", "1"},
      {"noise_seed", "17"}},
     40,
     3},
    {"vicsek3-topological-open",
     "vicsek",
     {{"dim", "3"},
      {"width", "5"},
      {"height", "5"},
      {"depth", "5"},
      {"noise", "0.5"},
      {"noise_seed", "23"},
      {"neighbours", "topological"},
      {"k", "7"},
      {"boundary", "open"}},
     40,
     4},
};

/* clang-format off */
static const uint64_t golden3_cpu_ref[COUNT] = {
    0xfc4fccf0ce8b3f3dull, /* lab3-fov270-predator */
    0x6de7151dbbb136a6ull, /* lab3-walls-topological */
    0xfb9e6257e420d64cull, /* vicsek3-noise */
    0xbd8fb6bd39e54fcdull, /* vicsek3-topological-open */
};
static const uint64_t golden3_cpu[COUNT] = {
    0x64a35c42d4cc250eull, /* lab3-fov270-predator */
    0xd84e8d77950ec710ull, /* lab3-walls-topological */
    0xfb5b3537b08f6f2aull, /* vicsek3-noise */
    0xff754d60c10ecdcbull, /* vicsek3-topological-open */
};
/* clang-format on */

static void setup(const golden3 *g, scenario *s) {
    boids_error err;
    s->name = g->name;
    s->p = boids_params_default();
    int bad = boids_preset_apply(&s->p, g->preset, &err) != BOIDS_OK;
    for (int i = 0; !bad && i < 10 && g->set[i][0]; i++)
        bad = boids_params_set(&s->p, g->set[i][0], g->set[i][1], g->name, &err) != BOIDS_OK;
    bad = bad || boids_params_validate(&s->p, &err) != BOIDS_OK ||
          boids_flock_alloc_dim(&s->f, (size_t)s->p.count, 3, &err) != BOIDS_OK;
    if (bad) die(g->name, &err);
    boids_flock_randomize(&s->f, &s->p, g->seed);
}

static void check_hash(const char *backend, const char *name, uint64_t got, uint64_t pinned) {
    printf("%-26s %-18s 0x%016" PRIx64 " %s\n", name, backend, got,
           got == pinned ? "pinned" : "DIFFERS");
    CHECK(got == pinned, "%s %s: state hash 0x%016" PRIx64 ", pinned 0x%016" PRIx64, name, backend,
          got, pinned);
}

static void print_table(const char *name, const uint64_t got[COUNT]) {
    const char *v = getenv("BOIDS_GOLDEN_PRINT");
    if (!v || !*v || !strcmp(v, "0")) return;
    printf("static const uint64_t %s[COUNT] = {\n", name);
    for (int i = 0; i < COUNT; i++)
        printf("    0x%016" PRIx64 "ull, /* %s */\n", got[i], scenarios[i].name);
    printf("};\n");
}

int main(void) {
    uint64_t got_ref[COUNT], got_cpu[COUNT];
    for (int i = 0; i < COUNT; i++) {
        const golden3 *g = &scenarios[i];
        scenario s;
        setup(g, &s);
        got_ref[i] = cpu_ref_hash(&s, 1, 0, g->steps);
        check_hash("cpu-ref 1 thread", g->name, got_ref[i], golden3_cpu_ref[i]);
        check_hash("cpu-ref 2 threads", g->name, cpu_ref_hash(&s, 2, 0, g->steps),
                   golden3_cpu_ref[i]);
        check_hash("cpu-ref scalar", g->name, cpu_ref_hash(&s, 2, 1, g->steps), golden3_cpu_ref[i]);
        got_cpu[i] = run_hash(&s, 1, 0, g->steps);
        check_hash("cpu 1 thread", g->name, got_cpu[i], golden3_cpu[i]);
        check_same_bits(&s, g->steps);
        CHECK(got_ref[i] != got_cpu[i], "%s: float and double differ (a real run)", g->name);
        boids_flock_free(&s.f);
    }
    print_table("golden3_cpu_ref", got_ref);
    print_table("golden3_cpu", got_cpu);
    return CHECK_DONE("golden3_test");
}
