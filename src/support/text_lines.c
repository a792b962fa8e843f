/* SPDX-License-Identifier: MIT */
#include "text_lines.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void text_short_path(const char *path, char *buf, size_t size) {
    size_t len = strlen(path);
    if (len < size) {
        memcpy(buf, path, len + 1);
        return;
    }
    /* Keep the start (where it is) and the end (the file name); both fit with "...". */
    size_t head = (size - 4) / 3, tail = size - 4 - head;
    memcpy(buf, path, head);
    memcpy(buf + head, "...", 3);
    memcpy(buf + head + 3, path + len - tail, tail + 1);
}

FILE *text_fopen_input(const char *path, const char *what, int regular, boids_error *err) {
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        boids_error_set(err, BOIDS_ERR_INPUT, "%s: cannot open %s: %s", path, what, strerror(e));
        errno = e;
        return NULL;
    }
    /* fstat on the open file: the checks hold for what is actually read. */
    struct stat st;
    const char *bad = NULL;
    if (fstat(fd, &st) != 0)
        bad = "cannot be read";
    else if (S_ISDIR(st.st_mode))
        bad = "is a folder";
    else if (S_ISFIFO(st.st_mode))
        bad = "is a FIFO, not a regular file (it would be waited on forever)";
    else if (S_ISSOCK(st.st_mode))
        bad = "is a socket, not a regular file";
    else if (regular && !S_ISREG(st.st_mode))
        bad = "is not a regular file";
    FILE *f = NULL;
    if (!bad &&
        (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) != 0 || !(f = fdopen(fd, "rb"))))
        bad = "cannot be read";
    if (bad) {
        boids_error_set(err, BOIDS_ERR_INPUT, "%s: %s %s", path, what, bad);
        close(fd);
        errno = 0;
    }
    return f;
}

boids_status text_open(text_lines *t, const char *path, const char *what, size_t max_line,
                       size_t max_bytes, int regular, boids_error *err) {
    memset(t, 0, sizeof *t);
    text_short_path(path, t->name, sizeof t->name);
    t->path = t->name;
    t->max_line = max_line;
    t->max_bytes = max_bytes;
    t->f = text_fopen_input(path, what, regular, err);
    if (!t->f) return BOIDS_ERR_INPUT; /* every failure of text_fopen_input (err may be NULL) */
    struct stat st;
    boids_status s = BOIDS_OK;
    if (fstat(fileno(t->f), &st) != 0)
        s = boids_error_set(err, BOIDS_ERR_INPUT, "%s: cannot read %s: %s", path, what,
                            strerror(errno));
    else if (max_bytes && S_ISREG(st.st_mode) && (size_t)st.st_size > max_bytes)
        s = boids_error_set(err, BOIDS_ERR_INPUT, "%s: %s is larger than %zu bytes", path, what,
                            max_bytes);
    else if (!(t->buf = malloc(max_line + 1)))
        s = boids_error_set(err, BOIDS_ERR_NOMEM, "%s: out of memory", path);
    if (s) text_close(t);
    return s;
}

/* getc_unlocked: one reader per file, and a state file of millions of lines is read a byte
 * at a time so that a NUL is seen where it is. */
int text_next(text_lines *t, char **line, boids_error *err) {
    size_t len = 0;
    int c = EOF;
    int first = t->lineno == 0;
    while ((c = getc_unlocked(t->f)) != EOF) {
        if (t->max_bytes && ++t->bytes > t->max_bytes) {
            boids_error_set(err, BOIDS_ERR_INPUT, "%s:%zu: file is larger than %zu bytes", t->path,
                            t->lineno + 1, t->max_bytes);
            return -1;
        }
        if (c == '\n') break;
        if (c == '\0') {
            boids_error_set(err, BOIDS_ERR_INPUT, "%s:%zu: contains a NUL byte", t->path,
                            t->lineno + 1);
            return -1;
        }
        if (len == t->max_line) {
            boids_error_set(err, BOIDS_ERR_INPUT, "%s:%zu: line longer than %zu bytes", t->path,
                            t->lineno + 1, t->max_line);
            return -1;
        }
        t->buf[len++] = (char)c;
    }
    if (ferror(t->f)) {
        boids_error_set(err, BOIDS_ERR_INPUT, "%s:%zu: read error: %s", t->path, t->lineno + 1,
                        strerror(errno));
        return -1;
    }
    if (c == EOF && len == 0) return 0;
    if (len && t->buf[len - 1] == '\r') len--;
    t->buf[len] = '\0';
    t->lineno++;
    *line = t->buf;
    if (first && len >= 3 && memcmp(t->buf, "\xEF\xBB\xBF", 3) == 0)
        *line += 3; /* a UTF-8 byte order mark */
    return 1;
}

void text_close(text_lines *t) {
    if (t->f) fclose(t->f);
    free(t->buf);
    memset(t, 0, sizeof *t);
}
