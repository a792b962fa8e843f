// SPDX-License-Identifier: MIT
// Stage 5 of the `fused` variant (metric neighbours, the plane): steer.comp, and then the
// next step's count stage for the new position, while it is in registers: the boid takes its
// rank in the cell of its new position (counts cleared before this stage), so that the next
// step starts at the scan and skips one pass over the state. The rank is stored at the boid's
// index in the new state, where the next scatter reads it. Ten storage blocks (the ranks at
// a binding of their own: the loop-cut flag takes theirs): the pipeline builds this program
// only when the device allows them.
layout(local_size_x = WG) in;

layout(std430, binding = B_NEXT_COUNTS) buffer NextCounts { uint next_counts[]; };
layout(std430, binding = B_NEXT_RANK) writeonly buffer Rank { uint rank[]; };

void main() {
    uint i = boid_index();
    if (i >= P.n) return;
    vecD p, v;
    boid_load(i, p, v);
    v = steer_metric(i, p, v);
    state_store(i, p, v, src_id[i]);
    rank[i] = atomicAdd(next_counts[grid_index(p)], 1u);
}
