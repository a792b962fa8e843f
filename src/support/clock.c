/* SPDX-License-Identifier: MIT */
#include "clock.h"

#include <time.h>

static double seconds(clockid_t id) {
    struct timespec t;
    clock_gettime(id, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

double mono_seconds(void) {
    return seconds(CLOCK_MONOTONIC);
}

double cpu_seconds(void) {
    return seconds(CLOCK_PROCESS_CPUTIME_ID);
}
