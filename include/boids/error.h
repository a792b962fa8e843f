/* Error reporting shared by every part of the library.
 *
 * Library functions never exit and never print: they return a status and fill a
 * boids_error with one human-readable message that names what is wrong and where
 * (file, line, key, limit). Only the program's main() turns a status into an exit code:
 * BOIDS_ERR_INPUT and BOIDS_ERR_LIMIT mean bad usage or input (exit 2), the others mean
 * the run itself failed (exit 1). */
#ifndef BOIDS_ERROR_H
#define BOIDS_ERROR_H

#include <stddef.h>

typedef enum boids_status {
    BOIDS_OK = 0,
    BOIDS_ERR_INPUT,   /* bad flag, key, value, file content or file name */
    BOIDS_ERR_LIMIT,   /* a size beyond what the machine or the GPU can hold */
    BOIDS_ERR_RUNTIME, /* the run failed: no GL context, I/O error while writing, ... */
    BOIDS_ERR_NOMEM    /* an allocation failed */
} boids_status;

enum { BOIDS_ERROR_MSG_MAX = 512 };

typedef struct boids_error {
    boids_status status;
    char msg[BOIDS_ERROR_MSG_MAX];
} boids_error;

/* Records status and a printf-style message in err (err may be NULL); returns status. */
boids_status boids_error_set(boids_error *err, boids_status status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Clears err to BOIDS_OK with an empty message. */
void boids_error_clear(boids_error *err);

/* The exit code main() should use for a status: 0, 1 (run failed) or 2 (bad usage/input). */
int boids_status_exit_code(boids_status status);

#endif
