// SPDX-License-Identifier: MIT
// Stage 4 in 3-D, scatter: scatter.comp for positions, velocities and ids, the cell found
// again by count3.comp's expression.
layout(local_size_x = WG) in;

layout(std430, binding = B_RANK) readonly buffer Rank { uint rank[]; };

void main() {
    uint i = boid_index();
    if (i >= P.n) return;
    vec3 p = pos_load(i);
    state3_store(starts[grid3_index(p)] + rank[i], p, vel_load(i), src_id[i]);
}
