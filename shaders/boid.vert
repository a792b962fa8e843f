// SPDX-License-Identifier: MIT
// One triangle per boid, read straight from the simulation's state buffer; nothing is
// read back to the CPU to draw the flock. Two ways to fetch, the same picture:
//   u_pull = 0: instanced, a_state / a_id are per-instance attributes on the buffers;
//   u_pull = 1: vertex pulling, 3 vertices a boid, texelFetch through buffer textures on
//               the same buffers. Software rasterisers (llvmpipe) pay per instance, so
//               this is several times faster there; render.c picks it when the buffer
//               texture can hold N.

layout(location = 0) in vec2 a_corner; // triangle corner: x along the heading, y across
layout(location = 1) in vec4 a_state;  // per instance
layout(location = 2) in uint a_id;     // per instance

uniform int u_pull;
uniform samplerBuffer u_states; // RGBA32F view of the state buffer
uniform usamplerBuffer u_ids;   // R32UI view of the id buffer

uniform vec2 u_viewport;   // framebuffer size, pixels
uniform vec2 u_center;     // world point at the middle of the viewport
uniform float u_scale;     // pixels per world length unit
uniform float u_size_px;   // boid length, pixels

// The look (render_look of render.h; the colours: palette.glsl).
uniform vec2 u_shape;     // the dart's corners scaled along and across the heading
uniform float u_alpha;    // 1; density mode: each boid's share of light

// "See what a boid sees": the followed boid, and the marks of the follow pass
// (view_follow.comp: the step's own neighbour rule) on the boids it counts.
uniform int u_follow;      // 0 off, 1 on
uniform uint u_follow_id;  // id of the followed boid
layout(location = 3) in uint a_seen; // per instance: 1 for a boid it counts
uniform usamplerBuffer u_seen;       // R32UI view of the marks (vertex pulling)

out vec4 v_colour;

void main() {
    vec4 st = a_state;
    uint id = a_id;
    uint seen = a_seen;
    vec2 corner = a_corner;
    if (u_pull != 0) {
        int boid = gl_VertexID / 3;
        st = texelFetch(u_states, boid);
        id = texelFetch(u_ids, boid).r;
        seen = texelFetch(u_seen, boid).r;
        const vec2 corners[3] = vec2[3](vec2(0.6, 0.0), vec2(-0.4, 0.32), vec2(-0.4, -0.32));
        corner = corners[gl_VertexID - 3 * boid];
    }
    vec2 p = st.xy;
    vec2 v = st.zw;
    float speed = length(v);
    vec2 h = speed > 0.0 ? v / speed : vec2(1.0, 0.0);

    vec3 c = boid_colour(atan(v.y, v.x) / 6.2831853 + 0.5, speed);
    float alpha = u_alpha;
    corner *= u_shape;
    if (u_follow != 0) {
        if (id == u_follow_id) {
            c = vec3(1.0, 0.25, 0.2);
            corner *= 2.0;
        } else {
            if (seen != 0u) {
                c = vec3(0.3, 0.6, 1.0); // seed 000: the neighbours it counts are blue
                corner *= 1.4;
            } else {
                c *= 0.45;
            }
        }
    }

    vec2 local = (corner.x * h + corner.y * vec2(-h.y, h.x)) * u_size_px;
    vec2 px = (p - u_center) * u_scale + 0.5 * u_viewport + local;
    gl_Position = vec4(2.0 * px.x / u_viewport.x - 1.0, 1.0 - 2.0 * px.y / u_viewport.y, 0.0, 1.0);
    v_colour = vec4(c, alpha);
}
