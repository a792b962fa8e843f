// SPDX-License-Identifier: MIT
// One boid, read straight from the simulation's state buffers; nothing is read back to the
// CPU to draw the flock. Its colour is palette.glsl's; following a boid, it is drawn red and
// twice as large, the boids it counts (the follow pass's marks: view_follow.comp, the step's
// own rule) blue and 1.4 times as large, and every other boid fades. What differs by
// dimension is the section below: the plane's dart in pixels, the box's banked body through
// the camera.

uniform vec2 u_shape;  // the look's shape: the corners scaled along and across the heading
uniform int u_follow;  // 0 off, 1 on
uniform int u_follow_slot;     // the followed boid's slot in the state
uniform usamplerBuffer u_seen; // R32UI view of the marks: 1 for a boid it counts
uniform usamplerBuffer u_ids;  // R32UI view of the ids of the slots (read with species)

// The colour of a boid of heading `turn` (a fraction of a full turn) and speed, and the
// factor on its size, as following has them (faded: the section's fade()); with species,
// its species' colour, from the id at `texel` of u_ids.
vec3 fade(vec3 c);
vec3 boid_look(int slot, int texel, uint seen, float turn, float speed, out float grow) {
    vec3 c = boid_colour(turn, speed);
    grow = 1.0;
    if (u_species > 1) { // each species its colour, the species beyond 0 (hawks) larger
        int s = species_of(texelFetch(u_ids, texel).r);
        c = SPECIES_COLOURS[s];
        grow = s > 0 ? 1.6 : 1.0;
    }
    if (u_follow == 0) return c;
    if (slot == u_follow_slot) {
        grow = 2.0;
        return vec3(1.0, 0.25, 0.2);
    }
    if (seen != 0u) {
        grow = 1.4;
        return vec3(0.3, 0.6, 1.0); // seed 000: the neighbours it counts are blue
    }
    return fade(c);
}

#if DIM == 2
// ---- the plane: one triangle a boid, two ways to fetch, the same picture ----------------
//   u_pull = 0: instanced, a_state / a_seen are per-instance attributes on the buffers;
//   u_pull = 1: vertex pulling, 3 vertices a boid, texelFetch through buffer textures on
//               the same buffers. Software rasterisers (llvmpipe) pay per instance, so
//               this is several times faster there; render.c picks it when the buffer
//               texture can hold N.
layout(location = 0) in vec2 a_corner; // triangle corner: x along the heading, y across
layout(location = 1) in vec4 a_state;  // per instance
layout(location = 3) in uint a_seen;   // per instance: the marks

uniform int u_pull;
uniform samplerBuffer u_states; // RGBA32F view of the state buffer (x, y, vx, vy)

uniform vec2 u_viewport; // framebuffer size, pixels
uniform vec2 u_center;   // world point at the middle of the viewport
uniform float u_scale;   // pixels per world length unit
uniform float u_size_px; // boid length, pixels
uniform float u_alpha;   // 1; density mode: each boid's share of light

out vec4 v_colour;

vec3 fade(vec3 c) { return c * 0.45; }

void main() {
    vec4 st = a_state;
    uint seen = a_seen;
    vec2 corner = a_corner;
    int boid = gl_InstanceID;
    if (u_pull != 0) {
        boid = gl_VertexID / 3;
        st = texelFetch(u_states, boid);
        seen = texelFetch(u_seen, boid).r;
        const vec2 corners[3] = vec2[3](vec2(0.6, 0.0), vec2(-0.4, 0.32), vec2(-0.4, -0.32));
        corner = corners[gl_VertexID - 3 * boid];
    }
    vec2 p = st.xy;
    vec2 v = st.zw;
    float speed = length(v);
    vec2 h = speed > 0.0 ? v / speed : vec2(1.0, 0.0);

    float grow;
    vec3 c = boid_look(boid, boid, seen, atan(v.y, v.x) / 6.2831853 + 0.5, speed, grow);
    corner *= u_shape;
    corner *= grow;

    vec2 local = (corner.x * h + corner.y * vec2(-h.y, h.x)) * u_size_px;
    vec2 px = (p - u_center) * u_scale + 0.5 * u_viewport + local;
    gl_Position = vec4(2.0 * px.x / u_viewport.x - 1.0, 1.0 - 2.0 * px.y / u_viewport.y, 0.0, 1.0);
    v_colour = vec4(c, u_alpha);
}
#else
// ---- the box: a flattened tetrahedron (4 faces, 12 vertices) ----------------------------
// pulled from the 3-D state buffers (render.h: positions and velocities as RGBA32F texels),
// pointed along its velocity and banked by its turn: the signed turn rate about the world's
// up axis between the previous step's velocity and this one, times u_bank_gain, clamped to
// 60 degrees, rolls the inner wing down as a bird does. Perspective makes far boids
// smaller; a boid is drawn at least u_min_px long so that a far flock still shows. Faded
// boids go towards the background (fog.glsl's).
uniform samplerBuffer u_pos;  // x, y, z, 0
uniform samplerBuffer u_vel;  // vx, vy, vz, 0
uniform samplerBuffer u_prev; // the previous step's velocities
uniform int u_base;           // index of this draw's first boid (large flocks: chunks)
uniform mat4 u_view_proj;
uniform float u_length;      // boid length, world units
uniform float u_min_px;      // at least this many pixels long
uniform float u_px_per_unit; // pixels a unit length covers at distance 1 from the eye
uniform float u_bank_gain;   // bank angle (radians) per radian of turn in a step
uniform vec3 u_background;   // the look's, which the others fade towards

out vec3 v_colour;
out vec3 v_world;

const vec3 UP = vec3(0.0, -1.0, 0.0); // camera3.h: y grows downwards
// Along the heading, across it (the wings) and up from the back: nose, wings, back ridge.
const vec3 CORNERS[4] = vec3[4](vec3(0.6, 0.0, 0.0), vec3(-0.4, 0.36, 0.0),
                                vec3(-0.4, -0.36, 0.0), vec3(-0.3, 0.0, 0.14));
const int FACES[12] = int[12](0, 1, 3, 0, 3, 2, 0, 2, 1, 1, 2, 3);

vec3 fade(vec3 c) { return mix(c, u_background, 0.6); }

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

    float grow;
    uint seen = u_follow != 0 ? texelFetch(u_seen, boid).r : 0u;
    vec3 c =
        boid_look(u_base + boid, boid, seen, atan(f.z, f.x) / 6.2831853 + 0.5, speed, grow);
    float len = u_length * grow;
    float w = max((u_view_proj * vec4(p, 1.0)).w, 1e-6);
    len *= max(1.0, u_min_px * w / (len * u_px_per_unit));
    vec3 k = CORNERS[FACES[gl_VertexID - 12 * boid]] * vec3(u_shape.x, u_shape.y, u_shape.y);
    vec3 world = p + len * (k.x * f + k.y * wing + k.z * back);
    gl_Position = u_view_proj * vec4(world, 1.0);
    v_colour = c;
    v_world = world;
}
#endif
