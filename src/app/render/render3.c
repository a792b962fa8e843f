/* SPDX-License-Identifier: MIT */
/* Drawing a 3-D flock (render.h, "3-D"): boids by vertex pulling from the 3-D state
 * buffers, and world-space lines for the box, the vision cone and the points. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cglm/cglm.h>
#include <glad/gl.h>

#include "camera3.h"
#include "render.h"

/* The line batch has a fixed capacity so that a frame never allocates (render.c's overlay
 * does the same); the box, a cone and a few circles take a few hundred vertices. */
enum { LINE_MAX_VERTS = 16384, CIRCLE_SEGS = 48 };

typedef struct line_vert {
    float x, y, z;
    uint32_t rgba; /* bytes R, G, B, A in memory order */
} line_vert;

struct render3 {
    unsigned boid_prog, line_prog;
    unsigned pull_vao, tex[4]; /* positions, velocities, previous velocities, follow marks */
    int max_texels, align_texels;
    unsigned line_vao, line_vbo;
    line_vert verts[LINE_MAX_VERTS];
    size_t nverts;
    /* Uniform locations: the boid program's, then the line program's. */
    int b_base, b_view_proj, b_length, b_min_px, b_px_per_unit, b_bank_gain, b_shape, b_follow,
        b_follow_index, b_colour, b_min_speed, b_max_speed, b_palette, b_stops, b_plain, b_eye,
        b_background, b_fog_near, b_fog_range;
    int l_view_proj, l_eye, l_background, l_fog_near, l_fog_range;
};

render_view3 render_view3_make(const camera3 *c, int fb_w, int fb_h) {
    render_view3 v;
    memset(&v, 0, sizeof v);
    v.fb_w = fb_w;
    v.fb_h = fb_h;
    camera3_view_projection(c, fb_h > 0 ? (double)fb_w / fb_h : 1.0, v.view_proj);
    camera3_eye(c, v.eye);
    mat4 view;
    camera3_view(c, (float *)view);
    for (int i = 0; i < 3; i++) {
        v.right[i] = view[i][0]; /* the view matrix's rows are the camera's axes */
        v.up[i] = view[i][1];
    }
    v.px_per_unit = (float)fb_h / (2.0f * tanf(0.5f * c->fov_y));
    /* Fog starts where the world's bounding sphere begins and keeps a third of the light
     * across its diameter (2 r / ln 3): the near side of the flock is clear, the far side
     * visibly dimmer, at every zoom. */
    vec3 mid;
    glm_vec3_scale((float *)c->world, 0.5f, mid);
    float r = glm_vec3_norm(mid);
    v.fog_near = fmaxf(0.0f, glm_vec3_distance(v.eye, mid) - r);
    v.fog_range = 2.0f * r / logf(3.0f);
    return v;
}

static void boid_uniforms(render3 *t) {
    unsigned p = t->boid_prog;
    t->b_base = glGetUniformLocation(p, "u_base");
    t->b_view_proj = glGetUniformLocation(p, "u_view_proj");
    t->b_length = glGetUniformLocation(p, "u_length");
    t->b_min_px = glGetUniformLocation(p, "u_min_px");
    t->b_px_per_unit = glGetUniformLocation(p, "u_px_per_unit");
    t->b_bank_gain = glGetUniformLocation(p, "u_bank_gain");
    t->b_shape = glGetUniformLocation(p, "u_shape");
    t->b_follow = glGetUniformLocation(p, "u_follow");
    t->b_follow_index = glGetUniformLocation(p, "u_follow_index");
    t->b_colour = glGetUniformLocation(p, "u_colour");
    t->b_min_speed = glGetUniformLocation(p, "u_min_speed");
    t->b_max_speed = glGetUniformLocation(p, "u_max_speed");
    t->b_palette = glGetUniformLocation(p, "u_palette");
    t->b_stops = glGetUniformLocation(p, "u_stops");
    t->b_plain = glGetUniformLocation(p, "u_plain");
    t->b_eye = glGetUniformLocation(p, "u_eye");
    t->b_background = glGetUniformLocation(p, "u_background");
    t->b_fog_near = glGetUniformLocation(p, "u_fog_near");
    t->b_fog_range = glGetUniformLocation(p, "u_fog_range");
    glUseProgram(p);
    glUniform1i(glGetUniformLocation(p, "u_pos"), 0);
    glUniform1i(glGetUniformLocation(p, "u_vel"), 1);
    glUniform1i(glGetUniformLocation(p, "u_prev"), 2);
    glUniform1i(glGetUniformLocation(p, "u_seen"), 3);
    glUseProgram(0);
    unsigned l = t->line_prog;
    t->l_view_proj = glGetUniformLocation(l, "u_view_proj");
    t->l_eye = glGetUniformLocation(l, "u_eye");
    t->l_background = glGetUniformLocation(l, "u_background");
    t->l_fog_near = glGetUniformLocation(l, "u_fog_near");
    t->l_fog_range = glGetUniformLocation(l, "u_fog_range");
}

static void line_vao(render3 *t) {
    render_stream_vao(&t->line_vao, &t->line_vbo, sizeof t->verts, 3, sizeof(line_vert),
                      offsetof(line_vert, rgba));
}

render3 *render3_create(boids_error *err) {
    render3 *t = calloc(1, sizeof *t);
    if (!t) {
        boids_error_set(err, BOIDS_ERR_NOMEM, "out of memory for the 3-D renderer");
        return NULL;
    }
    static const char *const boid_names[] = {"boid3.vert", "boid3.frag"};
    static const char *const line_names[] = {"line3.vert", "line3.frag"};
    if (!(t->boid_prog = render_program(boid_names, 2, err)) ||
        !(t->line_prog = render_program(line_names, 2, err))) {
        render3_destroy(t);
        return NULL;
    }
    boid_uniforms(t);
    glGetIntegerv(GL_MAX_TEXTURE_BUFFER_SIZE, &t->max_texels);
    int align = 16;
    glGetIntegerv(GL_TEXTURE_BUFFER_OFFSET_ALIGNMENT, &align);
    /* a chunk's first texel must be aligned in the marks too: 4 bytes a texel there */
    t->align_texels = align > 4 ? align / 4 : 1;
    glGenVertexArrays(1, &t->pull_vao);
    glGenTextures(4, t->tex);
    line_vao(t);
    return t;
}

void render3_destroy(render3 *t) {
    if (!t) return;
    if (t->boid_prog) glDeleteProgram(t->boid_prog);
    if (t->line_prog) glDeleteProgram(t->line_prog);
    if (t->pull_vao) glDeleteVertexArrays(1, &t->pull_vao);
    if (t->tex[0]) glDeleteTextures(4, t->tex);
    if (t->line_vao) glDeleteVertexArrays(1, &t->line_vao);
    if (t->line_vbo) glDeleteBuffers(1, &t->line_vbo);
    free(t);
}

void render3_begin(render3 *t) {
    t->nverts = 0;
    glClear(GL_DEPTH_BUFFER_BIT);
}

static void fog_uniforms(int eye, int bg, int near_, int range, const render_look *look,
                         const render_view3 *v) {
    glUniform3fv(eye, 1, v->eye);
    glUniform3fv(bg, 1, look->background);
    glUniform1f(near_, v->fog_near);
    glUniform1f(range, v->fog_range);
}

static void flock_uniforms(render3 *t, const render_look *look, const render_view3 *v,
                           const boids_params *p, const render_flock3 *f) {
    static const float shapes[RENDER_SHAPES][2] = {{1, 1}, {1.25f, 0.4f}, {0.8f, 1.6f}};
    glUniformMatrix4fv(t->b_view_proj, 1, GL_FALSE, v->view_proj);
    glUniform1f(t->b_length, (float)f->length);
    glUniform1f(t->b_min_px, (float)f->min_px);
    glUniform1f(t->b_px_per_unit, v->px_per_unit);
    /* A boid at max_force turns by about max_force / max_speed radians a step (0.017 in the
     * seeds' units): gain that to a bank of about 40 degrees. */
    double turn = p->max_speed > 0 ? p->max_force / p->max_speed : 0;
    glUniform1f(t->b_bank_gain, turn > 0 ? (float)(0.7 / turn) : 0.0f);
    int s = look->shape >= 0 && look->shape < RENDER_SHAPES ? look->shape : 0;
    glUniform2f(t->b_shape, shapes[s][0], shapes[s][1]);
    glUniform1i(t->b_follow, f->follow && f->seen_buf);
    glUniform1i(t->b_follow_index, (int)f->follow_index);
    glUniform1i(t->b_colour, (int)f->colour);
    double vmax = p->model == BOIDS_MODEL_VICSEK ? p->speed : p->max_speed;
    double vmin = p->model == BOIDS_MODEL_VICSEK ? 0 : p->min_speed;
    glUniform1f(t->b_min_speed, (float)vmin);
    glUniform1f(t->b_max_speed, (float)vmax);
    glUniform1i(t->b_palette, look->palette);
    glUniform3fv(t->b_stops, 3, &look->stops[0][0]);
    glUniform3fv(t->b_plain, 1, look->plain);
    fog_uniforms(t->b_eye, t->b_background, t->b_fog_near, t->b_fog_range, look, v);
}

void render3_draw_flock(render3 *t, const render_look *look, const render_view3 *v,
                        const boids_params *p, const render_flock3 *f) {
    if (f->n == 0) return;
    glUseProgram(t->boid_prog);
    flock_uniforms(t, look, v, p, f);
    glEnable(GL_DEPTH_TEST);
    glBindVertexArray(t->pull_vao);
    /* A buffer texture holds at most max_texels: a larger flock is drawn in chunks, each a
     * range of the buffers starting at an aligned texel. */
    size_t chunk = (size_t)t->max_texels - (size_t)t->max_texels % (size_t)t->align_texels;
    if (chunk > 100000000u) chunk = 100000000u; /* 12 vertices a boid stay below INT_MAX */
    /* without marks the positions stand in, never read (u_follow is 0) */
    const int marks = f->follow && f->seen_buf;
    const unsigned bufs[4] = {f->pos_buf, f->vel_buf, f->prev_vel_buf,
                              marks ? f->seen_buf : f->pos_buf};
    for (size_t base = 0; base < f->n; base += chunk) {
        size_t count = f->n - base < chunk ? f->n - base : chunk;
        for (int k = 0; k < 4; k++) {
            const size_t bytes = k < 3 ? 16 : 4;
            glActiveTexture(GL_TEXTURE0 + (unsigned)k);
            glBindTexture(GL_TEXTURE_BUFFER, t->tex[k]);
            glTexBufferRange(GL_TEXTURE_BUFFER, k < 3 ? GL_RGBA32F : GL_R32UI, bufs[k],
                             (GLintptr)(base * bytes), (GLsizeiptr)(count * bytes));
        }
        glUniform1i(t->b_base, (int)base);
        glDrawArrays(GL_TRIANGLES, 0, (int)(12 * count));
    }
    glActiveTexture(GL_TEXTURE0);
    glBindVertexArray(0);
    glDisable(GL_DEPTH_TEST);
}

void render3_line(render3 *t, const float a[3], const float b[3], uint32_t rgba) {
    if (t->nverts + 2 > LINE_MAX_VERTS) return;
    uint32_t c = render_pack_rgba(rgba);
    t->verts[t->nverts++] = (line_vert){a[0], a[1], a[2], c};
    t->verts[t->nverts++] = (line_vert){b[0], b[1], b[2], c};
}

void render3_box(render3 *t, const float s[3], int boundary) {
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
            render3_line(t, a, b, col);
        }
}

/* A circle about c in the plane of unit vectors u and w, radius r. */
static void circle(render3 *t, const float c[3], const float u[3], const float w[3], float r,
                   uint32_t rgba) {
    float prev[3] = {0, 0, 0}, cur[3]; /* prev is set at i = 0 before its first use */
    for (int i = 0; i <= CIRCLE_SEGS; i++) {
        float a = 2.0f * GLM_PIf * (float)i / CIRCLE_SEGS;
        for (int j = 0; j < 3; j++) cur[j] = c[j] + r * (cosf(a) * u[j] + sinf(a) * w[j]);
        if (i) render3_line(t, prev, cur, rgba);
        memcpy(prev, cur, sizeof prev);
    }
}

void render3_circle(render3 *t, const render_view3 *v, const float c[3], float r, uint32_t rgba) {
    circle(t, c, v->right, v->up, r, rgba);
}

void render3_cone(render3 *t, const boids_params *p, const float pos[3], const float vel[3]) {
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
        circle(t, pos, s, u, R, col);
        circle(t, pos, f, s, R, col);
        circle(t, pos, f, u, R, col);
        return;
    }
    /* the rim at angle `half` from the heading, and the generators to it */
    float along = R * (float)cos(half), across = R * (float)sin(half);
    float rim[3];
    for (int j = 0; j < 3; j++) rim[j] = pos[j] + along * f[j];
    circle(t, rim, s, u, across, col);
    for (int i = 0; i < 12; i++) {
        float a = 2.0f * GLM_PIf * (float)i / 12, end[3];
        for (int j = 0; j < 3; j++) end[j] = rim[j] + across * (cosf(a) * s[j] + sinf(a) * u[j]);
        render3_line(t, pos, end, col);
    }
}

void render3_flush(render3 *t, const render_look *look, const render_view3 *v) {
    if (t->nverts == 0) return;
    glUseProgram(t->line_prog);
    glUniformMatrix4fv(t->l_view_proj, 1, GL_FALSE, v->view_proj);
    fog_uniforms(t->l_eye, t->l_background, t->l_fog_near, t->l_fog_range, look, v);
    glEnable(GL_DEPTH_TEST);
    glEnable(GL_BLEND);
    glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
    glBindVertexArray(t->line_vao);
    glBindBuffer(GL_ARRAY_BUFFER, t->line_vbo);
    glBufferData(GL_ARRAY_BUFFER, sizeof t->verts, NULL, GL_STREAM_DRAW);
    glBufferSubData(GL_ARRAY_BUFFER, 0, (long)(t->nverts * sizeof(line_vert)), t->verts);
    glDrawArrays(GL_LINES, 0, (int)t->nverts);
    glBindVertexArray(0);
    glDisable(GL_BLEND);
    glDisable(GL_DEPTH_TEST);
    t->nverts = 0;
}
