/* SPDX-License-Identifier: MIT */
/* Changing the simulation from the viewer (keys and panel alike) and its pace: how many
 * steps each frame takes. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "render/dive.h"
#include "viewer/view_internal.h"

const char *const view_preset_names[VIEW_PRESETS] = {"flock", "school",  "swarm",  "chaos",
                                                     "lab",   "classic", "vicsek", "murmuration"};

/* Parameters the interaction table also suits (a periodic world must stay larger than its
 * obstacles): 0 and why on the status line otherwise. */
int view_replaying(view *v) {
    if (v->o->replay) view_say(v, "%s", "a replay: the recorded run's parameters stay");
    return v->o->replay != NULL;
}

static int params_ok(view *v, const boids_params *np) {
    boids_error e;
    if (view_replaying(v)) return 0;
    if (boids_params_validate(np, &e) || boids_interact_check_world(&v->sim.inter, np, &e)) {
        view_say(v, "%s", e.msg);
        return 0;
    }
    return 1;
}

int view_set_params(view *v, const boids_params *np) {
    if (!params_ok(v, np)) return 0;
    *scene_params(v->sc) = *np;
    return 1;
}

/* 1 when the flock restarted; 0 when it did not (a replay, refused parameters: said why). */
static int restart(view *v, boids_params np, uint64_t seed) {
    boids_error e;
    if (!params_ok(v, &np)) return 0;
    if (scene_restart(v->sc, &np, seed, &e)) {
        view_say(v, "%s", e.msg);
        return 0;
    }
    v->follow.on = 0;
    view_order_clear(v);
    render_layer_reset(v->r);
    v->pace.anchor_ns = view_now_ns();
    v->pace.anchor_steps = 0;
    view_camera_fit(v);
    return 1;
}

int view_restart_random(view *v, boids_params np) {
    v->sim.restarts++;
    return restart(v, np, v->sim.seed + v->sim.restarts);
}

void view_save_weights(view *v) {
    const boids_params *p = scene_params(v->sc);
    v->sim.weights[0] = p->separation_weight;
    v->sim.weights[1] = p->alignment_weight;
    v->sim.weights[2] = p->cohesion_weight;
}

/* Seed 000's buttons: random boids with the three rules, or with rule k (0..2) removed. */
void view_restart_without(view *v, int k) {
    boids_params np = *scene_params(v->sc);
    np.separation_weight = k == 0 ? 0 : v->sim.weights[0];
    np.alignment_weight = k == 1 ? 0 : v->sim.weights[1];
    np.cohesion_weight = k == 2 ? 0 : v->sim.weights[2];
    static const char *const names[] = {"separation", "alignment", "cohesion"};
    /* A replay restarts nothing: it has said so instead. */
    if (view_restart_random(v, np) && k >= 0 && k < 3)
        view_say(v, "restarted without %s", names[k]);
}

void view_reset(view *v) {
    if (view_replaying(v)) return;
    v->sim.restarts = 0;
    restart(v, v->sim.start, v->sim.seed);
    v->sim.base = v->o->base;
    v->sim.boid_len = v->o->boid_len > 0 ? v->o->boid_len : render_default_length(&v->sim.start);
    v->sim.scale_world = v->o->scale_world;
    view_save_weights(v);
}

long view_count_max(const view *v) {
    long max = VIEW_N_MAX;
    if (!strcmp(v->app.backend, "gpu")) {
        size_t gmax = boids_gpu_max_count(NULL, 0);
        if (gmax && gmax < (size_t)max) max = (long)gmax;
    }
    return max;
}

void view_set_count(view *v, long n) {
    long max = view_count_max(v);
    if (n < 1) n = 1;
    if (n > max) {
        char line[96];
        snprintf(line, sizeof line, "N %ld is the viewer's largest", max);
        view_say(v, "%s", line);
        n = max;
    }
    boids_params np = *scene_params(v->sc);
    np.count = n;
    if (v->sim.scale_world) boids_params_fit_world(&np, &v->sim.base, v->sim.aspect, NULL);
    view_restart_random(v, np);
}

void view_apply_preset(view *v, int k) {
    view_apply_preset_named(v, view_preset_names[k]);
}

void view_apply_preset_named(view *v, const char *name) {
    boids_params np;
    boids_error e;
    if (view_replaying(v)) return;
    if (boids_preset_apply(&np, name, &e)) {
        view_say(v, "%s", e.msg);
        return;
    }
    /* Keep N; the world keeps the preset's density; the edges stay as they are unless the
     * preset has its own (one that differs from the defaults'). */
    if (np.boundary == boids_params_default().boundary) np.boundary = scene_params(v->sc)->boundary;
    /* The backend keeps the dimension it started with (a 2-D viewer shows a 3-D preset in
     * the plane, and the other way round). */
    np.dim = scene_params(v->sc)->dim;
    boids_params base = np;
    np.count = scene_params(v->sc)->count;
    boids_params_fit_world(&np, &base, v->sim.aspect, NULL);
    v->sim.base = base;
    v->sim.scale_world = 1;
    if (v->o->boid_len <= 0) v->sim.boid_len = render_default_length(&base);
    const boids_params *cur = scene_params(v->sc);
    if (np.width == cur->width && np.height == cur->height) {
        view_set_params(v, &np);
    } else {
        view_restart_random(v, np);
    }
    view_save_weights(v);
    view_say(v, "preset %s", name);
}

void view_nudge(view *v, size_t field, double delta, double lo, double hi) {
    boids_params np = *scene_params(v->sc);
    double *f = (double *)((char *)&np + field);
    *f = fmin(hi, fmax(lo, *f + delta));
    if (view_set_params(v, &np)) view_save_weights(v);
}

void view_toggle_boundary(view *v) {
    boids_params np = *scene_params(v->sc);
    np.boundary = np.boundary == BOIDS_BOUNDARY_WRAP ? BOIDS_BOUNDARY_WALLS : BOIDS_BOUNDARY_WRAP;
    view_set_params(v, &np);
}

void view_set_rate(view *v, long rate) {
    v->pace.rate = rate < 1 ? 1 : rate > 7680 ? 7680 : rate;
    v->pace.anchor_ns = view_now_ns();
    v->pace.anchor_steps = 0;
}

/* A slow machine slows the flock down rather than the frames: after a frame longer than
 * VIEW_FRAME_MS (the steps' cost shows in the frame's time, on the GPU too, where the swap
 * waits for them) the next frames take half as many steps, down to one; each frame within
 * half of it allows one more, up to VIEW_MAX_STEPS. */
void view_step_cap(view *v, double ms) {
    if (ms > VIEW_FRAME_MS && v->pace.frame_steps > 0)
        v->pace.step_cap = v->pace.frame_steps > 1 ? v->pace.frame_steps / 2 : 1;
    else if (ms < VIEW_FRAME_MS / 2 && v->pace.step_cap < VIEW_MAX_STEPS)
        v->pace.step_cap++;
    if (v->pace.step_cap < 1) v->pace.step_cap = 1;
}

/* Steps due this frame: a fixed count per frame, or real time at `rate` steps per second
 * counted in integer nanoseconds from an anchor (re-anchored each hour of steps, exactly,
 * so nothing drifts however long it runs). Falling behind drops the backlog rather than
 * spiralling: a frame never runs more than step_cap steps (view_step_cap), and only one when
 * the steps themselves are slow. */
unsigned view_steps_due(view *v, uint64_t now) {
    if (v->pace.paused) {
        v->pace.anchor_ns = now;
        v->pace.anchor_steps = 0;
        unsigned k = v->pace.single < VIEW_MAX_STEPS ? v->pace.single : VIEW_MAX_STEPS;
        v->pace.single -= k;
        return k;
    }
    if (v->pace.steps_per_frame > 0) return (unsigned)v->pace.steps_per_frame;
    if (now < v->pace.rest_until) {
        v->pace.anchor_ns = now;
        v->pace.anchor_steps = 0;
        return 0;
    }
    uint64_t hour = (uint64_t)v->pace.rate * 3600u;
    if (v->pace.anchor_steps >= hour) {
        v->pace.anchor_steps -= hour;
        v->pace.anchor_ns += 3600000000000ull;
    }
    uint64_t due = (now - v->pace.anchor_ns) / 1000u * (uint64_t)v->pace.rate / 1000000u;
    /* The steps, not the drawing, decide: a cheap step (the cpu grid at 100,000 boids, 5 ms)
     * under slow drawing (llvmpipe) may still catch up several steps a frame. */
    unsigned cap = v->pace.step_ms > 25 ? 1 : v->pace.step_cap ? v->pace.step_cap : 1;
    /* A replay shows only the frame it lands on: the frames between cost nothing. */
    if (v->o->replay) cap = UINT32_MAX;
    if (due <= v->pace.anchor_steps) return 0;
    uint64_t k = due - v->pace.anchor_steps;
    if (k > cap) {
        v->pace.anchor_ns = now;
        v->pace.anchor_steps = 0;
        return cap;
    }
    v->pace.anchor_steps += k;
    return (unsigned)k;
}

/* The steps take the interaction table as it is now, and the pointer while it acts as the
 * parameters' single predator or food point (seed 002's mouse), over their own; in 3-D the
 * diving predator (dive.h) likewise. */
boids_status view_step(view *v, uint64_t t0) {
    if (v->o->replay) return view_replay_step(v, t0);
    unsigned k = view_steps_due(v, t0);
    v->pace.frame_steps = k;
    if (k > v->pace.max_frame_steps && v->pace.steps_per_frame <= 0 && !v->pace.paused)
        v->pace.max_frame_steps = k;
    boids_status st = scene_set_interact(v->sc, &v->sim.inter, &v->err);
    if (st) return st;
    boids_params *p = scene_params(v->sc), own = *p;
    if (v->input.ptr_predator)
        p->predator = 1, p->predator_x = v->input.ptr_x, p->predator_y = v->input.ptr_y;
    if (v->input.ptr_food) p->food = 1, p->food_x = v->input.ptr_x, p->food_y = v->input.ptr_y;
    /* dive.h: in 3-D the predator dives through the roost; the steps' parameters only, so a
     * predator that is on stays on between dives */
    const boids_params base = *p;
    dive_apply(&base, scene_steps(v->sc), p);
    st = scene_step(v->sc, k, &v->err);
    *p = own;
    if (st || k == 0) return st;
    /* When a frame's steps take longer than 40 ms (a huge flock on a software rasteriser),
     * the following frames draw without stepping for as long, so that at most half the
     * time goes to the simulation and the window still answers. */
    double wall = (double)(view_now_ns() - t0) * 1e-6;
    v->pace.step_ms = v->pace.step_ms > 0 ? 0.9 * v->pace.step_ms + 0.1 * wall : wall;
    double ms = fmax(wall, scene_gpu_ms(v->sc));
    if (ms > 40) v->pace.rest_until = view_now_ns() + (uint64_t)(ms * 1e6);
    return BOIDS_OK;
}
