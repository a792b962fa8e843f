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

#endif
