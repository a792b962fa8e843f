// Deterministic mode, after the scatter: orders each cell's entries by id (a rank sort:
// each boid's place is the number of boids in its cell with a smaller id), which removes
// the scheduling-dependent atomic ranks and with them the run-to-run variation of the
// float summation order. Cells hold few boids, so O(k^2) per cell is cheap.
layout(local_size_x = WG) in;

layout(std430, binding = B_SRC_STATE) readonly buffer SrcState { vec4 src[]; };
layout(std430, binding = B_SRC_ID) readonly buffer SrcId { uint src_id[]; };
layout(std430, binding = B_DST_STATE) writeonly buffer DstState { vec4 dst[]; };
layout(std430, binding = B_DST_ID) writeonly buffer DstId { uint dst_id[]; };

void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i >= P.n) return;
    vec4 s = src[i];
    uint id = src_id[i];
    uint c = grid_index(s.xy);
    uint a = starts[c], b = a + counts[c];
    uint rank = 0u;
    for (uint k = a; k < b; k++) rank += src_id[k] < id ? 1u : 0u;
    dst[a + rank] = s;
    dst_id[a + rank] = id;
}
