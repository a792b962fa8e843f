/* SPDX-License-Identifier: MIT */
/* Config files: `key = value` lines, read by one strict reader for every part of the program
 * that takes keys from them (the parameters, the viewer's points and obstacles, its look).
 *
 * A config file is a regular file of at most 1 MiB with lines of at most 1024 bytes, LF or
 * CRLF, an optional UTF-8 BOM first and no NUL byte. A line is blank, a comment (`#` or `;`
 * first) or one `key = value`; a comment may follow a value after whitespace. No sections,
 * no continuation lines (an indented line stands alone). Anything else is BOIDS_ERR_INPUT
 * naming the file and line.
 *
 * Part of the support library (src/support), not of the public API. Threads: reentrant. */
#ifndef BOIDS_INI_H
#define BOIDS_INI_H

#include "boids/error.h"

/* Called for each `key = value` line in file order; `where` is "file:line". A status other
 * than BOIDS_OK stops the reading and is returned. */
typedef boids_status (*boids_ini_fn)(void *user, const char *key, const char *value,
                                     const char *where, boids_error *err);

/* Reads path and calls fn for every key = value line (see above). */
boids_status boids_ini_read(const char *path, boids_ini_fn fn, void *user, boids_error *err);

#endif
