/* SPDX-License-Identifier: MIT */
/* Drawing shared by the window (`boids view`) and offscreen rendering (`boids render`), for
 * a flock of either dimension.
 *
 * Everything here works on the GL 4.3 context current on the calling thread, loaded with
 * boids_gl_load() or made by boids_gl_create(). The flock is drawn straight from the
 * state's buffers by vertex pulling through buffer textures: in the plane one triangle a
 * boid in pixels of a render_camera (instanced when N is beyond the buffer-texture limit,
 * or when BOIDS_DRAW=instanced asks), in the box a banked body a boid through the 3-D
 * camera, lit, fogged and depth-tested, with world-space lines (the box, the vision cone,
 * the points). The overlay (panel, HUD text, circles) is batched as 2D triangles in pixel
 * coordinates; render_flush() draws the lines, then the overlay. */
#ifndef BOIDS_APP_RENDER_H
#define BOIDS_APP_RENDER_H

#include <stddef.h>
#include <stdint.h>

#include "boids/error.h"
#include "boids/interact.h"
#include "boids/params.h"
#include "shaders.h"

/* The viewer's shader units (BOIDS_VIEW_UNITS of src/shaders.cmake), embedded at build time;
 * each is composed with the compute step's prelude of its dimension. */
extern const boids_gpu_shader boids_view_shaders[]; /* ends with {NULL, 0, NULL} */

/* Compiles and links the named units of dimension dim (2 or 3) into a program; 0 with err
 * set on failure. */
unsigned render_program(const char *const *names, int count, int dim, boids_error *err);

/* size bytes of zeroed memory for one of the renderer's objects; NULL with BOIDS_ERR_NOMEM
 * and the message msg in err when there is none. */
void *render_calloc(size_t size, const char *msg, boids_error *err);

/* New storage of bytes bytes (contents undefined) for each of the count GL buffers bufs, for
 * the GPU's own use; out of GPU memory is BOIDS_ERR_NOMEM naming what and its n boids. */
boids_status render_buffers_alloc(const unsigned *bufs, int count, size_t bytes, const char *what,
                                  size_t n, boids_error *err);

/* 0xRRGGBBAA as the bytes R, G, B, A in memory, whatever the host byte order: a vertex's
 * colour for the overlay and line batches (render_overlay.c). */
uint32_t render_pack_rgba(uint32_t rgba);

/* A vertex array over a stream buffer of bytes bytes: dims floats of position (attribute 0)
 * and 4 colour bytes at offset rgba_at (attribute 1, normalised), stride bytes a vertex. */
void render_stream_vao(unsigned *vao, unsigned *vbo, size_t bytes, int dims, size_t stride,
                       size_t rgba_at);

typedef enum render_colour {
    RENDER_HEADING = 0,
    RENDER_SPEED,
    RENDER_PLAIN,
    RENDER_COLOURS
} render_colour;
extern const char *const render_colour_names[RENDER_COLOURS + 1]; /* NULL-terminated */

typedef enum render_shape {
    RENDER_DART = 0, /* the seeds' arrowhead */
    RENDER_NEEDLE,   /* long and thin: fish, streaks */
    RENDER_KITE,     /* short and wide: reads at a distance */
    RENDER_SHAPES
} render_shape;
extern const char *const render_shape_names[RENDER_SHAPES + 1]; /* NULL-terminated */

typedef enum render_density {
    RENDER_DENSITY_AUTO = 0, /* on from RENDER_DENSITY_N boids, on hardware renderers */
    RENDER_DENSITY_OFF,
    RENDER_DENSITY_ON,
    RENDER_DENSITIES
} render_density;
extern const char *const render_density_names[RENDER_DENSITIES + 1]; /* NULL-terminated */
enum { RENDER_DENSITY_N = 50000 };

/* What the clean view (an installation's picture) leaves out: nothing, every overlay drawn
 * over the flock (the points' reach circles and dots, the pointer's circle, the world's
 * edges and wall margins, the 3-D box), or those and the obstacles' outlines too. The HUD,
 * the panel and the help stay as their own switches have them. */
typedef enum render_clean {
    RENDER_CLEAN_OFF = 0,
    RENDER_CLEAN_ON,
    RENDER_CLEAN_ALL,
    RENDER_CLEANS
} render_clean;
extern const char *const render_clean_names[RENDER_CLEANS + 1]; /* NULL-terminated */

/* How the flock looks: the `view.` keys of a config file (look.c) and the flags of `boids
 * view` and `boids render`. render_look_default() is the look of the seeds. */
typedef struct render_look {
    float background[3]; /* RGB in [0, 1] */
    int palette;         /* 0: the rainbow of headings (and blue to yellow by speed); 1: stops */
    float stops[3][3];   /* heading: a cycle through the three; speed: stops[0] to stops[1] */
    float plain[3];      /* the colour `plain` */
    int shape;           /* render_shape */
    double trail;        /* frames for a trail to fade to 1/e of its light; 0: no trails */
    int density;         /* render_density: additive light instead of opaque boids */
    int colour;          /* render_colour, or -1: the command's own default */
    double size;         /* boid length, world units; 0: the command's default */
    int clean;           /* render_clean: the overlays left out */
} render_look;

render_look render_look_default(void);
/* The look a preset brings (the default for most): `murmuration` is dark plain birds on a
 * pale evening sky. The config's `view.` lines and the flags change it as they change the
 * default. */
render_look render_look_for_preset(const char *preset);

/* One `view.KEY = VALUE` setting (key with its prefix): view.background (#RRGGBB),
 * view.palette (rainbow, ocean, ember, mono, or three #RRGGBB), view.plain (#RRGGBB),
 * view.colour, view.shape, view.trail (frames, [0, 10000]), view.density (auto, off, on),
 * view.size (world units, (0, 1e6]), view.clean (off, on, all). Unknown key or bad value:
 * BOIDS_ERR_INPUT naming where, the key and the value; l unchanged. */
/* Is key one of the look's (`view.` first)? */
int render_look_is_key(const char *key);

boids_status render_look_set(render_look *l, const char *key, const char *value, const char *where,
                             boids_error *err);

/* The `view.` lines of a config file (the others are the parameters' and the points');
 * errors name the file and line, and leave l unchanged. */
boids_status render_look_load_ini(render_look *l, const char *path, boids_error *err);

/* World-to-framebuffer mapping: pixel = (world - center) * scale + viewport / 2, with
 * world y growing downwards like the seeds' canvases. */
typedef struct render_camera {
    double cx, cy; /* world point at the middle of the framebuffer */
    double scale;  /* pixels per length unit */
    int fb_w, fb_h;
} render_camera;

/* The camera that fits a width x height world into the framebuffer, margin pixels aside. */
render_camera render_camera_fit(double width, double height, int fb_w, int fb_h, double margin);
void render_world_to_px(const render_camera *c, double x, double y, double *px, double *py);
void render_px_to_world(const render_camera *c, double px, double py, double *x, double *y);

/* The default boid length for parameters p: 0.14 vision radii (7 in the seeds' worlds,
 * where R is 50), so that a model in other units (Vicsek's R = 1) looks the same. */
double render_default_length(const boids_params *p);

/* What to draw of the flock: GL buffer names of N slots, boid i at slot i of each.
 *   the plane: state_buf N vec4 (x, y, vx, vy), id_buf N uint ids;
 *   the box:   state_buf N RGBA32F positions vec4(x, y, z, 0), vel_buf the velocities
 *              vec4(vx, vy, vz, 0) and prev_vel_buf the previous step's, which banks the
 *              boids by their turn (w is padding: std430 and texel fetches both want 16-byte
 *              elements): the GPU pipeline's 3-D state as it is, or the cpu backends'
 *              upload (render_scene.c). The world box is [0, width] x [0, height] x
 *              [0, depth] (camera3.h: y down). */
typedef struct render_flock {
    unsigned state_buf, id_buf;
    unsigned vel_buf, prev_vel_buf; /* the box */
    size_t n;
    render_colour colour;
    double length; /* boid length, world length units (drawn to scale, like the radii) */
    double min_px; /* ...but at least this many pixels long, so a zoomed-out flock shows */
    /* Following one boid: its slot, drawn red and twice as large, and the follow pass's
     * marks (follow.h: one uint per slot, 1 for the boids it counts, drawn blue); the
     * others fade. seen_buf 0: no follow. */
    int follow;
    size_t follow_slot;
    unsigned seen_buf;
} render_flock;

typedef struct render_ctx render_ctx;

/* A renderer of flocks of dimension dim (2 or 3). */
render_ctx *render_create(int dim, boids_error *err);

/* 1 when the context's GL renderer is a software rasteriser (llvmpipe, softpipe,
 * SwiftShader). */
int render_software(const render_ctx *r);
void render_destroy(render_ctx *r);

/* The look of the following frames (the seeds' look until called). */
void render_set_look(render_ctx *r, const render_look *look);
const render_look *render_get_look(const render_ctx *r);

/* Clears the framebuffer currently bound to the background colour (the box: and its depth
 * buffer, which it needs) and sets the viewport; the plane's flock is drawn through cam. */
void render_begin(render_ctx *r, const render_camera *cam);

/* Trails and density draw the flock into an accumulation layer (a half-float texture of
 * the framebuffer's size) that keeps exp(-1 / trail) of its light each frame, and composite
 * it onto the frame. Around render_draw_flock: begin returns 1 if the layer is in use (for a
 * flock of n boids with the current look) and end composites it onto the framebuffer that
 * was bound at begin. Without trails and density they do nothing. */
int render_layer_begin(render_ctx *r, const render_camera *cam, size_t n);
/* Whether a flock of n boids is drawn as density with the current look. */
int render_density_on(const render_ctx *r, size_t n);
void render_layer_end(render_ctx *r);
/* The next layer starts empty (a restart, a jump of the camera). */
void render_layer_reset(render_ctx *r);
/* The flock of parameters p, through the camera of the frame (the plane: render_begin's;
 * the box: render_set_view's). */
void render_draw_flock(render_ctx *r, const boids_params *p, const render_flock *f);

/* 2D overlay (render_overlay.c), pixel coordinates, origin at the top left; colours
 * 0xRRGGBBAA. Shapes are queued and drawn, in the order queued, by render_flush(). */
void render_rect(render_ctx *r, float x, float y, float w, float h, uint32_t rgba);
void render_line(render_ctx *r, float x0, float y0, float x1, float y1, float width, uint32_t rgba);
/* Circle outline; dash > 0 draws dashes of about that many pixels. */
void render_circle(render_ctx *r, float cx, float cy, float radius, float width, float dash,
                   uint32_t rgba);
/* Filled circular sector from angle a0 to a1 (radians, y down). */
void render_wedge(render_ctx *r, float cx, float cy, float radius, float a0, float a1,
                  uint32_t rgba);
/* The interaction table as the viewer and `boids render` draw it: the obstacles (circles
 * and segments, 3 pixels wide, RENDER_OBSTACLE_RGBA) and the points that are on, each the
 * dashed circle of its reach and a dot of dot_px pixels (predators red, attractors green).
 * The look's clean view leaves out the points (and with `all` the obstacles). Queued like
 * the shapes above. */
#define RENDER_OBSTACLE_RGBA 0xc8ccd8e0u
void render_interact(render_ctx *r, const render_camera *c, const boids_interact *in, float dot_px);
/* Text with stb_easy_font at an integer pixel scale; returns the width in pixels. */
float render_text(render_ctx *r, float x, float y, float scale, const char *text, uint32_t rgba);
float render_text_width(const char *text, float scale);
void render_flush(render_ctx *r);

/* ---- the box (dim = 3) ------------------------------------------------------------------ */

/* What the camera makes of a frame: matrices, eye and the fog's reach. */
typedef struct render_view3 {
    float view_proj[16]; /* cglm mat4 (column-major), world to clip space */
    float eye[3];
    float right[3], up[3]; /* the camera's axes: circles drawn facing the viewer */
    float px_per_unit;     /* pixels a unit length covers at distance 1 */
    float fog_near, fog_range;
    int fb_w, fb_h;
} render_view3;

struct camera3;
/* The camera's view of a frame of fb_w x fb_h pixels, its world box the camera's. */
render_view3 render_view3_make(const struct camera3 *c, int fb_w, int fb_h);

/* After render_begin: the view the frame's flock and lines are drawn through. */
void render_set_view(render_ctx *r, const render_view3 *v);
/* World-space lines, queued (a fixed capacity: past it they are dropped) and drawn,
 * depth-tested and fogged, by render_flush. Colours 0xRRGGBBAA. */
void render_world_line(render_ctx *r, const float a[3], const float b[3], uint32_t rgba);
/* The edges of the box [0, size[0]] x [0, size[1]] x [0, size[2]] with boundary
 * (boids_boundary): thin where it wraps, bright walls; nothing when open. */
void render_world_box(render_ctx *r, const float size[3], int boundary);
/* A circle of the given radius about c facing the viewer (a point's reach). */
void render_world_circle(render_ctx *r, const float c[3], float radius, uint32_t rgba);
/* "See what a boid sees": the field-of-view cone of a boid at pos heading along vel, as
 * long as the vision radius (fov >= 360: the vision sphere as three great circles). */
void render_world_cone(render_ctx *r, const boids_params *p, const float pos[3],
                       const float vel[3]);

/* Reads the framebuffer currently bound for reading (w x h) as RGBA rows top to bottom
 * into pixels (w * h * 4 bytes). */
void render_read_pixels(int w, int h, unsigned char *pixels);

/* A frame read back into a buffer that grows as needed: what the viewer's screenshots,
 * recordings and streams and `boids render`'s frames are written from. */
typedef struct render_pixels {
    int w, h;
    unsigned char *px; /* w * h RGBA, rows top to bottom, opaque */
    size_t size;       /* bytes allocated */
} render_pixels;
/* Reads the w x h framebuffer bound for reading into p. */
boids_status render_pixels_read(render_pixels *p, int w, int h, boids_error *err);
void render_pixels_free(render_pixels *p);

/* Writes RGBA pixels (rows top to bottom) as a PNG, through a temporary file renamed into
 * place so that no partly written image is ever left under path. */
boids_status render_write_png(const char *path, int w, int h, const unsigned char *pixels,
                              boids_error *err);

#endif
