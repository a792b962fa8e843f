/* SPDX-License-Identifier: MIT */
/* The SIMD operations of the grid path's kernels (cpu_grid_simd.c), over the vector width
 * SIMD_W: 8 floats (AVX2, masks as vectors of all-ones lanes) or 16 (AVX-512F/DQ, masks as
 * mask registers). Each operation rounds as the scalar one it stands for (IEEE add, sub,
 * mul, div, sqrt; no contraction), so a kernel written over them gives the same bits at
 * either width. A masked add or subtract leaves the other lanes as they were: at width 8 it
 * adds or subtracts +0 there (sum + (m & x)), which is the identity on every sum the kernels
 * make (they start at +0 and, under round-to-nearest, a sum of terms that starts at +0 is
 * never -0); at width 16 the mask register keeps the lane. Included only by files built
 * with the matching -m flags. Not part of the public API. */
#ifndef BOIDS_CPU_SIMD_H
#define BOIDS_CPU_SIMD_H

#include <immintrin.h>
#include <stdint.h>

#if SIMD_W == 16
#if !defined(__AVX512F__) || !defined(__AVX512DQ__)
#error "SIMD_W 16 is built with -mavx512f -mavx512dq"
#endif
#define SIMD_SFX avx512
typedef __m512 vf;
typedef __m512i vi;
typedef __mmask16 vm;

static inline vf vf_set1(float x) {
    return _mm512_set1_ps(x);
}
static inline vf vf_zero(void) {
    return _mm512_setzero_ps();
}
static inline vf vf_add(vf a, vf b) {
    return _mm512_add_ps(a, b);
}
static inline vf vf_sub(vf a, vf b) {
    return _mm512_sub_ps(a, b);
}
static inline vf vf_mul(vf a, vf b) {
    return _mm512_mul_ps(a, b);
}
static inline vf vf_div(vf a, vf b) {
    return _mm512_div_ps(a, b);
}
static inline vf vf_sqrt(vf a) {
    return _mm512_sqrt_ps(a);
}
/* Of two non-NaN values, the lower and the higher. */
static inline vf vf_min(vf a, vf b) {
    return _mm512_min_ps(a, b);
}
static inline vf vf_max(vf a, vf b) {
    return _mm512_max_ps(a, b);
}
static inline vf vf_neg(vf a) {
    return _mm512_xor_ps(a, _mm512_set1_ps(-0.0f));
}
static inline vm vm_lt(vf a, vf b) {
    return _mm512_cmp_ps_mask(a, b, _CMP_LT_OQ);
}
static inline vm vm_le(vf a, vf b) {
    return _mm512_cmp_ps_mask(a, b, _CMP_LE_OQ);
}
static inline vm vm_gt(vf a, vf b) {
    return _mm512_cmp_ps_mask(a, b, _CMP_GT_OQ);
}
static inline vm vm_ge(vf a, vf b) {
    return _mm512_cmp_ps_mask(a, b, _CMP_GE_OQ);
}
static inline vm vm_eq(vf a, vf b) {
    return _mm512_cmp_ps_mask(a, b, _CMP_EQ_OQ);
}
static inline vm vm_neq(vf a, vf b) {
    return _mm512_cmp_ps_mask(a, b, _CMP_NEQ_UQ);
}
static inline vm vm_and(vm a, vm b) {
    return (vm)(a & b);
}
static inline vm vm_or(vm a, vm b) {
    return (vm)(a | b);
}
static inline vm vm_andnot(vm a, vm b) {
    return (vm)(~a & b);
} /* b and not a */
static inline vm vm_all(void) {
    return (vm)0xFFFF;
}
static inline vm vm_none(void) {
    return (vm)0;
}
static inline unsigned vm_bits(vm m) {
    return m;
}
/* Where m: t, else f. */
static inline vf vf_sel(vm m, vf f, vf t) {
    return _mm512_mask_blend_ps(m, f, t);
}
/* Where m: x, else +0. */
static inline vf vf_and(vm m, vf x) {
    return _mm512_maskz_mov_ps(m, x);
}
/* Where m: s + x (s - x), else s. */
static inline vf vf_add_m(vf s, vm m, vf x) {
    return _mm512_mask_add_ps(s, m, s, x);
}
static inline vf vf_sub_m(vf s, vm m, vf x) {
    return _mm512_mask_sub_ps(s, m, s, x);
}
/* The first n lanes (n <= 16). */
static inline vm vm_first(uint32_t n) {
    return (vm)(n >= 16 ? 0xFFFFu : (1u << n) - 1);
}
static inline vi vi_lane(void) {
    return _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
}
static inline vi vi_set1(int32_t x) {
    return _mm512_set1_epi32(x);
}
static inline vi vi_zero(void) {
    return _mm512_setzero_si512();
}
/* i0 + the lane index where m, i0 elsewhere. */
static inline vi vi_slots(uint32_t i0, vm m) {
    return _mm512_add_epi32(_mm512_set1_epi32((int32_t)i0), _mm512_maskz_mov_epi32(m, vi_lane()));
}
static inline vm vi_eq(vi a, vi b) {
    return _mm512_cmpeq_epi32_mask(a, b);
}
/* One more where m. */
static inline vi vi_count(vi c, vm m) {
    return _mm512_mask_add_epi32(c, m, c, _mm512_set1_epi32(1));
}
/* Slots [i0, i0 + 16) of a where m, a[i0] elsewhere (no memory beyond m is touched). */
static inline vf vf_load_lanes(const float *a, uint32_t i0, vm m) {
    return _mm512_mask_loadu_ps(_mm512_set1_ps(a[i0]), m, a + i0);
}
/* a[x[l]] in each lane l (x at most INT32_MAX). */
static inline vf vf_gather(const float *a, vi x) {
    return _mm512_i32gather_ps(x, a, 4);
}
static inline void vf_store_m(float *a, vm m, vf x) {
    _mm512_mask_storeu_ps(a, m, x);
}
static inline void vf_store(float *a, vf x) {
    _mm512_storeu_ps(a, x);
}
static inline void vi_store(int32_t *a, vi x) {
    _mm512_storeu_si512((void *)a, x);
}
/* The integer ops of the cell coordinates (vi_cell_coord). */
static inline vi vi_trunc(vf x) {
    return _mm512_cvttps_epi32(x);
}
static inline vi vi_min_u(vi a, vi b) {
    return _mm512_min_epu32(a, b);
}
static inline vi vi_sel(vm m, vi f, vi t) {
    return _mm512_mask_blend_epi32(m, f, t);
}
static inline vi vi_and(vm m, vi x) {
    return _mm512_maskz_mov_epi32(m, x);
}
static inline vi vi_mul(vi a, vi b) {
    return _mm512_mullo_epi32(a, b);
}
static inline vi vi_add(vi a, vi b) {
    return _mm512_add_epi32(a, b);
}
static inline vm vm_nlt(vf a, vf b) { /* not a < b: a >= b or unordered */
    return _mm512_cmp_ps_mask(a, b, _CMP_NLT_UQ);
}
static inline void vi_store_m(int32_t *a, vm m, vi x) {
    _mm512_mask_storeu_epi32(a, m, x);
}

#elif SIMD_W == 8
#ifndef __AVX2__
#error "SIMD_W 8 is built with -mavx2"
#endif
#define SIMD_SFX avx2
typedef __m256 vf;
typedef __m256i vi;
typedef __m256 vm;

static inline vf vf_set1(float x) {
    return _mm256_set1_ps(x);
}
static inline vf vf_zero(void) {
    return _mm256_setzero_ps();
}
static inline vf vf_add(vf a, vf b) {
    return _mm256_add_ps(a, b);
}
static inline vf vf_sub(vf a, vf b) {
    return _mm256_sub_ps(a, b);
}
static inline vf vf_mul(vf a, vf b) {
    return _mm256_mul_ps(a, b);
}
static inline vf vf_div(vf a, vf b) {
    return _mm256_div_ps(a, b);
}
static inline vf vf_sqrt(vf a) {
    return _mm256_sqrt_ps(a);
}
static inline vf vf_min(vf a, vf b) {
    return _mm256_min_ps(a, b);
}
static inline vf vf_max(vf a, vf b) {
    return _mm256_max_ps(a, b);
}
static inline vf vf_neg(vf a) {
    return _mm256_xor_ps(a, _mm256_set1_ps(-0.0f));
}
static inline vm vm_lt(vf a, vf b) {
    return _mm256_cmp_ps(a, b, _CMP_LT_OQ);
}
static inline vm vm_le(vf a, vf b) {
    return _mm256_cmp_ps(a, b, _CMP_LE_OQ);
}
static inline vm vm_gt(vf a, vf b) {
    return _mm256_cmp_ps(a, b, _CMP_GT_OQ);
}
static inline vm vm_ge(vf a, vf b) {
    return _mm256_cmp_ps(a, b, _CMP_GE_OQ);
}
static inline vm vm_eq(vf a, vf b) {
    return _mm256_cmp_ps(a, b, _CMP_EQ_OQ);
}
static inline vm vm_neq(vf a, vf b) {
    return _mm256_cmp_ps(a, b, _CMP_NEQ_UQ);
}
static inline vm vm_and(vm a, vm b) {
    return _mm256_and_ps(a, b);
}
static inline vm vm_or(vm a, vm b) {
    return _mm256_or_ps(a, b);
}
static inline vm vm_andnot(vm a, vm b) {
    return _mm256_andnot_ps(a, b);
} /* b and not a */
static inline vm vm_all(void) {
    return _mm256_castsi256_ps(_mm256_set1_epi32(-1));
}
static inline vm vm_none(void) {
    return _mm256_setzero_ps();
}
static inline unsigned vm_bits(vm m) {
    return (unsigned)_mm256_movemask_ps(m);
}
static inline vf vf_sel(vm m, vf f, vf t) {
    return _mm256_blendv_ps(f, t, m);
}
static inline vf vf_and(vm m, vf x) {
    return _mm256_and_ps(m, x);
}
static inline vf vf_add_m(vf s, vm m, vf x) {
    return _mm256_add_ps(s, _mm256_and_ps(m, x));
}
/* s - x where m, computed on every lane and blended (the lanes that keep s may take any
 * value in between). */
static inline vf vf_sub_m(vf s, vm m, vf x) {
    return _mm256_blendv_ps(s, _mm256_sub_ps(s, x), m);
}
static inline vi vi_lane(void) {
    return _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
}
static inline vm vm_first(uint32_t n) {
    return _mm256_castsi256_ps(_mm256_cmpgt_epi32(_mm256_set1_epi32((int32_t)n), vi_lane()));
}
static inline vi vi_set1(int32_t x) {
    return _mm256_set1_epi32(x);
}
static inline vi vi_zero(void) {
    return _mm256_setzero_si256();
}
static inline vi vi_slots(uint32_t i0, vm m) {
    return _mm256_add_epi32(_mm256_set1_epi32((int32_t)i0),
                            _mm256_and_si256(vi_lane(), _mm256_castps_si256(m)));
}
static inline vm vi_eq(vi a, vi b) {
    return _mm256_castsi256_ps(_mm256_cmpeq_epi32(a, b));
}
static inline vi vi_count(vi c, vm m) {
    return _mm256_sub_epi32(c, _mm256_castps_si256(m));
}
static inline vf vf_load_lanes(const float *a, uint32_t i0, vm m) {
    return _mm256_blendv_ps(_mm256_set1_ps(a[i0]),
                            _mm256_maskload_ps(a + i0, _mm256_castps_si256(m)), m);
}
static inline vf vf_gather(const float *a, vi x) {
    return _mm256_i32gather_ps(a, x, 4);
}
static inline void vf_store_m(float *a, vm m, vf x) {
    _mm256_maskstore_ps(a, _mm256_castps_si256(m), x);
}
static inline void vf_store(float *a, vf x) {
    _mm256_storeu_ps(a, x);
}
static inline void vi_store(int32_t *a, vi x) {
    _mm256_storeu_si256((__m256i *)(void *)a, x);
}
static inline vi vi_trunc(vf x) {
    return _mm256_cvttps_epi32(x);
}
static inline vi vi_min_u(vi a, vi b) {
    return _mm256_min_epu32(a, b);
}
static inline vi vi_sel(vm m, vi f, vi t) {
    return _mm256_blendv_epi8(f, t, _mm256_castps_si256(m));
}
static inline vi vi_and(vm m, vi x) {
    return _mm256_and_si256(_mm256_castps_si256(m), x);
}
static inline vi vi_mul(vi a, vi b) {
    return _mm256_mullo_epi32(a, b);
}
static inline vi vi_add(vi a, vi b) {
    return _mm256_add_epi32(a, b);
}
static inline vm vm_nlt(vf a, vf b) {
    return _mm256_cmp_ps(a, b, _CMP_NLT_UQ);
}
static inline void vi_store_m(int32_t *a, vm m, vi x) {
    _mm256_maskstore_epi32((int *)a, _mm256_castps_si256(m), x);
}

#else
#error "define SIMD_W as 8 or 16"
#endif

/* grid_cell_coord (grid_geom.h) on every lane, for an axis of n <= INT32_MAX cells (nf:
 * (float)n, nm1: n - 1), x relative to the origin: where 0 < f < nf, f < 2^31 and the
 * truncation to int32 is (uint32_t)f; then the same clamps, in the same order of
 * precedence. */
static inline vi vi_cell_coord(vf x, vf s, vf nf, vi nm1) {
    const vf f = vf_mul(x, s);
    const vi c = vi_sel(vm_nlt(f, nf), vi_min_u(vi_trunc(f), nm1), nm1);
    return vi_and(vm_gt(f, vf_zero()), c);
}

#define SIMD_CAT_(a, b) a##_##b
#define SIMD_CAT(a, b)  SIMD_CAT_(a, b)
/* The kernel `name` of this width and instance: grid_reynolds -> grid_reynolds_avx2_f2. */
#define SIMD_FN(name) RULES_FN(SIMD_CAT(name, SIMD_SFX))

#endif
