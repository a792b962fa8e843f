// Stage 2, count: each boid finds its cell and takes a rank in it with an atomic add (the
// order of ranks within a cell depends on scheduling; the deterministic mode fixes it).
layout(local_size_x = WG) in;

layout(std430, binding = B_SRC_STATE) readonly buffer SrcState { vec4 src[]; };
layout(std430, binding = B_CELLRANK) writeonly buffer CellRank { uvec2 cellrank[]; };

void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i >= P.n) return;
    uint c = grid_index(src[i].xy);
    cellrank[i] = uvec2(c, atomicAdd(counts[c], 1u));
}
