#include "boids/atomic_file.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

boids_status boids_atomic_open(boids_atomic_file *a, const char *path, boids_error *err) {
    memset(a, 0, sizeof *a);
    a->path = path;
    size_t len = strlen(path) + sizeof ".tmpXXXXXX";
    a->tmp = malloc(len);
    if (!a->tmp) return boids_error_set(err, BOIDS_ERR_NOMEM, "%s: out of memory", path);
    snprintf(a->tmp, len, "%s.tmpXXXXXX", path);
    int fd = mkstemp(a->tmp);
    if (fd < 0) {
        boids_status s =
            boids_error_set(err, BOIDS_ERR_INPUT, "%s: cannot write: %s", path, strerror(errno));
        free(a->tmp);
        a->tmp = NULL;
        return s;
    }
    /* mkstemp creates the file 0600; give it the mode a plain fopen would (0666 less the
     * umask), so the result is as readable as any other output. */
    mode_t mask = umask(0);
    umask(mask);
    (void)fchmod(fd, 0666 & ~mask);
    a->f = fdopen(fd, "w");
    if (!a->f) {
        boids_status s =
            boids_error_set(err, BOIDS_ERR_RUNTIME, "%s: cannot write: %s", path, strerror(errno));
        close(fd);
        boids_atomic_abort(a);
        return s;
    }
    return BOIDS_OK;
}

boids_status boids_atomic_commit(boids_atomic_file *a, boids_error *err) {
    int failed_errno = 0;
    if (a->f) {
        if (ferror(a->f)) failed_errno = errno ? errno : EIO;
        if (fclose(a->f) != 0 && !failed_errno) failed_errno = errno;
        a->f = NULL;
    }
    if (!failed_errno && rename(a->tmp, a->path) != 0) failed_errno = errno;
    if (failed_errno) {
        boids_atomic_abort(a);
        return boids_error_set(err, BOIDS_ERR_RUNTIME, "%s: writing failed: %s", a->path,
                               strerror(failed_errno));
    }
    free(a->tmp);
    a->tmp = NULL;
    return BOIDS_OK;
}

void boids_atomic_abort(boids_atomic_file *a) {
    if (a->f) fclose(a->f);
    a->f = NULL;
    if (a->tmp) {
        unlink(a->tmp);
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
