/* SPDX-License-Identifier: MIT */
/* Links against an installed boids: prints the library's version and runs a few steps of
 * the classic flock on the cpu backend (and, built as consumer_gpu, checks that the GPU
 * library links: its headless context may still be missing at run time). */
#include <stdio.h>
#include <string.h>

#include <boids/boids.h>

int main(void) {
    boids_error err = {BOIDS_OK, ""};
    boids_params p = boids_params_default();
    boids_flock f;
    if (strcmp(boids_version(), BOIDS_VERSION_STRING) != 0) {
        fprintf(stderr, "consumer: headers %s, library %s\n", BOIDS_VERSION_STRING,
                boids_version());
        return 1;
    }
    if (boids_preset_apply(&p, "classic", &err) || boids_flock_alloc(&f, 80, &err)) return 1;
    boids_flock_randomize(&f, &p, 7);
    boids_backend *b = boids_cpu_create(&f, 1, &err);
    if (!b || boids_backend_step(b, &p, 100, &err) || boids_backend_download(b, &f, &err)) {
        fprintf(stderr, "consumer: %s\n", err.msg);
        return 1;
    }
    printf("consumer: boids %s, order after 100 steps %.3f\n", boids_version(), boids_order(&f));
#ifdef CONSUMER_GPU
    boids_gpu_options opt = boids_gpu_options_default();
    printf("consumer: GPU library linked, deterministic by default: %d\n", opt.deterministic);
#endif
    boids_backend_destroy(b);
    boids_flock_free(&f);
    return 0;
}
