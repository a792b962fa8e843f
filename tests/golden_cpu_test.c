/* SPDX-License-Identifier: MIT */
/* The pinned golden state hashes of tests/golden.h on the CPU backends, for the plane's and
 * the box's scenarios alike: cpu-ref at 1 and at 2 threads and with its scalar scan, and cpu
 * at 1 and at 2 threads, each against one constant (both backends promise the same bits for
 * every thread count; check_same_bits adds 3 and 4 threads and the scalar kernel of cpu). A
 * mismatch prints the hash got; BOIDS_GOLDEN_PRINT=1 prints the table to paste when a change
 * of results is intended (see tests/golden.h). */
#include "boids/backend.h"
#include "check.h"
#include "cpu_fixture.h"
#include "golden.h"

static void check_hash(const char *backend, const char *name, uint64_t got, uint64_t pinned) {
    printf("%-26s %-18s 0x%016" PRIx64 " %s\n", name, backend, got,
           got == pinned ? "pinned" : "DIFFERS");
    CHECK(got == pinned,
          "%s %s: state hash 0x%016" PRIx64 ", pinned 0x%016" PRIx64
          " (a change of results: if intended, re-pin as tests/golden.h says)",
          name, backend, got, pinned);
}

int main(void) {
    golden_pins got[GOLDEN_COUNT];
    for (int i = 0; i < GOLDEN_COUNT; i++) {
        const golden_scenario *g = &golden_scenarios[i];
        const golden_pins *pin = &golden_pinned[i];
        scenario s = {.name = g->name};
        golden_setup(g, &s.p, &s.f);
        got[i] = *pin;
        got[i].cpu_ref = cpu_ref_hash(&s, 1, 0, g->steps);
        check_hash("cpu-ref 1 thread", g->name, got[i].cpu_ref, pin->cpu_ref);
        check_hash("cpu-ref 2 threads", g->name, cpu_ref_hash(&s, 2, 0, g->steps), pin->cpu_ref);
        check_hash("cpu-ref scalar", g->name, cpu_ref_hash(&s, 2, 1, g->steps), pin->cpu_ref);
        got[i].cpu = run_hash(&s, 1, 0, g->steps);
        check_hash("cpu 1 thread", g->name, got[i].cpu, pin->cpu);
        check_hash("cpu 2 threads", g->name, run_hash(&s, 2, 0, g->steps), pin->cpu);
        check_same_bits(&s, g->steps);
        /* A float run that hashed as the double one would mean cpu ran in double (or not at
         * all): the two columns must be two computations. */
        CHECK(got[i].cpu_ref != got[i].cpu, "%s: float and double give the same bits", g->name);
        boids_flock_free(&s.f);
    }
    golden_print_table(got);
    return CHECK_DONE("golden_cpu_test");
}
