// SPDX-License-Identifier: MIT
// "See what a boid sees" without reading the flock back: passes over the step's state (any
// order, as the step leaves it) that pick a boid, find a boid by id and mark the boids it
// counts, by the step's own rule: the rules' neighbour test for metric neighbours, the k
// nearest of its candidates (the selection's scan over every boid) for topological ones.
// P is the viewer's copy of the step's uniform block. The host reads only the 64-byte
// result; the marks (seen, one uint per slot) stay on the GPU for boid.vert.
layout(local_size_x = 256) in;

layout(std430, binding = B_FOLLOW) coherent buffer Result {
    uint near;    // pass 0: the smallest measure of off_pick, as float bits
    uint near_id; // pass 1: the smallest id at that measure
    uint found;   // pass 2: 1 when u_id was found
    uint count;   // pass 3 (metric) or 4 (topological): the boids it counts
    uint slot;    // pass 2: its slot in the state
    uint pad[3];  // std430: the vec4s below start at 32 bytes
    vec4 fpos;    // pass 2: its position (the plane: x, y, 0, 0)
    vec4 fvel;    // pass 2: its velocity
};
layout(std430, binding = B_SEEN) writeonly buffer Seen { uint seen[]; };

uniform uint u_pass;
uniform vecD u_from; // the plane: the point to pick nearest; the box: the eye
uniform vecD u_ray;  // the box: the pointer's ray from the eye, unit length
uniform uint u_id;

// ---- what differs by dimension: the state's layout, the rules' and the selection's calls,
// and what a pick measures ----------------------------------------------------------------
#if DIM == 2
// state.glsl: vec4 (x, y, vx, vy) a slot.
vecD boid_pos(uint i) { return src[i].xy; }
vecD boid_vel(uint i) { return src[i].zw; }
vecD offset(vecD a, vecD b) { return rules_offset(a.x, a.y, b.x, b.y); }
vec4 widen(vecD a) { return vec4(a, 0.0, 0.0); }

// Is a boid at offset d from the followed one (heading v) one it counts?
bool counts(vecD d, vecD v) {
    precise float d2 = d.x * d.x + d.y * d.y;
    return rules_neighbour(false, d.x, d.y, d2, v.x, v.y);
}

void select_k(uint i, vecD p, vecD v) { topo_scan(i, vec4(p, v), 0u, P.n); }

// The squared distance from u_from (shortest image in wrap mode).
uint off_pick(uint i) {
    vecD p = boid_pos(i);
    vecD d = rules_offset(u_from.x, u_from.y, p.x, p.y);
    return floatBitsToUint(d.x * d.x + d.y * d.y);
}
#else
// state3.glsl: positions and velocities in two arrays.
vecD boid_pos(uint i) { return pos_load(i); }
vecD boid_vel(uint i) { return vel_load(i); }
vecD offset(vecD a, vecD b) { return rules3_offset(a, b); }
vec4 widen(vecD a) { return vec4(a, 0.0); }

bool counts(vecD d, vecD v) { return rules3_neighbour(false, d, rules3_d2(d), v); }

void select_k(uint i, vecD p, vecD v) { topo3_scan(i, p, v, 0u, P.n); }

// tan^2 of the angle between the ray and the direction from the eye to the boid
// (|d|^2 / t^2 - 1, t the distance along the ray); behind the eye: no candidate.
uint off_pick(uint i) {
    vecD d = boid_pos(i) - u_from;
    float t = dot(d, u_ray);
    if (t <= 0.0) return 0xFFFFFFFFu;
    return floatBitsToUint(max(dot(d, d) / (t * t) - 1.0, 0.0));
}
#endif

// Pass 4, one invocation: the k nearest candidates of the followed boid over all N boids.
// The step finds them through the grid; both take the first k in (d2, id) order among the
// same candidates, so the sets are the same.
void mark_topological() {
    best_m = 0u;
    select_k(slot, vecD(fpos), vecD(fvel));
    for (uint a = 0u; a < best_m; a++) seen[best_slot[a]] = 1u;
    count = best_m;
}

// Passes 0 to 3 for the boid in slot i. Non-negative floats order like their bit patterns,
// so atomicMin on the bits finds the smallest measure.
void visit(uint i) {
    if (u_pass == 0u) {
        atomicMin(near, off_pick(i));
    } else if (u_pass == 1u) {
        if (off_pick(i) == near && near != 0xFFFFFFFFu) atomicMin(near_id, src_id[i]);
    } else if (u_pass == 2u) {
        if (src_id[i] == u_id) {
            fpos = widen(boid_pos(i));
            fvel = widen(boid_vel(i));
            slot = i;
            found = 1u;
        }
    } else { // pass 3: the metric marks, or the cleared ones before pass 4
        uint mark = 0u;
        if (P.topo == 0u && i != slot && counts(offset(vecD(fpos), boid_pos(i)), vecD(fvel)))
            mark = 1u;
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
