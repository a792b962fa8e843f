#include <string.h>

#include "cli.h"

boids_backend *app_backend_create(const app_opts *o, const boids_params *p, const boids_flock *f,
                                  boids_error *err) {
    (void)p;
    if (strcmp(o->backend, "cpu-ref") == 0) return boids_cpu_ref_create(f, err);
    if (strcmp(o->backend, "cpu") == 0) return boids_cpu_create(f, o->threads, err);
    boids_error_set(err, BOIDS_ERR_INPUT, "--backend: unknown backend '%s'", o->backend);
    return NULL;
}
