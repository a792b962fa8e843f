/* SPDX-License-Identifier: MIT */
/* What every public header of the library shares.
 *
 * BOIDS_BEGIN_DECLS / BOIDS_END_DECLS bracket a header's declarations: C linkage for C++
 * callers, and default symbol visibility. The libraries are compiled with
 * -fvisibility=hidden, so exactly the functions declared between these brackets are
 * exported from the shared libraries; everything else, the private GL loader included,
 * stays inside (`nm -D --defined-only` lists only boids_ names). */
#ifndef BOIDS_API_H
#define BOIDS_API_H

#if defined(__GNUC__) || defined(__clang__)
#define BOIDS_VISIBILITY_PUSH_ _Pragma("GCC visibility push(default)")
#define BOIDS_VISIBILITY_POP_  _Pragma("GCC visibility pop")
#else
#define BOIDS_VISIBILITY_PUSH_
#define BOIDS_VISIBILITY_POP_
#endif

#ifdef __cplusplus
#define BOIDS_BEGIN_DECLS                                                                          \
    extern "C" {                                                                                   \
    BOIDS_VISIBILITY_PUSH_
#define BOIDS_END_DECLS                                                                            \
    BOIDS_VISIBILITY_POP_                                                                          \
    }
#else
#define BOIDS_BEGIN_DECLS BOIDS_VISIBILITY_PUSH_
#define BOIDS_END_DECLS   BOIDS_VISIBILITY_POP_
#endif

#endif
