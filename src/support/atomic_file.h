/* SPDX-License-Identifier: MIT */
/* Output files that are either complete or absent. Part of the support library (src/support),
 * not of the public API.
 *
 * The data goes to a temporary file beside the target (the same folder, so that the final
 * rename() is atomic), created with the mode a plain fopen() would give, and becomes the
 * target only when everything was written; any failure removes it. Every file the programs
 * write (state, CSV, JSON, PNG, plots) goes through this.
 *
 * The target must be a regular file or absent: a folder, a device node, a FIFO or a
 * symbolic link is refused (BOIDS_ERR_INPUT), never replaced, so `--save /dev/null` run as
 * root cannot replace /dev/null. To write through a link, name its target.
 *
 * Ownership: the boids_atomic_file belongs to the caller; commit or abort releases what
 * open made. Threads: reentrant. */
#ifndef BOIDS_ATOMIC_FILE_H
#define BOIDS_ATOMIC_FILE_H

#include <stdio.h>

#include "boids/error.h"

typedef struct boids_atomic_file {
    FILE *f;          /* write here; a writer that needs a file name may fclose(f), set f to
                         NULL and write to tmp itself (gnuplot, image writers) */
    char *tmp;        /* the temporary file's name */
    const char *path; /* the target, as given to boids_atomic_open */
} boids_atomic_file;

/* Creates the temporary file for path. An empty path, a path that is not a regular file,
 * its folder missing or not writable: BOIDS_ERR_INPUT naming path (bad output path). */
boids_status boids_atomic_open(boids_atomic_file *a, const char *path, boids_error *err);

/* Closes the stream if open, checks that every write succeeded and renames the temporary
 * file onto the target; on any failure removes it (BOIDS_ERR_RUNTIME naming path). A NULL a,
 * or one not open (zeroed, or committed or aborted already): BOIDS_ERR_INPUT. */
boids_status boids_atomic_commit(boids_atomic_file *a, boids_error *err);

/* Closes and removes the temporary file; the target is left as it was. NULL, or a file not
 * open: nothing to do. */
void boids_atomic_abort(boids_atomic_file *a);

/* Makes the programs remove every temporary file still open (and every name passed to
 * boids_atomic_track) when SIGINT, SIGTERM or SIGHUP arrives, then end by that signal as
 * they would have without the handler (exit status 128 + signal number in a shell). Leaves
 * a signal alone whose action is not the default (ignored under nohup, or a host
 * application's own handler). Call once from main(); the library never installs it. */
void boids_atomic_cleanup_on_signals(void);

/* Adds name (kept as the pointer given: it must stay valid until untracked) to the list the
 * signal handler removes; for temporary files and folders made outside this writer (gnuplot's
 * private folder). At most 64 names at a time; beyond that a name is not tracked. */
void boids_atomic_track(char *name);
void boids_atomic_untrack(const char *name);

/* A cleanup for the signal handler, for a writer whose temporary output is more files than it
 * can track by name (a folder of frames): the handler calls fn(arg) before it removes the
 * tracked names (so a tracked folder that fn empties is then removed). fn runs inside the
 * handler: only async-signal-safe calls (unlink, rmdir; no malloc, no stdio), and it reads
 * the writer's state while the writer may be halfway through changing it. */
typedef struct boids_atomic_hook {
    void (*fn)(void *arg);
    void *arg;
} boids_atomic_hook;

/* Adds hook (kept as the pointer given, filled in before the call: it must stay valid until
 * untracked) to the cleanups the signal handler runs, newest first. At most 8 at a time;
 * beyond that a hook is not run. NULL: nothing to do. */
void boids_atomic_track_hook(const boids_atomic_hook *hook);
void boids_atomic_untrack_hook(const boids_atomic_hook *hook);

/* Checks, before a long run, that path can be written later (its folder exists and is
 * writable), leaving nothing behind: BOIDS_ERR_INPUT naming path if not. */
boids_status boids_atomic_check_writable(const char *path, boids_error *err);

#endif
