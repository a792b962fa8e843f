/* SPDX-License-Identifier: MIT */
#include "boids/error.h"

#include <stdarg.h>
#include <stdio.h>

boids_status boids_error_set(boids_error *err, boids_status status, const char *fmt, ...) {
    if (err) {
        err->status = status;
        if (!fmt) fmt = "(no message)";
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
    }
    return status;
}

void boids_error_clear(boids_error *err) {
    if (err) {
        err->status = BOIDS_OK;
        err->msg[0] = '\0';
    }
}

int boids_status_exit_code(boids_status status) {
    switch (status) {
    case BOIDS_OK:
        return 0;
    case BOIDS_ERR_INPUT:
    case BOIDS_ERR_LIMIT:
        return 2;
    case BOIDS_ERR_RUNTIME:
    case BOIDS_ERR_NOMEM:
        return 1;
    }
    return 1;
}
