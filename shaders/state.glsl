// SPDX-License-Identifier: MIT
// The boid state the step reads: vec4 (x, y, vx, vy) and a uint id per boid, in the order of
// the buffer bound (cell order after the scatter). A storage block may be no larger than
// GL_MAX_SHADER_STORAGE_BLOCK_SIZE (128 MiB on llvmpipe: 8,388,608 vec4), so the state is
// bound as two blocks of one buffer, slots [0, P.split) and [P.split, N); below the limit
// P.split >= N and the second block is never read (src/gpu/pipeline.c binds both).

layout(std430, binding = B_SRC_STATE) readonly buffer SrcState { vec4 src[]; };
layout(std430, binding = B_SRC_STATE_HI) readonly buffer SrcStateHi { vec4 src_hi[]; };
layout(std430, binding = B_SRC_ID) readonly buffer SrcId { uint src_id[]; };

vec4 state_load(uint i) {
    return i < P.split ? src[i] : src_hi[i - P.split];
}

// The boid of this invocation: work groups of WG boids laid out in a 2-D grid, row-major, so
// that N is not bounded by GL_MAX_COMPUTE_WORK_GROUP_COUNT along x (65,535 groups).
uint boid_index() {
    return (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * uint(WG) +
           gl_LocalInvocationID.x;
}
