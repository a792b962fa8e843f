// SPDX-License-Identifier: MIT
// The accumulation layer: u_mode 0 fills with u_colour (blended by render.c to fade the
// trails), 1 copies the layer onto the frame, 2 maps the layer's summed light of a dense
// flock onto the frame: background + (1 - background) * (1 - exp(-light)), so that one boid
// is faint, a few are bright and a crowd saturates smoothly instead of clipping.
in vec2 v_uv;
out vec4 o_colour;

uniform int u_mode;
uniform vec4 u_colour; // mode 0: the fill; mode 2: the background
uniform sampler2D u_layer;

void main() {
    if (u_mode == 0) {
        o_colour = u_colour;
        return;
    }
    vec3 c = texture(u_layer, v_uv).rgb;
    if (u_mode == 2)
        c = u_colour.rgb + (1.0 - u_colour.rgb) * (1.0 - exp(-c));
    o_colour = vec4(c, 1.0);
}
