/* SPDX-License-Identifier: MIT */
/* The overlay and the box's world-space lines: the shapes and text the panel, the HUD and
 * the points draw, queued in the context's fixed batches (render_internal.h) and drawn by
 * render_flush(), the lines first, depth-tested and fogged, then the overlay on top. */
#include <math.h>
#include <string.h>

#include <cglm/cglm.h>
#include <glad/gl.h>

#include "render/render.h"
#include "render/render_internal.h"

/* stb_easy_font is a single header whose functions are all static: including it here is
 * its whole use. */
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wunused-function"
#endif
#include <stb/stb_easy_font.h>
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

uint32_t render_pack_rgba(uint32_t rgba) {
    /* 0xRRGGBBAA to bytes R, G, B, A in memory, whatever the host byte order. */
    uint32_t out;
    unsigned char b[4] = {(unsigned char)(rgba >> 24), (unsigned char)(rgba >> 16),
                          (unsigned char)(rgba >> 8), (unsigned char)rgba};
    memcpy(&out, b, 4);
    return out;
}

static void tri(render_ctx *r, float x0, float y0, float x1, float y1, float x2, float y2,
                uint32_t c) {
    if (r->nverts + 3 > UI_MAX_VERTS) return;
    ui_vert *v = r->verts + r->nverts;
    v[0] = (ui_vert){x0, y0, c};
    v[1] = (ui_vert){x1, y1, c};
    v[2] = (ui_vert){x2, y2, c};
    r->nverts += 3;
}

static void quad(render_ctx *r, float x0, float y0, float x1, float y1, float x2, float y2,
                 float x3, float y3, uint32_t c) {
    tri(r, x0, y0, x1, y1, x2, y2, c);
    tri(r, x0, y0, x2, y2, x3, y3, c);
}

void render_rect(render_ctx *r, float x, float y, float w, float h, uint32_t rgba) {
    quad(r, x, y, x + w, y, x + w, y + h, x, y + h, render_pack_rgba(rgba));
}

void render_line(render_ctx *r, float x0, float y0, float x1, float y1, float width,
                 uint32_t rgba) {
    float dx = x1 - x0, dy = y1 - y0, len = sqrtf(dx * dx + dy * dy);
    if (len == 0) return;
    float nx = -dy / len * width * 0.5f, ny = dx / len * width * 0.5f;
    quad(r, x0 + nx, y0 + ny, x1 + nx, y1 + ny, x1 - nx, y1 - ny, x0 - nx, y0 - ny,
         render_pack_rgba(rgba));
}

void render_circle(render_ctx *r, float cx, float cy, float radius, float width, float dash,
                   uint32_t rgba) {
    int segs = (int)(radius * 0.5f);
    if (segs < 24) segs = 24;
    if (segs > 512) segs = 512;
    /* With dashes, segments come in on/off pairs of about `dash` pixels each. */
    int step_on = 1;
    if (dash > 0) {
        int pairs = (int)(2 * (float)M_PI * radius / (2 * dash));
        if (pairs < 6) pairs = 6;
        segs = 2 * pairs;
        step_on = 2;
    }
    for (int i = 0; i < segs; i += step_on) {
        float a0 = 2 * (float)M_PI * (float)i / (float)segs;
        float a1 = 2 * (float)M_PI * (float)(i + 1) / (float)segs;
        render_line(r, cx + radius * cosf(a0), cy + radius * sinf(a0), cx + radius * cosf(a1),
                    cy + radius * sinf(a1), width, rgba);
    }
}

void render_wedge(render_ctx *r, float cx, float cy, float radius, float a0, float a1,
                  uint32_t rgba) {
    int segs = (int)(fabsf(a1 - a0) * 24) + 1;
    uint32_t c = render_pack_rgba(rgba);
    for (int i = 0; i < segs; i++) {
        float b0 = a0 + (a1 - a0) * (float)i / (float)segs;
        float b1 = a0 + (a1 - a0) * (float)(i + 1) / (float)segs;
        tri(r, cx, cy, cx + radius * cosf(b0), cy + radius * sinf(b0), cx + radius * cosf(b1),
            cy + radius * sinf(b1), c);
    }
}

void render_interact(render_ctx *r, const render_camera *c, const boids_interact *in,
                     float dot_px) {
    double ax, ay, bx, by;
    const int clean = r->look.clean;
    for (int i = 0; clean < RENDER_CLEAN_ALL && i < in->obstacle_count; i++) {
        const boids_obstacle *o = &in->obstacles[i];
        render_world_to_px(c, o->x0, o->y0, &ax, &ay);
        if (o->kind == BOIDS_OBSTACLE_CIRCLE) {
            render_circle(r, (float)ax, (float)ay, (float)(o->radius * c->scale), 3, 0,
                          RENDER_OBSTACLE_RGBA);
        } else {
            render_world_to_px(c, o->x1, o->y1, &bx, &by);
            render_line(r, (float)ax, (float)ay, (float)bx, (float)by, 3, RENDER_OBSTACLE_RGBA);
        }
    }
    for (int k = 0; clean == RENDER_CLEAN_OFF && k < 2; k++) {
        const boids_point *t = k ? in->attractors : in->predators;
        uint32_t col = k ? 0x6bd66bc0 : 0xff5a4ad0;
        for (int i = 0; i < BOIDS_MAX_POINTS; i++) {
            if (!t[i].on) continue;
            render_world_to_px(c, t[i].x, t[i].y, &ax, &ay);
            render_circle(r, (float)ax, (float)ay, (float)(t[i].radius * c->scale), 1.5f, 6, col);
            render_wedge(r, (float)ax, (float)ay, dot_px, 0, 6.2832f, col);
        }
    }
}

float render_text_width(const char *text, float scale) {
    return (float)stb_easy_font_width((char *)text) * scale;
}

float render_text(render_ctx *r, float x, float y, float scale, const char *text, uint32_t rgba) {
    /* stb_easy_font emits quads of 4 vertices of 16 bytes (x, y, z, colour); 270 bytes a
     * character is its documented worst case. */
    static char buf[270 * 256];
    unsigned char col[4] = {0, 0, 0, 0};
    int quads = stb_easy_font_print(0, 0, (char *)text, col, buf, sizeof buf);
    uint32_t c = render_pack_rgba(rgba);
    for (int q = 0; q < quads; q++) {
        float v[4][2];
        for (int k = 0; k < 4; k++) {
            memcpy(v[k], buf + (size_t)(q * 4 + k) * 16, 2 * sizeof(float));
            v[k][0] = x + v[k][0] * scale;
            v[k][1] = y + v[k][1] * scale;
        }
        quad(r, v[0][0], v[0][1], v[1][0], v[1][1], v[2][0], v[2][1], v[3][0], v[3][1], c);
    }
    return render_text_width(text, scale);
}

/* ---- the box's world-space lines ------------------------------------------------------ */

void render_world_line(render_ctx *r, const float a[3], const float b[3], uint32_t rgba) {
    if (r->dim != 3 || r->nlines + 2 > LINE_MAX_VERTS) return;
    uint32_t c = render_pack_rgba(rgba);
    r->lines[r->nlines++] = (line_vert){a[0], a[1], a[2], c};
    r->lines[r->nlines++] = (line_vert){b[0], b[1], b[2], c};
}

void render_world_box(render_ctx *r, const float s[3], int boundary) {
    if (boundary == BOIDS_BOUNDARY_OPEN) return;
    uint32_t col = boundary == BOIDS_BOUNDARY_WALLS ? 0xc8ccd8ff : 0x5b6478ff;
    /* corner k has coordinate i at s[i] when bit i of k is set; an edge joins corners one
     * bit apart */
    for (int k = 0; k < 8; k++)
        for (int i = 0; i < 3; i++) {
            if (k & (1 << i)) continue;
            int m = k | (1 << i);
            float a[3], b[3];
            for (int j = 0; j < 3; j++) {
                a[j] = k & (1 << j) ? s[j] : 0;
                b[j] = m & (1 << j) ? s[j] : 0;
            }
            render_world_line(r, a, b, col);
        }
}

/* A circle about c in the plane of unit vectors u and w, radius rad. */
static void world_circle(render_ctx *r, const float c[3], const float u[3], const float w[3],
                         float rad, uint32_t rgba) {
    float prev[3] = {0, 0, 0}, cur[3]; /* prev is set at i = 0 before its first use */
    for (int i = 0; i <= CIRCLE_SEGS; i++) {
        float a = 2.0f * GLM_PIf * (float)i / CIRCLE_SEGS;
        for (int j = 0; j < 3; j++) cur[j] = c[j] + rad * (cosf(a) * u[j] + sinf(a) * w[j]);
        if (i) render_world_line(r, prev, cur, rgba);
        memcpy(prev, cur, sizeof prev);
    }
}

void render_world_circle(render_ctx *r, const float c[3], float radius, uint32_t rgba) {
    world_circle(r, c, r->view.right, r->view.up, radius, rgba);
}

void render_world_cone(render_ctx *r, const boids_params *p, const float pos[3],
                       const float vel[3]) {
    const uint32_t col = 0x8fb4ffd0;
    float R = (float)p->vision_radius;
    vec3 f, s, u;
    glm_vec3_normalize_to((float *)vel, f);
    if (glm_vec3_norm2(f) == 0) f[0] = 1;
    /* any two unit vectors across the heading */
    vec3 ref = {0, fabsf(f[1]) < 0.9f ? -1.0f : 0.0f, fabsf(f[1]) < 0.9f ? 0.0f : 1.0f};
    glm_vec3_crossn(ref, f, s);
    glm_vec3_cross(f, s, u);
    double half = p->model == BOIDS_MODEL_VICSEK ? M_PI : p->fov * M_PI / 360.0;
    if (half >= M_PI) {
        /* sees all round: the vision sphere */
        world_circle(r, pos, s, u, R, col);
        world_circle(r, pos, f, s, R, col);
        world_circle(r, pos, f, u, R, col);
        return;
    }
    /* the rim at angle `half` from the heading, and the generators to it */
    float along = R * (float)cos(half), across = R * (float)sin(half);
    float rim[3];
    for (int j = 0; j < 3; j++) rim[j] = pos[j] + along * f[j];
    world_circle(r, rim, s, u, across, col);
    for (int i = 0; i < 12; i++) {
        float a = 2.0f * GLM_PIf * (float)i / 12, end[3];
        for (int j = 0; j < 3; j++) end[j] = rim[j] + across * (cosf(a) * s[j] + sinf(a) * u[j]);
        render_world_line(r, pos, end, col);
    }
}

/* A batch's count vertices (bytes of data) drawn as mode from its stream buffer of
 * capacity bytes, whose storage is orphaned first so that the driver need not wait for the
 * previous frame's draw. */
static void stream_draw(unsigned vao, unsigned vbo, size_t capacity, const void *data, size_t bytes,
                        unsigned mode, size_t count) {
    glBindVertexArray(vao);
    glBindBuffer(GL_ARRAY_BUFFER, vbo);
    glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)capacity, NULL, GL_STREAM_DRAW);
    glBufferSubData(GL_ARRAY_BUFFER, 0, (GLsizeiptr)bytes, data);
    glDrawArrays(mode, 0, (int)count);
    glBindVertexArray(0);
}

/* The queued world lines, depth-tested and fogged, under the overlay. */
static void flush_lines(render_ctx *r) {
    if (r->nlines == 0) return;
    glUseProgram(r->line_prog);
    glUniformMatrix4fv(r->l_view_proj, 1, GL_FALSE, r->view.view_proj);
    render_fog_uniforms(r->l_eye, r->l_background, r->l_fog_near, r->l_fog_range, &r->look,
                        &r->view);
    glEnable(GL_DEPTH_TEST);
    glEnable(GL_BLEND);
    glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
    stream_draw(r->line_vao, r->line_vbo, LINE_MAX_VERTS * sizeof(line_vert), r->lines,
                r->nlines * sizeof(line_vert), GL_LINES, r->nlines);
    glDisable(GL_BLEND);
    glDisable(GL_DEPTH_TEST);
    r->nlines = 0;
}

void render_flush(render_ctx *r) {
    flush_lines(r);
    if (r->nverts == 0) return;
    glEnable(GL_BLEND);
    glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
    glUseProgram(r->ui_prog);
    glUniform2f(r->u_viewport, r->vw, r->vh);
    stream_draw(r->ui_vao, r->ui_vbo, UI_MAX_VERTS * sizeof(ui_vert), r->verts,
                r->nverts * sizeof(ui_vert), GL_TRIANGLES, r->nverts);
    glDisable(GL_BLEND);
    r->nverts = 0;
}
