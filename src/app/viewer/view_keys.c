/* SPDX-License-Identifier: MIT */
/* The viewer's keys: one table says which key does what and how to describe it. The GLFW
 * callbacks dispatch through it, the `?` overlay lists it, and docs/viewer.md holds it as
 * Markdown (view_keys_markdown; a test checks that the two agree). */
#include <math.h>
#include <stddef.h>
#include <stdio.h>

#include <glad/gl.h>
/* glad provides the GL declarations; GLFW must not include its own. */
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include "viewer/view_internal.h"

/* ---- actions: what a key does; arg comes from its line in the table --------------------- */

static void toggle_help(view *v, int arg) {
    (void)arg;
    v->hud.help = !v->hud.help;
}

static void toggle_pause(view *v, int arg) {
    (void)arg;
    v->pace.paused = !v->pace.paused;
}

static void single_step(view *v, int arg) {
    (void)arg;
    if (v->o->replay)
        view_replay_move(v, 1);
    else
        v->pace.single = 1;
}

static void frame_back(view *v, int arg) {
    (void)arg;
    view_replay_move(v, -1);
}

static void reverse(view *v, int arg) {
    (void)arg;
    view_replay_reverse(v);
}

static void loop(view *v, int arg) {
    (void)arg;
    view_replay_loop(v);
}

/* For the keys that come in pairs, arg is the direction: +1 or -1. */
static void speed(view *v, int dir) {
    view_set_rate(v, dir > 0 ? v->pace.rate * 2 : v->pace.rate / 2);
}

/* The parameters the paired keys nudge: the field, its step and its range. */
enum { N_SEPARATION = 1, N_ALIGNMENT, N_COHESION, N_VISION, N_SEPARATION_RADIUS, N_FOV };
static const struct {
    size_t field;
    double step, lo, hi;
} nudges[] = {
    [N_SEPARATION] = {offsetof(boids_params, separation_weight), 0.1, 0, 10},
    [N_ALIGNMENT] = {offsetof(boids_params, alignment_weight), 0.1, 0, 10},
    [N_COHESION] = {offsetof(boids_params, cohesion_weight), 0.1, 0, 10},
    [N_VISION] = {offsetof(boids_params, vision_radius), 5, 1, 1000},
    [N_SEPARATION_RADIUS] = {offsetof(boids_params, separation_radius), 2, 0, 1000},
    [N_FOV] = {offsetof(boids_params, fov), 10, 10, 360},
};

/* arg: +k or -k, nudges[k] up or down by its step. */
static void nudge(view *v, int arg) {
    const int k = arg > 0 ? arg : -arg, dir = arg > 0 ? 1 : -1;
    view_nudge(v, nudges[k].field, nudges[k].step * dir, nudges[k].lo, nudges[k].hi);
}

static void count(view *v, int dir) {
    long n = scene_params(v->sc)->count;
    view_set_count(v, dir > 0 ? n * 2 : n / 2);
}

static void boundary(view *v, int arg) {
    (void)arg;
    view_toggle_boundary(v);
}

static void restart_without(view *v, int rule) {
    view_restart_without(v, rule);
}

static void restart(view *v, int arg) {
    (void)arg;
    view_restart_random(v, *scene_params(v->sc));
}

static void reset(view *v, int arg) {
    (void)arg;
    view_reset(v);
}

static void preset(view *v, int k) {
    view_apply_preset(v, k);
}

static void next_pointer(view *v, int arg) {
    (void)arg;
    v->input.pointer = (view_pointer)((v->input.pointer + 1) % VIEW_POINTERS);
}

static void follow(view *v, int arg) {
    (void)arg;
    v->follow.want_toggle = 1;
}

static void lock_camera(view *v, int arg) {
    (void)arg;
    v->camera.lock = v->follow.on && !v->camera.lock;
    if (v->camera.lock) v->camera.flock = 0;
}

static void follow_flock(view *v, int arg) {
    (void)arg;
    view_camera_flock_toggle(v);
    view_say(v, "camera %s", v->camera.flock ? "follows the flock" : "stays where it is");
}

static void fit(view *v, int arg) {
    (void)arg;
    view_camera_fit(v);
}

static void camera_mode(view *v, int arg) {
    (void)arg;
    if (!view_is3d(v)) {
        view_say(v, "%s", "orbit and fly are the 3-D camera's (--set dim=3)");
        return;
    }
    camera3_toggle(&v->camera.cam3);
    view_say(v, "camera: %s", v->camera.cam3.mode == CAMERA3_FLY ? "fly" : "orbit");
}

static void next_colour(view *v, int arg) {
    (void)arg;
    v->run.colour = (render_colour)((v->run.colour + 1) % RENDER_COLOURS);
}

static void toggle_hud(view *v, int arg) {
    (void)arg;
    v->hud.shown = !v->hud.shown;
}

static void toggle_panel(view *v, int arg) {
    (void)arg;
    v->panel.shown = !v->panel.shown;
    if (v->camera.fitted) view_camera_fit(v);
}

static void screenshot(view *v, int arg) {
    (void)arg;
    if (v->run.want_shot < VIEW_SHOTS_WAITING) v->run.want_shot++;
}

static void record(view *v, int arg) {
    (void)arg;
    v->recording.want = 1;
}

/* The clean view on / off: the look's own level (`all` keeps the obstacles out too). */
static void toggle_clean(view *v, int arg) {
    (void)arg;
    render_look l = *render_get_look(v->r);
    int on = v->o->look.clean != RENDER_CLEAN_OFF ? v->o->look.clean : RENDER_CLEAN_ON;
    l.clean = l.clean != RENDER_CLEAN_OFF ? RENDER_CLEAN_OFF : on;
    render_set_look(v->r, &l);
    view_say(v, "clean view %s", l.clean ? "on" : "off");
}

static void escape(view *v, int arg) {
    (void)arg;
    if (v->hud.help)
        v->hud.help = 0;
    else
        glfwSetWindowShouldClose(v->win, 1);
}

/* ---- the table ------------------------------------------------------------------------- */

/* One key and its action. A key is a typed character `ch` (the character callback, so it
 * follows the keyboard layout) or, for keys that type none, a GLFW key code `key`. `keys`
 * and `help` begin a line of the help; the entries after it without them are more keys of
 * that line. `keys` is Markdown, as the docs show it; the overlay drops the backticks. */
typedef struct view_key {
    unsigned ch;
    int key;
    void (*act)(view *v, int arg);
    int arg;
    const char *keys, *help;
} view_key;

static const view_key keys[] = {
    {'?', 0, toggle_help, 0, "`?`", "this help (Esc closes it)"},
    {0, GLFW_KEY_SPACE, toggle_pause, 0, "Space", "pause / run"},
    {'.', 0, single_step, 0, "`.`", "one step (when paused; a replay: one frame on, pausing)"},
    {',', 0, frame_back, 0, "`,`", "a replay: one frame back, pausing"},
    {'/', 0, reverse, 0, "`/`", "a replay: play backwards / forwards"},
    {'l', 0, loop, 0, "`l`", "a replay: loop / stop at the first and last frames"},
    {'+', 0, speed, 1, "`+` / `-`",
     "simulation speed x2 / /2 (steps per second; a replay: frames per second)"},
    {'=', 0, speed, 1, NULL, NULL}, /* + without Shift on US layouts */
    {'-', 0, speed, -1, NULL, NULL},
    {'q', 0, nudge, N_SEPARATION, "`q` / `a`", "separation weight +/- 0.1"},
    {'a', 0, nudge, -N_SEPARATION, NULL, NULL},
    {'w', 0, nudge, N_ALIGNMENT, "`w` / `s`", "alignment weight +/- 0.1"},
    {'s', 0, nudge, -N_ALIGNMENT, NULL, NULL},
    {'e', 0, nudge, N_COHESION, "`e` / `d`", "cohesion weight +/- 0.1"},
    {'d', 0, nudge, -N_COHESION, NULL, NULL},
    {'t', 0, nudge, N_VISION, "`t` / `g`", "vision radius +/- 5"},
    {'g', 0, nudge, -N_VISION, NULL, NULL},
    {'y', 0, nudge, N_SEPARATION_RADIUS, "`y` / `h`", "separation radius +/- 2"},
    {'h', 0, nudge, -N_SEPARATION_RADIUS, NULL, NULL},
    {'u', 0, nudge, N_FOV, "`u` / `j`", "field of view +/- 10 degrees"},
    {'j', 0, nudge, -N_FOV, NULL, NULL},
    {'i', 0, count, 1, "`i` / `k`", "number of boids x2 / /2 (restarts)"},
    {'k', 0, count, -1, NULL, NULL},
    {'b', 0, boundary, 0, "`b`", "edges: wrap / walls"},
    {'1', 0, restart_without, 0, "`1` / `2` / `3`",
     "restart, random boids, without separation / alignment / cohesion"},
    {'2', 0, restart_without, 1, NULL, NULL},
    {'3', 0, restart_without, 2, NULL, NULL},
    {'4', 0, restart_without, -1, "`4`", "restart, random boids, all three rules"},
    {'r', 0, restart, 0, "`r`", "restart, random boids, current settings"},
    {'0', 0, reset, 0, "`0`", "reset: starting parameters and seed"},
    {0, GLFW_KEY_F1, preset, 0, "F1 ... F8",
     "presets flock, school, swarm, chaos, lab, classic, vicsek, murmuration"},
    {0, GLFW_KEY_F2, preset, 1, NULL, NULL},
    {0, GLFW_KEY_F3, preset, 2, NULL, NULL},
    {0, GLFW_KEY_F4, preset, 3, NULL, NULL},
    {0, GLFW_KEY_F5, preset, 4, NULL, NULL},
    {0, GLFW_KEY_F6, preset, 5, NULL, NULL},
    {0, GLFW_KEY_F7, preset, 6, NULL, NULL},
    {0, GLFW_KEY_F8, preset, 7, NULL, NULL},
    {'m', 0, next_pointer, 0, "`m`",
     "pointer: off / predator / food / hover (left button: press and hold)"},
    {'f', 0, follow, 0, "`f`", "follow the boid nearest the pointer (see what it sees) / stop"},
    {'z', 0, lock_camera, 0, "`z`", "camera locks on the followed boid"},
    {'Z', 0, follow_flock, 0, "`Z`",
     "camera follows the flock's centre / stays (3-D: frames the flock; `--follow-flock`)"},
    /* The mouse, handled in view_input.c: listed for the help only. */
    {0, 0, NULL, 0, "wheel / right drag", "zoom / pan"},
    {0, 0, NULL, 0, "3-D: left drag / right drag", "orbit (fly: look around) / pan"},
    {0, 0, NULL, 0, "3-D: wheel", "zoom (fly: move forward / back)"},
    {'n', 0, camera_mode, 0, "`n`", "3-D: camera orbit / fly"},
    /* Held, polled each frame (view_camera.c); in fly mode their characters skip the table. */
    {0, 0, NULL, 0, "3-D fly: `w` `s` `a` `d` `q` `e`",
     "forward / back / left / right / down / up, Shift: faster"},
    {'v', 0, fit, 0, "`v`", "fit the world in the window (3-D: reset the camera)"},
    {'c', 0, next_colour, 0, "`c`", "colour: heading / speed / plain"},
    {'o', 0, toggle_hud, 0, "`o`", "HUD on / off"},
    {0, GLFW_KEY_TAB, toggle_panel, 0, "Tab", "control panel on / off"},
    {'x', 0, toggle_clean, 0, "`x`",
     "clean view on / off: no reach circles, pointer circle, edges (`--clean`)"},
    {'p', 0, screenshot, 0, "`p` or F12",
     "screenshot (PNG, `--screenshot-dir`, default the current folder)"},
    {0, GLFW_KEY_F12, screenshot, 0, NULL, NULL},
    {0, GLFW_KEY_F9, record, 0, "F9",
     "record a video / stop (ffmpeg, .mp4 into `--screenshot-dir`; `--record`)"},
    {0, GLFW_KEY_ESCAPE, escape, 0, "Esc", "quit"},
};
enum { NKEYS = sizeof keys / sizeof keys[0] };

/* ---- dispatch -------------------------------------------------------------------------- */

void view_on_char(GLFWwindow *w, unsigned int c) {
    view *v = glfwGetWindowUserPointer(w);
    view_input_seen(v);
    if (view_camera_captures_char(v, c)) return;
    for (int i = 0; i < NKEYS; i++)
        if (keys[i].ch == c && keys[i].act) {
            keys[i].act(v, keys[i].arg);
            return;
        }
}

void view_on_key(GLFWwindow *w, int key, int scancode, int action, int mods) {
    (void)scancode;
    (void)mods;
    view *v = glfwGetWindowUserPointer(w);
    if (action != GLFW_PRESS) return;
    view_input_seen(v);
    for (int i = 0; i < NKEYS; i++)
        if (keys[i].key == key && keys[i].act) {
            keys[i].act(v, keys[i].arg);
            return;
        }
}

/* ---- describing the keys --------------------------------------------------------------- */

/* Markdown text without its backticks, into out (cut to its size). */
static const char *plain(const char *md, char *out, size_t size) {
    size_t n = 0;
    for (; *md && n + 1 < size; md++)
        if (*md != '`') out[n++] = *md;
    out[n] = '\0';
    return out;
}

void view_help_draw(view *v) {
    render_ctx *r = v->r;
    float ts = v->panel.ui.ts, lh = 10 * ts;
    char key[64], help[128];
    int n = 0;
    float kw = 0, hw = 0;
    for (int i = 0; i < NKEYS; i++) {
        if (!keys[i].keys) continue;
        n++;
        kw = fmaxf(kw, render_text_width(plain(keys[i].keys, key, sizeof key), ts));
        hw = fmaxf(hw, render_text_width(plain(keys[i].help, help, sizeof help), ts));
    }
    kw += 8 * ts;
    float w = kw + hw, h = lh * (float)(n + 2);
    float x = ((float)v->window.fb_w - w) / 2, y = ((float)v->window.fb_h - h) / 2;
    render_rect(r, x - 8 * ts, y - 8 * ts, w + 16 * ts, h + 16 * ts, 0x0b0e17f0);
    render_text(r, x, y, ts, "KEYS", 0xffd166ff);
    for (int i = 0, line = 2; i < NKEYS; i++) {
        if (!keys[i].keys) continue;
        float ly = y + lh * (float)line++;
        render_text(r, x, ly, ts, plain(keys[i].keys, key, sizeof key), 0xffd166ff);
        render_text(r, x + kw, ly, ts, plain(keys[i].help, help, sizeof help), 0xdde3efff);
    }
}

void view_keys_markdown(FILE *out) {
    fputs("| key | action |\n| --- | --- |\n", out);
    for (int i = 0; i < NKEYS; i++)
        if (keys[i].keys) fprintf(out, "| %s | %s |\n", keys[i].keys, keys[i].help);
}
