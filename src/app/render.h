/* Drawing shared by the window (`boids view`) and offscreen rendering (`boids render`).
 *
 * Everything here works on the GL 4.3 context current on the calling thread, loaded with
 * boids_gl_load() or made by boids_gl_create(). The flock is drawn straight from a state
 * buffer (N vec4 x, y, vx, vy, plus N uint ids) as instanced triangles; the overlay (panel,
 * HUD text, circles) is batched as 2D triangles in pixel coordinates and drawn by
 * render_flush(). */
#ifndef BOIDS_APP_RENDER_H
#define BOIDS_APP_RENDER_H

#include <stddef.h>
#include <stdint.h>

#include "boids/error.h"
#include "boids/params.h"

/* The viewer's shader sources, embedded at build time (src/app/view.cmake). */
typedef struct render_shader {
    const char *name;   /* file name under shaders/ */
    const char *source; /* NUL-terminated content */
} render_shader;
extern const render_shader boids_view_shaders[]; /* ends with {NULL, NULL} */

/* Compiles and links the named shaders into a program; 0 with err set on failure. */
unsigned render_program(const char *const *names, int count, boids_error *err);

typedef enum render_colour {
    RENDER_HEADING = 0,
    RENDER_SPEED,
    RENDER_PLAIN,
    RENDER_COLOURS
} render_colour;
extern const char *const render_colour_names[RENDER_COLOURS + 1]; /* NULL-terminated */

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

/* What to draw of the flock. */
typedef struct render_flock {
    unsigned state_buf, id_buf; /* GL buffer names */
    size_t n;
    render_colour colour;
    double length; /* boid length, world length units (drawn to scale, like the radii) */
    double min_px; /* ...but at least this many pixels long, so a zoomed-out flock shows */
    /* Following one boid: its id and state; its neighbours (by the model's test with p)
     * are highlighted. */
    int follow;
    uint32_t follow_id;
    float follow_state[4];
} render_flock;

typedef struct render_ctx render_ctx;

render_ctx *render_create(boids_error *err);
void render_destroy(render_ctx *r);

/* Clears the framebuffer currently bound to the background colour and sets the viewport. */
void render_begin(render_ctx *r, const render_camera *cam);
void render_draw_flock(render_ctx *r, const render_camera *cam, const boids_params *p,
                       const render_flock *f);

/* 2D overlay, pixel coordinates, origin at the top left; colours 0xRRGGBBAA. Shapes are
 * queued and drawn, in the order queued, by render_flush(). */
void render_rect(render_ctx *r, float x, float y, float w, float h, uint32_t rgba);
void render_line(render_ctx *r, float x0, float y0, float x1, float y1, float width, uint32_t rgba);
/* Circle outline; dash > 0 draws dashes of about that many pixels. */
void render_circle(render_ctx *r, float cx, float cy, float radius, float width, float dash,
                   uint32_t rgba);
/* Filled circular sector from angle a0 to a1 (radians, y down). */
void render_wedge(render_ctx *r, float cx, float cy, float radius, float a0, float a1,
                  uint32_t rgba);
/* Text with stb_easy_font at an integer pixel scale; returns the width in pixels. */
float render_text(render_ctx *r, float x, float y, float scale, const char *text, uint32_t rgba);
float render_text_width(const char *text, float scale);
void render_flush(render_ctx *r);

/* Reads the framebuffer currently bound for reading (w x h) as RGBA rows top to bottom
 * into pixels (w * h * 4 bytes). */
void render_read_pixels(int w, int h, unsigned char *pixels);

/* Writes RGBA pixels (rows top to bottom) as a PNG, through a temporary file renamed into
 * place so that no partly written image is ever left under path. */
boids_status render_write_png(const char *path, int w, int h, const unsigned char *pixels,
                              boids_error *err);

#endif
