/* Output files that are either complete or absent.
 *
 * The data goes to a temporary file beside the target (the same folder, so that the final
 * rename() is atomic), created with the mode a plain fopen() would give, and becomes the
 * target only when everything was written; any failure removes it. Every file the programs
 * write (state, CSV, JSON, PNG, plots) goes through this.
 *
 * Ownership: the boids_atomic_file belongs to the caller; commit or abort releases what
 * open made. Threads: reentrant. */
#ifndef BOIDS_ATOMIC_FILE_H
#define BOIDS_ATOMIC_FILE_H

#include <stdio.h>

#include "boids/api.h"
#include "boids/error.h"

BOIDS_BEGIN_DECLS

typedef struct boids_atomic_file {
    FILE *f;          /* write here; a writer that needs a file name may fclose(f), set f to
                         NULL and write to tmp itself (gnuplot, image writers) */
    char *tmp;        /* the temporary file's name */
    const char *path; /* the target, as given to boids_atomic_open */
} boids_atomic_file;

/* Creates the temporary file for path. Its folder missing or not writable: BOIDS_ERR_INPUT
 * naming path (bad output path). */
boids_status boids_atomic_open(boids_atomic_file *a, const char *path, boids_error *err);

/* Closes the stream if open, checks that every write succeeded and renames the temporary
 * file onto the target; on any failure removes it (BOIDS_ERR_RUNTIME naming path). */
boids_status boids_atomic_commit(boids_atomic_file *a, boids_error *err);

/* Closes and removes the temporary file; the target is left as it was. */
void boids_atomic_abort(boids_atomic_file *a);

/* Checks, before a long run, that path can be written later (its folder exists and is
 * writable), leaving nothing behind: BOIDS_ERR_INPUT naming path if not. */
boids_status boids_atomic_check_writable(const char *path, boids_error *err);

BOIDS_END_DECLS

#endif
