#version 430 core
// "See what a boid sees" without reading the flock back: passes over the state buffer
// (cell order) that pick the boid nearest a point, find a boid by id and count its
// neighbours with the model's test (rules_sees in src/core/rules.h). The host reads only
// the 32-byte result.
layout(local_size_x = 256) in;

layout(std430, binding = 0) readonly buffer State { vec4 state[]; };
layout(std430, binding = 1) readonly buffer Ids { uint ids[]; };
layout(std430, binding = 2) coherent buffer Result {
    uint best_d2;   // pass 0: smallest squared distance to u_point, as float bits
    uint best_id;   // pass 1: smallest id at that distance
    uint found;     // pass 2: 1 when u_id was found
    uint count;     // pass 3: neighbours of the found boid
    vec4 followed;  // pass 2: its (x, y, vx, vy)
};

uniform uint u_n;
uniform uint u_pass;
uniform vec2 u_point;
uniform uint u_id;
uniform vec2 u_world;
uniform int u_wrap;
uniform float u_vision2;
uniform int u_full_fov;
uniform float u_cos_half_fov;

float wrap_d(float d, float side) {
    if (d > 0.5 * side) return d - side;
    if (d < -0.5 * side) return d + side;
    return d;
}

vec2 offset(vec2 from, vec2 to) {
    vec2 d = to - from;
    if (u_wrap != 0) d = vec2(wrap_d(d.x, u_world.x), wrap_d(d.y, u_world.y));
    return d;
}

void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i >= u_n) return;
    vec4 s = state[i];
    if (u_pass == 0u || u_pass == 1u) {
        vec2 d = offset(u_point, s.xy);
        // Non-negative floats order like their bit patterns, so atomicMin on the bits
        // finds the smallest distance.
        uint bits = floatBitsToUint(dot(d, d));
        if (u_pass == 0u)
            atomicMin(best_d2, bits);
        else if (bits == best_d2)
            atomicMin(best_id, ids[i]);
    } else if (u_pass == 2u) {
        if (ids[i] == u_id) {
            followed = s;
            found = 1u;
        }
    } else if (ids[i] != u_id) {
        vec2 d = offset(followed.xy, s.xy);
        vec2 v = followed.zw;
        float d2 = dot(d, d);
        if (!(d2 < u_vision2)) return;
        if (u_full_fov == 0) {
            float vv = dot(v, v);
            if (!(vv == 0.0 || d2 == 0.0) && !(dot(v, d) >= u_cos_half_fov * sqrt(vv * d2)))
                return;
        }
        atomicAdd(count, 1u);
    }
}
