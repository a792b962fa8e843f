/* SPDX-License-Identifier: MIT */
/* The 3-D camera's maths (src/app/render/camera3.c): where the orbit puts the eye, that the view
 * matrix maps the target to the middle of the screen, that fly moves along the look
 * direction, and that toggling and look_at keep what they promise. Tolerances: the camera
 * computes in float, and every quantity checked is of order 1 to 1000 units, so 1e-3
 * relative (a few hundred float ulps) covers the rounding of a handful of operations. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cglm/cglm.h>

#include "../check.h"
#include "render/camera3.h"
#include "render/camera_path.h"

static void orbit_eye_is_target_minus_distance_along_forward(void) {
    camera3 c;
    camera3_reset(&c, 900, 560, 560);
    c.yaw = 0;
    c.pitch = 0;
    c.distance = 1000;
    float eye[3];
    camera3_eye(&c, eye);
    /* yaw 0, pitch 0 looks along +z: the eye is in front of the box's centre along -z */
    CHECK_NEAR(eye[0], 450, 1e-3 * 1000, "x of the centre");
    CHECK_NEAR(eye[1], 280, 1e-3 * 1000, "y of the centre");
    CHECK_NEAR(eye[2], 280 - 1000, 1e-3 * 1000, "distance along -z");
    /* A positive pitch lifts the eye above the target (up is -y) at the same distance. */
    c.pitch = 0.5f;
    c.yaw = 1.0f;
    camera3_eye(&c, eye);
    CHECK(eye[1] < 280, "eye y %g above the target", eye[1]);
    vec3 d = {eye[0] - c.target[0], eye[1] - c.target[1], eye[2] - c.target[2]};
    CHECK_NEAR(glm_vec3_norm(d), 1000, 1e-3 * 1000, "orbit distance");
    CHECK_NEAR(-d[1] / 1000, sinf(0.5f), 1e-3, "elevation is the pitch");
}

static void view_matrix_maps_target_to_the_centre(void) {
    camera3 c;
    camera3_reset(&c, 900, 560, 400);
    float yaws[] = {0, 0.7f, -2.5f}, pitches[] = {0, 0.4f, -1.2f};
    for (int i = 0; i < 3; i++) {
        c.yaw = yaws[i];
        c.pitch = pitches[i];
        mat4 vp;
        camera3_view_projection(&c, 16.0 / 9.0, (float *)vp);
        vec4 t = {c.target[0], c.target[1], c.target[2], 1}, clip;
        glm_mat4_mulv(vp, t, clip);
        CHECK(clip[3] > 0, "target in front of the eye (w %g)", clip[3]);
        CHECK_NEAR(clip[0] / clip[3], 0, 1e-4, "target at the centre, x (yaw %g)", yaws[i]);
        CHECK_NEAR(clip[1] / clip[3], 0, 1e-4, "target at the centre, y (yaw %g)", yaws[i]);
        CHECK(fabsf(clip[2] / clip[3]) < 1, "target between near and far");
    }
    /* The start view: every corner of the box is in view and in front of the eye. */
    camera3_reset(&c, 900, 560, 400);
    mat4 vp;
    camera3_view_projection(&c, 1.0, (float *)vp);
    for (int k = 0; k < 8; k++) {
        vec4 p = {k & 1 ? 900.0f : 0, k & 2 ? 560.0f : 0, k & 4 ? 400.0f : 0, 1}, q;
        glm_mat4_mulv(vp, p, q);
        CHECK(q[3] > 0 && fabsf(q[0]) < q[3] && fabsf(q[1]) < q[3] && fabsf(q[2]) < q[3],
              "corner %d in the view volume", k);
    }
    /* Up is -y: a point above the target (smaller y) is drawn above the centre. */
    c.yaw = 0.3f;
    c.pitch = 0.2f;
    camera3_view_projection(&c, 1.0, (float *)vp);
    vec4 above = {c.target[0], c.target[1] - 50, c.target[2], 1}, q;
    glm_mat4_mulv(vp, above, q);
    CHECK(q[1] / q[3] > 0, "a point at smaller y is above the middle (ndc y %g)", q[1] / q[3]);
}

static void fly_moves_along_the_look_direction(void) {
    camera3 c;
    camera3_reset(&c, 1000, 1000, 1000);
    camera3_toggle(&c);
    CHECK(c.mode == CAMERA3_FLY, "toggled to fly");
    float e0[3], f[3], e1[3];
    camera3_eye(&c, e0);
    camera3_forward(&c, f);
    camera3_fly(&c, 1, 0, 0, 1.0, 0);
    camera3_eye(&c, e1);
    /* a quarter of the diagonal in one second */
    float speed = 0.25f * sqrtf(3.0f) * 1000;
    for (int i = 0; i < 3; i++)
        CHECK_NEAR(e1[i] - e0[i], speed * f[i], 1e-3 * speed, "axis %d along forward", i);
    camera3_fly(&c, -1, 0, 0, 1.0, 1);
    camera3_eye(&c, e0);
    for (int i = 0; i < 3; i++)
        CHECK_NEAR(e0[i] - e1[i], -4 * speed * f[i], 4e-3 * speed, "fast: four times, back");
    /* up moves along -y whatever the pitch */
    camera3_fly(&c, 0, 0, 1, 1.0, 0);
    camera3_eye(&c, e1);
    CHECK_NEAR(e1[1] - e0[1], -speed, 1e-3 * speed, "up is -y");
    /* wheel in fly mode moves forward too */
    camera3_wheel(&c, 2);
    camera3_eye(&c, e0);
    float moved = (e0[0] - e1[0]) * f[0] + (e0[1] - e1[1]) * f[1] + (e0[2] - e1[2]) * f[2];
    CHECK(moved > 0, "wheel forward moves forward (%g)", moved);
}

static void toggle_and_look_at_keep_the_view(void) {
    camera3 c;
    camera3_reset(&c, 800, 600, 500);
    mat4 before, after;
    camera3_view(&c, (float *)before);
    camera3_toggle(&c);
    camera3_view(&c, (float *)after);
    for (int i = 0; i < 16; i++)
        CHECK_NEAR(((float *)after)[i], ((float *)before)[i], 1e-3 * 1000, "orbit to fly, %d", i);
    camera3_fly(&c, 1, 1, 0, 0.5, 0);
    camera3_view(&c, (float *)before);
    camera3_toggle(&c);
    camera3_view(&c, (float *)after);
    for (int i = 0; i < 16; i++)
        CHECK_NEAR(((float *)after)[i], ((float *)before)[i], 1e-3 * 1000, "fly to orbit, %d", i);
    float eye[3] = {100, -300, 50}, target[3] = {400, 300, 250}, got[3];
    camera3_look_at(&c, eye, target);
    camera3_eye(&c, got);
    for (int i = 0; i < 3; i++) CHECK_NEAR(got[i], eye[i], 1e-3 * 1000, "look_at eye %d", i);
    /* zoom: the wheel brings the orbit eye closer, within limits */
    float d0 = c.distance;
    camera3_wheel(&c, 1);
    CHECK_NEAR(c.distance, d0 / 1.15f, 1e-3 * d0, "one notch in");
}

static void orbit_path_turns_at_its_rate(void) {
    camera_path cp;
    boids_error err;
    CHECK(camera_path_parse(&cp, "orbit:30,elev=10,dist=2000", &err) == BOIDS_OK, "%s", err.msg);
    camera3 c0, c;
    camera3_reset(&c0, 900, 560, 560);
    c = c0;
    camera_path_at(&cp, 2.0, &c);
    CHECK_NEAR(c.yaw - c0.yaw, glm_rad(60.0f), 1e-5, "30 degrees a second for 2 s");
    CHECK_NEAR(c.pitch, glm_rad(10.0f), 1e-6, "elevation");
    CHECK_NEAR(c.distance, 2000, 1e-3, "distance");
    camera_path_free(&cp);
    /* Bad specs: one message naming the spec. */
    const char *bad[] = {"orbit:",          "orbit:x",   "orbit:10,elev=95",     "orbit:10,dist=0",
                         "orbit:10,zoom=2", "orbit:nan", "/nonexistent/keys.txt"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        boids_error_clear(&err);
        CHECK(camera_path_parse(&cp, bad[i], &err) == BOIDS_ERR_INPUT, "'%s' refused", bad[i]);
        CHECK(strstr(err.msg, "--camera") != NULL, "'%s': message names --camera: %s", bad[i],
              err.msg);
    }
}

/* Writes text to a temporary file; its path into path (size 64). */
static void temp_file(char *path, const char *text) {
    strcpy(path, "/tmp/camera3_test_XXXXXX");
    int fd = mkstemp(path);
    FILE *f = fdopen(fd, "w");
    fputs(text, f);
    fclose(f);
}

static void keyframes_interpolate_eye_and_direction(void) {
    char path[64];
    /* the eye moves from (0,0,-1000) to (1000,0,-1000); the look turns from +z to +x */
    temp_file(path, "# t eye target\n"
                    "0   0 0 -1000   0 0 0\n"
                    "\n"
                    "2   1000 0 -1000   2000 0 -1000  # end\n");
    camera_path cp;
    boids_error err;
    CHECK(camera_path_parse(&cp, path, &err) == BOIDS_OK, "%s", err.msg);
    CHECK(cp.nkeys == 2, "two keys (%zu)", cp.nkeys);
    camera3 c;
    camera3_reset(&c, 1000, 1000, 1000);
    float eye[3], f[3];
    camera_path_at(&cp, -1.0, &c); /* before the first key: the first */
    camera3_eye(&c, eye);
    CHECK_NEAR(eye[0], 0, 1e-3 * 1000, "first key's eye x");
    CHECK_NEAR(eye[2], -1000, 1e-3 * 1000, "first key's eye z");
    camera_path_at(&cp, 1.0, &c); /* halfway: eye halfway, direction turned 45 degrees */
    camera3_eye(&c, eye);
    camera3_forward(&c, f);
    CHECK_NEAR(eye[0], 500, 1e-3 * 1000, "halfway eye x");
    CHECK_NEAR(f[0], sqrtf(0.5f), 1e-4, "slerp: 45 degrees, x");
    CHECK_NEAR(f[2], sqrtf(0.5f), 1e-4, "slerp: 45 degrees, z");
    camera_path_at(&cp, 5.0, &c); /* after the last: the last */
    camera3_forward(&c, f);
    CHECK_NEAR(f[0], 1, 1e-4, "last key looks along +x");
    camera_path_free(&cp);
    unlink(path);
    /* Bad files: the message names the file and line. */
    const char *bad[] = {"0 1 2 3 4 5\n",   "0 1 2 3 4 5 6 7\n",
                         "0 1 2 3 4 5 x\n", "1 0 0 0 1 1 1\n1 0 0 0 2 2 2\n",
                         "0 1 1 1 1 1 1\n", "# none\n"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        temp_file(path, bad[i]);
        boids_error_clear(&err);
        CHECK(camera_path_parse(&cp, path, &err) == BOIDS_ERR_INPUT, "file %zu refused", i);
        CHECK(strstr(err.msg, path) != NULL, "file %zu: message names the file: %s", i, err.msg);
        unlink(path);
    }
}

int main(void) {
    orbit_eye_is_target_minus_distance_along_forward();
    view_matrix_maps_target_to_the_centre();
    fly_moves_along_the_look_direction();
    toggle_and_look_at_keep_the_view();
    orbit_path_turns_at_its_rate();
    keyframes_interpolate_eye_and_direction();
    return CHECK_DONE("camera3_test");
}
