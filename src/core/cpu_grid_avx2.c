/* SPDX-License-Identifier: MIT */
/* cpu: the AVX2 kernels. Each evaluates 8 boids of one cell against each candidate (they
 * share the candidate list), so each boid still sums its neighbours one after the other in
 * candidate order: it performs exactly the float operations of rules_offset, rules_sees and
 * rules_acc_add (or of the Vicsek sum), with blends in place of branches, and gives the
 * scalar kernel's bits. The Reynolds kernel then moves the 8 boids as rules_accel and
 * rules_integrate do, again operation for operation on each lane. Written with intrinsics
 * and not left to the auto-vectoriser because, under the core's strict IEEE flags (trapping
 * math, errno-setting sqrt, no contraction), GCC does not vectorise those loops.
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
 * which lanes hold a boid of the group, and the wrap constants. */
typedef struct lanes8 {
    __m256 xi, yi;
    __m256i self, valid;
    __m256 W, H, hw, nhw, hh, nhh;
    int wrap_x, wrap_y;
} lanes8;

/* Slots [i0, i0 + 8) of array a where valid (masked loads touch no memory beyond the
 * group), the spare lanes repeating slot i0. */
static inline __m256 load_lanes(const float *a, uint32_t i0, __m256i valid) {
    return _mm256_blendv_ps(_mm256_set1_ps(a[i0]), _mm256_maskload_ps(a + i0, valid),
                            _mm256_castsi256_ps(valid));
}

/* The lanes of cell group q (the spare ones repeat the first boid, so that they list no
 * separation candidate the first does not); v receives their velocities when not NULL. */
static inline lanes8 lanes8_load(const state *s, const rules_k_f2 *k, const cell_group *q,
                                 __m256 *vx, __m256 *vy) {
    const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    const __m256i valid = _mm256_cmpgt_epi32(_mm256_set1_epi32((int32_t)q->lanes), lane);
    const __m256i i0 = _mm256_set1_epi32((int32_t)q->i0);
    if (vx) *vx = load_lanes(s->vx, q->i0, valid);
    if (vy) *vy = load_lanes(s->vy, q->i0, valid);
    return (lanes8){load_lanes(s->x, q->i0, valid),
                    load_lanes(s->y, q->i0, valid),
                    _mm256_add_epi32(i0, _mm256_and_si256(lane, valid)),
                    valid,
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
static inline void store_sums(rules_acc_f2 *out, uint32_t lanes, __m256 mvx, __m256 mvy, __m256 cx,
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
static inline __m256 sees8(const rules_k_f2 *k, int full_fov, __m256 v2, __m256 vxi, __m256 vyi,
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
static inline __attribute__((always_inline)) void sep_pass(const lanes8 *g, const state *s,
                                                           const rules_k_f2 *k, sep8 *a,
                                                           const uint32_t *js, uint32_t n,
                                                           int wrap_x, int wrap_y, int full_fov) {
    const __m256 zero = _mm256_setzero_ps(), s2 = _mm256_set1_ps(k->sep2);
    for (uint32_t c = 0; c < n; c++) {
        __m256 dx, dy, is_self;
        const __m256 d2 = offset8(g, wrap_x, wrap_y, s, js[c], &dx, &dy, &is_self);
        const __m256 m = sees8(k, full_fov, _mm256_set1_ps(k->vision2), a->vxi, a->vyi, a->vv,
                               a->vv0, dx, dy, d2, &is_self);
        const __m256 sm = _mm256_and_ps(m, _mm256_and_ps(_mm256_cmp_ps(zero, d2, _CMP_LT_OQ),
                                                         _mm256_cmp_ps(d2, s2, _CMP_LT_OQ)));
        a->sx = _mm256_blendv_ps(a->sx, _mm256_sub_ps(a->sx, _mm256_div_ps(dx, d2)), sm);
        a->sy = _mm256_blendv_ps(a->sy, _mm256_sub_ps(a->sy, _mm256_div_ps(dy, d2)), sm);
        a->sep = _mm256_or_ps(a->sep, sm);
    }
}

enum { SEP_BATCH = 64 }; /* candidates held for the separation pass at a time */

/* The other sums: velocities, offsets, counts (those only where scan8's count asks). */
typedef struct sums8 {
    __m256 mvx, mvy, cx, cy;
    __m256i cnt;
} sums8;

/* Adds candidates [b, e) to the sums, and lists for sep_pass those that some lane may have
 * within R_sep (a branch-free append; the batch is flushed between runs of candidates that
 * fit in it, not tested per candidate). The list may hold more than needed (sep_pass tests
 * each lane in full): with no self test and the full field of view, d2 < R_sep^2 alone
 * lists a candidate. self: whether the range can hold one of the lanes' own slots; the
 * others skip that test. count: whether to count the neighbours (see accel8_rules). A term
 * is added masked (sum + (m & term)), which gives the bits of rules_acc_add's sum + term or
 * sum: the sums start at +0, and under round-to-nearest a sum of terms that starts at +0 is
 * never -0, the one value to which adding +0 is not the identity. */
static inline __attribute__((always_inline)) void scan8(const lanes8 *g, const state *s,
                                                        const rules_k_f2 *k, sep8 *a, sums8 *v,
                                                        uint32_t b, uint32_t e, int self,
                                                        int wrap_x, int wrap_y, int full_fov,
                                                        int count, uint32_t *js, uint32_t *n) {
    const __m256 s2 = _mm256_set1_ps(k->sep2), v2 = _mm256_set1_ps(k->vision2);
    __m256 mvx = v->mvx, mvy = v->mvy, cx = v->cx, cy = v->cy;
    __m256i cnt = v->cnt;
    uint32_t nj = *n;
    for (uint32_t j = b; j < e;) {
        if (nj == SEP_BATCH) {
            sep_pass(g, s, k, a, js, nj, wrap_x, wrap_y, full_fov);
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
            if (count) cnt = _mm256_sub_epi32(cnt, _mm256_castps_si256(m)); /* true: -1 */
            const __m256 close = _mm256_cmp_ps(d2, s2, _CMP_LT_OQ);
            js[nj] = j;
            nj += _mm256_movemask_ps(self || !full_fov ? _mm256_and_ps(m, close) : close) != 0;
        }
    }
    *v = (sums8){mvx, mvy, cx, cy, cnt};
    *n = nj;
}

/* scan8 over the candidate ranges r[0 .. nr) of the group of slots [i0, i1), with the
 * self test only where a range holds some of those slots, then sep_pass over the listed
 * candidates. The sums stay in registers throughout (local copies: a store through a
 * pointer to a vector may alias anything). */
static inline __attribute__((always_inline)) void
scan_all(const lanes8 *g, const state *s, const rules_k_f2 *k, sep8 *a, sums8 *v, const range *r,
         int nr, uint32_t i0, uint32_t i1, int wrap_x, int wrap_y, int full_fov, int count) {
    sums8 u = *v;
    sep8 t = *a;
    uint32_t js[SEP_BATCH], n = 0;
    for (int w = 0; w < nr; w++) {
        const uint32_t b = r[w].b, e = r[w].e;
        if (e <= i0 || b >= i1)
            scan8(g, s, k, &t, &u, b, e, 0, wrap_x, wrap_y, full_fov, count, js, &n);
        else
            scan8(g, s, k, &t, &u, b, e, 1, wrap_x, wrap_y, full_fov, count, js, &n);
    }
    sep_pass(g, s, k, &t, js, n, wrap_x, wrap_y, full_fov);
    *v = u;
    *a = t;
}

/* scan_all compiled for the common case apart (no wrap, full field of view; the flags then
 * constants), with and without the counts, and for the general one (which counts): the
 * flags are tested once per group instead of once per candidate. */
static void scan_group(const lanes8 *g, const state *s, const rules_k_f2 *k, sep8 *a, sums8 *v,
                       const cell_group *q, int count) {
    const int wx = g->wrap_x, wy = g->wrap_y, ff = k->full_fov;
    const uint32_t i0 = q->i0, i1 = q->i0 + q->lanes;
    if (wx || wy || !ff)
        scan_all(g, s, k, a, v, q->r, q->nr, i0, i1, wx, wy, ff, 1);
    else if (count)
        scan_all(g, s, k, a, v, q->r, q->nr, i0, i1, 0, 0, 1, 1);
    else
        scan_all(g, s, k, a, v, q->r, q->nr, i0, i1, 0, 0, 1, 0);
}

/* Neighbour sums of the boids in slots [i0, i0 + lanes) of the snapshot (lanes <= 8; the
 * spare lanes repeat the first boid and are ignored) into a and v, the lanes into g.
 * Operation for operation the same as reynolds_scalar (cpu_grid.c): d = x_j - x_i wrapped
 * by rules_wrap's comparisons, d2 = dx*dx + dy*dy, the fov test of sees8, and each sum
 * updated as scan8 says; the neighbour counts where count is set. */
static inline void reynolds_sums(const state *s, const rules_k_f2 *k, const cell_group *q,
                                 int count, lanes8 *g, sep8 *a, sums8 *v) {
    *g = lanes8_load(s, k, q, &a->vxi, &a->vyi);
    const __m256 zero = _mm256_setzero_ps();
    a->vv = _mm256_add_ps(_mm256_mul_ps(a->vxi, a->vxi), _mm256_mul_ps(a->vyi, a->vyi));
    a->vv0 = _mm256_cmp_ps(a->vv, zero, _CMP_EQ_OQ);
    a->sx = a->sy = a->sep = zero;
    *v = (sums8){zero, zero, zero, zero, _mm256_setzero_si256()};
    scan_group(g, s, k, a, v, q, count);
}

void boids_cpu_reynolds_avx2(const state *s, const rules_k_f2 *k, const cell_group *q,
                             rules_acc_f2 out[LANES]) {
    lanes8 g;
    sep8 a;
    sums8 v;
    reynolds_sums(s, k, q, 1, &g, &a, &v);
    store_sums(out, q->lanes, v.mvx, v.mvy, v.cx, v.cy, a.sx, a.sy, v.cnt, a.sep);
}

/* ---- the move: rules_accel and rules_integrate on 8 lanes ----------------------------
 * Each lane performs the scalar functions' float operations in their order; a branch
 * becomes a mask, and both of its sides are computed on every lane and blended (a side
 * that the scalar code skips may divide by zero or take NaN on a lane: its value is then
 * discarded, and the core runs with floating-point exceptions masked). _mm256_sqrt_ps and
 * _mm256_div_ps round correctly, as sqrt and '/' do; rules.h's sqrt in double of a float
 * argument, rounded to float, is that same correctly rounded float square root. */

/* rules_steer: the force from velocity (vx, vy) to full speed along (dx, dy), capped at
 * max_force, zero for a zero target. */
static inline void steer8(__m256 dx, __m256 dy, __m256 vx, __m256 vy, __m256 max_speed,
                          __m256 max_force, __m256 *fx, __m256 *fy) {
    const __m256 m = _mm256_sqrt_ps(_mm256_add_ps(_mm256_mul_ps(dx, dx), _mm256_mul_ps(dy, dy)));
    __m256 gx = _mm256_sub_ps(_mm256_mul_ps(_mm256_div_ps(dx, m), max_speed), vx);
    __m256 gy = _mm256_sub_ps(_mm256_mul_ps(_mm256_div_ps(dy, m), max_speed), vy);
    const __m256 n = _mm256_sqrt_ps(_mm256_add_ps(_mm256_mul_ps(gx, gx), _mm256_mul_ps(gy, gy)));
    const __m256 cap = _mm256_cmp_ps(n, max_force, _CMP_GT_OQ);
    gx = _mm256_blendv_ps(gx, _mm256_mul_ps(_mm256_div_ps(gx, n), max_force), cap);
    gy = _mm256_blendv_ps(gy, _mm256_mul_ps(_mm256_div_ps(gy, n), max_force), cap);
    const __m256 none = _mm256_cmp_ps(m, _mm256_setzero_ps(), _CMP_EQ_OQ);
    *fx = _mm256_andnot_ps(none, gx); /* +0, as rules_steer's */
    *fy = _mm256_andnot_ps(none, gy);
}

/* The acceleration being summed, and what every rule's steer needs. */
typedef struct accel8 {
    __m256 ax, ay;
    __m256 vx, vy, max_speed, max_force;
} accel8;

/* rules_accel's `a += w * steer(d)` on the lanes of mask m (the others keep theirs). */
static inline void accel8_add(accel8 *c, float w, __m256 dx, __m256 dy, __m256 m) {
    __m256 fx, fy;
    steer8(dx, dy, c->vx, c->vy, c->max_speed, c->max_force, &fx, &fy);
    const __m256 w8 = _mm256_set1_ps(w);
    c->ax = _mm256_blendv_ps(c->ax, _mm256_add_ps(c->ax, _mm256_mul_ps(w8, fx)), m);
    c->ay = _mm256_blendv_ps(c->ay, _mm256_add_ps(c->ay, _mm256_mul_ps(w8, fy)), m);
}

/* rules_offset on 8 lanes under the world's boundary (not the cell's wrap flags: a point
 * can be anywhere). */
static inline void world_offset8(const rules_k_f2 *k, const lanes8 *g, __m256 x, __m256 y,
                                 __m256 x2, __m256 y2, __m256 *dx, __m256 *dy) {
    *dx = _mm256_sub_ps(x2, x);
    *dy = _mm256_sub_ps(y2, y);
    if (k->wrap) {
        *dx = wrap8(*dx, g->W, g->hw, g->nhw);
        *dy = wrap8(*dy, g->H, g->hh, g->nhh);
    }
}

/* rules_accel without the interaction table (the caller's condition): the three rules,
 * then predator, food and walls, each where its condition holds, except that alignment and
 * cohesion apply to every lane, whether it has neighbours or not: a lane without has both
 * targets +0, whose steering force is +0, and adding w * +0 (w finite and >= 0, as params
 * are validated) leaves the acceleration as it is, which is never -0 (it starts at +0, and
 * under round-to-nearest a sum is -0 only if both terms are). So the scan need not count
 * the neighbours. */
static inline void accel8_rules(const rules_k_f2 *k, const lanes8 *g, const sep8 *a, const sums8 *v,
                                accel8 *c) {
    const __m256 zero = _mm256_setzero_ps();
    const __m256 all = _mm256_castsi256_ps(_mm256_set1_epi32(-1));
    accel8_add(c, k->w_sep, a->sx, a->sy, a->sep);
    accel8_add(c, k->w_align, v->mvx, v->mvy, all);
    accel8_add(c, k->w_coh, v->cx, v->cy, all);
    __m256 dx, dy;
    if (k->predator) {
        const __m256 px = _mm256_set1_ps(k->pred_x), py = _mm256_set1_ps(k->pred_y);
        world_offset8(k, g, px, py, g->xi, g->yi, &dx, &dy);
        const __m256 d2 = _mm256_add_ps(_mm256_mul_ps(dx, dx), _mm256_mul_ps(dy, dy));
        accel8_add(c, k->w_pred, dx, dy, _mm256_cmp_ps(d2, _mm256_set1_ps(k->pred_r2), _CMP_LT_OQ));
    }
    if (k->food) {
        const __m256 fx = _mm256_set1_ps(k->food_x), fy = _mm256_set1_ps(k->food_y);
        world_offset8(k, g, g->xi, g->yi, fx, fy, &dx, &dy);
        const __m256 d2 = _mm256_add_ps(_mm256_mul_ps(dx, dx), _mm256_mul_ps(dy, dy));
        accel8_add(c, k->w_food, dx, dy, _mm256_cmp_ps(d2, _mm256_set1_ps(k->food_r2), _CMP_LT_OQ));
    }
    if (k->walls) { /* tx, ty: 0 + 1, 0 - 1 or 1 - 1 per axis, as the scalar code sums them */
        const __m256 one = _mm256_set1_ps(1), margin = _mm256_set1_ps(k->wall_margin);
        const __m256 hi_x = _mm256_set1_ps(k->width - k->wall_margin);
        const __m256 hi_y = _mm256_set1_ps(k->height - k->wall_margin);
        __m256 tx = _mm256_and_ps(_mm256_cmp_ps(g->xi, margin, _CMP_LT_OQ), one);
        __m256 ty = _mm256_and_ps(_mm256_cmp_ps(g->yi, margin, _CMP_LT_OQ), one);
        tx = _mm256_blendv_ps(tx, _mm256_sub_ps(tx, one), _mm256_cmp_ps(g->xi, hi_x, _CMP_GT_OQ));
        ty = _mm256_blendv_ps(ty, _mm256_sub_ps(ty, one), _mm256_cmp_ps(g->yi, hi_y, _CMP_GT_OQ));
        const __m256 on = _mm256_or_ps(_mm256_cmp_ps(tx, zero, _CMP_NEQ_UQ),
                                       _mm256_cmp_ps(ty, zero, _CMP_NEQ_UQ));
        accel8_add(c, k->w_wall, tx, ty, on);
    }
}

/* rules_integrate without obstacles (the caller's condition): the speed clamp, the move
 * and the world boundary, from the lanes' state (x, y, vx, vy) into *o. */
static inline void integrate8(const rules_k_f2 *k, const lanes8 *g, __m256 ax, __m256 ay, __m256 vx,
                              __m256 vy, __m256 o[4]) {
    const __m256 zero = _mm256_setzero_ps(), sign = _mm256_set1_ps(-0.0f);
    const __m256 hi = _mm256_set1_ps(k->max_speed), lo = _mm256_set1_ps(k->min_speed);
    __m256 nvx = _mm256_add_ps(vx, ax), nvy = _mm256_add_ps(vy, ay);
    const __m256 v =
        _mm256_sqrt_ps(_mm256_add_ps(_mm256_mul_ps(nvx, nvx), _mm256_mul_ps(nvy, nvy)));
    const __m256 fast = _mm256_cmp_ps(v, hi, _CMP_GT_OQ);
    const __m256 slow = _mm256_andnot_ps(
        fast, _mm256_and_ps(_mm256_cmp_ps(zero, v, _CMP_LT_OQ), _mm256_cmp_ps(v, lo, _CMP_LT_OQ)));
    const __m256 ux = _mm256_div_ps(nvx, v), uy = _mm256_div_ps(nvy, v);
    nvx = _mm256_blendv_ps(_mm256_blendv_ps(nvx, _mm256_mul_ps(ux, hi), fast),
                           _mm256_mul_ps(ux, lo), slow);
    nvy = _mm256_blendv_ps(_mm256_blendv_ps(nvy, _mm256_mul_ps(uy, hi), fast),
                           _mm256_mul_ps(uy, lo), slow);
    const __m256 dt = _mm256_set1_ps(k->dt);
    __m256 nx = _mm256_add_ps(g->xi, _mm256_mul_ps(nvx, dt));
    __m256 ny = _mm256_add_ps(g->yi, _mm256_mul_ps(nvy, dt));
    if (k->wrap) { /* below 0: + side; else at or above the side: - side */
        nx = _mm256_blendv_ps(
            _mm256_blendv_ps(nx, _mm256_sub_ps(nx, g->W), _mm256_cmp_ps(nx, g->W, _CMP_GE_OQ)),
            _mm256_add_ps(nx, g->W), _mm256_cmp_ps(nx, zero, _CMP_LT_OQ));
        ny = _mm256_blendv_ps(
            _mm256_blendv_ps(ny, _mm256_sub_ps(ny, g->H), _mm256_cmp_ps(ny, g->H, _CMP_GE_OQ)),
            _mm256_add_ps(ny, g->H), _mm256_cmp_ps(ny, zero, _CMP_LT_OQ));
    } else if (k->walls) { /* below 0: -x; else beyond the side: side - (x - side); flip v */
        const __m256 lx = _mm256_cmp_ps(nx, zero, _CMP_LT_OQ),
                     hx = _mm256_cmp_ps(nx, g->W, _CMP_GT_OQ);
        const __m256 ly = _mm256_cmp_ps(ny, zero, _CMP_LT_OQ),
                     hy = _mm256_cmp_ps(ny, g->H, _CMP_GT_OQ);
        nx =
            _mm256_blendv_ps(_mm256_blendv_ps(nx, _mm256_sub_ps(g->W, _mm256_sub_ps(nx, g->W)), hx),
                             _mm256_xor_ps(nx, sign), lx);
        ny =
            _mm256_blendv_ps(_mm256_blendv_ps(ny, _mm256_sub_ps(g->H, _mm256_sub_ps(ny, g->H)), hy),
                             _mm256_xor_ps(ny, sign), ly);
        nvx = _mm256_blendv_ps(nvx, _mm256_xor_ps(nvx, sign), _mm256_or_ps(lx, hx));
        nvy = _mm256_blendv_ps(nvy, _mm256_xor_ps(nvy, sign), _mm256_or_ps(ly, hy));
    }
    o[0] = nx;
    o[1] = ny;
    o[2] = nvx;
    o[3] = nvy;
}

void boids_cpu_reynolds_move_avx2(const state *s, const state *out, const rules_k_f2 *k,
                                  const cell_group *q) {
    lanes8 g;
    sep8 a;
    sums8 v;
    reynolds_sums(s, k, q, 0, &g, &a, &v);
    const __m256 zero = _mm256_setzero_ps();
    accel8 c = {
        zero, zero, a.vxi, a.vyi, _mm256_set1_ps(k->max_speed), _mm256_set1_ps(k->max_force)};
    accel8_rules(k, &g, &a, &v, &c);
    __m256 o[4];
    integrate8(k, &g, c.ax, c.ay, a.vxi, a.vyi, o);
    _mm256_maskstore_ps(out->x + q->i0, g.valid, o[0]);
    _mm256_maskstore_ps(out->y + q->i0, g.valid, o[1]);
    _mm256_maskstore_ps(out->vx + q->i0, g.valid, o[2]);
    _mm256_maskstore_ps(out->vy + q->i0, g.valid, o[3]);
}

/* Vicsek heading sums of the boids in slots [i0, i0 + lanes): like the Reynolds kernel,
 * each lane adds the unit headings of its candidates one after the other in candidate
 * order, exactly as vicsek_scalar (cpu_grid.c) does: accepted when d2 <= R^2 (the seed's
 * "no mayor que R") or when the candidate is the boid itself (always included, whatever
 * its position). */
void boids_cpu_vicsek_avx2(const state *s, const float *ux, const float *uy, const rules_k_f2 *k,
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

/* grid_cell_coord of 8 positions relative to the origin, for an axis of n <= INT32_MAX cells
 * (nf = (float)n, nm1 = n - 1): where 0 < f < nf, f < 2^31 and the truncation to int32 is
 * (uint32_t)f; then the same clamps, in the same order of precedence. */
static inline __m256i cell_coord8(__m256 x, __m256 s, __m256 nf, __m256i nm1) {
    const __m256 f = _mm256_mul_ps(x, s);
    __m256i c = _mm256_min_epu32(_mm256_cvttps_epi32(f), nm1);
    c = _mm256_blendv_epi8(c, nm1, _mm256_castps_si256(_mm256_cmp_ps(f, nf, _CMP_NLT_UQ)));
    return _mm256_and_si256(c,
                            _mm256_castps_si256(_mm256_cmp_ps(f, _mm256_setzero_ps(), _CMP_GT_OQ)));
}

void boids_cpu_cells_avx2(const state *s, size_t i0, size_t i1, const grid_geom *g,
                          uint32_t *cell_of) {
    const __m256 ox = _mm256_set1_ps((float)g->ox), oy = _mm256_set1_ps((float)g->oy);
    const __m256 sx = _mm256_set1_ps(g->sx), sy = _mm256_set1_ps(g->sy);
    const __m256 nfx = _mm256_set1_ps((float)g->ncx), nfy = _mm256_set1_ps((float)g->ncy);
    const __m256i mx = _mm256_set1_epi32((int32_t)(g->ncx - 1));
    const __m256i my = _mm256_set1_epi32((int32_t)(g->ncy - 1));
    const __m256i ncx = _mm256_set1_epi32((int32_t)g->ncx);
    const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    for (size_t i = i0; i < i1; i += LANES) {
        const __m256i valid =
            _mm256_cmpgt_epi32(_mm256_set1_epi32((int32_t)(i1 - i < LANES ? i1 - i : LANES)), lane);
        const __m256 x = _mm256_maskload_ps(s->x + i, valid);
        const __m256 y = _mm256_maskload_ps(s->y + i, valid);
        const __m256i cx = cell_coord8(_mm256_sub_ps(x, ox), sx, nfx, mx);
        const __m256i cy = cell_coord8(_mm256_sub_ps(y, oy), sy, nfy, my);
        _mm256_maskstore_epi32((int *)(void *)(cell_of + i), valid,
                               _mm256_add_epi32(_mm256_mullo_epi32(cy, ncx), cx));
    }
}
