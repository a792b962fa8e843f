/* SPDX-License-Identifier: MIT */
#include "mpi/traj_parts.h"

#include <stdlib.h>
#include <string.h>

/* The MPI-IO file *ctx as the writers' output. */
static int write_at(void *ctx, uint64_t at, const void *bytes, size_t len) {
    MPI_File *fh = ctx;
    return len > (size_t)INT32_MAX || MPI_File_write_at(*fh, (MPI_Offset)at, bytes, (int)len,
                                                        MPI_BYTE, MPI_STATUS_IGNORE) != MPI_SUCCESS
               ? -1
               : 0;
}

/* A failure that rank 0's call alone can meet (the folder, the index, the rename), for every
 * rank. */
static boids_status from_root(traj_parts *t, boids_status s, const char *path, boids_error *err) {
    int st = (int)s;
    MPI_Bcast(&st, 1, MPI_INT, 0, t->comm);
    if (t->rank != 0 && st)
        return boids_error_set(err, (boids_status)st, "%s: failed on rank 0 (its message)", path);
    return s;
}

boids_status traj_parts_open(MPI_Comm comm, traj_parts *t, const char *path, size_t frames,
                             size_t n, int dim, int f8, double dt, const double *side,
                             boids_error *err) {
    memset(t, 0, sizeof *t);
    t->comm = comm;
    MPI_Comm_rank(comm, &t->rank);
    t->gsd = app_gsd_wanted(path);
    t->vtk = app_vtk_wanted(path);
    t->n = n;
    t->f8 = f8;
    boids_status s;
    if (t->gsd) {
        /* The same arguments on every rank: the same outcome, each rank's message alike. */
        s = app_gsd_start(&t->g, path, frames, n, dim, f8, side, err);
        if (!s && (s = mpi_parts_open(comm, path, &t->a, &t->fh, err))) app_gsd_abort(&t->g);
    } else if (t->vtk) {
        s = t->rank == 0 ? app_vtk_open(&t->v, path, frames, n, dim, f8, dt, err) : BOIDS_OK;
        s = from_root(t, s, path, err);
    } else {
        s = mpi_traj_open(comm, &t->npy, path, frames, n, dim, f8, err);
    }
    t->open = !s;
    return s;
}

void traj_parts_set_species(traj_parts *t, const boids_params *p) {
    if (t->open && t->gsd) app_gsd_set_species(&t->g, p);
    if (t->open && t->vtk) { /* every rank's: each writes its boids' species */
        t->v.f8 = t->f8;
        app_vtk_set_species(&t->v, p);
    }
}

/* The VTK frame: rank 0 names its file, every rank opens it and writes its rows. */
static boids_status vtk_frame(traj_parts *t, const app_rows *r, unsigned long step,
                              boids_error *err) {
    const char *name = t->rank == 0 ? app_vtk_frame_file(&t->v) : NULL;
    int len = name ? (int)strlen(name) + 1 : 0;
    MPI_Bcast(&len, 1, MPI_INT, 0, t->comm);
    char *mine = t->rank == 0 ? (char *)name : malloc((size_t)len);
    int ok = mine != NULL, all;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, t->comm);
    if (!all) {
        if (t->rank != 0) free(mine);
        return boids_error_set(err, BOIDS_ERR_NOMEM, "a rank is out of memory for a frame's name");
    }
    MPI_Bcast(mine, len, MPI_CHAR, 0, t->comm);
    MPI_File fh;
    boids_status s = BOIDS_OK;
    if (MPI_File_open(t->comm, mine, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh) !=
        MPI_SUCCESS)
        s = boids_error_set(err, BOIDS_ERR_RUNTIME, "%s: rank %d: MPI-IO could not make it", mine,
                            t->rank);
    if (t->rank != 0) free(mine);
    if ((s = mpi_parts_agree(t->comm, s, err))) return s;
    const app_out o = {write_at, &fh};
    const double time = t->rank == 0 ? app_vtk_time(&t->v, step) : 0; /* the lead's bytes */
    t->v.f8 = t->f8; /* the format, on the ranks that did not open the collection too */
    int bad = app_vtk_put_frame(&o, r, t->n, &t->v, time, step);
    if (MPI_File_close(&fh) != MPI_SUCCESS) bad = 1;
    if (bad)
        s = boids_error_set(err, BOIDS_ERR_RUNTIME, "%s: rank %d: writing a frame failed",
                            t->rank == 0 ? t->v.index.path : "the trajectory", t->rank);
    if (!(s = mpi_parts_agree(t->comm, s, err)) && t->rank == 0) app_vtk_frame_listed(&t->v, step);
    return s;
}

boids_status traj_parts_frame(traj_parts *t, const boids_flock *part, size_t first,
                              unsigned long step, boids_error *err) {
    const app_rows r = {part, first, t->rank == 0};
    if (t->vtk) return vtk_frame(t, &r, step, err);
    if (!t->gsd) return mpi_traj_frame(&t->npy, part, first, err);
    const app_out o = {write_at, &t->fh};
    return mpi_parts_agree(t->comm, app_gsd_put_frame(&t->g, &o, &r, step, err), err);
}

boids_status traj_parts_close(traj_parts *t, boids_error *err) {
    t->open = 0;
    if (t->vtk)
        return from_root(t, t->rank == 0 ? app_vtk_close(&t->v, err) : BOIDS_OK, "the trajectory",
                         err);
    if (!t->gsd) return mpi_traj_close(&t->npy, err);
    boids_status s = BOIDS_OK;
    if (t->g.written != t->g.frames)
        s = boids_error_set(err, BOIDS_ERR_RUNTIME, "%s: %zu of %zu frames written", t->g.path,
                            t->g.written, t->g.frames);
    const app_out o = {write_at, &t->fh};
    if (!s) s = app_gsd_put_end(&t->g, &o, t->rank == 0, err);
    if (MPI_File_close(&t->fh) != MPI_SUCCESS && !s)
        s = boids_error_set(err, BOIDS_ERR_RUNTIME, "%s: rank %d: writing failed", t->g.path,
                            t->rank);
    app_gsd_abort(&t->g); /* the index; the file is t->a */
    if (!(s = mpi_parts_agree(t->comm, s, err)) && t->rank == 0)
        s = boids_atomic_commit(&t->a, err);
    s = from_root(t, s, t->g.path, err);
    if (t->rank == 0 && t->a.tmp) boids_atomic_abort(&t->a);
    return s;
}

void traj_parts_abort(traj_parts *t) {
    if (!t->open) return;
    t->open = 0;
    if (t->vtk && t->rank == 0) app_vtk_abort(&t->v);
    if (t->gsd) {
        app_gsd_abort(&t->g);
        if (t->rank == 0 && t->a.tmp) boids_atomic_abort(&t->a);
    }
    if (!t->gsd && !t->vtk) mpi_traj_abort(&t->npy);
}
