/* SPDX-License-Identifier: MIT */
/* Where a trajectory writer's bytes go, and which of them it writes (gsd.c, vtk.c), so that
 * one piece of code makes a file's bytes whether one process writes it whole or the
 * processes that each hold a part of the flock write it at once (boids-mpi, src/app/mpi).
 *
 * A writer is given the rows of a part of the flock, the boids of ids first .. first + n - 1
 * of the N the file holds, and puts their bytes at their offsets; the writer given lead also
 * puts the bytes that are no boid's (headers, counts, the index). One process writes the
 * whole flock (first 0) with lead; parts written by their processes at once, one of them
 * with lead, give the same bytes. */
#ifndef BOIDS_APP_OUT_AT_H
#define BOIDS_APP_OUT_AT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "boids/flock.h"

typedef struct app_out {
    /* len bytes at offset at of the file: 0, or -1 when the write failed */
    int (*write_at)(void *ctx, uint64_t at, const void *bytes, size_t len);
    void *ctx;
} app_out;

typedef struct app_rows {
    const boids_flock *f; /* the part: its boid i is the file's boid first + i */
    size_t first;
    int lead; /* also the bytes that are no boid's */
} app_rows;

/* The open file f as an app_out: written in order, it only writes; an offset elsewhere is
 * sought first. */
app_out app_out_file(FILE *f);

/* The whole flock f, lead: one process's rows. */
app_rows app_rows_whole(const boids_flock *f);

#endif
