// SPDX-License-Identifier: MIT
// The previous step's velocities of a 3-D flock on the gpu backend, for boid.vert's bank:
// the step reorders its state by cell, so a boid's slot changes from step to step. Before
// the step, pass 0 files each velocity under its boid's id; after it, pass 1 fetches each
// slot's old velocity by the id now in that slot. A fixed number of groups strides over N
// (no limit on the dispatch's size).
layout(local_size_x = 256) in;

layout(std430, binding = 0) readonly buffer Vel { vec4 vel[]; };
layout(std430, binding = 1) readonly buffer Ids { uint ids[]; };
layout(std430, binding = 2) buffer ById { vec4 by_id[]; };
layout(std430, binding = 3) writeonly buffer Prev { vec4 prev[]; };

uniform uint u_pass;
uniform uint u_n;

void main() {
    uint stride = gl_NumWorkGroups.x * 256u;
    for (uint i = gl_GlobalInvocationID.x; i < u_n; i += stride) {
        if (u_pass == 0u)
            by_id[ids[i]] = vel[i];
        else
            prev[i] = by_id[ids[i]];
    }
}
