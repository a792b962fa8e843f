// SPDX-License-Identifier: MIT
// Topological neighbours (prepended to steer_topo.comp and neighbours_topo.comp, after the
// grid and the state), in the plane and the box: the k nearest candidates of a boid by
// (float d2, original id), the selection of src/core/cpu_grid.c's topo_select, among the
// candidates that rules.glsl's rules_neighbour accepts (Reynolds: in the field of view;
// Vicsek: any boid; with k_in_vision also within the vision radius). The search visits
// shells of cells outward (shell r: the cells r apart, Chebyshev over the axes, periodic
// under wrap; in the plane a ring, the box's layer z = 0) and stops once k are held and the
// k-th is closer than any unvisited boid can be; otherwise it visits the whole grid
// (k > N - 1 takes every candidate).

// The selection, in (d2, id) order: a bounded per-invocation list of MAX_K entries (the C
// side refuses k > MAX_K with BOIDS_ERR_LIMIT before dispatching).
float best_d2[MAX_K];
uint best_slot[MAX_K];
uint best_m = 0u;

// Is (d2, id) before the held entry pos in the selection order?
bool cand_before(float d2, uint id, uint pos) {
    float bd = best_d2[pos];
    return d2 < bd || (d2 == bd && id < src_id[best_slot[pos]]);
}

// Offers the boids of sorted slots [b, e) to the selection of the boid in slot i at p moving
// with v. Returns whether its loops ended by their own conditions (grid.glsl, report_cut):
// false if the driver cut one short.
bool topo_scan(uint i, vecD p, vecD v, uint b, uint e) {
    bool whole = true;
    uint j = b;
    for (; j < e; j++) {
        if (j == i) continue;
        vecD d = rules_offset(p, pos_load(j));
        float d2 = rules_d2(d);
        uint id = src_id[j];
        if (best_m == P.k && !cand_before(d2, id, best_m - 1u)) continue;
        if (!rules_neighbour(false, d, d2, v)) continue;
        uint pos = best_m;
        if (best_m < P.k)
            best_m++;
        else
            pos = best_m - 1u;
        bool placed = false; // the insertion stopped at its place, not by a cut
        for (; pos > 0u; pos--) {
            if (!cand_before(d2, id, pos - 1u)) {
                placed = true;
                break;
            }
            best_d2[pos] = best_d2[pos - 1u];
            best_slot[pos] = best_slot[pos - 1u];
        }
        if (!placed && pos > 0u) whole = false;
        best_d2[pos] = d2;
        best_slot[pos] = j;
    }
    return whole && j >= e;
}

// The cell offsets along one axis (n cells, from cell c) that name distinct cells: under
// wrap each cell once by its shortest periodic offset, otherwise those inside the grid.
ivec2 axis_span(bool wrap, int c, int n) {
    return wrap ? ivec2(-((n - 1) / 2), n / 2) : ivec2(-c, n - 1 - c);
}

// |d| < n here, so one period fixes it (GLSL leaves % of a negative operand undefined).
int axis_cell(bool wrap, int c, int n, int d) {
    int v = c + d;
    if (wrap) {
        if (v < 0)
            v += n;
        else if (v >= n)
            v -= n;
    }
    return v;
}

// Offers the cells of the x-row starting at cell `row` at offsets dx in the span sx within
// [-r, r], or only its two ends -r and r (side: the row is inside the shell, only its x
// faces belong to it); false if the driver cut a loop short.
bool topo_row(uint i, vecD p, vecD v, int row, int cx, ivec2 sx, int r, bool side) {
    bool wrap = P.wrap != 0u, whole = true;
    int ncx = int(P.ncx);
    if (!side) {
        int dx = max(sx.x, -r);
        for (; dx <= min(sx.y, r); dx++) {
            int cell = row + axis_cell(wrap, cx, ncx, dx);
            if (!topo_scan(i, p, v, starts[cell], starts[cell + 1])) whole = false;
        }
        return whole && dx > min(sx.y, r);
    }
    if (-r >= sx.x) {
        int cell = row + axis_cell(wrap, cx, ncx, -r);
        if (!topo_scan(i, p, v, starts[cell], starts[cell + 1])) whole = false;
    }
    if (r <= sx.y) {
        int cell = row + axis_cell(wrap, cx, ncx, r);
        if (!topo_scan(i, p, v, starts[cell], starts[cell + 1])) whole = false;
    }
    return whole;
}

// Fills best_* for the boid in slot i at p moving with v. Stopping rule: boids whose cells
// are r + 1 or more apart along an axis are at a float d2 above r^2 * reach2 (the cell width
// less a rounding margin, squared and rounded down: src/gpu/grid.c), and the clamp of
// the open boundary into the edge cells only brings cells closer. So after shells 0..r, a
// k-th strictly below that bound cannot be displaced or tied by any unvisited boid: the
// selection is exactly the first k in (d2, id) order over all candidates. With k_in_vision
// every candidate is in the 3 x 3 (x 3) block (cells are at least R wide).
// Returns whether the search ran to its end: every loop, down to the insertion into the
// list, ended by its own condition (the shell loop by the bound or after shell rmax). Each
// checks its own end because a driver's cut may fall in any of them: one in the last cell of
// the last shell leaves the outer loops looking complete.
bool topo_select(uint i, vecD p, vecD v) {
    ivecD c = grid_cell(p);
    bool wrap = P.wrap != 0u;
    int ncy = int(P.ncy), ncz = DIM == 3 ? int(P.ncz) : 1;
    // The cell and the cells along y and z the shells walk: the grid's; in tile mode the
    // last axis's are the whole grid's rows, taken back to window rows cell by cell, those
    // outside the window skipped (with k_in_vision, the only tiles there are, a steered boid
    // visits no row outside it).
    int cy = c.y, cz = grid_z(c), ny = ncy, nz = ncz;
#ifdef TILE
    if (DIM == 3) {
        cz = tile_global(cz);
        nz = int(P.tile_nrows);
    } else {
        cy = tile_global(cy);
        ny = int(P.tile_nrows);
    }
#endif
    ivec2 sx = axis_span(wrap, c.x, int(P.ncx)), sy = axis_span(wrap, cy, ny),
          sz = axis_span(wrap, cz, nz);
    int rmax = max(max(max(-sx.x, sx.y), max(-sy.x, sy.y)), max(-sz.x, sz.y));
    if (P.k_in_vision != 0u) rmax = min(rmax, 1);
    best_m = 0u;
    bool whole = true, bounded = false;
    int r = 0;
    for (; r <= rmax; r++) {
        int dz = max(sz.x, -r);
        for (; dz <= min(sz.y, r); dz++) {
            int lz = axis_cell(wrap, cz, nz, dz);
#ifdef TILE
            if (DIM == 3) lz = tile_window(lz);
            if (lz >= ncz) continue;
#endif
            int layer = lz * ncy;
            int dy = max(sy.x, -r);
            for (; dy <= min(sy.y, r); dy++) {
                int ly = axis_cell(wrap, cy, ny, dy);
#ifdef TILE
                if (DIM == 2) ly = tile_window(ly);
                if (ly >= ncy) continue;
#endif
                int row = (layer + ly) * int(P.ncx);
                bool face = dz == -r || dz == r || dy == -r || dy == r;
                if (!topo_row(i, p, v, row, c.x, sx, r, !face)) whole = false;
            }
            if (dy <= min(sy.y, r)) whole = false;
        }
        if (dz <= min(sz.y, r)) whole = false;
        if (best_m == P.k && r >= 1) {
            precise float bound = float(r * r) * P.reach2;
            if (best_d2[best_m - 1u] < bound) {
                bounded = true;
                break;
            }
        }
    }
    return whole && (bounded || r > rmax);
}
