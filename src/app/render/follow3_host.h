/* SPDX-License-Identifier: MIT */
/* follow3_host's rule in one precision: included by follow3.c once per RULES_REAL, after
 * rules.h (RULES_DIM 3) with the same RULES_REAL and RULES_FN. The tests are the steps' own:
 * cpu_ref.c's metric_block and topo_gather in double, cpu_grid3.c's metric_hit and
 * topo_scan in float, each on its own arithmetic (rules_offset, rules_dot, rules_in_fov). */

#define R RULES_REAL

/* Offset from boid i to boid j of fl in R, into d; returns |d|^2. Positions in R: the cpu
 * grid's float state is held exactly in the host's doubles. */
static R RULES_FN(host3_offset)(const RULES_FN(rules_k) * k, const boids_flock *fl, size_t i,
                                size_t j, R d[3]) {
    const R pi[3] = {(R)fl->x[i], (R)fl->y[i], (R)fl->z[i]};
    const R pj[3] = {(R)fl->x[j], (R)fl->y[j], (R)fl->z[j]};
    RULES_FN(rules_offset)(k, pi, pj, d);
    return RULES_FN(rules_dot)(d, d);
}

/* Is j (at offset d, |d|^2 = d2) a candidate of i: in the cone for Reynolds, and within the
 * vision radius where the model's neighbours are metric or k_in_vision asks for it. */
static int RULES_FN(host3_candidate)(const RULES_FN(rules_k) * k, const boids_params *p,
                                     const boids_flock *fl, size_t i, const R d[3], R d2) {
    const int vicsek = p->model == BOIDS_MODEL_VICSEK;
    const int radius = p->neighbours != BOIDS_NEIGHBOURS_TOPOLOGICAL || p->k_in_vision;
    if (radius && !(vicsek ? d2 <= k->vision2 : d2 < k->vision2)) return 0;
    const R vi[3] = {(R)fl->vx[i], (R)fl->vy[i], (R)fl->vz[i]};
    return vicsek || RULES_FN(rules_in_fov)(k, d, d2, vi);
}

/* Is candidate (d2, j) before the held neighbour h in the selection's (d2, id) order? */
static int RULES_FN(host3_before)(const RULES_FN(rules_k) * k, const boids_flock *fl, size_t i,
                                  R d2, size_t j, size_t h) {
    R e[3];
    const R hd2 = RULES_FN(host3_offset)(k, fl, i, h, e);
    return d2 < hd2 || (d2 == hd2 && j < h);
}

static size_t RULES_FN(host3_marks)(const boids_flock *fl, const boids_params *p, size_t i,
                                    uint32_t *nb) {
    RULES_FN(rules_k) k;
    RULES_FN(rules_k_init)(&k, p);
    const int topo = p->neighbours == BOIDS_NEIGHBOURS_TOPOLOGICAL;
    const size_t kmax = topo ? (size_t)p->k : fl->n;
    size_t m = 0;
    for (size_t j = 0; j < fl->n; j++) {
        if (j == i) continue;
        R d[3];
        const R d2 = RULES_FN(host3_offset)(&k, fl, i, j, d);
        if (!RULES_FN(host3_candidate)(&k, p, fl, i, d, d2)) continue;
        if (!topo) {
            nb[m++] = (uint32_t)j;
            continue;
        }
        /* the k nearest so far in (d2, id) order: insert, dropping the last when full (the
         * held ones' distances are recomputed: k is small, and nothing is allocated) */
        if (m == kmax && (m == 0 || !RULES_FN(host3_before)(&k, fl, i, d2, j, nb[m - 1]))) continue;
        size_t pos = m < kmax ? m++ : m - 1;
        for (; pos > 0 && RULES_FN(host3_before)(&k, fl, i, d2, j, nb[pos - 1]); pos--)
            nb[pos] = nb[pos - 1];
        nb[pos] = (uint32_t)j;
    }
    return m;
}

#undef R
