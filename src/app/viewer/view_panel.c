/* SPDX-License-Identifier: MIT */
/* The control panel on the right: the keys' actions as sliders and buttons (view_ui.h),
 * laid out top to bottom in sections. tests/view/view_test.py clicks one of its buttons by
 * pixel position: update it with the layout. */
#include <math.h>

#include "viewer/view_internal.h"

#define HEADING 0x8a93a6ffu

/* A group's heading: a click folds or unfolds the group. 1 when the group is shown. */
static int group(view *v, ui *u, const char *name, unsigned bit) {
    unsigned *folded = &v->panel.folded;
    if (ui_heading(u, 200 + (int)bit, name, (*folded & bit) != 0, HEADING)) *folded ^= bit;
    return !(*folded & bit);
}

static void presets(view *v, ui *u) {
    if (!group(v, u, "PRESETS", VIEW_FOLD_PRESETS)) return;
    int k = ui_buttons(u, 100, view_preset_names, 4, -1);
    if (k >= 0) view_apply_preset(v, k);
    k = ui_buttons(u, 101, view_preset_names + 4, 3, -1);
    if (k >= 0) view_apply_preset(v, k + 4);
    if (ui_buttons(u, 112, view_preset_names + 7, 1, -1) == 0) view_apply_preset(v, 7);
    /* A preset keeps the viewer's dimension (view_sim.c): the planar ones run in the box of
     * a 3-D viewer, and murmuration's starlings fly in the plane of a 2-D one. */
}

/* Vicsek's controls: noise, speed v0 and the radius, on log scales around the world's size
 * (the preset's R is 1 in a 10 x 10 world). */
static void vicsek_rules(view *v, ui *u) {
    boids_params np = *scene_params(v->sc);
    double side = fmin(np.width, np.height);
    int changed = 0;
    if (!group(v, u, "VICSEK", VIEW_FOLD_RULES)) return;
    changed |= ui_slider(u, 20, "noise eta", &np.noise, 0, 2 * M_PI, "%.2f rad", 0) != 0;
    changed |= ui_slider(u, 21, "speed v0", &np.speed, side * 1e-5, side * 0.1, "%.3g", 1) != 0;
    changed |= ui_slider(u, 22, "radius R", &np.vision_radius, side * 1e-3, side / 2, "%.3g", 1);
    if (changed) view_set_params(v, &np);
}

static void rules(view *v, ui *u) {
    if (scene_params(v->sc)->model == BOIDS_MODEL_VICSEK) {
        vicsek_rules(v, u);
        return;
    }
    boids_params np = *scene_params(v->sc);
    int changed = 0;
    if (!group(v, u, "RULES", VIEW_FOLD_RULES)) return;
    changed |= ui_slider(u, 1, "separation", &np.separation_weight, 0, 5, "%.2f", 0) != 0;
    changed |= ui_slider(u, 2, "alignment", &np.alignment_weight, 0, 5, "%.2f", 0) != 0;
    changed |= ui_slider(u, 3, "cohesion", &np.cohesion_weight, 0, 5, "%.2f", 0) != 0;
    changed |= ui_slider(u, 4, "vision radius", &np.vision_radius, 1, 300, "%.0f", 0) != 0;
    changed |= ui_slider(u, 5, "separation radius", &np.separation_radius, 0, 150, "%.0f", 0) != 0;
    changed |= ui_slider(u, 6, "field of view", &np.fov, 10, 360, "%.0f deg", 0) != 0;
    if (changed && view_set_params(v, &np)) view_save_weights(v);
    static const char *const edges[] = {"wrap", "walls"};
    int k = ui_buttons(u, 102, edges, 2, np.boundary);
    if (k >= 0 && k != np.boundary) view_toggle_boundary(v);
}

/* Seed 002's speed controls: min speed = max / 3 and max force = max / 30 follow the max
 * speed slider while linked. */
static void speeds(view *v, ui *u) {
    boids_params np = *scene_params(v->sc);
    if (np.model == BOIDS_MODEL_VICSEK) return;
    if (!group(v, u, "SPEED", VIEW_FOLD_SPEED)) return;
    double side = fmin(np.width, np.height) / np.dt; /* a step may not cross half of it */
    if (ui_slider(u, 23, "max speed", &np.max_speed, side * 1e-4, side * 0.45, "%.3g", 1)) {
        if (!v->panel.unlinked) {
            np.min_speed = np.max_speed / 3;
            np.max_force = np.max_speed / 30;
        }
        view_set_params(v, &np);
    }
    char line[64];
    snprintf(line, sizeof line, "min %.3g  force %.3g", np.min_speed, np.max_force);
    ui_label(u, line, 0xdde3efffu);
    static const char *const links[] = {"linked", "unlinked"};
    int k = ui_buttons(u, 110, links, 2, v->panel.unlinked);
    if (k >= 0) v->panel.unlinked = k;
}

/* With species (docs/model.md, "Species"): each species beyond 0 its main keys (the model's
 * own keys above are species 0's): its speed limit (Vicsek: v0; linked as SPEED links species
 * 0's: min a third, force a thirtieth) and its alignment weight (Vicsek: its noise). */
static void species(view *v, ui *u) {
    boids_params np = *scene_params(v->sc);
    if (np.species < 2 || !group(v, u, "SPECIES", VIEW_FOLD_SPECIES)) return;
    const int vicsek = np.model == BOIDS_MODEL_VICSEK;
    double side = fmin(np.width, np.height) / np.dt; /* a step may not cross half of it */
    int changed = 0;
    for (int s = 1; s < np.species && s < BOIDS_MAX_SPECIES; s++) {
        boids_species *q = &np.sp[s - 1];
        char a[32], b[32];
        snprintf(a, sizeof a, "%d: %s", s, vicsek ? "speed v0" : "max speed");
        snprintf(b, sizeof b, "%d: %s", s, vicsek ? "noise eta" : "alignment");
        double *speed = vicsek ? &q->speed : &q->max_speed;
        double lo = vicsek ? side * 1e-5 : side * 1e-4, hi = vicsek ? side * 0.1 : side * 0.45;
        if (ui_slider(u, 40 + 2 * s, a, speed, lo, hi, "%.3g", 1)) {
            changed = 1;
            if (!vicsek && !v->panel.unlinked) { /* as SPEED links species 0's */
                q->min_speed = q->max_speed / 3;
                q->max_force = q->max_speed / 30;
            }
        }
        if (vicsek)
            changed |= ui_slider(u, 41 + 2 * s, b, &q->noise, 0, 2 * M_PI, "%.2f rad", 0) != 0;
        else
            changed |= ui_slider(u, 41 + 2 * s, b, &q->alignment_weight, 0, 5, "%.2f", 0) != 0;
    }
    if (changed) view_set_params(v, &np);
}

static void flock(view *v, ui *u) {
    if (!group(v, u, "FLOCK", VIEW_FOLD_FLOCK)) return;
    /* The slider shows N, but restarts the flock only when let go. */
    static double count_slider = -1;
    if (u->active != 7) count_slider = (double)scene_params(v->sc)->count;
    int r = ui_slider(u, 7, "boids (on release)", &count_slider, 10, VIEW_N_MAX, "%.0f", 1);
    if (r == 2) view_set_count(v, lround(count_slider));
    double rate = (double)v->pace.rate;
    if (ui_slider(u, 8, "steps per second", &rate, 1, 960, "%.0f", 1))
        view_set_rate(v, lround(rate));
    static const char *const restarts[] = {"no sep.", "no align.", "no coh."};
    int k = ui_buttons(u, 103, restarts, 3, -1);
    if (k >= 0) view_restart_without(v, k);
    static const char *const resets[] = {"all rules", "random", "reset"};
    k = ui_buttons(u, 104, resets, 3, -1);
    if (k == 0) view_restart_without(v, -1);
    if (k == 1) view_restart_random(v, *scene_params(v->sc));
    if (k == 2) view_reset(v);
    static const char *const runs[] = {"pause", "step", "follow"};
    int sel = v->pace.paused ? 0 : v->follow.on ? 2 : -1;
    k = ui_buttons(u, 105, runs, 3, sel);
    if (k == 0) v->pace.paused = !v->pace.paused;
    if (k == 1) v->pace.single = 1;
    if (k == 2) v->follow.want_toggle = 1;
}

/* A replay's controls instead of the simulation's: its pace, a frame either way, pause,
 * direction and ends, follow. */
static void replay(view *v, ui *u) {
    if (!group(v, u, "REPLAY", VIEW_FOLD_FLOCK)) return;
    double rate = (double)v->pace.rate;
    if (ui_slider(u, 8, "frames per second", &rate, 1, 960, "%.0f", 1))
        view_set_rate(v, lround(rate));
    static const char *const moves[] = {"< frame", "pause", "frame >"};
    int k = ui_buttons(u, 113, moves, 3, v->pace.paused ? 1 : -1);
    if (k == 0 || k == 2) view_replay_move(v, k - 1);
    if (k == 1) v->pace.paused = !v->pace.paused;
    static const char *const ways[] = {"reverse", "loop", "follow"};
    k = ui_buttons(u, 114, ways, 3,
                   v->follow.on        ? 2
                   : v->replay.loop    ? 1
                   : v->replay.dir < 0 ? 0
                                       : -1);
    if (k == 0) view_replay_reverse(v);
    if (k == 1) view_replay_loop(v);
    if (k == 2) v->follow.want_toggle = 1;
}

/* Trails (30 frames, or the length the config or --trail gave) and density on or off. */
static void look(view *v, ui *u) {
    render_look l = *render_get_look(v->r);
    int dense = render_density_on(v->r, (size_t)scene_params(v->sc)->count);
    static const char *const names[] = {"trails", "density"};
    int sel = l.trail > 0 ? 0 : dense ? 1 : -1;
    int k = ui_buttons(u, 111, names, 2, sel);
    if (k == 0) l.trail = l.trail > 0 ? 0 : v->o->look.trail > 0 ? v->o->look.trail : 30;
    if (k == 1) l.density = dense ? RENDER_DENSITY_OFF : RENDER_DENSITY_ON;
    if (k >= 0) render_set_look(v->r, &l);
}

static void display(view *v, ui *u) {
    /* In 3-D the left button turns the camera: the mode applies when the flock is planar. */
    if (group(v, u, view_is3d(v) ? "POINTER (IN 2-D)" : "POINTER", VIEW_FOLD_POINTER)) {
        int k = ui_buttons(u, 106, view_pointer_names, 2, (int)v->input.pointer);
        if (k >= 0) v->input.pointer = (view_pointer)k;
        k = ui_buttons(u, 109, view_pointer_names + 2, 2, (int)v->input.pointer - 2);
        if (k >= 0) v->input.pointer = (view_pointer)(k + 2);
    }
    if (!group(v, u, "COLOUR", VIEW_FOLD_COLOUR)) return;
    int k = ui_buttons(u, 107, render_colour_names, RENDER_COLOURS, (int)v->run.colour);
    if (k >= 0) v->run.colour = (render_colour)k;
    look(v, u);
    static const char *const views[] = {"HUD", "fit", "help"};
    k = ui_buttons(u, 108, views, 3, v->hud.shown ? 0 : -1);
    if (k == 0) v->hud.shown = !v->hud.shown;
    if (k == 1) view_camera_fit(v);
    if (k == 2) v->hud.help = !v->hud.help;
}

float view_panel_width(const view *v) {
    return 150 * v->panel.ui.ts;
}

/* A panel taller than the window scrolls (mouse wheel over it); a thin bar on its left edge
 * shows which part is in view. */
static void scroll_bar(view *v, float x) {
    ui *u = &v->panel.ui;
    double max = u->h - v->window.fb_h;
    if (max <= 0) return;
    float bar = (float)v->window.fb_h * (float)v->window.fb_h / u->h;
    float at = (float)(v->panel.scroll / max) * ((float)v->window.fb_h - bar);
    render_rect(v->r, x, at, u->ts, bar, 0x8a93a6c0);
}

void view_panel_draw(view *v) {
    ui *u = &v->panel.ui;
    float pw = view_panel_width(v);
    double max = u->h - v->window.fb_h; /* the height of the previous frame */
    v->panel.scroll = fmax(0, fmin(v->panel.scroll, max));
    ui_begin(u, (float)v->window.fb_w - pw, (float)-v->panel.scroll, pw);
    scroll_bar(v, (float)v->window.fb_w - pw);
    float speed_top = 0, speed_h = 0;
    if (v->o->replay) {
        replay(v, u);
    } else {
        presets(v, u);
        rules(v, u);
        speed_top = u->y;
        speeds(v, u);
        speed_h = u->y - speed_top;
        species(v, u);
        flock(v, u);
    }
    display(v, u);
    ui_label(u, "Tab: hide panel   ?: keys", HEADING);
    ui_end(u);
    /* The first frame decides: a panel taller than the window by no more than the SPEED
     * group (1280 x 800 at text scale 2) starts with it folded, and fits; a taller one
     * scrolls, all of it unfolded, as folding one group would not make it fit. */
    if (!v->panel.fold_decided && !(v->panel.folded & VIEW_FOLD_SPEED)) {
        v->panel.fold_decided = 1;
        float heading = 10 * u->ts;
        if (u->h > v->window.fb_h && u->h - (speed_h - heading) <= v->window.fb_h)
            v->panel.folded |= VIEW_FOLD_SPEED;
    }
}
