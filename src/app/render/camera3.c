/* SPDX-License-Identifier: MIT */
#include "render/camera3.h"

#include <math.h>

#include <cglm/cglm.h>

/* The world's up axis (camera3.h: y grows downwards). */
static const vec3 UP = {0.0f, -1.0f, 0.0f};

static float world_diagonal(const camera3 *c) {
    return glm_vec3_norm((float *)c->world);
}

void camera3_forward(const camera3 *c, float fwd[3]) {
    /* yaw about up from +z, pitch towards +y (down) */
    float cp = cosf(c->pitch);
    fwd[0] = sinf(c->yaw) * cp;
    fwd[1] = sinf(c->pitch);
    fwd[2] = cosf(c->yaw) * cp;
}

/* The camera's right and up unit vectors (up on the screen). */
static void camera_axes(const camera3 *c, vec3 right, vec3 up) {
    vec3 f;
    camera3_forward(c, f);
    glm_vec3_crossn(f, (float *)UP, right);
    glm_vec3_cross(right, f, up);
}

void camera3_eye(const camera3 *c, float eye[3]) {
    if (c->mode == CAMERA3_FLY) {
        glm_vec3_copy((float *)c->eye, eye);
        return;
    }
    vec3 f;
    camera3_forward(c, f);
    glm_vec3_copy((float *)c->target, eye);
    glm_vec3_muladds(f, -c->distance, eye);
}

void camera3_reset(camera3 *c, double width, double height, double depth) {
    c->mode = CAMERA3_ORBIT;
    c->world[0] = (float)width;
    c->world[1] = (float)height;
    c->world[2] = (float)depth;
    glm_vec3_scale(c->world, 0.5f, c->target);
    c->fov_y = glm_rad(45.0f);
    /* The box's circumscribed sphere fits the vertical field of view, with a margin. */
    c->distance = 1.05f * 0.5f * world_diagonal(c) / sinf(0.5f * c->fov_y);
    c->yaw = -0.55f;
    c->pitch = 0.35f;
    camera3_eye(c, c->eye);
}

void camera3_view(const camera3 *c, float view[16]) {
    vec3 eye, f, centre;
    camera3_eye(c, eye);
    camera3_forward(c, f);
    glm_vec3_add(eye, f, centre);
    glm_lookat(eye, centre, (float *)UP, (vec4 *)view);
}

void camera3_projection(const camera3 *c, double aspect, float proj[16]) {
    /* Near and far enclose the world's circumscribed sphere (radius half the diagonal) with
     * as much again around it, for boids on an open plane and points just outside; near is
     * at least a thousandth of the diagonal, which keeps a 24-bit depth buffer precise. */
    float diag = world_diagonal(c);
    vec3 eye, mid;
    camera3_eye(c, eye);
    glm_vec3_scale((float *)c->world, 0.5f, mid);
    float d = glm_vec3_distance(eye, mid);
    float far_ = d + diag;
    float near_ = fmaxf(1e-3f * diag, d - diag);
    glm_perspective(c->fov_y, (float)aspect, near_, far_, (vec4 *)proj);
}

void camera3_view_projection(const camera3 *c, double aspect, float vp[16]) {
    mat4 v, p;
    camera3_view(c, (float *)v);
    camera3_projection(c, aspect, (float *)p);
    glm_mat4_mul(p, v, (vec4 *)vp);
}

void camera3_turn(camera3 *c, double dx, double dy, int fb_h) {
    /* A drag across the framebuffer's height turns half a turn. */
    float k = (float)(M_PI / (fb_h > 0 ? fb_h : 1));
    if (c->mode == CAMERA3_ORBIT) {
        /* grab the world: dragging right swings the eye to the left of the target */
        c->yaw -= (float)dx * k;
        c->pitch += (float)dy * k;
    } else {
        c->yaw += (float)dx * k;
        c->pitch += (float)dy * k;
    }
    c->pitch = glm_clamp(c->pitch, -CAMERA3_PITCH_MAX, CAMERA3_PITCH_MAX);
    c->yaw = fmodf(c->yaw, 2.0f * GLM_PIf);
}

void camera3_pan(camera3 *c, double dx, double dy, int fb_h) {
    /* Length units per pixel at the target's depth: the point under the cursor there stays
     * under it. */
    float k = 2.0f * c->distance * tanf(0.5f * c->fov_y) / (float)(fb_h > 0 ? fb_h : 1);
    vec3 right, up, move = GLM_VEC3_ZERO_INIT;
    camera_axes(c, right, up);
    glm_vec3_muladds(right, -(float)dx * k, move);
    glm_vec3_muladds(up, (float)dy * k, move);
    glm_vec3_add(c->target, move, c->target);
    glm_vec3_add(c->eye, move, c->eye);
}

void camera3_wheel(camera3 *c, double notches) {
    float diag = world_diagonal(c);
    if (c->mode == CAMERA3_ORBIT) {
        c->distance *= powf(1.15f, -(float)notches);
        c->distance = glm_clamp(c->distance, 0.02f * diag, 20.0f * diag);
        return;
    }
    vec3 f;
    camera3_forward(c, f);
    glm_vec3_muladds(f, (float)notches * 0.05f * diag, c->eye);
}

void camera3_fly(camera3 *c, int forward, int right, int up, double seconds, int fast) {
    float step = 0.25f * world_diagonal(c) * (float)seconds * (fast ? 4.0f : 1.0f);
    vec3 f, r, u, move = GLM_VEC3_ZERO_INIT;
    camera3_forward(c, f);
    camera_axes(c, r, u);
    glm_vec3_muladds(f, (float)forward, move);
    glm_vec3_muladds(r, (float)right, move);
    glm_vec3_muladds((float *)UP, (float)up, move);
    glm_vec3_muladds(move, step, c->eye);
}

void camera3_toggle(camera3 *c) {
    if (c->mode == CAMERA3_ORBIT) {
        camera3_eye(c, c->eye);
        c->mode = CAMERA3_FLY;
        return;
    }
    vec3 f;
    camera3_forward(c, f);
    glm_vec3_copy(c->eye, c->target);
    glm_vec3_muladds(f, c->distance, c->target);
    c->mode = CAMERA3_ORBIT;
}

void camera3_look_at(camera3 *c, const float eye[3], const float target[3]) {
    vec3 d;
    glm_vec3_sub((float *)target, (float *)eye, d);
    float len = glm_vec3_norm(d);
    c->mode = CAMERA3_ORBIT;
    glm_vec3_copy((float *)target, c->target);
    if (len > 0) {
        c->distance = len;
        glm_vec3_scale(d, 1.0f / len, d);
        c->pitch =
            glm_clamp(asinf(glm_clamp(d[1], -1.0f, 1.0f)), -CAMERA3_PITCH_MAX, CAMERA3_PITCH_MAX);
        c->yaw = atan2f(d[0], d[2]);
    }
    camera3_eye(c, c->eye);
}
