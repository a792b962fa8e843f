/* SPDX-License-Identifier: MIT */
/* What the files of the MPI backend share (mpi_flock.c: the split, the window path and the
 * backend's operations; mpi_resident.c: the path of a backend that keeps its tile resident):
 * the split flock's struct, its records and the step's plan. Internal to src/mpi. */
#ifndef BOIDS_MPI_FLOCK_IMPL_H
#define BOIDS_MPI_FLOCK_IMPL_H

#include <float.h>
#include <stdlib.h>
#include <string.h>

#include "backend_impl.h"
#include "clock.h"
#include "mpi_flock.h"
#include "tile.h"

enum { TAG_DOWN = 31, TAG_UP = 32, TAG_GATHER = 33 };

/* Records per message of the gather: well within an int count. */
enum { GATHER_CHUNK = 1 << 22 };

typedef struct mflock {
    boids_backend base;
    boids_backend *local;
    MPI_Comm comm;
    MPI_Datatype rec_type; /* one record */
    int rank, size, dim, single, shared_failure;
    size_t rs;          /* bytes per record: 4 + 8 dim */
    size_t n_global;    /* the flock's N */
    uint32_t step;      /* the whole flock's step: the noise stream's index */
    unsigned char *own; /* the owned boids */
    size_t m, own_cap;
    uint32_t *row; /* row of each owned boid in the current grid */
    size_t row_cap;
    uint32_t *cut;        /* size + 1 entries: the cut of whole rows (boids_tile_cut's) */
    boids_tile_key *ccut; /* size + 1 entries: the cut in keys (tile.h's cells in row order
                             and ids): the rows' times a row's cells, or within rows (within),
                             within cells where ids */
    uint32_t nrows;       /* the rows of the cut's grid */
    uint64_t plane;       /* and the cells of one of them */
    int have_cut;
    int cells;       /* the cut may end tiles within rows (the resident path, on a backend that
                        steps such tiles: boids_backend_tile_within_rows; mpi_flock_set_cut) */
    int ids;         /* and within cells (boids_backend_tile_within_cells) */
    int cut_how;     /* mpi_flock_set_cut's MPI_FLOCK_CUT_* */
    int within;      /* the cut in force ends tiles within rows */
    int in_cells;    /* and within cells (an id in ccut) */
    int cells_tried; /* a cut within rows was made (the first, since the tile became resident) */
    uint64_t *hist, *hist_all; /* the rank's row counts, and the whole flock's */
    size_t hist_cap, hist_all_cap;
    unsigned char *buf, *rbuf, *tmp; /* send, receive and merge scratch */
    size_t buf_cap, rbuf_cap, tmp_cap;
    int *scount, *sdispl, *rcount, *rdispl;
    boids_flock lf; /* the window, for the backend */
    size_t lf_cap;
    uint32_t *lgid;
    const size_t *lidx; /* the owned boids in lf[0 .. nlown): their indices (NULL: 0 ..) */
    size_t lgid_cap, nlown;
    size_t *edge, *pair; /* the owned boids of the border rows, by index (step_one) */
    size_t edge_cap, pair_cap;
    unsigned char *next; /* the owned boids' new state */
    size_t next_cap;
    int overlap; /* step the interior rows while the halo travels */
    /* The resident path (mpi_resident.c): the local backend keeps the tile; c->own and
     * c->row are freed once it holds it, and its records are read back only when asked
     * (mpi_flock_owned), into the backend's buffer (c->view), not into a copy here. */
    int resident;              /* the local backend keeps tiles resident: this path runs */
    int started;               /* the backend holds the tile (tile_start made) */
    const unsigned char *view; /* nview owned boids' records as the backend last gave them
                                  (mflock_resident_sync; valid until its next call) */
    size_t nview;
    unsigned char *ebuf; /* the halo sent: the tile's first row's records, then its last's */
    size_t ebuf_cap;
    /* Balance by measured time: this rank's seconds of work per unit of the cost model (an
     * average over the steps; < 0 before the first), on the wall clock or, with balance_cpu,
     * on its CPU clock; its units in the step (mflock_plan's); and its work in the last step
     * on both clocks, in ns. */
    double rate, units;
    int units_pairs; /* the units of rate count the pairs (the tile held by the backend) */
    int rate_skip;   /* steps whose time is not yet taken into rate (MPI_FLOCK_WARM) */
    int balance_cpu;
    uint64_t last_work_ns, last_cpu_ns;
    double wait_cpu; /* this process's CPU seconds in MPI calls (which may spin) */
    mpi_flock_stats st;
    uint32_t warmup;     /* steps left out of the stats (mpi_flock_set_warmup) */
    mpi_flock_stats st0; /* st when they were done; steps 0 until then */
} mflock;

/* After each step: once the warm-up's steps are done, st as it stands becomes st0, and the
 * least and most boids start again. */
static inline void mflock_warm_check(mflock *c) {
    if (c->warmup && c->st0.steps == 0 && c->st.steps >= c->warmup) {
        c->st0 = c->st;
        c->st.boids_min = DBL_MAX, c->st.boids_max = 0;
    }
}

/* A moment on the wall clock and on this process's CPU clock (clock.h). */
typedef struct mflock_clock {
    double wall, cpu;
} mflock_clock;

static inline mflock_clock mflock_now(void) {
    return (mflock_clock){MPI_Wtime(), cpu_seconds()};
}

/* The time in MPI calls so far, on both clocks. */
static inline mflock_clock mflock_waits(const mflock *c) {
    return (mflock_clock){c->st.wait, c->wait_cpu};
}

/* Adds the time since t, spent in MPI calls, to the waits. */
static inline void mflock_waited(mflock *c, mflock_clock t) {
    const mflock_clock now = mflock_now();
    c->st.wait += now.wall - t.wall;
    c->wait_cpu += now.cpu - t.cpu;
}

/* ---- records ---------------------------------------------------------------------- */

static inline unsigned char *rec_at(const mflock *c, unsigned char *base, size_t i) {
    return base + i * c->rs;
}
static inline uint32_t rec_gid(const unsigned char *r) {
    uint32_t g;
    memcpy(&g, r, sizeof g);
    return g;
}
static inline float rec_get(const unsigned char *r, int k) {
    float x;
    memcpy(&x, r + 4 + 4 * (size_t)k, sizeof x);
    return x;
}
static inline void rec_set(unsigned char *r, int k, float x) {
    memcpy(r + 4 + 4 * (size_t)k, &x, sizeof x);
}

/* Makes *p hold at least need elements of size elem (growing by half again). */
static inline int grow(void *pp, size_t *cap, size_t need, size_t elem) {
    void **p = pp;
    if (need <= *cap && *p) return 1;
    size_t n = need + need / 2 + 16;
    void *q = realloc(*p, n * elem);
    if (!q) return 0;
    *p = q;
    *cap = n;
    return 1;
}

static inline boids_status nomem(mflock *c, const char *what, boids_error *err) {
    c->shared_failure = 0;
    return boids_error_set(err, BOIDS_ERR_NOMEM, "rank %d: out of memory for %s", c->rank, what);
}

/* Receives the message of (src, tag), of any length, into *dst (grown); its records. */
static inline boids_status receive(mflock *c, int src, int tag, unsigned char **dst, size_t *cap,
                                   size_t *n, boids_error *err) {
    MPI_Message msg;
    MPI_Status status;
    int count;
    MPI_Mprobe(src, tag, c->comm, &msg, &status);
    MPI_Get_count(&status, c->rec_type, &count);
    if (!grow(dst, cap, (size_t)count, c->rs)) return nomem(c, "the halo", err);
    MPI_Mrecv(*dst, count, c->rec_type, &msg, MPI_STATUS_IGNORE);
    *n = (size_t)count;
    return BOIDS_OK;
}

/* The start of every step of either path: the whole flock's box (open boundary) reduced over
 * the ranks into t, the geometry g, the rows of the owned boids weighted by this rank's
 * measured cost, with every rank's work of the last step, reduced; a new cut when needed.
 * Collective. */
boids_status mflock_plan(mflock *c, const boids_params *p, boids_tile *t, grid_geomd *g,
                         boids_error *err);

/* The cut (mpi_cut.c), from the reduced row weights in c->hist_all (nrows of g) and every
 * rank's own weighted units, own_load[0 .. size): made again when needed, into c->cut and
 * c->ccut. Collective. */
boids_status mflock_cut(mflock *c, const grid_geomd *g, const uint64_t *own_load, boids_error *err);

/* The end of every step of either path: the work of the step that began at t0, when the
 * waits stood at wait0 (mflock_waits), for the next plan and the stats. */
void mflock_done(mflock *c, mflock_clock t0, mflock_clock wait0);

/* The resident path (mpi_resident.c): one step; and the records of the owned boids that keep
 * keeps (all without it) into c->view, c->nview of them: read back from the backend, or on
 * the window path (and before the first step) c->own's, or a copy of those kept. */
boids_status mflock_resident_step(mflock *c, const boids_params *p, boids_error *err);
boids_status mflock_resident_sync(mflock *c, boids_tile_keep keep, const void *ctx,
                                  boids_error *err);

#endif
