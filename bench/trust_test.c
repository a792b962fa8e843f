/* SPDX-License-Identifier: MIT */
/* bench_trust_judge on synthetic numbers: which points are flagged, and that the reason
 * names the cause. The rule itself (bench.h, "trust") is what is tested, so every case is
 * placed clearly on one side of a threshold or exactly on it. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bench.h"

static int failures;

/* Judges in and checks the verdict and that why contains each of the words ("" none). */
static void expect(const char *name, bench_trust_in in, int trusted, const char *word1,
                   const char *word2) {
    char why[256];
    int got = bench_trust_judge(&in, why, sizeof why);
    int ok = got == trusted && (trusted ? why[0] == '\0' : why[0] != '\0') && strstr(why, word1) &&
             strstr(why, word2);
    printf("%s %s: %s -> %s\n", ok ? "ok  " : "FAIL", name, got ? "trusted" : "untrusted", why);
    failures += !ok;
}

int main(void) {
    /* cores, threads, others_cpu, load, utilisation */
    expect("idle machine, 2 threads on 2 cores", (bench_trust_in){2, 2, 0.05, 2.1, 0.97}, 1, "",
           "");
    expect("others within the slack", (bench_trust_in){2, 2, BENCH_OTHERS_SLACK, 9.0, 0.9}, 1, "",
           "");
    expect("others on the free core of a 1-thread point", (bench_trust_in){2, 1, 1.2, 3.0, 0.95}, 1,
           "", "");
    expect("others took a core a 2-thread point needed", (bench_trust_in){2, 2, 1.62, 0.5, 0.9}, 0,
           "others used 1.62 cores", "0 free (2 cores, 2 threads)");
    expect("others beyond the free cores of a 1-thread point",
           (bench_trust_in){16, 1, 15.5, 0.0, 0.99}, 0, "others used 15.50", "15 free");
    expect("the load only counts where the others are unknown",
           (bench_trust_in){2, 2, NAN, 5.2, 0.95}, 0, "load 5.20 > 2 cores", "");
    expect("load at the slack is trusted",
           (bench_trust_in){2, 2, NAN, 2.0 + BENCH_LOAD_SLACK, 0.95}, 1, "", "");
    expect("load unknown too", (bench_trust_in){2, 2, NAN, -1.0, 0.95}, 1, "", "");
    expect("low utilisation", (bench_trust_in){2, 2, 0.0, 1.0, 0.41}, 0, "utilisation 0.41 of 2",
           "threads");
    expect("utilisation at the threshold", (bench_trust_in){2, 1, 0.0, 1.0, BENCH_MIN_UTILISATION},
           1, "", "");
    expect("utilisation not judged (GPU)", (bench_trust_in){2, 2, 0.0, 1.0, NAN}, 1, "", "");
    expect("both causes, both named", (bench_trust_in){2, 2, 1.9, 7.0, 0.35}, 0, "others used",
           "; utilisation 0.35 of 2 threads");
    expect("threads unknown count as one", (bench_trust_in){2, 0, 1.5, 1.0, NAN}, 0,
           "(2 cores, 1 thread)", "");
    expect("more threads than cores leave none free", (bench_trust_in){2, 4, 0.3, 1.0, 0.9}, 0,
           "0 free (2 cores, 4 threads)", "");
    if (failures) {
        printf("%d case(s) failed\n", failures);
        return 1;
    }
    printf("all cases passed\n");
    return 0;
}
