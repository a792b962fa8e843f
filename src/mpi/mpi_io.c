/* SPDX-License-Identifier: MIT */
/* State files written in parts with MPI-IO (mpi_parts.h): every rank writes the rows of its
 * ids at their offsets in one temporary file that rank 0 made beside the target, rank 0 the
 * header and the sidecar, and rank 0 renames both onto their targets once every rank wrote
 * (as boids_state_save does, the state first). Rank 0's temporary files are removed on a
 * failure, and by the signal handler of atomic_file.h when the job is ended by a signal. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atomic_file.h"
#include "flock_part.h"
#include "mpi_parts.h"
#include "npy_format.h"

enum { CHUNK = 4096 }; /* boids a write */

/* Whether path names a .npy state (boids_state_save's rule). */
static int npy_path(const char *path) {
    size_t len = strlen(path);
    return len > 4 && !strcmp(path + len - 4, ".npy");
}

/* The header of the state file, written by rank 0 into *buf (malloc'ed); its length. */
static size_t header_bytes(const boids_flock *part, size_t n, int npy, char **buf) {
    size_t len = 0;
    FILE *m = open_memstream(buf, &len);
    if (!m) return (size_t)-1;
    if (npy) {
        size_t shape[2] = {n, 2 * (size_t)boids_flock_dim(part)};
        npy_write_header(m, shape, 2, 1);
    } else {
        fputs(boids_state_csv_header(boids_flock_dim(part)), m);
    }
    if (fclose(m) != 0) return (size_t)-1;
    return len;
}

/* This rank's rows at offset `at` of fh: cols values a boid of item bytes ('<f8' or '<f4',
 * npy) or the CSV lines (the offset being where the lines of the ranks before end). 0, or -1
 * when a write failed. */
static int write_rows(MPI_File fh, MPI_Offset at, const boids_flock *part, int item, int cols,
                      int npy, unsigned char *buf) {
    const double *ax[6] = {part->x, part->y, part->vx, part->vy, NULL, NULL};
    if (part->z) ax[2] = part->z, ax[3] = part->vx, ax[4] = part->vy, ax[5] = part->vz;
    for (size_t i = 0; i < part->n; i += CHUNK) {
        const size_t end = i + CHUNK < part->n ? i + CHUNK : part->n;
        unsigned char *o = buf;
        for (size_t k = i; k < end; k++) {
            if (npy)
                for (int a = 0; a < cols; a++) o = npy_put_value(o, ax[a][k], item == 8);
            else
                o += boids_state_csv_row((char *)o, BOIDS_STATE_CSV_ROW, part, k);
        }
        const size_t bytes = (size_t)(o - buf);
        if (MPI_File_write_at(fh, at, buf, (int)bytes, MPI_BYTE, MPI_STATUS_IGNORE) != MPI_SUCCESS)
            return -1;
        at += (MPI_Offset)bytes;
    }
    return 0;
}

/* The bytes of this rank's CSV lines. */
static unsigned long long csv_bytes(const boids_flock *part) {
    char line[BOIDS_STATE_CSV_ROW];
    unsigned long long sum = 0;
    for (size_t k = 0; k < part->n; k++)
        sum += (unsigned long long)boids_state_csv_row(line, sizeof line, part, k);
    return sum;
}

boids_status mpi_parts_open(MPI_Comm comm, const char *path, boids_atomic_file *a, MPI_File *fh,
                            boids_error *err) {
    int rank;
    MPI_Comm_rank(comm, &rank);
    long long tlen = 0;
    boids_status s = BOIDS_OK;
    if (rank == 0 && !(s = boids_atomic_open(a, path, err))) { /* the rows go in by name */
        fclose(a->f);
        a->f = NULL;
        tlen = (long long)strlen(a->tmp) + 1;
    }
    if ((s = mpi_parts_agree(comm, s, err))) return s;
    MPI_Bcast(&tlen, 1, MPI_LONG_LONG, 0, comm);
    char *tmp = rank == 0 ? a->tmp : malloc((size_t)tlen);
    if (!tmp) { /* a file name: the others wait in the broadcast */
        fprintf(stderr, "boids-mpi: rank %d: out of memory writing %s\n", rank, path);
        MPI_Abort(comm, 1);
    }
    MPI_Bcast(tmp, (int)tlen, MPI_CHAR, 0, comm);
    if (MPI_File_open(comm, tmp, MPI_MODE_WRONLY, MPI_INFO_NULL, fh) != MPI_SUCCESS)
        s = boids_error_set(err, BOIDS_ERR_RUNTIME,
                            "%s: rank %d: MPI-IO could not open its temporary file", path, rank);
    if (rank != 0) free(tmp);
    if ((s = mpi_parts_agree(comm, s, err))) {
        if (rank == 0) boids_atomic_abort(a);
    }
    return s;
}

boids_status mpi_part_save(MPI_Comm comm, const char *path, const boids_flock *part, size_t first,
                           size_t n, long noise_seed, boids_error *err) {
    int rank;
    MPI_Comm_rank(comm, &rank);
    const int npy = npy_path(path);
    boids_atomic_file a = {0}, j = {0};
    char *name = NULL, *head = NULL;
    long long hlen = 0;
    boids_status s = BOIDS_OK;
    if (rank == 0) {
        /* The sidecar's temporary file first: both exist before either target is replaced,
         * as boids_state_save makes them. */
        size_t pl = strlen(path);
        if (!(name = malloc(pl + sizeof ".json")))
            s = boids_error_set(err, BOIDS_ERR_NOMEM, "%s: out of memory", path);
        else
            memcpy(name, path, pl), memcpy(name + pl, ".json", sizeof ".json");
        if (!s) s = boids_atomic_open(&j, name, err);
        if (!s && (hlen = (long long)header_bytes(part, n, npy, &head)) < 0)
            s = boids_error_set(err, BOIDS_ERR_NOMEM, "%s: out of memory", path);
    }
    MPI_File fh;
    if ((s = mpi_parts_agree(comm, s, err)) || (s = mpi_parts_open(comm, path, &a, &fh, err)))
        goto done;
    MPI_Bcast(&hlen, 1, MPI_LONG_LONG, 0, comm);
    unsigned char *buf = malloc(CHUNK * (npy ? 6 * 8 : BOIDS_STATE_CSV_ROW));
    unsigned long long at = 0, mine = npy ? 0 : csv_bytes(part);
    if (npy)
        at = (unsigned long long)first * (size_t)(2 * boids_flock_dim(part)) * 8;
    else
        MPI_Exscan(&mine, &at, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, comm);
    if (rank == 0) at = 0; /* MPI_Exscan leaves rank 0's undefined; its rows come first */
    at += (unsigned long long)hlen;
    int bad = !buf;
    if (!bad && rank == 0 &&
        MPI_File_write_at(fh, 0, head, (int)hlen, MPI_BYTE, MPI_STATUS_IGNORE) != MPI_SUCCESS)
        bad = 1;
    if (!bad && write_rows(fh, (MPI_Offset)at, part, 8, 2 * boids_flock_dim(part), npy, buf))
        bad = 1;
    free(buf);
    if (MPI_File_close(&fh) != MPI_SUCCESS) bad = 1;
    if (bad) s = boids_error_set(err, BOIDS_ERR_RUNTIME, "%s: rank %d: writing failed", path, rank);
    if ((s = mpi_parts_agree(comm, s, err))) goto done;
    /* The sidecar: the whole flock's hash from the parts, then both files renamed. */
    const uint64_t h = mpi_part_hash(comm, part);
    if (rank == 0) {
        boids_state_sidecar_write(j.f, boids_flock_dim(part), n, part->step, noise_seed, h);
        if (fflush(j.f) != 0 || ferror(j.f))
            s = boids_error_set(err, BOIDS_ERR_RUNTIME, "%s: writing failed: %s", name,
                                strerror(errno));
        else if (!(s = boids_atomic_commit(&a, err)))
            s = boids_atomic_commit(&j, err);
    }
    int st = (int)s;
    MPI_Bcast(&st, 1, MPI_INT, 0, comm);
    if (rank != 0 && st)
        s = boids_error_set(err, (boids_status)st, "%s: rank 0 could not commit it", path);
done:
    if (rank == 0) { /* whatever is still open was not committed */
        if (a.tmp) boids_atomic_abort(&a);
        if (j.tmp) boids_atomic_abort(&j);
    }
    free(head);
    free(name);
    return s;
}

boids_status mpi_traj_open(MPI_Comm comm, mpi_traj *t, const char *path, size_t frames, size_t n,
                           int dim, int f8, boids_error *err) {
    int rank;
    MPI_Comm_rank(comm, &rank);
    memset(t, 0, sizeof *t);
    *t =
        (mpi_traj){.comm = comm, .path = path, .frames = frames, .n = n, .cols = 2 * dim, .f8 = f8};
    char *head = NULL;
    long long hlen = 0;
    boids_status s = BOIDS_OK;
    if (rank == 0) {
        size_t len = 0, shape[3] = {frames, n, 2 * (size_t)dim};
        FILE *m = open_memstream(&head, &len);
        if (m) npy_write_header(m, shape, 3, f8);
        if (!m || fclose(m) != 0)
            s = boids_error_set(err, BOIDS_ERR_NOMEM, "%s: out of memory", path);
        hlen = (long long)len;
    }
    if (!(s = mpi_parts_agree(comm, s, err)) &&
        !(s = mpi_parts_open(comm, path, &t->a, &t->fh, err))) {
        MPI_Bcast(&hlen, 1, MPI_LONG_LONG, 0, comm);
        t->data = (MPI_Offset)hlen;
        int bad = rank == 0 && MPI_File_write_at(t->fh, 0, head, (int)hlen, MPI_BYTE,
                                                 MPI_STATUS_IGNORE) != MPI_SUCCESS;
        if (bad) s = boids_error_set(err, BOIDS_ERR_RUNTIME, "%s: writing failed", path);
        t->open = 1;
        if ((s = mpi_parts_agree(comm, s, err))) mpi_traj_abort(t);
    }
    free(head);
    return s;
}

boids_status mpi_traj_frame(mpi_traj *t, const boids_flock *part, size_t first, boids_error *err) {
    int rank;
    MPI_Comm_rank(t->comm, &rank);
    const size_t item = t->f8 ? 8 : 4, row = (size_t)t->cols * item;
    unsigned char *buf = malloc(CHUNK * row);
    boids_status s = BOIDS_OK;
    if (!buf || t->written >= t->frames ||
        write_rows(t->fh, t->data + (MPI_Offset)((t->written * t->n + first) * row), part,
                   (int)item, t->cols, 1, buf))
        s = boids_error_set(err, BOIDS_ERR_RUNTIME, "%s: rank %d: writing frame %zu failed",
                            t->path, rank, t->written);
    free(buf);
    t->written++;
    return mpi_parts_agree(t->comm, s, err);
}

boids_status mpi_traj_close(mpi_traj *t, boids_error *err) {
    int rank;
    MPI_Comm_rank(t->comm, &rank);
    boids_status s = BOIDS_OK;
    if (MPI_File_close(&t->fh) != MPI_SUCCESS)
        s = boids_error_set(err, BOIDS_ERR_RUNTIME, "%s: rank %d: writing failed", t->path, rank);
    t->open = 0;
    if (!s && t->written != t->frames)
        s = boids_error_set(err, BOIDS_ERR_RUNTIME, "%s: %zu of %zu frames written", t->path,
                            t->written, t->frames);
    if (!(s = mpi_parts_agree(t->comm, s, err)) && rank == 0) s = boids_atomic_commit(&t->a, err);
    int st = (int)s;
    MPI_Bcast(&st, 1, MPI_INT, 0, t->comm);
    if (rank != 0 && st)
        s = boids_error_set(err, (boids_status)st, "%s: rank 0 could not commit it", t->path);
    if (rank == 0 && t->a.tmp) boids_atomic_abort(&t->a);
    return s;
}

void mpi_traj_abort(mpi_traj *t) {
    int rank;
    MPI_Comm_rank(t->comm, &rank);
    /* Not collective (the ranks may stop apart): the file is left to MPI_Finalize, its
     * temporary name removed by rank 0. */
    if (rank == 0 && t->a.tmp) boids_atomic_abort(&t->a);
    t->open = 0;
}
