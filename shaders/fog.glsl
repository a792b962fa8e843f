// SPDX-License-Identifier: MIT
// Depth cue of the 3-D view: exponential fog towards the background. A fragment keeps
// exp(-(d - u_fog_near) / u_fog_range) of its own colour, d its distance from the eye;
// render.c sets u_fog_near where the world's bounding sphere begins, so the nearest boids
// are unfogged whatever the zoom, and u_fog_range so the far side of the world keeps about
// a third of its light.

uniform vec3 u_eye;        // the eye, world coordinates
uniform vec3 u_background; // the look's background
uniform float u_fog_near;  // length units
uniform float u_fog_range; // length units, > 0

vec3 fogged(vec3 c, vec3 world) {
    float d = max(distance(world, u_eye) - u_fog_near, 0.0);
    return mix(u_background, c, exp(-d / u_fog_range));
}
