/* SPDX-License-Identifier: MIT */
/* The pinned golden state hashes of tests/golden.h on the CPU backends: cpu-ref at 1 and at 2
 * threads and with its scalar scan, and cpu at 1 and at 2 threads, each against one constant
 * (both backends promise the same bits for every thread count; check_same_bits adds 3 and 4
 * threads and the scalar kernel of cpu). A mismatch
 * prints the hash got; BOIDS_GOLDEN_PRINT=1 prints the tables to paste when a change of
 * results is intended (see tests/golden.h). */
#include "boids/backend.h"
#include "check.h"
#include "cpu_fixture.h"
#include "golden.h"

static void check_hash(const char *backend, const char *name, uint64_t got, uint64_t pinned) {
    printf("%-24s %-12s 0x%016" PRIx64 " %s\n", name, backend, got,
           got == pinned ? "pinned" : "DIFFERS");
    CHECK(got == pinned,
          "%s %s: state hash 0x%016" PRIx64 ", pinned 0x%016" PRIx64
          " (a change of results: if intended, re-pin as tests/golden.h says)",
          name, backend, got, pinned);
}

int main(void) {
    uint64_t got_ref[GOLDEN_COUNT], got_cpu[GOLDEN_COUNT];
    for (int i = 0; i < GOLDEN_COUNT; i++) {
        const golden_scenario *g = &golden_scenarios[i];
        scenario s = {.name = g->name};
        golden_setup(g, &s.p, &s.f);
        got_ref[i] = cpu_ref_hash(&s, 1, 0, g->steps);
        check_hash("cpu-ref 1 thread", g->name, got_ref[i], golden_cpu_ref[i]);
        check_hash("cpu-ref 2 threads", g->name, cpu_ref_hash(&s, 2, 0, g->steps),
                   golden_cpu_ref[i]);
        check_hash("cpu-ref scalar", g->name, cpu_ref_hash(&s, 2, 1, g->steps), golden_cpu_ref[i]);
        got_cpu[i] = run_hash(&s, 1, 0, g->steps);
        check_hash("cpu 1 thread", g->name, got_cpu[i], golden_cpu[i]);
        check_hash("cpu 2 threads", g->name, run_hash(&s, 2, 0, g->steps), golden_cpu[i]);
        check_same_bits(&s, g->steps);
        boids_flock_free(&s.f);
    }
    golden_print_table("golden_cpu_ref", got_ref);
    golden_print_table("golden_cpu", got_cpu);
    return CHECK_DONE("golden_cpu_test");
}
