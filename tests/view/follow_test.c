/* SPDX-License-Identifier: MIT */
/* "See what a boid sees" marks exactly the neighbours each backend's step uses
 * (src/app/render/follow.h), for many followed boids, in the plane and in the box: metric
 * Reynolds with fields of view under 360 degrees (wrap and walls), topological k = 7 at any
 * distance and within the vision radius, metric Vicsek and topological Vicsek.
 *   gpu:     the follow pass's marks, read back from the buffer boid.vert draws from, have
 *            the count and the neighbour set hash of the gpu backend's neighbours() debug
 *            stage (neighbours*.comp) on the same state;
 *   cpu:     follow_host in float on the downloaded state gives the cpu grid's sets;
 *   cpu-ref: follow_host in double gives cpu-ref's.
 * Each compares one backend's rule with itself on the same values (the same float or double
 * operations), so the sets must be equal, not close. The pick pass finds the boid at a
 * point (the plane) or nearest a ray (the box). The passes run on an EGL context, no window.
 * Exit 77 (skip) when no GL 4.3 context can be made at all. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "boids/backend.h"
#include "boids/gpu.h"
#include "render/follow.h"
#include "view_fixture.h"

enum { N = 2000, FOLLOWED = 40, STEPS = 10 };

/* The followed boids: spread over the ids. */
static uint32_t followed(int t) {
    return (uint32_t)t * (N / FOLLOWED) + 3;
}

/* The marks of `seen` (one per slot, ids alongside) against the step's count and hash. */
static unsigned long compare(const char *what, uint32_t id, const uint32_t *seen,
                             const uint32_t *ids, unsigned reported, uint32_t count,
                             uint64_t hash) {
    uint32_t marked = 0;
    uint64_t h = 0;
    for (size_t i = 0; i < N; i++)
        if (seen[i]) {
            marked++;
            h += boids_neighbour_set_hash(ids[i]);
            CHECK(ids[i] != id, "%s: boid %u marks itself", what, id);
        }
    CHECK(marked == count && reported == count,
          "%s: boid %u: %u marked, %u reported, %u counted by the step", what, id, marked, reported,
          count);
    CHECK(h == hash, "%s: boid %u: the marked set is not the step's", what, id);
    return marked;
}

/* The pick pass against the same measure in double on the downloaded state.
 * The plane: picked at a boid's own position, the pass's squared distance to it is exactly
 * 0, so the boid picked lies at that point (that boid, or one on top of it).
 * The box: the boid picked is the nearest to the ray up to the float rounding of the
 * measure (the pass computes |d|^2 / t^2 - 1 in float, a ratio near 1: a few float ulps of
 * 1 + the measure). */
static void check_pick(const char *name, follow_pass *fp, const follow_state *s,
                       const boids_params *p, const boids_flock *f) {
    const float eye[3] = {(float)p->width * 0.5f, (float)p->height * 0.5f, -(float)p->depth};
    for (int t = 0; t < 4; t++) {
        size_t target = followed(t * 7);
        uint32_t id = UINT32_MAX;
        if (p->dim == 2) {
            const float at[3] = {(float)f->x[target], (float)f->y[target], 0};
            CHECK(follow_pick(fp, s, p, at, NULL, &id), "%s: nothing picked", name);
            CHECK(id < f->n && f->x[id] == f->x[target] && f->y[id] == f->y[target],
                  "%s: picked %u at a boid %zu's position", name, id, target);
            continue;
        }
        float dir[3] = {(float)f->x[target] - eye[0], (float)f->y[target] - eye[1],
                        (float)f->z[target] - eye[2]};
        float len = sqrtf(dir[0] * dir[0] + dir[1] * dir[1] + dir[2] * dir[2]);
        for (int c = 0; c < 3; c++) dir[c] /= len;
        CHECK(follow_pick(fp, s, p, eye, dir, &id), "%s: nothing picked", name);
        double best = INFINITY, got = INFINITY;
        for (size_t i = 0; i < f->n; i++) {
            double d[3] = {f->x[i] - eye[0], f->y[i] - eye[1], f->z[i] - eye[2]};
            double along = d[0] * dir[0] + d[1] * dir[1] + d[2] * dir[2];
            if (along <= 0) continue;
            double off = (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]) / (along * along) - 1;
            if (off < best) best = off;
            if (i == id) got = off;
        }
        CHECK(got <= best + 8 * FLT_EPSILON * (1 + best),
              "%s: picked %u off the ray by %g, best %g", name, id, got, best);
    }
}

/* The gpu backend: the pass's marks against its neighbours() stage, and the pick. */
static unsigned long check_gpu(const char *name, const boids_params *p, const boids_flock *init,
                               follow_pass *fp, uint32_t *seen, uint32_t *ids, uint32_t *count,
                               uint64_t *hash) {
    boids_error err;
    boids_gpu_options o = checked(0);
    boids_backend *b = boids_gpu_create(NULL, init, &o, &err);
    CHECK(b != NULL, "%s: %s", name, err.msg);
    if (!b) return 0;
    /* Some steps first, so the state buffers are in the grid's order, not the upload's. */
    CHECK(boids_backend_step(b, p, STEPS, &err) == BOIDS_OK, "%s: %s", name, err.msg);
    CHECK(boids_backend_neighbours(b, p, count, hash, &err) == BOIDS_OK, "%s: %s", name, err.msg);
    follow_state s = {boids_gpu_state_buffer(b), p->dim == 3 ? boids_gpu_velocity_buffer(b) : 0,
                      boids_gpu_id_buffer(b), N};
    read_buffer(s.ids, 4 * N, ids);
    unsigned long total = 0;
    for (int t = 0; t < FOLLOWED; t++) {
        uint32_t id = followed(t);
        follow_result r;
        CHECK(follow_run(fp, &s, p, id, &r, &err) == BOIDS_OK, "%s: %s", name, err.msg);
        CHECK(r.found && ids[r.slot] == id, "%s: boid %u not found", name, id);
        read_buffer(follow_seen_buffer(fp), 4 * N, seen);
        total += compare(name, id, seen, ids, r.count, count[id], hash[id]);
    }
    boids_flock f;
    CHECK(boids_flock_alloc_dim(&f, N, p->dim, &err) == BOIDS_OK, "%s", err.msg);
    CHECK(boids_backend_download(b, &f, &err) == BOIDS_OK, "%s: %s", name, err.msg);
    check_pick(name, fp, &s, p, &f);
    boids_flock_free(&f);
    boids_backend_destroy(b);
    return total;
}

/* A cpu backend: follow_host in its precision against its neighbours(). */
static unsigned long check_cpu(const char *name, const boids_params *p, const boids_flock *init,
                               int single, uint32_t *seen, uint32_t *nb, uint32_t *count,
                               uint64_t *hash) {
    boids_error err;
    boids_backend *b = single ? boids_cpu_create(init, 2, &err) : boids_cpu_ref_create(init, &err);
    CHECK(b != NULL, "%s: %s", name, err.msg);
    if (!b) return 0;
    boids_flock f;
    CHECK(boids_flock_alloc_dim(&f, N, p->dim, &err) == BOIDS_OK, "%s", err.msg);
    CHECK(boids_backend_step(b, p, STEPS, &err) == BOIDS_OK, "%s: %s", name, err.msg);
    CHECK(boids_backend_download(b, &f, &err) == BOIDS_OK, "%s: %s", name, err.msg);
    CHECK(boids_backend_neighbours(b, p, count, hash, &err) == BOIDS_OK, "%s: %s", name, err.msg);
    static uint32_t identity[N];
    for (uint32_t i = 0; i < N; i++) identity[i] = i;
    unsigned long total = 0;
    for (int t = 0; t < FOLLOWED; t++) {
        uint32_t id = followed(t);
        size_t m = follow_host(&f, p, id, single, nb);
        memset(seen, 0, N * sizeof *seen);
        for (size_t q = 0; q < m; q++) {
            CHECK(q == 0 || nb[q - 1] < nb[q], "%s: boid %u: marks not ascending", name, id);
            seen[nb[q]] = 1;
        }
        total += compare(name, id, seen, identity, (unsigned)m, count[id], hash[id]);
    }
    boids_flock_free(&f);
    boids_backend_destroy(b);
    return total;
}

/* Every backend: the pass on the gpu backend's buffers, the host's for the cpu backends. */
static void check_scenario(const char *name, const boids_params *p, follow_pass *fp) {
    boids_error err;
    boids_flock init;
    CHECK(boids_flock_alloc_dim(&init, N, p->dim, &err) == BOIDS_OK, "%s", err.msg);
    boids_flock_randomize(&init, p, 11);
    uint32_t *seen = malloc(4 * N), *ids = malloc(4 * N), *count = malloc(4 * N);
    uint64_t *hash = malloc(8 * N);
    char what[96];
    static const char *const backends[] = {"gpu", "cpu", "cpu-ref"};
    for (int k = 0; k < 3; k++) {
        snprintf(what, sizeof what, "%dd %s, %s", p->dim, name, backends[k]);
        unsigned long total = k == 0 ? check_gpu(what, p, &init, fp, seen, ids, count, hash)
                                     : check_cpu(what, p, &init, k == 1, seen, ids, count, hash);
        printf("%-40s %d followed boids, %lu neighbours marked, the step's sets\n", what, FOLLOWED,
               total);
        CHECK(total > FOLLOWED, "%s: too few neighbours (%lu) for the check to mean much", what,
              total);
    }
    free(seen);
    free(ids);
    free(count);
    free(hash);
    boids_flock_free(&init);
}

/* The scenarios, each from the preset's parameters with k = 7: the neighbour rule, the
 * boundary, the field of view, k within the vision radius, the Vicsek model (speed 2, noise
 * 0.5) and a vision radius (0: the preset's). */
static const struct {
    const char *name;
    boids_neighbours neighbours;
    boids_boundary boundary;
    double fov;
    int k_in_vision, vicsek;
    double vision_radius;
} runs[] = {
    {"metric fov 240, wrap", BOIDS_NEIGHBOURS_METRIC, BOIDS_BOUNDARY_WRAP, 240, 0, 0, 0},
    {"metric fov 180, walls", BOIDS_NEIGHBOURS_METRIC, BOIDS_BOUNDARY_WALLS, 180, 0, 0, 0},
    {"topological k 7, walls", BOIDS_NEIGHBOURS_TOPOLOGICAL, BOIDS_BOUNDARY_WALLS, 300, 0, 0, 0},
    {"topological k 7 in R, wrap", BOIDS_NEIGHBOURS_TOPOLOGICAL, BOIDS_BOUNDARY_WRAP, 300, 1, 0, 0},
    {"vicsek topological k 7, wrap", BOIDS_NEIGHBOURS_TOPOLOGICAL, BOIDS_BOUNDARY_WRAP, 300, 0, 1,
     0},
    {"vicsek metric, wrap", BOIDS_NEIGHBOURS_METRIC, BOIDS_BOUNDARY_WRAP, 300, 0, 1, 40},
};

/* The scenarios in one dimension: the plane from the lab preset, the box from the
 * murmuration preset at 2000 boids in a box of about its density. */
static void scenarios(int dim, follow_pass *fp) {
    boids_error err;
    boids_params p;
    CHECK(boids_preset_apply(&p, dim == 3 ? "murmuration" : "lab", &err) == BOIDS_OK, "%s",
          err.msg);
    p.count = N;
    p.k = 7;
    if (dim == 3) {
        p.width = 600;
        p.height = 400;
        p.depth = 500;
        p.food_x = 300, p.food_y = 220, p.food_z = 250;
        p.predator_x = 300, p.predator_y = 220, p.predator_z = 250;
    }
    for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
        boids_params q = p;
        q.neighbours = runs[i].neighbours;
        q.boundary = runs[i].boundary;
        q.fov = runs[i].fov;
        q.k_in_vision = runs[i].k_in_vision;
        if (runs[i].vicsek) q.model = BOIDS_MODEL_VICSEK, q.speed = 2, q.noise = 0.5;
        if (runs[i].vision_radius > 0) q.vision_radius = runs[i].vision_radius;
        check_scenario(runs[i].name, &q, fp);
    }
}

int main(void) {
    boids_error err;
    int code;
    if (!view_fixture_open("follow_test", &code)) return code;
    for (int dim = 2; dim <= 3; dim++) {
        follow_pass *fp = follow_create(dim, &err);
        CHECK(fp != NULL, "follow_create(%d): %s", dim, err.msg);
        if (!fp) continue;
        scenarios(dim, fp);
        follow_destroy(fp);
    }
    return view_fixture_close("follow_test");
}
