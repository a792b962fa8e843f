// SPDX-License-Identifier: MIT
// Steer + integrate with metric neighbours, for the steer stage of every variant (steer.comp,
// steer_fused.comp): boid i, at state s in the cell-ordered state, gathers its neighbours
// (rules_neighbour) from the 3x3 cells around it and applies the rules (rules.glsl: Reynolds,
// or Vicsek with P.vicsek). Returns its new (x, y, vx, vy).
// A block of more candidates than a driver lets a loop run (llvmpipe: 65,535) would be cut
// short: each loop checks its own end, and the boid reports a cut (grid.glsl, report_cut).
vec4 steer_metric(uint i, vec4 s) {
    uvec2 r[6];
    uint nr = grid_ranges(grid_cell(s.xy), r);
    bool whole = true;
    uint q = 0u;
    if (P.vicsek != 0u) { // the headings of its neighbours, itself included
        precise float sx = 0.0, sy = 0.0;
        uint cnt = 0u;
        for (; q < nr; q++) {
            uint j = r[q].x, e = r[q].y;
            for (; j < e; j++) {
                vec4 o = state_load(j);
                vec2 d = rules_offset(s.x, s.y, o.x, o.y);
                precise float d2 = d.x * d.x + d.y * d.y;
                if (!rules_neighbour(j == i, d.x, d.y, d2, s.z, s.w)) continue;
                vec2 u = vicsek_unit(o.z, o.w);
                sx += u.x;
                sy += u.y;
                cnt++;
            }
            if (j < e) whole = false;
        }
        report_cut(whole && q >= nr, CUT_METRIC);
        return vicsek_update(sx, sy, cnt, noise_u(P.step, src_id[i]), s.x, s.y, s.z, s.w);
    }
    Acc a = rules_acc_init();
    for (; q < nr; q++) {
        uint j = r[q].x, e = r[q].y;
        for (; j < e; j++) {
            if (j == i) continue;
            vec4 o = state_load(j);
            vec2 d = rules_offset(s.x, s.y, o.x, o.y);
            precise float d2 = d.x * d.x + d.y * d.y;
            if (rules_neighbour(false, d.x, d.y, d2, s.z, s.w))
                rules_acc_add(a, d.x, d.y, d2, o.z, o.w);
        }
        if (j < e) whole = false;
    }
    report_cut(whole && q >= nr, CUT_METRIC);
    vec2 acc = rules_accel(a, s.x, s.y, s.z, s.w);
    return rules_integrate(acc.x, acc.y, s.x, s.y, s.z, s.w);
}
