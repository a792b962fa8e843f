// SPDX-License-Identifier: MIT
// The 3-D boid state the step reads: positions vec4 (x, y, z, 0) and velocities
// vec4 (vx, vy, vz, 0) in two arrays, and a uint id per boid, in the order of the buffers
// bound (cell order after the scatter). The layout the viewer draws from (two RGBA32F
// arrays); why two arrays: bench/README.md, "3-D". Each array is one storage block: the
// pipeline refuses a 3-D N above GL_MAX_SHADER_STORAGE_BLOCK_SIZE / 16.

layout(std430, binding = B_SRC_STATE) readonly buffer SrcPos { vec4 src_pos[]; };
layout(std430, binding = B_SRC_VEL) readonly buffer SrcVel { vec4 src_vel[]; };
layout(std430, binding = B_SRC_ID) readonly buffer SrcId { uint src_id[]; };

vec3 pos_load(uint i) {
    return src_pos[i].xyz;
}

vec3 vel_load(uint i) {
    return src_vel[i].xyz;
}

// The boid of this invocation, on state.glsl's 2-D grid of work groups (the dispatch of
// src/gpu/pipeline.c is the same in 2-D and 3-D).
uint boid_index() {
    return (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * uint(WG) +
           gl_LocalInvocationID.x;
}
