// SPDX-License-Identifier: MIT
// Stage 5 in 3-D with topological neighbours, either model: select the k nearest
// (select3.glsl), then apply the rules over the selection in its (d2, id) order, as the cpu
// backend does.
layout(local_size_x = WG) in;

void main() {
    uint i = boid_index();
    if (i >= P.n) return;
    vec3 p = pos_load(i), v = vel_load(i);
    uint id = src_id[i];
    bool whole = topo3_select(i, p, v);
    uint q = 0u;
    vec3 nv;
    if (P.vicsek != 0u) {
        precise vec3 s = vicsek3_unit(v); // itself, then the k
        for (; q < best_m; q++) s += vicsek3_unit(vel_load(best_slot[q]));
        nv = vicsek3_update(s, best_m + 1u, noise_u(P.step, id), noise_u2(P.step, id), p, v);
    } else {
        Acc3 a = rules3_acc_init();
        for (; q < best_m; q++) {
            uint j = best_slot[q];
            vec3 d = rules3_offset(p, pos_load(j));
            rules3_acc_add(a, d, rules3_d2(d), vel_load(j));
        }
        nv = rules3_integrate(rules3_accel(a, p, v), p, v);
    }
    report_cut(whole && q >= best_m, CUT_TOPO);
    state3_store(i, p, nv, id);
}
