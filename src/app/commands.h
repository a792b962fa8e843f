/* SPDX-License-Identifier: MIT */
#ifndef BOIDS_APP_COMMANDS_H
#define BOIDS_APP_COMMANDS_H

#include "cli.h"

/* Each subcommand takes the arguments after `boids` (argv[0] is its own name) and returns
 * the process exit code: 0 ok, 1 the run failed, 2 bad usage or input. */
int boids_cmd_sim(int argc, char **argv);
int boids_cmd_verify(int argc, char **argv);
int boids_cmd_params(int argc, char **argv);
int boids_cmd_sweep(int argc, char **argv);
int boids_cmd_view(int argc, char **argv);
int boids_cmd_render(int argc, char **argv);

/* The parameters of a drawn flock (`view`, `render`): those of the options, with the world
 * shaped to the frame's aspect ratio (width / height; 0 keeps the preset's) and grown to keep
 * the preset's density when -n exceeds the preset's N (view_fit_world), unless --load,
 * --config or --set give the world's size. base gets the preset's parameters alone and
 * *scaled whether the world follows the frame and N. */
boids_status app_drawn_params(const app_opts *o, double aspect, boids_params *p, boids_params *base,
                              int *scaled, boids_error *err);

#endif
