/* SPDX-License-Identifier: MIT */
/* The whole public API in one include: the core (parameters, flock state, backends,
 * metrics, structure, state files) and the GPU pipeline's declarations.
 *
 * Link boids::core (pkg-config: boids) for the core; boids::gpu adds the GPU backend. The
 * GPU declarations need no GL header, and using only the core's functions needs no GPU
 * library. Each header states its own threading and ownership rules at its top. */
#ifndef BOIDS_BOIDS_H
#define BOIDS_BOIDS_H

#include "boids/backend.h"
#include "boids/error.h"
#include "boids/estimators.h"
#include "boids/flock.h"
#include "boids/gpu.h"
#include "boids/interact.h"
#include "boids/metrics.h"
#include "boids/params.h"
#include "boids/rng.h"
#include "boids/state_io.h"
#include "boids/structure.h"
#include "boids/version.h"

#endif
