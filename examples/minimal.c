/* SPDX-License-Identifier: MIT */
/* The smallest use of the library: a preset, a flock, a backend, steps, observables. */
#include <stdio.h>

#include <boids/boids.h>

int main(void) {
    boids_error err = {BOIDS_OK, ""};
    boids_params p = boids_params_default();
    boids_flock f;
    if (boids_preset_apply(&p, "classic", &err) || boids_flock_alloc(&f, (size_t)p.count, &err)) {
        fprintf(stderr, "minimal: %s\n", err.msg);
        return 1;
    }
    boids_flock_randomize(&f, &p, 7); /* the seed program's seed 7 */
    boids_backend *b = boids_cpu_ref_create(&f, &err);
    printf("boids %s, backend %s, N %zu\nstep,order,milling,clusters\n", boids_version(),
           boids_backend_name(b), boids_backend_n(b));
    boids_metrics m;
    for (int step = 0; b && step <= 300; step += 60) {
        if ((step && boids_backend_step(b, &p, 60, &err)) || boids_backend_download(b, &f, &err) ||
            boids_metrics_compute(&f, &p, &m, &err))
            break;
        printf("%d,%.2f,%.2f,%.0f\n", step, m.order, m.milling, m.clusters);
    }
    int failed = !b || err.status != BOIDS_OK;
    if (failed) fprintf(stderr, "minimal: %s\n", err.msg);
    boids_backend_destroy(b);
    boids_flock_free(&f);
    return failed;
}
