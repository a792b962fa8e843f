/* SPDX-License-Identifier: MIT */
/* The one monotonic clock, and this process's CPU time. Part of the support library
 * (src/support), not of the public API.
 *
 * Every duration the project measures is a difference of mono_seconds(): the progress line
 * and the sim and sweep timings, the provenance sidecars' run time, the viewer's frame
 * pacing, the GPU stages' host-side times, the cpu grid's choice of thread count and
 * boids-bench. It never goes back and does not follow changes to the wall clock; its zero
 * is arbitrary (the boot, on Linux), so only differences mean something.
 *
 * Threads: reentrant. */
#ifndef BOIDS_CLOCK_H
#define BOIDS_CLOCK_H

/* Seconds on the monotonic clock (CLOCK_MONOTONIC), to about a nanosecond. */
double mono_seconds(void);

/* Seconds of CPU time this process has used so far, all its threads together
 * (CLOCK_PROCESS_CPUTIME_ID). */
double cpu_seconds(void);

#endif
