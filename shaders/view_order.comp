// SPDX-License-Identifier: MIT
// Order (polarization) for the HUD without reading the flock back: a fixed number of work
// groups each sum v / |v| over a strided share of the boids; the host adds the few
// partial sums in double and divides by N. Zero velocities contribute nothing, as in
// boids_order(). In 3-D it reads the gpu backend's velocity buffer (vx, vy, vz, 0).
layout(local_size_x = 256) in;

layout(std430, binding = 0) readonly buffer State { vec4 state[]; };
layout(std430, binding = 1) writeonly buffer Partial { vec4 partial[]; };

uniform uint u_n;
uniform uint u_dim; // 2: the state (x, y, vx, vy); 3: the velocities

shared vec3 acc[256];

void main() {
    uint lid = gl_LocalInvocationID.x;
    uint stride = gl_NumWorkGroups.x * 256u;
    vec3 sum = vec3(0.0);
    for (uint i = gl_GlobalInvocationID.x; i < u_n; i += stride) {
        vec3 v = u_dim == 3u ? state[i].xyz : vec3(state[i].zw, 0.0);
        float m = length(v);
        if (m > 0.0) sum += v / m;
    }
    acc[lid] = sum;
    barrier();
    for (uint s = 128u; s > 0u; s >>= 1) {
        if (lid < s) acc[lid] += acc[lid + s];
        barrier();
    }
    if (lid == 0u) partial[gl_WorkGroupID.x] = vec4(acc[0], 0.0);
}
