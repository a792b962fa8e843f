// SPDX-License-Identifier: MIT
// Stage 2 in 3-D, count: count.comp with the 3-D cell of each boid.
layout(local_size_x = WG) in;

layout(std430, binding = B_COUNTS) buffer Counts { uint counts[]; };
layout(std430, binding = B_RANK) writeonly buffer Rank { uint rank[]; };

void main() {
    uint i = boid_index();
    if (i >= P.n) return;
    rank[i] = atomicAdd(counts[grid3_index(pos_load(i))], 1u);
}
