/* SPDX-License-Identifier: MIT */
#include "boids/flock.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "boids/rng.h"

boids_status boids_flock_alloc(boids_flock *f, size_t n, boids_error *err) {
    if (!f) return boids_error_set(err, BOIDS_ERR_INPUT, "boids_flock_alloc: the flock is NULL");
    memset(f, 0, sizeof *f);
    if (n == 0) return boids_error_set(err, BOIDS_ERR_INPUT, "a flock needs at least one boid");
    if (n > SIZE_MAX / (4 * sizeof(double)))
        return boids_error_set(err, BOIDS_ERR_LIMIT, "%zu boids do not fit in memory", n);
    double *block = calloc(4 * n, sizeof(double));
    if (!block)
        return boids_error_set(err, BOIDS_ERR_LIMIT,
                               "%zu boids need %zu MiB of memory for their state, which this "
                               "machine could not allocate",
                               n, 4 * n * sizeof(double) >> 20);
    f->n = n;
    f->x = block;
    f->y = block + n;
    f->vx = block + 2 * n;
    f->vy = block + 3 * n;
    return BOIDS_OK;
}

void boids_flock_free(boids_flock *f) {
    if (f) {
        free(f->x);
        memset(f, 0, sizeof *f);
    }
}

boids_status boids_flock_copy(boids_flock *dst, const boids_flock *src, boids_error *err) {
    if (!dst || !src || (src->n && !src->x))
        return boids_error_set(err, BOIDS_ERR_INPUT, "boids_flock_copy: %s",
                               !dst   ? "the destination is NULL"
                               : !src ? "the source is NULL"
                                      : "the source's arrays are not allocated");
    boids_status s = boids_flock_alloc(dst, src->n, err);
    if (s) return s;
    memcpy(dst->x, src->x, 4 * src->n * sizeof(double));
    dst->step = src->step;
    return BOIDS_OK;
}

void boids_flock_randomize(boids_flock *f, const boids_params *p, uint64_t seed) {
    if (!f || !p) return; /* no error channel; nothing to fill */
    boids_rng r;
    boids_rng_seed(&r, seed);
    for (size_t i = 0; i < f->n; i++) {
        double a = boids_rng_uniform(&r, 0, 2 * M_PI);
        f->x[i] = boids_rng_uniform(&r, 0, p->width);
        f->y[i] = boids_rng_uniform(&r, 0, p->height);
        f->vx[i] = p->initial_speed * cos(a);
        f->vy[i] = p->initial_speed * sin(a);
    }
}

boids_status boids_boid_check(const boids_params *p, const double v[4], int speeds,
                              const char *where, boids_error *err) {
    static const char *names[4] = {"x", "y", "vx", "vy"};
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
    double speed = sqrt(v[2] * v[2] + v[3] * v[3]);
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

boids_status boids_flock_check(const boids_flock *f, const boids_params *p, const char *origin,
                               boids_error *err) {
    if (!f || !p || (f->n && !f->x))
        return boids_error_set(err, BOIDS_ERR_INPUT, "boids_flock_check: %s",
                               !f   ? "the flock is NULL"
                               : !p ? "the parameters are NULL"
                                    : "the flock's arrays are not allocated");
    if (!origin) origin = "flock";
    for (size_t i = 0; i < f->n; i++) {
        double v[4] = {f->x[i], f->y[i], f->vx[i], f->vy[i]};
        char where[200];
        snprintf(where, sizeof where, "%.160s: boid %zu", origin, i);
        boids_status s = boids_boid_check(p, v, 0, where, err);
        if (s) return s;
    }
    return BOIDS_OK;
}

double boids_order(const boids_flock *f) {
    if (!f) return 0.0;
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
    if (!f || !f->x) return h; /* the hash of no bytes */
    const double *arrays[4] = {f->x, f->y, f->vx, f->vy};
    for (int a = 0; a < 4; a++) {
        const unsigned char *bytes = (const unsigned char *)arrays[a];
        for (size_t i = 0; i < f->n * sizeof(double); i++) {
            h ^= bytes[i];
            h *= 0x100000001b3ull;
        }
    }
    return h;
}
