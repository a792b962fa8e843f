/* SPDX-License-Identifier: MIT */
/* boids-mpi: `boids sweep` with its runs spread over MPI ranks.
 *
 * Every rank parses the same command line and computes the same grid of runs. Before any
 * run every rank meets rank 0 twice: once parsed (a rank that rejected its command line
 * stops them all), once set up, comparing its whole setup as text with rank 0's (a worker
 * given other parameters, --config content, backend or grid would otherwise run another
 * sweep, or read past rank 0's grid). Only then does any point-to-point work start. Rank 0 reads
 * the journal (--resume), hands out the runs not done yet, largest N first (sweep_queue),
 * one at a time to whichever rank asks, and writes every output exactly as the serial
 * sweep does: the same rows, in the same order, from the same doubles, so the table and the
 * runs file are byte-identical to those of `boids sweep` (the sidecars differ only in what
 * describes the process: command line, machine, times). The other ranks only run.
 *
 * A run that fails is reported by its rank (which run, why) and the others go on; at the end
 * rank 0 writes no table, keeps the finished runs in the journal and exits non-zero naming
 * the missing runs, so that `--resume` completes the sweep once the cause is fixed.
 *
 * Messages carry C structs as bytes: every rank must run the same binary on the same
 * architecture (a homogeneous cluster). */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "commands/commands.h"
#include "mpi/mpi_common.h"
#include "mpi/mpi_run.h"
#include "cli/progress.h"
#include "clock.h"
#include "sweep/sweep.h"

enum { TAG_RESULT = 1, TAG_WORK = 2 };

/* Worker to rank 0: a result, or (run -1) a first request for work. */
typedef struct mpi_result {
    int64_t run;
    int32_t status;   /* boids_status of the run */
    sweep_result res; /* its statistics (every number the runs file keeps) */
    char msg[BOIDS_ERROR_MSG_MAX];
} mpi_result;

/* Rank 0 with workers: answers each message with the next run (or -1: stop) until every
 * worker is stopped; records results and failures as they come. */
static boids_status serve(const sweep *s, const app_opts *o, sweep_result *res, sweep_journal *j,
                          const size_t *q, size_t nq, int workers, boids_error *err) {
    size_t next = 0, failed = 0, done = sweep_part_runs(s) - nq;
    double t0 = mono_seconds();
    char missing[360] = "";
    boids_status st = BOIDS_OK;
    while (workers > 0) {
        mpi_result m;
        MPI_Status from;
        MPI_Recv(&m, (int)sizeof m, MPI_BYTE, MPI_ANY_SOURCE, TAG_RESULT, MPI_COMM_WORLD, &from);
        if (m.run >= 0 && m.status == BOIDS_OK) {
            sweep_result *r = &res[m.run];
            *r = m.res;
            r->done = 1;
            sweep_progress(o, s, (size_t)m.run, res, ++done, t0);
            if (!st && j->f) st = sweep_journal_add(j, s, o, (size_t)m.run, r, err);
        } else if (m.run >= 0) {
            m.msg[sizeof m.msg - 1] = '\0';
            fprintf(stderr, "boids-mpi: rank %d: run %lld (id %016llx) failed: %s\n",
                    from.MPI_SOURCE, (long long)m.run, (unsigned long long)s->ids[m.run], m.msg);
            sweep_note_missing(missing, sizeof missing, s, (size_t)m.run);
            failed++;
        }
        int64_t work = next < nq ? (int64_t)q[next++] : -1;
        MPI_Send(&work, 1, MPI_INT64_T, from.MPI_SOURCE, TAG_WORK, MPI_COMM_WORLD);
        if (work < 0) workers--;
    }
    if (!st && failed)
        st = boids_error_set(err, BOIDS_ERR_RUNTIME,
                             "sweep: %zu of %zu runs failed (rank messages above), no table "
                             "written; missing runs: %s%s",
                             failed, s->nruns, missing,
                             s->runs_out ? "; the others are in the journal: fix the cause and "
                                           "run again with --resume"
                                         : "");
    return st;
}

/* Rank 0: the runs not done yet through the other ranks, or alone when it is the only one. */
static boids_status run_master(const sweep *s, const app_opts *o, sweep_result *res,
                               sweep_journal *j, boids_error *err) {
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    size_t nq;
    size_t *q = sweep_queue(s, res, &nq);
    if (!q) return boids_error_set(err, BOIDS_ERR_NOMEM, "out of memory");
    boids_status st = BOIDS_OK;
    if (size == 1) {
        double t0 = mono_seconds();
        for (size_t i = 0; !st && i < nq; i++) {
            st = sweep_execute(o, s, q[i], res, err);
            if (!st) sweep_progress(o, s, q[i], res, sweep_part_runs(s) - nq + i + 1, t0);
            if (!st && j->f) st = sweep_journal_add(j, s, o, q[i], &res[q[i]], err);
        }
    } else {
        st = serve(s, o, res, j, q, nq, size - 1, err);
    }
    free(q);
    return st;
}

/* A worker: asks rank 0 for a run, runs it, sends the result with the next request, until
 * told to stop. A failed run is reported, not fatal: the rank goes on with the next. */
static boids_status run_worker(const sweep *s, const app_opts *o, sweep_result *res,
                               sweep_journal *j, boids_error *err) {
    (void)j;
    (void)err;
    mpi_result m;
    memset(&m, 0, sizeof m);
    m.run = -1;
    for (;;) {
        int64_t work;
        MPI_Send(&m, (int)sizeof m, MPI_BYTE, 0, TAG_RESULT, MPI_COMM_WORLD);
        MPI_Recv(&work, 1, MPI_INT64_T, 0, TAG_WORK, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (work < 0) return BOIDS_OK;
        boids_error e;
        boids_error_clear(&e);
        memset(&m, 0, sizeof m);
        m.run = work;
        m.status = (int32_t)sweep_execute(o, s, (size_t)work, res, &e);
        if (m.status == BOIDS_OK) {
            m.res = res[work];
        } else {
            snprintf(m.msg, sizeof m.msg, "%s", e.msg);
        }
    }
}

/* What decides the sweep's results, one item a line: the backend and its mode, the seeds,
 * the sampling, the counts, each swept key's values, every base parameter (from --preset,
 * --config, --set, ...), the interaction table of --config, and the run ids (a hash of
 * every run's parameters). The caller frees it; NULL when out of memory. */
static char *setup_text(const sweep *s, const app_opts *o, boids_error *err) {
    boids_params base;
    if (app_params(o, &base, err)) return NULL;
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) return NULL;
    if (strcmp(o->backend, "gpu"))
        fprintf(f, "--backend %s\n", o->backend);
    else
        fprintf(f, "--backend gpu %s, variant %d\n", o->deterministic ? "deterministic" : "fast",
                o->gpu_variant);
    fprintf(f, "--seed %llu\n--seeds %ld\n--steps %ld\n--burn-in %ld\n--sample-every %ld\n",
            (unsigned long long)o->seed, s->seeds, s->steps, s->burn_in, s->every);
    fprintf(f, "--correlation-range %.17g\n--correlation-bins %ld\n", s->obs.range, s->obs.bins);
    fprintf(f, "--density %.17g\n--counts ", s->density);
    for (size_t i = 0; i < s->ncounts; i++) fprintf(f, "%s%ld", i ? "," : "", s->counts[i]);
    for (size_t a = 0; a < s->naxes; a++) {
        fprintf(f, "\nswept key %s: ", s->axes[a].key->key);
        for (size_t i = 0; i < s->axes[a].nvalues; i++)
            fprintf(f, "%s%s", i ? "," : "", s->axes[a].values[i]);
    }
    fputc('\n', f);
    app_describe_model(f, &base, o->inter);
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t r = 0; r < s->nruns; r++) h = (h ^ s->ids[r]) * 0x100000001b3ull;
    fprintf(f, "\nruns %zu, ids hash %016llx\n", s->nruns, (unsigned long long)h);
    if (fclose(f) != 0) {
        free(buf);
        return NULL;
    }
    return buf;
}

/* Every rank set up, and set up as rank 0 (mpi_agree.c), or none runs. */
static boids_status agree(boids_status st, const sweep *s, const app_opts *o, boids_error *err) {
    char *text = st ? NULL : setup_text(s, o, err);
    if (!st && !text)
        st = boids_error_set(err, BOIDS_ERR_NOMEM, "out of memory describing the sweep");
    st = mpi_agree(st, text, "sweep", err);
    free(text);
    return st;
}

int boids_mpi_sweep(int argc, char **argv) {
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    const sweep_driver drv = {rank == 0, mpi_parsed, agree, rank == 0 ? run_master : run_worker, 0};
    return sweep_main(argc, argv, &drv);
}
