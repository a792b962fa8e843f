/* SPDX-License-Identifier: MIT */
/* The drawing context's insides, shared by the files of the renderer only: render.c (the
 * programs, the flock in either dimension, the accumulation layer) and render_overlay.c
 * (the 2-D overlay's shapes and text and the box's world-space lines, batched and flushed).
 * Everything else sees render_ctx through render.h. */
#ifndef BOIDS_APP_RENDER_INTERNAL_H
#define BOIDS_APP_RENDER_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "render/render.h"

/* The overlay batch has a fixed capacity so that a frame never allocates: a viewer left
 * running for days keeps the memory it had after its first frame. Shapes past the capacity
 * are dropped (the panel and HUD use a small fraction of it). The box's world-space lines
 * have a batch of their own, of a fixed capacity too: the box, a cone and a few circles take
 * a few hundred vertices. */
enum { UI_MAX_VERTS = 3 * 65536, LINE_MAX_VERTS = 16384, CIRCLE_SEGS = 48 };

typedef struct ui_vert {
    float x, y;
    uint32_t rgba; /* bytes R, G, B, A in memory order */
} ui_vert;

typedef struct line_vert {
    float x, y, z;
    uint32_t rgba; /* bytes R, G, B, A in memory order */
} line_vert;

/* The boid program's uniforms, of both dimensions (-1 where the one compiled has none). */
typedef struct boid_uniform_locs {
    int colour, min_speed, max_speed, follow, follow_slot, palette, stops, plain, shape;
    int species, sp_end; /* species colours (palette.glsl) */
    /* the plane */
    int viewport, center, scale, size, pull, alpha;
    /* the box */
    int base, view_proj, length, min_px, px_per_unit, bank_gain, eye, background, fog_near,
        fog_range;
} boid_uniform_locs;

struct render_ctx {
    int dim; /* the flock's: 2, the plane; 3, the box */
    unsigned boid_prog, ui_prog;
    unsigned boid_vao, corner_vbo;
    /* vertex pulling: the buffer textures of the state (the box: positions, velocities and
     * the previous velocities) and the follow marks */
    unsigned pull_vao, tex[5]; /* [4]: the slots' ids (species colours) */
    int max_texels;            /* GL_MAX_TEXTURE_BUFFER_SIZE */
    int align_texels;          /* the box's chunks start at a multiple of this texel */
    int force_instanced;       /* BOIDS_DRAW=instanced (comparisons) */
    unsigned ui_vao, ui_vbo;
    ui_vert *verts;
    size_t nverts;
    float vw, vh;
    boid_uniform_locs b;
    int u_viewport;
    /* the box: the camera's view of the frame, and the world-space lines */
    render_view3 view;
    unsigned line_prog, line_vao, line_vbo;
    int l_view_proj, l_eye, l_background, l_fog_near, l_fog_range;
    line_vert *lines;
    size_t nlines;
    render_look look;
    render_camera cam; /* the plane's, of the frame begun */
    /* The accumulation layer of trails and density. */
    unsigned layer_prog, layer_fbo, layer_tex;
    int layer_w, layer_h, layer_fresh, layer_on, layer_density, layer_prev;
    int software; /* llvmpipe and the like: density is not automatic there */
    int l_mode, l_colour;
};

/* render.c: the fog's uniforms (fog.glsl) of the box's view, for the boid and line
 * programs alike. */
void render_fog_uniforms(int eye, int bg, int near_, int range, const render_look *look,
                         const render_view3 *v);

#endif
