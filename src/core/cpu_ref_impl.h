/* SPDX-License-Identifier: MIT */
/* The parts of the exact reference (cpu_ref.c) that do not depend on the dimension, ahead of
 * its instances for the plane and the box: the thread setup, the per-thread topological
 * neighbour lists and the AVX2 lanes of the pair scan. Only
 * cpu_ref.c includes this; cpu_ref.h stays the hooks the tests and the benchmark see. */
#ifndef BOIDS_CPU_REF_IMPL_H
#define BOIDS_CPU_REF_IMPL_H

#include <stdlib.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "boids/backend.h"
#include "cpu_avx2.h"
#include "rules_topo.h" /* the k-nearest selection's entries and id order */

/* The AVX2 scan is built with the cpu path's AVX2 kernels (CMake option BOIDS_AVX2, x86-64
 * only) and runs only where the processor has AVX2; scan_scalar is the same operations. */
#if defined(BOIDS_AVX2) && BOIDS_AVX2
#include <immintrin.h>
#define HAVE_AVX2_SCAN 1
#else
#define HAVE_AVX2_SCAN 0
#endif

/* The pre-test of a scan: keep every pair, or those with dist2 < limit, or dist2 <= limit. */
typedef enum keep_mode { KEEP_ALL, KEEP_LT, KEEP_LE } keep_mode;

static inline int ref_keeps(keep_mode keep, double dist2, double limit) {
    return keep == KEEP_ALL || (keep == KEEP_LT ? dist2 < limit : dist2 <= limit);
}

#if HAVE_AVX2_SCAN
/* rules_wrap on four lanes: d + side where d < -half, then d - side where d > half (so that
 * test wins, as in rules_wrap), else d. The same one subtraction or addition per lane as
 * rules_wrap, hence the same value; a NaN fails both tests there and here. */
__attribute__((target("avx2"))) static inline __m256d wrap4(__m256d d, double side, double half) {
    const __m256d s = _mm256_set1_pd(side), h = _mm256_set1_pd(half), nh = _mm256_set1_pd(-half);
    __m256d r = _mm256_blendv_pd(d, _mm256_add_pd(d, s), _mm256_cmp_pd(d, nh, _CMP_LT_OQ));
    return _mm256_blendv_pd(r, _mm256_sub_pd(d, s), _mm256_cmp_pd(d, h, _CMP_GT_OQ));
}

/* ref_keeps on four lanes of squared distances against lim (limit in every lane): a bit
 * per kept lane, with the ordered compares that C's < and <= are. */
__attribute__((target("avx2"))) static inline unsigned keep4(keep_mode keep, __m256d dist2,
                                                             __m256d lim) {
    if (keep == KEEP_ALL) return 0xFu;
    if (keep == KEEP_LT) return (unsigned)_mm256_movemask_pd(_mm256_cmp_pd(dist2, lim, _CMP_LT_OQ));
    return (unsigned)_mm256_movemask_pd(_mm256_cmp_pd(dist2, lim, _CMP_LE_OQ));
}
#endif

/* The threads a step shares its boids among: the set count, or OpenMP's default for <= 0. */
static inline int ref_thread_count(int threads) {
#ifdef _OPENMP
    return threads > 0 ? threads : omp_get_max_threads();
#else
    (void)threads;
    return 1;
#endif
}

static inline size_t ref_thread_id(void) {
#ifdef _OPENMP
    return (size_t)omp_get_thread_num();
#else
    return 0;
#endif
}

/* Each thread's topological list of one boid: cap entries per thread, the selection (the
 * rules' k nearest, rules_topo.h) and its ids in the order of the sums. */
typedef struct ref_lists {
    size_t *nb;                /* the kept neighbours of one boid, cap per thread */
    rules_nearest_double *sel; /* the selection, cap per thread */
    size_t cap;                /* entries of nb and of sel per thread in this step: min(k, n) */
    size_t size;               /* entries of nb and of sel allocated */
} ref_lists;

/* Makes room for each thread's list of a flock of n, min(k, n) entries, when p needs one. */
static inline boids_status ref_lists_reserve(ref_lists *l, const boids_params *p, size_t n,
                                             int threads, boids_error *err) {
    if (p->neighbours != BOIDS_NEIGHBOURS_TOPOLOGICAL) return BOIDS_OK;
    l->cap = (size_t)p->k < n ? (size_t)p->k : n;
    size_t need = l->cap * (size_t)threads;
    if (need <= l->size) return BOIDS_OK;
    size_t *nb = realloc(l->nb, need * sizeof *nb);
    if (nb) l->nb = nb;
    rules_nearest_double *sel = nb ? realloc(l->sel, need * sizeof *sel) : NULL;
    if (!sel)
        return boids_error_set(err, BOIDS_ERR_NOMEM, "out of memory for %d neighbour lists",
                               threads);
    l->sel = sel;
    l->size = need;
    return BOIDS_OK;
}

/* The calling thread's lists (NULL when no step reserved any). */
static inline void ref_lists_thread(const ref_lists *l, size_t **nb, rules_nearest_double **sel) {
    *nb = l->nb ? l->nb + ref_thread_id() * l->cap : NULL;
    *sel = l->sel ? l->sel + ref_thread_id() * l->cap : NULL;
}

static inline void ref_lists_free(ref_lists *l) {
    free(l->nb);
    free(l->sel);
}

#endif
