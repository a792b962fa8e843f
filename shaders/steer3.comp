// SPDX-License-Identifier: MIT
// Stage 5 in 3-D, steer + integrate with metric neighbours: boid i gathers its neighbours
// (rules3_neighbour) from the 27 cells around it and applies the rules (rules3.glsl:
// Reynolds, or Vicsek with P.vicsek), writing its new state at the same index of the other
// buffer. Positions of all candidates are read, velocities only of the neighbours.
layout(local_size_x = WG) in;

void main() {
    uint i = boid_index();
    if (i >= P.n) return;
    vec3 p = pos_load(i), v = vel_load(i);
    uvec2 r[18];
    uint nr = grid3_ranges(grid3_cell(p), r);
    uint id = src_id[i];
    bool whole = true; // each loop checks its own end (steer.glsl)
    uint q = 0u;
    if (P.vicsek != 0u) { // the unit velocities of its neighbours, itself included
        precise vec3 s = vec3(0.0);
        uint cnt = 0u;
        for (; q < nr; q++) {
            uint j = r[q].x, e = r[q].y;
            for (; j < e; j++) {
                vec3 d = rules3_offset(p, pos_load(j));
                if (!rules3_neighbour(j == i, d, rules3_d2(d), v)) continue;
                s += vicsek3_unit(vel_load(j));
                cnt++;
            }
            if (j < e) whole = false;
        }
        report_cut(whole && q >= nr, CUT_METRIC);
        vec3 nv = vicsek3_update(s, cnt, noise_u(P.step, id), noise_u2(P.step, id), p, v);
        state3_store(i, p, nv, id);
        return;
    }
    Acc3 a = rules3_acc_init();
    for (; q < nr; q++) {
        uint j = r[q].x, e = r[q].y;
        for (; j < e; j++) {
            if (j == i) continue;
            vec3 d = rules3_offset(p, pos_load(j));
            float d2 = rules3_d2(d);
            if (rules3_neighbour(false, d, d2, v)) rules3_acc_add(a, d, d2, vel_load(j));
        }
        if (j < e) whole = false;
    }
    report_cut(whole && q >= nr, CUT_METRIC);
    vec3 nv = rules3_integrate(rules3_accel(a, p, v), p, v);
    state3_store(i, p, nv, id);
}
