/* SPDX-License-Identifier: MIT */
/* The viewer's scene (src/app/render/render_scene.c) on the gpu backend in 3-D: it draws from the
 * backend's own state buffers (cell order, reordered every step), so the previous step's
 * velocities that bank the boids are put in that order by a pass (view_prev3.comp). After
 * each of several steps, slot for slot, they must be exactly the velocities the boid now
 * in that slot had before the step (read by id from the buffers before it), and right
 * after a restart the current ones. The HUD's order, a reduction over the velocity buffer,
 * matches boids_order of the downloaded flock to float rounding. On an EGL context, no
 * window; exit 77 (skip) when no GL 4.3 context can be made at all. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glad/gl.h>

#include "../check.h"
#include "../require_gpu.h"
#include "boids/gpu.h"
#include "boids/metrics.h"
#include "render_scene.h"

enum { N = 3000 };

static void read_buf(unsigned buf, size_t bytes, void *out) {
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, buf);
    glGetBufferSubData(GL_SHADER_STORAGE_BUFFER, 0, (GLsizeiptr)bytes, out);
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, 0);
}

/* The current velocities by id (vel_by_id: 4 floats an id). */
static void velocities_by_id(scene *s, unsigned ids_buf, float *vel_by_id, float *vel,
                             uint32_t *ids) {
    unsigned pos, vb, prev;
    size_t n;
    scene_buffers3(s, &pos, &vb, &prev, &n);
    read_buf(vb, 16 * n, vel);
    read_buf(ids_buf, 4 * n, ids);
    for (size_t i = 0; i < n; i++) memcpy(vel_by_id + 4 * ids[i], vel + 4 * i, 16);
}

/* prev, slot for slot, against want_by_id of the id in the slot. */
static void check_prev(const char *when, scene *s, unsigned ids_buf, const float *want_by_id,
                       float *prev_out, uint32_t *ids) {
    unsigned pos, vb, prev;
    size_t n;
    CHECK(scene_buffers3(s, &pos, &vb, &prev, &n) && n == N, "%s: no 3-D buffers", when);
    read_buf(prev, 16 * n, prev_out);
    read_buf(ids_buf, 4 * n, ids);
    size_t bad = 0;
    for (size_t i = 0; i < n; i++)
        bad += memcmp(prev_out + 4 * i, want_by_id + 4 * ids[i], 12) != 0;
    CHECK(bad == 0, "%s: %zu of %zu slots hold another boid's previous velocity", when, bad, n);
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
    boids_gl *gl = boids_gl_create(1, &err);
    if (!gl) return no_gpu_exit("scene3_test", err.msg);
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
        unsigned ids_buf;
        size_t n;
        unsigned state;
        scene_buffers(s, &state, &ids_buf, &n);
        float *before = malloc(16 * N), *vel = malloc(16 * N), *prev = malloc(16 * N);
        uint32_t *ids = malloc(4 * N);
        velocities_by_id(s, ids_buf, before, vel, ids);
        check_prev("after creation", s, ids_buf, before, prev, ids);
        for (int k = 0; k < 4; k++) {
            velocities_by_id(s, ids_buf, before, vel, ids);
            CHECK(scene_step(s, 1 + (unsigned)k % 2, &err) == BOIDS_OK, "step: %s", err.msg);
            check_prev("after a step", s, ids_buf, before, prev, ids);
        }
        CHECK(scene_restart(s, &p, 9, &err) == BOIDS_OK, "restart: %s", err.msg);
        velocities_by_id(s, ids_buf, before, vel, ids);
        check_prev("after a restart", s, ids_buf, before, prev, ids);
        CHECK(scene_step(s, 3, &err) == BOIDS_OK, "step: %s", err.msg);
        check_order(s);
        free(before);
        free(vel);
        free(prev);
        free(ids);
        scene_destroy(s);
    }
    const boids_gl_debug *log = boids_gl_debug_log(gl);
    CHECK(log->errors == 0, "GL errors: %lu (%s)", log->errors, log->last_error);
    boids_gl_destroy(gl);
    return CHECK_DONE("scene3_test");
}
