/* SPDX-License-Identifier: MIT */
#include "boids/version.h"

const char *boids_version(void) {
    return BOIDS_VERSION_STRING;
}
