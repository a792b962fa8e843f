/* SPDX-License-Identifier: MIT */
/* cpu: the threads of a step (cpu_grid_impl.h, over the dimension D): how many run it
 * (thread_pick: all or one, by timing both), and which of them steers which boids
 * (strip_split: one contiguous run of strips per thread, cut where the measured times say).
 * Neither changes a bit of the result: each boid's sums are made by one thread over the
 * candidate order the grid fixes, and the build orders every cell's boids by id whatever
 * thread scattered them (cpu_grid.c). */
#include <stdint.h>
#include <stdlib.h>

#include "cpu_grid_impl.h"

enum {
    PROBE_MIN = 16,  /* steps between tries of the other thread count: at first, */
    PROBE_MAX = 4096 /* and at most, after tries that lost */
};

/* The thread count of each step: all the threads or one. On a shared machine a thread
 * whose core another process holds stalls every barrier of the step while the others
 * wait for it (20-50x slower than one thread, seen with a busy process on one of two
 * cores): the grid build gives each thread a fixed share (its histogram), which no other
 * thread can take over. So steps are timed and the faster count
 * runs; the other is tried for one step after `interval` steps, an interval that doubles
 * (to PROBE_MAX) each time the try loses, so that lost tries cost at most a few per cent.
 * The results do not depend on the count (same bits). */
typedef struct thread_pick {
    double s[2];       /* seconds per step on [0] one thread, [1] all; < 0: unknown */
    int all;           /* the count that runs: 1 all threads, 0 one */
    uint32_t interval; /* steps between tries of the other count */
    uint32_t left;     /* steps until the next try */
} thread_pick;

/* Whether the next step runs on all threads: each count once first, then the running one,
 * or the other when its try is due. */
static int pick_all(const thread_pick *k) {
    if (k->s[1] < 0) return 1;
    if (k->s[0] < 0) return 0;
    return k->left == 0 ? !k->all : k->all;
}

/* Records a step of `dt` seconds on all threads (all = 1) or one. The running count's time
 * is smoothed (a single step is noisy on a loaded machine); a try is one step, and wins
 * when it beats that. A running count that becomes clearly slower than the other's last
 * time (contention that began, or ended) has the other tried at once. */
static void pick_record(thread_pick *k, int all, double dt) {
    if (all == k->all) {
        k->s[all] = k->s[all] < 0 ? dt : 0.75 * k->s[all] + 0.25 * dt;
        if (k->left > 0) k->left--;
        if (k->s[!all] >= 0 && k->s[all] > 2 * k->s[!all]) k->left = 0;
        return;
    }
    k->s[all] = dt;
    if (dt < k->s[k->all]) {
        k->all = all;
        k->interval = PROBE_MIN;
    } else {
        k->interval = k->interval * 2 > PROBE_MAX ? PROBE_MAX : k->interval * 2;
    }
    k->left = k->interval;
}

/* ---- which thread steers which strips ------------------------------------------------
 * The steering's strips (steer_strip) are cut into one contiguous run per thread, and the
 * next step's build gives each thread the slots that its steering moved (grid_cells' cut):
 * a thread then reads and writes the boids it wrote the step before, in its own core's
 * caches. Handing strips out as they come (a dynamic schedule) interleaves them between
 * threads anew every step, so every step moved most of the state from one core's cache to
 * the other's: at 100k boids on this project's 2-core machine the same 400 steps on 2 threads
 * took 1.37-1.42 s that way and 1.14-1.17 s on this cut (bench/README.md). A fixed cut cannot take
 * in a core that another process slows, nor a formed flock's dense cells (more neighbours a
 * boid), which a dynamic schedule did: so each part is timed, and the next cut puts the
 * boundaries where the parts' times, spread evenly over their slots, would be equal, half
 * way from where they were (one step's times are noisy). */
typedef struct strip_split {
    int n;         /* the parts (threads) of the cut; 0: none yet */
    size_t w0, w1; /* the strips it cuts */
    size_t *at;    /* n + 1 boundaries: part t steers strips [at[t], at[t + 1]) */
    double *sec;   /* each part's steering time in the step that used the cut (0: none) */
    double *slot;  /* room for n + 1 slots (split_begin's) */
    double excess; /* what the cut's unevenness cost the step (split_cut), seconds */
} strip_split;

/* The strips' places in the snapshot: strip w begins at the cell of row w / per_row, column
 * (w % per_row) * strip, whose first slot is start's entry for it. */
typedef struct strip_map {
    const uint32_t *start;
    size_t per_row, n0;
    uint32_t strip;
} strip_map;

static inline uint32_t strip_slot(const strip_map *m, size_t w) {
    return m->start[w / m->per_row * m->n0 + (w % m->per_row) * m->strip];
}

/* The first strip w of [lo, hi] whose first slot is at least s (hi if none). */
static size_t strip_at_slot(const strip_map *m, size_t lo, size_t hi, double s) {
    while (lo < hi) {
        const size_t mid = lo + (hi - lo) / 2;
        if (strip_slot(m, mid) < s)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Room for a cut of up to `threads` parts. */
static int split_alloc(strip_split *sp, int threads) {
    const size_t k = (size_t)threads + 1;
    sp->at = malloc(k * sizeof *sp->at);
    sp->sec = calloc(k, sizeof *sp->sec);
    sp->slot = malloc(k * sizeof *sp->slot);
    return sp->at && sp->sec && sp->slot;
}

static void split_free(strip_split *sp) {
    free(sp->at);
    free(sp->sec);
    free(sp->slot);
}

/* The cut of strips [w0, w1) into nt parts for this step: a new one where the last was of
 * other parts or strips, with an even share of the boids in each part; else moved towards
 * equal times (above). */
static void split_begin(strip_split *sp, int nt, size_t w0, size_t w1, const strip_map *m) {
    double *const slot = sp->slot;
    if (sp->n != nt || sp->w0 != w0 || sp->w1 != w1) {
        const double s0 = strip_slot(m, w0), s1 = strip_slot(m, w1);
        for (int t = 1; t < nt; t++) sp->at[t] = strip_at_slot(m, w0, w1, s0 + (s1 - s0) * t / nt);
        for (int t = 0; t < nt; t++) sp->sec[t] = 0;
        sp->at[0] = w0, sp->at[nt] = w1;
        sp->n = nt, sp->w0 = w0, sp->w1 = w1;
        return;
    }
    double total = 0;
    for (int t = 0; t < nt; t++) total += sp->sec[t];
    if (!(total > 0)) return;
    for (int t = 0; t <= nt; t++) slot[t] = strip_slot(m, sp->at[t]);
    int p = 0;         /* the part the t-th equal share ends in */
    double before = 0; /* the time of the parts before p */
    for (int t = 1; t < nt; t++) {
        const double goal = total * t / nt;
        while (p + 1 < nt && before + sp->sec[p] < goal) before += sp->sec[p++];
        double f = sp->sec[p] > 0 ? (goal - before) / sp->sec[p] : 0;
        f = f < 0 ? 0 : f > 1 ? 1 : f;
        const double want = slot[p] + f * (slot[p + 1] - slot[p]);
        sp->at[t] = strip_at_slot(m, w0, w1, 0.5 * (slot[t] + want));
    }
}

/* A cut drawn from the step index t instead (the test hook boids_cpu_skew_split): sorted
 * boundaries anywhere in the strips, parts of any size, empty ones and a part of every strip
 * among them. */
static void split_skew(strip_split *sp, uint32_t t) {
    uint64_t x = 0x9E3779B97F4A7C15u * (t + 1u);
    const size_t len = sp->w1 - sp->w0;
    for (int i = 1; i < sp->n; i++) {
        x = x * 6364136223846793005u + 1442695040888963407u;
        const uint32_t r = (uint32_t)(x >> 33);
        /* every fourth step one part takes every strip, then the cut is random */
        const size_t at =
            t % 4 == 0 ? (i <= (int)(t / 4 % (uint32_t)sp->n) ? 0 : len) : r % (len + 1);
        sp->at[i] = sp->w0 + at;
    }
    for (int i = 2; i < sp->n; i++) /* sorted: insertion */
        for (int j = i; j > 1 && sp->at[j - 1] > sp->at[j]; j--) {
            const size_t v = sp->at[j];
            sp->at[j] = sp->at[j - 1], sp->at[j - 1] = v;
        }
}

/* The slots of cur that each part's steering wrote in this step: the next build's cut (the
 * first and the last part also take the slots of the rows a tile does not steer). And what
 * the cut's unevenness cost the step: its slowest part's time over the parts' mean. The
 * thread pick judges a step on all threads without it (step): else a try of all threads
 * made on a cut far from even (the first after an upload of a formed flock, or one many steps
 * after the last) would lose to one thread, and the cut, measured only on all threads, would
 * never be evened. A formed 3-D flock of 1M boids stayed on one thread that way. */
static void split_cut(strip_split *sp, const strip_map *m, size_t n, grid_cells *gc) {
    double most = 0, sum = 0;
    for (int t = 0; t < sp->n; t++) {
        most = sp->sec[t] > most ? sp->sec[t] : most;
        sum += sp->sec[t];
    }
    sp->excess = most - sum / sp->n;
    gc->cut[0] = 0;
    for (int t = 1; t < sp->n; t++) gc->cut[t] = strip_slot(m, sp->at[t]);
    gc->cut[sp->n] = (uint32_t)n;
    gc->cut_n = sp->n;
}
