/* SPDX-License-Identifier: MIT */
/* The simulation as the viewer and `boids render` see it: parameters, a backend, and the
 * GPU buffers to draw from, plus small GPU passes (order, "see what a boid sees") that
 * read only a few bytes back.
 *
 * With the gpu backend the flock is drawn straight from its state buffer. The cpu
 * backends (for comparison, or where the compute pipeline is unavailable) are downloaded
 * after each step and uploaded into buffers of the scene's own. */
#ifndef BOIDS_APP_RENDER_SCENE_H
#define BOIDS_APP_RENDER_SCENE_H

#include <stddef.h>
#include <stdint.h>

#include "boids/backend.h"
#include "boids/flock.h"
#include "boids/metrics.h"
#include "boids/params.h"
#include "cli.h"

typedef struct scene scene;

typedef struct scene_config {
    const app_opts *opts; /* backend, threads, deterministic, load, seed */
    int deterministic;    /* gpu: 1 reproducible run to run (render), 0 fast (viewer) */
    int timing;           /* 1: GPU timestamp queries around each frame's steps */
} scene_config;

/* Makes the scene on the current GL context (loaded), with the initial state of the
 * options (--load or random from --seed) for parameters p. */
scene *scene_create(const scene_config *cfg, const boids_params *p, boids_error *err);
void scene_destroy(scene *s);

/* Current parameters (the viewer edits them live; N changes go through scene_restart). */
boids_params *scene_params(scene *s);

/* Replaces the flock by a random one of p->count boids drawn with seed (any N). */
boids_status scene_restart(scene *s, const boids_params *p, uint64_t seed, boids_error *err);

/* The interaction points and obstacles of the following steps (boids_backend_set_interact;
 * the table is copied). It reaches the backend only when it differs from the table the
 * backend holds, so the viewer hands its table over every frame. A new scene takes
 * opts->inter (none when NULL); a restart keeps the table. */
boids_status scene_set_interact(scene *s, const boids_interact *in, boids_error *err);

/* Advances `steps` steps with the current parameters. */
boids_status scene_step(scene *s, unsigned steps, boids_error *err);

/* Steps done since creation or the latest restart. */
uint64_t scene_steps(const scene *s);

/* Buffers to draw from: N vec4 state and N uint ids, valid until the next step/restart. */
void scene_buffers(const scene *s, unsigned *state, unsigned *ids, size_t *n);

/* 3-D (dim = 3): the buffers of render.h's 3-D layout, valid until the next step/restart;
 * returns 0 for a 2-D flock. On gpu the positions and velocities are the backend's own
 * (cell order) and the previous velocities are put in that order after each step (a small
 * pass, view_prev3.comp); the cpu backends' are uploaded after each step. */
int scene_buffers3(const scene *s, unsigned *pos, unsigned *vel, unsigned *prev, size_t *n);

/* 3-D: the id of the boid whose direction from eye is nearest the ray along dir (unit
 * length), into *id; 0 when none is in front of the eye, or for a 2-D flock (follow3.h). */
int scene_pick3(scene *s, const float eye[3], const float dir[3], uint32_t *id);

/* 3-D: boid id's state (x, y, z, vx, vy, vz), the number of boids it counts by its step's
 * rule (follow3.h: on the host in the cpu backends' own precision, by a pass on gpu) and its
 * slot in scene_buffers3's buffers; they are marked in scene_follow_marks(). Returns 0 if
 * there is no such id (or no memory for the marks). */
int scene_follow3(scene *s, uint32_t id, float state[6], unsigned *count, size_t *slot);

/* The cpu backends' flock as downloaded after the latest step (id order); NULL on gpu. */
const boids_flock *scene_host(const scene *s);

const char *scene_backend_name(const scene *s);

/* Order on the GPU (3-D on the cpu backends: on the host, at once): scene_order_request() starts a
 * reduction; scene_order_poll() returns 1 and the value once the GPU has finished (without
 * waiting), else 0. wait != 0 blocks. */
void scene_order_request(scene *s);
int scene_order_poll(scene *s, int wait, double *order);

/* The id of the boid nearest to world point (x, y) (shortest image in wrap mode). */
uint32_t scene_nearest(scene *s, double x, double y);

/* State of boid `id` and the number of neighbours it counts under the current parameters
 * (the step's rule: follow.h), marked in scene_follow_marks(); returns 0 if there is no
 * such id (or no memory for the marks). Reads back 48 bytes. */
int scene_follow(scene *s, uint32_t id, float state[4], unsigned *neighbours);

/* The marks of the latest scene_follow (3-D: scene_follow3): a buffer of one uint per boid
 * of scene_buffers()' state (3-D: scene_buffers3's), 1 for the boids the followed one
 * counts. */
unsigned scene_follow_marks(const scene *s);

/* GPU time of the steps of recent frames, milliseconds per frame (timestamp queries,
 * read a few frames late so nothing waits); negative until the first result. */
double scene_gpu_ms(const scene *s);

/* Mean distance from (x, y) to the boids (shortest image in wrap mode): reads the whole
 * flock back, for tests and --stats only. */
boids_status scene_mean_distance(scene *s, double x, double y, double *mean, boids_error *err);

/* Every observable of boids_metrics for the current state: the gpu backend's flock is
 * read back (16 bytes a boid) into a buffer the scene keeps. */
boids_status scene_metrics(scene *s, boids_metrics *m, boids_error *err);

#endif
