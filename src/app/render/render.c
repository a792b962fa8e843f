/* SPDX-License-Identifier: MIT */
#include "render/render.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cglm/cglm.h>
#include <glad/gl.h>

#include "render/camera3.h"
#include "render/render_internal.h"

const char *const render_colour_names[RENDER_COLOURS + 1] = {"heading", "speed", "plain", NULL};
const char *const render_shape_names[RENDER_SHAPES + 1] = {"dart", "needle", "kite", NULL};
const char *const render_density_names[RENDER_DENSITIES + 1] = {"auto", "off", "on", NULL};
const char *const render_clean_names[RENDER_CLEANS + 1] = {"off", "on", "all", NULL};
unsigned render_program(const char *const *names, int count, int dim, boids_error *err) {
    unsigned prog = glCreateProgram();
    for (int i = 0; i < count; i++) {
        unsigned sh;
        if (boids_gpu_compile_dim(boids_view_shaders, names[i], dim, &sh, err)) {
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

void *render_calloc(size_t size, const char *msg, boids_error *err) {
    void *p = calloc(1, size);
    if (!p) boids_error_set(err, BOIDS_ERR_NOMEM, "%s", msg);
    return p;
}

boids_status render_buffers_alloc(const unsigned *bufs, int count, size_t bytes, const char *what,
                                  size_t n, boids_error *err) {
    while (glGetError() != GL_NO_ERROR) continue;
    for (int k = 0; k < count; k++) {
        glBindBuffer(GL_SHADER_STORAGE_BUFFER, bufs[k]);
        glBufferData(GL_SHADER_STORAGE_BUFFER, (GLsizeiptr)bytes, NULL, GL_DYNAMIC_COPY);
    }
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, 0);
    if (glGetError() != GL_NO_ERROR)
        return boids_error_set(err, BOIDS_ERR_NOMEM, "out of GPU memory for %s of %zu boids", what,
                               n);
    return BOIDS_OK;
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

/* Uniform locations of the boid program, and its buffer textures' units: the state's
 * (the plane: one; the box: positions, velocities, the previous velocities), then the
 * marks'. */
static void boid_uniforms(render_ctx *r) {
    unsigned p = r->boid_prog;
    boid_uniform_locs *b = &r->b;
    static const struct {
        const char *name;
        size_t at;
    } locs[] = {
#define LOC(field, name) {name, offsetof(boid_uniform_locs, field)}
        LOC(colour, "u_colour"),
        LOC(species, "u_species"),
        LOC(sp_end, "u_sp_end"),
        LOC(min_speed, "u_min_speed"),
        LOC(max_speed, "u_max_speed"),
        LOC(follow, "u_follow"),
        LOC(follow_slot, "u_follow_slot"),
        LOC(palette, "u_palette"),
        LOC(stops, "u_stops"),
        LOC(plain, "u_plain"),
        LOC(shape, "u_shape"),
        LOC(viewport, "u_viewport"),
        LOC(center, "u_center"),
        LOC(scale, "u_scale"),
        LOC(size, "u_size_px"),
        LOC(pull, "u_pull"),
        LOC(alpha, "u_alpha"),
        LOC(base, "u_base"),
        LOC(view_proj, "u_view_proj"),
        LOC(length, "u_length"),
        LOC(min_px, "u_min_px"),
        LOC(px_per_unit, "u_px_per_unit"),
        LOC(bank_gain, "u_bank_gain"),
        LOC(eye, "u_eye"),
        LOC(background, "u_background"),
        LOC(fog_near, "u_fog_near"),
        LOC(fog_range, "u_fog_range"),
#undef LOC
    };
    for (size_t k = 0; k < sizeof locs / sizeof locs[0]; k++)
        *(int *)((char *)b + locs[k].at) = glGetUniformLocation(p, locs[k].name);
    static const char *const units[2][4] = {{"u_states", "u_seen"},
                                            {"u_pos", "u_vel", "u_prev", "u_seen"}};
    glUseProgram(p);
    for (int k = 0; k < 4 && units[r->dim == 3][k]; k++)
        glUniform1i(glGetUniformLocation(p, units[r->dim == 3][k]), k);
    glUniform1i(glGetUniformLocation(p, "u_ids"), 4);
    glUseProgram(0);
    if (r->dim != 3) return;
    unsigned l = r->line_prog;
    r->l_view_proj = glGetUniformLocation(l, "u_view_proj");
    r->l_eye = glGetUniformLocation(l, "u_eye");
    r->l_background = glGetUniformLocation(l, "u_background");
    r->l_fog_near = glGetUniformLocation(l, "u_fog_near");
    r->l_fog_range = glGetUniformLocation(l, "u_fog_range");
}

/* The plane's instanced path's vertex array: the dart's corners per vertex, the state and
 * the follow marks per instance. */
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

render_ctx *render_create(int dim, boids_error *err) {
    render_ctx *r = render_calloc(sizeof *r, "out of memory for the renderer", err);
    if (!r) return NULL;
    r->dim = dim == 3 ? 3 : 2;
    r->verts = malloc(UI_MAX_VERTS * sizeof *r->verts);
    r->lines = r->dim == 3 ? malloc(LINE_MAX_VERTS * sizeof *r->lines) : NULL;
    if (!r->verts || (r->dim == 3 && !r->lines)) {
        render_destroy(r);
        boids_error_set(err, BOIDS_ERR_NOMEM, "out of memory for the renderer");
        return NULL;
    }
    static const char *const boid_names[] = {"boid.vert", "boid.frag"};
    static const char *const ui_names[] = {"ui.vert", "ui.frag"};
    static const char *const layer_names[] = {"layer.vert", "layer.frag"};
    static const char *const line_names[] = {"line.vert", "line.frag"};
    if (!(r->boid_prog = render_program(boid_names, 2, r->dim, err)) ||
        !(r->ui_prog = render_program(ui_names, 2, 2, err)) ||
        !(r->layer_prog = render_program(layer_names, 2, 2, err)) ||
        (r->dim == 3 && !(r->line_prog = render_program(line_names, 2, 3, err)))) {
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
    int align = 16;
    glGetIntegerv(GL_TEXTURE_BUFFER_OFFSET_ALIGNMENT, &align);
    /* a chunk's first texel must be aligned in the marks too: 4 bytes a texel there */
    r->align_texels = align > 4 ? align / 4 : 1;
    const char *draw = getenv("BOIDS_DRAW");
    r->force_instanced = draw && !strcmp(draw, "instanced");
    glGenVertexArrays(1, &r->pull_vao);
    glGenTextures(5, r->tex);
    instanced_vao(r);
    overlay_vao(r);
    if (r->dim == 3)
        render_stream_vao(&r->line_vao, &r->line_vbo, LINE_MAX_VERTS * sizeof(line_vert), 3,
                          sizeof(line_vert), offsetof(line_vert, rgba));
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
    if (r->tex[0]) glDeleteTextures(5, r->tex);
    if (r->ui_vao) glDeleteVertexArrays(1, &r->ui_vao);
    if (r->corner_vbo) glDeleteBuffers(1, &r->corner_vbo);
    if (r->ui_vbo) glDeleteBuffers(1, &r->ui_vbo);
    if (r->line_prog) glDeleteProgram(r->line_prog);
    if (r->line_vao) glDeleteVertexArrays(1, &r->line_vao);
    if (r->line_vbo) glDeleteBuffers(1, &r->line_vbo);
    free(r->verts);
    free(r->lines);
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
    r->nlines = 0;
    r->cam = *cam;
    glViewport(0, 0, cam->fb_w, cam->fb_h);
    const float *bg = r->look.background;
    glClearColor(bg[0], bg[1], bg[2], 1.0f);
    /* the box is depth-tested: the framebuffer needs a depth buffer */
    glClear(r->dim == 3 ? GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT : GL_COLOR_BUFFER_BIT);
}

void render_set_view(render_ctx *r, const render_view3 *v) {
    r->view = *v;
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

/* The boid program's uniforms that both dimensions have: the look's, and following. */
static void look_uniforms(render_ctx *r, const render_flock *f) {
    static const float shapes[RENDER_SHAPES][2] = {{1, 1}, {1.25f, 0.4f}, {0.8f, 1.6f}};
    const render_look *l = &r->look;
    const boid_uniform_locs *b = &r->b;
    glUniform1i(b->colour, (int)f->colour);
    glUniform1i(b->follow, f->follow && f->seen_buf);
    glUniform1i(b->follow_slot, (int)f->follow_slot);
    glUniform1i(b->palette, l->palette);
    glUniform3fv(b->stops, 3, &l->stops[0][0]);
    glUniform3fv(b->plain, 1, l->plain);
    int s = l->shape >= 0 && l->shape < RENDER_SHAPES ? l->shape : 0;
    glUniform2f(b->shape, shapes[s][0], shapes[s][1]);
}

/* The species of p (palette.glsl): their number and the ends of their id ranges. */
static void species_uniforms(render_ctx *r, const boids_params *p) {
    GLuint end[BOIDS_MAX_SPECIES] = {0};
    unsigned long long e = 0;
    for (int s = 1; s < BOIDS_MAX_SPECIES && s < p->species; s++) {
        e += p->sp[s - 1].count > 0 ? (unsigned long long)p->sp[s - 1].count : 0;
        end[s] = e > UINT32_MAX ? UINT32_MAX : (GLuint)e;
    }
    glUniform1i(r->b.species, (int)p->species);
    glUniform1uiv(r->b.sp_end, BOIDS_MAX_SPECIES, end);
}

/* Buffer texture unit k over bytes [at, at + len) of buf, as texels of format. */
static void texels(const render_ctx *r, int k, unsigned format, unsigned buf, size_t at,
                   size_t len) {
    glActiveTexture(GL_TEXTURE0 + (unsigned)k);
    glBindTexture(GL_TEXTURE_BUFFER, r->tex[k]);
    glTexBufferRange(GL_TEXTURE_BUFFER, format, buf, (GLintptr)at, (GLsizeiptr)len);
}

/* ---- what differs by dimension: the plane's view in pixels, the box's camera ---------- */

/* The plane: a dart a boid, in pixels of the frame's camera, colour by speed from
 * min_speed to max_speed; in density mode with additive blending, each boid adding half
 * its colour's light to the layer (render_layer_begin). */
static void draw_plane(render_ctx *r, const boids_params *p, const render_flock *f) {
    const render_camera *cam = &r->cam;
    const boid_uniform_locs *b = &r->b;
    glUniform2f(b->viewport, (float)cam->fb_w, (float)cam->fb_h);
    glUniform2f(b->center, (float)cam->cx, (float)cam->cy);
    glUniform1f(b->scale, (float)cam->scale);
    glUniform1f(b->size, (float)fmax(f->length * cam->scale, f->min_px));
    glUniform1f(b->min_speed, (float)p->min_speed);
    glUniform1f(b->max_speed, (float)p->max_speed);
    int additive = r->layer_on && r->layer_density;
    glUniform1f(b->alpha, additive ? 0.5f : 1.0f);
    if (additive) {
        glEnable(GL_BLEND);
        glBlendFunc(GL_SRC_ALPHA, GL_ONE);
    }
    /* Not following, the marks are not read; the id buffer (as many uints) stands in for
     * them so that every enabled attribute has a buffer. */
    unsigned seen = f->follow ? f->seen_buf : f->id_buf;
    /* Vertex pulling draws 3 N vertices: it needs N texels and 3 N below INT_MAX. */
    int pull = f->n <= (size_t)r->max_texels && f->n < 700000000u && !r->force_instanced;
    glUniform1i(b->pull, pull);
    if (p->species > 1 && f->n <= (size_t)r->max_texels) { /* the ids, for species colours */
        texels(r, 4, GL_R32UI, f->id_buf, 0, 4 * f->n);
        glActiveTexture(GL_TEXTURE0);
    }
    if (pull) {
        texels(r, 0, GL_RGBA32F, f->state_buf, 0, 16 * f->n);
        texels(r, 1, GL_R32UI, seen, 0, 4 * f->n);
        glActiveTexture(GL_TEXTURE0);
        glBindVertexArray(r->pull_vao);
        glDrawArrays(GL_TRIANGLES, 0, (int)(3 * f->n));
    } else {
        glBindVertexArray(r->boid_vao);
        glBindVertexBuffer(1, f->state_buf, 0, 4 * sizeof(float));
        glBindVertexBuffer(3, seen, 0, sizeof(uint32_t));
        glDrawArraysInstanced(GL_TRIANGLES, 0, 3, (int)f->n);
    }
    glBindVertexArray(0);
    glDisable(GL_BLEND);
}

void render_fog_uniforms(int eye, int bg, int near_, int range, const render_look *look,
                         const render_view3 *v) {
    glUniform3fv(eye, 1, v->eye);
    glUniform3fv(bg, 1, look->background);
    glUniform1f(near_, v->fog_near);
    glUniform1f(range, v->fog_range);
}

/* The box: a banked body a boid through the camera, lit and fogged towards the look's
 * background, depth-tested; colour by speed over the model's range (Vicsek: 0 to its
 * speed). A buffer texture holds at most max_texels: a larger flock is drawn in chunks,
 * each a range of the buffers starting at an aligned texel. */
static void draw_box(render_ctx *r, const boids_params *p, const render_flock *f) {
    const render_view3 *v = &r->view;
    const boid_uniform_locs *b = &r->b;
    glUniformMatrix4fv(b->view_proj, 1, GL_FALSE, v->view_proj);
    glUniform1f(b->length, (float)f->length);
    glUniform1f(b->min_px, (float)f->min_px);
    glUniform1f(b->px_per_unit, v->px_per_unit);
    /* A boid at max_force turns by about max_force / max_speed radians a step (0.017 in the
     * seeds' units): gain that to a bank of about 40 degrees. */
    double turn = p->max_speed > 0 ? p->max_force / p->max_speed : 0;
    glUniform1f(b->bank_gain, turn > 0 ? (float)(0.7 / turn) : 0.0f);
    double vmax = p->model == BOIDS_MODEL_VICSEK ? p->speed : p->max_speed;
    double vmin = p->model == BOIDS_MODEL_VICSEK ? 0 : p->min_speed;
    glUniform1f(b->min_speed, (float)vmin);
    glUniform1f(b->max_speed, (float)vmax);
    render_fog_uniforms(b->eye, b->background, b->fog_near, b->fog_range, &r->look, v);
    glEnable(GL_DEPTH_TEST);
    glBindVertexArray(r->pull_vao);
    size_t chunk = (size_t)r->max_texels - (size_t)r->max_texels % (size_t)r->align_texels;
    if (chunk > 100000000u) chunk = 100000000u; /* 12 vertices a boid stay below INT_MAX */
    /* without marks the positions stand in, never read (u_follow is 0) */
    const int marks = f->follow && f->seen_buf;
    const unsigned bufs[4] = {f->state_buf, f->vel_buf, f->prev_vel_buf,
                              marks ? f->seen_buf : f->state_buf};
    for (size_t base = 0; base < f->n; base += chunk) {
        size_t count = f->n - base < chunk ? f->n - base : chunk;
        for (int k = 0; k < 4; k++) {
            const size_t bytes = k < 3 ? 16 : 4;
            texels(r, k, k < 3 ? GL_RGBA32F : GL_R32UI, bufs[k], base * bytes, count * bytes);
        }
        if (p->species > 1) texels(r, 4, GL_R32UI, f->id_buf, base * 4, count * 4);
        glUniform1i(b->base, (int)base);
        glDrawArrays(GL_TRIANGLES, 0, (int)(12 * count));
    }
    glActiveTexture(GL_TEXTURE0);
    glBindVertexArray(0);
    glDisable(GL_DEPTH_TEST);
}

/* ---- the flock, in either dimension --------------------------------------------------- */

void render_draw_flock(render_ctx *r, const boids_params *p, const render_flock *f) {
    if (f->n == 0) return;
    glUseProgram(r->boid_prog);
    look_uniforms(r, f);
    species_uniforms(r, p);
    if (r->dim == 3)
        draw_box(r, p, f);
    else
        draw_plane(r, p, f);
}

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
