/* SPDX-License-Identifier: MIT */
/* The viewer's follow pass marks exactly the neighbours the step uses: for metric Reynolds
 * with a field of view under 360 degrees, topological k = 7 (Reynolds and Vicsek) and
 * metric Vicsek, the marks read back from the buffer boid.vert draws from (follow.h) give,
 * for many followed boids, the same count and the same neighbour set hash as the gpu
 * backend's neighbours() debug stage (neighbours.comp / neighbours_topo.comp), on the same
 * state. Both run rules.glsl's rules_neighbour (and select.glsl's selection) in float on the
 * same values, so the sets must be equal, not close. The pass runs on an EGL context, no
 * window. Exit 77 (skip) when no GL 4.3 context can be made at all. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glad/gl.h>

#include "boids/backend.h"
#include "boids/gpu.h"
#include "follow.h"
#include "gpu_fixture.h"

enum { N = 2000, FOLLOWED = 64 };

static void read_u32(unsigned buf, size_t n, uint32_t *out) {
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, buf);
    glGetBufferSubData(GL_SHADER_STORAGE_BUFFER, 0, (GLsizeiptr)(4 * n), out);
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, 0);
}

static void check_scenario(const char *name, const boids_params *p, follow_pass *fp) {
    boids_error err;
    boids_flock f;
    CHECK(boids_flock_alloc(&f, N, &err) == BOIDS_OK, "%s", err.msg);
    boids_flock_randomize(&f, p, 5);
    boids_gpu_options o = checked(1);
    boids_backend *b = boids_gpu_create(NULL, &f, &o, &err);
    CHECK(b != NULL, "%s: %s", name, err.msg);
    if (!b) return;
    /* Some steps first, so the state buffer is in the grid's order, not the upload's. */
    CHECK(boids_backend_step(b, p, 10, &err) == BOIDS_OK, "%s: %s", name, err.msg);
    uint32_t *seen = malloc(4 * N), *ids = malloc(4 * N), *count = malloc(4 * N);
    uint64_t *hash = malloc(8 * N);
    unsigned long total = 0;
    for (uint32_t t = 0; t < FOLLOWED; t++) {
        uint32_t id = t * (N / FOLLOWED);
        int found = 0;
        float st[4];
        unsigned hud = 0;
        CHECK(follow_run(fp, boids_gpu_state_buffer(b), boids_gpu_id_buffer(b), N, p, id, &found,
                         st, &hud, &err) == BOIDS_OK,
              "%s: %s", name, err.msg);
        CHECK(found, "%s: boid %u not found", name, id);
        read_u32(follow_seen_buffer(fp), N, seen);
        read_u32(boids_gpu_id_buffer(b), N, ids);
        CHECK(boids_backend_neighbours(b, p, count, hash, &err) == BOIDS_OK, "%s: %s", name,
              err.msg);
        uint32_t marked = 0;
        uint64_t h = 0;
        for (size_t i = 0; i < N; i++)
            if (seen[i]) {
                marked++;
                h += boids_neighbour_set_hash(ids[i]);
                CHECK(ids[i] != id, "%s: boid %u marks itself", name, id);
            }
        CHECK(marked == count[id] && hud == count[id],
              "%s: boid %u: %u marked, %u counted by the pass, %u by the step", name, id, marked,
              hud, count[id]);
        CHECK(h == hash[id], "%s: boid %u: the marked set is not the step's", name, id);
        total += marked;
    }
    printf("%-22s %d followed boids, %lu neighbours marked, the step's sets\n", name, FOLLOWED,
           total);
    CHECK(total > FOLLOWED, "%s: too few neighbours (%lu) for the check to mean much", name, total);
    free(seen);
    free(ids);
    free(count);
    free(hash);
    boids_backend_destroy(b);
    boids_flock_free(&f);
}

int main(void) {
    boids_error err;
    gl = boids_gl_create(1, &err);
    if (!gl) return no_gpu_exit("follow_test", err.msg);
    follow_pass *fp = follow_create(&err);
    CHECK(fp != NULL, "follow_create: %s", err.msg);
    if (fp) {
        boids_params p;
        boids_preset_apply(&p, "lab", &err);
        p.count = N;
        p.fov = 240;
        check_scenario("metric fov 240", &p, fp);
        p.fov = 180;
        check_scenario("metric fov 180", &p, fp);
        p.fov = 270;
        p.neighbours = BOIDS_NEIGHBOURS_TOPOLOGICAL;
        p.k = 7;
        check_scenario("topological k 7", &p, fp);
        p.k_in_vision = 1;
        check_scenario("topological k 7 in R", &p, fp);
        boids_preset_apply(&p, "vicsek", &err);
        p.count = N;
        check_scenario("vicsek metric", &p, fp);
        p.neighbours = BOIDS_NEIGHBOURS_TOPOLOGICAL;
        p.k = 7;
        check_scenario("vicsek topological k 7", &p, fp);
        follow_destroy(fp);
    }
    const boids_gl_debug *log = boids_gl_debug_log(gl);
    CHECK(log->errors == 0, "GL errors: %lu (%s)", log->errors, log->last_error);
    boids_gl_destroy(gl);
    return CHECK_DONE("follow_test");
}
