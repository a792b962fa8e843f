/* SPDX-License-Identifier: MIT */
/* The viewer's scene (src/app/render/render_scene.c) on the gpu backend in 3-D: it draws from
 * the backend's own state buffers (cell order, reordered every step), so the previous step's
 * velocities that bank the boids are put in that order by a pass (view_prev.comp). After
 * each of several steps, slot for slot, they must be exactly the velocities the boid now
 * in that slot had before the step (read by id from the buffers before it), and right
 * after a restart the current ones. The HUD's order, a reduction over the velocity buffer,
 * matches boids_order of the downloaded flock to float rounding. On an EGL context, no
 * window; exit 77 (skip) when no GL 4.3 context can be made at all. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "boids/metrics.h"
#include "render/render_scene.h"
#include "view_fixture.h"

enum { N = 3000 };

/* The current velocities by id (vel_by_id: 4 floats an id). */
static void velocities_by_id(scene *s, float *vel_by_id, float *vel, uint32_t *ids) {
    render_flock f;
    scene_buffers(s, &f);
    read_buffer(f.vel_buf, 16 * f.n, vel);
    read_buffer(f.id_buf, 4 * f.n, ids);
    for (size_t i = 0; i < f.n; i++) memcpy(vel_by_id + 4 * ids[i], vel + 4 * i, 16);
}

/* prev, slot for slot, against want_by_id of the id in the slot. */
static void check_prev(const char *when, scene *s, const float *want_by_id, float *prev_out,
                       uint32_t *ids) {
    render_flock f;
    scene_buffers(s, &f);
    CHECK(f.prev_vel_buf && f.n == N, "%s: no 3-D buffers", when);
    if (!f.prev_vel_buf || f.n != N) return;
    read_buffer(f.prev_vel_buf, 16 * f.n, prev_out);
    read_buffer(f.id_buf, 4 * f.n, ids);
    size_t bad = 0;
    for (size_t i = 0; i < f.n; i++)
        bad += memcmp(prev_out + 4 * i, want_by_id + 4 * ids[i], 12) != 0;
    CHECK(bad == 0, "%s: %zu of %zu slots hold another boid's previous velocity", when, bad, f.n);
}

static void check_order(scene *s) {
    boids_error err;
    boids_metrics m;
    CHECK(scene_metrics(s, &m, &err) == BOIDS_OK, "metrics: %s", err.msg);
    double order = -1;
    scene_order_request(s);
    CHECK(scene_order_poll(s, 1, &order), "no order read back");
    /* float sums of N unit vectors (the reduction's) against double ones: a few float ulps of
     * each partial sum, far below 1e-4 of the order at N = 3000 */
    CHECK_NEAR(order, m.order, 1e-4, "the GPU's order of the 3-D velocities");
    printf("order %.6f (GPU reduction), %.6f (downloaded flock)\n", order, m.order);
}

int main(void) {
    boids_error err;
    int code;
    if (!view_fixture_open("scene_test", &code)) return code;
    boids_params p;
    CHECK(boids_preset_apply(&p, "murmuration", &err) == BOIDS_OK, "%s", err.msg);
    p.count = N;
    app_opts o;
    memset(&o, 0, sizeof o);
    o.backend = "gpu";
    o.seed = 3;
    o.gpu_variant = -1;
    scene_config cfg = {&o, 0, 0};
    scene *s = scene_create(&cfg, &p, &err);
    CHECK(s != NULL, "scene: %s", err.msg);
    if (s) {
        float *before = malloc(16 * N), *vel = malloc(16 * N), *prev = malloc(16 * N);
        uint32_t *ids = malloc(4 * N);
        velocities_by_id(s, before, vel, ids);
        check_prev("after creation", s, before, prev, ids);
        for (int k = 0; k < 4; k++) {
            velocities_by_id(s, before, vel, ids);
            CHECK(scene_step(s, 1 + (unsigned)k % 2, &err) == BOIDS_OK, "step: %s", err.msg);
            check_prev("after a step", s, before, prev, ids);
        }
        CHECK(scene_restart(s, &p, 9, &err) == BOIDS_OK, "restart: %s", err.msg);
        velocities_by_id(s, before, vel, ids);
        check_prev("after a restart", s, before, prev, ids);
        CHECK(scene_step(s, 3, &err) == BOIDS_OK, "step: %s", err.msg);
        check_order(s);
        free(before);
        free(vel);
        free(prev);
        free(ids);
        scene_destroy(s);
    }
    return view_fixture_close("scene_test");
}
