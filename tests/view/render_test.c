/* SPDX-License-Identifier: MIT */
/* The drawing of the box (src/app/render/render.c and render_overlay.c, dim = 3) on a synthetic 3-D
 * state, no simulation: two boids of the same colour and heading, one near the eye and one across
 * the world, drawn into an offscreen framebuffer on an EGL context. The depth cue must show: the
 * far boid is dimmer (fog) and covers fewer pixels (perspective). The world box's lines are drawn,
 * and a second camera position gives a different picture. Exit 77 (skip) when no GL 4.3 context can
 * be made at all. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render/camera3.h"
#include "render/render.h"
#include "view_fixture.h"

enum { W = 640, H = 480 };

static unsigned buffer(const float *data, size_t n) {
    unsigned b;
    glGenBuffers(1, &b);
    glBindBuffer(GL_ARRAY_BUFFER, b);
    glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)(n * 4 * sizeof(float)), data, GL_STATIC_DRAW);
    glBindBuffer(GL_ARRAY_BUFFER, 0);
    return b;
}

/* A colour and depth framebuffer of W x H, bound. */
static void target(unsigned *fbo, unsigned rb[2]) {
    glGenRenderbuffers(2, rb);
    glBindRenderbuffer(GL_RENDERBUFFER, rb[0]);
    glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, W, H);
    glBindRenderbuffer(GL_RENDERBUFFER, rb[1]);
    glRenderbufferStorage(GL_RENDERBUFFER, GL_DEPTH_COMPONENT24, W, H);
    glGenFramebuffers(1, fbo);
    glBindFramebuffer(GL_FRAMEBUFFER, *fbo);
    glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, rb[0]);
    glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_DEPTH_ATTACHMENT, GL_RENDERBUFFER, rb[1]);
    CHECK(glCheckFramebufferStatus(GL_FRAMEBUFFER) == GL_FRAMEBUFFER_COMPLETE, "framebuffer");
}

typedef struct blob {
    long pixels; /* pixels brighter than the background by more than 24 levels */
    int peak;    /* the brightest one's green level */
} blob;

/* The lit pixels of the left and right halves of the image. */
static void measure(const unsigned char *px, const unsigned char bg[3], blob out[2]) {
    memset(out, 0, 2 * sizeof *out);
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            const unsigned char *p = px + 4 * ((size_t)y * W + x);
            int g = p[1];
            if (g - bg[1] <= 24) continue;
            blob *b = &out[x >= W / 2];
            b->pixels++;
            if (g > b->peak) b->peak = g;
        }
}

static void draw(render_ctx *r, const camera3 *c, const render_flock *f, const boids_params *p,
                 const float box[3], unsigned char *px) {
    render_camera cam = {0, 0, 1, W, H};
    render_begin(r, &cam);
    render_view3 v = render_view3_make(c, W, H);
    render_set_view(r, &v);
    render_draw_flock(r, p, f);
    if (box) render_world_box(r, box, BOIDS_BOUNDARY_WALLS);
    render_flush(r);
    render_read_pixels(W, H, px);
}

static void far_boids_are_dimmer_and_smaller(render_ctx *r) {
    boids_params p = boids_params_default();
    const float world[3] = {1000, 1000, 1000};
    camera3 c;
    camera3_reset(&c, world[0], world[1], world[2]);
    c.yaw = 0.3f;
    c.pitch = 0.9f; /* from well above, so the flat boids show their wings */
    float eye[3], fwd[3];
    camera3_eye(&c, eye);
    camera3_forward(&c, fwd);
    render_view3 v = render_view3_make(&c, W, H);
    /* Both on the camera's right axis (seen broadside), the near one at the front of the
     * world's bounding sphere and left of the centre, the far one 1200 units deeper and to
     * the right; their velocities along the camera's right. */
    float pos[2][4], vel[2][4];
    const float depth[2] = {v.fog_near + 100, v.fog_near + 1300}, side[2] = {-0.2f, 0.2f};
    for (int b = 0; b < 2; b++) {
        for (int i = 0; i < 3; i++) {
            float tan_half = 0.41421356f; /* tan(22.5 degrees): the start view's fov / 2 */
            pos[b][i] = eye[i] + depth[b] * (fwd[i] + side[b] * tan_half * 2 * v.right[i]);
            vel[b][i] = 2 * v.right[i];
        }
        pos[b][3] = vel[b][3] = 0;
    }
    unsigned pb = buffer(&pos[0][0], 2), vb = buffer(&vel[0][0], 2);
    render_look look = render_look_default();
    look.plain[0] = look.plain[1] = look.plain[2] = 1;
    render_set_look(r, &look);
    render_flock f = {0};
    f.state_buf = pb;
    f.vel_buf = f.prev_vel_buf = vb;
    f.n = 2;
    f.colour = RENDER_PLAIN;
    f.length = 60;
    f.min_px = 1;
    unsigned char *px = malloc((size_t)W * H * 4);
    draw(r, &c, &f, &p, NULL, px);
    unsigned char bg[3] = {(unsigned char)(look.background[0] * 255 + 0.5f),
                           (unsigned char)(look.background[1] * 255 + 0.5f),
                           (unsigned char)(look.background[2] * 255 + 0.5f)};
    blob m[2];
    measure(px, bg, m);
    printf("near: %ld pixels, peak %d; far: %ld pixels, peak %d (background %d)\n", m[0].pixels,
           m[0].peak, m[1].pixels, m[1].peak, bg[1]);
    CHECK(m[0].pixels > 20 && m[1].pixels > 2, "both boids visible");
    /* The fog keeps exp(-1200 / range) ~ 0.47 of the far boid's light over the background
     * (render.c: range = diameter / ln 3); perspective halves it or more. The margins
     * (0.8, 0.6) leave room for the lighting of the faces seen and the rasterisation of a
     * boid a few pixels across. */
    CHECK(m[1].peak - bg[1] < 0.8 * (m[0].peak - bg[1]), "far boid dimmer: %d vs %d", m[1].peak,
          m[0].peak);
    CHECK(m[1].pixels < 0.6 * m[0].pixels, "far boid smaller: %ld vs %ld pixels", m[1].pixels,
          m[0].pixels);

    /* The box's edges are drawn, and another camera position draws another picture. */
    unsigned char *px2 = malloc((size_t)W * H * 4);
    draw(r, &c, &f, &p, world, px);
    blob with_box[2];
    measure(px, bg, with_box);
    CHECK(with_box[0].pixels + with_box[1].pixels > m[0].pixels + m[1].pixels + 500,
          "the box's lines are drawn");
    c.yaw += 1.2f;
    draw(r, &c, &f, &p, world, px2);
    long differ = 0;
    for (size_t i = 0; i < (size_t)W * H * 4; i++) differ += px[i] != px2[i];
    CHECK(differ > 1000, "two camera positions, two pictures (%ld bytes differ)", differ);
    free(px);
    free(px2);
    glDeleteBuffers(1, &pb);
    glDeleteBuffers(1, &vb);
}

int main(void) {
    boids_error err;
    int code;
    if (!view_fixture_open("render_test", &code)) return code;
    render_ctx *r = render_create(3, &err);
    CHECK(r, "renderer: %s", err.msg);
    if (r) {
        unsigned fbo, rb[2];
        target(&fbo, rb);
        far_boids_are_dimmer_and_smaller(r);
        glBindFramebuffer(GL_FRAMEBUFFER, 0);
        glDeleteFramebuffers(1, &fbo);
        glDeleteRenderbuffers(2, rb);
    }
    render_destroy(r);
    return view_fixture_close("render_test");
}
