/* SPDX-License-Identifier: MIT */
/* The grid CPU path with species (docs/model.md, "Species"): the scalar kernels of a step
 * where the parameters have more than one species, over the same candidate ranges as
 * cpu_grid.c's (the grid's cells are at least boids_params_reach wide, so the 3^D block holds
 * every boid within any species' vision or rule radius). Each boid moves by its own
 * species' constants (rules_k_species); a boid's species is that of its global id. The SIMD
 * kernels assume one set of constants, so a flock with species takes these (the same
 * rules.h code as cpu-ref's, in float). Compiled in cpu_grid_parts.h, before cpu_grid.c. */

/* The global id of snapshot slot j (tile mode: through gid). */
static inline uint64_t species_gid(const steer_ctx *x, uint32_t j) {
    const uint32_t id = x->snap.id[j];
    return x->gid ? x->gid[id] : id;
}

/* The sums of the boid in slot i (position p, velocity v, its species' constants k) over the
 * candidate ranges r[0 .. nr): each other within reach2 to its rules and, with metric
 * neighbours (`metric`), to its flocking sums when it sees it (rules_sp_add). */
static void species_scan(const steer_ctx *x, const grid_k *k, const range *r, int nr, uint32_t i,
                         const float p[D], const float v[D], float reach2, int metric,
                         grid_acc *acc, RULES_FN(rules_sp_acc) * sa) {
    const snapshot *const s = &x->snap;
    for (int w = 0; w < nr; w++)
        for (uint32_t j = r[w].b, e = r[w].e; j < e; j++) {
            if (j == i) continue;
            float pj[D], vj[D], d[D];
            snap_get(s, j, pj, vj);
            RULES_FN(rules_offset)(k, p, pj, d);
            const float dist2 = RULES_FN(rules_dot)(d, d);
            if (!(dist2 < reach2)) continue;
            const int sees = metric && RULES_FN(rules_sees)(k, d, dist2, v);
            const uint64_t id = species_gid(x, j);
            RULES_FN(rules_sp_add)
            (k, acc, sa, d, dist2, vj, RULES_FN(rules_species_of)(k, id), id, sees);
        }
}

/* The move of the Reynolds boid in slot i from its sums: rules_sp_accel and rules_integrate
 * by its species' constants k. */
static void species_reynolds_move(const steer_ctx *x, const grid_k *k, uint32_t i,
                                  const grid_acc *acc, const RULES_FN(rules_sp_acc) * sa) {
    float p[D], v[D], a[D];
    snap_get(&x->snap, i, p, v);
    RULES_FN(rules_sp_accel)(k, acc, sa, p, v, a);
    RULES_FN(rules_integrate)(k, a, p, v);
    state_put(&x->out, i, p, v);
}

/* Reynolds with species, the boid in slot i: its flocking sums and rules over the candidates
 * (species_scan), then its move. */
static void species_reynolds(const steer_ctx *x, const cell_group *q, uint32_t i) {
    const grid_k *k = &x->ks[RULES_FN(rules_species_of)(x->ks, species_gid(x, i))];
    grid_acc acc;
    RULES_FN(rules_sp_acc) sa;
    RULES_FN(rules_acc_init)(&acc);
    RULES_FN(rules_sp_acc_init)(&sa);
    float p[D], v[D];
    snap_get(&x->snap, i, p, v);
    species_scan(x, k, q->r, q->nr, i, p, v, k->reach2, 1, &acc, &sa);
    species_reynolds_move(x, k, i, &acc, &sa);
}

/* The Vicsek move of the agent in slot i from its heading sum of n terms, with its species'
 * constants k (speed and noise), the noise of its global id. */
static void species_vicsek_move(const steer_ctx *x, const grid_k *k, uint32_t i, const float sum[D],
                                long n) {
    const uint64_t seed = (uint64_t)x->p->noise_seed, gi = species_gid(x, i);
    const float u1 = (float)boids_noise_u(seed, x->t, (uint32_t)gi);
    const float u2 = D == 2 ? 0 : (float)boids_noise_u2(seed, x->t, (uint32_t)gi);
    float p[D], v[D];
    snap_get(&x->snap, i, p, v);
    RULES_FN(vicsek_update)(k, sum, n, u1, u2, k->noise, k->speed, p, v);
    state_put(&x->out, i, p, v);
}

/* Vicsek with species, the agent in slot i: its heading sum over the candidates within its
 * species' radius, itself by 1 and the others weighted by the coupling (rules_sp_vterm), then
 * the move with its species' speed and noise. */
static void species_vicsek(const steer_ctx *x, const cell_group *q, uint32_t i) {
    const snapshot *const s = &x->snap;
    const uint64_t gi = species_gid(x, i);
    const grid_k *k = &x->ks[RULES_FN(rules_species_of)(x->ks, gi)];
    float d[D], sum[D], ui[D], uj[D];
    const float *const p = snap_rec(s, i);
    for (int a = 0; a < D; a++) sum[a] = 0, ui[a] = x->u[a][i];
    long n = 0;
    for (int w = 0; w < q->nr; w++)
        for (uint32_t j = q->r[w].b, e = q->r[w].e; j < e; j++) {
            for (int a = 0; a < D; a++) uj[a] = x->u[a][j];
            if (j == i) {
                RULES_FN(vicsek_term)(k, ui, ui, sum);
                n++;
                continue;
            }
            RULES_FN(rules_offset)(k, p, snap_rec(s, j), d);
            if (!(RULES_FN(rules_dot)(d, d) <= k->vision2)) continue;
            n += RULES_FN(rules_sp_vterm)(k, ui, uj,
                                          RULES_FN(rules_species_of)(k, species_gid(x, j)), sum);
        }
    species_vicsek_move(x, k, i, sum, n);
}

/* One group of boids with species, either model. */
static void species_group(const steer_ctx *x, const cell_group *q, int vicsek) {
    for (uint32_t l = 0; l < q->lanes; l++)
        if (vicsek)
            species_vicsek(x, q, q->i0 + l);
        else
            species_reynolds(x, q, q->i0 + l);
}

/* Topological neighbours with species (cpu_grid_topo.c), the boid in slot i of cell kc with
 * its selection best[0 .. m) (the k nearest of any species, by its species' constants k):
 * Reynolds, its flocking sums over the selection in its order, each weighted by the coupling
 * (rules_sp_see), and its rules over the others within their radii in its cell's block
 * (species_scan, as with metric neighbours); Vicsek, itself and then the selection, each
 * weighted by the coupling (rules_sp_vterm). */
static void species_topo(const steer_ctx *x, const grid_k *k, const geom *g, const uint32_t *start,
                         const uint32_t kc[D], uint32_t i, const cand *best, uint32_t m) {
    float p[D], v[D], pj[D], vj[D], d[D];
    snap_get(&x->snap, i, p, v);
    if (x->p->model == BOIDS_MODEL_VICSEK) {
        float sum[D], ui[D], uj[D];
        for (int a = 0; a < D; a++) sum[a] = ui[a] = x->u[a][i];
        long n = 1;
        for (uint32_t b = 0; b < m; b++) {
            for (int a = 0; a < D; a++) uj[a] = x->u[a][best[b].at];
            n +=
                RULES_FN(rules_sp_vterm)(k, ui, uj, RULES_FN(rules_species_of)(k, best[b].id), sum);
        }
        species_vicsek_move(x, k, i, sum, n);
        return;
    }
    grid_acc acc;
    RULES_FN(rules_sp_acc) sa;
    RULES_FN(rules_acc_init)(&acc);
    RULES_FN(rules_sp_acc_init)(&sa);
    for (uint32_t b = 0; b < m; b++) {
        snap_get(&x->snap, best[b].at, pj, vj);
        RULES_FN(rules_offset)(k, p, pj, d);
        RULES_FN(rules_sp_see)
        (k, &acc, d, RULES_FN(rules_dot)(d, d), vj, RULES_FN(rules_species_of)(k, best[b].id));
    }
    const float reach2 = RULES_FN(rules_sp_rule_reach2)(k);
    if (reach2 > 0) {
        range r[MAX_RANGES];
        const int nr = RULES_FN(grid_cell_ranges)(g, x->win, start, kc, 1, r);
        species_scan(x, k, r, nr, i, p, v, reach2, 0, &acc, &sa);
    }
    species_reynolds_move(x, k, i, &acc, &sa);
}
