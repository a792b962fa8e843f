// SPDX-License-Identifier: MIT
// Topological neighbours in 3-D (composed after grid3.glsl and state3.glsl): select.glsl's
// selection of the k nearest candidates by (float d2, original id), among those
// rules3_neighbour accepts, searching shells of cells outward (shell r: the cells r apart,
// Chebyshev in three axes, periodic under wrap) with the same stopping rule. select.glsl's
// helpers (the list, cand_before, axis_span, axis_cell) are not shared because they read
// the 2-D state's blocks; the logic is the same.

float best_d2[MAX_K];
uint best_slot[MAX_K];
uint best_m = 0u;

bool cand3_before(float d2, uint id, uint pos) {
    float bd = best_d2[pos];
    return d2 < bd || (d2 == bd && id < src_id[best_slot[pos]]);
}

// Offers the boids of sorted slots [b, e) to the selection of the boid in slot i.
void topo3_scan(uint i, vec3 p, vec3 v, uint b, uint e) {
    for (uint j = b; j < e; j++) {
        if (j == i) continue;
        vec3 d = rules3_offset(p, pos_load(j));
        float d2 = rules3_d2(d);
        uint id = src_id[j];
        if (best_m == P.k && !cand3_before(d2, id, best_m - 1u)) continue;
        if (!rules3_neighbour(false, d, d2, v)) continue;
        uint pos = best_m;
        if (best_m < P.k)
            best_m++;
        else
            pos = best_m - 1u;
        for (; pos > 0u && cand3_before(d2, id, pos - 1u); pos--) {
            best_d2[pos] = best_d2[pos - 1u];
            best_slot[pos] = best_slot[pos - 1u];
        }
        best_d2[pos] = d2;
        best_slot[pos] = j;
    }
}

// The cell offsets along one axis (n cells, from cell c) that name distinct cells.
ivec2 axis3_span(bool wrap, int c, int n) {
    return wrap ? ivec2(-((n - 1) / 2), n / 2) : ivec2(-c, n - 1 - c);
}

// |d| < n here, so one period fixes it.
int axis3_cell(bool wrap, int c, int n, int d) {
    int v = c + d;
    if (wrap) {
        if (v < 0)
            v += n;
        else if (v >= n)
            v -= n;
    }
    return v;
}

// Offers the cells of the x-row (y, z) = row at offsets dx in [x0, x1], or only its two
// ends -r and r (side: the row is inside the shell, only its x faces belong to it).
void topo3_row(uint i, vec3 p, vec3 v, int row, ivec3 c, ivec2 sx, int r, bool side) {
    bool wrap = P.wrap != 0u;
    int ncx = int(P.ncx);
    if (!side) {
        for (int dx = max(sx.x, -r); dx <= min(sx.y, r); dx++) {
            int cell = row + axis3_cell(wrap, c.x, ncx, dx);
            topo3_scan(i, p, v, starts[cell], starts[cell + 1]);
        }
        return;
    }
    if (-r >= sx.x) {
        int cell = row + axis3_cell(wrap, c.x, ncx, -r);
        topo3_scan(i, p, v, starts[cell], starts[cell + 1]);
    }
    if (r <= sx.y) {
        int cell = row + axis3_cell(wrap, c.x, ncx, r);
        topo3_scan(i, p, v, starts[cell], starts[cell + 1]);
    }
}

// Fills best_* for the boid in slot i at p moving with v; select.glsl's topo_select in
// three axes: after shells 0..r a k-th strictly below r^2 * reach2 is final.
void topo3_select(uint i, vec3 p, vec3 v) {
    ivec3 c = grid3_cell(p);
    bool wrap = P.wrap != 0u;
    int ncy = int(P.ncy), ncz = int(P.ncz);
    ivec2 sx = axis3_span(wrap, c.x, int(P.ncx)), sy = axis3_span(wrap, c.y, ncy),
          sz = axis3_span(wrap, c.z, ncz);
    int rmax = max(max(max(-sx.x, sx.y), max(-sy.x, sy.y)), max(-sz.x, sz.y));
    if (P.k_in_vision != 0u) rmax = min(rmax, 1);
    best_m = 0u;
    for (int r = 0; r <= rmax; r++) {
        for (int dz = max(sz.x, -r); dz <= min(sz.y, r); dz++) {
            int plane = axis3_cell(wrap, c.z, ncz, dz) * ncy;
            for (int dy = max(sy.x, -r); dy <= min(sy.y, r); dy++) {
                int row = (plane + axis3_cell(wrap, c.y, ncy, dy)) * int(P.ncx);
                bool face = dz == -r || dz == r || dy == -r || dy == r;
                topo3_row(i, p, v, row, c, sx, r, !face);
            }
        }
        if (best_m == P.k && r >= 1) {
            precise float bound = float(r * r) * P.reach2;
            if (best_d2[best_m - 1u] < bound) break;
        }
    }
}
