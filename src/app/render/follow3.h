/* SPDX-License-Identifier: MIT */
/* "See what a boid sees" in 3-D (dim = 3): the boids a followed boid counts, marked for
 * boid3.vert to highlight, by exactly the rule the backend's step uses.
 *
 * On the gpu backend a pass over its state buffers (shaders/view_follow3.comp: rules3.glsl's
 * rules3_neighbour, and select3.glsl's selection for topological neighbours) marks them in
 * a buffer of its own and reads back 64 bytes. The cpu backends hold the flock on the host:
 * follow3_host decides there with rules.h in the backend's own precision (float for the cpu
 * grid, whose float state the host holds exactly; double for cpu-ref), so that the marks are
 * the step's set bit for bit on every backend. Picking the boid under the pointer is a pass
 * too, on any backend's buffers. The GL functions need a current GL 4.3 context, no window. */
#ifndef BOIDS_APP_FOLLOW3_H
#define BOIDS_APP_FOLLOW3_H

#include <stddef.h>
#include <stdint.h>

#include "boids/error.h"
#include "boids/flock.h"
#include "boids/params.h"

typedef struct follow3_pass follow3_pass;

follow3_pass *follow3_create(boids_error *err);
void follow3_destroy(follow3_pass *f);

/* A 3-D state on the GPU (render.h's layout): positions and velocities (vec4 each) and the
 * uint ids of n boids, slot for slot, in any order. */
typedef struct follow3_state {
    unsigned pos, vel, ids;
    size_t n;
} follow3_state;

/* The id of the boid whose direction from eye is nearest the ray along dir (unit length),
 * ties to the smallest id, into *id; returns 0 (and leaves *id) when no boid is in front of
 * the eye. */
int follow3_pick(follow3_pass *f, const follow3_state *s, const boids_params *p, const float eye[3],
                 const float dir[3], uint32_t *id);

typedef struct follow3_result {
    int found;      /* 0: no boid has that id */
    size_t slot;    /* its slot in the state buffers */
    float state[6]; /* x, y, z, vx, vy, vz */
    unsigned count; /* the boids it counts (marked) */
} follow3_result;

/* Finds boid `id` in s and marks the boids it counts under p in follow3_seen_buffer(), one
 * uint per slot (1: counted; never the followed boid itself). Out of GPU memory for the
 * marks is an error; topological k beyond the shaders' limit marks nothing. */
boids_status follow3_run(follow3_pass *f, const follow3_state *s, const boids_params *p,
                         uint32_t id, follow3_result *out, boids_error *err);
unsigned follow3_seen_buffer(const follow3_pass *f);

/* The boids that boid i of the 3-D flock fl counts under p, by rules.h on the host, in
 * float (single != 0: the cpu grid's arithmetic on its float state) or in double (cpu-ref):
 * metric, the others within the vision radius (Vicsek: at most R away; Reynolds: closer
 * than R and inside the field-of-view cone); topological, the k nearest of the others by
 * (squared distance, id) inside the cone for Reynolds, within R only with k_in_vision.
 * Writes their indices, ascending, into nb (room for fl->n) and returns their number. */
size_t follow3_host(const boids_flock *fl, const boids_params *p, size_t i, int single,
                    uint32_t *nb);

#endif
