// SPDX-License-Identifier: MIT
// Stage 5 with species and topological neighbours (docs/model.md, "Species"): steer_topo.comp
// for a flock of more than one species, a program of its own (built by the first such step).
// The boid selects the k nearest of any species by its species' constants (SPC: its radius
// with k_in_vision, select.glsl) and sums them in the selection's (d2, id) order, as cpu does,
// each weighted by its coupling (rules_sp_see; Vicsek: rules_sp_vterm, itself first); its
// rules between species act on the candidates within their radii in its cell's block
// (species_scan without sight), as with metric neighbours.
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
    SPC = rules_species_of(id);
    bool whole = topo_select(i, p, v);
    uint q = 0u;
    if (P.vicsek != 0u) {
        vecD ui = vicsek_unit(v);
        precise vecD s = ui; // itself, then the k (nematic: signed by ui)
        uint cnt = 1u;
        for (; q < best_m; q++) {
            uint j = best_slot[q];
            if (rules_sp_vterm(ui, vicsek_unit(vel_load(j)), rules_species_of(src_id[j]), s))
                cnt++;
        }
        report_cut(whole && q >= best_m, CUT_TOPO);
        v = vicsek_update(s, cnt, noise_uv(id), p, v);
    } else {
        Acc a = rules_acc_init();
        SpAcc sa = rules_sp_acc_init();
        float sep2 = k_sep2();
        for (; q < best_m; q++) {
            uint j = best_slot[q];
            Slot o = slot_load(j);
            vecD d = rules_offset(p, o.p);
            rules_sp_see(a, d, rules_d2(d), sep2, slot_vel(o, j), rules_species_of(src_id[j]));
        }
        report_cut(whole && q >= best_m, CUT_TOPO);
        float reach2 = species_rule_reach2();
        if (reach2 > 0.0)
            report_cut(species_scan(i, p, v, reach2, false, 0.0, sep2, a, sa), CUT_METRIC);
        v = rules_integrate(rules_sp_accel(a, sa, p, v), p, v);
    }
    state_store(i, p, v, id);
}
