// SPDX-License-Identifier: MIT
// Stage 5 with topological neighbours, either model: select the k nearest (select.glsl),
// then apply the rules over the selection in its (d2, id) order, as the cpu backend does.
layout(local_size_x = WG) in;

void main() {
    uint i = boid_index();
    if (i >= P.n) return;
    vec4 s = state_load(i);
    bool whole = topo_select(i, s);
    uint q = 0u;
    if (P.vicsek != 0u) {
        vec2 u = vicsek_unit(s.z, s.w); // itself, then the k
        precise float sx = u.x, sy = u.y;
        for (; q < best_m; q++) {
            vec4 o = state_load(best_slot[q]);
            u = vicsek_unit(o.z, o.w);
            sx += u.x;
            sy += u.y;
        }
        s = vicsek_update(sx, sy, best_m + 1u, noise_u(P.step, src_id[i]), s.x, s.y, s.z, s.w);
    } else {
        Acc a = rules_acc_init();
        for (; q < best_m; q++) {
            vec4 o = state_load(best_slot[q]);
            vec2 d = rules_offset(s.x, s.y, o.x, o.y);
            precise float d2 = d.x * d.x + d.y * d.y;
            rules_acc_add(a, d.x, d.y, d2, o.z, o.w);
        }
        vec2 acc = rules_accel(a, s.x, s.y, s.z, s.w);
        s = rules_integrate(acc.x, acc.y, s.x, s.y, s.z, s.w);
    }
    report_cut(whole && q >= best_m, CUT_TOPO);
    state_store(i, s, src_id[i]);
}
