// SPDX-License-Identifier: MIT
// The rules between species over the grid's candidates (docs/model.md, "Species"), shared by
// the steers with species (steer_species.comp, metric; steer_topo_species.comp, topological),
// after the grid and the state, and before select.glsl where a program selects.

// select.glsl's k_in_vision radius: the boid's species' (SPC, set before the selection).
#define TOPO_VISION2 k_vision2()

// The Reynolds sums of the boid in slot i at p moving with v, of species SPC, over the
// candidates of its cell's block within reach2: each to the rule towards its species within
// that rule's radius and, with metric neighbours (`metric`), to the flocking sums when it
// sees it (rules_sp_add; sep2: the species' separation radius squared). Returns whether
// every loop ended by its own condition (grid.glsl, report_cut).
bool species_scan(uint i, vecD p, vecD v, float reach2, bool metric, float vision2, float sep2,
                  inout Acc a, inout SpAcc sa) {
    uvec2 r[GRID_RANGES];
    uint nr = grid_ranges(grid_cell(p), r);
    bool whole = true;
    uint q = 0u;
    for (; q < nr; q++) {
        uint j = r[q].x, e = r[q].y;
        for (; j < e; j++) {
            if (j == i) continue;
            Slot o = slot_load(j);
            vecD d = rules_offset(p, o.p);
            float d2 = rules_d2(d);
            if (!(d2 < reach2)) continue;
            bool sees = metric && rules_neighbour_r2(false, d, d2, v, vision2);
            uint id = src_id[j];
            rules_sp_add(a, sa, d, d2, sep2, slot_vel(o, j), rules_species_of(id), id, sees);
        }
        if (j < e) whole = false;
    }
    return whole && q >= nr;
}

// The largest squared radius of species SPC's rules (0: it has none): rules.h's
// rules_sp_rule_reach2, the reach of the rules alone (topological neighbours).
float species_rule_reach2() {
    float r2 = 0.0;
    for (uint j = 0u; j < S.count.x; j++)
        if (S.rule[SPC][j] != 0u && S.rule_r2[SPC][j] > r2) r2 = S.rule_r2[SPC][j];
    return r2;
}
