// SPDX-License-Identifier: MIT
// Deterministic mode in 3-D: sort.comp's rank sort of each cell by id.
layout(local_size_x = WG) in;

void main() {
    uint i = boid_index();
    if (i >= P.n) return;
    vec3 p = pos_load(i);
    uint id = src_id[i];
    uint c = grid3_index(p);
    uint a = starts[c], b = starts[c + 1u];
    uint rank = 0u;
    for (uint k = a; k < b; k++) rank += src_id[k] < id ? 1u : 0u;
    state3_store(a + rank, p, vel_load(i), id);
}
