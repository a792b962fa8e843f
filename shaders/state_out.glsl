// SPDX-License-Identifier: MIT
// The boid state a stage writes, in state.glsl's layout (the plane's split at P.split into
// two blocks).

layout(std430, binding = B_DST_ID) writeonly buffer DstId { uint dst_id[]; };

#if DIM == 2
layout(std430, binding = B_DST_STATE) writeonly buffer DstState { vec4 dst[]; };
layout(std430, binding = B_DST_STATE_HI) writeonly buffer DstStateHi { vec4 dst_hi[]; };

void state_store(uint i, vec2 p, vec2 v, uint id) {
    vec4 s = vec4(p, v);
    if (i < P.split)
        dst[i] = s;
    else
        dst_hi[i - P.split] = s;
    dst_id[i] = id;
}
#else
layout(std430, binding = B_DST_STATE) writeonly buffer DstPos { vec4 dst_pos[]; };
layout(std430, binding = B_DST_VEL) writeonly buffer DstVel { vec4 dst_vel[]; };

void state_store(uint i, vec3 p, vec3 v, uint id) {
    dst_pos[i] = vec4(p, 0.0);
    dst_vel[i] = vec4(v, 0.0);
    dst_id[i] = id;
}
#endif
