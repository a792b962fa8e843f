/* SPDX-License-Identifier: MIT */
/* Whether the processor runs the AVX2 (and AVX-512) kernels: one answer for the cpu grid
 * (cpu_grid.c) and the exact reference (cpu_ref.c, both dimensions). Include it only from files
 * built without -mavx2: where that flag is on, the compiler may use AVX encodings anywhere, before
 * the answer is known. Without the BOIDS_AVX2 build option (x86-64 only) the answer is no. */
#ifndef BOIDS_CPU_AVX2_H
#define BOIDS_CPU_AVX2_H

static inline int cpu_has_avx2(void) {
#if defined(BOIDS_AVX2) && BOIDS_AVX2
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") != 0;
#else
    return 0;
#endif
}

/* Whether it runs the AVX-512 kernels too (AVX-512 F and DQ; libgcc's check includes the
 * operating system's support of the registers). */
static inline int cpu_has_avx512(void) {
#if defined(BOIDS_AVX2) && BOIDS_AVX2
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq");
#else
    return 0;
#endif
}

#endif
