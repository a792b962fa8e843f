/* SPDX-License-Identifier: MIT */
/* "See what a boid sees": the viewer's follow pass (shaders/view_follow.comp) over a state
 * buffer (vec4 x, y, vx, vy) and an id buffer of n boids, in any order. It marks the boids
 * that the followed one counts by the step's own rule (rules.glsl's rules_neighbour, and
 * select.glsl's selection for topological neighbours), for boid.vert to highlight, and reads
 * back only a few bytes. Needs a current GL 4.3 context, no window. */
#ifndef BOIDS_APP_FOLLOW_H
#define BOIDS_APP_FOLLOW_H

#include <stddef.h>
#include <stdint.h>

#include "boids/error.h"
#include "boids/params.h"

typedef struct follow_pass follow_pass;

follow_pass *follow_create(boids_error *err);
void follow_destroy(follow_pass *f);

/* The id of the boid nearest to world point (x, y) (shortest image in wrap mode); 0 for an
 * empty flock. */
uint32_t follow_nearest(follow_pass *f, unsigned state, unsigned ids, size_t n,
                        const boids_params *p, double x, double y);

/* Finds boid `id`: its state and the number of boids it counts under p, and marks them in
 * follow_seen_buffer(). Returns 0 (and marks nothing meaningful) if there is no such id;
 * out of memory for the marks is an error. */
boids_status follow_run(follow_pass *f, unsigned state, unsigned ids, size_t n,
                        const boids_params *p, uint32_t id, int *found, float state_out[4],
                        unsigned *count, boids_error *err);

/* The marks of the latest follow_run: one uint per slot of its state buffer, 1 where that
 * boid is counted by the followed one (never the followed boid itself). */
unsigned follow_seen_buffer(const follow_pass *f);

/* The GL objects every follow pass (this one, and follow3.h's) owns: its program, the result
 * block it reads back, the marks (one uint per slot, grown to the largest n asked for) and
 * its copy of the step's uniform block. */
typedef struct follow_gl {
    unsigned prog, result, seen, ubo;
    size_t result_bytes, seen_cap;
} follow_gl;

/* Compiles the compute shader `shader` and makes the buffers (a result block of
 * result_bytes); on failure nothing is left to free. */
boids_status follow_gl_init(follow_gl *g, const char *shader, size_t result_bytes,
                            boids_error *err);
void follow_gl_free(follow_gl *g);

/* Uses the program and binds the result block (set to init, result_bytes long), the marks
 * and our copy of the step's uniform block, made from p for n boids as the pipeline makes
 * its own (the grid's fields stay 0: the passes search no grid); the pipeline binds its own
 * block again at its next call. The caller binds the state buffers. */
void follow_gl_bind(const follow_gl *g, const boids_params *p, size_t n, const void *init);

/* Reads the result block back into out (result_bytes). */
void follow_gl_read(const follow_gl *g, void *out);

/* Grows the marks to n uints (never shrinks them); out of GPU memory is BOIDS_ERR_NOMEM. */
boids_status follow_gl_reserve(follow_gl *g, size_t n, boids_error *err);

#endif
