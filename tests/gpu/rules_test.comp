// SPDX-License-Identifier: MIT
// Runs one function of shaders/rules.glsl compiled for the plane (DIM 2) per case
// (tests/gpu/rules_glsl_test.c composes this after the prelude and rules.glsl, as the
// pipeline composes its programs).
layout(local_size_x = 64) in;

layout(std430, binding = 0) readonly buffer Ops { uint ops[]; };
layout(std430, binding = 1) readonly buffer In { float a[]; }; // 16 per case
layout(std430, binding = 2) writeonly buffer Out { float o[]; }; // 8 per case

uniform uint u_cases;

void put(uint c, vec4 lo, vec4 hi) {
    for (int k = 0; k < 4; k++) {
        o[8u * c + uint(k)] = lo[k];
        o[8u * c + 4u + uint(k)] = hi[k];
    }
}

void main() {
    uint c = gl_GlobalInvocationID.x;
    if (c >= u_cases) return;
    float x[16];
    for (int k = 0; k < 16; k++) x[k] = a[16u * c + uint(k)];
    vec4 zero = vec4(0.0);
    switch (ops[c]) {
    case 0u:
        put(c, vec4(rules_offset(vec2(x[0], x[1]), vec2(x[2], x[3])), 0.0, 0.0), zero);
        break;
    case 1u:
        put(c, vec4(rules_in_fov(vec2(x[0], x[1]), x[2], vec2(x[3], x[4])) ? 1.0 : 0.0, 0.0, 0.0, 0.0),
            zero);
        break;
    case 2u: {
        bool nb = rules_neighbour(x[5] != 0.0, vec2(x[0], x[1]), x[2], vec2(x[3], x[4]));
        put(c, vec4(nb ? 1.0 : 0.0, 0.0, 0.0, 0.0), zero);
        break;
    }
    case 3u:
        put(c, vec4(rules_steer(vec2(x[0], x[1]), vec2(x[2], x[3])), 0.0, 0.0), zero);
        break;
    case 4u: {
        vec2 p = vec2(x[2], x[3]);
        vec2 v = rules_integrate(vec2(x[0], x[1]), p, vec2(x[4], x[5]));
        put(c, vec4(p, v), zero);
        break;
    }
    case 5u: {
        vec2 b = vec2(x[0], x[1]);
        bvec2 f = rules_boundary(b);
        put(c, vec4(b, f.x ? 1.0 : 0.0, f.y ? 1.0 : 0.0), zero);
        break;
    }
    case 6u: {
        Acc acc = rules_acc_init();
        rules_acc_add(acc, vec2(x[0], x[1]), x[2], vec2(x[3], x[4]));
        put(c, vec4(float(acc.n), acc.mv, acc.c.x), vec4(acc.c.y, acc.s, acc.separated ? 1.0 : 0.0));
        break;
    }
    case 7u: {
        Acc acc = Acc(uint(x[0]), vec2(x[1], x[2]), vec2(x[3], x[4]), vec2(x[5], x[6]), x[7] != 0.0);
        put(c, vec4(rules_accel(acc, vec2(x[8], x[9]), vec2(x[10], x[11])), 0.0, 0.0), zero);
        break;
    }
    case 8u:
        put(c, vec4(vicsek_unit(vec2(x[0], x[1])), 0.0, 0.0), zero);
        break;
    // The obstacles (x[0]: the obstacle's index where one is named).
    case 9u:
        put(c,
            vec4(rules_in_round(rules_obst(uint(x[0])), vec2(x[1], x[2])) ? 1.0 : 0.0, 0.0, 0.0, 0.0),
            zero);
        break;
    case 10u:
        put(c, vec4(rules_touch(x[0], x[1], x[2], x[3], x[4], x[5]) ? 1.0 : 0.0, 0.0, 0.0, 0.0),
            zero);
        break;
    case 11u: { // (hit, direction), no direction without a hit
        vec2 w;
        bool h = rules_avoid_dir(rules_obst(uint(x[0])), vec2(x[1], x[2]), vec2(x[3], x[4]), w);
        put(c, vec4(h ? 1.0 : 0.0, h ? w : vec2(0.0), 0.0), zero);
        break;
    }
    case 12u: {
        bool h = rules_hit(rules_obst(uint(x[0])), vec2(x[1], x[2]), vec2(x[3], x[4]),
                           vec2(x[5], x[6]));
        put(c, vec4(h ? 1.0 : 0.0, 0.0, 0.0, 0.0), zero);
        break;
    }
    case 13u:
        put(c, vec4(rules_expel(rules_obst(uint(x[0])), vec2(x[1], x[2])), 0.0, 0.0), zero);
        break;
    case 14u: {
        vec2 n = vec2(x[2], x[3]), v = vec2(x[4], x[5]);
        rules_block(vec2(x[0], x[1]), n, v);
        put(c, vec4(n, v), zero);
        break;
    }
    case 15u:
        put(c, rules_seg_rel(rules_obst(uint(x[0])), vec2(x[1], x[2])), zero);
        break;
    case 16u: {
        vec2 p = vec2(x[4], x[5]);
        vec2 v = vicsek_update(vec2(x[0], x[1]), uint(x[2]), vec2(x[3], 0.0), p, vec2(x[6], x[7]));
        put(c, vec4(p, v), zero);
        break;
    }
    }
}
