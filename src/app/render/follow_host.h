/* SPDX-License-Identifier: MIT */
/* follow_host's rule in one precision and one dimension: included by follow.c once per
 * RULES_REAL and RULES_DIM, after rules.h with the same RULES_REAL, RULES_DIM and RULES_FN.
 * The tests are the steps' own: cpu-ref's metric_block and topo_gather in double, the cpu
 * grid's metric_hit and topo_scan in float, each on its own arithmetic (rules_offset,
 * rules_dot, rules_in_fov). */

#define R RULES_REAL

/* Boid i's position and velocity in R: the cpu grid's float state is held exactly in the
 * host's doubles. */
static void RULES_FN(host_boid)(const boids_flock *fl, size_t i, R p[RULES_DIM], R v[RULES_DIM]) {
    p[0] = (R)fl->x[i], p[1] = (R)fl->y[i];
    v[0] = (R)fl->vx[i], v[1] = (R)fl->vy[i];
#if RULES_DIM == 3
    p[2] = (R)fl->z[i];
    v[2] = (R)fl->vz[i];
#endif
}

/* Offset from boid i to boid j of fl in R, into d; returns |d|^2. */
static R RULES_FN(host_offset)(const RULES_FN(rules_k) * k, const boids_flock *fl, size_t i,
                               size_t j, R d[RULES_DIM]) {
    R pi[RULES_DIM], pj[RULES_DIM], v[RULES_DIM];
    RULES_FN(host_boid)(fl, i, pi, v);
    RULES_FN(host_boid)(fl, j, pj, v);
    RULES_FN(rules_offset)(k, pi, pj, d);
    return RULES_FN(rules_dot)(d, d);
}

/* Is j (at offset d, |d|^2 = dist2) a candidate of i: in the field of view for Reynolds, and
 * within the vision radius where the model's neighbours are metric or k_in_vision asks for
 * it. */
static int RULES_FN(host_candidate)(const RULES_FN(rules_k) * k, const boids_params *p,
                                    const boids_flock *fl, size_t i, const R d[RULES_DIM],
                                    R dist2) {
    const int vicsek = p->model == BOIDS_MODEL_VICSEK;
    const int radius = p->neighbours != BOIDS_NEIGHBOURS_TOPOLOGICAL || p->k_in_vision;
    if (radius && !(vicsek ? dist2 <= k->vision2 : dist2 < k->vision2)) return 0;
    R pi[RULES_DIM], vi[RULES_DIM];
    RULES_FN(host_boid)(fl, i, pi, vi);
    return vicsek || RULES_FN(rules_in_fov)(k, d, dist2, vi);
}

/* The neighbours of boid i into nb; returns their number (0 when the selection's memory
 * cannot be had). Topological: the rules' k nearest (rules_nearest_keep). */
static size_t RULES_FN(host_marks)(const boids_flock *fl, const boids_params *p, size_t i,
                                   uint32_t *nb) {
    RULES_FN(rules_k) k;
    RULES_FN(rules_k_init)(&k, p);
    const int topo = p->neighbours == BOIDS_NEIGHBOURS_TOPOLOGICAL;
    const size_t kmax = topo ? (size_t)p->k : 0;
    RULES_FN(rules_nearest) *sel = topo ? malloc(kmax * sizeof *sel) : NULL;
    if (topo && !sel) return 0;
    size_t m = 0;
    for (size_t j = 0; j < fl->n; j++) {
        if (j == i) continue;
        R d[RULES_DIM];
        const R dist2 = RULES_FN(host_offset)(&k, fl, i, j, d);
        if (!RULES_FN(host_candidate)(&k, p, fl, i, d, dist2)) continue;
        if (!topo) {
            nb[m++] = (uint32_t)j;
            continue;
        }
        m = RULES_FN(rules_nearest_keep)(sel, m, kmax, dist2, j, j);
    }
    for (size_t q = 0; topo && q < m; q++) nb[q] = (uint32_t)sel[q].id;
    free(sel);
    return m;
}

#undef R
