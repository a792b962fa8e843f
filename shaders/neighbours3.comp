// SPDX-License-Identifier: MIT
// Debug stage for verification in 3-D: neighbours.comp with steer3.comp's search and rule.
layout(local_size_x = WG) in;

layout(std430, binding = B_NBR_COUNT) writeonly buffer NbrCount { uint nbr_count[]; };
layout(std430, binding = B_NBR_HASH) writeonly buffer NbrHash { uvec2 nbr_hash[]; };
layout(std430, binding = B_ID_HASH) readonly buffer IdHash { uvec2 id_hash[]; };

void main() {
    uint i = boid_index();
    if (i >= P.n) return;
    vec3 p = pos_load(i), v = vel_load(i);
    uint n = 0u;
    uvec2 h = uvec2(0u);
    uvec2 r[18];
    uint nr = grid3_ranges(grid3_cell(p), r);
    bool whole = true; // each loop checks its own end (steer.glsl)
    uint q = 0u;
    for (; q < nr; q++) {
        uint j = r[q].x, e = r[q].y;
        for (; j < e; j++) {
            if (j == i) continue;
            vec3 d = rules3_offset(p, pos_load(j));
            if (rules3_neighbour(false, d, rules3_d2(d), v)) {
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
