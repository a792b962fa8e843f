// SPDX-License-Identifier: MIT
// Steer + integrate with metric neighbours, for the steer stage of every variant (steer.comp,
// steer_fused.comp): boid i, at p moving with v in the cell-ordered state, gathers its
// neighbours (rules_neighbour) from the 3 x 3 (x 3) cells around it and applies the rules
// (rules.glsl: Reynolds, or Vicsek with P.vicsek). Returns its new velocity and moves p.
// Positions of all candidates are read, velocities only of the neighbours.
// A block of more candidates than a driver lets a loop run (llvmpipe: 65,535) would be cut
// short: each loop checks its own end, and the boid reports a cut (grid.glsl, report_cut).
vecD steer_metric(uint i, inout vecD p, vecD v) {
    uvec2 r[GRID_RANGES];
    uint nr = grid_ranges(grid_cell(p), r);
    bool whole = true;
    uint q = 0u;
    if (P.vicsek != 0u) { // the headings of its neighbours, itself included
        precise vecD s = vecD(0.0);
        vecD ui = vicsek_unit(v); // nematic alignment signs each term by it
        uint cnt = 0u;
        for (; q < nr; q++) {
            uint j = r[q].x, e = r[q].y;
            for (; j < e; j++) {
                Slot o = slot_load(j);
                vecD d = rules_offset(p, o.p);
                if (!rules_neighbour(j == i, d, rules_d2(d), v)) continue;
                s = vicsek_term(ui, vicsek_unit(slot_vel(o, j)), s);
                cnt++;
            }
            if (j < e) whole = false;
        }
        report_cut(whole && q >= nr, CUT_METRIC);
        return vicsek_update(s, cnt, noise_uv(src_id[i]), p, v);
    }
    Acc a = rules_acc_init();
    for (; q < nr; q++) {
        uint j = r[q].x, e = r[q].y;
        for (; j < e; j++) {
            if (j == i) continue;
            Slot o = slot_load(j);
            vecD d = rules_offset(p, o.p);
            float d2 = rules_d2(d);
            if (rules_neighbour(false, d, d2, v)) rules_acc_add(a, d, d2, slot_vel(o, j));
        }
        if (j < e) whole = false;
    }
    report_cut(whole && q >= nr, CUT_METRIC);
    return rules_integrate(rules_accel(a, p, v), p, v);
}
