/* SPDX-License-Identifier: MIT */
/* A scripted 3-D camera for `boids render --camera`: an orbit about the world's centre at a
 * constant rate, or keyframes read from a file and interpolated (cglm: the eye and the
 * distance to the target by lerp, the look direction by slerp of quaternions, so that a turn
 * between two keys sweeps at a steady angular rate).
 *
 *   orbit:DEG_PER_S[,elev=DEG][,dist=F]   yaw DEG_PER_S degrees a second of film, the eye
 *                                         DEG above the horizon (default: the start view's,
 *                                         20 degrees), F length units from the centre
 *                                         (default: the start view's, the box in view)
 *   FILE                                  lines "t eye_x eye_y eye_z target_x target_y
 *                                         target_z" (seconds, length units), t increasing;
 *                                         `#` starts a comment; before the first key and
 *                                         after the last the camera holds still */
#ifndef BOIDS_APP_CAMERA_PATH_H
#define BOIDS_APP_CAMERA_PATH_H

#include <stddef.h>

#include "boids/error.h"
#include "render/camera3.h"

typedef struct camera_key {
    double t;
    float eye[3], target[3];
} camera_key;

typedef struct camera_path {
    int orbit;                        /* 1: orbit, 0: keys */
    double deg_per_s, elev_deg, dist; /* orbit; dist 0: the start view's */
    camera_key *keys;                 /* keys, t strictly increasing */
    size_t nkeys;
} camera_path;

/* Parses an orbit spec or reads a keyframe file. Bad spec or file: BOIDS_ERR_INPUT naming
 * the option's value, or the file and line, and what is wrong; cp is then empty. */
boids_status camera_path_parse(camera_path *cp, const char *spec, boids_error *err);
void camera_path_free(camera_path *cp);

/* The camera at t seconds of film; c holds the start view of the world (camera3_reset). */
void camera_path_at(const camera_path *cp, double t, camera3 *c);

#endif
