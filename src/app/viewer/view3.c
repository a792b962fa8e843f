/* SPDX-License-Identifier: MIT */
/* The viewer in 3-D (dim = 3): the orbit / fly camera and its mouse and keys, following a
 * boid picked along the pointer's ray, the diving predator, and the 3-D half of a frame
 * (the flock, the box, the vision cone and the points). The panel, HUD and help are the
 * 2-D viewer's own, drawn over it. */
#include <math.h>
#include <string.h>

#include <cglm/cglm.h>
#include <glad/gl.h>
/* glad provides the GL declarations; GLFW must not include its own. */
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include "dive.h"
#include "view_internal.h"

int view_is3d(const view *v) {
    return scene_params(v->sc)->dim == 3;
}

void view3_camera_reset(view *v) {
    const boids_params *p = scene_params(v->sc);
    camera3_reset(&v->cam3, p->width, p->height, p->depth);
    v->lock = 0;
    v->fitted = 1;
}

/* The fly camera's keys, held: w/s forward and back, d/a right and left, e/q up and down. */
static const int fly_keys[6] = {GLFW_KEY_W, GLFW_KEY_S, GLFW_KEY_D,
                                GLFW_KEY_A, GLFW_KEY_E, GLFW_KEY_Q};

int view3_captures_char(const view *v, unsigned c) {
    if (!view_is3d(v) || v->cam3.mode != CAMERA3_FLY) return 0;
    static const char moves[] = "wsdaeqWSDAEQ";
    for (const char *m = moves; *m; m++)
        if ((unsigned)*m == c) return 1;
    return 0;
}

void view3_fly(view *v, uint64_t now) {
    double dt = v->fly_ns ? (double)(now - v->fly_ns) * 1e-9 : 0;
    v->fly_ns = now;
    if (v->cam3.mode != CAMERA3_FLY || dt <= 0) return;
    int held[6];
    for (int i = 0; i < 6; i++) held[i] = glfwGetKey(v->win, fly_keys[i]) == GLFW_PRESS;
    int fwd = held[0] - held[1], right = held[2] - held[3], up = held[4] - held[5];
    if (!fwd && !right && !up) return;
    int fast = glfwGetKey(v->win, GLFW_KEY_LEFT_SHIFT) == GLFW_PRESS ||
               glfwGetKey(v->win, GLFW_KEY_RIGHT_SHIFT) == GLFW_PRESS;
    /* a stalled frame (a restart of a huge flock) must not throw the eye across the world */
    camera3_fly(&v->cam3, fwd, right, up, fmin(dt, 0.1), fast);
    v->fitted = 0;
    view_input_seen(v);
}

void view3_drag(view *v, double dx, double dy) {
    if (v->left_down && !(v->panel && (v->u.over_panel || v->press_on_panel || v->u.active)))
        camera3_turn(&v->cam3, dx, dy, v->fb_h);
    else if (v->right_down)
        camera3_pan(&v->cam3, dx, dy, v->fb_h);
    else
        return;
    v->fitted = 0;
    v->lock = 0;
}

void view3_wheel(view *v, double notches) {
    camera3_wheel(&v->cam3, notches);
    v->fitted = 0;
}

/* The camera's view of the frame. With the panel shown, the picture's centre moves to the
 * middle of the part of the window the panel leaves free, as the 2-D fit does (a shift in
 * clip space, so the perspective itself is unchanged). */
static render_view3 frame_view(const view *v) {
    render_view3 rv = render_view3_make(&v->cam3, v->fb_w, v->fb_h);
    double pw = v->panel ? view_panel_width(v) : 0;
    if (pw <= 0 || pw > v->fb_w / 2) return rv;
    mat4 shift, vp;
    glm_translate_make(shift, (vec3){-(float)(pw / v->fb_w), 0, 0});
    glm_mat4_mul(shift, (vec4 *)rv.view_proj, vp);
    memcpy(rv.view_proj, vp, sizeof vp);
    return rv;
}

/* The boid whose direction from the eye is nearest the ray through the pointer (a pass over
 * the drawn buffers, on every backend). */
static int pick(view *v, uint32_t *id) {
    render_view3 rv = frame_view(v);
    mat4 inv;
    glm_mat4_inv((vec4 *)rv.view_proj, inv);
    vec4 ndc = {(float)(2 * v->mx / v->fb_w - 1), (float)(1 - 2 * v->my / v->fb_h), 1, 1}, far_;
    glm_mat4_mulv(inv, ndc, far_);
    vec3 eye, ray;
    camera3_eye(&v->cam3, eye);
    glm_vec3_scale(far_, 1.0f / far_[3], ray);
    glm_vec3_sub(ray, eye, ray);
    glm_vec3_normalize(ray);
    return scene_pick3(v->sc, eye, ray, id);
}

void view3_follow_update(view *v) {
    if (v->want_follow_toggle) {
        v->want_follow_toggle = 0;
        uint32_t id = 0;
        if (v->follow) {
            v->follow = v->lock = 0;
        } else if (pick(v, &id)) {
            v->follow = 1;
            v->follow_id = id;
        }
    }
    v->follow_found = v->follow && scene_follow3(v->sc, v->follow_id, v->follow3, &v->follow_count,
                                                 &v->follow_slot);
    if (!v->follow_found) return;
    /* the HUD's line about the followed boid reads the 2-D fields */
    v->follow_state[0] = v->follow3[0], v->follow_state[1] = v->follow3[1];
    v->follow_state[2] = v->follow3[3], v->follow_state[3] = v->follow3[4];
    if (v->lock) {
        vec3 eye, target = {v->follow3[0], v->follow3[1], v->follow3[2]}, shift;
        camera3_eye(&v->cam3, eye);
        glm_vec3_sub(target, v->cam3.target, shift);
        glm_vec3_add(eye, shift, eye);
        camera3_look_at(&v->cam3, eye, target);
    }
}

void view3_dive(view *v) {
    boids_params *p = scene_params(v->sc);
    boids_params base = *p;
    dive_apply(&base, scene_steps(v->sc), p);
}

/* The predators and attractors that are on, as circles of their reach facing the viewer;
 * the diving predator where the next step has it. */
static void points_draw(view *v, const render_view3 *rv) {
    boids_params dived = *scene_params(v->sc);
    dive_apply(scene_params(v->sc), scene_steps(v->sc), &dived);
    const boids_params *p = &dived;
    if (p->predator) {
        const float c[3] = {(float)p->predator_x, (float)p->predator_y, (float)p->predator_z};
        render3_circle(v->r3, rv, c, (float)p->predator_radius, 0xff5a4ad0);
        render3_circle(v->r3, rv, c, (float)p->predator_radius * 0.06f, 0xff5a4aff);
    }
    if (p->food) {
        const float c[3] = {(float)p->food_x, (float)p->food_y, (float)p->food_z};
        render3_circle(v->r3, rv, c, (float)p->food_radius, 0x6bd66bc0);
        render3_circle(v->r3, rv, c, (float)p->food_radius * 0.06f, 0x6bd66bff);
    }
}

void view3_draw(view *v) {
    const boids_params *p = scene_params(v->sc);
    render_view3 rv = frame_view(v);
    render3_begin(v->r3);
    render_flock3 f = {0};
    if (scene_buffers3(v->sc, &f.pos_buf, &f.vel_buf, &f.prev_vel_buf, &f.n)) {
        f.colour = v->colour;
        f.length = v->boid_len;
        f.min_px = 1.5 * v->u.ts;
        f.follow = v->follow && v->follow_found;
        f.follow_index = v->follow_slot;
        f.seen_buf = scene_follow_marks(v->sc);
        render3_draw_flock(v->r3, render_get_look(v->r), &rv, p, &f);
    }
    const float size[3] = {(float)p->width, (float)p->height, (float)p->depth};
    const int clean = render_get_look(v->r)->clean != RENDER_CLEAN_OFF;
    if (!clean) render3_box(v->r3, size, p->boundary);
    if (f.follow) render3_cone(v->r3, p, v->follow3, v->follow3 + 3);
    if (!clean) points_draw(v, &rv);
    render3_flush(v->r3, render_get_look(v->r), &rv);
}
