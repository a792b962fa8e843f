// SPDX-License-Identifier: MIT
// One boid of the 3-D view: a flattened tetrahedron (4 faces, 12 vertices) pulled from the
// 3-D state buffers (render.h: positions and velocities as RGBA32F texels), pointed along
// its velocity and banked by its turn: the signed turn rate about the world's up axis
// between the previous step's velocity and this one, times u_bank_gain, clamped to 60
// degrees, rolls the inner wing down as a bird does. Perspective makes far boids smaller;
// a boid is drawn at least u_min_px long so that a far flock still shows. A followed boid
// is red and twice as long, the boids it counts (the follow marks: follow3.h) blue and
// larger, and every other boid fades towards the background.

uniform samplerBuffer u_pos;  // x, y, z, 0
uniform samplerBuffer u_vel;  // vx, vy, vz, 0
uniform samplerBuffer u_prev; // the previous step's velocities
uniform int u_base;           // index of this draw's first boid (large flocks: chunks)
uniform mat4 u_view_proj;
uniform float u_length;      // boid length, world units
uniform float u_min_px;      // at least this many pixels long
uniform float u_px_per_unit; // pixels a unit length covers at distance 1 from the eye
uniform float u_bank_gain;   // bank angle (radians) per radian of turn in a step
uniform vec2 u_shape;        // the look's shape: scale along and across the heading
uniform int u_follow;        // 0 off, 1: u_follow_index is drawn red and larger
uniform int u_follow_index;
uniform usamplerBuffer u_seen; // with u_follow: 1 for the boids it counts
uniform vec3 u_background;     // the look's (fog.glsl's), which the others fade towards

out vec3 v_colour;
out vec3 v_world;

const vec3 UP = vec3(0.0, -1.0, 0.0); // camera3.h: y grows downwards
// Along the heading, across it (the wings) and up from the back: nose, wings, back ridge.
const vec3 CORNERS[4] = vec3[4](vec3(0.6, 0.0, 0.0), vec3(-0.4, 0.36, 0.0),
                                vec3(-0.4, -0.36, 0.0), vec3(-0.3, 0.0, 0.14));
const int FACES[12] = int[12](0, 1, 3, 0, 3, 2, 0, 2, 1, 1, 2, 3);

void main() {
    int boid = gl_VertexID / 12;
    vec3 p = texelFetch(u_pos, boid).xyz;
    vec3 v = texelFetch(u_vel, boid).xyz;
    vec3 pv = texelFetch(u_prev, boid).xyz;
    float speed = length(v);
    vec3 f = speed > 0.0 ? v / speed : vec3(1.0, 0.0, 0.0);
    vec3 side = cross(UP, f);
    side = dot(side, side) > 1e-8 ? normalize(side) : vec3(0.0, 0.0, 1.0);
    vec3 up = cross(f, side);
    // turning by w about UP moves f towards `side`: that wing is the inner one
    float pl = length(pv);
    float turn = pl > 0.0 ? dot(cross(pv / pl, f), UP) : 0.0;
    float bank = clamp(turn * u_bank_gain, -1.0472, 1.0472);
    vec3 wing = cos(bank) * side - sin(bank) * up;
    vec3 back = cos(bank) * up + sin(bank) * side;

    vec3 c = boid_colour(atan(f.z, f.x) / 6.2831853 + 0.5, speed);
    float len = u_length;
    if (u_follow != 0) {
        if (u_base + boid == u_follow_index) {
            c = vec3(1.0, 0.25, 0.2);
            len *= 2.0;
        } else if (texelFetch(u_seen, boid).r != 0u) {
            c = vec3(0.3, 0.6, 1.0); // as in the plane (boid.vert): the ones it counts are blue
            len *= 1.4;
        } else {
            c = mix(c, u_background, 0.6);
        }
    }
    float w = max((u_view_proj * vec4(p, 1.0)).w, 1e-6);
    len *= max(1.0, u_min_px * w / (len * u_px_per_unit));
    vec3 k = CORNERS[FACES[gl_VertexID - 12 * boid]] * vec3(u_shape.x, u_shape.y, u_shape.y);
    vec3 world = p + len * (k.x * f + k.y * wing + k.z * back);
    gl_Position = u_view_proj * vec4(world, 1.0);
    v_colour = c;
    v_world = world;
}
