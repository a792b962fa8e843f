// SPDX-License-Identifier: MIT
// A boid's fragment. The plane: its colour as boid.vert gives it. The box: its face
// flat-shaded (the face's normal from the derivatives of its world position, turned towards
// the eye so both sides light alike), a light from above and ahead with some ambient, then
// the fog of the depth cue (fog.glsl).
out vec4 o_colour;

#if DIM == 2
in vec4 v_colour;

void main() {
    o_colour = v_colour;
}
#else
in vec3 v_colour;
in vec3 v_world;

void main() {
    vec3 n = normalize(cross(dFdx(v_world), dFdy(v_world)));
    if (dot(n, u_eye - v_world) < 0.0) n = -n;
    const vec3 light = normalize(vec3(0.3, -1.0, -0.4)); // up is -y (camera3.h)
    float lit = 0.4 + 0.6 * max(dot(n, light), 0.0);
    o_colour = vec4(fogged(v_colour * lit, v_world), 1.0);
}
#endif
