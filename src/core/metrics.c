/* SPDX-License-Identifier: MIT */
/* Observables of a flock state (definitions in include/boids/metrics.h), one source for
 * the plane and the box: a flock with z arrays is measured over three axes, one without
 * over two, every distance, centre and grid loop running over the flock's axes.
 *
 * Everything that looks at pairs goes through the observables' uniform grid (obs_grid.h)
 * with cells at least vision_radius wide, so that the boids within vision_radius of a boid
 * lie in the 3^dim cells around its own; the nearest neighbour searches shells of cells
 * outward. Per-boid results are
 * computed in parallel into arrays and summed in id order, so the result does not depend
 * on the number of threads (nor on the grid: minima, counts and components).
 *
 * Each sum runs over the axes in order x, y, z from 0, which is the plane's expression
 * dx * dx + dy * dy to the bit (0 + a is a). What differs by dimension is milling's cross
 * product, a number in the plane and a vector in the box (milling_of below). */
#include "boids/metrics.h"
#include "check.h"
#include "obs_grid.h"
#include "obs_part.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

const char boids_metrics_columns[] =
    "order,milling,nn_distance,neighbours,clusters,largest_cluster";

const char *const boids_metrics_names[BOIDS_METRICS_COUNT] = {
    "order", "milling", "nn_distance", "neighbours", "clusters", "largest_cluster"};

double boids_metrics_get(const boids_metrics *m, int i) {
    if (!m) return NAN;
    switch (i) {
    case 0:
        return m->order;
    case 1:
        return m->milling;
    case 2:
        return m->nn_distance;
    case 3:
        return m->neighbours;
    case 4:
        return m->clusters;
    case 5:
        return m->largest_cluster;
    }
    return NAN;
}

int boids_metrics_format(const boids_metrics *m, char *buf, size_t size) {
    if (!m) return -1;
    if (!buf) size = 0; /* the length it would have */
    return snprintf(buf, size, "%.17g,%.17g,%.17g,%.17g,%.17g,%.17g", m->order, m->milling,
                    m->nn_distance, m->neighbours, m->clusters, m->largest_cluster);
}

/* The centre's sums along each of the first ax->dim axes over n boids, added to s: in a wrap
 * world each coordinate is an angle theta = 2 pi x / side on its circle, and the sums are
 * sum sin theta and sum cos theta (s[2a], s[2a + 1]); otherwise s[2a] sums the coordinates. */
static void centre_sums(const axes *ax, size_t n, int wrap, double s[6]) {
    for (int a = 0; a < ax->dim; a++) {
        if (!wrap) {
            for (size_t i = 0; i < n; i++) s[2 * a] += ax->pos[a][i];
            continue;
        }
        const double k = 2.0 * M_PI / ax->side[a];
        for (size_t i = 0; i < n; i++) {
            s[2 * a] += sin(k * ax->pos[a][i]);
            s[2 * a + 1] += cos(k * ax->pos[a][i]);
        }
    }
}

/* The centre of n boids from their sums: the circular mean atan2(sum sin, sum cos) mapped
 * back into [0, side) (atan2(0, 0) = 0 when the mean vector vanishes: see the header), or
 * the mean. */
static void centre_from(const double s[6], const double side[3], int wrap, int dim, size_t n,
                        double c[3]) {
    for (int a = 0; a < dim; a++) {
        if (!wrap) {
            c[a] = s[2 * a] / (double)n;
            continue;
        }
        const double k = 2.0 * M_PI / side[a];
        double m = atan2(s[2 * a], s[2 * a + 1]) / k;
        if (m < 0) m += side[a];
        if (m >= side[a]) m -= side[a];
        c[a] = m;
    }
}

/* The centre along each of the first ax->dim axes (f valid and not empty). */
static void centre_of(const boids_flock *f, const boids_params *p, const axes *ax, double c[3]) {
    double s[6] = {0, 0, 0, 0, 0, 0};
    const int wrap = p->boundary == BOIDS_BOUNDARY_WRAP;
    centre_sums(ax, f->n, wrap, s);
    centre_from(s, ax->side, wrap, ax->dim, f->n, c);
}

void boids_milling_centre_add(const boids_flock *f, const boids_params *p, double s[6]) {
    const axes ax = axes_of(f, p, boids_flock_dim(f));
    centre_sums(&ax, f->n, p->boundary == BOIDS_BOUNDARY_WRAP, s);
}

void boids_milling_centre_of(const double s[6], const boids_params *p, int dim, size_t n,
                             double c[3]) {
    const double side[3] = {p->width, p->height, p->depth};
    centre_from(s, side, p->boundary == BOIDS_BOUNDARY_WRAP, dim, n, c);
}

void boids_metrics_centre(const boids_flock *f, const boids_params *p, double *cx, double *cy) {
    if (!cx || !cy) return;
    *cx = *cy = 0;
    if (boids_flock_bad_arrays(f) || !p || f->n == 0) return;
    const axes ax = axes_of(f, p, 2);
    double c[3];
    centre_of(f, p, &ax, c);
    *cx = c[0];
    *cy = c[1];
}

void boids_metrics_centre3(const boids_flock *f, const boids_params *p, double c[3]) {
    if (!c) return;
    c[0] = c[1] = c[2] = 0;
    if (boids_flock_bad_arrays(f) || !p || f->n == 0 || !f->z) return;
    const axes ax = axes_of(f, p, 3);
    centre_of(f, p, &ax, c);
}

/* Milling |(1/N) sum_i rhat_i x u_i| about the centre (shortest image under wrap). The
 * cross product is where the dimensions differ: in the plane it is the one number
 * r_x u_y - r_y u_x (the z component of the box's vector), whose magnitude is its absolute
 * value; in the box it is a vector of three. milling_sum adds the sum over n boids to l. */
static void milling_sum(const axes *ax, size_t n, int wrap, const double c[3], double l[3]) {
    const int dim = ax->dim, first = dim == 2 ? 2 : 0; /* the components there are */
    for (size_t i = 0; i < n; i++) {
        double r[3] = {0, 0, 0}, v[3] = {0, 0, 0}, rr = 0, vv = 0;
        for (int a = 0; a < dim; a++) {
            r[a] = ax->pos[a][i] - c[a];
            if (wrap) r[a] = wrap_diff(r[a], ax->side[a], ax->side[a] / 2);
            v[a] = ax->vel[a][i];
            rr += r[a] * r[a];
            vv += v[a] * v[a];
        }
        double rl = sqrt(rr), vl = sqrt(vv);
        if (rl == 0 || vl == 0) continue; /* at the centre or not moving: contributes 0 */
        for (int k = first; k < 3; k++) {
            const int s = (k + 1) % 3, t = (k + 2) % 3;
            l[k] += (r[s] * v[t] - r[t] * v[s]) / (rl * vl);
        }
    }
}

double boids_milling_of(const double l[3], int dim, size_t n) {
    if (dim == 2) return fabs(l[2]) / (double)n;
    return sqrt(l[0] * l[0] + l[1] * l[1] + l[2] * l[2]) / (double)n;
}

void boids_milling_add(const boids_flock *f, const boids_params *p, const double c[3],
                       double l[3]) {
    const axes ax = axes_of(f, p, boids_flock_dim(f));
    milling_sum(&ax, f->n, p->boundary == BOIDS_BOUNDARY_WRAP, c, l);
}

static double milling_of(const boids_flock *f, const boids_params *p, const axes *ax) {
    double c[3], l[3] = {0, 0, 0};
    centre_of(f, p, ax, c);
    milling_sum(ax, f->n, p->boundary == BOIDS_BOUNDARY_WRAP, c, l);
    return boids_milling_of(l, ax->dim, f->n);
}

/* ---- the grid ------------------------------------------------------------------------ */

/* Smallest of best and the squared distances from the point pa to the boids of cell c but
 * slot s (SIZE_MAX: none). */
PAIR_FN double cell_min_dist2(const grid *g, int dim, const double *pa, size_t s, size_t c,
                              double best) {
    for (size_t b = g->start[c]; b < g->start[c + 1]; b++) {
        if (b == s) continue;
        double dist2 = point_dist2(g, dim, pa, b);
        if (dist2 < best) best = dist2;
    }
    return best;
}

static long clampl(long v, long lo, long hi) {
    return v < lo ? lo : v > hi ? hi : v;
}

/* Squared distance from the point pa (cell k) to its nearest boid but slot s (a boid at pa:
 * its nearest other boid): shells of cells at
 * Chebyshev offset r = 0, 1, ... (the cells of a shell: those with some offset at +-r;
 * along x only the two ends of a row whose other offsets are inside). After shell r an
 * unseen boid is at least r cells of the narrowest axis away (less 2^-20 for rounding):
 * the search stops once the best is within that, or when every cell has been seen. */
PAIR_FN double nearest_dist2(const grid *g, int dim, const double *pa, size_t s, const long k[3]) {
    long lo[3], hi[3], rmax = 0;
    double wmin = INFINITY;
    for (int a = 0; a < 3; a++) {
        offset_range(g, a, k[a], &lo[a], &hi[a]);
        rmax = -lo[a] > rmax ? -lo[a] : rmax;
        rmax = hi[a] > rmax ? hi[a] : rmax;
        if (g->n[a] > 1) wmin = fmin(wmin, g->w[a]);
    }
    double best = INFINITY;
    for (long r = 0; r <= rmax; r++) {
        long d[3];
        for (d[2] = clampl(-r, lo[2], hi[2]); d[2] <= clampl(r, lo[2], hi[2]); d[2]++)
            for (d[1] = clampl(-r, lo[1], hi[1]); d[1] <= clampl(r, lo[1], hi[1]); d[1]++) {
                const int edge = labs(d[1]) == r || labs(d[2]) == r;
                for (d[0] = clampl(-r, lo[0], hi[0]); d[0] <= clampl(r, lo[0], hi[0]);) {
                    if (labs(d[0]) == r || edge)
                        best = cell_min_dist2(g, dim, pa, s, cell_at(g, dim, k, d), best);
                    /* inside the shell along y and z: only x = -r and x = +r */
                    d[0] = edge || d[0] >= r ? d[0] + 1 : r;
                }
            }
        const double bound = (double)r * wmin * (1 - 0x1p-20);
        if (isfinite(bound) && bound > 0 && best <= bound * bound) break;
    }
    return best;
}

/* Union-find over slots with path halving and union by size. */
static uint32_t uf_find(uint32_t *parent, uint32_t a) {
    while (parent[a] != a) a = parent[a] = parent[parent[a]];
    return a;
}

static void uf_union(uint32_t *parent, uint32_t *size, uint32_t a, uint32_t b) {
    a = uf_find(parent, a);
    b = uf_find(parent, b);
    if (a == b) return;
    if (size[a] < size[b]) {
        uint32_t t = a;
        a = b;
        b = t;
    }
    parent[b] = a;
    size[a] += size[b];
}

/* The boids of cell c whose ids are below own: each one's number of other boids within
 * vision_radius (d^2 < R^2) and its squared nearest-neighbour distance, at its id. */
PAIR_FN void cell_stats(const grid *g, int dim, long c, size_t own, double r2, long *cnt,
                        double *nn2) {
    long k[3];
    cell_coords(g, c, k);
    size_t cells[27];
    const int m = block_cells(g, dim, k, cells);
    for (size_t a = g->start[c]; a < g->start[c + 1]; a++) {
        if (g->ids[a] >= own) continue;
        long count = 0;
        for (int q = 0; q < m; q++)
            for (size_t b = g->start[cells[q]]; b < g->start[cells[q] + 1]; b++)
                count += b != a && pair_dist2(g, dim, a, b) < r2;
        cnt[g->ids[a]] = count;
        nn2[g->ids[a]] = nearest_dist2(g, dim, g->pos + (size_t)dim * a, a, k);
    }
}

/* Joins each boid of cell c to every later slot within vision_radius in its block, with kind
 * only those of the same kind (kind[id]). */
PAIR_FN void cell_links(const grid *g, int dim, long c, double r2, const unsigned char *kind,
                        uint32_t *parent, uint32_t *size) {
    long k[3];
    cell_coords(g, c, k);
    size_t cells[27];
    const int m = block_cells(g, dim, k, cells);
    for (size_t a = g->start[c]; a < g->start[c + 1]; a++)
        for (int q = 0; q < m; q++)
            for (size_t b = g->start[cells[q]]; b < g->start[cells[q] + 1]; b++)
                if (b > a && (!kind || kind[g->ids[a]] == kind[g->ids[b]]) &&
                    pair_dist2(g, dim, a, b) < r2)
                    uf_union(parent, size, (uint32_t)a, (uint32_t)b);
}

/* The components of the graph "distance < vision_radius" over every slot (parent, size: a
 * union-find over the slots), each pair of slots a < b in a block joined once; with kind
 * only the pairs of one kind: serial, so the roots do not depend on the threads. */
static void links(const grid *g, double r2, const unsigned char *kind, uint32_t *parent,
                  uint32_t *size) {
    const long nc = g->n[0] * g->n[1] * g->n[2];
    for (size_t i = 0; i < g->start[nc]; i++) parent[i] = (uint32_t)i, size[i] = 1;
    for (long c = 0; c < nc; c++) {
        if (g->start[c] == g->start[c + 1]) continue;
        if (g->dim == 2)
            cell_links(g, 2, c, r2, kind, parent, size);
        else
            cell_links(g, 3, c, r2, kind, parent, size);
    }
}

/* Neighbour counts and squared nearest-neighbour distances of the boids with ids below own,
 * and the components of every pair (links). Each cell's work is called with the dimension as
 * a constant. */
static void pair_values(const grid *g, size_t own, double r2, long *cnt, double *nn2,
                        uint32_t *parent, uint32_t *size) {
    const size_t n = g->start[g->n[0] * g->n[1] * g->n[2]];
    const long nc = g->n[0] * g->n[1] * g->n[2];
    const int plane = g->dim == 2;
    /* Per-boid results go to the boid's id, and are summed in id order by the callers. */
#pragma omp parallel for schedule(dynamic, 64) if (n > 16384)
    for (long c = 0; c < nc; c++) {
        if (plane)
            cell_stats(g, 2, c, own, r2, cnt, nn2);
        else
            cell_stats(g, 3, c, own, r2, cnt, nn2);
    }
    links(g, r2, NULL, parent, size);
}

/* The arrays of pair_values for n boids; NULL each when out of memory (err set). */
static boids_status pair_arrays(size_t n, long **cnt, double **nn2, uint32_t **parent,
                                uint32_t **size, const char *who, boids_error *err) {
    *nn2 = malloc(n * sizeof **nn2);
    *cnt = malloc(n * sizeof **cnt);
    *parent = malloc(n * sizeof **parent), *size = malloc(n * sizeof **size);
    if (*nn2 && *cnt && *parent && *size) return BOIDS_OK;
    free(*nn2), free(*cnt), free(*parent), free(*size);
    *nn2 = NULL, *cnt = NULL, *parent = *size = NULL;
    return boids_error_set(err, BOIDS_ERR_NOMEM, "%s: out of memory for %zu boids", who, n);
}

/* Nearest-neighbour distances, neighbour counts and the components, summed in id order. */
static boids_status pairs(const grid *g, size_t n, double r2, boids_metrics *out,
                          boids_error *err) {
    double *nn2;
    long *cnt;
    uint32_t *parent, *size;
    boids_status s = pair_arrays(n, &cnt, &nn2, &parent, &size, "metrics", err);
    if (s) return s;
    pair_values(g, n, r2, cnt, nn2, parent, size);
    double snn = 0, scnt = 0;
    size_t roots = 0, big = 0;
    for (size_t i = 0; i < n; i++) {
        snn += sqrt(nn2[i]), scnt += (double)cnt[i];
        if (parent[i] == i) roots++, big = size[i] > big ? size[i] : big;
    }
    out->nn_distance = n > 1 ? snn / (double)n : NAN;
    out->neighbours = scnt / (double)n;
    out->clusters = (double)roots;
    out->largest_cluster = (double)big / (double)n;
    free(nn2), free(cnt), free(parent), free(size);
    return BOIDS_OK;
}

/* The checks of boids_metrics_compute and its grid over f (R: vision_radius). */
static boids_status metrics_grid(const boids_flock *f, const boids_params *p, grid *g,
                                 boids_error *err) {
    boids_status s = boids_obs_check_flock(f, p, "metrics", err);
    if (s) return s;
    const axes ax = axes_of(f, p, boids_flock_dim(f));
    s = boids_obs_check_world(&ax, p->vision_radius, "vision_radius", "metrics", err);
    if (s) return s;
    return boids_obs_grid_build(g, f, p, &ax, p->vision_radius, "metrics", err);
}

boids_status boids_metrics_local(const boids_flock *set, size_t own, const boids_params *p,
                                 long *cnt, double *nn2, uint32_t *label, boids_error *err) {
    grid g;
    boids_status s = metrics_grid(set, p, &g, err);
    if (s) return s;
    uint32_t *parent = malloc(set->n * sizeof *parent), *sz = malloc(set->n * sizeof *sz);
    if (!parent || !sz) {
        s = boids_error_set(err, BOIDS_ERR_NOMEM, "metrics: out of memory for %zu boids", set->n);
    } else {
        pair_values(&g, own, p->vision_radius * p->vision_radius, cnt, nn2, parent, sz);
        for (size_t j = 0; j < set->n; j++) label[g.ids[j]] = g.ids[uf_find(parent, (uint32_t)j)];
    }
    free(parent), free(sz);
    boids_obs_grid_free(&g);
    return s;
}

boids_status boids_metrics_labels(const boids_flock *set, const boids_params *p,
                                  const unsigned char *kind, uint32_t *label, boids_error *err) {
    grid g;
    boids_status s = metrics_grid(set, p, &g, err);
    if (s) return s;
    uint32_t *parent = malloc(set->n * sizeof *parent + 1), *sz = malloc(set->n * sizeof *sz + 1);
    if (!parent || !sz) {
        s = boids_error_set(err, BOIDS_ERR_NOMEM, "metrics: out of memory for %zu boids", set->n);
    } else {
        links(&g, p->vision_radius * p->vision_radius, kind, parent, sz);
        for (size_t j = 0; j < set->n; j++) label[g.ids[j]] = g.ids[uf_find(parent, (uint32_t)j)];
    }
    free(parent), free(sz);
    boids_obs_grid_free(&g);
    return s;
}

boids_status boids_clusters_species(const boids_flock *f, const boids_params *p, double *clusters,
                                    double *largest, boids_error *err) {
    if (!clusters || !largest)
        return boids_error_set(err, BOIDS_ERR_INPUT, "clusters by species: the output is NULL");
    boids_status s = boids_obs_check_flock(f, p, "metrics", err);
    if (s) return s;
    const size_t n = f->n;
    unsigned char *kind = calloc(n + 1, 1);
    uint32_t *label = malloc(n * sizeof *label + 1), *sz = calloc(n + 1, sizeof *sz);
    if (!kind || !label || !sz)
        s = boids_error_set(err, BOIDS_ERR_NOMEM, "metrics: out of memory for %zu boids", n);
    for (size_t i = 0; !s && i < n; i++)
        kind[i] = (unsigned char)boids_species_of(p, (unsigned long long)i);
    if (!s) s = boids_metrics_labels(f, p, kind, label, err);
    if (!s) {
        size_t roots[BOIDS_MAX_SPECIES] = {0}, big[BOIDS_MAX_SPECIES] = {0};
        for (size_t i = 0; i < n; i++) sz[label[i]]++;
        for (size_t i = 0; i < n; i++) /* a root's component is of the root's species alone */
            if (label[i] == i)
                roots[kind[i]]++, big[kind[i]] = sz[i] > big[kind[i]] ? sz[i] : big[kind[i]];
        const int k = p->species > 1 ? (int)p->species : 1;
        for (int q = 0; q < k && q < BOIDS_MAX_SPECIES; q++) {
            const size_t c = boids_species_count(p, n, q);
            clusters[q] = (double)roots[q];
            largest[q] = c ? (double)big[q] / (double)c : 0;
        }
    }
    free(kind), free(label), free(sz);
    return s;
}

boids_status boids_metrics_nearest(const boids_flock *set, const boids_params *p, const double *q,
                                   const size_t *skip, size_t nq, double *best2, boids_error *err) {
    grid g;
    boids_status s = metrics_grid(set, p, &g, err);
    if (s) return s;
    size_t *slot = malloc(set->n * sizeof *slot); /* the slot of each boid of set */
    if (!slot) {
        boids_obs_grid_free(&g);
        return boids_error_set(err, BOIDS_ERR_NOMEM, "metrics: out of memory for %zu boids",
                               set->n);
    }
    for (size_t j = 0; j < set->n; j++) slot[g.ids[j]] = j;
    const int dim = g.dim;
#pragma omp parallel for schedule(dynamic, 16) if (nq > 1024)
    for (size_t i = 0; i < nq; i++) {
        long k[3];
        const double *x = q + (size_t)dim * i;
        const size_t sk = skip[i] < set->n ? slot[skip[i]] : SIZE_MAX;
        boids_obs_cell_of(&g, x, k);
        const double d = dim == 2 ? nearest_dist2(&g, 2, x, sk, k) : nearest_dist2(&g, 3, x, sk, k);
        if (d < best2[i]) best2[i] = d;
    }
    free(slot);
    boids_obs_grid_free(&g);
    return BOIDS_OK;
}

boids_status boids_metrics_compute(const boids_flock *f, const boids_params *p, boids_metrics *out,
                                   boids_error *err) {
    if (!out) return boids_error_set(err, BOIDS_ERR_INPUT, "metrics: the output is NULL");
    grid g;
    boids_status s = metrics_grid(f, p, &g, err);
    if (s) return s;
    const axes ax = axes_of(f, p, boids_flock_dim(f));
    out->order = boids_order(f);
    out->milling = milling_of(f, p, &ax);
    s = pairs(&g, f->n, p->vision_radius * p->vision_radius, out, err);
    boids_obs_grid_free(&g);
    return s;
}
