/* SPDX-License-Identifier: MIT */
/* What the viewer tells: the HUD (order and its history, N, rates, the settings), the
 * status line of the latest change, and the pointer's circle. */
#include <stdio.h>
#include <string.h>

#include "viewer/view_internal.h"

#define TEXT 0xdde3efffu
#define DIM  0x8a93a6ffu

void view_say(view *v, const char *fmt, const char *arg) {
    snprintf(v->hud.status, sizeof v->hud.status, fmt, arg);
    v->hud.status_until = view_now_ns() + 3000000000u;
    fprintf(stderr, "boids: ");
    fprintf(stderr, fmt, arg);
    fputc('\n', stderr);
}

void view_order_push(view *v, double order) {
    v->hud.order = order;
    v->hud.history[v->hud.hist_pos] = (float)order;
    v->hud.hist_pos = (v->hud.hist_pos + 1) % VIEW_HISTORY;
    if (v->hud.hist_len < VIEW_HISTORY) v->hud.hist_len++;
}

void view_order_clear(view *v) {
    v->hud.hist_len = 0;
}

void view_order_update(view *v, uint64_t now) {
    if (v->o->replay) return; /* each shown frame's order (view_replay.c) */
    /* Read when the GPU has it, never waiting for it. */
    double ord;
    if (scene_order_poll(v->sc, 0, &ord)) view_order_push(v, ord);
    if (now - v->hud.order_t > 100000000u) {
        v->hud.order_t = now;
        scene_order_request(v->sc);
    }
}

/* HUD text over the flock: no box behind it to dim the boids (and the trails) under it, a
 * dark shadow one font unit down and right to read on any background. */
static void hud_text(view *v, float x, float y, const char *text, uint32_t rgba) {
    float ts = v->panel.ui.ts;
    render_text(v->r, x + ts, y + ts, ts, text, 0x000000c0u);
    render_text(v->r, x, y, ts, text, rgba);
}

/* The order history right of its value at (x, y): one bar per sample, newest on the right,
 * in a frame of thin lines (no filled box). */
static void order_plot(view *v, float x, float y, float w) {
    float ts = v->panel.ui.ts, gx = x + 62 * ts, gw = w - 62 * ts, gh = 8 * ts;
    render_line(v->r, gx, y - ts + gh, gx + gw, y - ts + gh, 1, 0x8a93a6c0u);
    render_line(v->r, gx, y - ts, gx, y - ts + gh, 1, 0x8a93a6c0u);
    for (int i = 0; i < v->hud.hist_len; i++) {
        int idx = (v->hud.hist_pos - v->hud.hist_len + i + VIEW_HISTORY) % VIEW_HISTORY;
        float bw = gw / VIEW_HISTORY, hh = gh * v->hud.history[idx];
        render_rect(v->r, gx + (float)(VIEW_HISTORY - v->hud.hist_len + i) * bw, y - ts + gh - hh,
                    bw, hh, 0x5b8defff);
    }
}

/* The step's cost: CPU wall time, or the GPU's timestamp queries. */
static void step_cost(view *v, char *line, size_t size) {
    double g = scene_gpu_ms(v->sc);
    if (v->o->replay)
        snprintf(line, size, "replay: no simulation");
    else if (strcmp(scene_backend_name(v->sc), "gpu") != 0)
        snprintf(line, size, "CPU step %.2f ms/frame", v->pace.step_ms);
    else if (g >= 0)
        snprintf(line, size, "GPU compute %.2f ms/frame", g);
    else
        snprintf(line, size, "GPU compute -");
}

/* Steps per second, and whether they fall short of the rate asked for (real time only: a
 * fixed number of steps per frame asks for no rate). */
static uint32_t rate_line(view *v, char *line, size_t size) {
    int slow = !v->pace.paused && v->pace.steps_per_frame <= 0 && v->run.steps_per_s > 0 &&
               v->run.steps_per_s < 0.9 * (double)v->pace.rate;
    if (slow)
        snprintf(line, size, "steps/s %.1f < %ld asked", v->run.steps_per_s, v->pace.rate);
    else
        snprintf(line, size, "steps/s %.1f%s", v->run.steps_per_s,
                 v->pace.paused ? "  (paused)" : "");
    return slow ? 0xffd166ffu : TEXT;
}

/* The model and its settings: two lines. */
static void model_lines(const boids_params *p, char *a, char *b, size_t size) {
    if (p->model == BOIDS_MODEL_VICSEK) {
        snprintf(a, size, "eta %.2f  v0 %.3g", p->noise, p->speed);
        snprintf(b, size, "R %.3g", p->vision_radius);
        return;
    }
    snprintf(a, size, "sep %.2f ali %.2f coh %.2f", p->separation_weight, p->alignment_weight,
             p->cohesion_weight);
    snprintf(b, size, "R %.0f  Rsep %.0f  fov %.0f", p->vision_radius, p->separation_radius,
             p->fov);
}

/* Species s's line (docs/model.md, "Species"): its boids, its main parameters and its rules
 * towards the others, in its colour (palette.glsl's SPECIES_COLOURS). */
static uint32_t species_line(const boids_params *p, int s, char *b, size_t size) {
    static const uint32_t colours[BOIDS_MAX_SPECIES] = {0x8cbfffffu, 0xff4d33ffu, 0xffd940ffu,
                                                        0x73ff73ffu};
    static const char *const rules[] = {"", "avoid", "flee", "chase"};
    long n = p->count;
    for (int t = 1; t < p->species; t++) n -= p->sp[t - 1].count;
    const boids_params q = boids_params_of_species(p, s);
    long own = s ? p->sp[s - 1].count : n;
    int at = q.model == BOIDS_MODEL_VICSEK
                 ? snprintf(b, size, "species %d: %ld  v0 %.3g eta %.2f", s, own < 0 ? 0 : own,
                            q.speed, q.noise)
                 : snprintf(b, size, "species %d: %ld  vmax %.0f ali %.1f coh %.1f", s,
                            own < 0 ? 0 : own, q.max_speed, q.alignment_weight, q.cohesion_weight);
    for (int j = 0; j < p->species && at > 0 && (size_t)at < size; j++)
        if (q.model == BOIDS_MODEL_REYNOLDS && p->rule[s][j] > 0 && p->rule[s][j] < 4)
            at += snprintf(b + at, size - (size_t)at, "  %s %d", rules[p->rule[s][j]], j);
    return colours[s];
}

/* Over a dense flock (more than VIEW_HUD_BACKING boids a thousand pixels of the window:
 * 15,000 in 1280 x 800) shadowed letters are lost among the boids: the HUD gets a dark
 * panel behind it there, and keeps the flock undimmed everywhere else. */
static void backing(view *v, float x, float y, float w, float h) {
    double px = (double)v->window.fb_w * v->window.fb_h;
    if (px <= 0 || (double)scene_params(v->sc)->count * 1000 / px < VIEW_HUD_BACKING) return;
    float ts = v->panel.ui.ts;
    render_rect(v->r, x - 3 * ts, y - 3 * ts, w + 6 * ts, h + 5 * ts, 0x0b0e17d0u);
}

void view_hud_draw(view *v) {
    float ts = v->panel.ui.ts, x = 6 * ts, y = 6 * ts, lh = 10 * ts;
    const boids_params *p = scene_params(v->sc);
    char line[256];
    float w = 150 * ts;
    const int kinds = p->species > 1 ? (int)p->species : 0;
    backing(v, x, y, w + 20 * ts,
            (float)(12 + kinds) * lh + (view_now_ns() < v->hud.status_until ? lh : 0));
    snprintf(line, sizeof line, "order %.3f", v->hud.order);
    hud_text(v, x, y, line, 0xffffffff);
    order_plot(v, x, y, w);
    y += lh;
    snprintf(line, sizeof line, "N %ld   step %llu", p->count,
             (unsigned long long)scene_steps(v->sc));
    hud_text(v, x, y, line, TEXT), y += lh;
    uint32_t col = TEXT;
    if (v->o->replay)
        view_replay_line(v, line, sizeof line);
    else
        col = rate_line(v, line, sizeof line);
    hud_text(v, x, y, line, col), y += lh;
    snprintf(line, sizeof line, "frame %.1f ms (%.0f fps)", v->run.frame_ms,
             v->run.frame_ms > 0 ? 1000 / v->run.frame_ms : 0);
    hud_text(v, x, y, line, TEXT), y += lh;
    step_cost(v, line, sizeof line);
    hud_text(v, x, y, line, TEXT), y += lh;
    snprintf(line, sizeof line, "%.40s", v->window.renderer);
    hud_text(v, x, y, line, DIM), y += lh;
    static const char *const edges[] = {"wrap", "walls", "open"};
    snprintf(line, sizeof line, "%s, %s", scene_backend_name(v->sc), edges[p->boundary % 3]);
    hud_text(v, x, y, line, DIM), y += lh;
    if (p->neighbours == BOIDS_NEIGHBOURS_TOPOLOGICAL)
        snprintf(line, sizeof line, "%s, %ld nearest", p->model ? "Vicsek" : "Reynolds", p->k);
    else
        snprintf(line, sizeof line, "%s", p->model ? "Vicsek" : "Reynolds");
    hud_text(v, x, y, line, 0xffffffff), y += lh;
    char second[128];
    model_lines(p, line, second, sizeof second);
    hud_text(v, x, y, line, TEXT), y += lh;
    hud_text(v, x, y, second, TEXT), y += lh;
    /* In 3-D the left button turns the camera: the pointer does not act (view.c). */
    if (view_is3d(v))
        snprintf(line, sizeof line, "pointer: camera (acts in 2-D)");
    else
        snprintf(line, sizeof line, "pointer %s", view_pointer_names[v->input.pointer]);
    hud_text(v, x, y, line, TEXT), y += lh;
    if (v->follow.on && v->follow.found)
        snprintf(line, sizeof line, "boid %u sees %u", v->follow.id, v->follow.count);
    else
        snprintf(line, sizeof line, "? for help");
    hud_text(v, x, y, line, TEXT), y += lh;
    for (int s = 0; s < kinds; s++) {
        uint32_t c = species_line(p, s, line, sizeof line);
        hud_text(v, x, y, line, c), y += lh;
    }
    if (view_now_ns() < v->hud.status_until) hud_text(v, x, y + ts, v->hud.status, 0xffd166ff);
}

void view_pointer_draw(view *v, const render_camera *c, int active) {
    const boids_params *p = scene_params(v->sc);
    int food = v->input.pointer == VIEW_POINTER_FOOD;
    double rad = food ? p->food_radius : p->predator_radius;
    uint32_t col = food ? 0x6bd66bc0 : active ? 0xff5a4ad0 : 0xff5a4a60;
    render_circle(v->r, (float)v->input.mx, (float)v->input.my, (float)(rad * c->scale), 1.5f,
                  active ? 0 : 6, col);
}
