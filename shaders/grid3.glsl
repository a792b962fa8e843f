// SPDX-License-Identifier: MIT
// The uniform grid in 3-D: P.ncx x P.ncy x P.ncz cells of at least the vision radius (plus
// grid_geom.c's rounding margin), tiling the box exactly, x fastest (cell index
// (z * ncy + y) * ncx + x), so that the x-neighbours of a cell are contiguous in the sorted
// state. The starts are grid.glsl's (prepended before this file).

// Cell of a position, clamped per axis into the grid as grid.glsl's grid_cell: x == width
// after a wrap goes to the last cell, and boids outside the box on the open boundary to the
// edge cells, which keeps boids closer than a cell at most one cell apart per axis.
ivec3 grid3_cell(vec3 p) {
    int cx = int(clamp(p.x * P.inv_cell_w, 0.0, float(P.ncx - 1u)));
    int cy = int(clamp(p.y * P.inv_cell_h, 0.0, float(P.ncy - 1u)));
    int cz = int(clamp(p.z * P.inv_cell_d, 0.0, float(P.ncz - 1u)));
    return ivec3(cx, cy, cz);
}

uint grid3_index(vec3 p) {
    ivec3 c = grid3_cell(p);
    return (uint(c.z) * P.ncy + uint(c.y)) * P.ncx + uint(c.x);
}

// The cells along the y or z axis (n cells) around c: each once, also with fewer than 3.
int grid3_axis(int c, int n, out int v[3]) {
    int m = 0;
    if (n <= 3) {
        for (int k = 0; k < n; k++) v[m++] = k;
    } else if (P.wrap == 0u) {
        for (int k = max(c - 1, 0); k <= min(c + 1, n - 1); k++) v[m++] = k;
    } else {
        v[0] = (c + n - 1) % n;
        v[1] = c;
        v[2] = (c + 1) % n;
        m = 3;
    }
    return m;
}

// The index ranges [r.x, r.y) of the sorted state holding the 27 cells around c, each cell
// once: per (y, z) row one range of x-neighbours, or two where it crosses the wrap seam.
// Returns the number of ranges (at most 18).
uint grid3_ranges(ivec3 c, out uvec2 r[18]) {
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
    int ny = grid3_axis(c.y, int(P.ncy), ys), nz = grid3_axis(c.z, int(P.ncz), zs);
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
