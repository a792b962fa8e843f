/* SPDX-License-Identifier: MIT */
/* cpu: the SIMD kernels, over the dimension D (cpu_grid_impl.h) and the vector width
 * SIMD_W (cpu_simd.h): 8 boids (AVX2) or 16 (AVX-512) of one cell, or of a run of cells
 * along x, evaluated against each candidate (they share the candidate list), so each boid
 * still sums its neighbours one after the other in candidate order: it performs exactly the
 * float operations of rules_offset, rules_sees and rules_acc_add (or of the Vicsek sum),
 * with masks in place of branches, and gives the scalar kernel's bits at either width. The
 * Reynolds kernel then moves the boids as rules_accel and rules_integrate do, again
 * operation for operation on each lane. Written with intrinsics and not left to the
 * auto-vectoriser because, under the core's strict IEEE flags (trapping math, errno-setting
 * sqrt, no contraction), GCC does not vectorise those loops.
 *
 * Compiled once per width and dimension (cpu_grid_avx2_f2.c, cpu_grid_avx512_f2.c, ...)
 * with that width's -m flags (CMake, only with BOIDS_AVX2): the backend calls into it only
 * after checking that the processor has them, so nothing else may live here. */
#include <math.h>
#include <stdint.h>

#include "cpu_grid_impl.h"
#include "cpu_simd.h"

enum { W = SIMD_W }; /* lanes of a pass */

/* rules_wrap on W lanes, branch-free: d - side where d > half, d + side where d < -half. */
static inline vf wrapv(vf d, vf side, vf half, vf neg_half) {
    vf r = vf_sel(vm_gt(d, half), d, vf_sub(d, side));
    return vf_sel(vm_lt(d, neg_half), r, vf_add(d, side));
}

/* a0 b0 + a1 b1 (+ a2 b2): a dot product in the rules' order (rules_dot's). */
static inline vf dotv(const vf a[D], const vf b[D]) {
    vf s = vf_mul(a[0], b[0]);
    _Pragma("GCC unroll 3") for (int c = 1; c < D; c++) s = vf_add(s, vf_mul(a[c], b[c]));
    return s;
}

/* What both kernels need of their W lanes and the world: the lanes' positions and slots,
 * which lanes hold a boid of the group, and the wrap constants. */
typedef struct lanesv {
    vf p[D];
    vi self;
    vm valid;
    vf side[D], half[D], nhalf[D];
    int wrap[D];
} lanesv;

#if SIMD_W == 16 && RULES_DIM == 2
/* The first n (<= 16) of the records from r, field by field: f[c] holds field c of each,
 * the lanes past n zero (no memory past the n records is read). */
static inline void recs_load(const float *r, uint32_t n, vf f[4]) {
    const uint64_t bits = n >= 16 ? ~0ull : (1ull << (4 * n)) - 1;
    vf a[4];
    for (int i = 0; i < 4; i++)
        a[i] = _mm512_maskz_loadu_ps((__mmask16)(bits >> (16 * i)), r + 16 * i);
    /* x and y of records 0-7 (from a[0], a[1]) and of 8-15; then v's the same way. */
    const __m512i xy = _mm512_setr_epi32(0, 4, 8, 12, 16, 20, 24, 28, 1, 5, 9, 13, 17, 21, 25, 29);
    const __m512i vxy = _mm512_add_epi32(xy, _mm512_set1_epi32(2));
    const __m512i lo = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23);
    const __m512i hi = _mm512_add_epi32(lo, _mm512_set1_epi32(8));
    const vf p0 = _mm512_permutex2var_ps(a[0], xy, a[1]),
             p1 = _mm512_permutex2var_ps(a[2], xy, a[3]);
    const vf v0 = _mm512_permutex2var_ps(a[0], vxy, a[1]),
             v1 = _mm512_permutex2var_ps(a[2], vxy, a[3]);
    f[0] = _mm512_permutex2var_ps(p0, lo, p1), f[1] = _mm512_permutex2var_ps(p0, hi, p1);
    f[2] = _mm512_permutex2var_ps(v0, lo, v1), f[3] = _mm512_permutex2var_ps(v0, hi, v1);
}
#endif

/* The positions, and the velocities where v is not NULL, of the group's lanes from its first
 * record r (the spare lanes, past `lanes`, repeat the first boid): in the plane at 16 lanes a
 * transpose of four masked loads, else gathers of the lanes' records. */
static inline void lanes_fields(const float *r, uint32_t lanes, vm valid, vf p[D], vf v[D]) {
#if SIMD_W == 16 && RULES_DIM == 2
    vf f[REC];
    recs_load(r, lanes, f);
    for (int c = 0; c < REC; c++)
        f[c] = _mm512_mask_broadcastss_ps(f[c], (vm)~valid, _mm512_castps512_ps128(f[c]));
    GRID_AXES(a) {
        p[a] = f[a];
        if (v) v[a] = f[D + a];
    }
#else
    (void)lanes;
    const vi at = vi_mul(vi_slots(0, valid), vi_set1(REC)); /* REC x (lane, or 0) */
    GRID_AXES(a) {
        p[a] = vf_gather(r, vi_add(at, vi_set1(a)));
        if (v) v[a] = vf_gather(r, vi_add(at, vi_set1(D + a)));
    }
#endif
}

/* The lanes of cell group q (the spare ones repeat the first boid, so that they list no
 * separation candidate the first does not; no memory beyond the group is read); v receives
 * their velocities when not NULL. */
static inline void lanes_load(const snapshot *s, const grid_k *k, const cell_group *q, lanesv *g,
                              vf v[D]) {
    const vm valid = vm_first(q->lanes);
    lanes_fields(snap_rec(s, q->i0), q->lanes, valid, g->p, v);
    GRID_AXES(a) {
        g->side[a] = vf_set1(k->side[a]);
        g->half[a] = vf_set1(k->half[a]);
        g->nhalf[a] = vf_set1(-k->half[a]);
        g->wrap[a] = q->wrap[a];
    }
    g->self = vi_slots(q->i0, valid);
    g->valid = valid;
}

/* rules_offset and dist2 from the W lanes to candidate j, and (is_self not NULL) the lanes
 * that are j itself. wrapped: whether any axis may need rules_wrap (g's flags say which);
 * it comes as a value, which a loop keeps in a register or compiles away. */
static inline vf offsetv(const lanesv *g, int wrapped, const snapshot *s, uint32_t j, vf d[D],
                         vm *is_self) {
    const float *const r = snap_rec(s, j);
    GRID_AXES(a) {
        d[a] = vf_sub(vf_set1(r[a]), g->p[a]);
        if (wrapped && g->wrap[a]) d[a] = wrapv(d[a], g->side[a], g->half[a], g->nhalf[a]);
    }
    if (is_self) *is_self = vi_eq(g->self, vi_set1((int32_t)j));
    return dotv(d, d);
}

/* The lanes that see candidate j: dist2 < R^2, j not the lane itself (is_self, when j can be
 * one of the lanes), and within the field of view (rules_sees: dot >= cos(fov/2) *
 * sqrt(vv * dist2), a float sqrt equal to rules.h's double sqrt rounded to float, double
 * rounding being exact for sqrt). */
static inline vm seesv(const grid_k *k, int full_fov, vf v2, const vf vi[D], vf vv, vm vv0,
                       const vf d[D], vf dist2, const vm *is_self) {
    vm m = vm_lt(dist2, v2);
    if (is_self) m = vm_andnot(*is_self, m);
    if (!full_fov) {
        const vf dot = dotv(vi, d);
        const vf lim = vf_mul(vf_set1(k->cos_half_fov), vf_sqrt(vf_mul(vv, dist2)));
        const vm ok = vm_or(vm_or(vv0, vm_eq(dist2, vf_zero())), vm_ge(dot, lim));
        m = vm_and(m, ok);
    }
    return m;
}

/* What the separation pass needs of the lanes, and its sums. */
typedef struct sepv {
    vf vi[D], vv;
    vm vv0;
    vf s[D];
    vm sep;
} sepv;

/* The separation sums over the candidates js[0 .. n), in order: each lane adds -d / dist2 for
 * those it sees with 0 < dist2 < R_sep^2, as rules_acc_add does. The separation sums depend on
 * no other sum, so taking their candidates after the others' leaves every sum's order, and
 * its bits, as they were; it keeps the D divisions per candidate (the kernel's costliest
 * operations) off the candidates that no lane has within R_sep, most of them. */
static inline __attribute__((always_inline)) void sep_pass(const lanesv *g, const snapshot *s,
                                                           const grid_k *k, sepv *a,
                                                           const uint32_t *js, uint32_t n,
                                                           int wrapped, int full_fov) {
    const vf zero = vf_zero(), s2 = vf_set1(k->sep2);
    /* The sums in local vectors for the loop, kept in registers (see scanv). */
    vf sum[D];
    vm sep = a->sep;
    GRID_AXES(b) sum[b] = a->s[b];
    for (uint32_t c = 0; c < n; c++) {
        vf d[D];
        vm is_self;
        const vf dist2 = offsetv(g, wrapped, s, js[c], d, &is_self);
        const vm m =
            seesv(k, full_fov, vf_set1(k->vision2), a->vi, a->vv, a->vv0, d, dist2, &is_self);
        const vm sm = vm_and(m, vm_and(vm_lt(zero, dist2), vm_lt(dist2, s2)));
        GRID_AXES(b) sum[b] = vf_sub_m(sum[b], sm, vf_div(d[b], dist2));
        sep = vm_or(sep, sm);
    }
    GRID_AXES(b) a->s[b] = sum[b];
    a->sep = sep;
}

enum { SEP_BATCH = 64 }; /* candidates held for the separation pass at a time */

/* The other sums: velocities, offsets, counts (those only where scan8's count asks). */
typedef struct sumsv {
    vf mv[D], c[D];
    vi cnt;
} sumsv;

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
scanv(const lanesv *g, const snapshot *s, const grid_k *k, sepv *a, sumsv *v, uint32_t b,
      uint32_t e, int self, int wrapped, int full_fov, int count, uint32_t *js, uint32_t *n) {
    const vf s2 = vf_set1(k->sep2), v2 = vf_set1(k->vision2);
    vf mv[D], cs[D];
    GRID_AXES(c) mv[c] = v->mv[c], cs[c] = v->c[c];
    vi cnt = v->cnt;
    uint32_t nj = *n;
    for (uint32_t j = b; j < e;) {
        if (nj == SEP_BATCH) {
            sep_pass(g, s, k, a, js, nj, wrapped, full_fov);
            nj = 0;
        }
        const uint32_t stop = e - j <= SEP_BATCH - nj ? e : j + (SEP_BATCH - nj);
        for (; j < stop; j++) {
            vf d[D];
            vm is_self;
            const vf dist2 = offsetv(g, wrapped, s, j, d, self ? &is_self : NULL);
            const vm m =
                seesv(k, full_fov, v2, a->vi, a->vv, a->vv0, d, dist2, self ? &is_self : NULL);
            GRID_AXES(c) {
                mv[c] = vf_add_m(mv[c], m, vf_set1(snap_rec(s, j)[D + c]));
                cs[c] = vf_add_m(cs[c], m, d[c]);
            }
            if (count) cnt = vi_count(cnt, m);
            const vm close = vm_lt(dist2, s2);
            js[nj] = j;
            nj += vm_bits(self || !full_fov ? vm_and(m, close) : close) != 0;
        }
    }
    GRID_AXES(c) v->mv[c] = mv[c], v->c[c] = cs[c];
    v->cnt = cnt;
    *n = nj;
}

/* scanv over the candidate ranges r[0 .. nr) of the group of slots [i0, i1), with the
 * self test only where a range holds some of those slots, then sep_pass over the listed
 * candidates. */
static inline __attribute__((always_inline)) void
scan_all(const lanesv *g, const snapshot *s, const grid_k *k, sepv *a, sumsv *v, const range *r,
         int nr, uint32_t i0, uint32_t i1, int wrapped, int full_fov, int count) {
    uint32_t js[SEP_BATCH], n = 0;
    for (int w = 0; w < nr; w++) {
        const uint32_t b = r[w].b, e = r[w].e;
        if (e <= i0 || b >= i1)
            scanv(g, s, k, a, v, b, e, 0, wrapped, full_fov, count, js, &n);
        else
            scanv(g, s, k, a, v, b, e, 1, wrapped, full_fov, count, js, &n);
    }
    sep_pass(g, s, k, a, js, n, wrapped, full_fov);
}

/* scan_all compiled for the common case apart (no wrap, full field of view; the flags then
 * constants), with and without the counts, and for the general one (which counts): the
 * flags are tested once per group instead of once per candidate. */
static void scan_group(const lanesv *g, const snapshot *s, const grid_k *k, sepv *a, sumsv *v,
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

/* Neighbour sums of the boids in slots [i0, i0 + lanes) of the snapshot (lanes <= W; the
 * spare lanes repeat the first boid and are ignored) into a and v, the lanes into g.
 * Operation for operation the same as reynolds_scalar (cpu_grid.c): d = x_j - x_i wrapped
 * by rules_wrap's comparisons, dist2 = RULES_FN(rules_dot)(d, d), the fov test of seesv, and
 * each sum updated as scanv says; the neighbour counts where count is set. */
static inline void reynolds_sums(const snapshot *s, const grid_k *k, const cell_group *q, int count,
                                 lanesv *g, sepv *a, sumsv *v) {
    lanes_load(s, k, q, g, a->vi);
    const vf zero = vf_zero();
    a->vv = dotv(a->vi, a->vi);
    a->vv0 = vm_eq(a->vv, zero);
    GRID_AXES(c) a->s[c] = v->mv[c] = v->c[c] = zero;
    a->sep = vm_none();
    v->cnt = vi_zero();
    scan_group(g, s, k, a, v, q, count);
}

void SIMD_FN(grid_reynolds)(const snapshot *s, const grid_k *k, const cell_group *q,
                            grid_acc out[MAX_LANES]) {
    lanesv g;
    sepv a;
    sumsv v;
    reynolds_sums(s, k, q, 1, &g, &a, &v);
    float o[3][D][W];
    int32_t cnt[W];
    GRID_AXES(c) {
        vf_store(o[0][c], v.mv[c]);
        vf_store(o[1][c], v.c[c]);
        vf_store(o[2][c], a.s[c]);
    }
    vi_store(cnt, v.cnt);
    const unsigned sepbits = vm_bits(a.sep);
    for (uint32_t l = 0; l < q->lanes; l++) {
        float mv[D], cs[D], sp[D];
        GRID_AXES(c) mv[c] = o[0][c][l], cs[c] = o[1][c][l], sp[c] = o[2][c][l];
        grid_acc_set(&out[l], cnt[l], mv, cs, sp, (int)((sepbits >> l) & 1));
    }
}

/* ---- the move: rules_accel and rules_integrate on W lanes ----------------------------
 * Each lane performs the scalar functions' float operations in their order; a branch
 * becomes a mask, and both of its sides are computed on every lane and selected (a side
 * that the scalar code skips may divide by zero or take NaN on a lane: its value is then
 * discarded, and the core runs with floating-point exceptions masked). vf_sqrt and vf_div
 * round correctly, as sqrt and '/' do; the rules' sqrt in double of a float argument,
 * rounded to float, is that same correctly rounded float square root. */

/* rules_steer: the force from velocity v to full speed along d, capped at max_force, zero
 * for a zero target. */
static inline void steerv(const vf d[D], const vf v[D], vf max_speed, vf max_force, vf f[D]) {
    const vf m = vf_sqrt(dotv(d, d));
    vf g[D];
    GRID_AXES(a) g[a] = vf_sub(vf_mul(vf_div(d[a], m), max_speed), v[a]);
    const vf n = vf_sqrt(dotv(g, g));
    const vm cap = vm_gt(n, max_force);
    const vm some = vm_andnot(vm_eq(m, vf_zero()), vm_all());
    GRID_AXES(a) {
        g[a] = vf_sel(cap, g[a], vf_mul(vf_div(g[a], n), max_force));
        f[a] = vf_and(some, g[a]); /* +0, as rules_steer's */
    }
}

/* The acceleration being summed, and what every rule's steer needs. */
typedef struct accelv {
    vf a[D];
    vf v[D], max_speed, max_force;
} accelv;

/* rules_accel's `a += w * steer(d)` on the lanes of mask m (the others keep theirs). */
static inline void accel_add(accelv *c, float w, const vf d[D], vm m) {
    vf f[D];
    steerv(d, c->v, c->max_speed, c->max_force, f);
    const vf wv = vf_set1(w);
    GRID_AXES(a) c->a[a] = vf_sel(m, c->a[a], vf_add(c->a[a], vf_mul(wv, f[a])));
}

/* rules_offset on W lanes under the world's boundary (not the cell's wrap flags: a point
 * can be anywhere). */
static inline void world_offset(const grid_k *k, const lanesv *g, const vf x[D], const vf x2[D],
                                vf d[D]) {
    GRID_AXES(a) {
        d[a] = vf_sub(x2[a], x[a]);
        if (k->wrap) d[a] = wrapv(d[a], g->side[a], g->half[a], g->nhalf[a]);
    }
}

/* rules_accel without the interaction table (the caller's condition): the three rules,
 * then predator, food and walls, each where its condition holds, except that alignment and
 * cohesion apply to every lane, whether it has neighbours or not: a lane without has both
 * targets +0, whose steering force is +0, and adding w * +0 (w finite and >= 0, as params
 * are validated) leaves the acceleration as it is, which is never -0 (it starts at +0, and
 * under round-to-nearest a sum is -0 only if both terms are). So the scan need not count
 * the neighbours. */
static inline void accel_rules(const grid_k *k, const lanesv *g, const sepv *a, const sumsv *v,
                               accelv *c) {
    const vf zero = vf_zero();
    accel_add(c, k->w_sep, a->s, a->sep);
    accel_add(c, k->w_align, v->mv, vm_all());
    accel_add(c, k->w_coh, v->c, vm_all());
    vf d[D], pt[D];
    if (k->predator) {
        GRID_AXES(b) pt[b] = vf_set1(k->pred_at[b]);
        world_offset(k, g, pt, g->p, d);
        accel_add(c, k->w_pred, d, vm_lt(dotv(d, d), vf_set1(k->pred_r2)));
    }
    if (k->food) {
        GRID_AXES(b) pt[b] = vf_set1(k->food_at[b]);
        world_offset(k, g, g->p, pt, d);
        accel_add(c, k->w_food, d, vm_lt(dotv(d, d), vf_set1(k->food_r2)));
    }
    if (k->walls) { /* t: 0 + 1, 0 - 1 or 1 - 1 per axis, as the scalar code sums them */
        const vf one = vf_set1(1), margin = vf_set1(k->wall_margin);
        vm on = vm_none();
        GRID_AXES(b) {
            const vf hi = vf_set1(k->side[b] - k->wall_margin);
            d[b] = vf_and(vm_lt(g->p[b], margin), one);
            d[b] = vf_sel(vm_gt(g->p[b], hi), d[b], vf_sub(d[b], one));
            on = vm_or(on, vm_neq(d[b], zero));
        }
        accel_add(c, k->w_wall, d, on);
    }
}

/* rules_integrate without obstacles (the caller's condition): the speed clamp, the move
 * and the world boundary, from the lanes' state (g's positions, velocities v) into p, v. */
static inline void integratev(const grid_k *k, const lanesv *g, const vf acc[D], vf v[D], vf p[D]) {
    const vf zero = vf_zero();
    const vf hi = vf_set1(k->max_speed), lo = vf_set1(k->min_speed);
    vf nv[D];
    GRID_AXES(a) nv[a] = vf_add(v[a], acc[a]);
    const vf s = vf_sqrt(dotv(nv, nv));
    const vm fast = vm_gt(s, hi);
    const vm slow = vm_andnot(fast, vm_and(vm_lt(zero, s), vm_lt(s, lo)));
    const vf dt = vf_set1(k->dt);
    GRID_AXES(a) {
        const vf u = vf_div(nv[a], s);
        nv[a] = vf_sel(slow, vf_sel(fast, nv[a], vf_mul(u, hi)), vf_mul(u, lo));
        vf x = vf_add(g->p[a], vf_mul(nv[a], dt));
        const vf side = g->side[a];
        if (k->wrap) { /* below 0: + side; else at or above the side: - side */
            x = vf_sel(vm_lt(x, zero), vf_sel(vm_ge(x, side), x, vf_sub(x, side)), vf_add(x, side));
        } else if (k->walls) { /* below 0: -x; else beyond the side: side - (x - side); flip v */
            const vm l = vm_lt(x, zero), h = vm_gt(x, side);
            x = vf_sel(l, vf_sel(h, x, vf_sub(side, vf_sub(x, side))), vf_neg(x));
            nv[a] = vf_sel(vm_or(l, h), nv[a], vf_neg(nv[a]));
        }
        p[a] = x;
    }
    GRID_AXES(a) v[a] = nv[a];
}

/* The cells of W positions p in co's grid (grid_build's cell_of). */
static inline vi cells_of(const cell_out *co, const vf p[D]) {
    vi cell = vi_zero();
    for (int a = D - 1; a >= 0; a--) {
        const vi c = vi_cell_coord(vf_sub(p[a], vf_set1(co->o[a])), vf_set1(co->s[a]),
                                   vf_set1((float)co->n[a]), vi_set1((int32_t)(co->n[a] - 1)));
        cell = a == D - 1 ? c : vi_add(vi_mul(cell, vi_set1((int32_t)co->n[a])), c);
    }
    return cell;
}

void SIMD_FN(grid_reynolds_move)(const snapshot *s, const state *out, const grid_k *k,
                                 const cell_group *q, const cell_out *co) {
    lanesv g;
    sepv a;
    sumsv v;
    reynolds_sums(s, k, q, 0, &g, &a, &v);
    accelv c;
    GRID_AXES(b) c.a[b] = vf_zero(), c.v[b] = a.vi[b];
    c.max_speed = vf_set1(k->max_speed);
    c.max_force = vf_set1(k->max_force);
    accel_rules(k, &g, &a, &v, &c);
    vf p[D], nv[D];
    GRID_AXES(b) nv[b] = a.vi[b];
    integratev(k, &g, c.a, nv, p);
    GRID_AXES(b) {
        vf_store_m(out->p[b] + q->i0, g.valid, p[b]);
        vf_store_m(out->v[b] + q->i0, g.valid, nv[b]);
    }
    if (co) vi_store_m((int32_t *)(void *)(co->cell_of + q->i0), g.valid, cells_of(co, p));
}

/* Vicsek heading sums of the boids in slots [i0, i0 + lanes): like the Reynolds kernel,
 * each lane adds the unit headings of its candidates one after the other in candidate
 * order, exactly as vicsek_scalar (cpu_grid.c) does: accepted when dist2 <= R^2 (the seed's
 * "no mayor que R") or when the candidate is the boid itself (always included, whatever
 * its position). */
void SIMD_FN(grid_vicsek)(const snapshot *s, float *const u[D], const grid_k *k,
                          const cell_group *q, float osum[D][MAX_LANES], int32_t ocnt[MAX_LANES]) {
    const range *const r = q->r;
    const int nr = q->nr;
    lanesv g;
    lanes_load(s, k, q, &g, NULL);
    int wrapped = 0;
    GRID_AXES(c) wrapped |= g.wrap[c];
    const vf v2 = vf_set1(k->vision2);
    vf sum[D];
    GRID_AXES(c) sum[c] = vf_zero();
    vi cnt = vi_zero();
    for (int w = 0; w < nr; w++)
        for (uint32_t j = r[w].b; j < r[w].e; j++) {
            vf d[D];
            vm is_self;
            const vf dist2 = offsetv(&g, wrapped, s, j, d, &is_self);
            const vm m = vm_or(is_self, vm_le(dist2, v2));
            GRID_AXES(c) sum[c] = vf_sel(m, sum[c], vf_add(sum[c], vf_set1(u[c][j])));
            cnt = vi_count(cnt, m);
        }
    float o[D][W];
    int32_t n[W];
    GRID_AXES(c) vf_store(o[c], sum[c]);
    vi_store(n, cnt);
    for (uint32_t l = 0; l < q->lanes; l++) {
        GRID_AXES(c) osum[c][l] = o[c][l];
        ocnt[l] = n[l];
    }
}

#if SIMD_W == 8
void RULES_FN(grid_cell_of_avx2)(const state *s, size_t i0, size_t i1, const cell_out *co) {
    for (size_t i = i0; i < i1; i += W) {
        const vm valid = vm_first((uint32_t)(i1 - i < W ? i1 - i : W));
        vf p[D];
        GRID_AXES(a) p[a] = vf_load_lanes(s->p[a], (uint32_t)i, valid);
        vi_store_m((int32_t *)(void *)(co->cell_of + i), valid, cells_of(co, p));
    }
}
#endif

/* ---- topological: the selections of W lanes at once ---------------------------------
 * Each candidate of the group's ranges is offered to the selection of every lane that it
 * may enter, as topo_scan (cpu_grid_topo.c) offers it to one boid: the same offset and
 * dist2 on each lane, the same tests (not the lane itself; the radius in k_in_vision mode,
 * <= for Vicsek; the field of view for Reynolds, as seesv makes it), then
 * rules_nearest_keep, which settles ties on the id. The selection does not depend on the
 * order of the offers: it is the first k in (dist2, id) order among the candidates offered,
 * so a candidate that cannot be among them need not be offered. For k up to TOPO_NET a first
 * pass finds each lane's k-th smallest dist2 without a branch (k sorted vectors, a candidate
 * passed down them by min and max), and the second offers only the candidates at or below
 * it: about k of them a lane. Above TOPO_NET one pass offers each candidate at or below the
 * last entry of a full selection (NaN while not full: every one). */
enum { TOPO_NET = 16 };

typedef struct topo_lanes {
    lanesv g;
    vf vi[D], vv, v2, cos_half;
    vm vv0;
    int wrapped, fov, vicsek, in_vision;
} topo_lanes;

/* The lanes to which candidate j may be offered (before the selection's own test), and
 * their dist2. self: whether j may be one of the lanes. */
static inline vm topo_offer(const topo_lanes *t, const snapshot *s, uint32_t j, int self,
                            vf *dist2) {
    vf d[D];
    vm is_self;
    *dist2 = offsetv(&t->g, t->wrapped, s, j, d, self ? &is_self : NULL);
    vm ok = t->g.valid;
    if (self) ok = vm_andnot(is_self, ok);
    if (t->in_vision) ok = vm_and(ok, t->vicsek ? vm_le(*dist2, t->v2) : vm_lt(*dist2, t->v2));
    if (t->fov) {
        const vf lim = vf_mul(t->cos_half, vf_sqrt(vf_mul(t->vv, *dist2)));
        const vm ahead = vm_or(vm_or(t->vv0, vm_eq(*dist2, vf_zero())), vm_ge(dotv(t->vi, d), lim));
        ok = vm_and(ok, ahead);
    }
    return ok;
}

/* Offers candidate j, at dist2 from the lanes of bits, to their selections. */
static inline void topo_keep(const snapshot *s, const uint32_t *gid, uint32_t kmax, uint32_t j,
                             unsigned bits, vf dist2, cand *best, uint32_t m[MAX_LANES]) {
    float dd[W];
    vf_store(dd, dist2);
    const uint32_t id = gid ? gid[s->id[j]] : s->id[j];
    for (; bits; bits &= bits - 1) {
        const unsigned l = (unsigned)__builtin_ctz(bits);
        m[l] = (uint32_t)RULES_FN(rules_nearest_keep)(best + (size_t)l * kmax, m[l], kmax, dd[l],
                                                      id, j);
    }
}

/* One pass over the candidates of q's ranges. KTH: each candidate passed down the lanes'
 * kmax sorted dist2 (kth), and the lanes offered a dist2 not below +inf into odd. BELOW: the
 * candidates at or below the lanes' last (a vector) offered to their selections. RUNNING:
 * those at or below the last entry of a full selection (lastf, NaN while not full, kept as
 * the selections fill). */
enum { TOPO_KTH, TOPO_BELOW, TOPO_RUNNING };

static inline __attribute__((always_inline)) void topo_pass(const topo_lanes *t, const snapshot *s,
                                                            const cell_group *q, int pass,
                                                            const uint32_t *gid, uint32_t kmax,
                                                            vf *kth, vm *odd, vf last, float *lastf,
                                                            cand *best, uint32_t *m) {
    const uint32_t i0 = q->i0, i1 = q->i0 + q->lanes;
    const vf inf = vf_set1(INFINITY);
    if (pass == TOPO_RUNNING) last = vf_load_lanes(lastf, 0, vm_all());
    for (int w = 0; w < q->nr; w++) {
        const uint32_t b = q->r[w].b, e = q->r[w].e;
        const int self = !(e <= i0 || b >= i1);
        for (uint32_t j = b; j < e; j++) {
            vf dist2;
            const vm ok = topo_offer(t, s, j, self, &dist2);
            if (pass == TOPO_KTH) {
                *odd = vm_or(*odd, vm_and(ok, vm_nlt(dist2, inf)));
                vf x = vf_sel(ok, inf, dist2);
                for (uint32_t i = 0; i < kmax; i++) {
                    const vf lo = vf_min(kth[i], x);
                    x = vf_max(kth[i], x);
                    kth[i] = lo;
                }
                continue;
            }
            const vm in = pass == TOPO_BELOW ? vm_le(dist2, last) : vm_nlt(last, dist2);
            unsigned bits = vm_bits(vm_and(ok, in));
            if (!bits) continue;
            topo_keep(s, gid, kmax, j, bits, dist2, best, m);
            if (pass == TOPO_BELOW) continue;
            for (; bits; bits &= bits - 1) {
                const unsigned l = (unsigned)__builtin_ctz(bits);
                if (m[l] == kmax) lastf[l] = best[(size_t)l * kmax + kmax - 1].dist2;
            }
            last = vf_load_lanes(lastf, 0, vm_all());
        }
    }
}

unsigned SIMD_FN(grid_topo_lanes)(const snapshot *s, const grid_k *k, const cell_group *q,
                                  const uint32_t *gid, uint32_t kmax, int vicsek, int in_vision,
                                  cand *best, uint32_t m[MAX_LANES]) {
    topo_lanes t;
    lanes_load(s, k, q, &t.g, t.vi);
    t.vv = dotv(t.vi, t.vi), t.v2 = vf_set1(k->vision2), t.cos_half = vf_set1(k->cos_half_fov);
    t.vv0 = vm_eq(t.vv, vf_zero());
    t.fov = !vicsek && !k->full_fov, t.vicsek = vicsek, t.in_vision = in_vision;
    t.wrapped = 0;
    GRID_AXES(c) t.wrapped |= t.g.wrap[c];
    for (uint32_t l = 0; l < q->lanes; l++) m[l] = 0;
    vf kth[TOPO_NET];   /* each lane's kmax smallest dist2 so far, in order */
    vm odd = vm_none(); /* lanes offered a dist2 that is not below +inf */
    if (kmax <= TOPO_NET) {
        for (uint32_t i = 0; i < kmax; i++) kth[i] = vf_set1(INFINITY);
        topo_pass(&t, s, q, TOPO_KTH, gid, kmax, kth, &odd, kth[0], NULL, best, m);
        topo_pass(&t, s, q, TOPO_BELOW, gid, kmax, kth, &odd, kth[kmax - 1], NULL, best, m);
        return vm_bits(vm_andnot(odd, t.g.valid));
    }
    float lastf[W];
    for (int l = 0; l < W; l++) lastf[l] = NAN;
    topo_pass(&t, s, q, TOPO_RUNNING, gid, kmax, kth, &odd, vf_zero(), lastf, best, m);
    return vm_bits(t.g.valid);
}
