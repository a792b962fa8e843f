// SPDX-License-Identifier: MIT
// The uniform grid, in the plane and the box: cells of at least the vision radius (plus
// grid_geom.c's rounding margin), P.ncx x P.ncy (x P.ncz) of them tiling the world exactly,
// x fastest (cell index (z * ncy + y) * ncx + x; the plane has z = 0), so that the
// x-neighbours of a cell are contiguous in the sorted state.

// starts[c] is the first slot of cell c in the sorted state and starts[ncells] = N, so cell c
// holds the slots [starts[c], starts[c + 1]).
layout(std430, binding = B_STARTS) readonly buffer Starts { uint starts[]; };

// The loop-cut flag (src/gpu/prelude.h, BOIDS_GPU_CUT_*): a driver may end a long loop early
// and go on as if it had finished (llvmpipe: 65,535 passes per invocation, all loops
// together, the lanes of a SIMD vector counted as one), which would leave a neighbour search
// silently short. The searches check that each of their loops ended by its own condition; a
// boid whose search did not sets `bit`, so the host can refuse the step rather than return
// inexact results. Only failing boids touch the flag. Not checked: the rules' short loops after a search (the interaction table's
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

// Cell of a position, clamped per axis into the grid. x == width (reachable after a wrap, as
// in the seed) belongs to the last cell. On the open boundary boids leave the world: the
// clamp (done in float, before the conversion, which is undefined out of int range) puts
// them in the edge cells, which keeps any two boids closer than a cell at most one cell apart
// per axis, so the search of the cells around a boid stays exact. The cell width exceeds the
// vision radius by a margin far above float rounding (src/core/grid_geom.c), so a boid placed
// one cell off by rounding still finds every neighbour in its block.
#ifndef TILE
ivecD grid_cell(vecD p) {
    vecD last = rules_vec(float(P.ncx - 1u), float(P.ncy - 1u), float(P.ncz - 1u));
    return ivecD(clamp(p * rules_vec(P.inv_cell_w, P.inv_cell_h, P.inv_cell_d), vecD(0.0), last));
}
#else
// Tile mode (src/core/tile.h): the cells cover a window of rows of the whole flock's grid
// along the last axis (y in the plane, z in the box), P.tile_nrows rows in all; the window is
// rows P.tile_lo, P.tile_lo + 1, ... (periodically under wrap), P.ncy (plane) or P.ncz (box)
// of them, and a cell's last coordinate is its window row. The global row is the expression
// above over the whole grid (boids_tile_row on the host is the same float operations).
int grid_rows() {
    return int(DIM == 3 ? P.ncz : P.ncy);
}

// The window row of global row g; grid_rows() or more when the row is outside the window.
int tile_window(int g) {
    int w = g - int(P.tile_lo);
    return w < 0 ? w + int(P.tile_nrows) : w;
}

// The global row of window row w.
int tile_global(int w) {
    int g = w + int(P.tile_lo);
    return g >= int(P.tile_nrows) ? g - int(P.tile_nrows) : g;
}

ivecD grid_cell(vecD p) {
    vecD last = rules_vec(float(P.ncx - 1u), float(P.ncy - 1u), float(P.ncz - 1u));
    last[DIM - 1] = float(P.tile_nrows - 1u);
    ivecD c =
        ivecD(clamp(p * rules_vec(P.inv_cell_w, P.inv_cell_h, P.inv_cell_d), vecD(0.0), last));
    c[DIM - 1] = tile_window(c[DIM - 1]);
    return c;
}

#endif

// The plane's cells are the box's layer z = 0.
int grid_z(ivecD c) {
    return DIM == 3 ? c[DIM - 1] : 0;
}

// In tile mode a boid outside the window goes to the cell after the window's, P.ncells,
// which no search visits.
uint grid_index(vecD p) {
    ivecD c = grid_cell(p);
#ifdef TILE
    if (c[DIM - 1] >= grid_rows()) return P.ncells;
#endif
    return (uint(grid_z(c)) * P.ncy + uint(c.y)) * P.ncx + uint(c.x);
}

#ifdef TILE
// Only the boids of window cells [P.steer_lo, P.steer_hi) move (the steered rows less the
// cells skipped at their ends by a tile that ends within a row: tile.h), of the first of
// them those of global id P.steer_id_lo on and of the last those below P.steer_id_hi (0: all;
// a tile that ends within a cell); the others keep their state.
bool tile_steered(vecD p, uint id) {
    uint c = grid_index(p);
    return c >= P.steer_lo && c < P.steer_hi && (c != P.steer_lo || id >= P.steer_id_lo) &&
           (P.steer_id_hi == 0u || c + 1u != P.steer_hi || id < P.steer_id_hi);
}
#endif

// The cells along the y or z axis (n cells) around c: each once, also with fewer than 3.
int grid_axis(int c, int n, out int v[3]) {
    int m = 0;
    if (n <= 3) {
        for (int k = 0; k < n; k++) v[m++] = k;
    } else if (P.wrap == 0u) { // walls, open boundary
        for (int k = max(c - 1, 0); k <= min(c + 1, n - 1); k++) v[m++] = k;
    } else {
        v[0] = (c + n - 1) % n;
        v[1] = c;
        v[2] = (c + 1) % n;
        m = 3;
    }
    return m;
}

#ifdef TILE
// The rows around window row c along the last axis: the whole grid's (grid_axis over its
// global rows, in its order) that lie in the window, as window rows. A steered boid's
// neighbour rows all do (the window has a row on either side of the steered ones); the others
// are two or more rows away and hold no neighbour.
int tile_axis(int c, out int v[3]) {
    int gv[3];
    int m = grid_axis(tile_global(c), int(P.tile_nrows), gv), k = 0;
    for (int a = 0; a < m; a++) {
        int w = tile_window(gv[a]);
        if (w < grid_rows()) v[k++] = w;
    }
    return k;
}
#endif

// At most two ranges per row of x-neighbours, 3 (plane) or 9 (box) rows.
const int GRID_RANGES = DIM == 2 ? 6 : 18;

// The index ranges [r.x, r.y) of the sorted state that hold the 3 x 3 (x 3) cells around c,
// each cell once even when the grid has fewer than 3 cells along an axis: per (y, z) row one
// range of x-neighbours, or two where it crosses the wrap seam, rows in the order of y within
// z. Returns the number of ranges.
uint grid_ranges(ivecD c, out uvec2 r[GRID_RANGES]) {
    int ncx = int(P.ncx);
    ivec2 seg[2];
    int nseg = 1;
    if (ncx <= 3) {
        seg[0] = ivec2(0, ncx - 1);
    } else if (P.wrap == 0u) {
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
    int ys[3], zs[3];
#ifndef TILE
    int ny = grid_axis(c.y, int(P.ncy), ys), nz = 1;
    zs[0] = 0;
    if (DIM == 3) nz = grid_axis(grid_z(c), int(P.ncz), zs);
#else // the last axis through the whole grid's rows
    int ny = DIM == 3 ? grid_axis(c.y, int(P.ncy), ys) : tile_axis(c.y, ys), nz = 1;
    zs[0] = 0;
    if (DIM == 3) nz = tile_axis(grid_z(c), zs);
#endif
    uint k = 0u;
    for (int iz = 0; iz < nz; iz++) {
        for (int iy = 0; iy < ny; iy++) {
            int row = (zs[iz] * int(P.ncy) + ys[iy]) * ncx;
            for (int s = 0; s < nseg; s++)
                r[k++] = uvec2(starts[row + seg[s].x], starts[row + seg[s].y + 1]);
        }
    }
    return k;
}
