/* SPDX-License-Identifier: MIT */
/* The viewer's state and what its files share. view.h is the viewer seen from the program;
 * this header is for the viewer's own files (src/app/viewer) only.
 *
 * One file per concern. Each file's section below declares the state it owns and the
 * functions it offers the others; struct view, at the end, holds the handles every file
 * uses and one member for each section's state (the second column):
 *   view.c         run, follow  view_run: the frame loop, drawing a frame, following a
 *                               boid, --stats
 *   view_window.c  window       the GLFW window and its GL context (monitor,
 *                               multisampling, vsync)
 *   view_keys.c    -            the key table: keyboard dispatch, the `?` overlay, the
 *                               docs' table
 *   view_input.c   input        mouse and window events, scripted input (--keys, --press)
 *   view_camera.c  camera       the camera of the plane and of the box, and what moves it
 *   view_sim.c     sim, pace    changing the simulation (parameters, restarts, presets)
 *                               and its pace
 *   view_panel.c   panel        the control panel on the right
 *   view_hud.c     hud          the HUD, the order history, the status line, the
 *                               pointer's circle
 *   view_osc.c     remote       OSC addresses applied between frames, observables sent
 *                               (remote/osc.c: the transport)
 *   view_tuio.c    remote       TUIO cursors and blobs on the OSC port as interaction
 *                               points
 *   view_life.c    life         running unattended: signals, SIGHUP reload, attract mode,
 *                               frame times
 *   view_record.c  recording    the frame read back once for screenshots and videos: the
 *                               recording (--record, F9), the live stream (--stream)
 *   view_replay.c  replay       playing a recorded trajectory (--replay): pace,
 *                               direction, ends
 * Any file reads any section. A section's own file writes its bookkeeping; the settings in
 * it (the pause in pace, the pointer's mode in input, the HUD and panel shown) are also set
 * by the controls: the keys, the panel's buttons and OSC. */
#ifndef BOIDS_APP_VIEW_INTERNAL_H
#define BOIDS_APP_VIEW_INTERNAL_H

#include <stdint.h>

#include "boids/gpu.h"
#include "boids/interact.h"
#include "render/camera3.h"
#include "remote/osc.h"
#include "render/render_scene.h"
#include "render/video.h"
#include "viewer/view.h"
#include "viewer/view_ui.h"

/* GLFW's own declaration (C11 allows repeating a typedef), so that files which never call
 * GLFW need not include it. */
typedef struct GLFWwindow GLFWwindow;

enum {
    VIEW_PRESETS = 8,       /* F1 ... F8 and the panel's preset buttons */
    VIEW_HISTORY = 160,     /* order samples in the HUD's plot (16 s at 10 Hz) */
    VIEW_MAX_STEPS = 4,     /* steps a real-time frame may take to catch up ... */
    VIEW_FRAME_MS = 50,     /* ... while frames stay within this (view_sim.c: step_cap) */
    VIEW_N_MAX = 4000000,   /* the largest N the keys and the panel ask for */
    VIEW_ATTRACTORS = 3,    /* attract mode's wandering predators: the table's last points */
    VIEW_HIST_PER_MS = 4,   /* frame-time histogram: quarter-millisecond bins ... */
    VIEW_HIST_BINS = 4000,  /* ... up to one second (longer frames share the last bin) */
    VIEW_SHOTS_WAITING = 8, /* screenshots asked for one frame (each its own file) */
    VIEW_HUD_BACKING = 15   /* boids a thousand pixels from which the HUD has a backing panel */
};

typedef struct view view;

/* ---- view.c ------------------------------------------------------------------------------ */

/* The frame loop's own: what a frame draws and the requests it serves after drawing. */
typedef struct view_run_state {
    render_colour colour;
    int want_quit;
    int want_shot; /* screenshots to write after this frame */
    double frame_ms, steps_per_s;
    uint64_t rate_t0, rate_steps0;
} view_run_state;

/* The boid followed (the follow key): found again each frame by its id. */
typedef struct view_follow_state {
    int on, found;
    uint32_t id;
    float pos[3], vel[3]; /* the followed boid (the plane: x, y and vx, vy) */
    size_t slot;          /* its slot in the drawn buffers (gpu: cell order) */
    unsigned count;
    int want_toggle; /* the follow key or button: start or stop after this frame */
} view_follow_state;

uint64_t view_now_ns(void);
/* A new file DIR/boids-STAMP-STEP[-K]EXT in --screenshot-dir, created empty so that no two
 * share a name; 0 if none could be made (v->err says why). */
int view_new_file(view *v, const char *ext, char *path, size_t size);

/* ---- view_window.c ----------------------------------------------------------------------- */

/* The window's and its framebuffer's sizes (view_input.c's resize callback keeps them) and
 * what its context is. */
typedef struct view_window_state {
    int win_w, win_h, fb_w, fb_h;
    const char *renderer;
    boids_gl_debug glog; /* -vv: KHR_debug messages of the window's context */
} view_window_state;

/* Opens the window of the options on v->win, its context current and GL loaded; v->win
 * stays NULL if none could be made. */
boids_status view_window_open(view *v, const view_opts *o, boids_error *err);
/* 1 if the current context renders in software (llvmpipe, softpipe, SwiftShader). */
int view_software_renderer(void);

/* ---- view_keys.c: GLFW's character and key callbacks, and the `?` overlay ----------------- */

void view_on_char(GLFWwindow *w, unsigned int c);
void view_on_key(GLFWwindow *w, int key, int scancode, int action, int mods);
void view_help_draw(view *v);

/* ---- view_input.c ------------------------------------------------------------------------ */

/* The mouse as the events leave it, and what the pointer does with it. */
typedef struct view_input_state {
    double mx, my; /* cursor, framebuffer pixels */
    int in_window, left_down, right_down, left_pressed, left_released;
    int press_on_panel;
    int release_next; /* scripted click: release the button before the next frame */
    int pos_known;    /* mx, my are where the pointer is (an enter or a move said so) */
    int moved;        /* someone moved the pointer or pressed a button: until then it
                       * neither acts nor shows its circle */
    view_pointer pointer;
    /* the pointer acts this frame, at world (ptr_x, ptr_y) (view.c, from the above) */
    int ptr_predator, ptr_food;
    double ptr_x, ptr_y;
} view_input_state;

void view_callbacks_install(view *v);
int view_text_scale(int fb_h); /* the HUD's and panel's pixels per font unit */
/* Scripted input before a frame: --press holds the button at a world point; a scripted
 * click from the previous frame is released. */
void view_script_pointer(view *v);
/* Types the --keys items of frame frame_no; 0 on a malformed script. */
int view_script_keys(view *v, long frame_no);

/* ---- view_camera.c: the plane's camera is zoom and (cx, cy), the box's cam3 --------------- */

typedef struct view_camera_state {
    double zoom, cx, cy;
    camera3 cam3;
    uint64_t fly_ns; /* the previous frame's start: the fly keys' clock */
    int lock;
    int fitted; /* the camera is `fit`'s: it fits again when the window or panel changes */
    /* following the flock's centre (`Z`, --follow-flock): where it was found, when */
    int flock, known;
    float centre[3], radius; /* scene_flock_extent's */
    float flock_zoom;        /* the box: the wheel's share of the framing distance */
    uint64_t flock_t, flock_frame;
} view_camera_state;

int view_is3d(const view *v);
render_camera view_camera(const view *v); /* the plane's; the box: the framebuffer's size */
void view_camera_fit(view *v);            /* the whole world beside the panel, unlocked */
/* The pointer moved by (dx, dy) pixels with the buttons as they are: the plane pans with
 * the right button; the box turns (left) or pans (right or middle). */
void view_camera_drag(view *v, double dx, double dy);
void view_camera_wheel(view *v, double notches); /* zoom; the plane: about the cursor */
/* In fly mode the movement keys move the camera: their characters do not reach the table. */
int view_camera_captures_char(const view *v, unsigned c);
void view_camera_fly(view *v, uint64_t now); /* the fly keys held, each frame */
/* The box: the camera's view of the frame; with the panel shown, the picture's centre moves
 * to the middle of the part of the window the panel leaves free, as the plane's fit does (a
 * shift in clip space, so the perspective itself is unchanged). */
render_view3 view_camera_box(const view *v);
/* The box: the eye and the unit ray through the pointer. */
void view_camera_ray(const view *v, float eye[3], float ray[3]);
/* A locked camera moves with the followed boid at pos (the box: orbits it). */
void view_camera_follow(view *v, const float pos[3]);
/* The camera that follows the flock's centre on / off; each frame, view_camera_flock moves
 * it there (the plane: its centre; the box: the orbit about the flock, framing it). */
void view_camera_flock_toggle(view *v);
void view_camera_flock(view *v, uint64_t now);

/* ---- view_sim.c: every change goes through boids_params_validate; a refused one keeps the
 * old state and says why on the status line ------------------------------------------------ */

/* The run: where restarts go back to, and the interaction table the steps take (changed by
 * the mouse, OSC, TUIO, attract mode and a reload). */
typedef struct view_sim_state {
    boids_params start; /* for reset */
    boids_params base;  /* the current preset's own parameters (density for N changes) */
    int scale_world;    /* the world follows N (unless --config/--set gave its size) */
    double aspect;      /* the window's width / height at the start: the world's shape */
    uint64_t seed, restarts;
    double weights[3]; /* the weights the one-rule-removed restarts go back to */
    double boid_len;   /* drawn length, world units: --boid-size or the preset's default */
    boids_interact inter;
    app_places places; /* the entries of inter that follow the world (restarts move them) */
} view_sim_state;

/* The pace: steps a second, the pause, and the clock the steps due are counted on
 * (integer nanoseconds, so that days of running accumulate no float error). */
typedef struct view_pace_state {
    int paused;
    unsigned single; /* steps to take while paused */
    long rate, steps_per_frame;
    uint64_t anchor_ns, anchor_steps;
    uint64_t rest_until; /* slow steps: no stepping before this time (keeps input live) */
    unsigned step_cap;   /* steps the next real-time frame may take, 1 to VIEW_MAX_STEPS */
    unsigned frame_steps, max_frame_steps; /* the latest frame's steps; the most of any */
    double step_ms; /* wall time of a frame's steps (the cpu backends' cost) */
} view_pace_state;

extern const char *const view_preset_names[VIEW_PRESETS];
int view_set_params(view *v, const boids_params *np); /* 1 if applied */
void view_save_weights(view *v);
/* 1 if the flock restarted (not in a replay, nor with parameters refused) */
int view_restart_random(view *v, boids_params np);
void view_restart_without(view *v, int k); /* rule k (0..2) at 0, or -1: all three */
void view_reset(view *v);                  /* starting parameters and seed */
long view_count_max(const view *v);        /* the largest N the viewer restarts with */
void view_set_count(view *v, long n);      /* n into [1, view_count_max] */
void view_apply_preset(view *v, int k);
void view_apply_preset_named(view *v, const char *name); /* any preset of boids_preset_table */
/* Adds delta to the parameter at byte offset `field` of boids_params, within [lo, hi]. */
void view_nudge(view *v, size_t field, double delta, double lo, double hi);
void view_toggle_boundary(view *v);
void view_set_rate(view *v, long rate);
/* Takes the steps due in the frame that started at t0 (a replay: moves its frames); on
 * failure v->err says why. */
boids_status view_step(view *v, uint64_t t0);
/* Steps due in the frame that started at t0 at the live pace (paused: the single steps). */
unsigned view_steps_due(view *v, uint64_t now);
/* Says on the status line that a replay changes nothing of the run: 1 when replaying. */
int view_replaying(view *v);
/* After a frame of ms milliseconds: the next real-time frame's cap on its steps. */
void view_step_cap(view *v, double ms);

/* ---- view_panel.c ------------------------------------------------------------------------ */

/* The panel's groups, folded to their heading by a click on it (view_panel.c). */
enum {
    VIEW_FOLD_PRESETS = 1,
    VIEW_FOLD_RULES = 2,
    VIEW_FOLD_SPEED = 4,
    VIEW_FOLD_FLOCK = 8, /* a replay's REPLAY group too */
    VIEW_FOLD_POINTER = 16,
    VIEW_FOLD_COLOUR = 32,
    VIEW_FOLD_SPECIES = 64
};

typedef struct view_panel_state {
    int shown;
    unsigned folded;  /* VIEW_FOLD_ bits */
    int fold_decided; /* the first frame has folded what makes the panel fit */
    ui ui;
    double scroll; /* pixels of the panel scrolled off its top */
    int unlinked;  /* the max speed slider moves max speed alone (seed 002's link off) */
} view_panel_state;

void view_panel_draw(view *v);
float view_panel_width(const view *v); /* pixels */

/* ---- view_hud.c -------------------------------------------------------------------------- */

typedef struct view_hud_state {
    int shown;
    int help; /* the `?` overlay (view_keys.c draws it) */
    double order;
    float history[VIEW_HISTORY];
    int hist_len, hist_pos;
    uint64_t order_t;
    char status[160];
    uint64_t status_until;
} view_hud_state;

/* A status line for 3 seconds (and on stderr): fmt with one %s. */
void view_say(view *v, const char *fmt, const char *arg);
void view_hud_draw(view *v);
/* Reads the order when the GPU has it and asks for the next at 10 Hz; now: the frame's start. */
void view_order_update(view *v, uint64_t now);
/* The order of the frame shown, into the HUD's figure and its plot; clear: the plot starts
 * again (a restart). */
void view_order_push(view *v, double order);
void view_order_clear(view *v);
/* The pointer's radius of action around the cursor; active: it acts now. */
void view_pointer_draw(view *v, const render_camera *c, int active);

/* ---- view_osc.c and view_tuio.c: the remote control -------------------------------------- */

/* A point of the table held by a TUIO session id (view_tuio.c). */
typedef struct view_tuio_slot {
    int held;
    int profile;   /* 0 /tuio/2Dcur, 1 /tuio/2Dblb: each has its own ids and alive lists */
    double id;     /* the session id (an OSC int32 or float, exact in a double) */
    double wx, wy; /* where its latest `set` landed: the window's normalised point */
} view_tuio_slot;

typedef struct view_remote_state {
    osc_link *osc;
    uint64_t sent_t;
    char last_bad[192];
    unsigned long repeats;
    double lines;         /* complaint lines stderr may take now (view_osc.c: bad) */
    uint64_t lines_t;     /* when lines was last topped up */
    unsigned long hushed; /* complaints refused without a line since the last line */
    view_tuio_slot tuio[BOIDS_MAX_POINTS]; /* points of the --tuio kind held by TUIO ids */
    int tuio_full;                         /* an id found no free point (said once) */
} view_remote_state;

/* view_osc.c: nothing happens without --osc-port or --osc-send. */
boids_status view_osc_open(view *v, boids_error *err);
void view_osc_poll(view *v, uint64_t now); /* applies the queued messages; sends at osc_rate */
void view_osc_close(view *v);
/* Refuses message m: "OSC PATH: why" on stderr and the status line, repeats counted. */
void view_osc_complain(view *v, const osc_msg *m, const char *why);

/* view_tuio.c: /tuio/2Dcur and /tuio/2Dblb (rest unused); view_tuio_forget drops every
 * id's hold (the table was replaced: SIGHUP). */
void view_tuio(view *v, const osc_msg *m, const char *rest);
void view_tuio_forget(view *v);
void view_tuio_draw(view *v); /* markers where the tracked points land (--tuio-markers) */

/* ---- view_life.c ------------------------------------------------------------------------- */

/* Attract mode and the frame times over the whole run (--stats: percentiles). */
typedef struct view_life_state {
    uint64_t input_ns; /* the latest input of a person (keys, mouse, OSC) */
    int attracting;    /* attract mode's predators are out */
    uint32_t frame_hist[VIEW_HIST_BINS];
    uint64_t frame_count;
    double frame_max_ms;
} view_life_state;

void view_signals_install(void); /* SIGTERM, SIGINT: stop; SIGHUP: reload the config */
void view_signals_restore(void);
int view_signals_poll(view *v); /* between frames: reloads if asked; 1: stop */
/* A person did something (key, mouse, an OSC control): attract mode ends. */
void view_input_seen(view *v);
/* Attract mode (--attract T): after T seconds without input, predators wander. */
void view_attract_update(view *v, uint64_t now);
void view_frame_time(view *v, double ms);
double view_frame_percentile(const view *v, double q); /* q in (0, 1]; ms */

/* ---- view_record.c ----------------------------------------------------------------------- */

enum { VIEW_VIDEO_RECORD = 0, VIEW_VIDEO_STREAM, VIEW_VIDEOS };

/* The frame read back (once a frame, for whatever needs it) and the videos it goes to. */
typedef struct view_record {
    render_video out[VIEW_VIDEOS]; /* the recording (--record, F9) and the live stream */
    render_pixels frame;           /* the frame as drawn, read back by view_grab */
    int grabbed;                   /* frame holds this frame (present() clears it) */
    int reserved; /* the recording's name is the key's reserved one: removed on failure */
    int want;     /* the record key: start or stop after this frame (view.c) */
} view_record;

/* This frame's pixels, read back the first time they are asked for; NULL: v->err says why. */
const unsigned char *view_grab(view *v);
/* path NULL names a new file (view_new_file, .mp4). Errors into v->err; a failed frame
 * stops the recording. */
boids_status view_record_start(view *v, const char *path);
boids_status view_stream_start(view *v);  /* --stream, if given */
boids_status view_record_frame(view *v);  /* the frame drawn, before the swap: to each video */
boids_status view_record_stop(view *v);   /* ffmpeg finishes the file; renamed into place */
boids_status view_record_finish(view *v); /* the recording and the stream, at the end */
void view_record_abort(view *v);          /* ffmpeg stopped, its file removed; buffers freed */

/* ---- view_replay.c ----------------------------------------------------------------------- */

/* A replay (o->replay): the frame shown, the direction (+1, -1), looping or stopping at the
 * ends, frames to move while paused, and the frame (and the one before it) read. */
typedef struct view_replay_state {
    long frame;
    int dir, loop;
    long moves;
    boids_flock shown[2];
} view_replay_state;

/* Errors into v->err. */
boids_status view_replay_start(view *v); /* shows o->replay_from */
void view_replay_free(view *v);
boids_status view_replay_step(view *v, uint64_t t0); /* the frames due this frame */
void view_replay_move(view *v, int dir);             /* one frame on (+1) or back (-1), paused */
void view_replay_reverse(view *v);
void view_replay_loop(view *v);                                /* loop / stop at the ends */
void view_replay_line(const view *v, char *line, size_t size); /* the HUD's pace line */

/* ---- the viewer ------------------------------------------------------------------------- */

struct view {
    /* made once at the start (view.c, view_window.c) and used by every file */
    const view_opts *o;
    app_opts app; /* o->app with the backend resolved ("auto": by the renderer) */
    GLFWwindow *win;
    render_ctx *r;
    scene *sc;
    boids_error err; /* why the latest call that failed failed */
    /* each section's state, named for the file that owns it */
    view_run_state run;
    view_follow_state follow;
    view_window_state window;
    view_input_state input;
    view_camera_state camera;
    view_sim_state sim;
    view_pace_state pace;
    view_panel_state panel;
    view_hud_state hud;
    view_remote_state remote;
    view_life_state life;
    view_record recording;
    view_replay_state replay;
};

#endif
