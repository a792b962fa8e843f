/* SPDX-License-Identifier: MIT */
/* BOIDS_ASSERT: the library's check for programmer mistakes that have no error return,
 * such as a CPU backend passed to a GPU getter (see boids_set_assert_handler in
 * boids/error.h).
 *
 * On in debug builds (no NDEBUG) and wherever BOIDS_ENABLE_ASSERT is defined; compiled
 * out otherwise. The code after an assertion must still be safe without it: the function
 * returns a neutral value (0, NULL) instead of touching memory it does not own, so an
 * optimised build degrades to a quiet wrong answer, never to a crash. */
#ifndef BOIDS_CHECK_H
#define BOIDS_CHECK_H

#include <math.h>

#include "boids/error.h"
#include "boids/flock.h"

/* For a library function that is not public: hidden from the shared libraries even where a
 * public header (whose declarations are exported, boids/api.h) declares it again later. */
#if defined(__GNUC__)
#define BOIDS_HIDDEN __attribute__((visibility("hidden")))
#else
#define BOIDS_HIDDEN
#endif

/* Calls the handler set with boids_set_assert_handler. Exported (default visibility) although
 * not in a public header, because the GPU library calls it across the shared-library
 * boundary. */
#if defined(__GNUC__)
__attribute__((visibility("default")))
#endif
void boids_assert_fail(const char *condition, const char *file, int line);

/* What is wrong with a flock an entry point is about to read: NULL, or an array of its
 * dimension missing (x, y, vx, vy, and z with vz or neither); NULL when nothing is. */
static inline const char *boids_flock_bad_arrays(const struct boids_flock *f) {
    if (!f) return "the flock is NULL";
    if (f->n && (!f->x || !f->y || !f->vx || !f->vy || !f->z != !f->vz))
        return "the flock's arrays are not allocated";
    return NULL;
}

/* The first boid of f (arrays complete) with a value that is not finite, or f->n. */
static inline size_t boids_flock_first_not_finite(const struct boids_flock *f) {
    for (size_t i = 0; i < f->n; i++)
        if (!isfinite(f->x[i]) || !isfinite(f->y[i]) || !isfinite(f->vx[i]) ||
            !isfinite(f->vy[i]) || (f->z && (!isfinite(f->z[i]) || !isfinite(f->vz[i]))))
            return i;
    return f->n;
}

/* boids_boid_check of a boid of dim axes (v: the dim coordinates, then the dim velocity
 * components; p and v not NULL) whose place in the message is the printf format fmt with its
 * arguments, formatted only when the boid fails: every boid of a loaded state passes here,
 * and formatting its place cost more than checking it. */
#if defined(__GNUC__)
__attribute__((format(printf, 6, 7)))
#endif
BOIDS_HIDDEN boids_status
boids_boid_check_at(const struct boids_params *p, int dim, const double *v, int speeds,
                    boids_error *err, const char *fmt, ...);

#if !defined(NDEBUG) || defined(BOIDS_ENABLE_ASSERT)
#define BOIDS_ASSERT(c) ((c) ? (void)0 : boids_assert_fail(#c, __FILE__, __LINE__))
#else
#define BOIDS_ASSERT(c) ((void)0)
#endif

#endif
