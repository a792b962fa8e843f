/* SPDX-License-Identifier: MIT */
/* cpu: the AVX2 neighbour kernels. Each evaluates 8 boids of one cell against each
 * candidate (they share the candidate list), so each boid still sums its neighbours one
 * after the other in candidate order: it performs exactly the float operations of
 * rules_offset, rules_sees and rules_acc_add (or of the Vicsek sum), with blends in place
 * of branches, and gives the scalar kernel's bits. Written with intrinsics and not left to
 * the auto-vectoriser because, under the core's strict IEEE flags (trapping math,
 * errno-setting sqrt, no contraction), GCC does not vectorise that loop.
 *
 * This whole file is compiled with -mavx2 (CMake, only with BOIDS_AVX2): the backend calls
 * into it only after checking that the processor has AVX2, so nothing else may live here. */
#ifndef __AVX2__
#error "cpu_grid_avx2.c is built with -mavx2 (BOIDS_AVX2)"
#endif

#include <immintrin.h>
#include <stdint.h>

#include "cpu_grid_impl.h"

/* rules_wrap on 8 lanes, branch-free: d - side where d > half, d + side where d < -half. */
static inline __m256 wrap8(__m256 d, __m256 side, __m256 half, __m256 neg_half) {
    __m256 r = _mm256_blendv_ps(d, _mm256_sub_ps(d, side), _mm256_cmp_ps(d, half, _CMP_GT_OQ));
    return _mm256_blendv_ps(r, _mm256_add_ps(d, side), _mm256_cmp_ps(d, neg_half, _CMP_LT_OQ));
}

/* What both kernels need of their 8 lanes and the world: the lanes' positions and slots,
 * and the wrap constants. */
typedef struct lanes8 {
    __m256 xi, yi;
    __m256i self;
    __m256 W, H, hw, nhw, hh, nhh;
    int wrap_x, wrap_y;
} lanes8;

/* The lanes of cell group q (the spare ones repeat the first boid); v receives their
 * velocities when not NULL. */
static inline lanes8 lanes8_load(const state *s, const rules_k_f *k, const cell_group *q,
                                 __m256 *vx, __m256 *vy) {
    float lx[LANES], ly[LANES], lvx[LANES], lvy[LANES];
    int32_t self[LANES];
    for (uint32_t l = 0; l < LANES; l++) {
        uint32_t i = q->i0 + (l < q->lanes ? l : 0);
        lx[l] = s->x[i];
        ly[l] = s->y[i];
        lvx[l] = s->vx[i];
        lvy[l] = s->vy[i];
        self[l] = (int32_t)i;
    }
    if (vx) *vx = _mm256_loadu_ps(lvx);
    if (vy) *vy = _mm256_loadu_ps(lvy);
    return (lanes8){_mm256_loadu_ps(lx),
                    _mm256_loadu_ps(ly),
                    _mm256_loadu_si256((const __m256i *)(const void *)self),
                    _mm256_set1_ps(k->width),
                    _mm256_set1_ps(k->height),
                    _mm256_set1_ps(k->half_w),
                    _mm256_set1_ps(-k->half_w),
                    _mm256_set1_ps(k->half_h),
                    _mm256_set1_ps(-k->half_h),
                    q->wrap_x,
                    q->wrap_y};
}

/* rules_offset and d2 = dx*dx + dy*dy from the 8 lanes to candidate j, and the lanes that
 * are j itself. */
static inline __m256 offset8(const lanes8 *g, const state *s, uint32_t j, __m256 *dx, __m256 *dy,
                             __m256 *is_self) {
    *dx = _mm256_sub_ps(_mm256_set1_ps(s->x[j]), g->xi);
    *dy = _mm256_sub_ps(_mm256_set1_ps(s->y[j]), g->yi);
    if (g->wrap_x) *dx = wrap8(*dx, g->W, g->hw, g->nhw);
    if (g->wrap_y) *dy = wrap8(*dy, g->H, g->hh, g->nhh);
    *is_self = _mm256_castsi256_ps(_mm256_cmpeq_epi32(g->self, _mm256_set1_epi32((int32_t)j)));
    return _mm256_add_ps(_mm256_mul_ps(*dx, *dx), _mm256_mul_ps(*dy, *dy));
}

/* The lanes' sums into out[0 .. lanes): velocities, offsets and separation terms (x, y
 * each), the neighbour counts, and sep, the lanes that saw a close neighbour. The vectors
 * come by value: an array of them would keep the loop's sums in memory. */
static inline void store_sums(rules_acc_f *out, uint32_t lanes, __m256 mvx, __m256 mvy, __m256 cx,
                              __m256 cy, __m256 sx, __m256 sy, __m256i cnt, __m256 sep) {
    float o[6][LANES];
    int32_t ocnt[LANES];
    _mm256_storeu_ps(o[0], mvx);
    _mm256_storeu_ps(o[1], mvy);
    _mm256_storeu_ps(o[2], cx);
    _mm256_storeu_ps(o[3], cy);
    _mm256_storeu_ps(o[4], sx);
    _mm256_storeu_ps(o[5], sy);
    _mm256_storeu_si256((__m256i *)(void *)ocnt, cnt);
    const int sepbits = _mm256_movemask_ps(sep);
    for (uint32_t l = 0; l < lanes; l++) {
        out[l].n = ocnt[l];
        out[l].mvx = o[0][l];
        out[l].mvy = o[1][l];
        out[l].cx = o[2][l];
        out[l].cy = o[3][l];
        out[l].sx = o[4][l];
        out[l].sy = o[5][l];
        out[l].separated = (sepbits >> l) & 1;
    }
}

/* Neighbour sums of the boids in slots [i0, i0 + lanes) of the snapshot (lanes <= 8; the
 * spare lanes repeat the first boid and are ignored). Operation for operation the same as
 * reynolds_scalar (cpu_grid.c): d = x_j - x_i wrapped by rules_wrap's comparisons,
 * d2 = dx*dx + dy*dy, the fov test dot >= cos(fov/2) * sqrt(vv * d2) (a float sqrt equals
 * rules.h's double sqrt rounded to float: double rounding is exact for sqrt), and each sum
 * updated by a blend of (sum + term), never by adding a masked zero (which would turn -0
 * into +0). */
void boids_cpu_reynolds_avx2(const state *s, const rules_k_f *k, const cell_group *q,
                             rules_acc_f out[LANES]) {
    const range *const r = q->r;
    const int nr = q->nr;
    const uint32_t lanes = q->lanes;
    __m256 vxi, vyi;
    const lanes8 g = lanes8_load(s, k, q, &vxi, &vyi);
    const __m256 zero = _mm256_setzero_ps();
    const __m256 vv = _mm256_add_ps(_mm256_mul_ps(vxi, vxi), _mm256_mul_ps(vyi, vyi));
    const __m256 vv0 = _mm256_cmp_ps(vv, zero, _CMP_EQ_OQ);
    const __m256 v2 = _mm256_set1_ps(k->vision2), s2 = _mm256_set1_ps(k->sep2);
    const __m256 cf = _mm256_set1_ps(k->cos_half_fov);
    const int full_fov = k->full_fov;
    __m256 mvx = zero, mvy = zero, cx = zero, cy = zero, sx = zero, sy = zero, sep = zero;
    __m256i cnt = _mm256_setzero_si256();
    for (int q = 0; q < nr; q++)
        for (uint32_t j = r[q].b; j < r[q].e; j++) {
            __m256 dx, dy, is_self;
            const __m256 d2 = offset8(&g, s, j, &dx, &dy, &is_self);
            __m256 m = _mm256_andnot_ps(is_self, _mm256_cmp_ps(d2, v2, _CMP_LT_OQ));
            if (!full_fov) {
                const __m256 dot = _mm256_add_ps(_mm256_mul_ps(vxi, dx), _mm256_mul_ps(vyi, dy));
                const __m256 lim = _mm256_mul_ps(cf, _mm256_sqrt_ps(_mm256_mul_ps(vv, d2)));
                const __m256 ok =
                    _mm256_or_ps(_mm256_or_ps(vv0, _mm256_cmp_ps(d2, zero, _CMP_EQ_OQ)),
                                 _mm256_cmp_ps(dot, lim, _CMP_GE_OQ));
                m = _mm256_and_ps(m, ok);
            }
            mvx = _mm256_blendv_ps(mvx, _mm256_add_ps(mvx, _mm256_set1_ps(s->vx[j])), m);
            mvy = _mm256_blendv_ps(mvy, _mm256_add_ps(mvy, _mm256_set1_ps(s->vy[j])), m);
            cx = _mm256_blendv_ps(cx, _mm256_add_ps(cx, dx), m);
            cy = _mm256_blendv_ps(cy, _mm256_add_ps(cy, dy), m);
            cnt = _mm256_sub_epi32(cnt, _mm256_castps_si256(m)); /* a true lane is -1 */
            const __m256 sm = _mm256_and_ps(m, _mm256_and_ps(_mm256_cmp_ps(zero, d2, _CMP_LT_OQ),
                                                             _mm256_cmp_ps(d2, s2, _CMP_LT_OQ)));
            sx = _mm256_blendv_ps(sx, _mm256_sub_ps(sx, _mm256_div_ps(dx, d2)), sm);
            sy = _mm256_blendv_ps(sy, _mm256_sub_ps(sy, _mm256_div_ps(dy, d2)), sm);
            sep = _mm256_or_ps(sep, sm);
        }
    store_sums(out, lanes, mvx, mvy, cx, cy, sx, sy, cnt, sep);
}

/* Vicsek heading sums of the boids in slots [i0, i0 + lanes): like the Reynolds kernel,
 * each lane adds the unit headings of its candidates one after the other in candidate
 * order, exactly as vicsek_scalar (cpu_grid.c) does: accepted when d2 <= R^2 (the seed's
 * "no mayor que R") or when the candidate is the boid itself (always included, whatever
 * its position). */
void boids_cpu_vicsek_avx2(const state *s, const float *ux, const float *uy, const rules_k_f *k,
                           const cell_group *q, float osx[LANES], float osy[LANES],
                           int32_t ocnt[LANES]) {
    const range *const r = q->r;
    const int nr = q->nr;
    const lanes8 g = lanes8_load(s, k, q, NULL, NULL);
    const __m256 zero = _mm256_setzero_ps();
    const __m256 v2 = _mm256_set1_ps(k->vision2);
    __m256 sx = zero, sy = zero;
    __m256i cnt = _mm256_setzero_si256();
    for (int q = 0; q < nr; q++)
        for (uint32_t j = r[q].b; j < r[q].e; j++) {
            __m256 dx, dy, is_self;
            const __m256 d2 = offset8(&g, s, j, &dx, &dy, &is_self);
            const __m256 m = _mm256_or_ps(is_self, _mm256_cmp_ps(d2, v2, _CMP_LE_OQ));
            sx = _mm256_blendv_ps(sx, _mm256_add_ps(sx, _mm256_set1_ps(ux[j])), m);
            sy = _mm256_blendv_ps(sy, _mm256_add_ps(sy, _mm256_set1_ps(uy[j])), m);
            cnt = _mm256_sub_epi32(cnt, _mm256_castps_si256(m)); /* a true lane is -1 */
        }
    _mm256_storeu_ps(osx, sx);
    _mm256_storeu_ps(osy, sy);
    _mm256_storeu_si256((__m256i *)(void *)ocnt, cnt);
}
