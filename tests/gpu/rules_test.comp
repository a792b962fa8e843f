// SPDX-License-Identifier: MIT
// Runs one function of shaders/rules.glsl per case (tests/gpu/rules_glsl_test.c composes
// this after the prelude and rules.glsl, as the pipeline composes its programs).
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
        put(c, vec4(rules_offset(x[0], x[1], x[2], x[3]), 0.0, 0.0), zero);
        break;
    case 1u:
        put(c, vec4(rules_in_fov(x[0], x[1], x[2], x[3], x[4]) ? 1.0 : 0.0, 0.0, 0.0, 0.0), zero);
        break;
    case 2u: {
        bool nb = rules_neighbour(x[5] != 0.0, x[0], x[1], x[2], x[3], x[4]);
        put(c, vec4(nb ? 1.0 : 0.0, 0.0, 0.0, 0.0), zero);
        break;
    }
    case 3u:
        put(c, vec4(rules_steer(x[0], x[1], x[2], x[3]), 0.0, 0.0), zero);
        break;
    case 4u:
        put(c, rules_integrate(x[0], x[1], x[2], x[3], x[4], x[5]), zero);
        break;
    case 5u: {
        float bx = x[0], by = x[1];
        bvec2 f = rules_boundary(bx, by);
        put(c, vec4(bx, by, f.x ? 1.0 : 0.0, f.y ? 1.0 : 0.0), zero);
        break;
    }
    case 6u: {
        Acc acc = rules_acc_init();
        rules_acc_add(acc, x[0], x[1], x[2], x[3], x[4]);
        put(c, vec4(float(acc.n), acc.mvx, acc.mvy, acc.cx),
            vec4(acc.cy, acc.sx, acc.sy, acc.separated ? 1.0 : 0.0));
        break;
    }
    case 7u: {
        Acc acc = Acc(uint(x[0]), x[1], x[2], x[3], x[4], x[5], x[6], x[7] != 0.0);
        put(c, vec4(rules_accel(acc, x[8], x[9], x[10], x[11]), 0.0, 0.0), zero);
        break;
    }
    case 8u:
        put(c, vec4(vicsek_unit(x[0], x[1]), 0.0, 0.0), zero);
        break;
    // The obstacles (x[0]: the obstacle's index where one is named).
    case 9u:
        put(c, vec4(rules_in_circle(rules_obst(uint(x[0])), x[1], x[2]) ? 1.0 : 0.0, 0.0, 0.0, 0.0),
            zero);
        break;
    case 10u:
        put(c, vec4(rules_touch(x[0], x[1], x[2], x[3], x[4], x[5]) ? 1.0 : 0.0, 0.0, 0.0, 0.0),
            zero);
        break;
    case 11u:
        put(c, vec4(rules_avoid_dir(rules_obst(uint(x[0])), x[1], x[2], x[3], x[4]), 0.0), zero);
        break;
    case 12u: {
        bool h = rules_hit(rules_obst(uint(x[0])), x[1], x[2], x[3], x[4], x[5], x[6]);
        put(c, vec4(h ? 1.0 : 0.0, 0.0, 0.0, 0.0), zero);
        break;
    }
    case 13u:
        put(c, vec4(rules_expel(rules_obst(uint(x[0])), x[1], x[2]), 0.0, 0.0), zero);
        break;
    case 14u:
        put(c, rules_block(x[0], x[1], x[2], x[3], x[4], x[5]), zero);
        break;
    case 15u:
        put(c, rules_seg_rel(rules_obst(uint(x[0])), x[1], x[2]), zero);
        break;
    case 16u:
        put(c, vicsek_update(x[0], x[1], uint(x[2]), x[3], x[4], x[5], x[6], x[7]), zero);
        break;
    }
}
