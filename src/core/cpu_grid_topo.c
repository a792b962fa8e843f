/* SPDX-License-Identifier: MIT */
/* cpu: the topological neighbours, the k nearest of a boid (ties by id) found by
 * searching rings of grid cells outward from its own, for either model. */
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

/* Is (d2, id) before the candidate b in the selection order (distance, then id)? */
static inline int cand_before(float d2, uint32_t id, const cand *b) {
    return d2 < b->d2 || (d2 == b->d2 && id < b->id);
}

/* Offers every boid of a snapshot range to the selection. Everything the loop reads is
 * held in locals: the stores into best would otherwise make the compiler reload it all
 * (they may alias) for every candidate. */
static void topo_scan(topo_q *q, uint32_t b, uint32_t e) {
    const float *const xs = q->s->x, *const ys = q->s->y;
    const uint32_t *const ids = q->s->id;
    const rules_k_f2 *const k = q->k;
    const uint32_t self = q->i, kmax = q->kmax;
    const float x = xs[self], y = ys[self], vx = q->s->vx[self], vy = q->s->vy[self];
    const float vision2 = k->vision2;
    const int vicsek = q->vicsek, in_vision = q->in_vision;
    cand *const best = q->best;
    uint32_t m = q->m;
    /* The current k-th: a candidate must come before it once the selection is full. */
    float wd2 = m == kmax ? best[m - 1].d2 : INFINITY;
    uint32_t wid = m == kmax ? best[m - 1].id : UINT32_MAX;
    for (uint32_t j = b; j < e; j++) {
        if (j == self) continue;
        const float pi[2] = {x, y}, pj[2] = {xs[j], ys[j]};
        float d[2];
        rules_offset_f2(k, pi, pj, d);
        const float d2 = d[0] * d[0] + d[1] * d[1];
        if (m == kmax && !(d2 < wd2 || (d2 == wd2 && ids[j] < wid))) continue;
        if (in_vision && !(vicsek ? d2 <= vision2 : d2 < vision2)) continue;
        const float vi[2] = {vx, vy};
        if (!vicsek && !rules_in_fov_f2(k, d, d2, vi)) continue;
        const uint32_t id = ids[j];
        uint32_t pos = m < kmax ? m++ : m - 1;
        for (; pos > 0 && cand_before(d2, id, &best[pos - 1]); pos--) best[pos] = best[pos - 1];
        best[pos] = (cand){d2, id, j};
        if (m == kmax) {
            wd2 = best[m - 1].d2;
            wid = best[m - 1].id;
        }
    }
    q->m = m;
}

/* Selects the k nearest candidates of the boid in slot i (cell cx, cy) into q->best by
 * searching rings of cells outward: ring r holds the cells r apart (Chebyshev, periodic
 * under wrap). After rings 0..r every unvisited boid is at d2 > (r * reach)^2 (grid_geom.h), so
 * once k are held and the k-th is below that, no unvisited boid can come before it, not
 * even by a tie on the id: the selection is exactly the first k in (d2, id) order over all
 * candidates. With k_in_vision only the 3x3 block can hold candidates. */
void boids_cpu_topo_select(topo_q *q, const grid_geom *g, const uint32_t *start, uint32_t cx,
                           uint32_t cy) {
    long xlo, xhi, ylo, yhi;
    axis_span(g->wrap, cx, g->ncx, &xlo, &xhi);
    axis_span(g->wrap, cy, g->ncy, &ylo, &yhi);
    long rmax = -xlo;
    if (xhi > rmax) rmax = xhi;
    if (-ylo > rmax) rmax = -ylo;
    if (yhi > rmax) rmax = yhi;
    if (q->in_vision && rmax > 1) rmax = 1;
    q->m = 0;
    for (long r = 0; r <= rmax; r++) {
        const long y0 = ylo > -r ? ylo : -r, y1 = yhi < r ? yhi : r;
        const long x0 = xlo > -r ? xlo : -r, x1 = xhi < r ? xhi : r;
        for (long dy = y0; dy <= y1; dy++) {
            const size_t row = (size_t)axis_cell(g->wrap, cy, g->ncy, dy) * g->ncx;
            if (dy == -r || dy == r) { /* a full row of the ring */
                for (long dx = x0; dx <= x1; dx++) {
                    const size_t cell = row + axis_cell(g->wrap, cx, g->ncx, dx);
                    topo_scan(q, start[cell], start[cell + 1]);
                }
            } else { /* its two sides */
                if (-r >= xlo) {
                    const size_t cell = row + axis_cell(g->wrap, cx, g->ncx, -r);
                    topo_scan(q, start[cell], start[cell + 1]);
                }
                if (r <= xhi) {
                    const size_t cell = row + axis_cell(g->wrap, cx, g->ncx, r);
                    topo_scan(q, start[cell], start[cell + 1]);
                }
            }
        }
        if (q->m == q->kmax && r >= 1) {
            const double bound = (double)r * g->reach;
            if ((double)q->best[q->m - 1].d2 < bound * bound) break;
        }
    }
}
