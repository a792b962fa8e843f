/* SPDX-License-Identifier: MIT */
/* Mouse and window events and scripted input: --press and --keys go through the same
 * handlers as a person's hands. (Keys: view_keys.c; the camera they move: view_camera.c.) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glad/gl.h>
/* glad provides the GL declarations; GLFW must not include its own. */
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include "viewer/view_internal.h"

int view_text_scale(int fb_h) {
    /* stb_easy_font glyphs are about 7 units tall: 2 pixels a unit reads well on ordinary
     * screens, and the panel grows with large framebuffers (HiDPI, 4K installations). */
    return fb_h >= 2400 ? 4 : fb_h >= 1800 ? 3 : 2;
}

static void on_cursor(GLFWwindow *w, double x, double y) {
    view *v = glfwGetWindowUserPointer(w);
    double sx = v->window.win_w ? (double)v->window.fb_w / v->window.win_w : 1,
           sy = v->window.win_h ? (double)v->window.fb_h / v->window.win_h : 1;
    double nx = x * sx, ny = y * sy;
    view_camera_drag(v, nx - v->input.mx, ny - v->input.my);
    if (nx != v->input.mx || ny != v->input.my) {
        view_input_seen(v);
        v->input.moved |= v->input.pos_known;
    }
    v->input.pos_known = 1;
    v->input.mx = nx;
    v->input.my = ny;
    v->input.in_window = 1;
}

static void on_enter(GLFWwindow *w, int entered) {
    view *v = glfwGetWindowUserPointer(w);
    /* Where it entered: until it moves, the pointer is there, not at (0, 0). */
    if (entered) {
        double x, y;
        glfwGetCursorPos(w, &x, &y);
        v->input.mx = v->window.win_w ? x * v->window.fb_w / v->window.win_w : x;
        v->input.my = v->window.win_h ? y * v->window.fb_h / v->window.win_h : y;
        v->input.pos_known = 1;
    }
    v->input.in_window = entered;
}

static void on_button(GLFWwindow *w, int button, int action, int mods) {
    (void)mods;
    view *v = glfwGetWindowUserPointer(w);
    view_input_seen(v);
    v->input.moved = 1;
    if (button == GLFW_MOUSE_BUTTON_LEFT) {
        if (action == GLFW_PRESS) {
            v->input.left_down = 1;
            v->input.left_pressed = 1;
            v->input.press_on_panel = v->panel.shown && v->panel.ui.over_panel;
        } else {
            v->input.left_down = 0;
            v->input.left_released = 1;
        }
    } else if (button == GLFW_MOUSE_BUTTON_RIGHT || button == GLFW_MOUSE_BUTTON_MIDDLE) {
        v->input.right_down = action == GLFW_PRESS;
    }
}

static void on_scroll(GLFWwindow *w, double dx, double dy) {
    (void)dx;
    view *v = glfwGetWindowUserPointer(w);
    view_input_seen(v);
    if (v->panel.shown && v->panel.ui.over_panel) {
        v->panel.scroll -= dy * 20 * v->panel.ui.ts; /* clamped when the panel is drawn */
        return;
    }
    view_camera_wheel(v, dy);
}

static void on_size(GLFWwindow *w, int width, int height) {
    view *v = glfwGetWindowUserPointer(w);
    v->window.win_w = width;
    v->window.win_h = height;
    glfwGetFramebufferSize(w, &v->window.fb_w, &v->window.fb_h);
    v->panel.ui.ts = (float)view_text_scale(v->window.fb_h);
    if (v->camera.fitted && v->window.fb_w > 0 && v->window.fb_h > 0) view_camera_fit(v);
}

void view_callbacks_install(view *v) {
    glfwSetWindowUserPointer(v->win, v);
    glfwSetCharCallback(v->win, view_on_char);
    glfwSetKeyCallback(v->win, view_on_key);
    glfwSetCursorPosCallback(v->win, on_cursor);
    glfwSetCursorEnterCallback(v->win, on_enter);
    glfwSetMouseButtonCallback(v->win, on_button);
    glfwSetScrollCallback(v->win, on_scroll);
    glfwSetWindowSizeCallback(v->win, on_size);
    glfwSetFramebufferSizeCallback(v->win, on_size);
    /* A window that opens under the pointer gets no enter event: it is there already. */
    if (glfwGetWindowAttrib(v->win, GLFW_HOVERED)) on_enter(v->win, 1);
}

/* ---- scripted input ------------------------------------------------------------------- */

/* Moves the cursor to framebuffer pixel (px, py), as the window system would report it. */
static void script_move(view *v, double px, double py) {
    double sx = (double)v->window.win_w / v->window.fb_w,
           sy = (double)v->window.win_h / v->window.fb_h;
    on_cursor(v->win, px * sx, py * sy);
}

void view_script_pointer(view *v) {
    const view_opts *o = v->o;
    if (o->press) {
        render_camera c = view_camera(v);
        double px, py;
        render_world_to_px(&c, o->press_x, o->press_y, &px, &py);
        script_move(v, px, py);
        if (!v->input.left_down) on_button(v->win, GLFW_MOUSE_BUTTON_LEFT, GLFW_PRESS, 0);
    }
    if (v->input.release_next) {
        v->input.release_next = 0;
        on_button(v->win, GLFW_MOUSE_BUTTON_LEFT, GLFW_RELEASE, 0);
    }
}

/* One {TOKEN} of a script: a key without a character, or a click. 0 if unknown. */
static int script_token(view *v, const char *tok) {
    int fk;
    double cx, cy, dy, ex, ey;
    if (!strcmp(tok, "space"))
        view_on_key(v->win, GLFW_KEY_SPACE, 0, GLFW_PRESS, 0);
    else if (!strcmp(tok, "tab"))
        view_on_key(v->win, GLFW_KEY_TAB, 0, GLFW_PRESS, 0);
    else if (!strcmp(tok, "esc"))
        view_on_key(v->win, GLFW_KEY_ESCAPE, 0, GLFW_PRESS, 0);
    else if (sscanf(tok, "f%d", &fk) == 1 && fk >= 1 && fk <= 12)
        view_on_key(v->win, GLFW_KEY_F1 + fk - 1, 0, GLFW_PRESS, 0);
    else if (sscanf(tok, "click:%lf,%lf", &cx, &cy) == 2) {
        script_move(v, cx, cy);
        /* The panel decides whether the press is its own from where the pointer is, which
         * it learns when it is drawn: hold the press over this frame and release on the
         * next. */
        v->panel.ui.over_panel =
            v->panel.shown && cx >= v->panel.ui.x0 && cy < v->panel.ui.y0 + v->panel.ui.h;
        on_button(v->win, GLFW_MOUSE_BUTTON_LEFT, GLFW_PRESS, 0);
        v->input.release_next = 1;
    } else if (sscanf(tok, "drag:%lf,%lf,%lf,%lf", &cx, &cy, &ex, &ey) == 4) {
        /* Pressed at the start, moved to the end in one event, released on the next frame
         * (3-D: the camera turns). */
        script_move(v, cx, cy);
        v->panel.ui.over_panel =
            v->panel.shown && cx >= v->panel.ui.x0 && cy < v->panel.ui.y0 + v->panel.ui.h;
        on_button(v->win, GLFW_MOUSE_BUTTON_LEFT, GLFW_PRESS, 0);
        script_move(v, ex, ey);
        v->input.release_next = 1;
    } else if (sscanf(tok, "wheel:%lf,%lf,%lf", &cx, &cy, &dy) == 3) {
        script_move(v, cx, cy);
        v->panel.ui.over_panel =
            v->panel.shown && cx >= v->panel.ui.x0 && cy < v->panel.ui.y0 + v->panel.ui.h;
        on_scroll(v->win, 0, dy);
    } else
        return 0;
    return 1;
}

/* Types TEXT, t up to stop: characters through the character handler, {TOKEN}s through
 * script_token. 0 on a malformed token. */
static int script_type(view *v, const char *t, const char *stop) {
    while (t < stop) {
        if (*t != '{') {
            view_on_char(v->win, (unsigned char)*t++);
            continue;
        }
        const char *close = strchr(t, '}');
        char tok[64];
        size_t len = (size_t)(close - t - 1);
        if (len >= sizeof tok) return 0;
        memcpy(tok, t + 1, len);
        tok[len] = '\0';
        t = close + 1;
        if (!script_token(v, tok)) return 0;
    }
    return 1;
}

/* The script: items "FRAME:TEXT" separated by commas; an item's TEXT ends at a comma
 * followed by a digit (outside braces), so TEXT may type commas. */
int view_script_keys(view *v, long frame_no) {
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
        if (f == frame_no && !script_type(v, t, stop)) return 0;
        spec = *stop ? stop + 1 : stop;
    }
    return 1;
}
