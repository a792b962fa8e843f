/* SPDX-License-Identifier: MIT */
/* The viewer's camera, of either dimension, and the mouse and keys that move it. The plane:
 * a zoom and a centre (cx, cy) over render_camera_fit's view, the right (or middle) button
 * pans it and the wheel zooms about the cursor. The box: cam3 (camera3.h), orbiting or
 * flying; the left button turns it, the right (or middle) pans it, the wheel zooms, `n`
 * toggles orbit / fly (view_keys.c) and in fly mode the movement keys, held, move the eye.
 * A locked camera moves with the followed boid. */
#include <math.h>
#include <string.h>

#include <cglm/cglm.h>
/* glad provides the GL declarations; GLFW must not include its own. */
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include "viewer/view_internal.h"

int view_is3d(const view *v) {
    return scene_params(v->sc)->dim == 3;
}

render_camera view_camera(const view *v) {
    const boids_params *p = scene_params(v->sc);
    render_camera c = render_camera_fit(p->width, p->height, v->window.fb_w, v->window.fb_h, 4);
    c.scale *= v->camera.zoom;
    c.cx = v->camera.cx;
    c.cy = v->camera.cy;
    return c;
}

/* The plane: the whole world in the part of the window the panel leaves free, the zoom that
 * fits it there and the camera's centre moved left by half the panel. The box: the start
 * view of camera3_reset (frame_view moves it beside the panel). */
void view_camera_fit(view *v) {
    const boids_params *p = scene_params(v->sc);
    v->camera.lock = 0;
    v->camera.flock = 0;
    v->camera.fitted = 1;
    if (view_is3d(v)) {
        camera3_reset(&v->camera.cam3, p->width, p->height, p->depth);
        return;
    }
    double pw = v->panel.shown ? view_panel_width(v) : 0;
    if (pw > v->window.fb_w / 2) pw = 0; /* a window too narrow for both: the panel floats over */
    double full = render_camera_fit(p->width, p->height, v->window.fb_w, v->window.fb_h, 4).scale;
    double left =
        render_camera_fit(p->width, p->height, v->window.fb_w - (int)pw, v->window.fb_h, 4).scale;
    v->camera.zoom = left / full;
    v->camera.cx = p->width / 2 + pw / 2 / left;
    v->camera.cy = p->height / 2;
}

void view_camera_drag(view *v, double dx, double dy) {
    if (!view_is3d(v)) {
        if (!v->input.right_down) return;
        v->camera.flock = 0;
        render_camera c = view_camera(v);
        v->camera.cx -= dx / c.scale;
        v->camera.cy -= dy / c.scale;
    } else if (v->input.left_down &&
               !(v->panel.shown &&
                 (v->panel.ui.over_panel || v->input.press_on_panel || v->panel.ui.active))) {
        camera3_turn(&v->camera.cam3, dx, dy, v->window.fb_h);
    } else if (v->input.right_down) {
        camera3_pan(&v->camera.cam3, dx, dy, v->window.fb_h);
        v->camera.flock = 0; /* the target is the person's now */
    } else {
        return;
    }
    v->camera.lock = 0;
    v->camera.fitted = 0;
}

void view_camera_wheel(view *v, double notches) {
    v->camera.fitted = 0;
    if (view_is3d(v)) {
        float before = v->camera.cam3.distance;
        camera3_wheel(&v->camera.cam3, notches);
        /* following the flock, the wheel sets how close its frame is */
        if (before > 0) v->camera.flock_zoom *= v->camera.cam3.distance / before;
        return;
    }
    /* Zoom about the cursor: the world point under it stays under it. */
    render_camera c = view_camera(v);
    double wx, wy;
    render_px_to_world(&c, v->input.mx, v->input.my, &wx, &wy);
    double k = pow(1.15, notches);
    v->camera.zoom = fmin(200, fmax(0.2, v->camera.zoom * k));
    render_camera c2 = view_camera(v);
    double wx2, wy2;
    render_px_to_world(&c2, v->input.mx, v->input.my, &wx2, &wy2);
    v->camera.cx += wx - wx2;
    v->camera.cy += wy - wy2;
}

/* The fly camera's keys, held: w/s forward and back, d/a right and left, e/q up and down. */
static const int fly_keys[6] = {GLFW_KEY_W, GLFW_KEY_S, GLFW_KEY_D,
                                GLFW_KEY_A, GLFW_KEY_E, GLFW_KEY_Q};

int view_camera_captures_char(const view *v, unsigned c) {
    if (!view_is3d(v) || v->camera.cam3.mode != CAMERA3_FLY) return 0;
    static const char moves[] = "wsdaeqWSDAEQ";
    for (const char *m = moves; *m; m++)
        if ((unsigned)*m == c) return 1;
    return 0;
}

void view_camera_fly(view *v, uint64_t now) {
    double dt = v->camera.fly_ns ? (double)(now - v->camera.fly_ns) * 1e-9 : 0;
    v->camera.fly_ns = now;
    if (!view_is3d(v) || v->camera.cam3.mode != CAMERA3_FLY || dt <= 0) return;
    int held[6];
    for (int i = 0; i < 6; i++) held[i] = glfwGetKey(v->win, fly_keys[i]) == GLFW_PRESS;
    int fwd = held[0] - held[1], right = held[2] - held[3], up = held[4] - held[5];
    if (!fwd && !right && !up) return;
    int fast = glfwGetKey(v->win, GLFW_KEY_LEFT_SHIFT) == GLFW_PRESS ||
               glfwGetKey(v->win, GLFW_KEY_RIGHT_SHIFT) == GLFW_PRESS;
    /* a stalled frame (a restart of a huge flock) must not throw the eye across the world */
    camera3_fly(&v->camera.cam3, fwd, right, up, fmin(dt, 0.1), fast);
    v->camera.fitted = 0;
    view_input_seen(v);
}

render_view3 view_camera_box(const view *v) {
    render_view3 rv = render_view3_make(&v->camera.cam3, v->window.fb_w, v->window.fb_h);
    double pw = v->panel.shown ? view_panel_width(v) : 0;
    if (pw <= 0 || pw > v->window.fb_w / 2) return rv;
    mat4 shift, vp;
    glm_translate_make(shift, (vec3){-(float)(pw / v->window.fb_w), 0, 0});
    glm_mat4_mul(shift, (vec4 *)rv.view_proj, vp);
    memcpy(rv.view_proj, vp, sizeof vp);
    return rv;
}

void view_camera_ray(const view *v, float eye[3], float ray[3]) {
    render_view3 rv = view_camera_box(v);
    mat4 inv;
    glm_mat4_inv((vec4 *)rv.view_proj, inv);
    vec4 ndc = {(float)(2 * v->input.mx / v->window.fb_w - 1),
                (float)(1 - 2 * v->input.my / v->window.fb_h), 1, 1},
         far_;
    glm_mat4_mulv(inv, ndc, far_);
    camera3_eye(&v->camera.cam3, eye);
    glm_vec3_scale(far_, 1.0f / far_[3], ray);
    glm_vec3_sub(ray, eye, ray);
    glm_vec3_normalize(ray);
}

void view_camera_follow(view *v, const float pos[3]) {
    if (!v->camera.lock) return;
    if (!view_is3d(v)) {
        v->camera.cx = pos[0];
        v->camera.cy = pos[1];
        return;
    }
    vec3 eye, target = {pos[0], pos[1], pos[2]}, shift;
    camera3_eye(&v->camera.cam3, eye);
    glm_vec3_sub(target, v->camera.cam3.target, shift);
    glm_vec3_add(eye, shift, eye);
    camera3_look_at(&v->camera.cam3, eye, target);
}

void view_camera_flock_toggle(view *v) {
    view_camera_state *cam = &v->camera;
    cam->flock = !cam->flock;
    cam->known = 0;
    cam->flock_zoom = 1;
    cam->lock = 0;
    cam->fitted = 0;
    if (cam->flock && view_is3d(v) && cam->cam3.mode == CAMERA3_FLY) camera3_toggle(&cam->cam3);
}

/* Eases x towards goal by the share a of the way. */
static float ease(float x, float goal, double a) {
    return (float)(x + a * (goal - x));
}

void view_camera_flock(view *v, uint64_t now) {
    view_camera_state *cam = &v->camera;
    if (!cam->flock) return;
    int first = !cam->known;
    /* read ten times a second: on gpu the flock is read back for it */
    if (first || now - cam->flock_t >= 100000000u) {
        boids_error e;
        boids_error_clear(&e);
        if (scene_flock_extent(v->sc, cam->centre, &cam->radius, &e)) {
            cam->flock = 0;
            view_say(v, "%s", e.msg);
            return;
        }
        cam->flock_t = now;
        cam->known = 1;
    }
    /* the camera moves a share of the way each frame: half a second to close 63% of it */
    double dt = first ? 0 : (double)(now - cam->flock_frame) * 1e-9;
    cam->flock_frame = now;
    double a = first ? 1 : 1 - exp(-fmin(dt, 1.0) / 0.5);
    const boids_params *p = scene_params(v->sc);
    if (!view_is3d(v)) {
        /* across a wrapping edge the shorter way: the camera jumps to the flock's image */
        if (cam->cx - cam->centre[0] > p->width / 2) cam->cx -= p->width;
        if (cam->centre[0] - cam->cx > p->width / 2) cam->cx += p->width;
        if (cam->cy - cam->centre[1] > p->height / 2) cam->cy -= p->height;
        if (cam->centre[1] - cam->cy > p->height / 2) cam->cy += p->height;
        cam->cx = ease((float)cam->cx, cam->centre[0], a);
        cam->cy = ease((float)cam->cy, cam->centre[1], a);
        return;
    }
    /* The box: the orbit's centre on the flock's, far enough for a sphere of twice its rms
     * radius (most of its boids) to fill the height of the view. */
    camera3 *c3 = &cam->cam3;
    for (int d = 0; d < 3; d++) c3->target[d] = ease(c3->target[d], cam->centre[d], a);
    double side = fmin(p->width, fmin(p->height, p->depth));
    double want = cam->flock_zoom * fmax(2 * cam->radius, side / 50) / sin(c3->fov_y / 2);
    c3->distance = ease(c3->distance, (float)want, a);
}
