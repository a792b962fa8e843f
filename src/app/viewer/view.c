/* SPDX-License-Identifier: MIT */
/* The viewer's frame loop: view_run opens the window, then each frame hands the pointer
 * to the flock, steps, follows a boid, draws and swaps. The other view_*.c files hold the
 * rest, one concern each (the map is in view_internal.h). */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <glad/gl.h>
/* glad provides the GL declarations; GLFW must not include its own. */
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include "cli/progress.h"
#include "clock.h"
#include "render/dive.h"
#include "viewer/view_internal.h"

const char *const view_pointer_names[VIEW_POINTERS + 1] = {"off", "predator", "food", "hover",
                                                           NULL};

uint64_t view_now_ns(void) {
    return (uint64_t)(mono_seconds() * 1e9);
}

boids_status view_start_interact(view_opts *o, const boids_params *p, boids_error *err) {
    if (app_interact(&o->app, p, &o->inter, err)) return err->status;
    return o->app.config ? render_look_load_ini(&o->look, o->app.config, err) : BOIDS_OK;
}

/* ---- one frame ---------------------------------------------------------------------------- */

static boids_status screenshot(view *v, const char *path) {
    const unsigned char *px = view_grab(v);
    return px ? render_write_png(path, v->window.fb_w, v->window.fb_h, px, &v->err) : v->err.status;
}

/* For the screenshot and record keys: reserved with O_EXCL, so that two in one second at
 * one step, or two viewers in one folder, never write the same name. */
int view_new_file(view *v, const char *ext, char *path, size_t size) {
    char stamp[32];
    time_t t = time(NULL);
    struct tm tm;
    localtime_r(&t, &tm);
    strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
    const char *dir = v->o->shot_dir ? v->o->shot_dir : ".";
    for (int k = 1; k < 1000; k++) {
        char more[16] = "";
        if (k > 1) snprintf(more, sizeof more, "-%d", k);
        int len = snprintf(path, size, "%s/boids-%s-%llu%s%s", dir, stamp,
                           (unsigned long long)scene_steps(v->sc), more, ext);
        if (len < 0 || (size_t)len >= size) break;
        int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
        if (fd >= 0) return close(fd), 1;
        if (errno != EEXIST) {
            boids_error_set(&v->err, BOIDS_ERR_RUNTIME, "%s: %s", path, strerror(errno));
            return 0;
        }
    }
    boids_error_set(&v->err, BOIDS_ERR_RUNTIME, "%s: no free file name for boids-%s-%llu%s", dir,
                    stamp, (unsigned long long)scene_steps(v->sc), ext);
    return 0;
}

static void shot_key(view *v) {
    char path[4096];
    if (!view_new_file(v, ".png", path, sizeof path)) {
        view_say(v, "%s", v->err.msg);
    } else if (screenshot(v, path)) {
        unlink(path);
        view_say(v, "%s", v->err.msg);
    } else {
        view_say(v, "wrote %s", path);
    }
    boids_error_clear(&v->err);
}

/* The followed boid's vision circle, dashed separation circle and field-of-view wedge, as
 * the model uses them: Vicsek has no field of view and no separation; topological
 * neighbours reach past the vision radius unless k_in_vision (the wedge then shows the
 * direction only, drawn to the radius). */
static void follow_overlay(view *v, const render_camera *c) {
    const boids_params *p = scene_params(v->sc);
    const int vicsek = p->model == BOIDS_MODEL_VICSEK;
    const int radius = p->neighbours != BOIDS_NEIGHBOURS_TOPOLOGICAL || p->k_in_vision;
    double px, py;
    render_world_to_px(c, v->follow.pos[0], v->follow.pos[1], &px, &py);
    float R = (float)(p->vision_radius * c->scale), Rs = (float)(p->separation_radius * c->scale);
    float head = atan2f(v->follow.vel[1], v->follow.vel[0]);
    float half = vicsek ? (float)M_PI : (float)(p->fov * M_PI / 360.0);
    render_wedge(v->r, (float)px, (float)py, R, head - half, head + half, 0x5b8def30);
    if (radius) render_circle(v->r, (float)px, (float)py, R, 1.5f, 0, 0x8fb4ffd0);
    if (!vicsek) render_circle(v->r, (float)px, (float)py, Rs, 1.5f, 5, 0xffd166d0);
}

/* Where the pointer is in the world (wrapped into it in wrap mode), and whether it acts. */
typedef struct pointer_at {
    double wx, wy;
    int hover;  /* in the window, moved since the start, and not over the panel */
    int active; /* predator or food acting on the flock this frame */
} pointer_at;

/* Hands this frame's mouse to the panel, and the pointer's predator or food to the steps
 * (view_step puts it in the parameters' single predator or food point). */
static pointer_at pointer_to_flock(view *v, const render_camera *c) {
    const boids_params *p = scene_params(v->sc);
    ui *u = &v->panel.ui;
    u->mx = v->input.mx;
    u->my = v->input.my;
    u->down = v->input.left_down;
    u->pressed = v->input.left_pressed;
    u->released = v->input.left_released;
    v->input.left_pressed = v->input.left_released = 0;
    /* The pointer acts on the flock when it is not busy with the panel. */
    int on_panel = v->panel.shown && (u->over_panel || v->input.press_on_panel || u->active);
    int pressed = v->input.left_down && !on_panel;
    /* A pointer nobody has moved (a window opened under it) is nobody's. */
    pointer_at at = {0, 0, v->input.in_window && v->input.moved && !on_panel, 0};
    render_px_to_world(c, v->input.mx, v->input.my, &at.wx, &at.wy);
    if (p->boundary == BOIDS_BOUNDARY_WRAP) {
        at.wx -= floor(at.wx / p->width) * p->width;
        at.wy -= floor(at.wy / p->height) * p->height;
    }
    /* In 3-D the left button turns the camera: the pointer does not act. */
    int flat = !view_is3d(v);
    int pred = flat && ((v->input.pointer == VIEW_POINTER_PREDATOR && pressed) ||
                        (v->input.pointer == VIEW_POINTER_HOVER && at.hover));
    int food = flat && v->input.pointer == VIEW_POINTER_FOOD && pressed;
    v->input.ptr_predator = pred;
    v->input.ptr_food = food;
    v->input.ptr_x = at.wx;
    v->input.ptr_y = at.wy;
    at.active = pred || food;
    return at;
}

/* The follow toggle (`f`, the panel) picks the boid under the pointer: the plane's nearest
 * the world point (wx, wy), the box's nearest the pointer's ray. A followed boid's state and
 * the boids it counts (marked for drawing: follow.h) are read each frame, and a locked
 * camera moves with it. */
static void follow_update(view *v, double wx, double wy, render_camera *c) {
    if (v->follow.want_toggle) {
        v->follow.want_toggle = 0;
        float from[3] = {(float)wx, (float)wy, 0}, dir[3] = {0, 0, 0};
        if (view_is3d(v)) view_camera_ray(v, from, dir);
        uint32_t id = 0;
        if (v->follow.on) {
            v->follow.on = v->camera.lock = 0;
        } else if (scene_pick(v->sc, from, dir, &id)) {
            v->follow.on = 1;
            v->follow.id = id;
        }
    }
    v->follow.found =
        v->follow.on && scene_follow(v->sc, v->follow.id, v->follow.pos, v->follow.vel,
                                     &v->follow.count, &v->follow.slot);
    if (!v->follow.found) return;
    view_camera_follow(v, v->follow.pos);
    *c = view_camera(v);
}

/* The world's edges: where it wraps (thin) or its walls (bright, with the margin where
 * their push starts dashed); an open plane has none. */
static void edges_draw(view *v, const render_camera *c) {
    const boids_params *p = scene_params(v->sc);
    if (p->boundary == BOIDS_BOUNDARY_OPEN) return;
    int walls = p->boundary == BOIDS_BOUNDARY_WALLS;
    double x0, y0, x1, y1;
    render_world_to_px(c, 0, 0, &x0, &y0);
    render_world_to_px(c, p->width, p->height, &x1, &y1);
    float w = walls ? 2.5f : 1;
    uint32_t col = walls ? 0xc8ccd8d0 : 0x5b6478a0;
    float ax = (float)x0, ay = (float)y0, bx = (float)x1, by = (float)y1;
    render_line(v->r, ax, ay, bx, ay, w, col);
    render_line(v->r, bx, ay, bx, by, w, col);
    render_line(v->r, bx, by, ax, by, w, col);
    render_line(v->r, ax, by, ax, ay, w, col);
    float m = (float)(p->wall_margin * c->scale);
    if (!walls || m < 4 || 2 * m >= bx - ax || 2 * m >= by - ay) return;
    /* Dashes every 12 pixels from the margin's corner, only those in the window (zoomed
     * in, the margin may be thousands of pixels long). */
    float x0d = ax + m + 12 * floorf(fmaxf(0, -(ax + m)) / 12);
    float y0d = ay + m + 12 * floorf(fmaxf(0, -(ay + m)) / 12);
    for (float x = x0d; x < fminf(bx - m, (float)c->fb_w); x += 12) {
        float e = fminf(x + 6, bx - m);
        render_line(v->r, x, ay + m, e, ay + m, 1, 0x8a93a660);
        render_line(v->r, x, by - m, e, by - m, 1, 0x8a93a660);
    }
    for (float y = y0d; y < fminf(by - m, (float)c->fb_h); y += 12) {
        float e = fminf(y + 6, by - m);
        render_line(v->r, ax + m, y, ax + m, e, 1, 0x8a93a660);
        render_line(v->r, bx - m, y, bx - m, e, 1, 0x8a93a660);
    }
}

/* The predators and attractors that are on, as circles of their reach facing the viewer;
 * the diving predator where the next step has it. */
static void points_draw_box(view *v) {
    boids_params dived = *scene_params(v->sc);
    dive_apply(scene_params(v->sc), scene_steps(v->sc), &dived);
    const boids_params *p = &dived;
    if (p->predator) {
        const float c[3] = {(float)p->predator_x, (float)p->predator_y, (float)p->predator_z};
        render_world_circle(v->r, c, (float)p->predator_radius, 0xff5a4ad0);
        render_world_circle(v->r, c, (float)p->predator_radius * 0.06f, 0xff5a4aff);
    }
    if (p->food) {
        const float c[3] = {(float)p->food_x, (float)p->food_y, (float)p->food_z};
        render_world_circle(v->r, c, (float)p->food_radius, 0x6bd66bc0);
        render_world_circle(v->r, c, (float)p->food_radius * 0.06f, 0x6bd66bff);
    }
}

/* The flock, and what is drawn with it in world coordinates: the plane's trails and
 * density layer, the followed boid's circles, the edges, the obstacles and points and the
 * pointer; the box's edges, the followed boid's cone and the points. */
static void draw_world(view *v, const render_camera *c, const pointer_at *at) {
    const boids_params *p = scene_params(v->sc);
    const int box = view_is3d(v);
    render_flock f = {0};
    scene_buffers(v->sc, &f);
    f.colour = v->run.colour;
    f.length = v->sim.boid_len;
    f.min_px = 1.5 * v->panel.ui.ts;
    f.follow = v->follow.on && v->follow.found;
    f.follow_slot = v->follow.slot;
    f.seen_buf = scene_follow_marks(v->sc);
    const int clean = render_get_look(v->r)->clean != RENDER_CLEAN_OFF;
    if (box) {
        render_view3 rv = view_camera_box(v);
        render_set_view(v->r, &rv);
        render_draw_flock(v->r, p, &f);
        const float size[3] = {(float)p->width, (float)p->height, (float)p->depth};
        if (!clean) render_world_box(v->r, size, p->boundary);
        if (f.follow) render_world_cone(v->r, p, v->follow.pos, v->follow.vel);
        if (!clean) points_draw_box(v);
        return;
    }
    render_layer_begin(v->r, c, f.n);
    render_draw_flock(v->r, p, &f);
    render_layer_end(v->r);
    if (f.follow) follow_overlay(v, c);
    if (!clean) edges_draw(v, c);
    render_interact(v->r, c, &v->sim.inter, 3 * v->panel.ui.ts);
    if (!clean && v->input.pointer != VIEW_POINTER_OFF && at->hover)
        view_pointer_draw(v, c, at->active);
}

static void draw(view *v, const render_camera *c, const pointer_at *at) {
    ui *u = &v->panel.ui;
    render_begin(v->r, c);
    draw_world(v, c, at);
    if (v->hud.shown) view_hud_draw(v);
    if (v->panel.shown)
        view_panel_draw(v);
    else
        u->over_panel = 0, u->active = 0;
    if (v->hud.help) view_help_draw(v);
    render_flush(v->r);
}

/* The frame's screenshots (key, --screenshot after the last frame), then the swap. */
static boids_status present(view *v, long frame_no) {
    v->recording.grabbed = 0;
    for (; v->run.want_shot > 0; v->run.want_shot--) shot_key(v);
    if (view_record_frame(v)) {
        /* --record, --stream: the video is the point of the run */
        if (v->o->record || v->o->stream) return v->err.status;
        view_say(v, "%s", v->err.msg);
        boids_error_clear(&v->err);
    }
    if (v->recording.want) {
        v->recording.want = 0;
        boids_status st = v->recording.out[VIEW_VIDEO_RECORD].pid > 0 ? view_record_stop(v)
                                                                      : view_record_start(v, NULL);
        if (st) view_say(v, "%s", v->err.msg);
        boids_error_clear(&v->err);
    }
    if (v->o->frames > 0 && frame_no + 1 >= v->o->frames && v->o->shot_at_exit) {
        boids_status st = screenshot(v, v->o->shot_at_exit);
        if (st) return st;
    }
    glfwSwapBuffers(v->win);
    return BOIDS_OK;
}

/* Frame time (smoothed) and steps per second (over each second) for the HUD. */
static void measure(view *v, uint64_t t0) {
    uint64_t t1 = view_now_ns();
    double ms = (double)(t1 - t0) * 1e-6;
    v->run.frame_ms = v->run.frame_ms > 0 ? 0.9 * v->run.frame_ms + 0.1 * ms : ms;
    view_frame_time(v, ms);
    view_step_cap(v, ms);
    if (t1 - v->run.rate_t0 >= 1000000000u) {
        v->run.steps_per_s =
            (double)(scene_steps(v->sc) - v->run.rate_steps0) * 1e9 / (double)(t1 - v->run.rate_t0);
        if (scene_steps(v->sc) < v->run.rate_steps0) v->run.steps_per_s = 0; /* restarted */
        v->run.rate_t0 = t1;
        v->run.rate_steps0 = scene_steps(v->sc);
    }
}

/* One frame: pointer, steps, follow, order, drawing. 0 if it failed (v->err says why). */
static int frame(view *v, long frame_no) {
    uint64_t t0 = view_now_ns();
    view_osc_poll(v, t0);
    view_attract_update(v, t0);
    view_camera_fly(v, t0);
    render_camera c = view_camera(v);
    pointer_at at = pointer_to_flock(v, &c);
    if (view_step(v, t0)) return 0;
    view_camera_flock(v, t0);
    c = view_camera(v);
    follow_update(v, at.wx, at.wy, &c);
    view_order_update(v, t0);
    if (v->window.fb_w <= 0 || v->window.fb_h <= 0) {
        /* Minimised: nothing to draw and no swap to pace the loop; the flock goes on. */
        struct timespec ts = {0, 16000000};
        nanosleep(&ts, NULL);
        return 1;
    }
    draw(v, &c, &at);
    if (present(v, frame_no)) return 0;
    measure(v, t0);
    return 1;
}

/* ---- the window's life ------------------------------------------------------------------- */

static void on_glfw_error(int code, const char *msg) {
    (void)code;
    static char last[256];
    snprintf(last, sizeof last, "%s", msg);
    (void)last;
}

/* --warmup: the steps before the first frame, with a progress line (a large flock takes
 * minutes). */
static boids_status warmup(view *v, boids_error *err) {
    long left = v->o->warmup;
    if (left <= 0) return BOIDS_OK;
    app_progress bar;
    app_progress_begin(&bar, "boids view --warmup", "steps", (double)left);
    boids_status st = BOIDS_OK;
    for (long done = 0; !st && done < v->o->warmup && !glfwWindowShouldClose(v->win); done += 100) {
        app_progress_update(&bar, (double)done, NULL, 0);
        long k = v->o->warmup - done < 100 ? v->o->warmup - done : 100;
        st = scene_step(v->sc, (unsigned)k, err);
        if (!st && view_signals_poll(v)) glfwSetWindowShouldClose(v->win, 1);
    }
    app_progress_end(&bar);
    return st;
}

/* Everything after the window: renderer, scene, and the settings the options start with. */
static boids_status start(view *v, const view_opts *o, const boids_params *p, boids_error *err) {
    v->o = o;
    v->window.renderer = (const char *)glGetString(GL_RENDERER);
    if (!v->window.renderer) v->window.renderer = "?";
    glfwGetWindowSize(v->win, &v->window.win_w, &v->window.win_h);
    glfwGetFramebufferSize(v->win, &v->window.fb_w, &v->window.fb_h);
    if (!(v->r = render_create(p->dim, err))) return err->status;
    render_set_look(v->r, &o->look);
    /* The world takes the shape of the part of the window beside the panel (the whole
     * window without it) at the preset's density, so that it fills it without bands; a world
     * whose size was given (--config, --set, --load) keeps it. */
    v->panel.ui.ts = (float)view_text_scale(v->window.fb_h);
    double pw = o->panel ? view_panel_width(v) : 0;
    if (pw > v->window.fb_w / 2)
        pw = 0; /* too narrow for both: the panel floats over (view_camera_fit) */
    v->sim.aspect =
        v->window.fb_w > 0 && v->window.fb_h > 0 ? (v->window.fb_w - pw) / v->window.fb_h : 0;
    boids_params q = *p;
    if (o->scale_world) {
        boids_params_fit_world(&q, &o->base, v->sim.aspect, NULL);
        if (boids_params_validate(&q, err)) return err->status;
    }
    p = &q;
    /* On a software renderer the compute shaders run on the CPU through llvmpipe, many
     * times slower than the cpu backend's grid; GL then only draws. */
    v->app = o->app;
    if (!strcmp(v->app.backend, "auto")) v->app.backend = view_software_renderer() ? "cpu" : "gpu";
    scene_config cfg = {&v->app, v->app.deterministic == 1, 1};
    if (!(v->sc = o->replay ? scene_create_replay(p, err) : scene_create(&cfg, p, err)))
        return err->status;
    v->sim.start = *scene_params(v->sc);
    v->sim.seed = o->app.seed;
    v->sim.base = o->base;
    v->sim.scale_world = o->scale_world;
    v->sim.boid_len = o->boid_len > 0 ? o->boid_len : render_default_length(p);
    if (o->boid_len <= 0 && o->look.size > 0) v->sim.boid_len = o->look.size;
    view_save_weights(v);
    v->sim.inter = o->inter;
    if (view_osc_open(v, err)) return err->status;
    v->hud.shown = o->hud;
    v->panel.shown = o->panel;
    v->pace.rate = o->rate;
    v->pace.steps_per_frame = o->steps_per_frame;
    v->run.colour = o->colour;
    v->input.pointer = o->pointer;
    if (o->replay && view_replay_start(v)) return *err = v->err, err->status;
    v->panel.ui.r = v->r;
    if (warmup(v, err)) return err->status;
    view_camera_fit(v);
    if (o->follow_flock) view_camera_flock_toggle(v);
    if (o->record && view_record_start(v, o->record)) return *err = v->err, err->status;
    if (view_stream_start(v)) return *err = v->err, err->status;
    v->pace.anchor_ns = v->run.rate_t0 = v->life.input_ns = view_now_ns();
    if (o->app.verbose)
        fprintf(stderr, "boids view: %s, GL %s, backend %s, %ld boids in %g x %g\n",
                v->window.renderer, glGetString(GL_VERSION), scene_backend_name(v->sc),
                scene_params(v->sc)->count, scene_params(v->sc)->width,
                scene_params(v->sc)->height);
    return BOIDS_OK;
}

/* Frames until the window closes or --frames are done; *frames counts them. */
static boids_status run_loop(view *v, long *frames, boids_error *err) {
    const view_opts *o = v->o;
    while (!glfwWindowShouldClose(v->win)) {
        if (view_signals_poll(v)) break;
        glfwPollEvents();
        view_script_pointer(v);
        if (o->keys && !view_script_keys(v, *frames))
            return boids_error_set(err, BOIDS_ERR_INPUT, "--keys '%s': malformed", o->keys);
        if (!frame(v, *frames)) {
            *err = v->err;
            return err->status ? err->status : BOIDS_ERR_RUNTIME;
        }
        ++*frames;
        if (o->frames > 0 && *frames >= o->frames) break;
        if (v->run.want_quit) break;
    }
    return BOIDS_OK;
}

/* --stats: one CSV line of measurements and the live settings, on stdout. */
static boids_status print_stats(view *v, long frames, double sec, boids_error *err) {
    const view_opts *o = v->o;
    double ord = 0, dist = 0;
    scene_order_request(v->sc);
    scene_order_poll(v->sc, 1, &ord);
    double qx = o->press ? o->press_x : scene_params(v->sc)->width / 2;
    double qy = o->press ? o->press_y : scene_params(v->sc)->height / 2;
    boids_status st = scene_mean_distance(v->sc, qx, qy, &dist, err);
    if (st) return st;
    const boids_params *p = scene_params(v->sc);
    printf("frames,seconds,fps,steps,n,order,point_x,point_y,mean_distance,"
           "separation_weight,alignment_weight,cohesion_weight,vision_radius,"
           "separation_radius,fov,boundary,width,height,paused,pointer,colour,following,"
           "model,max_speed,min_speed,max_force,speed,noise,predator,predator_x,predator_y,"
           "food,food_x,food_y,obstacles,fb_w,fb_h,frame_p50_ms,frame_p95_ms,frame_p99_ms,"
           "frame_max_ms,predators_on,attractors_on,max_steps_per_frame\n");
    printf("%ld,%.3f,%.2f,%llu,%ld,%.6f,%g,%g,%.6f,%g,%g,%g,%g,%g,%g,%d,%g,%g,%d,%d,%d,%d,", frames,
           sec, sec > 0 ? (double)frames / sec : 0, (unsigned long long)scene_steps(v->sc),
           p->count, ord, qx, qy, dist, p->separation_weight, p->alignment_weight,
           p->cohesion_weight, p->vision_radius, p->separation_radius, p->fov, p->boundary,
           p->width, p->height, v->pace.paused, (int)v->input.pointer, (int)v->run.colour,
           v->follow.on);
    printf("%d,%g,%g,%g,%g,%g,%d,%g,%g,%d,%g,%g,%d,%d,%d,", p->model, p->max_speed, p->min_speed,
           p->max_force, p->speed, p->noise, p->predator, p->predator_x, p->predator_y, p->food,
           p->food_x, p->food_y, v->sim.inter.obstacle_count, v->window.fb_w, v->window.fb_h);
    int preds = 0, attrs = 0;
    for (int i = 0; i < BOIDS_MAX_POINTS; i++) {
        preds += v->sim.inter.predators[i].on;
        attrs += v->sim.inter.attractors[i].on;
    }
    printf("%.2f,%.2f,%.2f,%.2f,%d,%d,%u\n", view_frame_percentile(v, 0.5),
           view_frame_percentile(v, 0.95), view_frame_percentile(v, 0.99), v->life.frame_max_ms,
           preds, attrs, v->pace.max_frame_steps);
    fflush(stdout);
    return BOIDS_OK;
}

static void close_view(view *v, const view_opts *o) {
    view_record_abort(v); /* a failed run: no video left behind */
    view_replay_free(v);
    view_osc_close(v);
    if (o->app.verbose >= 2)
        fprintf(stderr, "boids view: GL debug: %lu errors, %lu messages%s%s\n",
                v->window.glog.errors, v->window.glog.messages,
                v->window.glog.errors ? "; last error: " : "", v->window.glog.last_error);
    scene_destroy(v->sc);
    render_destroy(v->r);
    if (v->win) glfwDestroyWindow(v->win);
    glfwTerminate();
    free(v);
}

boids_status view_run(const view_opts *o, const boids_params *p, boids_error *err) {
    view *v = calloc(1, sizeof *v);
    if (!v) return boids_error_set(err, BOIDS_ERR_NOMEM, "out of memory");
    boids_error_clear(&v->err);
    glfwSetErrorCallback(on_glfw_error);
    if (!glfwInit()) {
        const char *why = NULL;
        glfwGetError(&why);
        free(v);
        return boids_error_set(err, BOIDS_ERR_INPUT,
                               "no display to open a window on (%s); `boids render` draws frames "
                               "offscreen and `boids sim` runs without a window",
                               why ? why : "GLFW could not start");
    }
    /* Before start() says it runs (-v): a SIGHUP sent on that line must find the handler. */
    view_signals_install();
    boids_status st = view_window_open(v, o, err);
    if (!st) st = start(v, o, p, err);
    if (!st) {
        view_callbacks_install(v);
        uint64_t t0 = view_now_ns();
        long frames = 0;
        st = run_loop(v, &frames, err);
        if (view_record_finish(v) && !st && (o->record || o->stream))
            *err = v->err, st = err->status;
        if (!st && o->stats) st = print_stats(v, frames, (double)(view_now_ns() - t0) * 1e-9, err);
    }
    close_view(v, o);
    view_signals_restore();
    return st;
}
