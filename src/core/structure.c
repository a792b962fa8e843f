/* SPDX-License-Identifier: MIT */
/* Number fluctuations and the velocity correlation of a state (definitions, geometry and
 * cost in include/boids/structure.h), one source for the plane and the box: every box,
 * distance and velocity loop runs over the flock's axes.
 *
 * The correlation visits pairs through the observables' grid (obs_grid.h) with cells at
 * least range wide. Its sums are floating point, so their order is fixed, and fixed by the
 * flock alone: each row of the grid (the slab of cells at one coordinate of the last axis)
 * is cut into the same number of runs of cells, each run summed in cell and slot order into
 * bins of its own (in parallel), and the runs added in run order (row after row); the number
 * of threads changes nothing, and a process holding some of the rows (with the one beside
 * each) sums their runs as the whole flock's grid does (obs_part.h: src/mpi adds the ranks'
 * runs in turn). */
#include "boids/structure.h"
#include "obs_grid.h"
#include "obs_part.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum {
    FLUCT_MAX_PER_AXIS = 4096, /* the finest level's m at the most */
    FLUCT_FIT_BOXES = 16,      /* a fit level has at least this many boxes ... */
    FLUCT_FIT_MEAN = 4,        /* ... and a mean count of at least this */
    CORR_MAX_BINS = 100000,
    CORR_MAX_RUNS = 64,         /* runs of cells summed apart, at least (more: better balance) */
    CORR_RUN_DOUBLES = 1 << 21, /* the runs' bins together hold at most this many doubles */
};

/* ---- number fluctuations ------------------------------------------------------------- */

double boids_fluct_fit(boids_fluct *levels) {
    if (!levels) return NAN;
    const size_t nl =
        levels->nlevels < BOIDS_FLUCT_MAX_LEVELS ? levels->nlevels : BOIDS_FLUCT_MAX_LEVELS;
    double sx = 0, sy = 0, sxx = 0, sxy = 0, k = 0;
    for (size_t l = 0; l < nl; l++) {
        boids_fluct_level *v = &levels->level[l];
        v->fitted = v->boxes >= FLUCT_FIT_BOXES && v->mean >= FLUCT_FIT_MEAN && v->sd > 0 &&
                    isfinite(v->mean) && isfinite(v->sd);
        if (!v->fitted) continue;
        const double x = log(v->mean), y = log(v->sd);
        sx += x, sy += y, sxx += x * x, sxy += x * y, k++;
    }
    if (k < 2) {
        for (size_t l = 0; l < nl; l++) levels->level[l].fitted = 0;
        return levels->alpha = NAN;
    }
    /* Centred sums: the slope of the least-squares line through the (ln <n>, ln Delta n). */
    const double mx = sx / k, my = sy / k;
    return levels->alpha = (sxy - k * mx * my) / (sxx - k * mx * mx);
}

/* The box frame along each axis: its corner lo and extent w (the world's, or the flock's
 * bounding box on the open plane). */
static void fluct_frame(const axes *ax, size_t n, int open, double lo[3], double w[3]) {
    for (int a = 0; a < ax->dim; a++) {
        lo[a] = 0, w[a] = ax->side[a];
        if (!open) continue;
        double hi;
        boids_obs_extent(ax, n, a, &lo[a], &hi);
        w[a] = hi - lo[a];
    }
}

/* The box of coordinate x along an axis of m boxes over [lo, lo + w]. */
static long fluct_box(double x, double lo, double w, long m) {
    if (!(w > 0)) return 0;
    const double t = floor((x - lo) * ((double)m / w));
    return t < 0 ? 0 : t >= (double)m ? m - 1 : (long)t;
}

uint64_t boids_fluct_sum(const uint32_t *count, size_t boxes, uint64_t q) {
    uint64_t s = 0;
    for (size_t b = 0; b < boxes; b++) {
        const uint64_t d = count[b] > q ? count[b] - q : q - count[b];
        s += d * d;
    }
    return s;
}

void boids_fluct_level_set(boids_fluct_level *v, uint64_t s, size_t boxes, size_t n, long m,
                           int dim, const double w[3]) {
    const uint64_t q = n / boxes;
    const double frac = (double)(n - q * boxes) / (double)boxes; /* <n> - q, in [0, 1) */
    v->per_axis = m;
    v->boxes = (double)boxes;
    for (int a = 0; a < 3; a++) v->side[a] = a < dim ? w[a] / (double)m : 0;
    v->mean = (double)n / (double)boxes;
    v->sd = sqrt(fmax(0, (double)s / (double)boxes - frac * frac));
}

/* Level m's mean and sd from its box counts (boxes of them, n boids in all): the squares
 * about floor(<n>), (n - q)^2, summed exactly, in any order. */
static void fluct_level(boids_fluct_level *v, const uint32_t *count, size_t boxes, size_t n, long m,
                        int dim, const double w[3]) {
    boids_fluct_level_set(v, boids_fluct_sum(count, boxes, n / boxes), boxes, n, m, dim, w);
}

void boids_fluct_coarsen(const uint32_t *fine, uint32_t *coarse, long rows, long m, int dim) {
    const long mf = 2 * m, mz = dim == 3 ? rows : 1, my = dim == 3 ? mf : rows;
    memset(coarse, 0, (size_t)((dim == 3 ? rows / 2 * m : rows / 2) * m) * sizeof *coarse);
    for (long z = 0; z < mz; z++)
        for (long y = 0; y < my; y++)
            for (long x = 0; x < mf; x++)
                coarse[((z / 2) * m + y / 2) * m + x / 2] += fine[(z * mf + y) * mf + x];
}

long boids_fluct_finest(size_t n, int dim) {
    long m = 1; /* the largest m = 2^k <= 4096 with m^dim <= N */
    while (2 * m <= FLUCT_MAX_PER_AXIS && pow(2.0 * (double)m, dim) <= (double)n) m *= 2;
    return m;
}

size_t boids_fluct_box(const double *x, int dim, const double lo[3], const double w[3], long m) {
    size_t b = 0;
    for (int a = dim - 1; a >= 0; a--) b = b * (size_t)m + (size_t)fluct_box(x[a], lo[a], w[a], m);
    return b;
}

boids_status boids_fluct_from_counts(uint32_t *count, size_t n, long m, int dim, const double w[3],
                                     boids_fluct *out, boids_error *err) {
    *out = (boids_fluct){0};
    out->alpha = NAN;
    if (m == 1) return BOIDS_OK;
    const size_t boxes = (size_t)pow((double)m, dim);
    uint32_t *coarse = malloc((boxes / 2 + 1) * sizeof *coarse), *fine = count;
    if (!coarse)
        return boids_error_set(err, BOIDS_ERR_NOMEM,
                               "number fluctuations: out of memory for %zu "
                               "boxes",
                               boxes);
    for (long k = m; k > 1; k /= 2) out->nlevels++;  /* m = 2, 4, .. up to the finest */
    for (size_t l = out->nlevels; l-- > 0; m /= 2) { /* finest first, then coarser */
        fluct_level(&out->level[l], count, (size_t)pow((double)m, dim), n, m, dim, w);
        if (l == 0) break;
        boids_fluct_coarsen(count, coarse, m, m / 2, dim);
        uint32_t *t = count;
        count = coarse, coarse = t;
    }
    free(coarse == fine ? count : coarse);
    boids_fluct_fit(out);
    return BOIDS_OK;
}

boids_status boids_number_fluctuations(const boids_flock *f, const boids_params *p,
                                       boids_fluct *out, boids_error *err) {
    static const char who[] = "number fluctuations";
    if (!out) return boids_error_set(err, BOIDS_ERR_INPUT, "%s: the output is NULL", who);
    boids_status st = boids_obs_check_flock(f, p, who, err);
    if (st) return st;
    const axes ax = axes_of(f, p, boids_flock_dim(f));
    if ((st = boids_obs_check_world(&ax, 1, NULL, who, err))) return st;
    const int dim = ax.dim;
    const long m = boids_fluct_finest(f->n, dim);
    *out = (boids_fluct){0};
    out->alpha = NAN;
    if (m == 1) return BOIDS_OK;
    const size_t boxes = (size_t)pow((double)m, dim);
    uint32_t *count = calloc(boxes, sizeof *count);
    if (!count)
        return boids_error_set(err, BOIDS_ERR_NOMEM, "%s: out of memory for %zu boxes", who, boxes);
    double lo[3], w[3];
    fluct_frame(&ax, f->n, p->boundary == BOIDS_BOUNDARY_OPEN, lo, w);
    for (size_t i = 0; i < f->n; i++) {
        const double x[3] = {ax.pos[0][i], ax.pos[1][i], dim == 3 ? ax.pos[2][i] : 0};
        count[boids_fluct_box(x, dim, lo, w, m)]++;
    }
    st = boids_fluct_from_counts(count, f->n, m, dim, w, out, err);
    free(count);
    return st;
}

/* ---- velocity correlation -------------------------------------------------------------- */

boids_status boids_corr_check(size_t n, const boids_params *p, double range, size_t bins,
                              const char *who, boids_error *err) {
    if (n < 2)
        return boids_error_set(err, BOIDS_ERR_INPUT, "%s: N = %zu, it takes at least 2 boids", who,
                               n);
    if (bins == 0 || bins > CORR_MAX_BINS)
        return boids_error_set(err, BOIDS_ERR_INPUT, "%s: bins = %zu is not in [1, %d]", who, bins,
                               CORR_MAX_BINS);
    const axes ax = {p->dim, {0}, {0}, {p->width, p->height, p->depth}};
    boids_status st = boids_obs_check_world(&ax, 1, NULL, who, err);
    if (st) return st;
    double max = 1e30;
    int axis = -1; /* the smallest side of a wrap world, which bounds range */
    for (int a = 0; a < ax.dim && p->boundary == BOIDS_BOUNDARY_WRAP; a++)
        if (ax.side[a] / 2 < max) max = ax.side[a] / 2, axis = a;
    if (!(range > 0 && range <= max))
        return boids_error_set(err, BOIDS_ERR_INPUT, "%s: range = %g is not in (0, %g]%s%s", who,
                               range, max, axis < 0 ? "" : ", half the wrap world's ",
                               axis < 0 ? "" : (const char *[]){"width", "height", "depth"}[axis]);
    return BOIDS_OK;
}

/* Why f, p, range and bins cannot be measured, or BOIDS_OK. */
static boids_status corr_check(const boids_flock *f, const boids_params *p, double range,
                               size_t bins, const double *sum, const double *pairs, const char *who,
                               boids_error *err) {
    if (!sum || !pairs)
        return boids_error_set(err, BOIDS_ERR_INPUT, "%s: the %s array is NULL", who,
                               !sum ? "sum" : "pairs");
    boids_status st = boids_obs_check_flock(f, p, who, err);
    if (st) return st;
    boids_params q = *p; /* the flock's axes are what is measured */
    q.dim = boids_flock_dim(f);
    return boids_corr_check(f->n, &q, range, bins, who, err);
}

int boids_corr_differs(const boids_flock *part, int dim, const double v0[3]) {
    const double *vel[3] = {part->vx, part->vy, part->vz};
    int differs = 0;
    for (size_t i = 0; i < part->n && !differs; i++)
        for (int a = 0; a < dim; a++) differs |= vel[a][i] != v0[a];
    return differs;
}

void boids_corr_mean_add(const boids_flock *part, int dim, double s[3]) {
    const double *vel[3] = {part->vx, part->vy, part->vz};
    for (int a = 0; a < dim; a++)
        for (size_t i = 0; i < part->n; i++) s[a] += vel[a][i];
}

void boids_corr_spread_add(const boids_flock *part, int dim, const double mean[3], double *ss) {
    const double *vel[3] = {part->vx, part->vy, part->vz};
    for (size_t i = 0; i < part->n; i++)
        for (int a = 0; a < dim; a++) *ss += (vel[a][i] - mean[a]) * (vel[a][i] - mean[a]);
}

/* How the runs lie in the grid, a function of the grid and the bins alone: groups of
 * `group` consecutive rows (the last maybe fewer; one row each unless the groups' bins would
 * exceed CORR_RUN_DOUBLES), each cut into s runs of cells (CORR_MAX_RUNS runs in all at
 * least, so that threads have work when the rows are few; at most a row's cells). */
typedef struct corr_layout {
    long all, per_row, group, groups, s;
} corr_layout;

static corr_layout corr_layout_of(const grid *g, size_t bins) {
    corr_layout l;
    l.all = g->n[g->dim - 1];
    l.per_row = g->n[0] * g->n[1] * g->n[2] / l.all;
    long most = CORR_RUN_DOUBLES / (long)(2 * bins);
    most = most < 1 ? 1 : most;
    l.group = (l.all + most - 1) / most;
    l.groups = (l.all + l.group - 1) / l.group;
    l.s = (CORR_MAX_RUNS + l.groups - 1) / l.groups;
    l.s = l.s > l.per_row ? l.per_row : l.s;
    return l;
}

long boids_corr_rows_of(size_t n, const boids_params *p, const double lo[3], const double hi[3],
                        double range, size_t bins, long *group, const double *x, size_t m,
                        long *row) {
    const axes ax = {p->dim, {0}, {0}, {p->width, p->height, p->depth}};
    grid g;
    boids_obs_grid_frame(&g, n, p, &ax, lo, hi, range);
    for (size_t i = 0; i < m; i++) row[i] = boids_obs_row_of(&g, x[i]);
    *group = corr_layout_of(&g, bins).group;
    return g.n[p->dim - 1];
}

/* Where the window's cells stand in the whole grid: its local row j is the whole grid's row
 * (row0 + j) mod rows, per_row cells a row. */
typedef struct corr_window {
    long row0, all, per_row;
} corr_window;

/* The whole grid's index of the window's cell c: the pairs are visited from the boid of the
 * lower slot of the whole grid (its cell first, then id order within a cell). */
static inline long corr_key(const corr_window *w, long c) {
    return (w->row0 + c / w->per_row) % w->all * w->per_row + c % w->per_row;
}

/* The pairs of cells [c0, c1) with their block's later slots: u_a . u_b into sum[bin] and
 * one into pairs[bin] for each pair closer than range (r2 = range^2, per = bins / range). */
PAIR_FN void corr_run(const grid *g, const corr_window *w, int dim, const double *u, long c0,
                      long c1, double r2, double per, size_t bins, double *sum, double *pairs) {
    for (long c = c0; c < c1; c++) {
        long k[3];
        size_t cells[27];
        cell_coords(g, c, k);
        const int m = block_cells(g, dim, k, cells);
        const long kc = corr_key(w, c);
        long kq[27];
        for (int q = 0; q < m; q++) kq[q] = corr_key(w, (long)cells[q]);
        for (size_t a = g->start[c]; a < g->start[c + 1]; a++) {
            const double *ua = u + (size_t)dim * a;
            for (int q = 0; q < m; q++) {
                if (kq[q] < kc) continue;
                const size_t e = g->start[cells[q] + 1];
                for (size_t b = kq[q] == kc ? a + 1 : g->start[cells[q]]; b < e; b++) {
                    const double dist2 = pair_dist2(g, dim, a, b);
                    if (!(dist2 < r2)) continue;
                    size_t bin = (size_t)(sqrt(dist2) * per);
                    bin = bin < bins ? bin : bins - 1;
                    const double *ub = u + (size_t)dim * b;
                    double dot = 0;
                    for (int x = 0; x < dim; x++) dot += ua[x] * ub[x];
                    sum[bin] += dot;
                    pairs[bin] += 1;
                }
            }
        }
    }
}

/* The runs [q0, q0 + nq) of the window's groups from group g0 (l's layout), each into its own
 * 2 bins doubles of part (its sums, then its pairs), in parallel. */
static void corr_runs(const grid *g, const corr_window *w, const corr_layout *l, const double *u,
                      long g0, long q0, long nq, double range, size_t bins, double *part) {
    const double r2 = range * range, per = (double)bins / range;
    const int plane = g->dim == 2;
    const long nc = g->n[0] * g->n[1] * g->n[2];
    memset(part, 0, (size_t)nq * 2 * bins * sizeof *part);
#pragma omp parallel for schedule(dynamic, 1) if (g->start[nc] > 16384)
    for (long q = 0; q < nq; q++) {
        const long run = q0 + q, row = (g0 + run / l->s) * l->group, k = run % l->s;
        const long rows = row + l->group < l->all ? l->group : l->all - row;
        const long at = (row - w->row0 + w->all) % w->all * w->per_row, cells = rows * w->per_row;
        const long c0 = at + cells * k / l->s, c1 = at + cells * (k + 1) / l->s;
        double *sp = part + (size_t)q * 2 * bins, *np = sp + bins;
        if (plane)
            corr_run(g, w, 2, u, c0, c1, r2, per, bins, sp, np);
        else
            corr_run(g, w, 3, u, c0, c1, r2, per, bins, sp, np);
    }
}

boids_status boids_corr_rows_add(const boids_flock *set, const boids_params *p, size_t n,
                                 const double lo[3], const double hi[3], const double mean[3],
                                 double scale, double range, long r0, long r1, size_t bins,
                                 double *sum, double *pairs, void (*ready)(void *ctx), void *ctx,
                                 boids_error *err) {
    static const char who[] = "velocity correlation";
    const int dim = p->dim;
    const axes ax = axes_of(set, p, dim);
    grid g;
    boids_obs_grid_frame(&g, n, p, &ax, lo, hi, range);
    const corr_layout l = corr_layout_of(&g, bins);
    const long all = l.all;
    corr_window w = {0, all, l.per_row};
    if (g.wrap && r1 - r0 + 2 < all) /* the rows and one beside each, around the seam */
        w.row0 = (r0 - 1 + all) % all;
    else if (!g.wrap)
        w.row0 = r0 > 0 ? r0 - 1 : 0;
    const long rows = g.wrap && r1 - r0 + 2 >= all ? all
                      : g.wrap                     ? r1 - r0 + 2
                                                   : (r1 + 1 < all ? r1 + 1 : all) - w.row0;
    boids_status st = BOIDS_OK;
    double *u = NULL, *part = NULL;
    const long g0 = r0 / l.group, g1 = (r1 + l.group - 1) / l.group; /* r0, r1: whole groups */
    long batch = CORR_RUN_DOUBLES / (long)(2 * bins), nq = (g1 - g0) * l.s;
    batch = batch < 1 ? 1 : batch < nq ? batch : nq;
    if (r1 > r0 && !(st = boids_obs_grid_window(&g, &ax, set->n, w.row0, rows, who, err))) {
        const size_t slots = g.start[(size_t)g.n[0] * (size_t)g.n[1] * (size_t)g.n[2]];
        u = malloc((size_t)dim * slots * sizeof *u + 1);
        part = malloc((size_t)batch * 2 * bins * sizeof *part);
        if (!u || !part)
            st = boids_error_set(err, BOIDS_ERR_NOMEM, "%s: out of memory for %zu boids", who,
                                 slots);
        const double *vel[3] = {set->vx, set->vy, set->vz};
        for (size_t i = 0; !st && i < slots; i++) /* u = (v - V) / s in slot order */
            for (int a = 0; a < dim; a++)
                u[(size_t)dim * i + (size_t)a] = (vel[a][g.ids[i]] - mean[a]) / scale;
    }
    int told = 0;
    for (long q0 = 0; !st && q0 < nq; q0 += batch) {
        const long k = nq - q0 < batch ? nq - q0 : batch;
        corr_runs(&g, &w, &l, u, g0, q0, k, range, bins, part);
        if (!told && ready) ready(ctx);
        told = 1;
        for (long q = 0; q < k; q++)
            for (size_t b = 0; b < bins; b++) {
                sum[b] += part[(size_t)q * 2 * bins + b];
                pairs[b] += part[(size_t)q * 2 * bins + bins + b];
            }
    }
    if (!st && !told && ready) ready(ctx);
    free(u), free(part);
    if (r1 > r0) boids_obs_grid_free(&g);
    return st;
}

boids_status boids_velocity_correlation_add(const boids_flock *f, const boids_params *p,
                                            double range, size_t bins, double *sum, double *pairs,
                                            boids_error *err) {
    static const char who[] = "velocity correlation";
    boids_status st = corr_check(f, p, range, bins, sum, pairs, who, err);
    if (st) return st;
    boids_params q = *p; /* the flock's axes are what is measured */
    q.dim = boids_flock_dim(f);
    const int dim = q.dim;
    const axes ax = axes_of(f, &q, dim);
    const double v0[3] = {f->vx[0], f->vy[0], dim == 3 ? f->vz[0] : 0};
    double mean[3] = {0, 0, 0}, ss = 0, lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
    if (!boids_corr_differs(f, dim, v0)) return BOIDS_OK; /* no fluctuation */
    boids_corr_mean_add(f, dim, mean);
    for (int a = 0; a < dim; a++) mean[a] /= (double)f->n;
    boids_corr_spread_add(f, dim, mean, &ss);
    const double scale = sqrt(ss / (double)f->n);
    if (!(scale > 0)) return BOIDS_OK; /* the spread rounds to 0 */
    for (int a = 0; a < dim; a++) boids_obs_extent(&ax, f->n, a, &lo[a], &hi[a]);
    long group;
    const long rows = boids_corr_rows_of(f->n, &q, lo, hi, range, bins, &group, NULL, 0, NULL);
    return boids_corr_rows_add(f, &q, f->n, lo, hi, mean, scale, range, 0, rows, bins, sum, pairs,
                               NULL, NULL, err);
}

double boids_correlation_length(const double *sum, const double *pairs, size_t bins, double range) {
    if (!sum || !pairs || bins == 0 || !(range > 0 && isfinite(range))) return NAN;
    const double w = range / (double)bins;
    double r0 = NAN, c0 = NAN; /* the last bin with pairs so far: its centre and C */
    for (size_t b = 0; b < bins; b++) {
        if (!(pairs[b] > 0)) continue;
        const double c = sum[b] / pairs[b], r = ((double)b + 0.5) * w;
        if (!isfinite(c)) return NAN;
        if (c <= 0) return isnan(r0) ? 0 : r0 + c0 * (r - r0) / (c0 - c);
        r0 = r, c0 = c;
    }
    return NAN;
}
