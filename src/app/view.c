#include "view.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <glad/gl.h>
/* glad provides the GL declarations; GLFW must not include its own. */
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include "boids/gpu.h"
#include "render_scene.h"
#include "view_ui.h"

const char *const view_pointer_names[VIEW_POINTERS + 1] = {"off", "predator", "food", "hover",
                                                           NULL};

static const char *const preset_names[] = {"flock", "school", "swarm", "chaos", "lab", "classic"};
enum { NPRESETS = 6, HISTORY = 160, MAX_STEPS_PER_FRAME = 4, N_MAX = 4000000 };

/* The shortcut table: shown by `?` and copied into the README. */
static const char *const help_keys[][2] = {
    {"?", "this help (Esc closes it)"},
    {"Space", "pause / run"},
    {".", "one step (when paused)"},
    {"+ / -", "simulation speed x2 / /2 (steps per second)"},
    {"q / a", "separation weight +/- 0.1"},
    {"w / s", "alignment weight +/- 0.1"},
    {"e / d", "cohesion weight +/- 0.1"},
    {"t / g", "vision radius +/- 5"},
    {"y / h", "separation radius +/- 2"},
    {"u / j", "field of view +/- 10 degrees"},
    {"i / k", "number of boids x2 / /2 (restarts)"},
    {"b", "edges: wrap / walls"},
    {"1 / 2 / 3", "restart, random boids, without separation / alignment / cohesion"},
    {"4", "restart, random boids, all three rules"},
    {"r", "restart, random boids, current settings"},
    {"0", "reset: starting parameters and seed"},
    {"F1 ... F6", "presets flock, school, swarm, chaos, lab, classic"},
    {"m", "pointer: off / predator / food / hover (left button: press and hold)"},
    {"f", "follow the boid nearest the pointer (see what it sees) / stop"},
    {"z", "camera locks on the followed boid"},
    {"wheel / right drag", "zoom / pan"},
    {"v", "fit the world in the window"},
    {"c", "colour: heading / speed / plain"},
    {"o", "HUD on / off"},
    {"Tab", "control panel on / off"},
    {"p or F12", "screenshot (PNG)"},
    {"Esc", "quit"},
};

typedef struct view {
    const view_opts *o;
    GLFWwindow *win;
    render_ctx *r;
    scene *sc;
    boids_params start; /* for reset */
    boids_params base;  /* the current preset's own parameters (density for N changes) */
    int scale_world;    /* the world follows N (unless --config/--set gave its size) */
    uint64_t seed, restarts;
    double weights[3]; /* the weights the one-rule-removed restarts go back to */
    int win_w, win_h, fb_w, fb_h;
    /* camera */
    double zoom, cx, cy;
    int lock;
    /* input */
    double mx, my; /* cursor, framebuffer pixels */
    int in_window, left_down, right_down, left_pressed, left_released;
    double drag_x, drag_y;
    int press_on_panel;
    view_pointer pointer;
    ui u;
    /* state */
    int paused, single, hud, panel, help;
    long rate, steps_per_frame;
    render_colour colour;
    int follow, follow_found;
    uint32_t follow_id;
    float follow_state[4];
    unsigned follow_count;
    int want_follow_toggle, want_shot, want_fit;
    int release_next; /* scripted click: release the button before the next frame */
    /* timing, integer nanoseconds so that days of running accumulate no float error */
    uint64_t anchor_ns, anchor_steps;
    uint64_t rest_until; /* slow steps: no stepping before this time (keeps input live) */
    double frame_ms, steps_per_s;
    uint64_t rate_t0, rate_steps0;
    /* HUD */
    double order;
    float history[HISTORY];
    int hist_len, hist_pos;
    uint64_t order_t;
    char status[160];
    uint64_t status_until;
    const char *renderer;
    boids_error err;
    int failed;
    boids_gl_debug glog; /* -vv: KHR_debug messages of the window's context */
    double step_ms;      /* wall time of a frame's steps (the cpu backends' cost) */
    double boid_len;     /* drawn length, world units: --boid-size or the preset's default */
} view;

static uint64_t now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static void say(view *v, const char *fmt, const char *arg) {
    snprintf(v->status, sizeof v->status, fmt, arg);
    v->status_until = now_ns() + 3000000000u;
    fprintf(stderr, "boids: ");
    fprintf(stderr, fmt, arg);
    fputc('\n', stderr);
}

void view_fit_world(boids_params *p, const boids_params *base) {
    if (p->count <= base->count) return;
    double k = sqrt((double)p->count / (double)base->count);
    p->width = base->width * k;
    p->height = base->height * k;
}

static render_camera camera(const view *v) {
    const boids_params *p = scene_params(v->sc);
    render_camera c = render_camera_fit(p->width, p->height, v->fb_w, v->fb_h, 4);
    c.scale *= v->zoom;
    c.cx = v->cx;
    c.cy = v->cy;
    return c;
}

static void fit_view(view *v) {
    const boids_params *p = scene_params(v->sc);
    v->zoom = 1;
    v->cx = p->width / 2;
    v->cy = p->height / 2;
    v->lock = 0;
}

/* ---- changing the simulation -------------------------------------------------------------- */

/* Applies new parameters if they validate; else keeps the old ones and says why. */
static int set_params(view *v, const boids_params *np) {
    boids_error e;
    if (boids_params_validate(np, &e)) {
        say(v, "%s", e.msg);
        return 0;
    }
    *scene_params(v->sc) = *np;
    return 1;
}

static void restart(view *v, boids_params np, uint64_t seed) {
    boids_error e;
    if (boids_params_validate(&np, &e)) {
        say(v, "%s", e.msg);
        return;
    }
    if (scene_restart(v->sc, &np, seed, &e)) {
        say(v, "%s", e.msg);
        return;
    }
    v->follow = 0;
    v->hist_len = 0;
    v->anchor_ns = now_ns();
    v->anchor_steps = 0;
    fit_view(v);
}

static void restart_random(view *v, boids_params np) {
    v->restarts++;
    restart(v, np, v->seed + v->restarts);
}

static void save_weights(view *v) {
    const boids_params *p = scene_params(v->sc);
    v->weights[0] = p->separation_weight;
    v->weights[1] = p->alignment_weight;
    v->weights[2] = p->cohesion_weight;
}

/* Seed 000's buttons: random boids with the three rules, or with rule k (0..2) removed. */
static void restart_without(view *v, int k) {
    boids_params np = *scene_params(v->sc);
    np.separation_weight = k == 0 ? 0 : v->weights[0];
    np.alignment_weight = k == 1 ? 0 : v->weights[1];
    np.cohesion_weight = k == 2 ? 0 : v->weights[2];
    restart_random(v, np);
    static const char *const names[] = {"separation", "alignment", "cohesion"};
    if (k >= 0 && k < 3) say(v, "restarted without %s", names[k]);
}

static void set_count(view *v, long n) {
    if (n < 1) n = 1;
    long max = N_MAX;
    if (!strcmp(v->o->app.backend, "gpu")) {
        size_t gmax = boids_gpu_max_count(NULL, 0);
        if (gmax && gmax < (size_t)max) max = (long)gmax;
    }
    if (n > max) n = max;
    boids_params np = *scene_params(v->sc);
    np.count = n;
    if (v->scale_world) {
        np.width = v->base.width;
        np.height = v->base.height;
        view_fit_world(&np, &v->base);
    }
    restart_random(v, np);
}

static void apply_preset(view *v, int k) {
    boids_params np;
    boids_error e;
    if (boids_preset_apply(&np, preset_names[k], &e)) {
        say(v, "%s", e.msg);
        return;
    }
    /* Keep N; the world keeps the preset's density. */
    boids_params base = np;
    np.count = scene_params(v->sc)->count;
    view_fit_world(&np, &base);
    v->base = base;
    v->scale_world = 1;
    if (v->o->boid_len <= 0) v->boid_len = render_default_length(&base);
    const boids_params *cur = scene_params(v->sc);
    if (np.width == cur->width && np.height == cur->height) {
        set_params(v, &np);
    } else {
        restart_random(v, np);
    }
    save_weights(v);
    say(v, "preset %s", preset_names[k]);
}

static void nudge(view *v, double *field, double delta, double lo, double hi) {
    boids_params np = *scene_params(v->sc);
    double *f = (double *)((char *)&np + ((char *)field - (char *)scene_params(v->sc)));
    *f = fmin(hi, fmax(lo, *f + delta));
    if (set_params(v, &np)) save_weights(v);
}

static void toggle_boundary(view *v) {
    boids_params np = *scene_params(v->sc);
    np.boundary = np.boundary == BOIDS_BOUNDARY_WRAP ? BOIDS_BOUNDARY_WALLS : BOIDS_BOUNDARY_WRAP;
    set_params(v, &np);
}

static void set_rate(view *v, long rate) {
    v->rate = rate < 1 ? 1 : rate > 7680 ? 7680 : rate;
    v->anchor_ns = now_ns();
    v->anchor_steps = 0;
}

/* ---- input ------------------------------------------------------------------------------- */

static void on_char(GLFWwindow *w, unsigned int c) {
    view *v = glfwGetWindowUserPointer(w);
    boids_params *p = scene_params(v->sc);
    switch (c) {
    case '?':
        v->help = !v->help;
        break;
    case '.':
        v->single = 1;
        break;
    case '+':
    case '=':
        set_rate(v, v->rate * 2);
        break;
    case '-':
        set_rate(v, v->rate / 2);
        break;
    case 'q':
        nudge(v, &p->separation_weight, 0.1, 0, 10);
        break;
    case 'a':
        nudge(v, &p->separation_weight, -0.1, 0, 10);
        break;
    case 'w':
        nudge(v, &p->alignment_weight, 0.1, 0, 10);
        break;
    case 's':
        nudge(v, &p->alignment_weight, -0.1, 0, 10);
        break;
    case 'e':
        nudge(v, &p->cohesion_weight, 0.1, 0, 10);
        break;
    case 'd':
        nudge(v, &p->cohesion_weight, -0.1, 0, 10);
        break;
    case 't':
        nudge(v, &p->vision_radius, 5, 1, 1000);
        break;
    case 'g':
        nudge(v, &p->vision_radius, -5, 1, 1000);
        break;
    case 'y':
        nudge(v, &p->separation_radius, 2, 0, 1000);
        break;
    case 'h':
        nudge(v, &p->separation_radius, -2, 0, 1000);
        break;
    case 'u':
        nudge(v, &p->fov, 10, 10, 360);
        break;
    case 'j':
        nudge(v, &p->fov, -10, 10, 360);
        break;
    case 'i':
        set_count(v, p->count * 2);
        break;
    case 'k':
        set_count(v, p->count / 2);
        break;
    case 'b':
        toggle_boundary(v);
        break;
    case '1':
    case '2':
    case '3':
        restart_without(v, (int)(c - '1'));
        break;
    case '4':
        restart_without(v, -1);
        break;
    case 'r':
        restart_random(v, *p);
        break;
    case '0':
        v->restarts = 0;
        restart(v, v->start, v->seed);
        v->base = v->o->base;
        v->boid_len = v->o->boid_len > 0 ? v->o->boid_len : render_default_length(&v->start);
        v->scale_world = v->o->scale_world;
        save_weights(v);
        break;
    case 'm':
        v->pointer = (view_pointer)((v->pointer + 1) % VIEW_POINTERS);
        break;
    case 'f':
        v->want_follow_toggle = 1;
        break;
    case 'z':
        v->lock = v->follow && !v->lock;
        break;
    case 'v':
        fit_view(v);
        break;
    case 'c':
        v->colour = (render_colour)((v->colour + 1) % RENDER_COLOURS);
        break;
    case 'o':
        v->hud = !v->hud;
        break;
    case 'p':
        v->want_shot = 1;
        break;
    default:
        break;
    }
}

static void on_key(GLFWwindow *w, int key, int scancode, int action, int mods) {
    (void)scancode;
    (void)mods;
    view *v = glfwGetWindowUserPointer(w);
    if (action != GLFW_PRESS) return;
    if (key >= GLFW_KEY_F1 && key < GLFW_KEY_F1 + NPRESETS) apply_preset(v, key - GLFW_KEY_F1);
    switch (key) {
    case GLFW_KEY_SPACE:
        v->paused = !v->paused;
        break;
    case GLFW_KEY_TAB:
        v->panel = !v->panel;
        break;
    case GLFW_KEY_F12:
        v->want_shot = 1;
        break;
    case GLFW_KEY_ESCAPE:
        if (v->help)
            v->help = 0;
        else
            glfwSetWindowShouldClose(w, 1);
        break;
    default:
        break;
    }
}

static void on_cursor(GLFWwindow *w, double x, double y) {
    view *v = glfwGetWindowUserPointer(w);
    double sx = v->win_w ? (double)v->fb_w / v->win_w : 1,
           sy = v->win_h ? (double)v->fb_h / v->win_h : 1;
    double nx = x * sx, ny = y * sy;
    if (v->right_down) {
        render_camera c = camera(v);
        v->cx -= (nx - v->mx) / c.scale;
        v->cy -= (ny - v->my) / c.scale;
        v->lock = 0;
    }
    v->mx = nx;
    v->my = ny;
    v->in_window = 1;
}

static void on_enter(GLFWwindow *w, int entered) {
    view *v = glfwGetWindowUserPointer(w);
    v->in_window = entered;
}

static void on_button(GLFWwindow *w, int button, int action, int mods) {
    (void)mods;
    view *v = glfwGetWindowUserPointer(w);
    if (button == GLFW_MOUSE_BUTTON_LEFT) {
        if (action == GLFW_PRESS) {
            v->left_down = 1;
            v->left_pressed = 1;
            v->press_on_panel = v->panel && v->u.over_panel;
        } else {
            v->left_down = 0;
            v->left_released = 1;
        }
    } else if (button == GLFW_MOUSE_BUTTON_RIGHT || button == GLFW_MOUSE_BUTTON_MIDDLE) {
        v->right_down = action == GLFW_PRESS;
    }
}

static void on_scroll(GLFWwindow *w, double dx, double dy) {
    (void)dx;
    view *v = glfwGetWindowUserPointer(w);
    /* Zoom about the cursor: the world point under it stays under it. */
    render_camera c = camera(v);
    double wx, wy;
    render_px_to_world(&c, v->mx, v->my, &wx, &wy);
    double k = pow(1.15, dy);
    v->zoom = fmin(200, fmax(0.2, v->zoom * k));
    render_camera c2 = camera(v);
    double wx2, wy2;
    render_px_to_world(&c2, v->mx, v->my, &wx2, &wy2);
    v->cx += wx - wx2;
    v->cy += wy - wy2;
}

static void on_size(GLFWwindow *w, int width, int height) {
    view *v = glfwGetWindowUserPointer(w);
    v->win_w = width;
    v->win_h = height;
    glfwGetFramebufferSize(w, &v->fb_w, &v->fb_h);
}

/* ---- panel and HUD --------------------------------------------------------------------- */

static void panel(view *v) {
    ui *u = &v->u;
    float pw = 150 * u->ts;
    ui_begin(u, (float)v->fb_w - pw, 0, pw);
    boids_params np = *scene_params(v->sc);
    int changed = 0, r;
    ui_label(u, "PRESETS", 0x8a93a6ff);
    int k = ui_buttons(u, 100, preset_names, 3, -1);
    if (k >= 0) apply_preset(v, k);
    k = ui_buttons(u, 101, preset_names + 3, 3, -1);
    if (k >= 0) apply_preset(v, k + 3);
    ui_label(u, "RULES", 0x8a93a6ff);
    changed |= ui_slider(u, 1, "separation", &np.separation_weight, 0, 5, "%.2f", 0) != 0;
    changed |= ui_slider(u, 2, "alignment", &np.alignment_weight, 0, 5, "%.2f", 0) != 0;
    changed |= ui_slider(u, 3, "cohesion", &np.cohesion_weight, 0, 5, "%.2f", 0) != 0;
    changed |= ui_slider(u, 4, "vision radius", &np.vision_radius, 1, 300, "%.0f", 0) != 0;
    changed |= ui_slider(u, 5, "separation radius", &np.separation_radius, 0, 150, "%.0f", 0) != 0;
    changed |= ui_slider(u, 6, "field of view", &np.fov, 10, 360, "%.0f deg", 0) != 0;
    if (changed && set_params(v, &np)) save_weights(v);
    static const char *const edges[] = {"wrap", "walls"};
    k = ui_buttons(u, 102, edges, 2, np.boundary);
    if (k >= 0 && k != np.boundary) toggle_boundary(v);

    ui_label(u, "FLOCK", 0x8a93a6ff);
    static double count_slider = -1;
    if (u->active != 7) count_slider = (double)scene_params(v->sc)->count;
    r = ui_slider(u, 7, "boids (on release)", &count_slider, 10, N_MAX, "%.0f", 1);
    if (r == 2) set_count(v, lround(count_slider));
    double rate = (double)v->rate;
    if (ui_slider(u, 8, "steps per second", &rate, 1, 960, "%.0f", 1)) set_rate(v, lround(rate));
    static const char *const restarts[] = {"no sep.", "no align.", "no coh."};
    k = ui_buttons(u, 103, restarts, 3, -1);
    if (k >= 0) restart_without(v, k);
    static const char *const resets[] = {"all rules", "random", "reset"};
    k = ui_buttons(u, 104, resets, 3, -1);
    if (k == 0) restart_without(v, -1);
    if (k == 1) restart_random(v, *scene_params(v->sc));
    if (k == 2) on_char(v->win, '0');
    static const char *const runs[] = {"pause", "step", "follow"};
    int sel = v->paused ? 0 : v->follow ? 2 : -1;
    k = ui_buttons(u, 105, runs, 3, sel);
    if (k == 0) v->paused = !v->paused;
    if (k == 1) v->single = 1;
    if (k == 2) v->want_follow_toggle = 1;

    ui_label(u, "POINTER", 0x8a93a6ff);
    k = ui_buttons(u, 106, view_pointer_names, 2, (int)v->pointer);
    if (k >= 0) v->pointer = (view_pointer)k;
    k = ui_buttons(u, 109, view_pointer_names + 2, 2, (int)v->pointer - 2);
    if (k >= 0) v->pointer = (view_pointer)(k + 2);
    ui_label(u, "COLOUR", 0x8a93a6ff);
    k = ui_buttons(u, 107, render_colour_names, RENDER_COLOURS, (int)v->colour);
    if (k >= 0) v->colour = (render_colour)k;
    static const char *const views[] = {"HUD", "fit", "help"};
    k = ui_buttons(u, 108, views, 3, v->hud ? 0 : -1);
    if (k == 0) v->hud = !v->hud;
    if (k == 1) fit_view(v);
    if (k == 2) v->help = !v->help;
    ui_label(u, "Tab: hide panel   ?: keys", 0x8a93a6ff);
    ui_end(u);
}

static void hud(view *v) {
    render_ctx *r = v->r;
    float ts = v->u.ts, x = 6 * ts, y = 6 * ts, lh = 10 * ts;
    const boids_params *p = scene_params(v->sc);
    char line[256];
    float w = 150 * ts;
    render_rect(r, 2 * ts, 2 * ts, w + 8 * ts, 132 * ts, 0x0b0e17b0);
    snprintf(line, sizeof line, "order %.3f", v->order);
    render_text(r, x, y, ts, line, 0xffffffff);
    /* Order history: one bar per sample, newest on the right. */
    float gx = x + 62 * ts, gw = w - 62 * ts, gh = 8 * ts;
    render_rect(r, gx, y - ts, gw, gh, 0x222a3dff);
    for (int i = 0; i < v->hist_len; i++) {
        int idx = (v->hist_pos - v->hist_len + i + HISTORY) % HISTORY;
        float bw = gw / HISTORY, hh = gh * v->history[idx];
        render_rect(r, gx + (float)(HISTORY - v->hist_len + i) * bw, y - ts + gh - hh, bw, hh,
                    0x5b8defff);
    }
    y += lh;
    snprintf(line, sizeof line, "N %ld   step %llu", p->count,
             (unsigned long long)scene_steps(v->sc));
    render_text(r, x, y, ts, line, 0xdde3efff), y += lh;
    snprintf(line, sizeof line, "steps/s %.1f%s", v->steps_per_s, v->paused ? "  (paused)" : "");
    render_text(r, x, y, ts, line, 0xdde3efff), y += lh;
    snprintf(line, sizeof line, "frame %.1f ms (%.0f fps)", v->frame_ms,
             v->frame_ms > 0 ? 1000 / v->frame_ms : 0);
    render_text(r, x, y, ts, line, 0xdde3efff), y += lh;
    double g = scene_gpu_ms(v->sc);
    if (strcmp(scene_backend_name(v->sc), "gpu") != 0)
        snprintf(line, sizeof line, "CPU step %.2f ms/frame", v->step_ms);
    else if (g >= 0)
        snprintf(line, sizeof line, "GPU compute %.2f ms/frame", g);
    else
        snprintf(line, sizeof line, "GPU compute -");
    render_text(r, x, y, ts, line, 0xdde3efff), y += lh;
    snprintf(line, sizeof line, "%.40s", v->renderer);
    render_text(r, x, y, ts, line, 0x8a93a6ff), y += lh;
    snprintf(line, sizeof line, "%s, %s", scene_backend_name(v->sc),
             p->boundary == BOIDS_BOUNDARY_WRAP ? "wrap" : "walls");
    render_text(r, x, y, ts, line, 0x8a93a6ff), y += lh;
    snprintf(line, sizeof line, "sep %.2f ali %.2f coh %.2f", p->separation_weight,
             p->alignment_weight, p->cohesion_weight);
    render_text(r, x, y, ts, line, 0xdde3efff), y += lh;
    snprintf(line, sizeof line, "R %.0f  Rsep %.0f  fov %.0f", p->vision_radius,
             p->separation_radius, p->fov);
    render_text(r, x, y, ts, line, 0xdde3efff), y += lh;
    snprintf(line, sizeof line, "pointer %s", view_pointer_names[v->pointer]);
    render_text(r, x, y, ts, line, 0xdde3efff), y += lh;
    if (v->follow && v->follow_found)
        snprintf(line, sizeof line, "boid %u sees %u", v->follow_id, v->follow_count);
    else
        snprintf(line, sizeof line, "? for help");
    render_text(r, x, y, ts, line, 0xdde3efff), y += lh;
    if (now_ns() < v->status_until) {
        render_rect(r, 2 * ts, y, render_text_width(v->status, ts) + 8 * ts, lh + 2 * ts,
                    0x0b0e17d0);
        render_text(r, x, y + ts, ts, v->status, 0xffd166ff);
    }
}

static void help(view *v) {
    render_ctx *r = v->r;
    float ts = v->u.ts, lh = 10 * ts;
    int n = (int)(sizeof help_keys / sizeof help_keys[0]);
    float kw = 0, w = 0;
    for (int i = 0; i < n; i++) kw = fmaxf(kw, render_text_width(help_keys[i][0], ts));
    kw += 8 * ts;
    for (int i = 0; i < n; i++) w = fmaxf(w, kw + render_text_width(help_keys[i][1], ts));
    float h = lh * (float)(n + 2);
    float x = ((float)v->fb_w - w) / 2, y = ((float)v->fb_h - h) / 2;
    render_rect(r, x - 8 * ts, y - 8 * ts, w + 16 * ts, h + 16 * ts, 0x0b0e17f0);
    render_text(r, x, y, ts, "KEYS", 0xffd166ff);
    for (int i = 0; i < n; i++) {
        render_text(r, x, y + lh * (float)(i + 2), ts, help_keys[i][0], 0xffd166ff);
        render_text(r, x + kw, y + lh * (float)(i + 2), ts, help_keys[i][1], 0xdde3efff);
    }
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
    render_world_to_px(c, v->follow_state[0], v->follow_state[1], &px, &py);
    float R = (float)(p->vision_radius * c->scale), Rs = (float)(p->separation_radius * c->scale);
    float head = atan2f(v->follow_state[3], v->follow_state[2]);
    float half = vicsek ? (float)M_PI : (float)(p->fov * M_PI / 360.0);
    render_wedge(v->r, (float)px, (float)py, R, head - half, head + half, 0x5b8def30);
    if (radius) render_circle(v->r, (float)px, (float)py, R, 1.5f, 0, 0x8fb4ffd0);
    if (!vicsek) render_circle(v->r, (float)px, (float)py, Rs, 1.5f, 5, 0xffd166d0);
}

static void pointer_overlay(view *v, const render_camera *c, int active) {
    const boids_params *p = scene_params(v->sc);
    int food = v->pointer == VIEW_POINTER_FOOD;
    double rad = food ? p->food_radius : p->predator_radius;
    uint32_t col = food ? 0x6bd66bc0 : active ? 0xff5a4ad0 : 0xff5a4a60;
    render_circle(v->r, (float)v->mx, (float)v->my, (float)(rad * c->scale), 1.5f, active ? 0 : 6,
                  col);
}

/* ---- the loop ---------------------------------------------------------------------------- */

static boids_status screenshot(view *v, const char *path) {
    unsigned char *px = malloc((size_t)v->fb_w * (size_t)v->fb_h * 4);
    if (!px) return boids_error_set(&v->err, BOIDS_ERR_NOMEM, "out of memory for a screenshot");
    glReadBuffer(GL_BACK);
    render_read_pixels(v->fb_w, v->fb_h, px);
    boids_status s = render_write_png(path, v->fb_w, v->fb_h, px, &v->err);
    free(px);
    return s;
}

static void shot_key(view *v) {
    char path[4096];
    char stamp[32];
    time_t t = time(NULL);
    struct tm tm;
    localtime_r(&t, &tm);
    strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
    snprintf(path, sizeof path, "%s/boids-%s-%llu.png", v->o->shot_dir ? v->o->shot_dir : ".",
             stamp, (unsigned long long)scene_steps(v->sc));
    if (screenshot(v, path)) {
        say(v, "%s", v->err.msg);
    } else {
        say(v, "wrote %s", path);
    }
}

/* Steps due this frame: a fixed count per frame, or real time at `rate` steps per second
 * counted in integer nanoseconds from an anchor (re-anchored each hour of steps, exactly,
 * so nothing drifts however long it runs). Falling behind drops the backlog rather than
 * spiralling: a frame never runs more than MAX_STEPS_PER_FRAME steps, and only one when
 * frames are already slow. */
static unsigned steps_due(view *v, uint64_t now) {
    if (v->paused) {
        v->anchor_ns = now;
        v->anchor_steps = 0;
        if (v->single) {
            v->single = 0;
            return 1;
        }
        return 0;
    }
    if (v->steps_per_frame > 0) return (unsigned)v->steps_per_frame;
    if (now < v->rest_until) {
        v->anchor_ns = now;
        v->anchor_steps = 0;
        return 0;
    }
    uint64_t hour = (uint64_t)v->rate * 3600u;
    if (v->anchor_steps >= hour) {
        v->anchor_steps -= hour;
        v->anchor_ns += 3600000000000ull;
    }
    uint64_t due = (now - v->anchor_ns) / 1000u * (uint64_t)v->rate / 1000000u;
    unsigned cap = v->frame_ms > 50 ? 1 : MAX_STEPS_PER_FRAME;
    if (due <= v->anchor_steps) return 0;
    uint64_t k = due - v->anchor_steps;
    if (k > cap) {
        v->anchor_ns = now;
        v->anchor_steps = 0;
        return cap;
    }
    v->anchor_steps += k;
    return (unsigned)k;
}

static int frame(view *v, long frame_no) {
    uint64_t t0 = now_ns();
    boids_params *p = scene_params(v->sc);
    ui *u = &v->u;
    u->mx = v->mx;
    u->my = v->my;
    u->down = v->left_down;
    u->pressed = v->left_pressed;
    u->released = v->left_released;
    v->left_pressed = v->left_released = 0;

    render_camera c = camera(v);
    /* The pointer acts on the flock when it is not busy with the panel. */
    int on_panel = v->panel && (u->over_panel || v->press_on_panel || u->active);
    int pressed = v->left_down && !on_panel;
    int hover = v->in_window && !on_panel;
    double wx, wy;
    render_px_to_world(&c, v->mx, v->my, &wx, &wy);
    if (p->boundary == BOIDS_BOUNDARY_WRAP) {
        wx -= floor(wx / p->width) * p->width;
        wy -= floor(wy / p->height) * p->height;
    }
    int pred = (v->pointer == VIEW_POINTER_PREDATOR && pressed) ||
               (v->pointer == VIEW_POINTER_HOVER && hover);
    int food = v->pointer == VIEW_POINTER_FOOD && pressed;
    p->predator = pred;
    p->predator_x = wx;
    p->predator_y = wy;
    p->food = food;
    p->food_x = wx;
    p->food_y = wy;

    unsigned k = steps_due(v, t0);
    if (scene_step(v->sc, k, &v->err)) return 0;
    if (k > 0) {
        /* When a frame's steps take longer than 40 ms (a huge flock on a software
         * rasteriser), the following frames draw without stepping for as long, so that at
         * most half the time goes to the simulation and the window still answers. */
        double wall = (double)(now_ns() - t0) * 1e-6;
        v->step_ms = v->step_ms > 0 ? 0.9 * v->step_ms + 0.1 * wall : wall;
        double ms = fmax(wall, scene_gpu_ms(v->sc));
        if (ms > 40) v->rest_until = now_ns() + (uint64_t)(ms * 1e6);
    }

    if (v->want_follow_toggle) {
        v->want_follow_toggle = 0;
        if (v->follow) {
            v->follow = 0;
            v->lock = 0;
        } else {
            v->follow = 1;
            v->follow_id = scene_nearest(v->sc, wx, wy);
        }
    }
    if (v->follow) {
        v->follow_found = scene_follow(v->sc, v->follow_id, v->follow_state, &v->follow_count);
        if (v->follow_found && v->lock) {
            v->cx = v->follow_state[0];
            v->cy = v->follow_state[1];
            c = camera(v);
        }
    }
    /* Order at 10 Hz, read when the GPU has it (never waiting for it). */
    double ord;
    if (scene_order_poll(v->sc, 0, &ord)) {
        v->order = ord;
        v->history[v->hist_pos] = (float)ord;
        v->hist_pos = (v->hist_pos + 1) % HISTORY;
        if (v->hist_len < HISTORY) v->hist_len++;
    }
    if (t0 - v->order_t > 100000000u) {
        v->order_t = t0;
        scene_order_request(v->sc);
    }

    if (v->fb_w <= 0 || v->fb_h <= 0) {
        /* Minimised: nothing to draw and no swap to pace the loop; the flock goes on. */
        struct timespec ts = {0, 16000000};
        nanosleep(&ts, NULL);
        return 1;
    }
    render_begin(v->r, &c);
    render_flock f = {0};
    scene_buffers(v->sc, &f.state_buf, &f.id_buf, &f.n);
    f.colour = v->colour;
    f.length = v->boid_len;
    f.min_px = 1.5 * u->ts;
    f.follow = v->follow && v->follow_found;
    f.follow_id = v->follow_id;
    f.seen_buf = scene_follow_marks(v->sc);
    render_draw_flock(v->r, &c, p, &f);
    if (f.follow) follow_overlay(v, &c);
    if (v->pointer != VIEW_POINTER_OFF && hover) pointer_overlay(v, &c, pred || food);
    if (v->hud) hud(v);
    if (v->panel)
        panel(v);
    else
        u->over_panel = 0, u->active = 0;
    if (v->help) help(v);
    render_flush(v->r);

    if (v->want_shot) {
        v->want_shot = 0;
        shot_key(v);
    }
    if (v->o->frames > 0 && frame_no + 1 >= v->o->frames && v->o->shot_at_exit) {
        if (screenshot(v, v->o->shot_at_exit)) return 0;
    }
    glfwSwapBuffers(v->win);

    uint64_t t1 = now_ns();
    double ms = (double)(t1 - t0) * 1e-6;
    v->frame_ms = v->frame_ms > 0 ? 0.9 * v->frame_ms + 0.1 * ms : ms;
    if (t1 - v->rate_t0 >= 1000000000u) {
        v->steps_per_s =
            (double)(scene_steps(v->sc) - v->rate_steps0) * 1e9 / (double)(t1 - v->rate_t0);
        if (scene_steps(v->sc) < v->rate_steps0) v->steps_per_s = 0; /* restarted */
        v->rate_t0 = t1;
        v->rate_steps0 = scene_steps(v->sc);
    }
    return 1;
}

static int software_renderer(void) {
    const char *r = (const char *)glGetString(GL_RENDERER);
    return r && (strstr(r, "llvmpipe") || strstr(r, "softpipe") || strstr(r, "SwiftShader"));
}

/* Scripted input (--keys): items "FRAME:TEXT" separated by commas. Before frame FRAME, each
 * character of TEXT goes through the same handler as a typed character; {space}, {tab},
 * {esc} and {f1}..{f12} press those keys; {click:X,Y} moves the pointer to framebuffer
 * pixel (X, Y) and clicks the left button there. Returns 0 on a malformed script. */
static int script_step(view *v, long frame_no) {
    const char *spec = v->o->keys;
    while (spec && *spec) {
        char *end;
        long f = strtol(spec, &end, 10);
        if (end == spec || *end != ':') return 0;
        const char *t = end + 1;
        const char *stop = t;
        while (*stop && !(*stop == ',' && stop[1] >= '0' && stop[1] <= '9')) {
            if (*stop == '{') {
                const char *close = strchr(stop, '}');
                if (!close) return 0;
                stop = close;
            }
            stop++;
        }
        if (f == frame_no) {
            while (t < stop) {
                if (*t != '{') {
                    on_char(v->win, (unsigned char)*t++);
                    continue;
                }
                const char *close = strchr(t, '}');
                char tok[64];
                size_t len = (size_t)(close - t - 1);
                if (len >= sizeof tok) return 0;
                memcpy(tok, t + 1, len);
                tok[len] = '\0';
                t = close + 1;
                int fk;
                double cx, cy;
                if (!strcmp(tok, "space"))
                    on_key(v->win, GLFW_KEY_SPACE, 0, GLFW_PRESS, 0);
                else if (!strcmp(tok, "tab"))
                    on_key(v->win, GLFW_KEY_TAB, 0, GLFW_PRESS, 0);
                else if (!strcmp(tok, "esc"))
                    on_key(v->win, GLFW_KEY_ESCAPE, 0, GLFW_PRESS, 0);
                else if (sscanf(tok, "f%d", &fk) == 1 && fk >= 1 && fk <= 12)
                    on_key(v->win, GLFW_KEY_F1 + fk - 1, 0, GLFW_PRESS, 0);
                else if (sscanf(tok, "click:%lf,%lf", &cx, &cy) == 2) {
                    double sx = (double)v->win_w / v->fb_w, sy = (double)v->win_h / v->fb_h;
                    on_cursor(v->win, cx * sx, cy * sy);
                    /* The panel decides whether the press is its own from where the pointer
                     * is, which it learns when it is drawn: hold the press over this frame
                     * and release on the next. */
                    v->u.over_panel = v->panel && cx >= v->u.x0 && cy < v->u.y0 + v->u.h;
                    on_button(v->win, GLFW_MOUSE_BUTTON_LEFT, GLFW_PRESS, 0);
                    v->release_next = 1;
                } else
                    return 0;
            }
        }
        spec = *stop ? stop + 1 : stop;
    }
    return 1;
}

static void on_glfw_error(int code, const char *msg) {
    (void)code;
    static char last[256];
    snprintf(last, sizeof last, "%s", msg);
    (void)last;
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
    boids_status st = BOIDS_OK;
    GLFWmonitor *mon = NULL;
    int count = 0;
    GLFWmonitor **mons = glfwGetMonitors(&count);
    if (o->monitor >= 0) {
        if (o->monitor >= count) {
            st = boids_error_set(err, BOIDS_ERR_INPUT,
                                 "--monitor %d: %d monitor%s connected (0 to %d)", o->monitor,
                                 count, count == 1 ? "" : "s", count - 1);
            goto out;
        }
        mon = mons[o->monitor];
    } else {
        mon = glfwGetPrimaryMonitor();
    }
    glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 4);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
    glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
    glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
    glfwWindowHint(GLFW_SAMPLES, o->msaa < 0 ? 4 : o->msaa);
    glfwWindowHint(GLFW_RESIZABLE, GLFW_TRUE);
    glfwWindowHint(GLFW_OPENGL_DEBUG_CONTEXT, o->app.verbose >= 2);
    int ww = o->win_w, wh = o->win_h;
    GLFWmonitor *full = NULL;
    if (o->fullscreen && mon) {
        const GLFWvidmode *mode = glfwGetVideoMode(mon);
        glfwWindowHint(GLFW_RED_BITS, mode->redBits);
        glfwWindowHint(GLFW_GREEN_BITS, mode->greenBits);
        glfwWindowHint(GLFW_BLUE_BITS, mode->blueBits);
        glfwWindowHint(GLFW_REFRESH_RATE, mode->refreshRate);
        ww = mode->width;
        wh = mode->height;
        full = mon;
    }
    v->win = glfwCreateWindow(ww, wh, "boids", full, NULL);
    if (!v->win) {
        const char *why = NULL;
        glfwGetError(&why);
        st = boids_error_set(err, BOIDS_ERR_RUNTIME, "cannot open a GL 4.3 core window: %s",
                             why ? why : "unknown reason");
        goto out;
    }
    glfwMakeContextCurrent(v->win);
    if ((st = boids_gl_load((boids_gl_loader)glfwGetProcAddress, err))) goto out;
    if (o->msaa < 0 && software_renderer()) {
        /* A software rasteriser pays 3x the frame time for 4x multisampling: worth it on a
         * GPU, not where 100,000 boids must stay interactive. The sample count is fixed
         * when the window is made, so make it again. */
        glfwDestroyWindow(v->win);
        glfwWindowHint(GLFW_SAMPLES, 0);
        v->win = glfwCreateWindow(ww, wh, "boids", full, NULL);
        if (!v->win) {
            st = boids_error_set(err, BOIDS_ERR_RUNTIME, "cannot open a GL 4.3 core window");
            goto out;
        }
        glfwMakeContextCurrent(v->win);
        if ((st = boids_gl_load((boids_gl_loader)glfwGetProcAddress, err))) goto out;
    }
    if (!full && o->monitor >= 0 && mon) {
        int mx, my;
        glfwGetMonitorPos(mon, &mx, &my);
        glfwSetWindowPos(v->win, mx + 40, my + 40);
    }
    glfwSwapInterval(o->vsync ? 1 : 0);
    if (o->hide_cursor) glfwSetInputMode(v->win, GLFW_CURSOR, GLFW_CURSOR_HIDDEN);

    if (o->app.verbose >= 2 && (st = boids_gl_debug_enable(&v->glog, err))) goto out;
    v->o = o;
    v->renderer = (const char *)glGetString(GL_RENDERER);
    if (!v->renderer) v->renderer = "?";
    glfwGetWindowSize(v->win, &v->win_w, &v->win_h);
    glfwGetFramebufferSize(v->win, &v->fb_w, &v->fb_h);
    if (!(v->r = render_create(err))) {
        st = err->status;
        goto out;
    }
    scene_config cfg = {&o->app, o->app.deterministic == 1, 1};
    if (!(v->sc = scene_create(&cfg, p, err))) {
        st = err->status;
        goto out;
    }
    v->start = *scene_params(v->sc);
    v->seed = o->app.seed;
    v->base = o->base;
    v->scale_world = o->scale_world;
    v->boid_len = o->boid_len > 0 ? o->boid_len : render_default_length(p);
    save_weights(v);
    v->hud = o->hud;
    v->panel = o->panel;
    v->rate = o->rate;
    v->steps_per_frame = o->steps_per_frame;
    v->colour = o->colour;
    v->pointer = o->pointer;
    /* Text scale: stb_easy_font glyphs are about 7 units tall; 2 pixels a unit reads well
     * on ordinary screens, 3 on large framebuffers (HiDPI, 4K installations). */
    v->u.r = v->r;
    v->u.ts = v->fb_h >= 1800 ? 3 : 2;
    fit_view(v);
    v->anchor_ns = v->rate_t0 = now_ns();
    if (o->app.verbose)
        fprintf(stderr, "boids view: %s, GL %s, backend %s, %ld boids in %g x %g\n", v->renderer,
                glGetString(GL_VERSION), scene_backend_name(v->sc), scene_params(v->sc)->count,
                scene_params(v->sc)->width, scene_params(v->sc)->height);

    glfwSetWindowUserPointer(v->win, v);
    glfwSetCharCallback(v->win, on_char);
    glfwSetKeyCallback(v->win, on_key);
    glfwSetCursorPosCallback(v->win, on_cursor);
    glfwSetCursorEnterCallback(v->win, on_enter);
    glfwSetMouseButtonCallback(v->win, on_button);
    glfwSetScrollCallback(v->win, on_scroll);
    glfwSetWindowSizeCallback(v->win, on_size);
    glfwSetFramebufferSizeCallback(v->win, on_size);

    uint64_t t_start = now_ns();
    long frames = 0;
    while (!glfwWindowShouldClose(v->win)) {
        glfwPollEvents();
        if (o->press) {
            /* Scripted input goes through the same handlers as the mouse. */
            render_camera c = camera(v);
            double px, py;
            render_world_to_px(&c, o->press_x, o->press_y, &px, &py);
            double sx = (double)v->win_w / v->fb_w, sy = (double)v->win_h / v->fb_h;
            on_cursor(v->win, px * sx, py * sy);
            if (!v->left_down) on_button(v->win, GLFW_MOUSE_BUTTON_LEFT, GLFW_PRESS, 0);
        }
        if (v->release_next) {
            v->release_next = 0;
            on_button(v->win, GLFW_MOUSE_BUTTON_LEFT, GLFW_RELEASE, 0);
        }
        if (o->keys && !script_step(v, frames)) {
            st = boids_error_set(err, BOIDS_ERR_INPUT, "--keys '%s': malformed", o->keys);
            goto out;
        }
        if (!frame(v, frames)) {
            *err = v->err;
            st = err->status ? err->status : BOIDS_ERR_RUNTIME;
            goto out;
        }
        frames++;
        if (o->frames > 0 && frames >= o->frames) break;
    }
    if (o->stats) {
        double sec = (double)(now_ns() - t_start) * 1e-9, ord = 0, dist = 0;
        scene_order_request(v->sc);
        scene_order_poll(v->sc, 1, &ord);
        double qx = o->press ? o->press_x : scene_params(v->sc)->width / 2;
        double qy = o->press ? o->press_y : scene_params(v->sc)->height / 2;
        if ((st = scene_mean_distance(v->sc, qx, qy, &dist, err))) goto out;
        const boids_params *p = scene_params(v->sc);
        printf("frames,seconds,fps,steps,n,order,point_x,point_y,mean_distance,"
               "separation_weight,alignment_weight,cohesion_weight,vision_radius,"
               "separation_radius,fov,boundary,width,height,paused,pointer,colour,following\n");
        printf("%ld,%.3f,%.2f,%llu,%ld,%.6f,%g,%g,%.6f,%g,%g,%g,%g,%g,%g,%d,%g,%g,%d,%d,%d,%d\n",
               frames, sec, sec > 0 ? (double)frames / sec : 0,
               (unsigned long long)scene_steps(v->sc), p->count, ord, qx, qy, dist,
               p->separation_weight, p->alignment_weight, p->cohesion_weight, p->vision_radius,
               p->separation_radius, p->fov, p->boundary, p->width, p->height, v->paused,
               (int)v->pointer, (int)v->colour, v->follow);
        fflush(stdout);
    }
out:
    if (o->app.verbose >= 2)
        fprintf(stderr, "boids view: GL debug: %lu errors, %lu messages%s%s\n", v->glog.errors,
                v->glog.messages, v->glog.errors ? "; last error: " : "", v->glog.last_error);
    scene_destroy(v->sc);
    render_destroy(v->r);
    if (v->win) glfwDestroyWindow(v->win);
    glfwTerminate();
    free(v);
    return st;
}
