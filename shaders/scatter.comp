// Stage 4, scatter: writes each boid's state and id to start[cell] + rank, which orders the
// state by cell so that the steer stage reads each neighbour cell as one contiguous range.
layout(local_size_x = WG) in;

layout(std430, binding = B_SRC_STATE) readonly buffer SrcState { vec4 src[]; };
layout(std430, binding = B_SRC_ID) readonly buffer SrcId { uint src_id[]; };
layout(std430, binding = B_DST_STATE) writeonly buffer DstState { vec4 dst[]; };
layout(std430, binding = B_DST_ID) writeonly buffer DstId { uint dst_id[]; };
layout(std430, binding = B_CELLRANK) readonly buffer CellRank { uvec2 cellrank[]; };

void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i >= P.n) return;
    uvec2 cr = cellrank[i];
    uint j = starts[cr.x] + cr.y;
    dst[j] = src[i];
    dst_id[j] = src_id[i];
}
