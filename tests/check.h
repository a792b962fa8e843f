/* SPDX-License-Identifier: MIT */
/* Two tiny assertion macros for the C tests: a failed check prints where and what, and
 * the test's exit code counts failures. */
#ifndef BOIDS_TEST_CHECK_H
#define BOIDS_TEST_CHECK_H

#include <math.h>
#include <stdio.h>

static int check_failures = 0;

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            check_failures++;                                                                      \
            fprintf(stderr, "%s:%d: FAIL %s: ", __FILE__, __LINE__, #cond);                        \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fputc('\n', stderr);                                                                   \
        }                                                                                          \
    } while (0)

/* |a - b| <= tol, with the reason for tol stated in the message arguments. */
#define CHECK_NEAR(a, b, tol, ...)                                                                 \
    do {                                                                                           \
        double a_ = (double)(a), b_ = (double)(b), t_ = (double)(tol);                             \
        if (!(fabs(a_ - b_) <= t_)) {                                                              \
            check_failures++;                                                                      \
            fprintf(stderr, "%s:%d: FAIL %s ~ %s: %.17g vs %.17g (tol %.3g): ", __FILE__,          \
                    __LINE__, #a, #b, a_, b_, t_);                                                 \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fputc('\n', stderr);                                                                   \
        }                                                                                          \
    } while (0)

#define CHECK_DONE(name)                                                                           \
    (check_failures ? (fprintf(stderr, "%s: %d check(s) failed\n", name, check_failures), 1)       \
                    : (printf("%s: all checks passed\n", name), 0))

#endif
