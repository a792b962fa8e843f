/* SPDX-License-Identifier: MIT */
#include "boids/flock.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "boids/rng.h"
#include "check.h"
#include "flock_part.h"
#include "shortest.h"

boids_status boids_flock_alloc(boids_flock *f, size_t n, boids_error *err) {
    return boids_flock_alloc_dim(f, n, 2, err);
}

/* One block of 4 (2-D) or 6 (3-D) arrays: x, y, vx, vy first in both, then z, vz. */
boids_status boids_flock_alloc_dim(boids_flock *f, size_t n, int dim, boids_error *err) {
    if (!f) return boids_error_set(err, BOIDS_ERR_INPUT, "boids_flock_alloc: the flock is NULL");
    memset(f, 0, sizeof *f);
    if (dim != 2 && dim != 3)
        return boids_error_set(err, BOIDS_ERR_INPUT, "a flock has 2 or 3 dimensions, not %d", dim);
    if (n == 0) return boids_error_set(err, BOIDS_ERR_INPUT, "a flock needs at least one boid");
    const size_t arrays = 2 * (size_t)dim;
    if (n > SIZE_MAX / (arrays * sizeof(double)))
        return boids_error_set(err, BOIDS_ERR_LIMIT, "%zu boids do not fit in memory", n);
    double *block = calloc(arrays * n, sizeof(double));
    if (!block)
        return boids_error_set(err, BOIDS_ERR_LIMIT,
                               "%zu boids need %zu MiB of memory for their state, which this "
                               "machine could not allocate",
                               n, arrays * n * sizeof(double) >> 20);
    f->n = n;
    f->x = block;
    f->y = block + n;
    f->vx = block + 2 * n;
    f->vy = block + 3 * n;
    if (dim == 3) {
        f->z = block + 4 * n;
        f->vz = block + 5 * n;
    }
    return BOIDS_OK;
}

int boids_flock_dim(const boids_flock *f) {
    return f && f->z ? 3 : 2;
}

void boids_flock_free(boids_flock *f) {
    if (f) {
        free(f->x);
        memset(f, 0, sizeof *f);
    }
}

boids_status boids_flock_copy(boids_flock *dst, const boids_flock *src, boids_error *err) {
    const char *bad = !dst ? "the destination is NULL" : boids_flock_bad_arrays(src);
    if (bad) return boids_error_set(err, BOIDS_ERR_INPUT, "boids_flock_copy: %s", bad);
    const int dim = boids_flock_dim(src);
    boids_status s = boids_flock_alloc_dim(dst, src->n, dim, err);
    if (s) return s;
    memcpy(dst->x, src->x, src->n * sizeof(double));
    memcpy(dst->y, src->y, src->n * sizeof(double));
    memcpy(dst->vx, src->vx, src->n * sizeof(double));
    memcpy(dst->vy, src->vy, src->n * sizeof(double));
    if (dim == 3) {
        memcpy(dst->z, src->z, src->n * sizeof(double));
        memcpy(dst->vz, src->vz, src->n * sizeof(double));
    }
    dst->step = src->step;
    return BOIDS_OK;
}

void boids_flock_randomize(boids_flock *f, const boids_params *p, uint64_t seed) {
    boids_flock_randomize_from(f, p, seed, 0);
}

void boids_part_range(size_t N, size_t part, size_t parts, size_t *first, size_t *n) {
    /* N * part / parts rounded down, without the product's overflow */
    const size_t q = N / parts, r = N % parts;
    const size_t lo = q * part + r * part / parts, hi = q * (part + 1) + r * (part + 1) / parts;
    *first = lo;
    *n = hi - lo;
}

void boids_flock_randomize_from(boids_flock *f, const boids_params *p, uint64_t seed,
                                size_t first) {
    /* No error channel: nothing to fill, or arrays missing, leaves the flock as it is. */
    if (!p || boids_flock_bad_arrays(f) || !f->x) return;
    boids_rng r;
    boids_rng_seed(&r, seed);
    /* The boids before first: their draws (five in 3-D, three in the plane) dropped. */
    const size_t skip = first * (f->z ? 5 : 3);
    for (size_t i = 0; i < skip; i++) (void)boids_rng_random(&r);
    if (f->z) {
        for (size_t i = 0; i < f->n; i++) {
            double c = boids_rng_uniform(&r, -1, 1);
            double phi = boids_rng_uniform(&r, 0, 2 * M_PI);
            f->x[i] = boids_rng_uniform(&r, 0, p->width);
            f->y[i] = boids_rng_uniform(&r, 0, p->height);
            f->z[i] = boids_rng_uniform(&r, 0, p->depth);
            double s = sqrt(fmax(0, 1 - c * c));
            f->vx[i] = p->initial_speed * (s * cos(phi));
            f->vy[i] = p->initial_speed * (s * sin(phi));
            f->vz[i] = p->initial_speed * c;
        }
        return;
    }
    for (size_t i = 0; i < f->n; i++) {
        double a = boids_rng_uniform(&r, 0, 2 * M_PI);
        f->x[i] = boids_rng_uniform(&r, 0, p->width);
        f->y[i] = boids_rng_uniform(&r, 0, p->height);
        f->vx[i] = p->initial_speed * cos(a);
        f->vy[i] = p->initial_speed * sin(a);
    }
}

/* The speed rule of boids_boid_check (see BOIDS_SPEED_TOLERANCE). */
static boids_status speed_check(const boids_params *p, double speed, const char *where,
                                boids_error *err) {
    char have[32], want[32]; /* formatted only for a message: every boid of a state passes here */
    if (p->model == BOIDS_MODEL_VICSEK &&
        !(fabs(speed - p->speed) <= p->speed * BOIDS_SPEED_TOLERANCE))
        return boids_error_set(err, BOIDS_ERR_INPUT,
                               "%s: speed %s is not the Vicsek speed = %s (every agent moves at "
                               "it; relative tolerance %g)",
                               where, shortest_double(speed, have, sizeof have),
                               shortest_double(p->speed, want, sizeof want), BOIDS_SPEED_TOLERANCE);
    if (p->model == BOIDS_MODEL_REYNOLDS && !(speed <= p->max_speed * (1 + BOIDS_SPEED_TOLERANCE)))
        return boids_error_set(
            err, BOIDS_ERR_INPUT, "%s: speed %s is above max_speed = %s (relative tolerance %g)",
            where, shortest_double(speed, have, sizeof have),
            shortest_double(p->max_speed, want, sizeof want), BOIDS_SPEED_TOLERANCE);
    return BOIDS_OK;
}

/* The checks of boids_boid_check for a boid of dim axes: v holds the dim coordinates, then
 * the dim velocity components. */
static boids_status boid_check(const boids_params *p, int dim, const double *v, int speeds,
                               const char *where, boids_error *err) {
    static const char *names[6] = {"x", "y", "z", "vx", "vy", "vz"};
    const double side[3] = {p->width, p->height, p->depth};
    for (int c = 0; c < 2 * dim; c++)
        if (!isfinite(v[c]))
            return boids_error_set(err, BOIDS_ERR_INPUT, "%s: %s is not finite", where,
                                   names[c < dim ? c : 3 + c - dim]);
    int outside = 0, beyond = 0;
    for (int a = 0; a < dim; a++) {
        outside |= v[a] < 0 || v[a] > side[a];
        beyond |= !(fabs(v[a]) <= BOIDS_OPEN_COORD_MAX);
    }
    const int open = p->boundary == BOIDS_BOUNDARY_OPEN;
    if (open ? beyond : outside) {
        char at[80] = "", world[80] = "";
        for (int a = 0, n = 0, m = 0; a < dim; a++) {
            char c[32];
            n += snprintf(at + n, sizeof at - (size_t)n, "%s%s", a ? ", " : "",
                          shortest_double(v[a], c, sizeof c));
            m += snprintf(world + m, sizeof world - (size_t)m, "%s%g", a ? " x " : "", side[a]);
        }
        if (open)
            return boids_error_set(err, BOIDS_ERR_INPUT,
                                   "%s: position (%s) is beyond +-%g, the open %s's bound", where,
                                   at, BOIDS_OPEN_COORD_MAX, dim == 2 ? "plane" : "boundary");
        return boids_error_set(err, BOIDS_ERR_INPUT, "%s: position (%s) is outside the %s world",
                               where, at, world);
    }
    if (!speeds) return BOIDS_OK;
    double v2 = 0;
    for (int a = 0; a < dim; a++) v2 += v[dim + a] * v[dim + a];
    return speed_check(p, sqrt(v2), where, err);
}

/* The public checks: NULL arguments refused, where defaulting to the function's name. */
static boids_status boid_check_args(const boids_params *p, int dim, const double *v, int speeds,
                                    const char *where, boids_error *err) {
    if (!where) where = dim == 2 ? "boids_boid_check" : "boids_boid_check3";
    if (!p || !v)
        return boids_error_set(err, BOIDS_ERR_INPUT, "%s: %s NULL", where,
                               !p ? "the parameters are" : "the boid's values are");
    return boid_check(p, dim, v, speeds, where, err);
}

boids_status boids_boid_check_at(const boids_params *p, int dim, const double *v, int speeds,
                                 boids_error *err, const char *fmt, ...) {
    if (!boid_check(p, dim, v, speeds, "", err)) return BOIDS_OK;
    char where[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(where, sizeof where, fmt, ap);
    va_end(ap);
    return boid_check(p, dim, v, speeds, where, err);
}

boids_status boids_boid_check(const boids_params *p, const double v[4], int speeds,
                              const char *where, boids_error *err) {
    return boid_check_args(p, 2, v, speeds, where, err);
}

boids_status boids_boid_check3(const boids_params *p, const double v[6], int speeds,
                               const char *where, boids_error *err) {
    return boid_check_args(p, 3, v, speeds, where, err);
}

boids_status boids_flock_check(const boids_flock *f, const boids_params *p, const char *origin,
                               boids_error *err) {
    const char *bad = p ? boids_flock_bad_arrays(f) : "the parameters are NULL";
    if (bad) return boids_error_set(err, BOIDS_ERR_INPUT, "boids_flock_check: %s", bad);
    if (!origin) origin = "flock";
    if (boids_flock_dim(f) != p->dim)
        return boids_error_set(err, BOIDS_ERR_INPUT,
                               "%.160s: the state is %d-D but the parameters say dim = %d", origin,
                               boids_flock_dim(f), p->dim);
    for (size_t i = 0; i < f->n; i++) {
        const int dim = f->z ? 3 : 2;
        const double *arrays[6] = {f->x, f->y, f->z, f->vx, f->vy, f->vz};
        double v[6];
        for (int c = 0; c < 2 * dim; c++) v[c] = arrays[c < dim ? c : 3 + c - dim][i];
        boids_status s = boids_boid_check_at(p, dim, v, 0, err, "%.160s: boid %zu", origin, i);
        if (s) return s;
    }
    return BOIDS_OK;
}

/* The sum of the unit velocities, component by component in order x, y (z), then its
 * length over N: seed 000's orden() in the plane, the same with z last in the box. */
/* Boid i's unit velocity added to u (nothing for a resting boid). */
static void unit_add(const double *const vel[3], int dim, size_t i, double u[3]) {
    double v2 = 0;
    for (int a = 0; a < dim; a++) v2 += vel[a][i] * vel[a][i];
    double v = sqrt(v2);
    if (v == 0) return;
    for (int a = 0; a < dim; a++) u[a] += vel[a][i] / v;
}

void boids_order_add(const boids_flock *f, double u[3]) {
    const int dim = boids_flock_dim(f);
    const double *vel[3] = {f->vx, f->vy, f->vz};
    for (size_t i = 0; i < f->n; i++) unit_add(vel, dim, i, u);
}

void boids_order_species_add(const boids_flock *f, const boids_params *p, size_t first,
                             double u[][3]) {
    const int dim = boids_flock_dim(f);
    const double *vel[3] = {f->vx, f->vy, f->vz};
    for (size_t i = 0; i < f->n; i++)
        unit_add(vel, dim, i, u[boids_species_of(p, (unsigned long long)(first + i))]);
}

size_t boids_species_count(const boids_params *p, size_t n, int s) {
    const int k = p && p->species > 1 ? (int)p->species : 1;
    if (s < 0 || s >= k || s >= BOIDS_MAX_SPECIES) return 0;
    size_t end = 0, others = 0; /* species q >= 1 holds the ids [end before it, end) */
    for (int q = 1; q < k && q < BOIDS_MAX_SPECIES; q++) {
        const size_t from = end < n ? end : n,
                     c = p->sp[q - 1].count > 0 ? (size_t)p->sp[q - 1].count : 0;
        end = from + (c < n - from ? c : n - from);
        if (q == s) return end - from;
        others += end - from;
    }
    return n - others;
}

void boids_order_species(const boids_flock *f, const boids_params *p, double *out) {
    if (!out) return;
    const int k = p && p->species > 1 ? (int)p->species : 1;
    double u[BOIDS_MAX_SPECIES][3] = {{0}};
    const int ok = f && !boids_flock_bad_arrays(f); /* else every species' order is 0 */
    if (ok) boids_order_species_add(f, p, 0, u);
    for (int s = 0; s < k && s < BOIDS_MAX_SPECIES; s++)
        out[s] = ok ? boids_order_of(u[s], boids_flock_dim(f), boids_species_count(p, f->n, s)) : 0;
}

double boids_order_of(const double u[3], int dim, size_t n) {
    double u2 = 0;
    for (int a = 0; a < dim; a++) u2 += u[a] * u[a];
    return n ? sqrt(u2) / (double)n : 0.0;
}

double boids_order(const boids_flock *f) {
    if (boids_flock_bad_arrays(f)) return 0.0;
    double u[3] = {0, 0, 0};
    boids_order_add(f, u);
    return boids_order_of(u, boids_flock_dim(f), f->n);
}

uint64_t boids_flock_hash_array(const boids_flock *f, int a, uint64_t h) {
    const double *arrays[6] = {f->x, f->y, f->vx, f->vy, f->z, f->vz};
    const unsigned char *bytes = (const unsigned char *)arrays[a];
    for (size_t i = 0; i < f->n * sizeof(double); i++) {
        h ^= bytes[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

uint64_t boids_flock_hash(const boids_flock *f) {
    uint64_t h = BOIDS_HASH_START;
    if (boids_flock_bad_arrays(f) || !f->x) return h; /* the hash of no bytes */
    for (int a = 0; a < (f->z ? 6 : 4); a++) h = boids_flock_hash_array(f, a, h);
    return h;
}
