// SPDX-License-Identifier: MIT
// The accumulation layer of trails and density (render.c): one triangle that covers the
// viewport, made from gl_VertexID alone (no vertex buffer).
out vec2 v_uv;

void main() {
    vec2 p = vec2(float((gl_VertexID << 1) & 2), float(gl_VertexID & 2));
    v_uv = p;
    gl_Position = vec4(2.0 * p - 1.0, 0.0, 1.0);
}
