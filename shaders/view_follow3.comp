// SPDX-License-Identifier: MIT
// "See what a boid sees" in 3-D: view_follow.comp's passes over the 3-D state (state.glsl:
// positions, velocities and ids in any order, as the step leaves them), by the step's own
// rule: rules_neighbour for metric neighbours, the k nearest of its candidates
// (select.glsl's topo_scan over every boid) for topological ones. Passes 0 and 1 pick the
// boid nearest a ray (the pointer's, from the eye) instead of a point. P is the viewer's copy
// of the step's uniform block. The host reads only the 64-byte result; the marks (seen, one
// uint per slot) stay on the GPU for boid3.vert.
layout(local_size_x = 256) in;

layout(std430, binding = B_FOLLOW) coherent buffer Result {
    uint near_off;  // pass 0: the smallest squared tangent off the ray, as float bits
    uint near_id;   // pass 1: the smallest id at that angle
    uint found;     // pass 2: 1 when u_id was found
    uint count;     // pass 3 (metric) or 4 (topological): the boids it counts
    uint slot;      // pass 2: its slot in the state buffers
    uint pad[3];    // std430: the vec4s below start at 32 bytes
    vec4 fpos;      // pass 2: its (x, y, z, 0)
    vec4 fvel;      // pass 2: its (vx, vy, vz, 0)
};
layout(std430, binding = B_SEEN) writeonly buffer Seen { uint seen[]; };

uniform uint u_pass;
uniform vec3 u_eye;
uniform vec3 u_ray; // unit length
uniform uint u_id;

// Pass 4, one invocation: the k nearest candidates of the followed boid over all N boids.
// The step finds them through the grid's shells; both take the first k in (d2, id) order
// among the same candidates, so the sets are the same.
void mark_topological() {
    best_m = 0u;
    topo_scan(slot, fpos.xyz, fvel.xyz, 0u, P.n);
    for (uint a = 0u; a < best_m; a++) seen[best_slot[a]] = 1u;
    count = best_m;
}

// Pass 0 and 1's measure of how far boid i lies off the ray: tan^2 of the angle between the
// ray and the direction from the eye to it (|d|^2 / t^2 - 1, t the distance along the ray);
// behind the eye: no candidate. Non-negative floats order like their bit patterns, so
// atomicMin on the bits finds the smallest.
uint off_ray(uint i) {
    vec3 d = pos_load(i) - u_eye;
    float t = dot(d, u_ray);
    if (t <= 0.0) return 0xFFFFFFFFu;
    return floatBitsToUint(max(dot(d, d) / (t * t) - 1.0, 0.0));
}

// Passes 0 to 3 for the boid in slot i.
void visit(uint i) {
    if (u_pass == 0u) {
        atomicMin(near_off, off_ray(i));
    } else if (u_pass == 1u) {
        if (off_ray(i) == near_off && near_off != 0xFFFFFFFFu) atomicMin(near_id, src_id[i]);
    } else if (u_pass == 2u) {
        if (src_id[i] == u_id) {
            fpos = vec4(pos_load(i), 0.0);
            fvel = vec4(vel_load(i), 0.0);
            slot = i;
            found = 1u;
        }
    } else { // pass 3: the metric marks, or the cleared ones before pass 4
        uint mark = 0u;
        if (P.topo == 0u && i != slot) {
            vec3 d = rules_offset(fpos.xyz, pos_load(i));
            if (rules_neighbour(false, d, rules_d2(d), fvel.xyz)) mark = 1u;
        }
        seen[i] = mark;
        if (mark != 0u) atomicAdd(count, 1u);
    }
}

// A fixed number of groups strides over N (no limit on the dispatch's size).
void main() {
    if (u_pass == 4u) {
        if (gl_GlobalInvocationID.x == 0u) mark_topological();
        return;
    }
    uint stride = gl_NumWorkGroups.x * 256u;
    for (uint i = gl_GlobalInvocationID.x; i < P.n; i += stride) visit(i);
}
