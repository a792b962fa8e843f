// SPDX-License-Identifier: MIT
// The boid state a stage writes, split at P.split into two blocks as state.glsl's.

layout(std430, binding = B_DST_STATE) writeonly buffer DstState { vec4 dst[]; };
layout(std430, binding = B_DST_STATE_HI) writeonly buffer DstStateHi { vec4 dst_hi[]; };
layout(std430, binding = B_DST_ID) writeonly buffer DstId { uint dst_id[]; };

void state_store(uint i, vec4 s, uint id) {
    if (i < P.split)
        dst[i] = s;
    else
        dst_hi[i - P.split] = s;
    dst_id[i] = id;
}
