/* SPDX-License-Identifier: MIT */
/* A double as the shortest text that reads back as the same double: what a person reads and
 * what a config written for them holds (0.03, not 0.029999999999999999). Part of the support
 * library (src/support), not of the public API.
 *
 * Threads: reentrant. */
#ifndef BOIDS_SHORTEST_H
#define BOIDS_SHORTEST_H

#include <stddef.h>

/* v as %.Pg for the least P in 1..17 whose text strtod reads back as v (17 digits always
 * do), or a larger P where that gives shorter text (10, not 1e+01; 1e+07 stays); nan, inf
 * and -inf as printf writes them. buf of size bytes, 32 hold any value; a
 * smaller buf gets the text cut short, NUL-terminated. Returns buf. */
char *shortest_double(double v, char *buf, size_t size);

#endif
