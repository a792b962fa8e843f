/* SPDX-License-Identifier: MIT */
/* Bounded line reading for the text inputs (INI and state files). Part of the support library
 * (src/support), not of the public API.
 *
 * Hostile input must fail fast and in bounded memory: a line is read into a fixed buffer
 * and refused as soon as it passes the limit, a NUL byte is refused where it occurs, and a
 * file may be required to be a regular file of bounded size (a folder, /dev/zero or a FIFO
 * never reaches the parser). A UTF-8 byte order mark at the start of the file is skipped: a
 * rule shared by every text input (README, "Hostile input"). */
#ifndef BOIDS_TEXT_LINES_H
#define BOIDS_TEXT_LINES_H

#include <stdio.h>

#include "boids/error.h"

typedef struct text_lines {
    FILE *f;
    const char *path; /* as messages name the file: name */
    char name[160];   /* the path, shortened in the middle if long (text_short_path) */
    size_t lineno;    /* the line last returned, from 1 */
    size_t max_line;  /* longest line accepted, in bytes without its end of line */
    size_t max_bytes; /* 0, or the most bytes read from the file */
    size_t bytes;     /* read so far */
    char *buf;        /* max_line + 1 bytes */
} text_lines;

/* Copies path into buf (size bytes), replacing the middle by "..." if it is too long, so
 * that a message keeps the file name and the key or column after it. */
void text_short_path(const char *path, char *buf, size_t size);

/* Opens path to read it whole ("rb"), never waiting on it: the open does not block (a FIFO
 * without a writer would block it forever), and a FIFO or a socket is refused, as is a folder;
 * regular != 0 refuses anything but a regular file. what names the kind of file in messages
 * ("config file"). NULL with err set (BOIDS_ERR_INPUT naming path) on failure, errno kept from
 * a failed open (ENOENT: no such file). */
FILE *text_fopen_input(const char *path, const char *what, int regular, boids_error *err);

/* Opens path; what names the kind of file in messages ("config file"). regular != 0 refuses
 * anything but a regular file; max_bytes != 0 refuses a file larger than that, before
 * reading it and while reading it (a file that grows). Failures: BOIDS_ERR_INPUT naming
 * path. */
boids_status text_open(text_lines *t, const char *path, const char *what, size_t max_line,
                       size_t max_bytes, int regular, boids_error *err);

/* The next line, without its LF or CRLF: returns 1 with *line set (valid until the next
 * call), 0 at the end of the file, or -1 with err naming path and line (too long, NUL
 * byte, too large, read error). */
int text_next(text_lines *t, char **line, boids_error *err);

void text_close(text_lines *t);

#endif
