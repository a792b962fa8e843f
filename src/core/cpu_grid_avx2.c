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

/* rules_offset and d2 = dx*dx + dy*dy from the 8 lanes to candidate j, and (is_self not
 * NULL) the lanes that are j itself. The wrap flags (g's) come as values, which a loop
 * keeps in registers. */
static inline __m256 offset8(const lanes8 *g, int wrap_x, int wrap_y, const state *s, uint32_t j,
                             __m256 *dx, __m256 *dy, __m256 *is_self) {
    *dx = _mm256_sub_ps(_mm256_set1_ps(s->x[j]), g->xi);
    *dy = _mm256_sub_ps(_mm256_set1_ps(s->y[j]), g->yi);
    if (wrap_x) *dx = wrap8(*dx, g->W, g->hw, g->nhw);
    if (wrap_y) *dy = wrap8(*dy, g->H, g->hh, g->nhh);
    if (is_self)
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

/* The lanes that see candidate j: d2 < R^2, j not the lane itself (is_self, when j can be
 * one of the lanes), and within the field of view (rules_sees: dot >= cos(fov/2) *
 * sqrt(vv * d2), a float sqrt equal to rules.h's double sqrt rounded to float, double
 * rounding being exact for sqrt). */
static inline __m256 sees8(const rules_k_f *k, int full_fov, __m256 v2, __m256 vxi, __m256 vyi,
                           __m256 vv, __m256 vv0, __m256 dx, __m256 dy, __m256 d2,
                           const __m256 *is_self) {
    __m256 m = _mm256_cmp_ps(d2, v2, _CMP_LT_OQ);
    if (is_self) m = _mm256_andnot_ps(*is_self, m);
    if (!full_fov) {
        const __m256 zero = _mm256_setzero_ps();
        const __m256 dot = _mm256_add_ps(_mm256_mul_ps(vxi, dx), _mm256_mul_ps(vyi, dy));
        const __m256 lim =
            _mm256_mul_ps(_mm256_set1_ps(k->cos_half_fov), _mm256_sqrt_ps(_mm256_mul_ps(vv, d2)));
        const __m256 ok = _mm256_or_ps(_mm256_or_ps(vv0, _mm256_cmp_ps(d2, zero, _CMP_EQ_OQ)),
                                       _mm256_cmp_ps(dot, lim, _CMP_GE_OQ));
        m = _mm256_and_ps(m, ok);
    }
    return m;
}

/* What the separation pass needs of the lanes, and its sums. */
typedef struct sep8 {
    __m256 vxi, vyi, vv, vv0;
    __m256 sx, sy, sep;
} sep8;

/* The separation sums over the candidates js[0 .. n), in order: each lane adds -d / d2 for
 * those it sees with 0 < d2 < R_sep^2, as rules_acc_add does. The separation sums depend on
 * no other sum, so taking their candidates after the others' leaves every sum's order, and
 * its bits, as they were; it keeps the two divisions per candidate (the kernel's costliest
 * operations) off the candidates that no lane has within R_sep, most of them. */
static void sep_pass(const lanes8 *g, const state *s, const rules_k_f *k, sep8 *a,
                     const uint32_t *js, uint32_t n) {
    const __m256 zero = _mm256_setzero_ps(), s2 = _mm256_set1_ps(k->sep2);
    for (uint32_t c = 0; c < n; c++) {
        __m256 dx, dy, is_self;
        const __m256 d2 = offset8(g, g->wrap_x, g->wrap_y, s, js[c], &dx, &dy, &is_self);
        const __m256 m = sees8(k, k->full_fov, _mm256_set1_ps(k->vision2), a->vxi, a->vyi, a->vv,
                               a->vv0, dx, dy, d2, &is_self);
        const __m256 sm = _mm256_and_ps(m, _mm256_and_ps(_mm256_cmp_ps(zero, d2, _CMP_LT_OQ),
                                                         _mm256_cmp_ps(d2, s2, _CMP_LT_OQ)));
        a->sx = _mm256_blendv_ps(a->sx, _mm256_sub_ps(a->sx, _mm256_div_ps(dx, d2)), sm);
        a->sy = _mm256_blendv_ps(a->sy, _mm256_sub_ps(a->sy, _mm256_div_ps(dy, d2)), sm);
        a->sep = _mm256_or_ps(a->sep, sm);
    }
}

enum { SEP_BATCH = 64 }; /* candidates held for the separation pass at a time */

/* The other sums: velocities, offsets, counts. */
typedef struct sums8 {
    __m256 mvx, mvy, cx, cy;
    __m256i cnt;
} sums8;

/* Adds candidates [b, e) to the sums, and lists for sep_pass those that some lane may have
 * within R_sep (a branch-free append; the batch is flushed between runs of candidates that
 * fit in it, not tested per candidate). The list may hold more than needed (sep_pass tests
 * each lane in full): with no self test and the full field of view, d2 < R_sep^2 alone
 * lists a candidate. self: whether the range can hold one of the lanes' own slots; the
 * others skip that test. A term is added masked (sum + (m & term)), which gives the bits of
 * rules_acc_add's sum + term or sum: the sums start at +0, and under round-to-nearest a sum
 * of terms that starts at +0 is never -0, the one value to which adding +0 is not the
 * identity. */
static inline __attribute__((always_inline)) void
scan8(const lanes8 *g, const state *s, const rules_k_f *k, sep8 *a, sums8 *v, uint32_t b,
      uint32_t e, int self, int wrap_x, int wrap_y, int full_fov, uint32_t *js, uint32_t *n) {
    const __m256 s2 = _mm256_set1_ps(k->sep2), v2 = _mm256_set1_ps(k->vision2);
    __m256 mvx = v->mvx, mvy = v->mvy, cx = v->cx, cy = v->cy;
    __m256i cnt = v->cnt;
    uint32_t nj = *n;
    for (uint32_t j = b; j < e;) {
        if (nj == SEP_BATCH) {
            sep_pass(g, s, k, a, js, nj);
            nj = 0;
        }
        const uint32_t stop = e - j <= SEP_BATCH - nj ? e : j + (SEP_BATCH - nj);
        for (; j < stop; j++) {
            __m256 dx, dy, is_self;
            const __m256 d2 = offset8(g, wrap_x, wrap_y, s, j, &dx, &dy, self ? &is_self : NULL);
            const __m256 m = sees8(k, full_fov, v2, a->vxi, a->vyi, a->vv, a->vv0, dx, dy, d2,
                                   self ? &is_self : NULL);
            mvx = _mm256_add_ps(mvx, _mm256_and_ps(m, _mm256_set1_ps(s->vx[j])));
            mvy = _mm256_add_ps(mvy, _mm256_and_ps(m, _mm256_set1_ps(s->vy[j])));
            cx = _mm256_add_ps(cx, _mm256_and_ps(m, dx));
            cy = _mm256_add_ps(cy, _mm256_and_ps(m, dy));
            cnt = _mm256_sub_epi32(cnt, _mm256_castps_si256(m)); /* a true lane is -1 */
            const __m256 close = _mm256_cmp_ps(d2, s2, _CMP_LT_OQ);
            js[nj] = j;
            nj += _mm256_movemask_ps(self || !full_fov ? _mm256_and_ps(m, close) : close) != 0;
        }
    }
    *v = (sums8){mvx, mvy, cx, cy, cnt};
    *n = nj;
}

/* scan8 compiled for the common case apart (no wrap, full field of view; the flags then
 * constants) and for the general one, each with and without the self test: the flags are
 * tested once per range instead of once per candidate. */
static void scan_range(const lanes8 *g, const state *s, const rules_k_f *k, sep8 *a, sums8 *v,
                       uint32_t b, uint32_t e, int self, uint32_t *js, uint32_t *n) {
    const int wx = g->wrap_x, wy = g->wrap_y, ff = k->full_fov;
    if (!wx && !wy && ff) {
        if (self)
            scan8(g, s, k, a, v, b, e, 1, 0, 0, 1, js, n);
        else
            scan8(g, s, k, a, v, b, e, 0, 0, 0, 1, js, n);
    } else {
        if (self)
            scan8(g, s, k, a, v, b, e, 1, wx, wy, ff, js, n);
        else
            scan8(g, s, k, a, v, b, e, 0, wx, wy, ff, js, n);
    }
}

/* Neighbour sums of the boids in slots [i0, i0 + lanes) of the snapshot (lanes <= 8; the
 * spare lanes repeat the first boid and are ignored). Operation for operation the same as
 * reynolds_scalar (cpu_grid.c): d = x_j - x_i wrapped by rules_wrap's comparisons,
 * d2 = dx*dx + dy*dy, the fov test of sees8, and each sum updated as scan8 says. Each
 * candidate range is cut around the group's own slots, the one part where a candidate can
 * be a lane itself. */
void boids_cpu_reynolds_avx2(const state *s, const rules_k_f *k, const cell_group *q,
                             rules_acc_f out[LANES]) {
    const range *const r = q->r;
    const int nr = q->nr;
    const uint32_t lanes = q->lanes, i0 = q->i0, i1 = q->i0 + q->lanes;
    sep8 a;
    const lanes8 g = lanes8_load(s, k, q, &a.vxi, &a.vyi);
    const __m256 zero = _mm256_setzero_ps();
    a.vv = _mm256_add_ps(_mm256_mul_ps(a.vxi, a.vxi), _mm256_mul_ps(a.vyi, a.vyi));
    a.vv0 = _mm256_cmp_ps(a.vv, zero, _CMP_EQ_OQ);
    a.sx = a.sy = a.sep = zero;
    sums8 v = {zero, zero, zero, zero, _mm256_setzero_si256()};
    uint32_t js[SEP_BATCH], n = 0;
    for (int w = 0; w < nr; w++) {
        const uint32_t b = r[w].b, e = r[w].e;
        if (e <= i0 || b >= i1) {
            scan_range(&g, s, k, &a, &v, b, e, 0, js, &n);
            continue;
        }
        const uint32_t sb = b > i0 ? b : i0, se = e < i1 ? e : i1;
        scan_range(&g, s, k, &a, &v, b, sb, 0, js, &n);
        scan_range(&g, s, k, &a, &v, sb, se, 1, js, &n);
        scan_range(&g, s, k, &a, &v, se, e, 0, js, &n);
    }
    sep_pass(&g, s, k, &a, js, n);
    store_sums(out, lanes, v.mvx, v.mvy, v.cx, v.cy, a.sx, a.sy, v.cnt, a.sep);
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
            const __m256 d2 = offset8(&g, g.wrap_x, g.wrap_y, s, j, &dx, &dy, &is_self);
            const __m256 m = _mm256_or_ps(is_self, _mm256_cmp_ps(d2, v2, _CMP_LE_OQ));
            sx = _mm256_blendv_ps(sx, _mm256_add_ps(sx, _mm256_set1_ps(ux[j])), m);
            sy = _mm256_blendv_ps(sy, _mm256_add_ps(sy, _mm256_set1_ps(uy[j])), m);
            cnt = _mm256_sub_epi32(cnt, _mm256_castps_si256(m)); /* a true lane is -1 */
        }
    _mm256_storeu_ps(osx, sx);
    _mm256_storeu_ps(osy, sy);
    _mm256_storeu_si256((__m256i *)(void *)ocnt, cnt);
}
