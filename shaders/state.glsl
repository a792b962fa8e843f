// SPDX-License-Identifier: MIT
// The boid state the step reads, a uint id per boid and its position and velocity, in the
// order of the buffers bound (cell order after the scatter); pos_load, vel_load, boid_load and
// the neighbour searches' slot_load read them in either layout:
//   plane: vec4 (x, y, vx, vy) per boid. A storage block may be no larger than
//          GL_MAX_SHADER_STORAGE_BLOCK_SIZE (128 MiB on llvmpipe: 8,388,608 vec4), so the
//          state is bound as two blocks of one buffer, slots [0, P.split) and [P.split, N);
//          below the limit P.split >= N and the second block is never read
//          (src/gpu/buffers.c binds both).
//   box:   positions vec4 (x, y, z, 0) and velocities vec4 (vx, vy, vz, 0) in two arrays,
//          the layout the viewer draws from (two RGBA32F arrays; why two arrays:
//          bench/README.md, "3-D"). Each array is one storage block: the pipeline refuses a
//          3-D N above GL_MAX_SHADER_STORAGE_BLOCK_SIZE / 16.

layout(std430, binding = B_SRC_ID) readonly buffer SrcId { uint src_id[]; };

#if DIM == 2
layout(std430, binding = B_SRC_STATE) readonly buffer SrcState { vec4 src[]; };
layout(std430, binding = B_SRC_STATE_HI) readonly buffer SrcStateHi { vec4 src_hi[]; };

vec4 state_load(uint i) {
    return i < P.split ? src[i] : src_hi[i - P.split];
}

vec2 pos_load(uint i) {
    return state_load(i).xy;
}

vec2 vel_load(uint i) {
    return state_load(i).zw;
}

void boid_load(uint i, out vec2 p, out vec2 v) {
    vec4 s = state_load(i);
    p = s.xy;
    v = s.zw;
}

// A candidate of a neighbour search: its position, and its velocity for slot_vel. The plane
// reads the one vec4 whole, so that the rule's branch around slot_vel holds no load.
struct Slot {
    vec2 p, v;
};

Slot slot_load(uint j) {
    vec4 s = state_load(j);
    return Slot(s.xy, s.zw);
}

vec2 slot_vel(Slot s, uint j) {
    return s.v;
}
#else
layout(std430, binding = B_SRC_STATE) readonly buffer SrcPos { vec4 src_pos[]; };
layout(std430, binding = B_SRC_VEL) readonly buffer SrcVel { vec4 src_vel[]; };

vec3 pos_load(uint i) {
    return src_pos[i].xyz;
}

vec3 vel_load(uint i) {
    return src_vel[i].xyz;
}

void boid_load(uint i, out vec3 p, out vec3 v) {
    p = pos_load(i);
    v = vel_load(i);
}

// A candidate of a neighbour search: the box reads its velocity, the second array, only
// when slot_vel asks (for its neighbours).
struct Slot {
    vec3 p;
};

Slot slot_load(uint j) {
    return Slot(pos_load(j));
}

vec3 slot_vel(Slot s, uint j) {
    return vel_load(j);
}
#endif

// The boid of this invocation: work groups of WG boids laid out in a 2-D grid, row-major, so
// that N is not bounded by GL_MAX_COMPUTE_WORK_GROUP_COUNT along x (65,535 groups).
uint boid_index() {
    return (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * uint(WG) +
           gl_LocalInvocationID.x;
}
