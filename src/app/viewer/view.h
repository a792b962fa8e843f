/* SPDX-License-Identifier: MIT */
/* The interactive viewer: a GLFW window (GL 4.3 core) drawing the flock straight from the
 * GPU state buffer, with a control panel, keyboard shortcuts, pointer as predator or food,
 * "see what a boid sees", a HUD and screenshots. `boids view` parses the flags
 * (cmd_view.c) and calls view_run(). */
#ifndef BOIDS_APP_VIEW_H
#define BOIDS_APP_VIEW_H

#include <stdio.h>

#include "boids/error.h"
#include "boids/interact.h"
#include "boids/params.h"
#include "cli/cli.h"
#include "render/render.h"
#include "output/traj_read.h"

typedef enum view_pointer {
    VIEW_POINTER_OFF = 0,
    VIEW_POINTER_PREDATOR, /* press and hold: boids within predator_radius flee */
    VIEW_POINTER_FOOD,     /* press and hold: boids within food_radius come */
    VIEW_POINTER_HOVER,    /* seed 000: a predator wherever the pointer hovers */
    VIEW_POINTERS
} view_pointer;
extern const char *const view_pointer_names[VIEW_POINTERS + 1]; /* NULL-terminated */

/* What TUIO cursors and blobs on the OSC port become (--tuio, docs/osc.md). */
typedef enum view_tuio_kind {
    VIEW_TUIO_PREDATORS = 0,
    VIEW_TUIO_ATTRACTORS,
    VIEW_TUIO_OFF, /* TUIO messages are ignored */
    VIEW_TUIO_KINDS
} view_tuio_kind;
extern const char *const view_tuio_names[VIEW_TUIO_KINDS + 1]; /* NULL-terminated */

typedef struct view_opts {
    app_opts app;         /* shared options (backend defaults to gpu) */
    boids_params base;    /* the preset's parameters before --config/--set/-n */
    int scale_world;      /* 1: the world grows with N to keep the preset's density */
    boids_interact inter; /* points and obstacles at the start (view_start_interact) */
    render_look look;     /* the config's `view.` lines, then the flags */
    int fullscreen;       /* borderless full screen on the monitor */
    int monitor;          /* index into the connected monitors; -1 the primary */
    int hide_cursor;
    int hud, panel; /* shown at start */
    int vsync;
    int msaa;                  /* samples per pixel; -1: 4, or 0 on software renderers */
    int win_w, win_h;          /* window size, screen coordinates */
    int win_pos, win_x, win_y; /* win_pos: place the window's top left at (win_x, win_y) */
    int borderless;            /* no title bar or frame */
    int span;                  /* one borderless window over every monitor's bounds */
    long steps_per_frame;      /* > 0: fixed steps per frame; 0: real time at `rate` */
    long rate;                 /* steps per second in real-time mode */
    render_colour colour;
    view_pointer pointer;
    double boid_len;      /* boid length, world units (at least 3 pixels drawn); 0 auto */
    const char *shot_dir; /* where the screenshot and record keys write */
    const char *record;   /* a video of the frames shown, through ffmpeg (NULL: none) */
    const char *stream;   /* the frames live to a URL or v4l2 device (render/video.h) */
    int video_fps;        /* the videos' frames a second */
    int every_frame;      /* the recording takes every frame drawn, not real time */
    long warmup;          /* steps before the first frame */
    int follow_flock;     /* the camera starts following the flock's centre (key Z) */
    /* Scripting (tests, unattended checks). */
    long frames;              /* > 0: quit after this many frames */
    const char *shot_at_exit; /* PNG written after the last frame */
    int press;                /* hold the pointer pressed at (press_x, press_y), world units */
    double press_x, press_y;
    const char *keys; /* scripted keys and clicks (--keys, see its help) */
    int stats;        /* print a CSV line of measurements at exit */
    /* OSC (docs/osc.md) */
    int osc_port;         /* > 0: listen for control messages on this UDP port */
    const char *osc_host; /* the address to listen on; NULL: 127.0.0.1 */
    const char *osc_send; /* "HOST:PORT" the observables go to; NULL: none */
    double osc_rate;      /* observables sent per second */
    int tuio;             /* view_tuio_kind */
    double attract;       /* > 0: attract mode after this many seconds without input */
    /* Replay (--replay, view_replay.c): the recorded frames instead of a simulation. */
    app_traj_in *replay;        /* NULL: a live run */
    long replay_from;           /* the first frame shown */
    const double *series_order; /* --series: the order of each frame; NULL: computed */
} view_opts;

/* Runs the window until it is closed (or o->frames frames). No display: BOIDS_ERR_INPUT
 * with a message naming `boids render` and `boids sim`; no GL 4.3 context or a failed
 * step: BOIDS_ERR_RUNTIME. */
boids_status view_run(const view_opts *o, const boids_params *p, boids_error *err);

/* The interaction points and obstacles the viewer starts with: the config file's lines
 * (app_interact); and the look of its `view.` lines. */
boids_status view_start_interact(view_opts *o, const boids_params *p, boids_error *err);

/* Writes the viewer's key table as a Markdown table (docs/viewer.md holds it; a test checks
 * that they agree). */
void view_keys_markdown(FILE *out);

#endif
