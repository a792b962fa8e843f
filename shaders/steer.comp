// Stage 5, steer + integrate (metric neighbours): each boid gathers its neighbours from the
// 3x3 cells around it in the cell-ordered state, applies the rules (rules.glsl: Reynolds, or
// Vicsek with P.vicsek) and writes its new state to the other buffer of the ping-pong pair
// at the same index.
layout(local_size_x = WG) in;

void main() {
    uint i = boid_index();
    if (i >= P.n) return;
    vec4 s = state_load(i);
    uvec2 r[6];
    uint nr = grid_ranges(grid_cell(s.xy), r);
    if (P.vicsek != 0u) { // the headings of its neighbours (rules_neighbour), itself included
        precise float sx = 0.0, sy = 0.0;
        uint cnt = 0u;
        for (uint q = 0u; q < nr; q++) {
            for (uint j = r[q].x; j < r[q].y; j++) {
                vec4 o = state_load(j);
                vec2 d = rules_offset(s.x, s.y, o.x, o.y);
                precise float d2 = d.x * d.x + d.y * d.y;
                if (!rules_neighbour(j == i, d.x, d.y, d2, s.z, s.w)) continue;
                vec2 u = vicsek_unit(o.z, o.w);
                sx += u.x;
                sy += u.y;
                cnt++;
            }
        }
        state_store(i, vicsek_update(sx, sy, cnt, noise_u(P.step, src_id[i]), s.x, s.y, s.z, s.w),
                    src_id[i]);
        return;
    }
    Acc a = rules_acc_init();
    for (uint q = 0u; q < nr; q++) {
        for (uint j = r[q].x; j < r[q].y; j++) {
            if (j == i) continue;
            vec4 o = state_load(j);
            vec2 d = rules_offset(s.x, s.y, o.x, o.y);
            precise float d2 = d.x * d.x + d.y * d.y;
            if (rules_neighbour(false, d.x, d.y, d2, s.z, s.w))
                rules_acc_add(a, d.x, d.y, d2, o.z, o.w);
        }
    }
    vec2 acc = rules_accel(a, s.x, s.y, s.z, s.w);
    state_store(i, rules_integrate(acc.x, acc.y, s.x, s.y, s.z, s.w), src_id[i]);
}
