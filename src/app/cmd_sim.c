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

static const char usage[] =
    "usage: boids sim [OPTIONS]\n"
    "Runs the simulation without a window. Prints CSV metrics on stdout: a header line, then\n"
    "one line every --every steps (step 0 included) with the columns\n"
    "  step,order,milling,nn_distance,neighbours,clusters,largest_cluster\n"
    "(see README, Observables). --order-only prints step,order alone, for huge flocks.\n"
    "\n"
    "  --steps K          number of steps (default 1000)\n"
    "  --every K          metrics every K steps (default: step 0 and the last step only)\n"
    "  --save FILE        write the final state (x,y,vx,vy in id order, %.17g)\n"
    "  --order-only       metrics: the order parameter only\n"
    "  -h, --help         this text\n"
    "-n changes N only: the world keeps its size (set width and height to keep a density).\n";

enum { OPT_STEPS = OPT_FIRST_FREE, OPT_EVERY, OPT_SAVE, OPT_ORDER_ONLY };

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
    static const struct option longopts[] = {APP_COMMON_LONGOPTS,
                                             {"steps", required_argument, NULL, OPT_STEPS},
                                             {"every", required_argument, NULL, OPT_EVERY},
                                             {"save", required_argument, NULL, OPT_SAVE},
                                             {"order-only", no_argument, NULL, OPT_ORDER_ONLY},
                                             {"help", no_argument, NULL, 'h'},
                                             {0, 0, 0, 0}};
    app_opts o;
    app_opts_init(&o);
    long steps = 1000, every = 0;
    const char *save = NULL;
    int order_only = 0;
    boids_error err;
    boids_error_clear(&err);
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":" APP_COMMON_SHORTOPTS "h", longopts, NULL)) != -1) {
        int r = app_opts_parse(&o, c, optarg, &err);
        if (r < 0) return app_fail(&err);
        if (r) continue;
        switch (c) {
        case OPT_STEPS:
            if (app_parse_long("--steps", optarg, 0, 2000000000L, &steps, &err))
                return app_fail(&err);
            break;
        case OPT_EVERY:
            if (app_parse_long("--every", optarg, 1, 2000000000L, &every, &err))
                return app_fail(&err);
            break;
        case OPT_SAVE:
            save = optarg;
            break;
        case OPT_ORDER_ONLY:
            order_only = 1;
            break;
        case 'h':
            fputs(usage, stdout), fputs(app_common_help, stdout);
            return 0;
        case ':':
        default:
            return app_option_error("sim", c, argv);
        }
    }
    if (app_no_operands("sim", argc, argv)) return 2;

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
                f.n, b->ops->name, sec, steps ? 1e3 * sec / (double)steps : 0.0);
    }
    /* stdout first: a run whose metrics were lost leaves no state file either. */
    if (!s && (fflush(stdout) != 0 || ferror(stdout)))
        s = boids_error_set(&err, BOIDS_ERR_RUNTIME, "writing to stdout failed");
    if (!s && save) {
        if (!(s = boids_backend_download(b, &f, &err))) s = boids_state_save(save, &f, &err);
    }
    boids_backend_destroy(b);
    boids_flock_free(&f);
    return s ? app_fail(&err) : 0;
}
