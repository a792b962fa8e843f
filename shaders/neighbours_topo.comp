// SPDX-License-Identifier: MIT
// Debug stage for verification with topological neighbours: the count and set hash of each
// boid's selection (select.glsl), as neighbours.comp does for metric neighbours; with
// species, by the boid's own species' radius.
layout(local_size_x = WG) in;

layout(std430, binding = B_NBR_COUNT) writeonly buffer NbrCount { uint nbr_count[]; };
layout(std430, binding = B_NBR_HASH) writeonly buffer NbrHash { uvec2 nbr_hash[]; };
layout(std430, binding = B_ID_HASH) readonly buffer IdHash { uvec2 id_hash[]; };

void main() {
    uint i = boid_index();
    if (i >= P.n) return;
    vecD p, v;
    boid_load(i, p, v);
    if (S.count.x > 1u) SPC = rules_species_of(src_id[i]); // its species' radius
    bool whole = topo_select(i, p, v);
    uvec2 h = uvec2(0u);
    uint a = 0u;
    for (; a < best_m; a++) {
        uvec2 add = id_hash[src_id[best_slot[a]]];
        uint carry;
        h.x = uaddCarry(h.x, add.x, carry);
        h.y = h.y + add.y + carry;
    }
    report_cut(whole && a >= best_m, CUT_TOPO);
    uint id = src_id[i];
    nbr_count[id] = best_m;
    nbr_hash[id] = h;
}
