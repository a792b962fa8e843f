// SPDX-License-Identifier: MIT
// Debug stage for verification: the neighbour count and the order-independent set hash
// (sum of boids_neighbour_set_hash(id) mod 2^64) of each boid, found by the same grid search
// and the same rule (rules_neighbour) as steer.comp, stored by id; itself is left out, as
// the CPU backends leave it out.
layout(local_size_x = WG) in;

layout(std430, binding = B_NBR_COUNT) writeonly buffer NbrCount { uint nbr_count[]; };
layout(std430, binding = B_NBR_HASH) writeonly buffer NbrHash { uvec2 nbr_hash[]; };
layout(std430, binding = B_ID_HASH) readonly buffer IdHash { uvec2 id_hash[]; };

void main() {
    uint i = boid_index();
    if (i >= P.n) return;
    vec4 s = state_load(i);
    uint n = 0u;
    uvec2 h = uvec2(0u);
    uvec2 r[6];
    uint nr = grid_ranges(grid_cell(s.xy), r);
    bool whole = true; // each loop checks its own end (steer.glsl)
    uint q = 0u;
    for (; q < nr; q++) {
        uint j = r[q].x, e = r[q].y;
        for (; j < e; j++) {
            if (j == i) continue;
            vec4 o = state_load(j);
            vec2 d = rules_offset(s.x, s.y, o.x, o.y);
            precise float d2 = d.x * d.x + d.y * d.y;
            if (rules_neighbour(false, d.x, d.y, d2, s.z, s.w)) {
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
