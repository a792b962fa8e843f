/* SPDX-License-Identifier: MIT */
/* cpu: the backend's entry points and test hooks, one for both dimensions, compiled with the
 * plane's instance of the grid path (cpu_grid_parts.h, after cpu_grid.c). */
#if D == 2
/* ---- the entry points, one for both dimensions (compiled with the plane's instance) ---- */

/* The box's instance (cpu_grid_f3.c). */
boids_backend *cpu_grid_create_f3(const boids_flock *initial, int threads, boids_error *err);
int cpu_grid_is_f3(const boids_backend *b);

boids_backend *cpu_grid_backend_create(const boids_flock *initial, int threads, boids_error *err) {
    return initial->z ? cpu_grid_create_f3(initial, threads, err)
                      : cpu_grid_create_f2(initial, threads, err);
}

/* The hooks of a `cpu` backend of either dimension; NULL for any other. */
static cpu_grid_hooks *hooks_of(const boids_backend *b) {
    return cpu_grid_is_f2(b) || cpu_grid_is_f3(b) ? (cpu_grid_hooks *)(void *)b : NULL;
}

const char *boids_cpu_kernel_name(const boids_backend *b) {
    const cpu_grid_hooks *h = hooks_of(b);
    if (!h) return NULL;
    if (!BOIDS_AVX2 || !h->have_avx2 || h->force_scalar) return "scalar";
    return h->have_avx512 && !h->force_avx2 ? "avx512" : "avx2";
}

int boids_cpu_fixed_threads(boids_backend *b, int on) {
    cpu_grid_hooks *h = hooks_of(b);
    if (!h) return -1;
    h->fixed_threads = on != 0;
    return 0;
}

int boids_cpu_skew_split(boids_backend *b, int on) {
    cpu_grid_hooks *h = hooks_of(b);
    if (!h) return -1;
    h->skew_split = on != 0;
    return 0;
}

int boids_cpu_force_scalar(boids_backend *b, int on) {
    cpu_grid_hooks *h = hooks_of(b);
    if (!h) return -1;
    h->force_scalar = on != 0;
    return 0;
}

int boids_cpu_force_avx2(boids_backend *b, int on) {
    cpu_grid_hooks *h = hooks_of(b);
    if (!h) return -1;
    h->force_avx2 = on != 0;
    return 0;
}
#endif
