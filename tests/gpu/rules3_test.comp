// SPDX-License-Identifier: MIT
// Runs one function of shaders/rules.glsl compiled for the box (DIM 3) per case
// (tests/gpu/rules3_glsl_test.c composes this after the prelude and rules.glsl, as the
// pipeline composes its 3-D programs).
layout(local_size_x = 64) in;

layout(std430, binding = 0) readonly buffer Ops { uint ops[]; };
layout(std430, binding = 1) readonly buffer In { float a[]; };   // 16 per case
layout(std430, binding = 2) writeonly buffer Out { float o[]; }; // 12 per case

uniform uint u_cases;

void put(uint c, vec4 x, vec4 y, vec4 z) {
    for (int k = 0; k < 4; k++) {
        o[12u * c + uint(k)] = x[k];
        o[12u * c + 4u + uint(k)] = y[k];
        o[12u * c + 8u + uint(k)] = z[k];
    }
}

void main() {
    uint c = gl_GlobalInvocationID.x;
    if (c >= u_cases) return;
    float x[16];
    for (int k = 0; k < 16; k++) x[k] = a[16u * c + uint(k)];
    vec4 zero = vec4(0.0);
    vec3 a3 = vec3(x[0], x[1], x[2]), b3 = vec3(x[3], x[4], x[5]), c3 = vec3(x[6], x[7], x[8]);
    switch (ops[c]) {
    case 0u: // offset from a3 to b3
        put(c, vec4(rules_offset(a3, b3), 0.0), zero, zero);
        break;
    case 1u: { // neighbour: d = a3, d2 = x[3], v = c3, self = x[9]
        bool nb = rules_neighbour(x[9] != 0.0, a3, x[3], c3);
        bool fov = rules_in_fov(a3, x[3], c3);
        put(c, vec4(nb ? 1.0 : 0.0, fov ? 1.0 : 0.0, 0.0, 0.0), zero, zero);
        break;
    }
    case 2u: // steer towards a3 from velocity b3
        put(c, vec4(rules_steer(a3, b3), 0.0), zero, zero);
        break;
    case 3u: { // integrate: acceleration a3, position b3, velocity c3
        vec3 p = b3;
        vec3 v = rules_integrate(a3, p, c3);
        put(c, vec4(p, 0.0), vec4(v, 0.0), zero);
        break;
    }
    case 4u: { // acc_add: d = a3, d2 = x[3], neighbour velocity c3
        Acc acc = rules_acc_init();
        rules_acc_add(acc, a3, x[3], c3);
        put(c, vec4(float(acc.n), acc.mv), vec4(acc.c, acc.separated ? 1.0 : 0.0),
            vec4(acc.s, 0.0));
        break;
    }
    case 5u: { // accel: sums mv = a3, c = b3, s = c3, n = x[9], separated = x[10];
               // position (x[11], x[12], x[13]), velocity (x[14], x[15], 0.5)
        Acc acc = Acc(uint(x[9]), a3, b3, c3, x[10] != 0.0);
        vec3 r = rules_accel(acc, vec3(x[11], x[12], x[13]), vec3(x[14], x[15], 0.5));
        put(c, vec4(r, 0.0), zero, zero);
        break;
    }
    case 6u: // vicsek_unit of a3
        put(c, vec4(vicsek_unit(a3), 0.0), zero, zero);
        break;
    case 7u: { // vicsek_direction: sum a3 of n = x[9] headings, velocity b3, u1 x[10], u2 x[11]
        vec3 d = vicsek_direction(a3, uint(x[9]), b3, x[10], x[11]);
        put(c, vec4(d, 0.0), zero, zero);
        break;
    }
    case 8u: { // vicsek_update: sum a3 of n = x[9], position b3, velocity c3, u1, u2
        vec3 p = b3;
        vec3 v = vicsek_update(a3, uint(x[9]), vec2(x[10], x[11]), p, c3);
        put(c, vec4(p, 0.0), vec4(v, 0.0), zero);
        break;
    }
    case 9u: // the two noise variates of (step x[0], id x[1])
        put(c, vec4(noise_u(uint(x[0]), uint(x[1])), noise_u2(uint(x[0]), uint(x[1])), 0.0, 0.0),
            zero, zero);
        break;
    // The spheres (x[0]: the sphere's index where one is named; p = (x[1], x[2], x[3])).
    case 10u: {
        bool in_s = rules_in_round(rules_obst(uint(x[0])), vec3(x[1], x[2], x[3]));
        put(c, vec4(in_s ? 1.0 : 0.0, 0.0, 0.0, 0.0), zero, zero);
        break;
    }
    case 11u: { // avoidance of the look-ahead ending at (x[4], x[5], x[6]): (hit, direction)
        vec3 w;
        bool h = rules_avoid_dir(rules_obst(uint(x[0])), vec3(x[1], x[2], x[3]),
                                 vec3(x[4], x[5], x[6]), w);
        put(c, h ? vec4(1.0, w) : vec4(0.0), zero, zero);
        break;
    }
    case 12u: { // the move to (x[4], x[5], x[6]) by (x[7], x[8], x[9])
        bool h = rules_hit(rules_obst(uint(x[0])), vec3(x[1], x[2], x[3]),
                            vec3(x[4], x[5], x[6]), vec3(x[7], x[8], x[9]));
        put(c, vec4(h ? 1.0 : 0.0, 0.0, 0.0, 0.0), zero, zero);
        break;
    }
    case 13u:
        put(c, vec4(rules_expel(rules_obst(uint(x[0])), vec3(x[1], x[2], x[3])), 0.0), zero,
            zero);
        break;
    case 14u: { // the hard rule: position a3, end b3, velocity c3
        vec3 n = b3, v = c3;
        rules_block(a3, n, v);
        put(c, vec4(n, 0.0), vec4(v, 0.0), zero);
        break;
    }
    }
}
