// SPDX-License-Identifier: MIT
// Lines of the 3-D view (the world box, the vision cone, the points of interaction): world
// positions with one colour each, through the camera's view-projection.
layout(location = 0) in vec3 a_pos;
layout(location = 1) in vec4 a_colour;

uniform mat4 u_view_proj;

out vec4 v_colour;
out vec3 v_world;

void main() {
    gl_Position = u_view_proj * vec4(a_pos, 1.0);
    v_colour = a_colour;
    v_world = a_pos;
}
