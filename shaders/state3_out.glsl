// SPDX-License-Identifier: MIT
// The 3-D boid state a stage writes, in state3.glsl's layout.

layout(std430, binding = B_DST_STATE) writeonly buffer DstPos { vec4 dst_pos[]; };
layout(std430, binding = B_DST_VEL) writeonly buffer DstVel { vec4 dst_vel[]; };
layout(std430, binding = B_DST_ID) writeonly buffer DstId { uint dst_id[]; };

void state3_store(uint i, vec3 p, vec3 v, uint id) {
    dst_pos[i] = vec4(p, 0.0);
    dst_vel[i] = vec4(v, 0.0);
    dst_id[i] = id;
}
