// SPDX-License-Identifier: MIT
// The uniform grid: cells of at least the vision radius, row-major, tiling the world
// exactly (P.ncx x P.ncy cells of width / ncx by height / ncy).

// starts[c] is the first slot of cell c in the sorted state and starts[ncells] = N, so cell c
// holds the slots [starts[c], starts[c + 1]).
layout(std430, binding = B_STARTS) readonly buffer Starts { uint starts[]; };

// The loop-cut flag (src/gpu/prelude.h, BOIDS_GPU_CUT_*): a driver may end a long loop early
// and go on as if it had finished (llvmpipe: 65,535 iterations per invocation, all loops
// together), which would leave a neighbour search silently short. The searches check that
// each of their loops ended by its own condition; a boid whose search did not sets `bit`, so
// the host can refuse the step rather than return inexact results. Only failing boids touch
// the flag. Not checked: the rules' short loops after a search (the interaction table's
// points and obstacles, a few hundred iterations at most), which a shared count like
// llvmpipe's cuts only after a search that itself ended within that margin of the limit.
// No atomicOr: within one dispatch every writer ORs in the same bit, so the racing
// read-modify-writes all store the same value, and dispatches are ordered by barriers;
// llvmpipe compiles an atomic into a per-lane loop, which cost the fused variant's metric
// steer 2% per step although it never ran.
layout(std430, binding = B_LOOP_CUT) buffer LoopCut { uint loop_cut; };

void report_cut(bool whole, uint bit) {
    if (!whole) loop_cut |= bit;
}

// Cell of a position. x == width (reachable after a wrap, as in the seed) belongs to the
// last cell. On the open plane boids leave the world: the clamp (done in float, before the
// conversion, which is undefined out of int range) puts them in the edge cells, which keeps
// any two boids closer than a cell at most one cell apart, so the 3x3 search stays exact.
// The cell width exceeds the vision radius by a margin far above float rounding
// (src/core/grid_geom.c), so a boid placed one cell off by rounding still finds every
// neighbour in its 3x3 block.
ivec2 grid_cell(vec2 p) {
    int cx = int(clamp(p.x * P.inv_cell_w, 0.0, float(P.ncx - 1u)));
    int cy = int(clamp(p.y * P.inv_cell_h, 0.0, float(P.ncy - 1u)));
    return ivec2(cx, cy);
}

uint grid_index(vec2 p) {
    ivec2 c = grid_cell(p);
    return uint(c.y) * P.ncx + uint(c.x);
}

// The index ranges [r.x, r.y) of the sorted state that hold the 3x3 cells around c, each
// cell once even when the grid has fewer than 3 columns or rows. Within a row of cells the
// neighbour columns are contiguous in memory, so a row is one range, or two where it
// crosses the wrap seam. Returns the number of ranges (at most 6).
uint grid_ranges(ivec2 c, out uvec2 r[6]) {
    int ncx = int(P.ncx), ncy = int(P.ncy);
    ivec2 seg[2];
    int nseg = 1;
    if (ncx <= 3) {
        seg[0] = ivec2(0, ncx - 1);
    } else if (P.wrap == 0u) { // walls, open plane
        seg[0] = ivec2(max(c.x - 1, 0), min(c.x + 1, ncx - 1));
    } else if (c.x == 0) {
        seg[0] = ivec2(0, 1);
        seg[1] = ivec2(ncx - 1, ncx - 1);
        nseg = 2;
    } else if (c.x == ncx - 1) {
        seg[0] = ivec2(ncx - 2, ncx - 1);
        seg[1] = ivec2(0, 0);
        nseg = 2;
    } else {
        seg[0] = ivec2(c.x - 1, c.x + 1);
    }
    int rows[3];
    int nrow = 0;
    if (ncy <= 3) {
        for (int y = 0; y < ncy; y++) rows[nrow++] = y;
    } else if (P.wrap == 0u) {
        for (int y = max(c.y - 1, 0); y <= min(c.y + 1, ncy - 1); y++) rows[nrow++] = y;
    } else {
        rows[0] = (c.y + ncy - 1) % ncy;
        rows[1] = c.y;
        rows[2] = (c.y + 1) % ncy;
        nrow = 3;
    }
    uint k = 0u;
    for (int i = 0; i < nrow; i++) {
        for (int s = 0; s < nseg; s++) {
            uint a = uint(rows[i] * ncx + seg[s].x);
            uint b = uint(rows[i] * ncx + seg[s].y);
            r[k++] = uvec2(starts[a], starts[b + 1u]);
        }
    }
    return k;
}
