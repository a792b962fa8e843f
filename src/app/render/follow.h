/* SPDX-License-Identifier: MIT */
/* "See what a boid sees": the boids a followed boid counts, marked for boid.vert to
 * highlight, by exactly the rule the backend's step uses, in either dimension.
 *
 * On the gpu backend a pass over its state buffers (shaders/view_follow.comp: the rules'
 * neighbour test, and the selection for topological neighbours) marks them in a buffer of
 * its own and reads back 64 bytes. The cpu backends' flock the viewer holds on the host:
 * follow_host decides there with the core's rules in the backend's own precision (float for
 * the cpu grid, whose float state the host holds exactly; double for cpu-ref), so that the
 * marks are the step's set bit for bit on every backend. Picking the boid under the pointer
 * is a pass, on any backend's buffers. The GL functions need a current GL 4.3 context, no window.
 */
#ifndef BOIDS_APP_FOLLOW_H
#define BOIDS_APP_FOLLOW_H

#include <stddef.h>
#include <stdint.h>

#include "boids/error.h"
#include "boids/flock.h"
#include "boids/params.h"

typedef struct follow_pass follow_pass;

/* The passes for flocks of dimension dim (2 or 3). */
follow_pass *follow_create(int dim, boids_error *err);
void follow_destroy(follow_pass *f);

/* A state on the GPU (render.h's layouts), n boids slot for slot, in any order: the plane,
 * pos the vec4 (x, y, vx, vy) a boid (vel unused); the box, pos the positions and vel the
 * velocities (vec4 each); ids the uint ids. */
typedef struct follow_state {
    unsigned pos, vel, ids;
    size_t n;
} follow_state;

/* The boid picked from `from` into *id, ties to the smallest id: the plane, the one nearest
 * the world point from (x, y) (shortest image in wrap mode); the box, the one whose
 * direction from the eye `from` is nearest the ray along dir (unit length). Returns 0 (and
 * leaves *id) when there is none (no boid, or none in front of the eye). */
int follow_pick(follow_pass *f, const follow_state *s, const boids_params *p, const float from[3],
                const float dir[3], uint32_t *id);

typedef struct follow_result {
    int found;      /* 0: no boid has that id */
    size_t slot;    /* its slot in the state buffers */
    float pos[3];   /* x, y (, z) */
    float vel[3];   /* vx, vy (, vz) */
    unsigned count; /* the boids it counts (marked) */
} follow_result;

/* Finds boid `id` in s and marks the boids it counts under p in follow_seen_buffer(), one
 * uint per slot (1: counted; never the followed boid itself). Out of GPU memory for the
 * marks is an error; topological k beyond the shaders' limit marks nothing. */
boids_status follow_run(follow_pass *f, const follow_state *s, const boids_params *p, uint32_t id,
                        follow_result *out, boids_error *err);
unsigned follow_seen_buffer(const follow_pass *f);

/* The boids that boid i of the flock fl (either dimension) counts under p, by the core's
 * rules (rules.h) on the host, in float (single != 0: the cpu grid's arithmetic on its float
 * state) or in double (cpu-ref): metric, the others within the vision radius (Vicsek: at
 * most R away; Reynolds: closer than R and inside the field of view); topological, the k
 * nearest of the others by (squared distance, id) inside the field of view for Reynolds,
 * within R only with k_in_vision. Writes their indices, ascending, into nb (room for fl->n)
 * and returns their number. */
size_t follow_host(const boids_flock *fl, const boids_params *p, size_t i, int single,
                   uint32_t *nb);

#endif
