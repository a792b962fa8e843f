/* SPDX-License-Identifier: MIT */
#include "output/gnuplot.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "atomic_file.h"

enum { MAX_FILES = 8 }; /* the script and its outputs */

/* The private folder and the files in it, tracked so that a signal removes them. */
typedef struct workdir {
    char *dir;
    char *files[MAX_FILES];
    size_t nfiles;
} workdir;

static char *join(const char *dir, const char *name) {
    size_t len = strlen(dir) + strlen(name) + 2;
    char *s = malloc(len);
    if (s) snprintf(s, len, "%s/%s", dir, name);
    return s;
}

static void workdir_remove(workdir *w) {
    for (size_t i = w->nfiles; i-- > 0;) {
        unlink(w->files[i]);
        boids_atomic_untrack(w->files[i]);
        free(w->files[i]);
    }
    if (w->dir) {
        rmdir(w->dir);
        boids_atomic_untrack(w->dir);
        free(w->dir);
    }
    memset(w, 0, sizeof *w);
}

static boids_status workdir_add(workdir *w, const char *name, boids_error *err) {
    char *path = w->nfiles < MAX_FILES ? join(w->dir, name) : NULL;
    if (!path) return boids_error_set(err, BOIDS_ERR_NOMEM, "plot: out of memory");
    w->files[w->nfiles++] = path;
    boids_atomic_track(path);
    return BOIDS_OK;
}

static boids_status workdir_make(workdir *w, const char *script, boids_error *err) {
    memset(w, 0, sizeof *w);
    const char *tmp = getenv("TMPDIR");
    w->dir = join(tmp && *tmp ? tmp : "/tmp", "boids-plot-XXXXXX");
    if (!w->dir) return boids_error_set(err, BOIDS_ERR_NOMEM, "plot: out of memory");
    boids_atomic_track(w->dir); /* before it exists: see boids_atomic_open */
    if (!mkdtemp(w->dir)) {
        boids_atomic_untrack(w->dir);
        free(w->dir);
        w->dir = NULL;
        return boids_error_set(err, BOIDS_ERR_RUNTIME, "plot: cannot make a temporary folder: %s",
                               strerror(errno));
    }
    boids_status s = workdir_add(w, "plot.gp", err);
    if (s) return s;
    FILE *f = fopen(w->files[0], "w");
    int bad = !f || fputs(script, f) == EOF;
    if (f && fclose(f) != 0) bad = 1;
    if (bad)
        return boids_error_set(err, BOIDS_ERR_RUNTIME, "plot: cannot write the gnuplot script");
    return BOIDS_OK;
}

/* gnuplot plot.gp in the private folder; its stdout goes to stderr (ours is data). */
static boids_status run_gnuplot(const char *dir, boids_error *err) {
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) return boids_error_set(err, BOIDS_ERR_RUNTIME, "plot: fork: %s", strerror(errno));
    if (pid == 0) {
        if (chdir(dir) != 0 || dup2(STDERR_FILENO, STDOUT_FILENO) < 0) _exit(126);
        execlp("gnuplot", "gnuplot", "plot.gp", (char *)NULL);
        _exit(127);
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return boids_error_set(err, BOIDS_ERR_RUNTIME, "plot: waiting for gnuplot: %s",
                                   strerror(errno));
    if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
        return boids_error_set(err, BOIDS_ERR_RUNTIME,
                               "plot: cannot run gnuplot (install gnuplot-nox)");
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return boids_error_set(err, BOIDS_ERR_RUNTIME, "plot: gnuplot failed (status %d)",
                               WIFEXITED(status) ? WEXITSTATUS(status) : status);
    return BOIDS_OK;
}

static boids_status copy_out(const char *from, const char *to, boids_error *err) {
    FILE *in = fopen(from, "rb");
    if (!in)
        return boids_error_set(err, BOIDS_ERR_RUNTIME, "plot: gnuplot wrote no file for %s", to);
    boids_atomic_file a;
    boids_status s = boids_atomic_open(&a, to, err);
    char buf[65536];
    size_t got;
    while (!s && (got = fread(buf, 1, sizeof buf, in)) > 0) fwrite(buf, 1, got, a.f);
    int bad = ferror(in);
    fclose(in);
    if (s) return s;
    if (bad) {
        boids_atomic_abort(&a);
        return boids_error_set(err, BOIDS_ERR_RUNTIME, "plot: cannot read gnuplot's output");
    }
    return boids_atomic_commit(&a, err);
}

boids_status app_gnuplot(const char *script, size_t n, const char *const *names,
                         const char *const *targets, boids_error *err) {
    workdir w;
    boids_status s = workdir_make(&w, script, err);
    for (size_t i = 0; !s && i < n; i++) s = workdir_add(&w, names[i], err);
    if (!s) s = run_gnuplot(w.dir, err);
    for (size_t i = 0; !s && i < n; i++) s = copy_out(w.files[1 + i], targets[i], err);
    workdir_remove(&w);
    return s;
}
