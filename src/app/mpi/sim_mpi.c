/* SPDX-License-Identifier: MIT */
/* boids-mpi sim: `boids sim` with one flock split over the MPI ranks (mpi_flock.h).
 *
 * Every rank parses the same command line, sets up the same run (parameters, --config,
 * initial state) and compares it with rank 0's as text before any step (mpi_agree.c): rank
 * 0's parameters are the run's, and a rank given others is refused, naming what differs.
 * No rank makes or reads the whole initial flock: each draws or reads the boids of its part
 * of the ids (mpi_parts.h), and the split flock sends each to its tile. Then every rank
 * steps its tile. A sample of the order alone (--order-only) is computed from the parts in
 * id order, as one process sums it; the six metrics, --series and the estimators from the
 * parts and the tiles, reduced across the ranks in one process's order (mpi_part_observe,
 * src/mpi/mpi_metrics.c), the velocity correlation (--correlation, --correlation-range) from
 * the parts by rows of its grid (src/mpi/mpi_corr.c); --save, --checkpoint and --trajectory
 * (any format: traj_parts.h) are written by every rank at once (MPI-IO). No sample gathers
 * the state on rank 0. Rank 0 writes stdout, --series and the estimators' files exactly as
 * `boids sim` does, so they hold the same bytes. A failure that every rank sees (a refused
 * model or cut) ends every rank with its message; one that only its rank sees ends the job
 * from there (MPI_Abort), naming the rank. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "atomic_file.h"
#include "boids/gpu.h"
#include "commands/commands.h"
#include "mpi/mpi_common.h"
#include "mpi/traj_parts.h"
#include "mpi_flock.h"
#include "mpi_parts.h"

static const char *stats_path; /* --mpi-stats FILE */
static int warmup;             /* --mpi-warmup N */
static int no_overlap;         /* --mpi-no-overlap */
static int window;             /* --mpi-window */
enum { BALANCE_AUTO, BALANCE_WALL, BALANCE_CPU };
static int balance; /* --mpi-balance: BALANCE_*, the index into balance_names */
static const char *const balance_names[] = {"auto", "wall", "cpu", NULL};
static int cut_how; /* --mpi-cut: the index into cut_names, an MPI_FLOCK_CUT_* */
static const char *const cut_names[] = {"boids", "cells", "rows", NULL};

/* This rank's part of the initial flock: its first id, and the loaded state's flock_hash. */
static size_t part_first;
static int part_has_hash;
static uint64_t part_hash;
static const char *part_load;

static const app_command mpi_sim_command = {
    .prog = "boids-mpi sim",
    .synopsis =
        "usage: mpirun -n K boids-mpi sim [OPTIONS]\n"
        "Runs `boids sim` (see boids sim --help) with the flock split over the K ranks: each\n"
        "rank steps the boids of a slab of the grid's rows, with the rows beside it as its\n"
        "halo. With --backend cpu (any --threads) or gpu --deterministic the final state,\n"
        "the metrics and every file are those of `boids sim` with the same options, byte for\n"
        "byte. Rank 0 writes stdout, --series and the sidecars; every rank writes its boids'\n"
        "rows of --save, --checkpoint and --trajectory at once (MPI-IO). The metrics, --series,\n"
        "the estimators and the velocity correlation are reduced from the ranks' tiles and\n"
        "parts: no rank gathers the whole flock (the correlation's pairs are summed by rows\n"
        "of cells --correlation-range wide, each rank holding its rows' boids and the row\n"
        "beside them: with a range near half the world, most of the flock). Each rank with\n"
        "the gpu backend uses the EGL device of its rank on its node (modulo the devices\n"
        "there) unless BOIDS_EGL_DEVICE is set.\n"
        "\n",
    .shared = APP_ALL,
    .backend = "cpu",
    .deterministic = 1};

static const app_option mpi_options[] = {
    {APP_TEXT, "mpi-stats", 0, "FILE", &stats_path,
     .help = "write what the split cost on each rank to FILE (CSV: boids, ms per\n"
             "step, waiting share, halo bytes and migrated boids per step, the share\n"
             "of the step time lost to imbalance)"},
    {APP_INT, "mpi-warmup", 0, "N", &warmup, 0, 1000000000,
     .help = "leave the first N steps out of --mpi-stats and the end-of-run summary,\n"
             "which then also give those steps' own time (a steady-state timing: the\n"
             "first steps carry the flock from its parts by id to the cut's tiles);\n"
             "below --steps"},
    {APP_FLAG, "mpi-no-overlap", 0, NULL, &no_overlap, 1,
     .help = "with --mpi-window: wait for the halo before moving any boid (default:\n"
             "the interior rows move while it travels; the same bits either way; a\n"
             "resident tile, the default, steps once the halo is in)"},
    {APP_FLAG, "mpi-window", 0, NULL, &window, 1,
     .help = "hand the tile with its halo rows to the backend every step instead of\n"
             "keeping it there, on the cpu or the device (the same bits; for comparison)"},
    {APP_CHOICE, "mpi-cut", 0, "C", &cut_how, .choices = cut_names,
     .help = "where the cut may end a tile: boids (default: at the boid where its even\n"
             "share falls, within a cell, on the resident tiles of cpu and gpu\n"
             "--deterministic; cells with --fast, rows with --mpi-window), cells (whole\n"
             "cells, within a row) or\n"
             "rows (whole rows only; the same bits every way)"},
    {APP_CHOICE, "mpi-balance", 0, "C", &balance, .choices = balance_names,
     .help = "the clock each rank's time is measured on for the cut of the rows: wall,\n"
             "cpu (for ranks that share cores, where the wall clock counts the time a\n"
             "rank waits for one), or auto (default): cpu where a node runs more\n"
             "cpu threads than it has processors, else wall; the same bits either way"},
};

static boids_status agree(boids_status st, const char *setup, boids_error *err) {
    if (!st && stats_path) { /* the writer checks its file; the others agree on the outcome */
        int rank;
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        if (rank == 0) st = boids_atomic_check_writable(stats_path, err);
    }
    return mpi_agree(st, setup, "run", err);
}

/* This rank's part of the initial flock (sim_driver.initial). */
static boids_status initial(const app_opts *o, boids_params *p, boids_flock *f, char *line,
                            size_t size, boids_error *err) {
    boids_status s = BOIDS_OK;
    if (o->load) {
        long saved;
        size_t n;
        s = mpi_part_load(MPI_COMM_WORLD, o->load, p, f, &part_first, &n, &saved, &part_has_hash,
                          &part_hash, err);
        if (!s && (s = app_loaded_state(o, p, n, saved, err))) boids_flock_free(f);
        part_load = o->load;
        /* The sidecar's hash is checked against the parts' once every rank agreed. */
        if (!s)
            snprintf(line, size, "--load %s, %zu boids, step %u, sidecar flock_hash %s%016llx",
                     o->load, n, (unsigned)f->step, part_has_hash ? "" : "none ",
                     (unsigned long long)part_hash);
        return s;
    }
    if (!strcmp(o->backend, "gpu") && boids_gpu_check_count((size_t)p->count, err)) s = err->status;
    int ok = !s, all;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!all) return s ? s : boids_error_set(err, BOIDS_ERR_INPUT, "a rank refused the flock");
    if ((s = mpi_part_random(MPI_COMM_WORLD, p, o->seed, f, &part_first, err))) return s;
    snprintf(line, size, "--seed, %ld boids, step %u, hash %016llx", p->count, (unsigned)f->step,
             (unsigned long long)mpi_part_hash(MPI_COMM_WORLD, f));
    return BOIDS_OK;
}

/* The state in parts is made for each sample or save and freed after it: it is not held
 * through the steps. */
static boids_status order(boids_backend *b, const boids_flock *part, double *value,
                          boids_error *err) {
    boids_flock mine = {0};
    size_t first;
    boids_status s = part ? BOIDS_OK : mpi_part_state(b, &mine, &first, err);
    if (!s)
        *value = mpi_part_order(MPI_COMM_WORLD, part ? part : &mine,
                                boids_flock_dim(part ? part : &mine), boids_backend_n(b));
    boids_flock_free(&mine);
    return s;
}

/* The metrics (and number fluctuations, and the velocity correlation) of the parts and
 * tiles, reduced (mpi_parts.h): the sums in id order and the correlation from the parts,
 * which are then freed (before step 0's the initial ones, which the tiles take their values
 * from), the pair metrics from the tiles. One rank holds the whole flock as its part. */
static boids_status observe(boids_backend *b, const boids_flock *part, const boids_params *p,
                            boids_metrics *m, boids_fluct *fl, const sim_corr *corr,
                            double (*sp)[BOIDS_MAX_SPECIES], boids_error *err) {
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    boids_flock mine = {0};
    size_t first;
    boids_status s = part ? BOIDS_OK : mpi_part_state(b, &mine, &first, err);
    const boids_flock *f = part ? part : &mine;
    double rb[2] = {corr ? corr->range : 0, corr ? (double)corr->bins : 0};
    if (corr) MPI_Bcast(rb, 2, MPI_DOUBLE, 0, MPI_COMM_WORLD); /* the writer's */
    if (!s && size == 1) {
        s = boids_metrics_compute(f, p, m, err);
        if (!s && fl) s = boids_number_fluctuations(f, p, fl, err);
        if (!s && corr)
            s = boids_velocity_correlation_add(f, p, rb[0], (size_t)rb[1], corr->sum, corr->pairs,
                                               err);
        if (!s && sp) boids_order_species(f, p, sp[0]);
        if (!s && sp) s = boids_clusters_species(f, p, sp[1], sp[2], err);
    } else if (!s) {
        mpi_part_order_milling(MPI_COMM_WORLD, f, p, boids_backend_n(b), m);
        if (sp) mpi_part_order_species(MPI_COMM_WORLD, f, p, boids_backend_n(b), sp[0]);
        if (corr)
            s = mpi_part_correlation_add(MPI_COMM_WORLD, f, p, boids_backend_n(b), rb[0],
                                         (size_t)rb[1], corr->sum, corr->pairs, err);
        boids_flock_free(&mine);
        if (!s) s = mpi_tile_observe(b, part, p, m, fl, sp ? sp[1] : NULL, sp ? sp[2] : NULL, err);
    }
    boids_flock_free(&mine);
    return s;
}

static boids_status whole(const boids_flock *part, boids_flock *out, boids_error *err) {
    return mpi_part_gather(MPI_COMM_WORLD, part, out, err);
}

static boids_status save(boids_backend *b, const char *path, long noise_seed, boids_error *err) {
    boids_flock mine = {0};
    size_t first;
    boids_status s = mpi_part_state(b, &mine, &first, err);
    if (!s)
        s = mpi_part_save(MPI_COMM_WORLD, path, &mine, first, boids_backend_n(b), noise_seed, err);
    boids_flock_free(&mine);
    return s;
}

/* The trajectory, written by every rank at once (sim_driver.traj_open ...). */
static traj_parts traj;

/* The run's parameters, as create had them (the GSD file's types). */
static const boids_params *run_params;

static boids_status traj_open(const char *path, size_t frames, size_t n, int dim, int f8, double dt,
                              const double *side, boids_error *err) {
    boids_status s =
        traj_parts_open(MPI_COMM_WORLD, &traj, path, frames, n, dim, f8, dt, side, err);
    if (!s) traj_parts_set_species(&traj, run_params);
    return s;
}

static boids_status traj_frame(boids_backend *b, const boids_flock *part, unsigned long step,
                               boids_error *err) {
    boids_flock mine = {0};
    size_t first = part_first;
    boids_status s = part ? BOIDS_OK : mpi_part_state(b, &mine, &first, err);
    if (!s) s = traj_parts_frame(&traj, part ? part : &mine, first, step, err);
    boids_flock_free(&mine);
    return s;
}

static boids_status traj_close(boids_error *err) {
    return traj_parts_close(&traj, err);
}

static void traj_abort(void) {
    traj_parts_abort(&traj);
}

/* The rank among the ranks of its node, and how many ranks the node runs. */
static int node_rank(int *ranks) {
    MPI_Comm node;
    int r = 0;
    *ranks = 1;
    if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node) ==
        MPI_SUCCESS) {
        MPI_Comm_rank(node, &r);
        MPI_Comm_size(node, ranks);
        MPI_Comm_free(&node);
    }
    return r;
}

/* Whether the cut follows the ranks' CPU clocks (--mpi-balance), the same answer on every
 * rank: auto takes them where a node's ranks run more cpu threads (--threads, or the cores
 * a rank may run on, as the cpu backend counts them) than it has processors online, so that
 * ranks take turns on cores and each one's wall clock counts its turns. */
static int balance_by_cpu(const app_opts *o, int node_ranks) {
    int mine = balance == BALANCE_CPU;
    if (balance == BALANCE_AUTO && !strcmp(o->backend, "cpu")) {
        const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
        const long threads = o->threads > 0 ? o->threads : app_usable_cores();
        mine = cpus > 0 && (long)node_ranks * threads > cpus;
    }
    int any;
    MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return any;
}

static boids_backend *create(const app_opts *o, const boids_params *p, const boids_flock *f,
                             long steps, boids_error *err) {
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    run_params = p;
    /* Refusals that every rank makes alike: each returns at once (rank 0 says why). */
    if (!strcmp(o->backend, "cpu-ref")) {
        boids_error_set(err, BOIDS_ERR_INPUT,
                        "--backend cpu-ref: the exact reference steps the whole flock in one "
                        "process; boids-mpi sim runs cpu or gpu");
        return NULL;
    }
    if (warmup > 0 && warmup >= steps) {
        boids_error_set(err, BOIDS_ERR_INPUT,
                        "--mpi-warmup %d: the warm-up must leave steps to time, so below "
                        "--steps (%ld)",
                        warmup, steps);
        return NULL;
    }
    int node_ranks;
    const int local_rank = node_rank(&node_ranks);
    const int by_cpu = balance_by_cpu(o, node_ranks);
    if (!strcmp(o->backend, "gpu") && !getenv("BOIDS_EGL_DEVICE")) {
        const int devices = boids_gl_device_count();
        if (devices > 1) { /* one device per rank of the node, round robin */
            char v[16];
            snprintf(v, sizeof v, "%d", local_rank % devices);
            setenv("BOIDS_EGL_DEVICE", v, 1);
        }
    }
    /* The state loaded in parts is the one its sidecar describes (every rank: collective). */
    if (part_load && part_has_hash) {
        boids_status h = mpi_part_check_hash(MPI_COMM_WORLD, part_load, f, part_hash, err);
        if (h) return NULL;
    }
    /* With more ranks the local backend starts with one boid: each step uploads the window. */
    boids_flock first = *f;
    if (size > 1) first.n = 1;
    boids_backend *local = app_backend_create(o, p, &first, err);
    int ok = local != NULL, all;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!all) {
        int rank;
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        if (!ok && rank != 0) fprintf(stderr, "boids-mpi: rank %d: %s\n", rank, err->msg);
        if (ok)
            boids_error_set(err, BOIDS_ERR_RUNTIME,
                            "a rank could not make its %s backend (its message above)", o->backend);
        boids_backend_destroy(local);
        return NULL;
    }
    boids_backend *b = mpi_flock_create(MPI_COMM_WORLD, local, p, f, part_first, (size_t)p->count,
                                        "boids-mpi", err);
    if (b) mpi_flock_set_overlap(b, !no_overlap);
    if (b) mpi_flock_set_window(b, window);
    if (b) mpi_flock_set_cut(b, cut_how);
    if (b) mpi_flock_set_balance_cpu(b, by_cpu);
    if (b) mpi_flock_set_warmup(b, (uint32_t)warmup);
    return b;
}

/* The share of the slowest rank's work over the steps that the others did not have to do
 * (mpi_flock_stats), 0 without steps: of the step time (wall clock), or of the CPU time. */
static double lost_share(double max, double mean) {
    return max > 0 ? (max - mean) / max : 0.0;
}

/* The heaviest row's mean share of the cut's load (mpi_flock_stats), 0 without steps. */
static double heaviest_share(const mpi_flock_stats *x) {
    return x->work_mean > 0 ? x->heaviest_row / x->work_mean : 0.0;
}

/* Every rank's mpi_flock_stats, in rank order, into --mpi-stats FILE on rank 0; the
 * imbalance on rank 0's stderr (the end-of-run summary). */
static boids_status finish(boids_backend *b, boids_error *err) {
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    mpi_flock_stats mine[2]; /* the steps timed, and the warm-up's */
    mpi_flock_get_stats(b, &mine[0], &mine[1]);
    char warm[96] = "";
    if (mine[1].steps > 0)
        snprintf(warm, sizeof warm, " after a warm-up of %.0f steps (%.1f ms a step on rank 0)",
                 mine[1].steps, 1e3 * mine[1].seconds / mine[1].steps);
    if (rank == 0 && size > 1 && mine[0].steps > 1)
        fprintf(stderr,
                "boids-mpi sim: %d ranks, %.0f steps%s: %.1f%% of the step time lost to imbalance "
                "((max - mean) / max of the ranks' work per step, summed over the steps; "
                "%.1f%% on their CPU clocks), %.0f new cuts by %s time, tiles ending within "
                "rows on %.0f%% of the steps (within cells on %.0f%%); the heaviest row held "
                "%.1f%% of the cut's load (whole rows cannot balance a row above 1/%d)\n",
                size, mine[0].steps, warm, 100 * lost_share(mine[0].work_max, mine[0].work_mean),
                100 * lost_share(mine[0].cpu_max, mine[0].cpu_mean), mine[0].rebalances,
                mpi_flock_balance_cpu(b) ? "CPU" : "wall", 100 * mine[0].within / mine[0].steps,
                100 * mine[0].within_cells / mine[0].steps, 100 * heaviest_share(&mine[0]), size);
    if (!stats_path) return BOIDS_OK;
    mpi_flock_stats *all = rank == 0 ? calloc(2 * (size_t)size, sizeof *all) : NULL;
    int ok = rank != 0 || all, root_ok;
    MPI_Allreduce(&ok, &root_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!root_ok) return boids_error_set(err, BOIDS_ERR_NOMEM, "out of memory for --mpi-stats");
    MPI_Gather(mine, (int)sizeof mine, MPI_BYTE, all, (int)sizeof mine, MPI_BYTE, 0,
               MPI_COMM_WORLD);
    if (rank != 0) return BOIDS_OK;
    boids_atomic_file out;
    boids_status s = boids_atomic_open(&out, stats_path, err);
    if (!s) {
        fprintf(out.f, "rank,ranks,steps,boids_mean,boids_min,boids_max,ms_per_step,wait_share,"
                       "local_share,halo_bytes_per_step,migrated_per_step,rebalances,"
                       "work_share,imbalance_lost,work_cpu_ms_per_step,imbalance_lost_cpu,"
                       "heaviest_row_share,within_rows_share,within_cells_share,warmup_steps,"
                       "warmup_ms_per_step\n");
        for (int r = 0; r < size; r++) {
            const mpi_flock_stats *x = &all[2 * r], *w = &all[2 * r + 1];
            const double n = x->steps > 0 ? x->steps : 1, t = x->seconds > 0 ? x->seconds : 1;
            fprintf(out.f,
                    "%d,%d,%.0f,%.4f,%.0f,%.0f,%.4f,%.4f,%.4f,%.1f,%.2f,%.0f,%.4f,%.4f,%.4f,%.4f,"
                    "%.4f,%.4f,%.4f,%.0f,%.4f\n",
                    r, size, x->steps, x->boids_sum / n, x->boids_min, x->boids_max,
                    1e3 * x->seconds / n, x->wait / t, x->local / t, x->halo_bytes / n,
                    x->migrated / n, x->rebalances, x->work / t,
                    lost_share(x->work_max, x->work_mean), 1e3 * x->work_cpu / n,
                    lost_share(x->cpu_max, x->cpu_mean), heaviest_share(x), x->within / n,
                    x->within_cells / n, w->steps,
                    w->steps > 0 ? 1e3 * w->seconds / w->steps : 0.0);
        }
        s = boids_atomic_commit(&out, err);
    }
    free(all);
    return s;
}

static boids_status pull(boids_backend *b, boids_flock *out, boids_error *err) {
    return mpi_flock_gather(b, out, err);
}

/* A failure only this rank knows: the others wait for it, so it ends the job. */
static void fatal(boids_backend *b, const boids_error *err) {
    if (b && mpi_flock_failure_shared(b)) return;
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    fprintf(stderr, "boids-mpi: rank %d: %s; stopping every rank\n", rank, err->msg);
    fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, boids_status_exit_code(err->status));
}

int boids_mpi_sim(int argc, char **argv) {
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    const sim_driver drv = {.writer = rank == 0,
                            .command = &mpi_sim_command,
                            .extra = mpi_options,
                            .nextra = APP_COUNT(mpi_options),
                            .parsed = mpi_parsed,
                            .agree = agree,
                            .initial = initial,
                            .order = order,
                            .observe = observe,
                            .whole = whole,
                            .save = save,
                            .traj_open = traj_open,
                            .traj_frame = traj_frame,
                            .traj_close = traj_close,
                            .traj_abort = traj_abort,
                            .create = create,
                            .pull = pull,
                            .finish = finish,
                            .fatal = fatal};
    return sim_main(argc, argv, &drv);
}
