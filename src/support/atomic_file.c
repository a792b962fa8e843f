/* SPDX-License-Identifier: MIT */
#include "atomic_file.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* ---- temporary files removed on SIGINT, SIGTERM, SIGHUP --------------------------------- */

/* The handler may run between any two instructions of the writer, so it only reads these
 * fixed arrays: a slot holds a complete name (a hook filled in) or NULL (stored after it is
 * written, cleared before it is freed). unlink() and rmdir() are async-signal-safe. */
enum { TRACKED_MAX = 64, HOOKS_MAX = 8 };
static void *volatile tracked[TRACKED_MAX]; /* char *: the names */
static void *volatile hooks[HOOKS_MAX];     /* const boids_atomic_hook * */

static void on_signal(int signo) {
    /* The hooks first: they empty the folders that the names below then remove. */
    for (int i = HOOKS_MAX - 1; i >= 0; i--) {
        const boids_atomic_hook *h = hooks[i];
        if (h && h->fn) h->fn(h->arg);
    }
    /* Newest first, so that a folder comes after the files inside it; a file's rmdir and
     * a folder's unlink fail harmlessly. */
    for (int i = TRACKED_MAX - 1; i >= 0; i--) {
        char *name = tracked[i];
        if (name && unlink(name) != 0) rmdir(name);
    }
    /* The default action ends the process as the signal would have (status 128 + signo
     * for a shell). SA_RESETHAND restored it on entry; the signal is delivered once the
     * handler returns. */
    raise(signo);
}

void boids_atomic_cleanup_on_signals(void) {
    static const int signals[] = {SIGINT, SIGTERM, SIGHUP};
    for (size_t i = 0; i < sizeof signals / sizeof signals[0]; i++) {
        struct sigaction old;
        /* An ignored signal (nohup) or a host's own handler stays as it is. */
        if (sigaction(signals[i], NULL, &old) != 0 || old.sa_handler != SIG_DFL) continue;
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_signal;
        sigemptyset(&sa.sa_mask);
        for (size_t j = 0; j < sizeof signals / sizeof signals[0]; j++)
            sigaddset(&sa.sa_mask, signals[j]);
        sa.sa_flags = SA_RESETHAND;
        sigaction(signals[i], &sa, NULL);
    }
}

/* The tables of names and hooks: a slot holds a pointer or NULL, one store each. */
static void slot_put(void *volatile *table, int n, void *p) {
    if (!p) return;
    for (int i = 0; i < n; i++)
        if (!table[i]) {
            table[i] = p;
            return;
        }
    /* A full table: p is not seen by the handler. No writer keeps more than a few names
     * open, and one writer of folders exists. */
}

static void slot_clear(void *volatile *table, int n, const void *p) {
    if (!p) return;
    for (int i = 0; i < n; i++)
        if (table[i] == p) table[i] = NULL;
}

void boids_atomic_track(char *name) {
    slot_put(tracked, TRACKED_MAX, name);
}

void boids_atomic_untrack(const char *name) {
    slot_clear(tracked, TRACKED_MAX, name);
}

void boids_atomic_track_hook(const boids_atomic_hook *hook) {
    slot_put(hooks, HOOKS_MAX, (void *)hook); /* only read through a const pointer */
}

void boids_atomic_untrack_hook(const boids_atomic_hook *hook) {
    slot_clear(hooks, HOOKS_MAX, hook);
}

/* ---- the target ------------------------------------------------------------------------ */

/* Only a regular file or nothing may be replaced: renaming onto a device node, a FIFO or a
 * symbolic link would replace the node or the link itself (as root, /dev/null). A link is
 * refused rather than followed so that what gets replaced is the name the user gave. */
static boids_status check_target(const char *path, boids_error *err) {
    if (path[0] == '\0') return boids_error_set(err, BOIDS_ERR_INPUT, "output path is empty");
    if (path[strlen(path) - 1] == '/')
        return boids_error_set(err, BOIDS_ERR_INPUT, "%s: output path names a folder", path);
    struct stat st;
    if (lstat(path, &st) != 0) {
        if (errno == ENOENT) return BOIDS_OK;
        return boids_error_set(err, BOIDS_ERR_INPUT, "%s: cannot write: %s", path, strerror(errno));
    }
    if (S_ISREG(st.st_mode)) return BOIDS_OK;
    const char *what = S_ISDIR(st.st_mode)    ? "a folder"
                       : S_ISLNK(st.st_mode)  ? "a symbolic link (name its target instead)"
                       : S_ISFIFO(st.st_mode) ? "a FIFO"
                       : S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ? "a device"
                                                                    : "not a regular file";
    return boids_error_set(err, BOIDS_ERR_INPUT,
                           "%s: output path is %s; only a regular file is replaced", path, what);
}

/* ---- open, commit, abort -------------------------------------------------------------------- */

/* Fills the six X at the end of tmp with a fresh name and creates that file exclusively with
 * mode 0666: the kernel applies the process's umask, as for a plain fopen, so the output is as
 * readable as any other and the library never changes the umask (a process-wide setting that
 * other threads may be using). Returns the descriptor, or -1 with errno. */
static int create_unique(char *tmp) {
    static const char digits[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    char *x = tmp + strlen(tmp) - 6;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    uint64_t r = ((uint64_t)ts.tv_nsec << 20) ^ (uint64_t)ts.tv_sec ^ ((uint64_t)getpid() << 40) ^
                 (uint64_t)(uintptr_t)tmp;
    for (int attempt = 0; attempt < 1000; attempt++) {
        r = r * 6364136223846793005ull + 1442695040888963407ull; /* a 64-bit LCG step */
        uint64_t v = r >> 16;
        for (int i = 0; i < 6; i++, v /= 62) x[i] = digits[v % 62];
        int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd >= 0 || errno != EEXIST) return fd;
    }
    errno = EEXIST;
    return -1;
}

boids_status boids_atomic_open(boids_atomic_file *a, const char *path, boids_error *err) {
    if (!a || !path)
        return boids_error_set(err, BOIDS_ERR_INPUT, "boids_atomic_open: %s is NULL",
                               !a ? "the file" : "the path");
    memset(a, 0, sizeof *a);
    a->path = path;
    boids_status s = check_target(path, err);
    if (s) return s;
    size_t len = strlen(path) + sizeof ".tmpXXXXXX";
    a->tmp = malloc(len);
    if (!a->tmp) return boids_error_set(err, BOIDS_ERR_NOMEM, "%s: out of memory", path);
    snprintf(a->tmp, len, "%s.tmpXXXXXX", path);
    /* Tracked before create_unique fills in the name and creates the file: a signal between
     * the two would otherwise leave it. Until then the handler unlinks a name that does not
     * exist. */
    boids_atomic_track(a->tmp);
    int fd = create_unique(a->tmp);
    if (fd < 0) {
        s = boids_error_set(err, BOIDS_ERR_INPUT, "%s: cannot write: %s", path, strerror(errno));
        boids_atomic_untrack(a->tmp);
        free(a->tmp);
        a->tmp = NULL;
        return s;
    }
    a->f = fdopen(fd, "w");
    if (!a->f) {
        s = boids_error_set(err, BOIDS_ERR_RUNTIME, "%s: cannot write: %s", path, strerror(errno));
        close(fd);
        boids_atomic_abort(a);
        return s;
    }
    return BOIDS_OK;
}

boids_status boids_atomic_commit(boids_atomic_file *a, boids_error *err) {
    /* Open: tmp and path set. A zeroed struct, or one committed or aborted already (its
     * stream closed), holds nothing to commit. */
    if (!a || !a->tmp || !a->path) {
        return boids_error_set(err, BOIDS_ERR_INPUT, "boids_atomic_commit: %s",
                               !a ? "the file is NULL"
                                  : "the file is not open (never "
                                    "opened, or committed or aborted "
                                    "already)");
    }
    int failed_errno = 0;
    if (a->f) {
        if (ferror(a->f)) failed_errno = errno ? errno : EIO;
        if (fclose(a->f) != 0 && !failed_errno) failed_errno = errno;
        a->f = NULL;
    }
    /* The target may have been replaced by a folder or a device since the open. */
    boids_error target;
    if (!failed_errno && check_target(a->path, &target)) {
        boids_atomic_abort(a);
        return boids_error_set(err, BOIDS_ERR_RUNTIME, "%s", target.msg);
    }
    if (!failed_errno && rename(a->tmp, a->path) != 0) failed_errno = errno;
    if (failed_errno) {
        boids_atomic_abort(a);
        return boids_error_set(err, BOIDS_ERR_RUNTIME, "%s: writing failed: %s", a->path,
                               strerror(failed_errno));
    }
    boids_atomic_untrack(a->tmp);
    free(a->tmp);
    a->tmp = NULL;
    return BOIDS_OK;
}

void boids_atomic_abort(boids_atomic_file *a) {
    if (!a) return;
    if (a->f) fclose(a->f);
    a->f = NULL;
    if (a->tmp) {
        unlink(a->tmp);
        boids_atomic_untrack(a->tmp);
        free(a->tmp);
        a->tmp = NULL;
    }
}

boids_status boids_atomic_check_writable(const char *path, boids_error *err) {
    boids_atomic_file a;
    boids_status s = boids_atomic_open(&a, path, err);
    if (!s) boids_atomic_abort(&a);
    return s;
}
