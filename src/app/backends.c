#include <stdio.h>
#include <string.h>

#include "boids/gpu.h"
#include "cli.h"

/* Model features that only cpu-ref and cpu implement so far: refused by name rather than
 * silently simulated as something else. */
static boids_status check_supported(const char *backend, const boids_params *p, boids_error *err) {
    const char *what = p->model == BOIDS_MODEL_VICSEK                  ? "model = vicsek"
                       : p->neighbours == BOIDS_NEIGHBOURS_TOPOLOGICAL ? "neighbours = topological"
                       : p->boundary == BOIDS_BOUNDARY_OPEN            ? "boundary = open"
                                                                       : NULL;
    if (what)
        return boids_error_set(err, BOIDS_ERR_INPUT,
                               "--backend %s does not implement %s; use --backend cpu-ref", backend,
                               what);
    return BOIDS_OK;
}

boids_backend *app_backend_create(const app_opts *o, const boids_params *p, const boids_flock *f,
                                  boids_error *err) {
    if (strcmp(o->backend, "cpu-ref") != 0 && strcmp(o->backend, "cpu") != 0 &&
        check_supported(o->backend, p, err))
        return NULL;
    if (strcmp(o->backend, "cpu-ref") == 0) return boids_cpu_ref_create(f, err);
    if (strcmp(o->backend, "cpu") == 0) return boids_cpu_create(f, o->threads, err);
    if (strcmp(o->backend, "gpu") == 0) {
        boids_gl *gl = boids_gl_create(0, err);
        if (!gl) return NULL;
        if (o->verbose)
            fprintf(stderr, "boids: GL renderer: %s; version %s; EGL platform %s\n",
                    boids_gl_renderer(gl), boids_gl_version(gl), boids_gl_platform(gl));
        boids_gpu_options opt = boids_gpu_options_default();
        if (o->deterministic >= 0) opt.deterministic = o->deterministic;
        return boids_gpu_create(gl, f, &opt, err);
    }
    boids_error_set(err, BOIDS_ERR_INPUT, "--backend: unknown backend '%s'", o->backend);
    return NULL;
}
