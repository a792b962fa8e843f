// SPDX-License-Identifier: MIT
// Steer + integrate with metric neighbours, for the steer stage of every variant (steer.comp,
// steer_fused.comp): boid i, at p moving with v in the cell-ordered state, gathers its
// neighbours (rules_neighbour) from the 3 x 3 (x 3) cells around it and applies the rules
// (rules.glsl: Reynolds, or Vicsek with P.vicsek). Returns its new velocity and moves p.
// Positions of all candidates are read, velocities only of the neighbours.
// A block of more candidates than a driver lets a loop run (llvmpipe: 65,535) would be cut
// short: each loop checks its own end, and the boid reports a cut (grid.glsl, report_cut).
// With species (S.count.x > 1, docs/model.md "Species") the boid moves by its species'
// constants (SPC, rules.glsl), its neighbours' couplings and its rules (rules_sp_*), the
// species of a slot being that of its id (src_id: the global id in tile mode).
vecD steer_species(uint i, inout vecD p, vecD v, uvec2 r[GRID_RANGES], uint nr) {
    bool whole = true;
    uint q = 0u;
    SPC = rules_species_of(src_id[i]);
    if (P.vicsek != 0u) {
        precise vecD s = vecD(0.0);
        vecD ui = vicsek_unit(v);
        uint cnt = 0u;
        for (; q < nr; q++) {
            uint j = r[q].x, e = r[q].y;
            for (; j < e; j++) {
                Slot o = slot_load(j);
                vecD d = rules_offset(p, o.p);
                if (!rules_neighbour(j == i, d, rules_d2(d), v)) continue;
                vecD u = vicsek_unit(slot_vel(o, j));
                if (j == i) {
                    s = vicsek_term(ui, u, s);
                    cnt++;
                } else if (rules_sp_vterm(ui, u, rules_species_of(src_id[j]), s)) {
                    cnt++;
                }
            }
            if (j < e) whole = false;
        }
        report_cut(whole && q >= nr, CUT_METRIC);
        return vicsek_update(s, cnt, noise_uv(src_id[i]), p, v);
    }
    Acc a = rules_acc_init();
    SpAcc sa = rules_sp_acc_init();
    float reach2 = S.c[SPC].w;
    for (; q < nr; q++) {
        uint j = r[q].x, e = r[q].y;
        for (; j < e; j++) {
            if (j == i) continue;
            Slot o = slot_load(j);
            vecD d = rules_offset(p, o.p);
            float d2 = rules_d2(d);
            if (!(d2 < reach2)) continue;
            bool sees = rules_neighbour(false, d, d2, v);
            uint id = src_id[j];
            rules_sp_add(a, sa, d, d2, slot_vel(o, j), rules_species_of(id), id, sees);
        }
        if (j < e) whole = false;
    }
    report_cut(whole && q >= nr, CUT_METRIC);
    return rules_integrate(rules_sp_accel(a, sa, p, v), p, v);
}

vecD steer_metric(uint i, inout vecD p, vecD v) {
    uvec2 r[GRID_RANGES];
    uint nr = grid_ranges(grid_cell(p), r);
    if (S.count.x > 1u) return steer_species(i, p, v, r, nr);
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
