/* SPDX-License-Identifier: MIT */
/* Error reporting shared by every part of the library.
 *
 * Library functions never exit and never print: they return a status and fill a
 * boids_error with one human-readable message that names what is wrong and where
 * (file, line, key, limit). Only the program's main() turns a status into an exit code:
 * BOIDS_ERR_INPUT and BOIDS_ERR_LIMIT mean bad usage or input (exit 2), the others mean
 * the run itself failed (exit 1).
 *
 * Threads: every function here is reentrant; a boids_error belongs to the caller and
 * must not be shared by threads that report into it at the same time. */
#ifndef BOIDS_ERROR_H
#define BOIDS_ERROR_H

#include <stddef.h>

#include "boids/api.h"

BOIDS_BEGIN_DECLS

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

/* Records status and a printf-style message in err (err may be NULL; fmt NULL records
 * "(no message)"); returns status. */
boids_status boids_error_set(boids_error *err, boids_status status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Clears err to BOIDS_OK with an empty message. */
void boids_error_clear(boids_error *err);

/* The exit code main() should use for a status: 0, 1 (run failed) or 2 (bad usage/input). */
int boids_status_exit_code(boids_status status);

/* Programmer mistakes that have no error return (a CPU backend passed to a GPU getter) are
 * checked by assertions in debug builds of the library; a failed one calls this handler
 * with the condition's text, the source file and line. The default prints them to stderr
 * and aborts. */
typedef void (*boids_assert_handler)(const char *condition, const char *file, int line);

/* Sets the handler (NULL restores the default) and returns the previous one. Set it once,
 * before other threads use the library. */
boids_assert_handler boids_set_assert_handler(boids_assert_handler handler);

/* 1 when this build of the library checks its assertions (a debug build), else 0. */
int boids_asserts_enabled(void);

BOIDS_END_DECLS

#endif
