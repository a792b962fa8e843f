// SPDX-License-Identifier: MIT
// Deterministic mode, after the scatter: orders each cell's entries by id (a rank sort:
// each boid's place is the number of boids in its cell with a smaller id), which removes
// the scheduling-dependent atomic ranks and with them the run-to-run variation of the
// float summation order. Cells hold few boids, so O(k^2) per cell is cheap.
layout(local_size_x = WG) in;

void main() {
    uint i = boid_index();
    if (i >= P.n) return;
    vecD p, v;
    boid_load(i, p, v);
    uint id = src_id[i];
    uint c = grid_index(p);
    uint a = starts[c], b = starts[c + 1u];
    uint rank = 0u;
    for (uint k = a; k < b; k++) rank += src_id[k] < id ? 1u : 0u;
    state_store(a + rank, p, v, id);
}
