// SPDX-License-Identifier: MIT
// Stage 4, scatter: writes each boid's state and id to start[cell] + rank, which orders the
// state by cell so that the steer stage reads each neighbour cell as one contiguous range.
// The cell is computed again from the position, by the count stage's expression: the same
// float operations on the same input give the same cell.
layout(local_size_x = WG) in;

layout(std430, binding = B_RANK) readonly buffer Rank { uint rank[]; };

void main() {
    uint i = boid_index();
    if (i >= P.n) return;
    vecD p, v;
    boid_load(i, p, v);
    state_store(starts[grid_index(p)] + rank[i], p, v, src_id[i]);
}
