// SPDX-License-Identifier: MIT
// Topological neighbours (prepended to steer_topo.comp and neighbours_topo.comp, after the
// grid and the state), in the plane and the box: the k nearest candidates of a boid by
// (float d2, original id), the selection of src/core/cpu_grid.c's topo_select, among the
// candidates that rules.glsl's rules_neighbour accepts (Reynolds: in the field of view;
// Vicsek: any boid; with k_in_vision also within the vision radius, with species that of the
// boid's species, SPC). The search visits
// shells of cells outward (shell r: the cells r apart, Chebyshev over the axes, periodic
// under wrap; in the plane a ring, the box's layer z = 0) and stops once k are held and the
// k-th is closer than any unvisited boid can be; otherwise it visits the whole grid
// (k > N - 1 takes every candidate).

// The vision radius squared of k_in_vision: P's, or with species the boid's species' (SPC),
// where species.glsl comes first and defines it so (the programs with species); the programs
// of one species keep the code they always ran.
#ifndef TOPO_VISION2
#define TOPO_VISION2 P.vision2
#endif

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

// Whether the boid in sorted slot j enters the selection of the boid in slot i at p moving
// with v (a candidate the rules accept, before the k-th held in (d2, id) order); its d2 and
// id when it does.
bool topo_enters(uint i, vecD p, vecD v, uint j, out float d2, out uint id) {
    if (j == i) return false;
    vecD d = rules_offset(p, pos_load(j));
    d2 = rules_d2(d);
    id = src_id[j];
    if (best_m == P.k && !cand_before(d2, id, best_m - 1u)) return false;
    return rules_neighbour_r2(false, d, d2, v, TOPO_VISION2);
}

// Room for an entering candidate: a new place at the end, or the k-th's (which leaves).
uint topo_room() {
    uint pos = best_m;
    if (best_m < P.k)
        best_m++;
    else
        pos = best_m - 1u;
    return pos;
}

// One step of an insertion of (d2, id) at place pos: when the entry before pos comes after
// it, that entry moves up into pos and the insertion goes on at pos - 1 (true); otherwise
// (d2, id) belongs at pos (false).
bool topo_shift(uint pos, float d2, uint id) {
    if (pos == 0u || !cand_before(d2, id, pos - 1u)) return false;
    best_d2[pos] = best_d2[pos - 1u];
    best_slot[pos] = best_slot[pos - 1u];
    return true;
}

// Offers the boid in sorted slot j to the selection. Returns whether the insertion's loop
// ended by its own condition (grid.glsl, report_cut): false if the driver cut it short.
bool topo_offer(uint i, vecD p, vecD v, uint j) {
    float d2;
    uint id;
    if (!topo_enters(i, p, v, j, d2, id)) return true;
    uint pos = topo_room();
    bool placed = false; // the insertion stopped at its place, not by a cut
    for (; pos > 0u; pos--) {
        if (!topo_shift(pos, d2, id)) {
            placed = true;
            break;
        }
    }
    best_d2[pos] = d2;
    best_slot[pos] = j;
    return placed || pos == 0u;
}

// Offers the boids of sorted slots [b, e) to the selection; false if the driver cut a loop.
bool topo_scan(uint i, vecD p, vecD v, uint b, uint e) {
    bool whole = true;
    uint j = b;
    for (; j < e; j++)
        if (!topo_offer(i, p, v, j)) whole = false;
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

// Fills best_* for the boid in slot i at p moving with v. Stopping rule: boids whose cells
// are r + 1 or more apart along an axis are at a float d2 above r^2 * reach2 (the cell width
// less a rounding margin, squared and rounded down: src/gpu/grid.c), and the clamp of
// the open boundary into the edge cells only brings cells closer. So after shells 0..r, a
// k-th strictly below that bound cannot be displaced or tied by any unvisited boid: the
// selection is exactly the first k in (d2, id) order over all candidates. With k_in_vision
// every candidate is in the 3 x 3 (x 3) block (cells are at least R wide).
//
// The walk is one loop whose every pass does one thing: offer one candidate, move an
// insertion one place, or open the next cell, row, layer or shell. Nested loops (shells,
// layers, rows, cells, candidates, the insertion) give the same selection, but the lanes of
// a SIMD vector run a loop until the last of them leaves it, so in nested loops a vector
// runs every inner loop as long as its longest lane at each step of the outer ones, and
// enters each inner loop even when no lane needs it: when the lanes meet their crowded
// cells at different steps, the vector's passes approach the sum of its lanes' work.
// llvmpipe stops an invocation's loops after 65,535 passes of its vector in all, and a 3-D
// run of 800 boids (each lane at most 8,305 passes) was cut that way. In one loop the
// vector's passes are its longest lane's: a search is cut only where one boid's own walk
// (cells, rows, shells, candidates and insertion steps) is that long, which needs a grid of
// tens of thousands of cells or as many candidates. Every boid visits the same cells and
// candidates as before, so the selection (a total order over the candidates) is unchanged.
// Returns whether the search ran to its end: the walk ended by its own rule (the bound, or
// shell rmax done), which a cut anywhere in it, an insertion's steps included, prevents.
bool topo_select(uint i, vecD p, vecD v) {
    ivecD c = grid_cell(p);
    bool wrap = P.wrap != 0u;
    int ncx = int(P.ncx), ncy = int(P.ncy), ncz = DIM == 3 ? int(P.ncz) : 1;
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
    ivec2 sx = axis_span(wrap, c.x, ncx), sy = axis_span(wrap, cy, ny),
          sz = axis_span(wrap, cz, nz);
    int rmax = max(max(max(-sx.x, sx.y), max(-sy.x, sy.y)), max(-sz.x, sz.y));
    if (P.k_in_vision != 0u) rmax = min(rmax, 1);
    best_m = 0u;
    // Where the walk is: shell r, layer dz, the next row dy of that layer, the next cell dx
    // of the open row (up to dx_end, by dx_step: 1 along a row on the shell's faces, 2r for
    // a row inside the shell, whose only cells on the shell are its ends), and the open
    // cell's candidates [j, e). Offsets along each axis stay within the span of distinct
    // cells (axis_span); shell 0 is the boid's own cell.
    int r = 0, dz = 0, dy = 0, dx = 1, dx_end = 0, dx_step = 1, row = 0;
    uint j = 0u, e = 0u;
    // An insertion under way: candidate (in_d2, in_id) of slot in_j going to place in_pos.
    bool inserting = false;
    float in_d2 = 0.0;
    uint in_id = 0u, in_j = 0u, in_pos = 0u;
    // The loop ends by its condition after shell rmax, or by a break when the bound is met:
    // with two ways out the compiler cannot know `bounded` after it. (Left only by breaks
    // that each set a flag, it knew the flag's value there and folded the cut check away:
    // llvmpipe's NIR did, and a cut went unreported.)
    bool bounded = false;
    while (r <= rmax) {
        if (inserting) { // one step of the insertion
            if (topo_shift(in_pos, in_d2, in_id)) {
                in_pos--;
            } else {
                best_d2[in_pos] = in_d2;
                best_slot[in_pos] = in_j;
                inserting = false;
            }
            continue;
        }
        if (j < e) { // the open cell's next candidate
            if (topo_enters(i, p, v, j, in_d2, in_id)) {
                inserting = true;
                in_pos = topo_room();
                in_j = j;
            }
            j++;
            continue;
        }
        if (dx <= dx_end) { // the open row's next cell
            int x = dx;
            dx += dx_step;
            if (x < sx.x || x > sx.y) continue; // an end of an inner row beyond the span
            int cell = row + axis_cell(wrap, c.x, ncx, x);
            j = starts[cell];
            e = starts[cell + 1];
            continue;
        }
        if (dy <= min(sy.y, r)) { // the layer's next row
            int lz = axis_cell(wrap, cz, nz, dz), ly = axis_cell(wrap, cy, ny, dy);
            bool face = dz == -r || dz == r || dy == -r || dy == r;
            dy++;
#ifdef TILE
            if (DIM == 3) lz = tile_window(lz);
            if (DIM == 2) ly = tile_window(ly);
            if (lz >= ncz || ly >= ncy) continue;
#endif
            row = (lz * ncy + ly) * ncx;
            dx = face ? max(sx.x, -r) : -r;
            dx_end = face ? min(sx.y, r) : r;
            dx_step = face ? 1 : 2 * r;
            continue;
        }
        if (dz < min(sz.y, r)) { // the shell's next layer
            dz++;
            dy = max(sy.x, -r);
            continue;
        }
        // Shell r is done.
        if (best_m == P.k && r >= 1) {
            precise float bound = float(r * r) * P.reach2;
            if (best_d2[best_m - 1u] < bound) {
                bounded = true;
                break;
            }
        }
        r++;
        dz = max(sz.x, -r);
        dy = max(sy.x, -r);
    }
    return bounded || r > rmax;
}
