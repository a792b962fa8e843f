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

// Offers the boids of sorted slots [b, e) to the selection of the boid in slot i; false if
// the driver cut one of its loops short (select.glsl's topo_scan).
bool topo3_scan(uint i, vec3 p, vec3 v, uint b, uint e) {
    bool whole = true;
    uint j = b;
    for (; j < e; j++) {
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
        bool placed = false; // the insertion stopped at its place, not by a cut
        for (; pos > 0u; pos--) {
            if (!cand3_before(d2, id, pos - 1u)) {
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
// ends -r and r (side: the row is inside the shell, only its x faces belong to it); false
// if the driver cut a loop short.
bool topo3_row(uint i, vec3 p, vec3 v, int row, ivec3 c, ivec2 sx, int r, bool side) {
    bool wrap = P.wrap != 0u, whole = true;
    int ncx = int(P.ncx);
    if (!side) {
        int dx = max(sx.x, -r);
        for (; dx <= min(sx.y, r); dx++) {
            int cell = row + axis3_cell(wrap, c.x, ncx, dx);
            if (!topo3_scan(i, p, v, starts[cell], starts[cell + 1])) whole = false;
        }
        return whole && dx > min(sx.y, r);
    }
    if (-r >= sx.x) {
        int cell = row + axis3_cell(wrap, c.x, ncx, -r);
        if (!topo3_scan(i, p, v, starts[cell], starts[cell + 1])) whole = false;
    }
    if (r <= sx.y) {
        int cell = row + axis3_cell(wrap, c.x, ncx, r);
        if (!topo3_scan(i, p, v, starts[cell], starts[cell + 1])) whole = false;
    }
    return whole;
}

// Fills best_* for the boid in slot i at p moving with v; select.glsl's topo_select in
// three axes: after shells 0..r a k-th strictly below r^2 * reach2 is final. Returns
// whether the search ran to its end, every loop checked as in topo_select.
bool topo3_select(uint i, vec3 p, vec3 v) {
    ivec3 c = grid3_cell(p);
    bool wrap = P.wrap != 0u;
    int ncy = int(P.ncy), ncz = int(P.ncz);
    ivec2 sx = axis3_span(wrap, c.x, int(P.ncx)), sy = axis3_span(wrap, c.y, ncy),
          sz = axis3_span(wrap, c.z, ncz);
    int rmax = max(max(max(-sx.x, sx.y), max(-sy.x, sy.y)), max(-sz.x, sz.y));
    if (P.k_in_vision != 0u) rmax = min(rmax, 1);
    best_m = 0u;
    bool whole = true, bounded = false;
    int r = 0;
    for (; r <= rmax; r++) {
        int dz = max(sz.x, -r);
        for (; dz <= min(sz.y, r); dz++) {
            int plane = axis3_cell(wrap, c.z, ncz, dz) * ncy;
            int dy = max(sy.x, -r);
            for (; dy <= min(sy.y, r); dy++) {
                int row = (plane + axis3_cell(wrap, c.y, ncy, dy)) * int(P.ncx);
                bool face = dz == -r || dz == r || dy == -r || dy == r;
                if (!topo3_row(i, p, v, row, c, sx, r, !face)) whole = false;
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
