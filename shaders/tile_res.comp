// SPDX-License-Identifier: MIT
// A resident tile's passes over its owned boids, slots [0, P.n) of the state (src/gpu/
// resident.c; src/core/tile.h), one invocation a boid, the pass chosen by u_pass:
//   0 rows:  each boid's cell of the whole flock's grid (each axis's cell coordinate, the
//            step's own float operations: grid.glsl; x fastest, rows of u_plane cells along
//            the last axis), kept, and counted per row;
//   1 count: how many leave the tile's cells [u_lo, u_hi) (whole rows, or a tile that ends
//            within rows: tile.h; of cell u_lo the ids from u_id_lo on, of cell u_hi - 1 those
//            below u_id_hi, 0: all, where it ends within a cell), and how many of those
//            staying are in its edge rows, the cells before u_e0 and from u_e1 (the halo it
//            sends);
//   2 write: those leaving as records at u_at[0] on, with their rows; those staying compacted
//            into the written state; copies of the edge rows' at u_at[1] and u_at[2];
//   3 select: those whose row (u_by_cell 0) or cell (1) is one of u_sel[0 .. u_nsel)
//            (ascending; the u_sel_at-th of all those asked for onwards): by row, counted per
//            cell into out (u_plane counters a row asked for, in the ascending order); by
//            cell, their cells in out from word 0 and their global ids from word P.n, counted
//            in aux[4]. The cut's counts of a few rows and ids of a few cells, with no other
//            boid's cell read back.
// The order of the compacted and written boids follows the atomics: the step's deterministic
// sort orders each cell by id, so it changes no bit there.
layout(local_size_x = WG) in;

// aux: [0, 8) counters (leaving, staying, first edge, last edge), [8, 8 + P.n) the cells,
// then u_nrows row counts.
layout(std430, binding = B_TILE_AUX) buffer Aux { uint aux[]; };
// out: the records (id, then DIM positions and DIM velocities as float bits), then the rows
// of the leaving ones from word u_rows on; or the select pass's counts, or cells and ids.
layout(std430, binding = B_TILE_OUT) buffer Out { uint rec[]; };

uniform uint u_pass, u_nrows, u_plane, u_lo, u_hi, u_id_lo, u_id_hi, u_e0, u_e1, u_rows;
uniform vec3 u_inv; // the inverse cell size along each axis
uniform uvec3 u_n;  // the cells along each axis
uniform uint u_at[3];
uniform uint u_sel[SEL_MAX];
uniform uint u_nsel, u_sel_at, u_by_cell;

const uint REC = 1u + 2u * uint(DIM);

void put(uint k, uint id, vecD p, vecD v) {
    uint b = k * REC;
    rec[b] = id;
    for (int a = 0; a < DIM; a++) {
        rec[b + 1u + uint(a)] = floatBitsToUint(p[a]);
        rec[b + 1u + uint(DIM + a)] = floatBitsToUint(v[a]);
    }
}

void main() {
    uint i = boid_index();
    if (i >= P.n) return;
    if (u_pass == 0u) {
        vecD p = pos_load(i);
        uint cell = 0u;
        for (int a = DIM - 1; a >= 0; a--)
            cell = cell * u_n[a] + uint(clamp(p[a] * u_inv[a], 0.0, float(u_n[a] - 1u)));
        aux[8u + i] = cell;
        atomicAdd(aux[8u + P.n + cell / u_plane], 1u);
        return;
    }
    uint cell = aux[8u + i], r = cell / u_plane, id = src_id[i];
    if (u_pass == 3u) {
        uint key = u_by_cell != 0u ? cell : r;
        int lo = 0, hi = int(u_nsel) - 1;
        while (lo <= hi) {
            int mid = (lo + hi) / 2;
            if (u_sel[mid] == key) {
                if (u_by_cell == 0u) {
                    atomicAdd(rec[(u_sel_at + uint(mid)) * u_plane + cell % u_plane], 1u);
                } else {
                    uint k = atomicAdd(aux[4], 1u);
                    rec[k] = cell;
                    rec[P.n + k] = id;
                }
                return;
            }
            if (u_sel[mid] < key)
                lo = mid + 1;
            else
                hi = mid - 1;
        }
        return;
    }
    bool leave = cell < u_lo || cell >= u_hi || (cell == u_lo && id < u_id_lo) ||
                 (u_id_hi != 0u && cell + 1u == u_hi && id >= u_id_hi);
    bool first = !leave && cell < u_e0, last = !leave && cell >= u_e1;
    if (u_pass == 1u) {
        if (leave) atomicAdd(aux[0], 1u);
        if (first) atomicAdd(aux[2], 1u);
        if (last) atomicAdd(aux[3], 1u);
        return;
    }
    vecD p, v;
    boid_load(i, p, v);
    if (leave) {
        uint k = atomicAdd(aux[0], 1u);
        put(u_at[0] + k, id, p, v);
        rec[u_rows + k] = r;
        return;
    }
    state_store(atomicAdd(aux[1], 1u), p, v, id);
    if (first) put(u_at[1] + atomicAdd(aux[2], 1u), id, p, v);
    if (last) put(u_at[2] + atomicAdd(aux[3], 1u), id, p, v);
}
