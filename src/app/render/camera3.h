/* SPDX-License-Identifier: MIT */
/* The 3-D camera of `boids view` and `boids render` with dim = 3: an orbit camera (a target,
 * a distance, yaw and pitch) and a fly camera (an eye and the same yaw and pitch as its look
 * direction), with a perspective projection whose near and far planes follow the world's
 * size. Every matrix and quaternion is cglm's; nothing here touches GL or GLFW, so the maths
 * is tested on its own (tests/camera3_test.c).
 *
 * World axes: x to the right, y down (the 2-D canvases' convention, so that the start view,
 * looking along +z, shows the plane as the 2-D viewer does) and z away from the viewer.
 * "Up" is therefore -y: yaw turns about it and pitch raises the eye towards it. */
#ifndef BOIDS_APP_CAMERA3_H
#define BOIDS_APP_CAMERA3_H

typedef enum camera3_mode { CAMERA3_ORBIT = 0, CAMERA3_FLY } camera3_mode;

typedef struct camera3 {
    camera3_mode mode;
    float target[3]; /* orbit: the point looked at and turned about */
    float distance;  /* orbit: from the target to the eye, length units; > 0 */
    float eye[3];    /* fly: the eye (orbit: derived from target, distance, yaw, pitch) */
    float yaw;       /* radians about the up axis; 0 looks along +z */
    float pitch;     /* radians, positive looks down from above; within +-CAMERA3_PITCH_MAX */
    float fov_y;     /* vertical field of view, radians */
    float world[3];  /* the world box's size: near/far planes, speeds and zoom limits */
} camera3;

#define CAMERA3_PITCH_MAX 1.55f /* just short of straight up or down, where yaw degenerates */

/* The start view of a width x height x depth box: orbit about its centre, a little from
 * above and aside, far enough that the whole box is in view. */
void camera3_reset(camera3 *c, double width, double height, double depth);

/* The eye position and the unit look direction. */
void camera3_eye(const camera3 *c, float eye[3]);
void camera3_forward(const camera3 *c, float fwd[3]);

/* The view matrix (world to eye space, cglm's column-major mat4 as float[16]) and the
 * projection for a framebuffer of aspect width / height; near and far planes enclose the
 * world box from wherever the eye is. */
void camera3_view(const camera3 *c, float view[16]);
void camera3_projection(const camera3 *c, double aspect, float proj[16]);
void camera3_view_projection(const camera3 *c, double aspect, float vp[16]);

/* Mouse: a left drag of (dx, dy) pixels on a framebuffer fb_h pixels tall turns the camera
 * (orbit: about the target; fly: looks around), a right or middle drag pans (the target, or
 * the fly eye, moves with the cursor at the target's depth), the wheel zooms (orbit: the
 * distance by 1.15 a notch; fly: moves along the look direction). */
void camera3_turn(camera3 *c, double dx, double dy, int fb_h);
void camera3_pan(camera3 *c, double dx, double dy, int fb_h);
void camera3_wheel(camera3 *c, double notches);

/* Fly: moves the eye by seconds of travel at a speed of a quarter of the world's diagonal a
 * second (fast: four times that), along the look direction (forward), the camera's right
 * and the world's up; each of forward, right, up is -1, 0 or 1. */
void camera3_fly(camera3 *c, int forward, int right, int up, double seconds, int fast);

/* Orbit <-> fly, keeping the eye and the look direction: the orbit target is the point at
 * the current distance ahead of the fly eye. */
void camera3_toggle(camera3 *c);

/* Orbit camera at eye looking at target (a scripted camera's keyframe). eye == target keeps
 * the previous direction. */
void camera3_look_at(camera3 *c, const float eye[3], const float target[3]);

#endif
