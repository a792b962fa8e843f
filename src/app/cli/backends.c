/* SPDX-License-Identifier: MIT */
#if defined(__linux__) && !defined(_GNU_SOURCE)
#define _GNU_SOURCE /* sched_getaffinity */
#endif
#ifdef __linux__
#include <sched.h>
#endif
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "boids/gpu.h"
#include "cli/cli.h"

static char renderer[256]; /* of the latest gpu backend; empty: none made */

const char *app_backend_renderer(void) {
    return renderer[0] ? renderer : NULL;
}

long app_usable_cores(void) {
#ifdef __linux__
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0) return CPU_COUNT(&set);
#endif
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? n : 1;
}

static boids_backend *create(const app_opts *o, const boids_params *p, const boids_flock *f,
                             boids_error *err) {
    if (strcmp(o->backend, "cpu-ref") == 0) return boids_cpu_ref_create(f, err);
    if (strcmp(o->backend, "cpu") == 0) return boids_cpu_create(f, o->threads, err);
    if (strcmp(o->backend, "gpu") == 0) {
        if (boids_gpu_check_params(p, err)) return NULL;
#ifdef NDEBUG
        const int debug = o->verbose > 1; /* -vv */
#else
        const int debug = 1; /* debug builds: KHR_debug output on, any GL error fails the run */
#endif
        boids_gl *gl = boids_gl_create(debug, err);
        if (!gl) return NULL;
        snprintf(renderer, sizeof renderer, "%s", boids_gl_renderer(gl));
        if (o->verbose)
            fprintf(stderr, "boids: GL renderer: %s; version %s; EGL platform %s\n",
                    boids_gl_renderer(gl), boids_gl_version(gl), boids_gl_platform(gl));
        boids_gpu_options opt = boids_gpu_options_default();
        if (o->deterministic >= 0) opt.deterministic = o->deterministic;
        if (o->gpu_variant >= 0) opt.variant = (boids_gpu_variant)o->gpu_variant;
        if (debug) {
            opt.check = 1;
            opt.log = boids_gl_debug_log(gl);
        }
        return boids_gpu_create(gl, f, &opt, err);
    }
    boids_error_set(err, BOIDS_ERR_INPUT, "--backend: unknown backend '%s'", o->backend);
    return NULL;
}

boids_backend *app_backend_create(const app_opts *o, const boids_params *p, const boids_flock *f,
                                  boids_error *err) {
    boids_backend *b = create(o, p, f, err);
    if (b && o->inter && boids_backend_set_interact(b, o->inter, err)) {
        boids_backend_destroy(b);
        return NULL;
    }
    return b;
}
