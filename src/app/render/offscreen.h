/* SPDX-License-Identifier: MIT */
/* Frames drawn offscreen (`boids render`), on the current GL context: a 4x multisampled
 * target, warm-up steps, then a frame every few steps (or a replay's recorded frames), each
 * drawn in the plane or in the box (the 3-D camera on its path, the predator diving, dive.h)
 * and written as a numbered PNG or as raw RGBA on stdout. The command
 * (commands/cmd_render.c) fills the job from its options and checks them. */
#ifndef BOIDS_APP_RENDER_OFFSCREEN_H
#define BOIDS_APP_RENDER_OFFSCREEN_H

#include <stddef.h>

#include "boids/flock.h"
#include "boids/gpu.h"
#include "boids/interact.h"
#include "cli/cli.h"
#include "output/traj_read.h"
#include "render/camera_path.h"
#include "render/render.h"

/* What to draw and where to. */
typedef struct render_job {
    const char *out;
    int raw;     /* --output -: raw RGBA on stdout */
    int video;   /* --output FILE.mp4 (a video file, URL or device): through ffmpeg, video.h */
    int size[2]; /* frame width and height, pixels */
    long frames, spf, warmup;
    double boid_len;
    int colour, hud;
    double trail; /* --trail; -1: the config's */
    int density;  /* --density; -1: the config's */
    render_look look;
    boids_interact inter; /* the config file's points and obstacles: stepped and drawn */
    const char *camera;   /* --camera: the 3-D camera's path; NULL: the start view */
    double fps;           /* the film's frames a second: the camera path's clock */
    int backend_given;    /* --backend was on the command line */
    camera_path path;
    const char *replay; /* --replay: the frames of this trajectory, no simulation */
    long from;          /* --replay: the first frame drawn */
    app_traj_in traj;
    boids_flock shown[2]; /* --replay: the frame drawn and the one before it (3-D banking) */
} render_job;

/* The file name of frame f from j->out, a pattern with one %d conversion (checked by the
 * command); 0 if it does not fit in size. */
int render_frame_path(const render_job *j, long f, char *path, size_t size);

/* Draws and writes j->frames frames on the current GL context gl, with the options o and the
 * parameters p (a replay: its trajectory's). */
boids_status render_frames(render_job *j, const app_opts *o, const boids_params *p, boids_gl *gl,
                           boids_error *err);

#endif
