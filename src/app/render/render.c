/* SPDX-License-Identifier: MIT */
#include "render.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glad/gl.h>

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

const char *const render_colour_names[RENDER_COLOURS + 1] = {"heading", "speed", "plain", NULL};
const char *const render_shape_names[RENDER_SHAPES + 1] = {"dart", "needle", "kite", NULL};
const char *const render_density_names[RENDER_DENSITIES + 1] = {"auto", "off", "on", NULL};
const char *const render_clean_names[RENDER_CLEANS + 1] = {"off", "on", "all", NULL};

/* The overlay batch has a fixed capacity so that a frame never allocates: a viewer left
 * running for days keeps the memory it had after its first frame. Shapes past the capacity
 * are dropped (the panel and HUD use a small fraction of it). */
enum { UI_MAX_VERTS = 3 * 65536 };

typedef struct ui_vert {
    float x, y;
    uint32_t rgba; /* bytes R, G, B, A in memory order */
} ui_vert;

struct render_ctx {
    unsigned boid_prog, ui_prog;
    unsigned boid_vao, corner_vbo;
    unsigned pull_vao, tex_states, tex_ids, tex_seen; /* vertex pulling: buffer textures */
    int max_texels;                                   /* GL_MAX_TEXTURE_BUFFER_SIZE */
    int force_instanced;                              /* BOIDS_DRAW=instanced (comparisons) */
    unsigned ui_vao, ui_vbo;
    ui_vert *verts;
    size_t nverts;
    float vw, vh;
    /* Uniform locations. */
    int b_viewport, b_center, b_scale, b_size, b_colour, b_min_speed, b_max_speed, b_follow,
        b_follow_id, b_pull, b_palette, b_stops, b_plain, b_shape, b_alpha;
    int u_viewport;
    render_look look;
    /* The accumulation layer of trails and density. */
    unsigned layer_prog, layer_fbo, layer_tex;
    int layer_w, layer_h, layer_fresh, layer_on, layer_density, layer_prev;
    int software; /* llvmpipe and the like: density is not automatic there */
    int l_mode, l_colour;
};

unsigned render_program(const char *const *names, int count, boids_error *err) {
    unsigned prog = glCreateProgram();
    for (int i = 0; i < count; i++) {
        unsigned sh;
        if (boids_gpu_compile(boids_view_shaders, names[i], &sh, err)) {
            glDeleteProgram(prog);
            return 0;
        }
        glAttachShader(prog, sh);
        glDeleteShader(sh); /* freed with the program */
    }
    glLinkProgram(prog);
    int ok = 0;
    glGetProgramiv(prog, GL_LINK_STATUS, &ok);
    if (!ok) {
        char log[512];
        glGetProgramInfoLog(prog, sizeof log, NULL, log);
        glDeleteProgram(prog);
        boids_error_set(err, BOIDS_ERR_RUNTIME, "linking shaders/%s: %s", names[0], log);
        return 0;
    }
    return prog;
}

double render_default_length(const boids_params *p) {
    return 0.14 * p->vision_radius;
}

render_camera render_camera_fit(double width, double height, int fb_w, int fb_h, double margin) {
    render_camera c;
    double aw = fb_w - 2 * margin, ah = fb_h - 2 * margin;
    if (aw < 1) aw = 1;
    if (ah < 1) ah = 1;
    c.cx = width / 2;
    c.cy = height / 2;
    c.scale = fmin(aw / width, ah / height);
    c.fb_w = fb_w;
    c.fb_h = fb_h;
    return c;
}

void render_world_to_px(const render_camera *c, double x, double y, double *px, double *py) {
    *px = (x - c->cx) * c->scale + 0.5 * c->fb_w;
    *py = (y - c->cy) * c->scale + 0.5 * c->fb_h;
}

void render_px_to_world(const render_camera *c, double px, double py, double *x, double *y) {
    *x = (px - 0.5 * c->fb_w) / c->scale + c->cx;
    *y = (py - 0.5 * c->fb_h) / c->scale + c->cy;
}

/* Uniform locations of the boid program, and its three buffer textures' units. */
static void boid_uniforms(render_ctx *r) {
    unsigned p = r->boid_prog;
    r->b_viewport = glGetUniformLocation(p, "u_viewport");
    r->b_center = glGetUniformLocation(p, "u_center");
    r->b_scale = glGetUniformLocation(p, "u_scale");
    r->b_size = glGetUniformLocation(p, "u_size_px");
    r->b_colour = glGetUniformLocation(p, "u_colour");
    r->b_min_speed = glGetUniformLocation(p, "u_min_speed");
    r->b_max_speed = glGetUniformLocation(p, "u_max_speed");
    r->b_follow = glGetUniformLocation(p, "u_follow");
    r->b_follow_id = glGetUniformLocation(p, "u_follow_id");
    r->b_pull = glGetUniformLocation(p, "u_pull");
    r->b_palette = glGetUniformLocation(p, "u_palette");
    r->b_stops = glGetUniformLocation(p, "u_stops");
    r->b_plain = glGetUniformLocation(p, "u_plain");
    r->b_shape = glGetUniformLocation(p, "u_shape");
    r->b_alpha = glGetUniformLocation(p, "u_alpha");
    glUseProgram(p);
    glUniform1i(glGetUniformLocation(p, "u_states"), 0);
    glUniform1i(glGetUniformLocation(p, "u_ids"), 1);
    glUniform1i(glGetUniformLocation(p, "u_seen"), 2);
    glUseProgram(0);
}

/* The instanced path's vertex array: the dart's corners per vertex, state, id and the
 * follow marks per instance. */
static void instanced_vao(render_ctx *r) {
    /* A dart pointing along +x, one unit long, centred on the boid's position. */
    static const float corners[] = {0.6f, 0.0f, -0.4f, 0.32f, -0.4f, -0.32f};
    glGenVertexArrays(1, &r->boid_vao);
    glGenBuffers(1, &r->corner_vbo);
    glBindVertexArray(r->boid_vao);
    glBindBuffer(GL_ARRAY_BUFFER, r->corner_vbo);
    glBufferData(GL_ARRAY_BUFFER, sizeof corners, corners, GL_STATIC_DRAW);
    /* Separate attribute format and buffer bindings (GL 4.3) so that the state buffers,
     * whose names change with every step, are rebound per draw without redefining
     * formats. */
    glVertexAttribFormat(0, 2, GL_FLOAT, GL_FALSE, 0);
    glVertexAttribBinding(0, 0);
    glBindVertexBuffer(0, r->corner_vbo, 0, 2 * sizeof(float));
    glEnableVertexAttribArray(0);
    glVertexAttribFormat(1, 4, GL_FLOAT, GL_FALSE, 0);
    glVertexAttribBinding(1, 1);
    glVertexBindingDivisor(1, 1);
    glEnableVertexAttribArray(1);
    glVertexAttribIFormat(2, 1, GL_UNSIGNED_INT, 0);
    glVertexAttribBinding(2, 2);
    glVertexBindingDivisor(2, 1);
    glEnableVertexAttribArray(2);
    glVertexAttribIFormat(3, 1, GL_UNSIGNED_INT, 0);
    glVertexAttribBinding(3, 3);
    glVertexBindingDivisor(3, 1);
    glEnableVertexAttribArray(3);
}

/* A vertex array over a stream buffer of bytes bytes whose vertices are dims floats of
 * position (attribute 0) and the colour bytes at rgba_at (attribute 1, normalised), stride
 * bytes apart: the 2-D overlay's and the 3-D lines' batches. */
void render_stream_vao(unsigned *vao, unsigned *vbo, size_t bytes, int dims, size_t stride,
                       size_t rgba_at) {
    glGenVertexArrays(1, vao);
    glGenBuffers(1, vbo);
    glBindVertexArray(*vao);
    glBindBuffer(GL_ARRAY_BUFFER, *vbo);
    glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)bytes, NULL, GL_STREAM_DRAW);
    glVertexAttribPointer(0, dims, GL_FLOAT, GL_FALSE, (GLsizei)stride, (void *)0);
    glEnableVertexAttribArray(0);
    glVertexAttribPointer(1, 4, GL_UNSIGNED_BYTE, GL_TRUE, (GLsizei)stride, (void *)rgba_at);
    glEnableVertexAttribArray(1);
    glBindVertexArray(0);
}

/* The overlay's vertex array over its fixed-size stream buffer. */
static void overlay_vao(render_ctx *r) {
    render_stream_vao(&r->ui_vao, &r->ui_vbo, UI_MAX_VERTS * sizeof(ui_vert), 2, sizeof(ui_vert),
                      offsetof(ui_vert, rgba));
}

int render_software(const render_ctx *r) {
    return r->software;
}

render_ctx *render_create(boids_error *err) {
    render_ctx *r = calloc(1, sizeof *r);
    if (!r) {
        boids_error_set(err, BOIDS_ERR_NOMEM, "out of memory for the renderer");
        return NULL;
    }
    r->verts = malloc(UI_MAX_VERTS * sizeof *r->verts);
    if (!r->verts) {
        free(r);
        boids_error_set(err, BOIDS_ERR_NOMEM, "out of memory for the renderer");
        return NULL;
    }
    static const char *const boid_names[] = {"boid.vert", "boid.frag"};
    static const char *const ui_names[] = {"ui.vert", "ui.frag"};
    static const char *const layer_names[] = {"layer.vert", "layer.frag"};
    if (!(r->boid_prog = render_program(boid_names, 2, err)) ||
        !(r->ui_prog = render_program(ui_names, 2, err)) ||
        !(r->layer_prog = render_program(layer_names, 2, err))) {
        render_destroy(r);
        return NULL;
    }
    boid_uniforms(r);
    r->l_mode = glGetUniformLocation(r->layer_prog, "u_mode");
    r->l_colour = glGetUniformLocation(r->layer_prog, "u_colour");
    r->look = render_look_default();
    const char *renderer = (const char *)glGetString(GL_RENDERER);
    r->software = renderer && (strstr(renderer, "llvmpipe") || strstr(renderer, "softpipe") ||
                               strstr(renderer, "SwiftShader"));
    r->u_viewport = glGetUniformLocation(r->ui_prog, "u_viewport");
    glGetIntegerv(GL_MAX_TEXTURE_BUFFER_SIZE, &r->max_texels);
    const char *draw = getenv("BOIDS_DRAW");
    r->force_instanced = draw && !strcmp(draw, "instanced");
    glGenVertexArrays(1, &r->pull_vao);
    glGenTextures(1, &r->tex_states);
    glGenTextures(1, &r->tex_ids);
    glGenTextures(1, &r->tex_seen);
    instanced_vao(r);
    overlay_vao(r);
    return r;
}

void render_destroy(render_ctx *r) {
    if (!r) return;
    if (r->boid_prog) glDeleteProgram(r->boid_prog);
    if (r->ui_prog) glDeleteProgram(r->ui_prog);
    if (r->layer_prog) glDeleteProgram(r->layer_prog);
    if (r->layer_fbo) glDeleteFramebuffers(1, &r->layer_fbo);
    if (r->layer_tex) glDeleteTextures(1, &r->layer_tex);
    if (r->boid_vao) glDeleteVertexArrays(1, &r->boid_vao);
    if (r->pull_vao) glDeleteVertexArrays(1, &r->pull_vao);
    if (r->tex_states) glDeleteTextures(1, &r->tex_states);
    if (r->tex_ids) glDeleteTextures(1, &r->tex_ids);
    if (r->tex_seen) glDeleteTextures(1, &r->tex_seen);
    if (r->ui_vao) glDeleteVertexArrays(1, &r->ui_vao);
    if (r->corner_vbo) glDeleteBuffers(1, &r->corner_vbo);
    if (r->ui_vbo) glDeleteBuffers(1, &r->ui_vbo);
    free(r->verts);
    free(r);
}

void render_set_look(render_ctx *r, const render_look *look) {
    r->look = *look;
    r->layer_fresh = 1;
}

const render_look *render_get_look(const render_ctx *r) {
    return &r->look;
}

void render_begin(render_ctx *r, const render_camera *cam) {
    r->vw = (float)cam->fb_w;
    r->vh = (float)cam->fb_h;
    r->nverts = 0;
    glViewport(0, 0, cam->fb_w, cam->fb_h);
    const float *bg = r->look.background;
    glClearColor(bg[0], bg[1], bg[2], 1.0f);
    glClear(GL_COLOR_BUFFER_BIT);
}

/* ---- the accumulation layer ------------------------------------------------------------ */

void render_layer_reset(render_ctx *r) {
    r->layer_fresh = 1;
}

/* The layer's texture and framebuffer at w x h; 0 if the device cannot render to it. */
static int layer_ready(render_ctx *r, int w, int h) {
    if (r->layer_fbo && r->layer_w == w && r->layer_h == h) return 1;
    if (!r->layer_fbo) {
        glGenFramebuffers(1, &r->layer_fbo);
        glGenTextures(1, &r->layer_tex);
    }
    glBindTexture(GL_TEXTURE_2D, r->layer_tex);
    /* Half floats: a trail fading by a few percent a frame goes all the way down, where
     * 8 bits would leave a permanent ghost once a step rounds to no change. */
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA16F, w, h, 0, GL_RGBA, GL_FLOAT, NULL);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    glBindTexture(GL_TEXTURE_2D, 0);
    GLint prev = 0;
    glGetIntegerv(GL_DRAW_FRAMEBUFFER_BINDING, &prev);
    glBindFramebuffer(GL_DRAW_FRAMEBUFFER, r->layer_fbo);
    glFramebufferTexture2D(GL_DRAW_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, r->layer_tex,
                           0);
    int ok = glCheckFramebufferStatus(GL_DRAW_FRAMEBUFFER) == GL_FRAMEBUFFER_COMPLETE;
    glBindFramebuffer(GL_DRAW_FRAMEBUFFER, (unsigned)prev);
    r->layer_w = ok ? w : 0;
    r->layer_h = ok ? h : 0;
    r->layer_fresh = 1;
    return ok;
}

static void layer_fill(render_ctx *r, int mode, const float *rgb) {
    glUseProgram(r->layer_prog);
    glUniform1i(r->l_mode, mode);
    glUniform4f(r->l_colour, rgb[0], rgb[1], rgb[2], 1.0f);
    glBindVertexArray(r->pull_vao); /* no attributes: the triangle comes from gl_VertexID */
    glDrawArrays(GL_TRIANGLES, 0, 3);
    glBindVertexArray(0);
}

int render_density_on(const render_ctx *r, size_t n) {
    /* A software rasteriser pays about 60% more frame time for the layer's two full-screen
     * passes and the blending at 100,000 boids (llvmpipe, 1280 x 800): asked for only. */
    const render_look *l = &r->look;
    return l->density == RENDER_DENSITY_ON ||
           (l->density == RENDER_DENSITY_AUTO && n >= RENDER_DENSITY_N && !r->software);
}

int render_layer_begin(render_ctx *r, const render_camera *cam, size_t n) {
    const render_look *l = &r->look;
    r->layer_density = render_density_on(r, n);
    r->layer_on = (l->trail > 0 || r->layer_density) && layer_ready(r, cam->fb_w, cam->fb_h);
    if (!r->layer_on) return 0;
    glGetIntegerv(GL_DRAW_FRAMEBUFFER_BINDING, &r->layer_prev);
    glBindFramebuffer(GL_DRAW_FRAMEBUFFER, r->layer_fbo);
    /* Fade: layer = fill * (1 - keep) + layer * keep, towards the background (opaque boids)
     * or towards no light (density). */
    float keep = r->layer_fresh || l->trail <= 0 ? 0.0f : (float)exp(-1.0 / l->trail);
    static const float dark[3] = {0, 0, 0};
    glEnable(GL_BLEND);
    glBlendColor(0, 0, 0, keep);
    glBlendFunc(GL_ONE_MINUS_CONSTANT_ALPHA, GL_CONSTANT_ALPHA);
    layer_fill(r, 0, r->layer_density ? dark : l->background);
    glDisable(GL_BLEND);
    r->layer_fresh = 0;
    return 1;
}

void render_layer_end(render_ctx *r) {
    if (!r->layer_on) return;
    r->layer_on = 0;
    glBindFramebuffer(GL_DRAW_FRAMEBUFFER, (unsigned)r->layer_prev);
    glActiveTexture(GL_TEXTURE0);
    glBindTexture(GL_TEXTURE_2D, r->layer_tex);
    glUseProgram(r->layer_prog);
    glUniform1i(glGetUniformLocation(r->layer_prog, "u_layer"), 0);
    layer_fill(r, r->layer_density ? 2 : 1, r->look.background);
    glBindTexture(GL_TEXTURE_2D, 0);
}

/* The look's part of the boid program's uniforms, and in density mode additive blending:
 * each boid adds half its colour's light to the layer (render_layer_begin). */
static void look_uniforms(render_ctx *r) {
    static const float shapes[RENDER_SHAPES][2] = {{1, 1}, {1.25f, 0.4f}, {0.8f, 1.6f}};
    const render_look *l = &r->look;
    glUniform1i(r->b_palette, l->palette);
    glUniform3fv(r->b_stops, 3, &l->stops[0][0]);
    glUniform3fv(r->b_plain, 1, l->plain);
    int s = l->shape >= 0 && l->shape < RENDER_SHAPES ? l->shape : 0;
    glUniform2f(r->b_shape, shapes[s][0], shapes[s][1]);
    int additive = r->layer_on && r->layer_density;
    glUniform1f(r->b_alpha, additive ? 0.5f : 1.0f);
    if (additive) {
        glEnable(GL_BLEND);
        glBlendFunc(GL_SRC_ALPHA, GL_ONE);
    }
}

void render_draw_flock(render_ctx *r, const render_camera *cam, const boids_params *p,
                       const render_flock *f) {
    if (f->n == 0) return;
    glUseProgram(r->boid_prog);
    glUniform2f(r->b_viewport, (float)cam->fb_w, (float)cam->fb_h);
    glUniform2f(r->b_center, (float)cam->cx, (float)cam->cy);
    glUniform1f(r->b_scale, (float)cam->scale);
    glUniform1f(r->b_size, (float)fmax(f->length * cam->scale, f->min_px));
    glUniform1i(r->b_colour, (int)f->colour);
    glUniform1f(r->b_min_speed, (float)p->min_speed);
    glUniform1f(r->b_max_speed, (float)p->max_speed);
    glUniform1i(r->b_follow, f->follow);
    glUniform1ui(r->b_follow_id, f->follow_id);
    look_uniforms(r);
    /* Not following, the marks are not read; the id buffer (as many uints) stands in for
     * them so that every enabled attribute has a buffer. */
    unsigned seen = f->follow ? f->seen_buf : f->id_buf;
    /* Vertex pulling draws 3 N vertices: it needs N texels and 3 N below INT_MAX. */
    int pull = f->n <= (size_t)r->max_texels && f->n < 700000000u && !r->force_instanced;
    glUniform1i(r->b_pull, pull);
    if (pull) {
        glActiveTexture(GL_TEXTURE0);
        glBindTexture(GL_TEXTURE_BUFFER, r->tex_states);
        glTexBuffer(GL_TEXTURE_BUFFER, GL_RGBA32F, f->state_buf);
        glActiveTexture(GL_TEXTURE1);
        glBindTexture(GL_TEXTURE_BUFFER, r->tex_ids);
        glTexBuffer(GL_TEXTURE_BUFFER, GL_R32UI, f->id_buf);
        glActiveTexture(GL_TEXTURE2);
        glBindTexture(GL_TEXTURE_BUFFER, r->tex_seen);
        glTexBuffer(GL_TEXTURE_BUFFER, GL_R32UI, seen);
        glActiveTexture(GL_TEXTURE0);
        glBindVertexArray(r->pull_vao);
        glDrawArrays(GL_TRIANGLES, 0, (int)(3 * f->n));
    } else {
        glBindVertexArray(r->boid_vao);
        glBindVertexBuffer(1, f->state_buf, 0, 4 * sizeof(float));
        glBindVertexBuffer(2, f->id_buf, 0, sizeof(uint32_t));
        glBindVertexBuffer(3, seen, 0, sizeof(uint32_t));
        glDrawArraysInstanced(GL_TRIANGLES, 0, 3, (int)f->n);
    }
    glBindVertexArray(0);
    glDisable(GL_BLEND);
}

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

void render_flush(render_ctx *r) {
    if (r->nverts == 0) return;
    glEnable(GL_BLEND);
    glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
    glUseProgram(r->ui_prog);
    glUniform2f(r->u_viewport, r->vw, r->vh);
    glBindVertexArray(r->ui_vao);
    glBindBuffer(GL_ARRAY_BUFFER, r->ui_vbo);
    /* Orphan the storage so the driver need not wait for the previous frame's draw. */
    glBufferData(GL_ARRAY_BUFFER, UI_MAX_VERTS * sizeof(ui_vert), NULL, GL_STREAM_DRAW);
    glBufferSubData(GL_ARRAY_BUFFER, 0, (long)(r->nverts * sizeof(ui_vert)), r->verts);
    glDrawArrays(GL_TRIANGLES, 0, (int)r->nverts);
    glBindVertexArray(0);
    glDisable(GL_BLEND);
    r->nverts = 0;
}

void render_read_pixels(int w, int h, unsigned char *pixels) {
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glReadPixels(0, 0, w, h, GL_RGBA, GL_UNSIGNED_BYTE, pixels);
    /* GL's rows go bottom to top; images go top to bottom. */
    size_t row = (size_t)w * 4;
    unsigned char tmp[4 * 4096];
    for (int y = 0; y < h / 2; y++) {
        unsigned char *a = pixels + (size_t)y * row, *b = pixels + (size_t)(h - 1 - y) * row;
        for (size_t off = 0; off < row; off += sizeof tmp) {
            size_t len = row - off < sizeof tmp ? row - off : sizeof tmp;
            memcpy(tmp, a + off, len);
            memcpy(a + off, b + off, len);
            memcpy(b + off, tmp, len);
        }
    }
    /* The framebuffer's alpha is whatever blending left; images are opaque. */
    for (size_t i = 3; i < row * (size_t)h; i += 4) pixels[i] = 255;
}
