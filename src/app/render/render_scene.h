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
#include "cli/cli.h"
#include "render/render.h"

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

/* A replay's scene (`--replay`): no backend, a flock of p->count boids of p->dim that
 * scene_show replaces; scene_step and scene_restart refuse (BOIDS_ERR_INPUT), the rest
 * (drawing, follow, order, metrics) works as on the cpu backends, named "replay". */
scene *scene_create_replay(const boids_params *p, boids_error *err);

/* A replay's frame f (p->count boids, id order) at step `step` (scene_steps). In 3-D prev
 * is the frame before it, whose velocities bank the boids by their turn (NULL: none, drawn
 * level), so that a frame looks the same however it was reached. */
boids_status scene_show(scene *s, const boids_flock *f, const boids_flock *prev, uint64_t step,
                        boids_error *err);

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

/* The buffers to draw from (render_flock's state_buf, id_buf, vel_buf, prev_vel_buf and n
 * in render.h's layout of the flock's dimension), valid until the next step/restart. On gpu
 * they are the backend's own (cell order; in 3-D the previous velocities are put in that
 * order after each step by a small pass, view_prev.comp); the cpu backends' are uploaded
 * after each step, ids 0..n-1. */
void scene_buffers(const scene *s, render_flock *f);

/* The boid picked from `from` (follow.h's follow_pick: the plane, nearest the world point;
 * the box, nearest the ray from the eye along dir) into *id; 0 when there is none. */
int scene_pick(scene *s, const float from[3], const float dir[3], uint32_t *id);

/* Boid id's position and velocity (the plane: x, y and vx, vy), the number of boids it
 * counts by its step's rule (follow.h: a pass on gpu, on the host in their own precision for
 * the cpu backends) and its slot in scene_buffers' buffers; they are marked in
 * scene_follow_marks(). Returns 0 if there is no such id (or no memory for the marks). */
int scene_follow(scene *s, uint32_t id, float pos[3], float vel[3], unsigned *count, size_t *slot);

/* The cpu backends' flock as downloaded after the latest step (id order); NULL on gpu. */
const boids_flock *scene_host(const scene *s);

const char *scene_backend_name(const scene *s);

/* Order on the GPU (3-D on the cpu backends: on the host, at once): scene_order_request() starts a
 * reduction; scene_order_poll() returns 1 and the value once the GPU has finished (without
 * waiting), else 0. wait != 0 blocks. */
void scene_order_request(scene *s);
int scene_order_poll(scene *s, int wait, double *order);

/* The marks of the latest scene_follow: a buffer of one uint per slot of scene_buffers',
 * 1 for the boids the followed one counts. */
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

/* Where the flock is: its centre (in a wrapping world, each axis' circular mean) and the
 * root mean square distance of its boids from it (shortest images), world units; the gpu
 * backend's flock is read back as for scene_metrics. */
boids_status scene_flock_extent(scene *s, float centre[3], float *radius, boids_error *err);

#endif
