// SPDX-License-Identifier: MIT
// 2D overlay (panel, HUD text, circles of the followed boid): triangles in pixel
// coordinates with the origin at the top left, one colour per vertex.
layout(location = 0) in vec2 a_pos;
layout(location = 1) in vec4 a_colour;

uniform vec2 u_viewport; // framebuffer size, pixels

out vec4 v_colour;

void main() {
    gl_Position = vec4(2.0 * a_pos.x / u_viewport.x - 1.0, 1.0 - 2.0 * a_pos.y / u_viewport.y, 0.0,
                       1.0);
    v_colour = a_colour;
}
