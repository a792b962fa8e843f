/* SPDX-License-Identifier: MIT */
/* `--replay FILE` of `boids view` and `boids render` (replay.c): the trajectory and the
 * parameters its frames are drawn with. */
#ifndef BOIDS_APP_REPLAY_H
#define BOIDS_APP_REPLAY_H

#include "cli/cli.h"
#include "output/traj_read.h"

/* Opens the trajectory path into t and sets p: the sidecar FILE.json's parameters, where the
 * parameter options (--preset, --config, --set, -n, --model, --neighbours, -k,
 * --fixed-world) are refused; without a sidecar those options give them (they are needed:
 * none is refused), with N the file's (-n, if given, must be it) and the world of N as `boids
 * sim -n N` has it, and their dim must be the file's. --load and a --backend given
 * (backend_given) are refused: a replay loads and steps nothing. Every refusal is
 * BOIDS_ERR_INPUT naming the option and the file; t is closed on failure. */
boids_status app_replay_open(app_opts *o, int backend_given, const char *path, app_traj_in *t,
                             boids_params *p, boids_error *err);

/* --from K of a replay of t: K within its frames, else BOIDS_ERR_INPUT. */
boids_status app_replay_check_from(const app_traj_in *t, long from, boids_error *err);

#endif
