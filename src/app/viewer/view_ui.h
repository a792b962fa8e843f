/* SPDX-License-Identifier: MIT */
/* Immediate-mode widgets for the viewer's control panel: each frame the panel code calls
 * ui_slider / ui_buttons in layout order; they draw through the renderer and report what
 * the mouse did to them. No widget state lives outside struct ui. */
#ifndef BOIDS_APP_VIEW_UI_H
#define BOIDS_APP_VIEW_UI_H

#include "render/render.h"

typedef struct ui {
    render_ctx *r;
    float ts;        /* text scale (stb_easy_font pixels per font unit) */
    double mx, my;   /* mouse, framebuffer pixels */
    int down;        /* left button held */
    int pressed;     /* left button went down this frame */
    int released;    /* left button went up this frame */
    int active;      /* id of the widget holding the mouse since its press, 0 none */
    float x, y, w;   /* layout: left, next row's top, width */
    float x0, y0, h; /* panel rectangle (h measured by the previous frame) */
    int over_panel;  /* the mouse is over the panel */
} ui;

/* Starts the panel at (x, y) with width w; draws its background (height of last frame). */
void ui_begin(ui *u, float x, float y, float w);
void ui_end(ui *u);

/* A text line. */
void ui_label(ui *u, const char *text, uint32_t rgba);
/* A group's heading, with "-" (or "+" when folded) at its right end; 1 when it was clicked
 * (on release over the heading it was pressed on). */
int ui_heading(ui *u, int id, const char *text, int folded, uint32_t rgba);

/* Slider for *v in [lo, hi] (logarithmic if log_scale), label and value shown with fmt
 * ("%.2f"). Returns 1 while dragging changes the value, 2 when the drag ends. */
int ui_slider(ui *u, int id, const char *label, double *v, double lo, double hi, const char *fmt,
              int log_scale);

/* A row of n buttons; selected (or -1) is drawn highlighted. Returns the index clicked
 * (on release over the button it was pressed on), or -1. */
int ui_buttons(ui *u, int id, const char *const *labels, int n, int selected);

#endif
