/* SPDX-License-Identifier: MIT */
#include "viewer/view_ui.h"

#include <math.h>
#include <stdio.h>

#define UI_BG       0x141a28d8u
#define UI_TEXT     0xdde3efffu
#define UI_TRACK    0x2c3550ffu
#define UI_FILL     0x5b8defffu
#define UI_BUTTON   0x2a3247ffu
#define UI_HOVER    0x3a4563ffu
#define UI_SELECTED 0x4f7fd9ffu

static int inside(const ui *u, float x, float y, float w, float h) {
    return u->mx >= x && u->mx < x + w && u->my >= y && u->my < y + h;
}

void ui_begin(ui *u, float x, float y, float w) {
    u->x0 = x;
    u->y0 = y;
    u->x = x + 4 * u->ts;
    u->y = y + 4 * u->ts;
    u->w = w - 8 * u->ts;
    u->over_panel = u->h > 0 && inside(u, x, y, w, u->h);
    if (u->h > 0) render_rect(u->r, x, y, w, u->h, UI_BG);
}

void ui_end(ui *u) {
    u->h = u->y - u->y0 + 2 * u->ts;
    if (u->released) u->active = 0;
}

void ui_label(ui *u, const char *text, uint32_t rgba) {
    render_text(u->r, u->x, u->y, u->ts, text, rgba);
    u->y += 10 * u->ts;
}

int ui_heading(ui *u, int id, const char *text, int folded, uint32_t rgba) {
    int over = inside(u, u->x, u->y - u->ts, u->w, 10 * u->ts);
    if (u->pressed && over) u->active = id;
    int clicked = u->released && over && u->active == id;
    const char *mark = folded ? "+" : "-";
    render_text(u->r, u->x + u->w - render_text_width(mark, u->ts), u->y, u->ts, mark,
                over ? UI_TEXT : rgba);
    ui_label(u, text, over ? UI_TEXT : rgba);
    return clicked;
}

int ui_slider(ui *u, int id, const char *label, double *v, double lo, double hi, const char *fmt,
              int log_scale) {
    char value[64];
    snprintf(value, sizeof value, fmt, *v);
    render_text(u->r, u->x, u->y, u->ts, label, UI_TEXT);
    render_text(u->r, u->x + u->w - render_text_width(value, u->ts), u->y, u->ts, value, UI_TEXT);
    u->y += 9 * u->ts;
    float bx = u->x, by = u->y, bw = u->w, bh = 5 * u->ts;
    int result = 0;
    if (u->pressed && inside(u, bx, by - 2 * u->ts, bw, bh + 4 * u->ts)) u->active = id;
    if (u->active == id) {
        double t = (u->mx - bx) / bw;
        t = t < 0 ? 0 : t > 1 ? 1 : t;
        double nv = log_scale ? lo * pow(hi / lo, t) : lo + (hi - lo) * t;
        if (nv != *v) {
            *v = nv;
            result = 1;
        }
        if (u->released) result = 2;
    }
    double t = log_scale ? log(*v / lo) / log(hi / lo) : (*v - lo) / (hi - lo);
    t = t < 0 ? 0 : t > 1 ? 1 : t;
    render_rect(u->r, bx, by, bw, bh, UI_TRACK);
    render_rect(u->r, bx, by, (float)(bw * t), bh, UI_FILL);
    render_rect(u->r, bx + (float)(bw * t) - u->ts, by - u->ts, 2 * u->ts, bh + 2 * u->ts, UI_TEXT);
    u->y += bh + 5 * u->ts;
    return result;
}

int ui_buttons(ui *u, int id, const char *const *labels, int n, int selected) {
    float gap = 2 * u->ts, bh = 11 * u->ts;
    float bw = (u->w - gap * (float)(n - 1)) / (float)n;
    int clicked = -1;
    for (int i = 0; i < n; i++) {
        float bx = u->x + (float)i * (bw + gap);
        int over = inside(u, bx, u->y, bw, bh);
        if (u->pressed && over) u->active = id * 64 + i;
        if (u->released && over && u->active == id * 64 + i) clicked = i;
        uint32_t bg = i == selected ? UI_SELECTED : over ? UI_HOVER : UI_BUTTON;
        render_rect(u->r, bx, u->y, bw, bh, bg);
        float tw = render_text_width(labels[i], u->ts);
        render_text(u->r, bx + (bw - tw) / 2, u->y + 2.5f * u->ts, u->ts, labels[i], UI_TEXT);
    }
    u->y += bh + 3 * u->ts;
    return clicked;
}
