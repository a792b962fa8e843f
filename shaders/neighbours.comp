// SPDX-License-Identifier: MIT
// Debug stage for verification: the neighbour count and the order-independent set hash
// (sum of boids_neighbour_set_hash(id) mod 2^64) of each boid, found by the same grid search
// and the same rule (rules_neighbour) as steer.glsl, stored by id; itself is left out, as
// the CPU backends leave it out. With species, by the boid's own species' radius.
layout(local_size_x = WG) in;

layout(std430, binding = B_NBR_COUNT) writeonly buffer NbrCount { uint nbr_count[]; };
layout(std430, binding = B_NBR_HASH) writeonly buffer NbrHash { uvec2 nbr_hash[]; };
layout(std430, binding = B_ID_HASH) readonly buffer IdHash { uvec2 id_hash[]; };

void main() {
    uint i = boid_index();
    if (i >= P.n) return;
    vecD p, v;
    boid_load(i, p, v);
    if (S.count.x > 1u) SPC = rules_species_of(src_id[i]);
    float vision2 = k_vision2(); // P's without species
    uint n = 0u;
    uvec2 h = uvec2(0u);
    uvec2 r[GRID_RANGES];
    uint nr = grid_ranges(grid_cell(p), r);
    bool whole = true; // each loop checks its own end (steer.glsl)
    uint q = 0u;
    for (; q < nr; q++) {
        uint j = r[q].x, e = r[q].y;
        for (; j < e; j++) {
            if (j == i) continue;
            vecD d = rules_offset(p, pos_load(j));
            if (rules_neighbour_r2(false, d, rules_d2(d), v, vision2)) {
                uvec2 add = id_hash[src_id[j]];
                uint carry;
                h.x = uaddCarry(h.x, add.x, carry);
                h.y = h.y + add.y + carry;
                n++;
            }
        }
        if (j < e) whole = false;
    }
    report_cut(whole && q >= nr, CUT_METRIC);
    uint id = src_id[i];
    nbr_count[id] = n;
    nbr_hash[id] = h;
}
