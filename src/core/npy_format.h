/* SPDX-License-Identifier: MIT */
/* NumPy .npy files (format version 1.0): the header and the rows of a flock, shared by the
 * state files (state_io.c) and the trajectory writer (src/app/output/npy.c). Not part of the
 * public API.
 *
 * A file is the magic "\x93NUMPY", the version (major, minor), the length of the header
 * (16 bits little-endian in 1.0, 32 bits in 2.0 and 3.0), then the header: a Python dict
 * literal of 'descr', 'fortran_order' and 'shape', padded with spaces and ended by '\n', and
 * then the data. Values are little-endian whatever the host's byte order. */
#ifndef BOIDS_NPY_FORMAT_H
#define BOIDS_NPY_FORMAT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "boids/error.h"
#include "boids/flock.h"

/* The most axes of a shape read or written here (a trajectory has 3). */
enum { NPY_MAX_DIMS = 3 };

typedef struct npy_header {
    int f8;                     /* 1: '<f8' (float64), 0: '<f4' (float32) */
    int ndim;                   /* axes of the shape, 0 to NPY_MAX_DIMS */
    size_t shape[NPY_MAX_DIMS]; /* their lengths */
    size_t data_offset;         /* bytes before the data: magic, version, length, header */
} npy_header;

/* Writes a 1.0 header for an array of the given shape, C order, '<f8' (f8) or '<f4', padded
 * so that the data starts at a multiple of 64 bytes (NumPy's alignment, which keeps memory
 * maps aligned). A write error shows in ferror(f). */
void npy_write_header(FILE *f, const size_t *shape, int ndim, int f8);

/* The `bytes` low bytes of bits at out, little-endian whatever the host's order; returns the
 * byte after them. Also the integers of the VTK trajectory files (src/app/output/vtk.c). */
unsigned char *npy_put_le(unsigned char *out, uint64_t bits, size_t bytes);

/* One value at out as '<f8' (f8: its 8 bytes) or '<f4' (rounded to nearest, as
 * numpy.float32(v)); returns the byte after it. Every float a trajectory holds goes through
 * this, so that its .npy and VTK forms hold the same float32 values. */
unsigned char *npy_put_value(unsigned char *out, double v, int f8);

/* Appends the boids of fl in id order, 2 * dim values each (x, y, [z,] vx, vy, [vz]), as
 * '<f8' (exact) or '<f4' (rounded to nearest, as numpy.float32(v)), through a fixed buffer.
 * Returns 0, or -1 if a write failed. */
int npy_write_flock(FILE *f, const boids_flock *fl, int f8);

/* The value of one '<f8' (f8) or '<f4' item at in. */
double npy_get_value(const unsigned char *in, int f8);

/* Reads the header at the start of f into h: a magic, version (1.0, 2.0 or 3.0), dict and
 * shape of at most NPY_MAX_DIMS axes that are not those of a .npy file, a dtype other than
 * '<f8' or '<f4', or Fortran order: BOIDS_ERR_INPUT naming path and what is wrong. Leaves f
 * at the data. */
boids_status npy_read_header(FILE *f, const char *path, npy_header *h, boids_error *err);

#endif
