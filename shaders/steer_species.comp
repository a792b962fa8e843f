// SPDX-License-Identifier: MIT
// Stage 5 with species (docs/model.md, "Species"; metric neighbours): steer.comp's stage for a
// flock of more than one species, a program of its own (built on the first step with species),
// so that the steer of a flock without species keeps its code (the species' arrays, inlined
// in the same program, cost llvmpipe a fifth of its step).
layout(local_size_x = WG) in;

// steer.glsl's steer_metric with species: the boid moves by its species' constants (SPC,
// rules.glsl), its neighbours' couplings and its rules (rules_sp_*, species_scan), the species
// of a slot being that of its id (src_id: the global id in tile mode).
vecD steer_species(uint i, inout vecD p, vecD v) {
    SPC = rules_species_of(src_id[i]);
    float vision2 = k_vision2(), sep2 = k_sep2();
    if (P.vicsek != 0u) {
        uvec2 r[GRID_RANGES];
        uint nr = grid_ranges(grid_cell(p), r);
        bool whole = true;
        uint q = 0u;
        precise vecD s = vecD(0.0);
        vecD ui = vicsek_unit(v);
        uint cnt = 0u;
        for (; q < nr; q++) {
            uint j = r[q].x, e = r[q].y;
            for (; j < e; j++) {
                Slot o = slot_load(j);
                vecD d = rules_offset(p, o.p);
                if (!rules_neighbour_r2(j == i, d, rules_d2(d), v, vision2)) continue;
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
    report_cut(species_scan(i, p, v, S.c[SPC].w, true, vision2, sep2, a, sa), CUT_METRIC);
    return rules_integrate(rules_sp_accel(a, sa, p, v), p, v);
}

void main() {
    uint i = boid_index();
    if (i >= P.n) return;
    vecD p, v;
    boid_load(i, p, v);
#ifdef TILE
    if (!tile_steered(p, src_id[i])) {
        state_store(i, p, v, src_id[i]);
        return;
    }
#endif
    v = steer_species(i, p, v);
    state_store(i, p, v, src_id[i]);
}
