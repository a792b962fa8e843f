// SPDX-License-Identifier: MIT
in vec4 v_colour;
in vec3 v_world;
out vec4 o_colour;

void main() {
    o_colour = vec4(fogged(v_colour.rgb, v_world), v_colour.a);
}
