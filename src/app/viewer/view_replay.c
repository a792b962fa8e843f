/* SPDX-License-Identifier: MIT */
/* Playing a recorded trajectory (`boids view --replay FILE`): no backend steps; each frame
 * the pace of the live run (view_steps_due: --rate a second, or --steps-per-frame) moves the
 * shown frame forwards or backwards, looping or stopping at the ends, and the frame is read
 * from the file (one frame in memory) into the scene (scene_show). The HUD's history gets
 * each shown frame's order: computed from the frame (O(N)), or the --series file's. */
#include <stdio.h>
#include <stdlib.h>

#include "boids/flock.h"
#include "viewer/view_internal.h"

/* Frame k into the scene, and its order into the HUD's history. */
static boids_status show(view *v, long k) {
    int banked;
    app_traj_in *t = v->o->replay;
    if (app_traj_in_read_shown(t, (size_t)k, &v->replay.shown[0], &v->replay.shown[1], &banked,
                               &v->err) ||
        scene_show(v->sc, &v->replay.shown[0], banked ? &v->replay.shown[1] : NULL,
                   app_traj_in_step(t, (size_t)k), &v->err))
        return v->err.status;
    v->replay.frame = k;
    view_order_push(v,
                    v->o->series_order ? v->o->series_order[k] : boids_order(&v->replay.shown[0]));
    return BOIDS_OK;
}

boids_status view_replay_start(view *v) {
    const app_traj_in *t = v->o->replay;
    v->replay.dir = 1;
    v->replay.loop = 1;
    v->input.pointer = VIEW_POINTER_OFF; /* nothing to push around: the boids are recorded */
    if (boids_flock_alloc_dim(&v->replay.shown[0], t->n, t->dim, &v->err) ||
        boids_flock_alloc_dim(&v->replay.shown[1], t->n, t->dim, &v->err))
        return v->err.status;
    return show(v, v->o->replay_from);
}

void view_replay_free(view *v) {
    boids_flock_free(&v->replay.shown[0]);
    boids_flock_free(&v->replay.shown[1]);
}

/* The frame `moves` frames on from the shown one: wrapped round when looping, else held at
 * the end it reached, and paused there. */
static long target(view *v, long moves) {
    const long frames = (long)v->o->replay->frames;
    long k = v->replay.frame + moves;
    if (v->replay.loop) return ((k % frames) + frames) % frames;
    if (k < 0 || k >= frames) {
        k = k < 0 ? 0 : frames - 1;
        if (!v->pace.paused)
            view_say(v, "%s", k ? "the recording's last frame" : "its first frame");
        v->pace.paused = 1;
    }
    return k;
}

boids_status view_replay_step(view *v, uint64_t t0) {
    long moves = v->replay.moves;
    v->replay.moves = 0;
    unsigned due = view_steps_due(v, t0); /* paused: keeps the pace's clock anchored */
    if (!v->pace.paused) moves += v->replay.dir * (long)due;
    v->pace.frame_steps = 0;
    if (moves == 0) return BOIDS_OK;
    long k = target(v, moves);
    return k == v->replay.frame ? BOIDS_OK : show(v, k);
}

void view_replay_move(view *v, int dir) {
    if (!v->o->replay) {
        view_say(v, "%s: in a replay (--replay FILE)", dir > 0 ? "one frame on" : "one frame back");
        return;
    }
    v->pace.paused = 1;
    v->replay.moves += dir;
}

void view_replay_reverse(view *v) {
    if (!v->o->replay) {
        view_say(v, "%s", "reverse: in a replay (--replay FILE)");
        return;
    }
    v->replay.dir = -v->replay.dir;
    view_say(v, "replay %s", v->replay.dir > 0 ? "forwards" : "backwards");
}

void view_replay_loop(view *v) {
    if (!v->o->replay) {
        view_say(v, "%s", "loop: in a replay (--replay FILE)");
        return;
    }
    v->replay.loop = !v->replay.loop;
    view_say(v, "replay %s", v->replay.loop ? "loops" : "stops at the ends");
}

void view_replay_line(const view *v, char *line, size_t size) {
    snprintf(line, size, "frame %ld/%zu  %ld fps %s%s%s", v->replay.frame, v->o->replay->frames,
             v->pace.rate, v->replay.dir > 0 ? ">" : "<", v->replay.loop ? "  loop" : "",
             v->pace.paused ? "  (paused)" : "");
}
