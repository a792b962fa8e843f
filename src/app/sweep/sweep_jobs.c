/* SPDX-License-Identifier: MIT */
/* boids sweep --jobs J: J runs at once, each worker a process forked from the sweep.
 *
 * A run's result depends on its parameters and seed alone (sweep_run_params, sweep_run_seed),
 * never on which process ran it nor on its thread count, so the runs can go anywhere. This
 * process (the writer) hands the runs out one at a time, in sweep_queue's order, to whichever
 * worker asks, through that worker's own pipe; the workers send back each finished run's
 * sweep_result, a plain struct, through one shared pipe (each message one write of at most
 * PIPE_BUF bytes: atomic, never interleaved with another worker's). The writer journals each
 * run as it arrives and keeps every result: the table and the runs file are written from the
 * same doubles in the same order as by the serial sweep, byte for byte. This is boids-mpi's
 * scheme (mpi/sweep_mpi.c) with pipes for messages.
 *
 * Processes, not threads: each run keeps its own backend, observables and OpenMP team, and a
 * run that crashes takes only its worker down. OpenMP's thread pool does not survive a fork,
 * so the writer starts none before forking (sweep_jobs). A worker reads its next run from its
 * pipe and stops at -1 or at the end of the pipe (the writer is gone); one whose writer is gone
 * when it reports dies of SIGPIPE. */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "atomic_file.h"
#include "clock.h"
#include "cli/progress.h"
#include "sweep/sweep.h"

/* Worker to writer: a result, or (run -1) a first request for work. */
typedef struct job_msg {
    int64_t run;
    int32_t worker;
    int32_t status;   /* boids_status of the run */
    sweep_result res; /* its statistics (every number the runs file keeps) */
    char msg[BOIDS_ERROR_MSG_MAX];
} job_msg;

_Static_assert(sizeof(job_msg) <= PIPE_BUF, "a result is one atomic write to the pipe");

static void set_threads(int n) {
#ifdef _OPENMP
    omp_set_num_threads(n);
#else
    (void)n;
#endif
}

void sweep_jobs(sweep *s, const app_opts *o, const sweep_result *res) {
    long cores = app_usable_cores(), j = s->jobs;
    if (j <= 0) j = strcmp(o->backend, "gpu") ? cores / (o->threads > 0 ? o->threads : 1) : 1;
    size_t todo = sweep_part_runs(s) - sweep_done(s, res);
    if ((size_t)j > todo) j = (long)todo;
    s->jobs = j > 1 ? j : 1;
    long t = o->threads > 0 ? o->threads : cores / s->jobs;
    s->job_threads = t > 1 ? (int)t : 1;
    if (s->jobs > 1) set_threads(1);
}

/* All of len bytes, across short reads and signals; 0 at the end of the pipe, -1 on error. */
static int read_full(int fd, void *buf, size_t len) {
    size_t got = 0;
    while (got < len) {
        ssize_t n = read(fd, (char *)buf + got, len - got);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return -1;
        if (n == 0) return got ? -1 : 0;
        got += (size_t)n;
    }
    return 1;
}

static int write_full(int fd, const void *buf, size_t len) {
    size_t put = 0;
    while (put < len) {
        ssize_t n = write(fd, (const char *)buf + put, len - put);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return -1;
        put += (size_t)n;
    }
    return 0;
}

/* Worker k: asks for a run, runs it, sends the result with the next request, until told to
 * stop. A failed run is reported, not fatal: the worker goes on with the next. */
static void worker(const sweep *s, const app_opts *o, sweep_result *res, int k, int in, int out) {
    job_msg m;
    memset(&m, 0, sizeof m);
    m.run = -1;
    m.worker = k;
    for (;;) {
        int64_t work;
        if (write_full(out, &m, sizeof m) || read_full(in, &work, sizeof work) != 1 || work < 0)
            return;
        boids_error e;
        boids_error_clear(&e);
        memset(&m, 0, sizeof m);
        m.run = work;
        m.worker = k;
        m.status = (int32_t)sweep_execute(o, s, (size_t)work, res, &e);
        if (m.status == BOIDS_OK)
            m.res = res[work];
        else
            snprintf(m.msg, sizeof m.msg, "%s", e.msg);
    }
}

/* The writer: answers each message with the next run (or -1: stop) until every worker has
 * stopped or is gone; records results and failures as they come. cur[k]: worker k's run
 * (-1: none). */
static boids_status serve(const sweep *s, const app_opts *o, sweep_result *res, sweep_journal *j,
                          const size_t *q, size_t nq, int jobs, int from, int *to, int64_t *cur,
                          boids_error *err) {
    size_t next = 0, failed = 0, done = sweep_part_runs(s) - nq, ran = 0;
    double t0 = mono_seconds();
    char missing[360] = "";
    boids_status st = BOIDS_OK;
    app_progress bar;
    app_progress_begin(&bar, "boids sweep", "runs", (double)nq);
    int workers = jobs;
    while (workers > 0) {
        job_msg m;
        int got = read_full(from, &m, sizeof m);
        if (got != 1 || m.worker < 0 || m.worker >= jobs || to[m.worker] < 0) break;
        int k = m.worker;
        if (m.run >= 0 && (m.run != cur[k] || (size_t)m.run >= s->nruns)) break;
        if (m.run >= 0 && m.status == BOIDS_OK) {
            sweep_result *r = &res[m.run];
            *r = m.res;
            r->done = 1;
            app_progress_clear(&bar);
            sweep_progress(o, s, (size_t)m.run, res, ++done, t0);
            if (!st && j->f) st = sweep_journal_add(j, s, o, (size_t)m.run, r, err);
            app_progress_update(&bar, (double)++ran, NULL, 1);
        } else if (m.run >= 0) {
            m.msg[sizeof m.msg - 1] = '\0';
            app_progress_clear(&bar);
            fprintf(stderr, "boids sweep: run %lld (id %016llx) failed: %s\n", (long long)m.run,
                    (unsigned long long)s->ids[m.run], m.msg);
            sweep_note_missing(missing, sizeof missing, s, (size_t)m.run);
            failed++;
        }
        /* A journal that cannot be written stops the sweep: no more runs handed out. */
        int64_t work = !st && next < nq ? (int64_t)q[next++] : -1;
        cur[k] = work;
        if (work >= 0 && write_full(to[k], &work, sizeof work)) {
            cur[k] = -1, next--; /* gone: another takes it */
            work = -1;
        }
        if (work < 0) {
            close(to[k]);
            to[k] = -1;
            workers--;
        }
    }
    app_progress_end(&bar);
    /* Workers gone before they finished (killed, crashed): their runs are missing, and so
     * are the runs never handed out when every worker is gone. */
    for (int k = 0; k < jobs; k++)
        if (cur[k] >= 0) {
            fprintf(stderr, "boids sweep: run %lld (id %016llx) lost: its worker process ended\n",
                    (long long)cur[k], (unsigned long long)s->ids[cur[k]]);
            sweep_note_missing(missing, sizeof missing, s, (size_t)cur[k]);
            failed++;
        }
    size_t unstarted = nq - next;
    if (!st && (failed || unstarted))
        st = boids_error_set(err, BOIDS_ERR_RUNTIME,
                             "sweep: %zu of %zu runs failed (messages above)%s, no table "
                             "written; missing runs: %s%s",
                             failed + unstarted, sweep_part_runs(s),
                             unstarted ? " or never started (every worker process ended)" : "",
                             failed ? missing : "those never started",
                             s->runs_out ? "; the others are in the journal: fix the cause and "
                                           "run again with --resume"
                                         : "");
    return st;
}

/* The workers the writer's signal handler ends (atomic_file.h's hook): a sweep ended by
 * SIGINT, SIGTERM or SIGHUP (Ctrl-C, boids.sweep's stop, a batch system) sends its workers
 * SIGTERM and waits for them before it dies, so that none of its runs is left running once
 * the sweep is gone. kill and waitpid are async-signal-safe. */
typedef struct worker_set {
    const pid_t *pid;
    volatile int n; /* workers forked so far */
} worker_set;

/* Waits for the n workers pid (async-signal-safe: the handler's hook calls it too). */
static void wait_workers(const pid_t *pid, int n) {
    for (int k = 0; k < n; k++)
        while (waitpid(pid[k], NULL, 0) < 0 && errno == EINTR) {
        }
}

static void end_workers_on_signal(void *arg) {
    const worker_set *w = arg;
    const int n = w->n;
    for (int k = 0; k < n; k++) kill(w->pid[k], SIGTERM);
    wait_workers(w->pid, n);
}

boids_status sweep_run_jobs(const sweep *s, const app_opts *o, sweep_result *res, sweep_journal *j,
                            boids_error *err) {
    if (s->jobs <= 1) return sweep_run_serial(s, o, res, j, err);
    const int jobs = (int)s->jobs;
    size_t nq;
    size_t *q = sweep_queue(s, res, &nq);
    int *to = malloc((size_t)jobs * sizeof *to);
    int64_t *cur = malloc((size_t)jobs * sizeof *cur);
    pid_t *pid = malloc((size_t)jobs * sizeof *pid);
    if (!q || !to || !cur || !pid) {
        free(q), free(to), free(cur), free(pid);
        return boids_error_set(err, BOIDS_ERR_NOMEM, "out of memory");
    }
    boids_status st = BOIDS_OK;
    int back[2] = {-1, -1}, started = 0;
    if (pipe(back)) st = boids_error_set(err, BOIDS_ERR_RUNTIME, "pipe: %s", strerror(errno));
    set_threads(s->job_threads); /* inherited by the workers (and named in the sidecars) */
    /* SIGPIPE ignored here while the workers run: a worker gone is a failed write, not the
     * end of the writer. */
    struct sigaction ign = {.sa_handler = SIG_IGN}, old;
    sigemptyset(&ign.sa_mask);
    sigaction(SIGPIPE, &ign, &old);
    fflush(NULL); /* nothing buffered twice */
    worker_set ws = {pid, 0};
    const boids_atomic_hook ending = {end_workers_on_signal, &ws};
    boids_atomic_track_hook(&ending);
    for (; !st && started < jobs; started++) {
        int p[2];
        if (pipe(p)) {
            st = boids_error_set(err, BOIDS_ERR_RUNTIME, "pipe: %s", strerror(errno));
            break;
        }
        pid[started] = fork();
        if (pid[started] < 0) {
            st = boids_error_set(err, BOIDS_ERR_RUNTIME, "fork: %s", strerror(errno));
            close(p[0]), close(p[1]);
            break;
        }
        if (pid[started] == 0) {
            /* The worker holds its own pipe's read end and the shared write end, nothing else
             * of the writer's: not the journal (its lock dies with the writer), nor another
             * worker's pipe (whose end that worker must see when the writer is gone). */
            sigaction(SIGPIPE, &old, NULL);
            boids_atomic_untrack_hook(&ending); /* a worker has no workers to end */
            if (j->f) close(fileno(j->f));
            for (int k = 0; k < started; k++) close(to[k]);
            close(p[1]);
            close(back[0]);
            worker(s, o, res, started, p[0], back[1]);
            _exit(0);
        }
        close(p[0]);
        to[started] = p[1];
        cur[started] = -1;
        ws.n = started + 1;
    }
    if (back[1] >= 0) close(back[1]); /* the end of the pipe: every worker gone */
    if (!st) st = serve(s, o, res, j, q, nq, jobs, back[0], to, cur, err);
    if (back[0] >= 0) close(back[0]);
    /* A worker not stopped yet (a failure here) sees the end of its pipe; one still in a run
     * is not waited for. */
    for (int k = 0; k < started; k++)
        if (to[k] >= 0) {
            close(to[k]);
            kill(pid[k], SIGTERM);
        }
    wait_workers(pid, started);
    boids_atomic_untrack_hook(&ending);
    sigaction(SIGPIPE, &old, NULL);
    free(q), free(to), free(cur), free(pid);
    return st;
}
