// SPDX-License-Identifier: MIT
// Stage 2, count: each boid finds its cell and takes a rank in it with an atomic add (the
// order of ranks within a cell depends on scheduling; the deterministic mode fixes it). Only
// the rank is stored: the scatter finds the cell again from the same position.
layout(local_size_x = WG) in;

layout(std430, binding = B_COUNTS) buffer Counts { uint counts[]; };
layout(std430, binding = B_RANK) writeonly buffer Rank { uint rank[]; };

void main() {
    uint i = boid_index();
    if (i >= P.n) return;
    rank[i] = atomicAdd(counts[grid_index(pos_load(i))], 1u);
}
