/* SPDX-License-Identifier: MIT */
/* boids-mpi: the meetings of every rank before any work (mpi_common.h). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "mpi/mpi_common.h"

int mpi_parsed(int rc) {
    int rank, size, first;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int mine = rc == APP_RUN ? size : rank;
    MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (first == size || rc != APP_RUN) return rc;
    if (rank == 0)
        fprintf(stderr,
                "boids-mpi: rank %d stopped at its command line (its message above); nothing "
                "was run\n",
                first);
    return 2;
}

/* Compares this rank's setup with rank 0's (broadcast): 1 when equal; else prints the first
 * line that differs, as this rank and rank 0 have it. */
static int same_setup(const char *mine, const char *what, int rank) {
    long long len = mine ? (long long)strlen(mine) + 1 : 0; /* rank 0's counts */
    MPI_Bcast(&len, 1, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
    char *root = rank == 0 ? (char *)mine : malloc(len ? (size_t)len : 1);
    if (!root && len) {
        fprintf(stderr, "boids-mpi: rank %d: out of memory\n", rank);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (len) MPI_Bcast(root, (int)len, MPI_CHAR, 0, MPI_COMM_WORLD);
    int same = mine && len && !strcmp(mine, root);
    if (!same && mine && len) {
        const char *a = mine, *b = root; /* the first line that differs */
        for (size_t la, lb; (la = strcspn(a, "\n")) == (lb = strcspn(b, "\n")) &&
                            !strncmp(a, b, la) && a[la] && b[lb];)
            a += la + 1, b += lb + 1;
        int la = (int)strcspn(a, "\n"), lb = (int)strcspn(b, "\n");
        fprintf(stderr,
                "boids-mpi: rank %d: its %s is not rank 0's: '%.*s%s' here, '%.*s%s' on "
                "rank 0 (give every rank the same options, --config file, state file and "
                "backend)\n",
                rank, what, la > 120 ? 120 : la, a, la > 120 ? "..." : "", lb > 120 ? 120 : lb, b,
                lb > 120 ? "..." : "");
    }
    if (root != mine) free(root);
    return same;
}

boids_status mpi_agree(boids_status st, const char *setup, const char *what, boids_error *err) {
    int rank, size, ok = st == BOIDS_OK, root_ok = ok, all_ok;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Bcast(&root_ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!ok && rank && root_ok) fprintf(stderr, "boids-mpi: rank %d: %s\n", rank, err->msg);
    if (ok && !all_ok)
        return boids_error_set(err, BOIDS_ERR_RUNTIME,
                               "%s: a rank failed to set up (its message above); nothing was run",
                               what);
    if (!all_ok) return st;
    int mine = same_setup(setup, what, rank) ? size : rank, first;
    MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (first < size)
        return boids_error_set(err, BOIDS_ERR_INPUT,
                               "%s: rank %d was given another %s than rank 0 (its message "
                               "above); nothing was run",
                               what, first, what);
    return BOIDS_OK;
}
