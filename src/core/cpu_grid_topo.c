/* SPDX-License-Identifier: MIT */
/* cpu: the topological neighbours, the k nearest of a boid (ties by id) found by
 * searching shells of grid cells outward from its own, and the steering over them, for
 * either model and dimension (cpu_grid_impl.h). */
#include <math.h>
#include <stdint.h>

#include "cpu_grid_impl.h"

/* The offsets along one axis (of n cells, from cell c) that name distinct cells: under wrap
 * each cell once, by its shortest periodic offset; otherwise those inside the grid. */
static void axis_span(int wrap, uint32_t c, uint32_t n, long *lo, long *hi) {
    if (wrap) {
        *lo = -(long)((n - 1) / 2);
        *hi = (long)(n / 2);
    } else {
        *lo = -(long)c;
        *hi = (long)(n - 1 - c);
    }
}

static inline uint32_t axis_cell(int wrap, uint32_t c, uint32_t n, long d) {
    long v = (long)c + d;
    if (wrap) v = (v % (long)n + (long)n) % (long)n;
    return (uint32_t)v;
}

/* Offers every boid of a snapshot range to the selection (the rules' rules_nearest_keep). A
 * candidate that comes after the k-th of a full selection is dropped before its tests: the
 * selection would drop it. Everything the loop reads is held in locals: the stores into best
 * would otherwise make the compiler reload it all (they may alias) for every candidate. */
static void topo_scan(topo_q *q, uint32_t b, uint32_t e) {
    const float *const rec = q->s->r;
    float x[D], v[D];
    snap_get(q->s, q->i, x, v);
    const uint32_t *const ids = q->s->id, *const gid = q->gid;
    const grid_k *const k = q->k;
    const uint32_t self = q->i, kmax = q->kmax;
    const float vision2 = k->vision2;
    const int vicsek = q->vicsek, in_vision = q->in_vision;
    cand *const best = q->best;
    uint32_t m = q->m;
    /* The current k-th: a candidate must come before it once the selection is full. */
    float wd2 = m == kmax ? best[m - 1].dist2 : INFINITY;
    size_t wid = m == kmax ? best[m - 1].id : SIZE_MAX;
    for (uint32_t j = b; j < e; j++) {
        if (j == self) continue;
        float d[D];
        RULES_FN(rules_offset)(k, x, rec + (size_t)j * REC, d);
        const float dist2 = RULES_FN(rules_dot)(d, d);
        const uint32_t id = gid ? gid[ids[j]] : ids[j];
        if (m == kmax && !RULES_FN(rules_nearest_before)(dist2, id, wd2, wid)) continue;
        if (in_vision && !(vicsek ? dist2 <= vision2 : dist2 < vision2)) continue;
        if (!vicsek && !RULES_FN(rules_in_fov)(k, d, dist2, v)) continue;
        m = (uint32_t)RULES_FN(rules_nearest_keep)(best, m, kmax, dist2, id, j);
        if (m == kmax) {
            wd2 = best[m - 1].dist2;
            wid = best[m - 1].id;
        }
    }
    q->m = m;
}

/* Selects the k nearest candidates of the boid in slot i (cell c) into q->best by
 * searching shells of cells outward: shell r holds the cells r apart (Chebyshev, periodic
 * under wrap), visited row by row along x, higher axes outermost. After shells 0..r every
 * unvisited boid is at dist2 > (r * reach)^2 (grid_geom.h), so once k are held and the k-th is
 * below that, no unvisited boid can come before it, not even by a tie on the id: the
 * selection is exactly the first k in (dist2, id) order over all candidates. With k_in_vision
 * only the 3^D block can hold candidates. */
void RULES_FN(grid_topo_select)(topo_q *q, const geom *g, const uint32_t *start,
                                const uint32_t c[D]) {
    long lo[D], hi[D], rmax = 0;
    int wrap[D];
    for (int a = 0; a < D; a++) {
        wrap[a] = grid_axis_wraps(g, q->win, a);
        axis_span(wrap[a], c[a], g->n[a], &lo[a], &hi[a]);
        if (-lo[a] > rmax) rmax = -lo[a];
        if (hi[a] > rmax) rmax = hi[a];
    }
    if (q->in_vision && rmax > 1) rmax = 1;
    q->m = 0;
    for (long r = 0; r <= rmax; r++) {
        long b0[D], b1[D], d[D];
        for (int a = 0; a < D; a++) {
            b0[a] = lo[a] > -r ? lo[a] : -r;
            b1[a] = hi[a] < r ? hi[a] : r;
            d[a] = b0[a];
        }
        for (;;) { /* the rows of the shell: offsets d[1 ..] */
            size_t row = 0;
            int edge = 0; /* the row lies on the shell's face: all of it is in the shell */
            for (int a = D - 1; a >= 1; a--) {
                row = row * g->n[a] + axis_cell(wrap[a], c[a], g->n[a], d[a]);
                edge = edge || d[a] == -r || d[a] == r;
            }
            row *= g->n[0];
            if (edge) { /* the row's cells: one run of slots, or two across the seam */
                const long n0 = (long)g->n[0], x0 = (long)c[0] + b0[0], x1 = (long)c[0] + b1[0];
                const long a0 = x0 < 0 ? x0 + n0 : x0, a1 = x0 < 0 ? n0 - 1 : x1 < n0 ? x1 : n0 - 1;
                topo_scan(q, start[row + (size_t)a0], start[row + (size_t)a1 + 1]);
                if (x0 < 0) topo_scan(q, start[row], start[row + (size_t)x1 + 1]);
                if (x1 >= n0) topo_scan(q, start[row], start[row + (size_t)(x1 - n0) + 1]);
            } else { /* else its two ends */
                if (-r >= lo[0]) {
                    const size_t cell = row + axis_cell(wrap[0], c[0], g->n[0], -r);
                    topo_scan(q, start[cell], start[cell + 1]);
                }
                if (r <= hi[0]) {
                    const size_t cell = row + axis_cell(wrap[0], c[0], g->n[0], r);
                    topo_scan(q, start[cell], start[cell + 1]);
                }
            }
            int a = 1;
            for (; a < D; a++) {
                if (++d[a] <= b1[a]) break;
                d[a] = b0[a];
            }
            if (a == D) break;
        }
        if (q->m == q->kmax && r >= 1) {
            const double bound = (double)r * g->reach;
            if ((double)q->best[q->m - 1].dist2 < bound * bound) break;
        }
    }
}

/* The move of the boid in slot i from its selection best[0 .. m), in the selection's
 * (dist2, id) order: the Vicsek heading sum (itself, then the k) or the Reynolds sums. */
static void topo_move(const steer_ctx *x, uint32_t i, const cand *best, uint32_t m) {
    const snapshot *const snap = &x->snap;
    const grid_k *const k = x->k;
    if (x->p->model == BOIDS_MODEL_VICSEK) {
        float s[D], ui[D], uj[D];
        for (int a = 0; a < D; a++) s[a] = ui[a] = x->u[a][i];
        for (uint32_t b = 0; b < m; b++) {
            for (int a = 0; a < D; a++) uj[a] = x->u[a][best[b].at];
            RULES_FN(vicsek_term)(k, ui, uj, s); /* nematic: signed by ui */
        }
        vicsek_move(snap, &x->out, k, x->p, x->t, x->gid, i, s, (long)m + 1);
        return;
    }
    grid_acc acc;
    RULES_FN(rules_acc_init)(&acc);
    float p[D], v[D];
    snap_get(snap, i, p, v);
    for (uint32_t b = 0; b < m; b++) {
        float xj[D], vj[D], d[D];
        snap_get(snap, best[b].at, xj, vj);
        RULES_FN(rules_offset)(k, p, xj, d);
        RULES_FN(rules_acc_add)(k, &acc, d, RULES_FN(rules_dot)(d, d), vj);
    }
    grid_move(k, &acc, p, v);
    state_put(&x->out, i, p, v);
}

/* Whether a SIMD selection (grid_topo_lanes: over the candidates of a group's ranges, the
 * 3^D block of the boid's cell and of the others of its run, which lie beyond the reach) is
 * the shell search's: in k_in_vision mode that search looks at the block only, and the
 * others fail the radius test; otherwise it stops after shell 1 when the selection is full
 * and its last entry is nearer than the reach, below every boid outside the block, and a
 * full selection whose last entry is nearer than the reach holds only boids of the block.
 * Where it is not, the shell search runs. */
static int topo_block_enough(const topo_q *q, const geom *g, const cand *sel, uint32_t m) {
    if (q->in_vision) return 1;
    return m == q->kmax && (double)sel[m - 1].dist2 < g->reach * g->reach;
}

/* Whether the boids of group grp (of a run of span cells) may find their k nearest within
 * the reach, by the density of their ranges' candidates: the ball of the reach holds about
 * pi (the plane) or 4.19 (the box) cells' worth of them, and the ranges are 3^(D-1) rows of
 * span + 2 cells (fewer at a wall). Where it holds fewer than 1.5 k, most of them need the
 * shell search, and the block's search is skipped. Either way gives the same selections. */
static int topo_dense(const cell_group *grp, uint32_t span, uint32_t kmax) {
    size_t n = 0;
    for (int w = 0; w < grp->nr; w++) n += grp->r[w].e - grp->r[w].b;
    const double cells = (D == 2 ? 3.0 : 9.0) * (double)(span + 2);
    const double ball = D == 2 ? 3.14159 : 4.18879;
    return (double)n * ball >= 1.5 * (double)kmax * cells;
}

/* Topological neighbours with the SIMD kernels, one species: the boids of group grp (of the
 * run of span cells along x from coordinates k) select together over its ranges, those whose
 * selection may reach beyond them search shells alone (grid_topo_select), and each moves;
 * in a sparse group (topo_dense) all of them do. */
static void topo_group(const steer_ctx *x, const geom *g, const cell_group *grp,
                       const uint32_t k[D], uint32_t span) {
#if BOIDS_AVX2
    const boids_params *const p = x->p;
    const uint32_t kmax = (uint32_t)p->k;
    const int vicsek = p->model == BOIDS_MODEL_VICSEK;
    cand *const mine = x->cand + (size_t)thread_num() * kmax * (MAX_LANES + 1);
    topo_q q = {&x->snap, x->k, kmax, vicsek, p->k_in_vision != 0, x->win, 0, mine, 0, x->gid};
    cand *const sel = mine + kmax; /* the lanes' selections */
    uint32_t m[MAX_LANES] = {0};
    unsigned made = 0;
    if (q.in_vision || topo_dense(grp, span, kmax))
        made = (x->simd == MAX_LANES ? RULES_FN(grid_topo_lanes_avx512)
                                     : RULES_FN(grid_topo_lanes_avx2))(
            &x->snap, x->k, grp, x->gid, kmax, vicsek, q.in_vision, sel, m);
    for (uint32_t l = 0; l < grp->lanes; l++) {
        const uint32_t i = grp->i0 + l;
        const cand *own = sel + (size_t)l * kmax;
        uint32_t n = m[l];
        if (!((made >> l) & 1) || !topo_block_enough(&q, g, own, n)) {
            uint32_t kc[D];
            for (int a = 0; a < D; a++) kc[a] = k[a];
            while (kc[0] + 1 < k[0] + span && x->start[cell_index(g, kc) + 1] <= i) kc[0]++;
            q.i = i;
            RULES_FN(grid_topo_select)(&q, g, x->start, kc);
            own = q.best, n = q.m;
        }
        topo_move(x, i, own, n);
    }
#else
    (void)x, (void)g, (void)grp, (void)k, (void)span;
#endif
}

/* Topological neighbours, either model, without the SIMD kernels or with species: each boid
 * selects, then sums over the selection in its (dist2, id) order, which does not depend on
 * the threads: the boids of cells [c0, nc) in slots [slot_lo, slot_hi), the others untouched. With
 * species each boid selects by its species' constants and steers by species_topo
 * (cpu_grid_species.c). In tile mode the selection's ties go by the global ids (topo_q.gid). */
void RULES_FN(grid_steer_topo)(const steer_ctx *x, const geom *g, size_t c0, size_t nc, cand *buf,
                               int threads) {
    const uint32_t *const gid = x->gid, *const start = x->start;
    const snapshot snap = x->snap;
    const grid_k *const k = x->k;
    const boids_params *const p = x->p;
    const uint32_t kmax = (uint32_t)p->k;
    const int vicsek = p->model == BOIDS_MODEL_VICSEK;
    const long chunk = (long)cell_chunk(nc - c0, threads);
    grid_k ks[BOIDS_MAX_SPECIES]; /* species: each boid selects and moves by its own */
    if (p->species > 1) RULES_FN(rules_k_species)(ks, k, p);
#pragma omp parallel num_threads(threads) if (threads > 1)
    {
        topo_q q = {&snap,
                    k,
                    kmax,
                    vicsek,
                    p->k_in_vision != 0,
                    x->win,
                    0,
                    buf + (size_t)thread_num() * kmax,
                    0,
                    gid};
#pragma omp for schedule(dynamic, chunk)
        for (size_t cell = c0; cell < nc; cell++) {
            uint32_t kc[D];
            cell_coords(g, cell, kc);
            const uint32_t b = start[cell] > x->slot_lo ? start[cell] : x->slot_lo;
            const uint32_t e = start[cell + 1] < x->slot_hi ? start[cell + 1] : x->slot_hi;
            for (uint32_t i = b; i < e; i++) {
                q.i = i;
                if (p->species > 1) {
                    const uint32_t id = gid ? gid[snap.id[i]] : snap.id[i];
                    q.k = &ks[RULES_FN(rules_species_of)(ks, id)];
                    RULES_FN(grid_topo_select)(&q, g, start, kc);
                    species_topo(x, q.k, g, start, kc, i, q.best, q.m);
                    continue;
                }
                RULES_FN(grid_topo_select)(&q, g, start, kc);
                topo_move(x, i, q.best, q.m);
            }
        }
    }
}
