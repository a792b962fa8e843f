// SPDX-License-Identifier: MIT
// Stage 5 with topological neighbours, either model: select the k nearest (select.glsl),
// then apply the rules over the selection in its (d2, id) order, as the cpu backend does.
layout(local_size_x = WG) in;

void main() {
    uint i = boid_index();
    if (i >= P.n) return;
    vecD p, v;
    boid_load(i, p, v);
    uint id = src_id[i];
#ifdef TILE
    if (!tile_steered(p, src_id[i])) {
        state_store(i, p, v, id);
        return;
    }
#endif
    bool whole = topo_select(i, p, v);
    uint q = 0u;
    if (P.vicsek != 0u) {
        vecD ui = vicsek_unit(v);
        precise vecD s = ui; // itself, then the k (nematic: signed by ui)
        for (; q < best_m; q++) s = vicsek_term(ui, vicsek_unit(vel_load(best_slot[q])), s);
        v = vicsek_update(s, best_m + 1u, noise_uv(id), p, v);
    } else {
        Acc a = rules_acc_init();
        for (; q < best_m; q++) {
            uint j = best_slot[q];
            Slot o = slot_load(j);
            vecD d = rules_offset(p, o.p);
            rules_acc_add(a, d, rules_d2(d), slot_vel(o, j));
        }
        v = rules_integrate(rules_accel(a, p, v), p, v);
    }
    report_cut(whole && q >= best_m, CUT_TOPO);
    state_store(i, p, v, id);
}
