// SPDX-License-Identifier: MIT
// The colours of the boids, one rule for the plane and the box (boid.vert): by
// heading, by speed or plain, with the look's palette (render_look of render.h).

uniform int u_colour;      // 0 heading, 1 speed, 2 plain
uniform float u_min_speed; // speed colour scale: min_speed to max_speed, length/time
uniform float u_max_speed;
uniform int u_palette;     // 0: the rainbow of headings; 1: the three stops
uniform vec3 u_stops[3];   // heading: a cycle through the three; speed: the first to the second
uniform vec3 u_plain;      // colour of `plain`

vec3 hsv(float h, float s, float v) {
    vec3 k = clamp(abs(mod(h * 6.0 + vec3(0.0, 4.0, 2.0), 6.0) - 3.0) - 1.0, 0.0, 1.0);
    return v * mix(vec3(1.0), k, s);
}

// turn: the heading as a fraction of a full turn, in [0, 1]; speed: length/time.
vec3 boid_colour(float turn, float speed) {
    float fast = clamp((speed - u_min_speed) / max(u_max_speed - u_min_speed, 1e-6), 0.0, 1.0);
    if (u_colour == 0 && u_palette == 0) return hsv(turn, 0.55, 1.0);
    if (u_colour == 0) {
        float s = fract(turn) * 3.0;
        int i = min(int(s), 2);
        return mix(u_stops[i], u_stops[(i + 1) % 3], s - float(i));
    }
    if (u_colour == 1)
        return u_palette == 0 ? mix(vec3(0.25, 0.45, 1.0), vec3(1.0, 0.85, 0.3), fast)
                              : mix(u_stops[0], u_stops[1], fast);
    return u_plain;
}

// Species (docs/model.md, "Species"): with u_species > 1 kinds, a boid's colour is its
// species', whose ids are [u_sp_end[s - 1], u_sp_end[s]) for s >= 1 (species 0: the rest);
// the draw reads each slot's id (the gpu backend's state is in cell order).
uniform int u_species;
uniform uint u_sp_end[4];
const vec3 SPECIES_COLOURS[4] = vec3[4](vec3(0.55, 0.75, 1.0), vec3(1.0, 0.3, 0.2),
                                        vec3(1.0, 0.85, 0.25), vec3(0.45, 1.0, 0.45));

int species_of(uint id) {
    for (int s = 1; s < u_species; s++)
        if (id < u_sp_end[s]) return s;
    return 0;
}
