// SPDX-License-Identifier: MIT
// "See what a boid sees" without reading the flock back: passes over the state buffer (any
// order; the sorted src of select.glsl) that pick the boid nearest a point, find a boid by id
// and mark the boids it counts, by the step's own rule: rules_neighbour for metric
// neighbours, the k nearest of its candidates (select.glsl's topo_scan over every boid) for
// topological ones. P is the viewer's copy of the step's uniform block. The host reads only
// the 48-byte result; the marks (seen, one uint per slot) stay on the GPU for boid.vert.
layout(local_size_x = 256) in;

layout(std430, binding = B_FOLLOW) coherent buffer Result {
    uint near_d2;  // pass 0: smallest squared distance to u_point, as float bits
    uint near_id;  // pass 1: smallest id at that distance
    uint found;    // pass 2: 1 when u_id was found
    uint count;    // pass 3 (metric) or 4 (topological): the boids it counts
    uint slot;     // pass 2: its slot in the state buffer
    vec4 followed; // pass 2: its (x, y, vx, vy)
};
layout(std430, binding = B_SEEN) writeonly buffer Seen { uint seen[]; };

uniform uint u_pass;
uniform vec2 u_point;
uniform uint u_id;

// Pass 4, one invocation: the k nearest candidates of the followed boid over all N boids.
// The step finds them through the grid; both take the first k in (d2, id) order, so the sets
// are the same.
void mark_topological() {
    best_m = 0u;
    topo_scan(slot, followed.xy, followed.zw, 0u, P.n);
    for (uint a = 0u; a < best_m; a++) seen[best_slot[a]] = 1u;
    count = best_m;
}

void main() {
    uint i = gl_GlobalInvocationID.x;
    if (u_pass == 4u) {
        if (i == 0u) mark_topological();
        return;
    }
    if (i >= P.n) return;
    vec4 s = src[i];
    if (u_pass == 0u || u_pass == 1u) {
        vec2 d = rules_offset(u_point, s.xy);
        // Non-negative floats order like their bit patterns, so atomicMin on the bits
        // finds the smallest distance.
        uint bits = floatBitsToUint(d.x * d.x + d.y * d.y);
        if (u_pass == 0u)
            atomicMin(near_d2, bits);
        else if (bits == near_d2)
            atomicMin(near_id, src_id[i]);
    } else if (u_pass == 2u) {
        if (src_id[i] == u_id) {
            followed = s;
            slot = i;
            found = 1u;
        }
    } else { // pass 3: the metric marks, or the cleared ones before pass 4
        uint mark = 0u;
        if (P.topo == 0u && i != slot) {
            vec2 d = rules_offset(followed.xy, s.xy);
            if (rules_neighbour(false, d, rules_d2(d), followed.zw)) mark = 1u;
        }
        seen[i] = mark;
        if (mark != 0u) atomicAdd(count, 1u);
    }
}
