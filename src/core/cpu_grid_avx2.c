/* SPDX-License-Identifier: MIT */
/* cpu: the AVX2 kernels, over the dimension D (cpu_grid_impl.h). Each evaluates 8 boids of
 * one cell (or of a run of cells along x) against each candidate (they share the candidate
 * list), so each boid still sums its neighbours one after the other in
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

/* a0 b0 + a1 b1 (+ a2 b2): a dot product in the rules' order (rules_dot's). */
static inline __m256 dot8(const __m256 a[D], const __m256 b[D]) {
    __m256 s = _mm256_mul_ps(a[0], b[0]);
    _Pragma("GCC unroll 3") for (int c = 1; c < D; c++) s =
        _mm256_add_ps(s, _mm256_mul_ps(a[c], b[c]));
    return s;
}

/* What both kernels need of their 8 lanes and the world: the lanes' positions and slots,
 * which lanes hold a boid of the group, and the wrap constants. */
typedef struct lanes8 {
    __m256 p[D];
    __m256i self, valid;
    __m256 side[D], half[D], nhalf[D];
    int wrap[D];
} lanes8;

/* Slots [i0, i0 + 8) of array a where valid (masked loads touch no memory beyond the
 * group), the spare lanes repeating slot i0. */
static inline __m256 load_lanes(const float *a, uint32_t i0, __m256i valid) {
    return _mm256_blendv_ps(_mm256_set1_ps(a[i0]), _mm256_maskload_ps(a + i0, valid),
                            _mm256_castsi256_ps(valid));
}

/* The lanes of cell group q (the spare ones repeat the first boid, so that they list no
 * separation candidate the first does not); v receives their velocities when not NULL. */
static inline void lanes8_load(const state *s, const grid_k *k, const cell_group *q, lanes8 *g,
                               __m256 v[D]) {
    const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    const __m256i valid = _mm256_cmpgt_epi32(_mm256_set1_epi32((int32_t)q->lanes), lane);
    const __m256i i0 = _mm256_set1_epi32((int32_t)q->i0);
    GRID_AXES(a) {
        if (v) v[a] = load_lanes(s->v[a], q->i0, valid);
        g->p[a] = load_lanes(s->p[a], q->i0, valid);
        g->side[a] = _mm256_set1_ps(k->side[a]);
        g->half[a] = _mm256_set1_ps(k->half[a]);
        g->nhalf[a] = _mm256_set1_ps(-k->half[a]);
        g->wrap[a] = q->wrap[a];
    }
    g->self = _mm256_add_epi32(i0, _mm256_and_si256(lane, valid));
    g->valid = valid;
}

/* rules_offset and dist2 from the 8 lanes to candidate j, and (is_self not NULL) the lanes
 * that are j itself. wrapped: whether any axis may need rules_wrap (g's flags say which);
 * it comes as a value, which a loop keeps in a register or compiles away. */
static inline __m256 offset8(const lanes8 *g, int wrapped, const state *s, uint32_t j, __m256 d[D],
                             __m256 *is_self) {
    GRID_AXES(a) {
        d[a] = _mm256_sub_ps(_mm256_set1_ps(s->p[a][j]), g->p[a]);
        if (wrapped && g->wrap[a]) d[a] = wrap8(d[a], g->side[a], g->half[a], g->nhalf[a]);
    }
    if (is_self)
        *is_self = _mm256_castsi256_ps(_mm256_cmpeq_epi32(g->self, _mm256_set1_epi32((int32_t)j)));
    return dot8(d, d);
}

/* The lanes that see candidate j: dist2 < R^2, j not the lane itself (is_self, when j can be
 * one of the lanes), and within the field of view (rules_sees: dot >= cos(fov/2) *
 * sqrt(vv * dist2), a float sqrt equal to rules.h's double sqrt rounded to float, double
 * rounding being exact for sqrt). */
static inline __m256 sees8(const grid_k *k, int full_fov, __m256 v2, const __m256 vi[D], __m256 vv,
                           __m256 vv0, const __m256 d[D], __m256 dist2, const __m256 *is_self) {
    __m256 m = _mm256_cmp_ps(dist2, v2, _CMP_LT_OQ);
    if (is_self) m = _mm256_andnot_ps(*is_self, m);
    if (!full_fov) {
        const __m256 zero = _mm256_setzero_ps();
        const __m256 dot = dot8(vi, d);
        const __m256 lim = _mm256_mul_ps(_mm256_set1_ps(k->cos_half_fov),
                                         _mm256_sqrt_ps(_mm256_mul_ps(vv, dist2)));
        const __m256 ok = _mm256_or_ps(_mm256_or_ps(vv0, _mm256_cmp_ps(dist2, zero, _CMP_EQ_OQ)),
                                       _mm256_cmp_ps(dot, lim, _CMP_GE_OQ));
        m = _mm256_and_ps(m, ok);
    }
    return m;
}

/* What the separation pass needs of the lanes, and its sums. */
typedef struct sep8 {
    __m256 vi[D], vv, vv0;
    __m256 s[D], sep;
} sep8;

/* The separation sums over the candidates js[0 .. n), in order: each lane adds -d / dist2 for
 * those it sees with 0 < dist2 < R_sep^2, as rules_acc_add does. The separation sums depend on
 * no other sum, so taking their candidates after the others' leaves every sum's order, and
 * its bits, as they were; it keeps the D divisions per candidate (the kernel's costliest
 * operations) off the candidates that no lane has within R_sep, most of them. */
static inline __attribute__((always_inline)) void sep_pass(const lanes8 *g, const state *s,
                                                           const grid_k *k, sep8 *a,
                                                           const uint32_t *js, uint32_t n,
                                                           int wrapped, int full_fov) {
    const __m256 zero = _mm256_setzero_ps(), s2 = _mm256_set1_ps(k->sep2);
    /* The sums in local vectors for the loop, kept in registers (see scan8). */
    __m256 sum[D], sep = a->sep;
    GRID_AXES(b) sum[b] = a->s[b];
    for (uint32_t c = 0; c < n; c++) {
        __m256 d[D], is_self;
        const __m256 dist2 = offset8(g, wrapped, s, js[c], d, &is_self);
        const __m256 m = sees8(k, full_fov, _mm256_set1_ps(k->vision2), a->vi, a->vv, a->vv0, d,
                               dist2, &is_self);
        const __m256 sm = _mm256_and_ps(m, _mm256_and_ps(_mm256_cmp_ps(zero, dist2, _CMP_LT_OQ),
                                                         _mm256_cmp_ps(dist2, s2, _CMP_LT_OQ)));
        GRID_AXES(b)
        sum[b] = _mm256_blendv_ps(sum[b], _mm256_sub_ps(sum[b], _mm256_div_ps(d[b], dist2)), sm);
        sep = _mm256_or_ps(sep, sm);
    }
    GRID_AXES(b) a->s[b] = sum[b];
    a->sep = sep;
}

enum { SEP_BATCH = 64 }; /* candidates held for the separation pass at a time */

/* The other sums: velocities, offsets, counts (those only where scan8's count asks). */
typedef struct sums8 {
    __m256 mv[D], c[D];
    __m256i cnt;
} sums8;

/* Adds candidates [b, e) to the sums, and lists for sep_pass those that some lane may have
 * within R_sep (a branch-free append; the batch is flushed between runs of candidates that
 * fit in it, not tested per candidate). The list may hold more than needed (sep_pass tests
 * each lane in full): with no self test and the full field of view, dist2 < R_sep^2 alone
 * lists a candidate. self: whether the range can hold one of the lanes' own slots; the
 * others skip that test. count: whether to count the neighbours (see accel8_rules). A term
 * is added masked (sum + (m & term)), which gives the bits of rules_acc_add's sum + term or
 * sum: the sums start at +0, and under round-to-nearest a sum of terms that starts at +0 is
 * never -0, the one value to which adding +0 is not the identity. The sums are copied into
 * local vectors for the loop: kept in a structure, or behind a pointer (a store through a
 * pointer to a vector may alias anything), they would stay in memory. */
static inline __attribute__((always_inline)) void
scan8(const lanes8 *g, const state *s, const grid_k *k, sep8 *a, sums8 *v, uint32_t b, uint32_t e,
      int self, int wrapped, int full_fov, int count, uint32_t *js, uint32_t *n) {
    const __m256 s2 = _mm256_set1_ps(k->sep2), v2 = _mm256_set1_ps(k->vision2);
    __m256 mv[D], cs[D];
    GRID_AXES(c) mv[c] = v->mv[c], cs[c] = v->c[c];
    __m256i cnt = v->cnt;
    uint32_t nj = *n;
    for (uint32_t j = b; j < e;) {
        if (nj == SEP_BATCH) {
            sep_pass(g, s, k, a, js, nj, wrapped, full_fov);
            nj = 0;
        }
        const uint32_t stop = e - j <= SEP_BATCH - nj ? e : j + (SEP_BATCH - nj);
        for (; j < stop; j++) {
            __m256 d[D], is_self;
            const __m256 dist2 = offset8(g, wrapped, s, j, d, self ? &is_self : NULL);
            const __m256 m =
                sees8(k, full_fov, v2, a->vi, a->vv, a->vv0, d, dist2, self ? &is_self : NULL);
            GRID_AXES(c) {
                mv[c] = _mm256_add_ps(mv[c], _mm256_and_ps(m, _mm256_set1_ps(s->v[c][j])));
                cs[c] = _mm256_add_ps(cs[c], _mm256_and_ps(m, d[c]));
            }
            if (count) cnt = _mm256_sub_epi32(cnt, _mm256_castps_si256(m)); /* true: -1 */
            const __m256 close = _mm256_cmp_ps(dist2, s2, _CMP_LT_OQ);
            js[nj] = j;
            nj += _mm256_movemask_ps(self || !full_fov ? _mm256_and_ps(m, close) : close) != 0;
        }
    }
    GRID_AXES(c) v->mv[c] = mv[c], v->c[c] = cs[c];
    v->cnt = cnt;
    *n = nj;
}

/* scan8 over the candidate ranges r[0 .. nr) of the group of slots [i0, i1), with the
 * self test only where a range holds some of those slots, then sep_pass over the listed
 * candidates. */
static inline __attribute__((always_inline)) void
scan_all(const lanes8 *g, const state *s, const grid_k *k, sep8 *a, sums8 *v, const range *r,
         int nr, uint32_t i0, uint32_t i1, int wrapped, int full_fov, int count) {
    uint32_t js[SEP_BATCH], n = 0;
    for (int w = 0; w < nr; w++) {
        const uint32_t b = r[w].b, e = r[w].e;
        if (e <= i0 || b >= i1)
            scan8(g, s, k, a, v, b, e, 0, wrapped, full_fov, count, js, &n);
        else
            scan8(g, s, k, a, v, b, e, 1, wrapped, full_fov, count, js, &n);
    }
    sep_pass(g, s, k, a, js, n, wrapped, full_fov);
}

/* scan_all compiled for the common case apart (no wrap, full field of view; the flags then
 * constants), with and without the counts, and for the general one (which counts): the
 * flags are tested once per group instead of once per candidate. */
static void scan_group(const lanes8 *g, const state *s, const grid_k *k, sep8 *a, sums8 *v,
                       const cell_group *q, int count) {
    int wrapped = 0;
    GRID_AXES(c) wrapped |= g->wrap[c];
    const int ff = k->full_fov;
    const uint32_t i0 = q->i0, i1 = q->i0 + q->lanes;
    if (wrapped || !ff)
        scan_all(g, s, k, a, v, q->r, q->nr, i0, i1, wrapped, ff, 1);
    else if (count)
        scan_all(g, s, k, a, v, q->r, q->nr, i0, i1, 0, 1, 1);
    else
        scan_all(g, s, k, a, v, q->r, q->nr, i0, i1, 0, 1, 0);
}

/* Neighbour sums of the boids in slots [i0, i0 + lanes) of the snapshot (lanes <= 8; the
 * spare lanes repeat the first boid and are ignored) into a and v, the lanes into g.
 * Operation for operation the same as reynolds_scalar (cpu_grid.c): d = x_j - x_i wrapped
 * by rules_wrap's comparisons, dist2 = RULES_FN(rules_dot)(d, d), the fov test of sees8, and each
 * sum updated as scan8 says; the neighbour counts where count is set. */
static inline void reynolds_sums(const state *s, const grid_k *k, const cell_group *q, int count,
                                 lanes8 *g, sep8 *a, sums8 *v) {
    lanes8_load(s, k, q, g, a->vi);
    const __m256 zero = _mm256_setzero_ps();
    a->vv = dot8(a->vi, a->vi);
    a->vv0 = _mm256_cmp_ps(a->vv, zero, _CMP_EQ_OQ);
    GRID_AXES(c) a->s[c] = v->mv[c] = v->c[c] = zero;
    a->sep = zero;
    v->cnt = _mm256_setzero_si256();
    scan_group(g, s, k, a, v, q, count);
}

void RULES_FN(grid_reynolds_avx2)(const state *s, const grid_k *k, const cell_group *q,
                                  grid_acc out[LANES]) {
    lanes8 g;
    sep8 a;
    sums8 v;
    reynolds_sums(s, k, q, 1, &g, &a, &v);
    float o[3][D][LANES];
    int32_t cnt[LANES];
    GRID_AXES(c) {
        _mm256_storeu_ps(o[0][c], v.mv[c]);
        _mm256_storeu_ps(o[1][c], v.c[c]);
        _mm256_storeu_ps(o[2][c], a.s[c]);
    }
    _mm256_storeu_si256((__m256i *)(void *)cnt, v.cnt);
    const int sepbits = _mm256_movemask_ps(a.sep);
    for (uint32_t l = 0; l < q->lanes; l++) {
        float mv[D], cs[D], sp[D];
        GRID_AXES(c) mv[c] = o[0][c][l], cs[c] = o[1][c][l], sp[c] = o[2][c][l];
        grid_acc_set(&out[l], cnt[l], mv, cs, sp, (sepbits >> l) & 1);
    }
}

/* ---- the move: rules_accel and rules_integrate on 8 lanes ----------------------------
 * Each lane performs the scalar functions' float operations in their order; a branch
 * becomes a mask, and both of its sides are computed on every lane and blended (a side
 * that the scalar code skips may divide by zero or take NaN on a lane: its value is then
 * discarded, and the core runs with floating-point exceptions masked). _mm256_sqrt_ps and
 * _mm256_div_ps round correctly, as sqrt and '/' do; the rules' sqrt in double of a float
 * argument, rounded to float, is that same correctly rounded float square root. */

/* rules_steer: the force from velocity v to full speed along d, capped at max_force, zero
 * for a zero target. */
static inline void steer8(const __m256 d[D], const __m256 v[D], __m256 max_speed, __m256 max_force,
                          __m256 f[D]) {
    const __m256 m = _mm256_sqrt_ps(dot8(d, d));
    __m256 g[D];
    GRID_AXES(a)
    g[a] = _mm256_sub_ps(_mm256_mul_ps(_mm256_div_ps(d[a], m), max_speed), v[a]);
    const __m256 n = _mm256_sqrt_ps(dot8(g, g));
    const __m256 cap = _mm256_cmp_ps(n, max_force, _CMP_GT_OQ);
    const __m256 none = _mm256_cmp_ps(m, _mm256_setzero_ps(), _CMP_EQ_OQ);
    GRID_AXES(a) {
        g[a] = _mm256_blendv_ps(g[a], _mm256_mul_ps(_mm256_div_ps(g[a], n), max_force), cap);
        f[a] = _mm256_andnot_ps(none, g[a]); /* +0, as rules_steer's */
    }
}

/* The acceleration being summed, and what every rule's steer needs. */
typedef struct accel8 {
    __m256 a[D];
    __m256 v[D], max_speed, max_force;
} accel8;

/* rules_accel's `a += w * steer(d)` on the lanes of mask m (the others keep theirs). */
static inline void accel8_add(accel8 *c, float w, const __m256 d[D], __m256 m) {
    __m256 f[D];
    steer8(d, c->v, c->max_speed, c->max_force, f);
    const __m256 w8 = _mm256_set1_ps(w);
    GRID_AXES(a)
    c->a[a] = _mm256_blendv_ps(c->a[a], _mm256_add_ps(c->a[a], _mm256_mul_ps(w8, f[a])), m);
}

/* rules_offset on 8 lanes under the world's boundary (not the cell's wrap flags: a point
 * can be anywhere). */
static inline void world_offset8(const grid_k *k, const lanes8 *g, const __m256 x[D],
                                 const __m256 x2[D], __m256 d[D]) {
    GRID_AXES(a) {
        d[a] = _mm256_sub_ps(x2[a], x[a]);
        if (k->wrap) d[a] = wrap8(d[a], g->side[a], g->half[a], g->nhalf[a]);
    }
}

/* rules_accel without the interaction table (the caller's condition): the three rules,
 * then predator, food and walls, each where its condition holds, except that alignment and
 * cohesion apply to every lane, whether it has neighbours or not: a lane without has both
 * targets +0, whose steering force is +0, and adding w * +0 (w finite and >= 0, as params
 * are validated) leaves the acceleration as it is, which is never -0 (it starts at +0, and
 * under round-to-nearest a sum is -0 only if both terms are). So the scan need not count
 * the neighbours. */
static inline void accel8_rules(const grid_k *k, const lanes8 *g, const sep8 *a, const sums8 *v,
                                accel8 *c) {
    const __m256 zero = _mm256_setzero_ps();
    const __m256 all = _mm256_castsi256_ps(_mm256_set1_epi32(-1));
    accel8_add(c, k->w_sep, a->s, a->sep);
    accel8_add(c, k->w_align, v->mv, all);
    accel8_add(c, k->w_coh, v->c, all);
    __m256 d[D], pt[D];
    if (k->predator) {
        GRID_AXES(b) pt[b] = _mm256_set1_ps(k->pred_at[b]);
        world_offset8(k, g, pt, g->p, d);
        accel8_add(c, k->w_pred, d,
                   _mm256_cmp_ps(dot8(d, d), _mm256_set1_ps(k->pred_r2), _CMP_LT_OQ));
    }
    if (k->food) {
        GRID_AXES(b) pt[b] = _mm256_set1_ps(k->food_at[b]);
        world_offset8(k, g, g->p, pt, d);
        accel8_add(c, k->w_food, d,
                   _mm256_cmp_ps(dot8(d, d), _mm256_set1_ps(k->food_r2), _CMP_LT_OQ));
    }
    if (k->walls) { /* t: 0 + 1, 0 - 1 or 1 - 1 per axis, as the scalar code sums them */
        const __m256 one = _mm256_set1_ps(1), margin = _mm256_set1_ps(k->wall_margin);
        __m256 on = zero;
        GRID_AXES(b) {
            const __m256 hi = _mm256_set1_ps(k->side[b] - k->wall_margin);
            d[b] = _mm256_and_ps(_mm256_cmp_ps(g->p[b], margin, _CMP_LT_OQ), one);
            d[b] = _mm256_blendv_ps(d[b], _mm256_sub_ps(d[b], one),
                                    _mm256_cmp_ps(g->p[b], hi, _CMP_GT_OQ));
            on = _mm256_or_ps(on, _mm256_cmp_ps(d[b], zero, _CMP_NEQ_UQ));
        }
        accel8_add(c, k->w_wall, d, on);
    }
}

/* rules_integrate without obstacles (the caller's condition): the speed clamp, the move
 * and the world boundary, from the lanes' state (g's positions, velocities v) into p, v. */
static inline void integrate8(const grid_k *k, const lanes8 *g, const __m256 acc[D], __m256 v[D],
                              __m256 p[D]) {
    const __m256 zero = _mm256_setzero_ps(), sign = _mm256_set1_ps(-0.0f);
    const __m256 hi = _mm256_set1_ps(k->max_speed), lo = _mm256_set1_ps(k->min_speed);
    __m256 nv[D];
    GRID_AXES(a) nv[a] = _mm256_add_ps(v[a], acc[a]);
    const __m256 s = _mm256_sqrt_ps(dot8(nv, nv));
    const __m256 fast = _mm256_cmp_ps(s, hi, _CMP_GT_OQ);
    const __m256 slow = _mm256_andnot_ps(
        fast, _mm256_and_ps(_mm256_cmp_ps(zero, s, _CMP_LT_OQ), _mm256_cmp_ps(s, lo, _CMP_LT_OQ)));
    const __m256 dt = _mm256_set1_ps(k->dt);
    GRID_AXES(a) {
        const __m256 u = _mm256_div_ps(nv[a], s);
        nv[a] = _mm256_blendv_ps(_mm256_blendv_ps(nv[a], _mm256_mul_ps(u, hi), fast),
                                 _mm256_mul_ps(u, lo), slow);
        __m256 x = _mm256_add_ps(g->p[a], _mm256_mul_ps(nv[a], dt));
        const __m256 side = g->side[a];
        if (k->wrap) { /* below 0: + side; else at or above the side: - side */
            x = _mm256_blendv_ps(
                _mm256_blendv_ps(x, _mm256_sub_ps(x, side), _mm256_cmp_ps(x, side, _CMP_GE_OQ)),
                _mm256_add_ps(x, side), _mm256_cmp_ps(x, zero, _CMP_LT_OQ));
        } else if (k->walls) { /* below 0: -x; else beyond the side: side - (x - side); flip v */
            const __m256 l = _mm256_cmp_ps(x, zero, _CMP_LT_OQ),
                         h = _mm256_cmp_ps(x, side, _CMP_GT_OQ);
            x = _mm256_blendv_ps(
                _mm256_blendv_ps(x, _mm256_sub_ps(side, _mm256_sub_ps(x, side)), h),
                _mm256_xor_ps(x, sign), l);
            nv[a] = _mm256_blendv_ps(nv[a], _mm256_xor_ps(nv[a], sign), _mm256_or_ps(l, h));
        }
        p[a] = x;
    }
    GRID_AXES(a) v[a] = nv[a];
}

void RULES_FN(grid_reynolds_move_avx2)(const state *s, const state *out, const grid_k *k,
                                       const cell_group *q) {
    lanes8 g;
    sep8 a;
    sums8 v;
    reynolds_sums(s, k, q, 0, &g, &a, &v);
    const __m256 zero = _mm256_setzero_ps();
    accel8 c;
    GRID_AXES(b) c.a[b] = zero, c.v[b] = a.vi[b];
    c.max_speed = _mm256_set1_ps(k->max_speed);
    c.max_force = _mm256_set1_ps(k->max_force);
    accel8_rules(k, &g, &a, &v, &c);
    __m256 p[D], nv[D];
    GRID_AXES(b) nv[b] = a.vi[b];
    integrate8(k, &g, c.a, nv, p);
    GRID_AXES(b) {
        _mm256_maskstore_ps(out->p[b] + q->i0, g.valid, p[b]);
        _mm256_maskstore_ps(out->v[b] + q->i0, g.valid, nv[b]);
    }
}

/* Vicsek heading sums of the boids in slots [i0, i0 + lanes): like the Reynolds kernel,
 * each lane adds the unit headings of its candidates one after the other in candidate
 * order, exactly as vicsek_scalar (cpu_grid.c) does: accepted when dist2 <= R^2 (the seed's
 * "no mayor que R") or when the candidate is the boid itself (always included, whatever
 * its position). */
void RULES_FN(grid_vicsek_avx2)(const state *s, float *const u[D], const grid_k *k,
                                const cell_group *q, float osum[D][LANES], int32_t ocnt[LANES]) {
    const range *const r = q->r;
    const int nr = q->nr;
    lanes8 g;
    lanes8_load(s, k, q, &g, NULL);
    int wrapped = 0;
    GRID_AXES(c) wrapped |= g.wrap[c];
    const __m256 v2 = _mm256_set1_ps(k->vision2);
    __m256 sum[D];
    GRID_AXES(c) sum[c] = _mm256_setzero_ps();
    __m256i cnt = _mm256_setzero_si256();
    for (int w = 0; w < nr; w++)
        for (uint32_t j = r[w].b; j < r[w].e; j++) {
            __m256 d[D], is_self;
            const __m256 dist2 = offset8(&g, wrapped, s, j, d, &is_self);
            const __m256 m = _mm256_or_ps(is_self, _mm256_cmp_ps(dist2, v2, _CMP_LE_OQ));
            GRID_AXES(c)
            sum[c] = _mm256_blendv_ps(sum[c], _mm256_add_ps(sum[c], _mm256_set1_ps(u[c][j])), m);
            cnt = _mm256_sub_epi32(cnt, _mm256_castps_si256(m)); /* a true lane is -1 */
        }
    GRID_AXES(c) _mm256_storeu_ps(osum[c], sum[c]);
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

void RULES_FN(grid_cell_of_avx2)(const state *s, size_t i0, size_t i1, const geom *g,
                                 uint32_t *cell_of) {
    __m256 o[D], sc[D], nf[D];
    __m256i nm1[D], n[D];
    GRID_AXES(a) {
        o[a] = _mm256_set1_ps((float)g->o[a]);
        sc[a] = _mm256_set1_ps(g->s[a]);
        nf[a] = _mm256_set1_ps((float)g->n[a]);
        nm1[a] = _mm256_set1_epi32((int32_t)(g->n[a] - 1));
        n[a] = _mm256_set1_epi32((int32_t)g->n[a]);
    }
    const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    for (size_t i = i0; i < i1; i += LANES) {
        const __m256i valid =
            _mm256_cmpgt_epi32(_mm256_set1_epi32((int32_t)(i1 - i < LANES ? i1 - i : LANES)), lane);
        __m256i cell = _mm256_setzero_si256();
        for (int a = D - 1; a >= 0; a--) {
            const __m256 x = _mm256_maskload_ps(s->p[a] + i, valid);
            const __m256i c = cell_coord8(_mm256_sub_ps(x, o[a]), sc[a], nf[a], nm1[a]);
            cell = a == D - 1 ? c : _mm256_add_epi32(_mm256_mullo_epi32(cell, n[a]), c);
        }
        _mm256_maskstore_epi32((int *)(void *)(cell_of + i), valid, cell);
    }
}
