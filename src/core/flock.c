/* SPDX-License-Identifier: MIT */
#include "boids/flock.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "boids/rng.h"
#include "check.h"

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
    /* No error channel: nothing to fill, or arrays missing, leaves the flock as it is. */
    if (!p || boids_flock_bad_arrays(f) || !f->x) return;
    boids_rng r;
    boids_rng_seed(&r, seed);
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
    if (p->model == BOIDS_MODEL_VICSEK &&
        !(fabs(speed - p->speed) <= p->speed * BOIDS_SPEED_TOLERANCE))
        return boids_error_set(
            err, BOIDS_ERR_INPUT,
            "%s: speed %.17g is not the Vicsek speed = %.17g (every agent moves at it; "
            "relative tolerance %g)",
            where, speed, p->speed, BOIDS_SPEED_TOLERANCE);
    if (p->model == BOIDS_MODEL_REYNOLDS && !(speed <= p->max_speed * (1 + BOIDS_SPEED_TOLERANCE)))
        return boids_error_set(err, BOIDS_ERR_INPUT,
                               "%s: speed %.17g is above max_speed = %.17g (relative tolerance %g)",
                               where, speed, p->max_speed, BOIDS_SPEED_TOLERANCE);
    return BOIDS_OK;
}

boids_status boids_boid_check(const boids_params *p, const double v[4], int speeds,
                              const char *where, boids_error *err) {
    static const char *names[4] = {"x", "y", "vx", "vy"};
    if (!where) where = "boids_boid_check";
    if (!p || !v)
        return boids_error_set(err, BOIDS_ERR_INPUT, "%s: %s NULL", where,
                               !p ? "the parameters are" : "the boid's values are");
    for (int c = 0; c < 4; c++)
        if (!isfinite(v[c]))
            return boids_error_set(err, BOIDS_ERR_INPUT, "%s: %s is not finite", where, names[c]);
    if (p->boundary != BOIDS_BOUNDARY_OPEN &&
        (v[0] < 0 || v[0] > p->width || v[1] < 0 || v[1] > p->height))
        return boids_error_set(err, BOIDS_ERR_INPUT,
                               "%s: position (%.17g, %.17g) is outside the %g x %g world", where,
                               v[0], v[1], p->width, p->height);
    if (p->boundary == BOIDS_BOUNDARY_OPEN &&
        !(fabs(v[0]) <= BOIDS_OPEN_COORD_MAX && fabs(v[1]) <= BOIDS_OPEN_COORD_MAX))
        return boids_error_set(err, BOIDS_ERR_INPUT,
                               "%s: position (%.17g, %.17g) is beyond +-%g, the open plane's bound",
                               where, v[0], v[1], BOIDS_OPEN_COORD_MAX);
    if (!speeds) return BOIDS_OK;
    return speed_check(p, sqrt(v[2] * v[2] + v[3] * v[3]), where, err);
}

boids_status boids_boid_check3(const boids_params *p, const double v[6], int speeds,
                               const char *where, boids_error *err) {
    static const char *names[6] = {"x", "y", "z", "vx", "vy", "vz"};
    if (!where) where = "boids_boid_check3";
    if (!p || !v)
        return boids_error_set(err, BOIDS_ERR_INPUT, "%s: %s NULL", where,
                               !p ? "the parameters are" : "the boid's values are");
    for (int c = 0; c < 6; c++)
        if (!isfinite(v[c]))
            return boids_error_set(err, BOIDS_ERR_INPUT, "%s: %s is not finite", where, names[c]);
    if (p->boundary != BOIDS_BOUNDARY_OPEN && (v[0] < 0 || v[0] > p->width || v[1] < 0 ||
                                               v[1] > p->height || v[2] < 0 || v[2] > p->depth))
        return boids_error_set(err, BOIDS_ERR_INPUT,
                               "%s: position (%.17g, %.17g, %.17g) is outside the %g x %g x %g "
                               "world",
                               where, v[0], v[1], v[2], p->width, p->height, p->depth);
    if (p->boundary == BOIDS_BOUNDARY_OPEN &&
        !(fabs(v[0]) <= BOIDS_OPEN_COORD_MAX && fabs(v[1]) <= BOIDS_OPEN_COORD_MAX &&
          fabs(v[2]) <= BOIDS_OPEN_COORD_MAX))
        return boids_error_set(err, BOIDS_ERR_INPUT,
                               "%s: position (%.17g, %.17g, %.17g) is beyond +-%g, the open "
                               "boundary's bound",
                               where, v[0], v[1], v[2], BOIDS_OPEN_COORD_MAX);
    if (!speeds) return BOIDS_OK;
    return speed_check(p, sqrt(v[3] * v[3] + v[4] * v[4] + v[5] * v[5]), where, err);
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
        char where[200];
        snprintf(where, sizeof where, "%.160s: boid %zu", origin, i);
        boids_status s;
        if (f->z) {
            double v[6] = {f->x[i], f->y[i], f->z[i], f->vx[i], f->vy[i], f->vz[i]};
            s = boids_boid_check3(p, v, 0, where, err);
        } else {
            double v[4] = {f->x[i], f->y[i], f->vx[i], f->vy[i]};
            s = boids_boid_check(p, v, 0, where, err);
        }
        if (s) return s;
    }
    return BOIDS_OK;
}

/* boids_order of a 3-D flock: the same operations with the z component last. */
static double order3(const boids_flock *f) {
    double ux = 0, uy = 0, uz = 0;
    for (size_t i = 0; i < f->n; i++) {
        double v = sqrt(f->vx[i] * f->vx[i] + f->vy[i] * f->vy[i] + f->vz[i] * f->vz[i]);
        if (v == 0) continue;
        ux += f->vx[i] / v;
        uy += f->vy[i] / v;
        uz += f->vz[i] / v;
    }
    return f->n ? sqrt(ux * ux + uy * uy + uz * uz) / (double)f->n : 0.0;
}

double boids_order(const boids_flock *f) {
    if (boids_flock_bad_arrays(f)) return 0.0;
    if (f->z) return order3(f);
    double ux = 0, uy = 0;
    for (size_t i = 0; i < f->n; i++) {
        double v = sqrt(f->vx[i] * f->vx[i] + f->vy[i] * f->vy[i]);
        if (v == 0) continue;
        ux += f->vx[i] / v;
        uy += f->vy[i] / v;
    }
    return f->n ? sqrt(ux * ux + uy * uy) / (double)f->n : 0.0;
}

uint64_t boids_flock_hash(const boids_flock *f) {
    uint64_t h = 0xcbf29ce484222325ull;
    if (boids_flock_bad_arrays(f) || !f->x) return h; /* the hash of no bytes */
    const double *arrays[6] = {f->x, f->y, f->vx, f->vy, f->z, f->vz};
    for (int a = 0; a < (f->z ? 6 : 4); a++) {
        const unsigned char *bytes = (const unsigned char *)arrays[a];
        for (size_t i = 0; i < f->n * sizeof(double); i++) {
            h ^= bytes[i];
            h *= 0x100000001b3ull;
        }
    }
    return h;
}
