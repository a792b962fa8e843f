/* SPDX-License-Identifier: MIT */
/* Shared by the libFuzzer targets: the input as a file the readers can open by name, and a
 * comparison of parameter sets key by key (their text form, which round-trips exactly). */
#ifndef BOIDS_FUZZ_UTIL_H
#define BOIDS_FUZZ_UTIL_H

#define _GNU_SOURCE /* memfd_create */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "boids/params.h"

/* A file in memory (memfd: no disk, no name to clean up) reachable as /proc/self/fd/N, so
 * that the readers' own fopen, fstat and line reading are what gets fuzzed. */
typedef struct fuzz_file {
    int fd;
    char path[64];
} fuzz_file;

static inline void fuzz_file_init(fuzz_file *f, const char *name) {
    f->fd = memfd_create(name, 0);
    if (f->fd < 0) abort();
    snprintf(f->path, sizeof f->path, "/proc/self/fd/%d", f->fd);
}

static inline void fuzz_file_set(fuzz_file *f, const uint8_t *data, size_t size) {
    if (ftruncate(f->fd, 0) != 0 || pwrite(f->fd, data, size, 0) != (ssize_t)size) abort();
}

/* 1 if every key of a and b formats to the same text. */
static inline int fuzz_params_equal(const boids_params *a, const boids_params *b) {
    size_t n;
    const boids_param_info *t = boids_param_table(&n);
    for (size_t i = 0; i < n; i++) {
        char x[64], y[64];
        boids_params_format(a, &t[i], x, sizeof x);
        boids_params_format(b, &t[i], y, sizeof y);
        if (strcmp(x, y) != 0) return 0;
    }
    return 1;
}

/* A property the target checks failed: report and crash, so libFuzzer keeps the input. */
#define FUZZ_REQUIRE(cond, ...)                                                                    \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "property failed: %s: ", #cond);                                       \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fputc('\n', stderr);                                                                   \
            abort();                                                                               \
        }                                                                                          \
    } while (0)

#endif
