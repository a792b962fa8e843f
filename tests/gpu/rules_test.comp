// SPDX-License-Identifier: MIT
// Runs one function of shaders/rules.glsl per case, compiled for the plane (DIM 2) or the box
// (DIM 3) (tests/gpu/rules_glsl_test.c composes this after the prelude of the dimension and
// rules.glsl, as the pipeline composes its programs). The ops are numbered as that file's
// enum numbers them; a case's inputs and outputs are laid out as its expect reads and writes
// them: 16 inputs, 12 outputs, a vector output at 0, 4 or 8.
layout(local_size_x = 64) in;

layout(std430, binding = 0) readonly buffer Ops { uint ops[]; };
layout(std430, binding = 1) readonly buffer In { float a[]; };   // 16 per case
layout(std430, binding = 2) writeonly buffer Out { float o[]; }; // 12 per case

uniform uint u_cases;

// The case's (this invocation's) input i, the vector of its inputs from i, its outputs'
// scalar and vector at j.
float x(int i) { return a[16u * gl_GlobalInvocationID.x + uint(i)]; }
vecD at(int i) {
    vecD v;
    for (int k = 0; k < DIM; k++) v[k] = x(i + k);
    return v;
}
void put(int j, float f) { o[12u * gl_GlobalInvocationID.x + uint(j)] = f; }
void putv(int j, vecD v) {
    for (int k = 0; k < DIM; k++) put(j + k, v[k]);
}

// ---- what one dimension has alone: its input layouts and its own ops ----------------------
#if DIM == 2
// accel: n, mv, c, s, separated, position, velocity; vicsek_update: the sum, n, u1, u2 (the
// plane draws one variate: u2 is an input no case sets, 0), position, velocity.
const int ACC_N = 0, ACC_MV = 1, ACC_C = 3, ACC_S = 5, ACC_SEP = 7, ACC_P = 8, ACC_V = 10;
const int UPD_N = 2, UPD_U1 = 3, UPD_U2 = 8, UPD_P = 4, UPD_V = 6;

void dim_op(uint op) {
    switch (op) {
    case 15u: // touch
        put(0, rules_touch(x(0), x(1), x(2), x(3), x(4), x(5)) ? 1.0 : 0.0);
        break;
    case 16u: { // seg_rel
        vec4 s = rules_seg_rel(rules_obst(uint(x(0))), vec2(x(1), x(2)));
        for (int k = 0; k < 4; k++) put(k, s[k]);
        break;
    }
    }
}
#else
// accel: mv, c, s, n, separated, position, velocity (x, y; its z past the 16 inputs, 0.5);
// vicsek_update: the sum, position, velocity, n, u1, u2.
const int ACC_MV = 0, ACC_C = 3, ACC_S = 6, ACC_N = 9, ACC_SEP = 10, ACC_P = 11, ACC_V = 14;
const int UPD_P = 3, UPD_V = 6, UPD_N = 9, UPD_U1 = 10, UPD_U2 = 11;

void dim_op(uint op) {
    switch (op) {
    case 15u: // vicsek_direction: the sum of n = x(9) headings, velocity at 3, u1 x(10), u2 x(11)
        putv(0, vicsek_direction(at(0), uint(x(9)), at(3), x(10), x(11), P.noise));
        break;
    case 16u: // the two noise variates of (step x(0), id x(1))
        put(0, noise_u(uint(x(0)), uint(x(1))));
        put(1, noise_u2(uint(x(0)), uint(x(1))));
        break;
    }
}
#endif

void main() {
    if (gl_GlobalInvocationID.x >= u_cases) return;
    for (int j = 0; j < 12; j++) put(j, 0.0);
    const int D = DIM;
    switch (ops[gl_GlobalInvocationID.x]) {
    case 0u: // offset from x(0) to x(D)
        putv(0, rules_offset(at(0), at(D)));
        break;
    case 1u: // fov: d at 0, d2 x(D), v at D + 1
        put(0, rules_in_fov(at(0), x(D), at(D + 1)) ? 1.0 : 0.0);
        break;
    case 2u: // neighbour (and fov): d at 0, d2 x(D), v at D + 1, self x(2 D + 1)
        put(0, rules_neighbour(x(2 * D + 1) != 0.0, at(0), x(D), at(D + 1)) ? 1.0 : 0.0);
        put(1, rules_in_fov(at(0), x(D), at(D + 1)) ? 1.0 : 0.0);
        break;
    case 3u: // steer towards x(0) from the velocity at D
        putv(0, rules_steer(at(0), at(D)));
        break;
    case 4u: { // integrate: acceleration at 0, position at D, velocity at 2 D
        vecD p = at(D);
        vecD v = rules_integrate(at(0), p, at(2 * D));
        putv(0, p);
        putv(4, v);
        break;
    }
    case 5u: { // boundary: the position and its flips
        vecD b = at(0);
        bvecD f = rules_boundary(b);
        putv(0, b);
        for (int k = 0; k < D; k++) put(4 + k, f[k] ? 1.0 : 0.0);
        break;
    }
    case 6u: { // acc_add: d at 0, d2 x(D), the neighbour's velocity at D + 1
        Acc acc = rules_acc_init();
        rules_acc_add(acc, at(0), x(D), at(D + 1));
        put(0, float(acc.n));
        putv(1, acc.mv);
        putv(4, acc.c);
        put(7, acc.separated ? 1.0 : 0.0);
        putv(8, acc.s);
        break;
    }
    case 7u: {
        Acc acc = Acc(uint(x(ACC_N)), at(ACC_MV), at(ACC_C), at(ACC_S), x(ACC_SEP) != 0.0);
        vecD v;
        for (int k = 0; k < D; k++) v[k] = ACC_V + k < 16 ? x(ACC_V + k) : 0.5;
        putv(0, rules_accel(acc, at(ACC_P), v));
        break;
    }
    case 8u:
        putv(0, vicsek_unit(at(0)));
        break;
    // The obstacles (x(0): the obstacle's index; a position at 1).
    case 9u:
        put(0, rules_in_round(rules_obst(uint(x(0))), at(1)) ? 1.0 : 0.0);
        break;
    case 10u: { // avoidance of the look-ahead ending at 1 + D: (hit, direction), none without
        vecD w;
        bool h = rules_avoid_dir(rules_obst(uint(x(0))), at(1), at(1 + D), w);
        put(0, h ? 1.0 : 0.0);
        putv(1, h ? w : vecD(0.0));
        break;
    }
    case 11u: // the move to 1 + D by 1 + 2 D
        put(0, rules_hit(rules_obst(uint(x(0))), at(1), at(1 + D), at(1 + 2 * D)) ? 1.0 : 0.0);
        break;
    case 12u:
        putv(0, rules_expel(rules_obst(uint(x(0))), at(1)));
        break;
    case 13u: { // the hard rule: position at 0, end at D, velocity at 2 D
        vecD n = at(D), v = at(2 * D);
        rules_block(at(0), n, v);
        putv(0, n);
        putv(4, v);
        break;
    }
    case 14u: { // vicsek_update: the heading sum at 0, n, u, position, velocity
        vecD p = at(UPD_P);
        vecD v = vicsek_update(at(0), uint(x(UPD_N)), vec2(x(UPD_U1), x(UPD_U2)), p, at(UPD_V));
        putv(0, p);
        putv(4, v);
        break;
    }
    default:
        dim_op(ops[gl_GlobalInvocationID.x]);
        break;
    }
}
