/* SPDX-License-Identifier: MIT */
/* Running gnuplot without letting any file name become gnuplot code.
 *
 * A script names its outputs by fixed relative names ("plot.svg"); gnuplot runs on it in a
 * private temporary folder (mkdtemp) and each output is then copied to its real target
 * through the atomic writer. No user path is ever pasted into the script, so a name with a
 * quote, a newline or `system(...)` in it is just a name. */
#ifndef BOIDS_APP_GNUPLOT_H
#define BOIDS_APP_GNUPLOT_H

#include <stddef.h>

#include "boids/error.h"

/* Runs gnuplot on script; the script writes n files names[i] (plain names, no '/') which
 * become targets[i]. gnuplot missing or failing: BOIDS_ERR_RUNTIME, no target written. */
boids_status app_gnuplot(const char *script, size_t n, const char *const *names,
                         const char *const *targets, boids_error *err);

#endif
