/* boids sim: headless simulation with metrics on stdout and an optional final state. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "boids/atomic_file.h"
#include "boids/metrics.h"
#include "boids/state_io.h"
#include "cli.h"
#include "commands.h"

static const app_command sim_command = {
    .prog = "boids sim",
    .synopsis =
        "usage: boids sim [OPTIONS]\n"
        "Runs the simulation without a window. Prints CSV metrics on stdout: a header line, then\n"
        "one line every --every steps (step 0 included) with the columns\n"
        "  step,order,milling,nn_distance,neighbours,clusters,largest_cluster\n"
        "(see README, Observables). --order-only prints step,order alone, for huge flocks.\n"
        "\n",
    .notes = "-n changes N only: the world keeps its size (set width and height to keep a "
             "density).\n",
    .shared = APP_ALL,
    .backend = "cpu-ref",
    .deterministic = 1};

static boids_status print_metrics(unsigned long step, const boids_flock *f, const boids_params *p,
                                  int order_only, boids_error *err) {
    if (order_only) {
        printf("%lu,%.17g\n", step, boids_order(f));
        return BOIDS_OK;
    }
    boids_metrics m;
    char line[512];
    boids_status s = boids_metrics_compute(f, p, &m, err);
    if (s) return s;
    boids_metrics_format(&m, line, sizeof line);
    printf("%lu,%s\n", step, line);
    return BOIDS_OK;
}

int boids_cmd_sim(int argc, char **argv) {
    long steps = 1000, every = 0;
    const char *save = NULL;
    int order_only = 0;
    const app_option own[] = {
        {APP_LONG, "steps", 0, "K", &steps, 0, 2000000000L,
         .help = "number of steps (default 1000)"},
        {APP_LONG, "every", 0, "K", &every, 1, 2000000000L,
         .help = "metrics every K steps (default: step 0 and the last step only)"},
        {APP_TEXT, "save", 0, "FILE", &save,
         .help = "write the final state (x,y,vx,vy in id order, %.17g)"},
        {APP_FLAG, "order-only", 0, NULL, &order_only, 1,
         .help = "metrics: the order parameter only"},
    };
    app_opts o;
    int rc = app_parse(&sim_command, own, APP_COUNT(own), &o, argc, argv);
    if (rc != APP_RUN) return rc;
    boids_error err;
    boids_params p;
    if (app_params(&o, &p, &err)) return app_fail(&err);
    if (save && boids_atomic_check_writable(save, &err)) return app_fail(&err);
    boids_flock f;
    if (app_initial_flock(&o, &p, &f, &err)) return app_fail(&err);
    boids_backend *b = app_backend_create(&o, &p, &f, &err);
    if (!b) {
        boids_flock_free(&f);
        return app_fail(&err);
    }

    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    printf("step,%s\n", order_only ? "order" : boids_metrics_columns);
    long done = 0;
    boids_status s = print_metrics(0, &f, &p, order_only, &err);
    while (!s && done < steps) {
        long next = every ? (done / every + 1) * every : steps;
        if (next > steps) next = steps;
        if ((s = boids_backend_step(b, &p, (unsigned)(next - done), &err))) break;
        done = next;
        if (every ? done % every == 0 : done == steps) {
            if ((s = boids_backend_download(b, &f, &err))) break;
            if ((s = print_metrics((unsigned long)done, &f, &p, order_only, &err))) break;
        }
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    if (!s && o.verbose) {
        double sec = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
        fprintf(stderr, "boids sim: %ld steps of %zu boids on %s in %.3f s (%.3f ms/step)\n", steps,
                f.n, boids_backend_name(b), sec, steps ? 1e3 * sec / (double)steps : 0.0);
    }
    if (!s && save) {
        if (!(s = boids_backend_download(b, &f, &err))) s = boids_state_save(save, &f, &err);
    }
    if (fflush(stdout) != 0 && !s)
        s = boids_error_set(&err, BOIDS_ERR_RUNTIME, "writing to stdout failed");
    boids_backend_destroy(b);
    boids_flock_free(&f);
    return s ? app_fail(&err) : 0;
}
