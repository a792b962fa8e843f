/* SPDX-License-Identifier: MIT */
/* The grid CPU path (`cpu`) on seed 003's model keys: model = vicsek, neighbours =
 * topological, boundary = open.
 *
 * Properties:
 *  - neighbour sets (counts and set hashes) equal a brute force in float exactly: both
 *    apply the same float tests to the same float positions and select the k nearest by
 *    (float dist2, id), so they can only differ if the grid misses a candidate or stops its
 *    ring search too early. Lattices make many distances tie (and some equal R exactly,
 *    which Vicsek's dist2 <= R^2 must accept), so ties by id are exercised;
 *  - one step agrees with cpu-ref (double) within bounds derived from float precision
 *    (stated where they are computed), for Vicsek and for topological Reynolds;
 *  - 1 to 4 threads, and the scalar and SIMD Vicsek kernels, give the same bits;
 *  - the seed's three-agent example (246.4) on the `cpu` backend. */
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "boids/backend.h"
#include "check.h"
#include "cpu_fixture.h"
#include "cpu_grid.h"
#include "seed003.h"

#define RULES_INSTANCE_DIM 2 /* rules.h in the plane, both precisions: _d2, _f2 */
#include "rules_instances.h"

/* The lab preset scaled to n boids at the same density. */
static boids_params lab(size_t n) {
    boids_params p = boids_params_default();
    double s = sqrt((double)n / 1500.0);
    p.width = 900 * s;
    p.height = 560 * s;
    p.count = (long)n;
    return p;
}

/* Random flock, rounded to float so that cpu-ref and cpu start from the same values. */
static void random_flock(scenario *s, size_t n, uint64_t seed) {
    boids_error err;
    if (boids_flock_alloc(&s->f, n, &err)) die("alloc", &err);
    boids_flock_randomize(&s->f, &s->p, seed);
    for (size_t i = 0; i < n; i++) {
        s->f.x[i] = (float)s->f.x[i];
        s->f.y[i] = (float)s->f.y[i];
        s->f.vx[i] = (float)s->f.vx[i];
        s->f.vy[i] = (float)s->f.vy[i];
    }
}

/* nx x ny agents on a lattice of spacing a from (x0, y0), headings from a fixed hash. */
static void lattice_flock(scenario *s, int nx, int ny, double a, double x0, double y0) {
    boids_error err;
    if (boids_flock_alloc(&s->f, (size_t)nx * (size_t)ny, &err)) die("alloc", &err);
    for (int j = 0; j < ny; j++)
        for (int i = 0; i < nx; i++) {
            size_t q = (size_t)j * (size_t)nx + (size_t)i;
            double ang = 2 * M_PI * boids_noise_u(99, 0, (uint32_t)q);
            s->f.x[q] = x0 + a * i;
            s->f.y[q] = y0 + a * j;
            s->f.vx[q] = (float)(s->p.initial_speed * cos(ang));
            s->f.vy[q] = (float)(s->p.initial_speed * sin(ang));
        }
}

/* ---- brute-force neighbour selection -------------------------------------------------- */

typedef struct pick {
    double dist2;
    size_t j;
} pick;

static int pick_cmp(const void *a, const void *b) {
    const pick *p = a, *q = b;
    if (p->dist2 != q->dist2) return p->dist2 < q->dist2 ? -1 : 1;
    return p->j < q->j ? -1 : p->j > q->j;
}

/* The neighbours of i (never i itself) by the definition in cpu-ref's gather(), evaluated
 * in float (dbl = 0: the grid's precision) or double (dbl = 1: cpu-ref's): every candidate,
 * then a full sort by (dist2, id) for topological. Returns the count; out holds the ids in
 * (dist2, id) order (topological) or index order (metric). */
static size_t brute_select(const scenario *s, int dbl, size_t i, pick *buf, size_t *out) {
    const boids_params *p = &s->p;
    const boids_flock *f = &s->f;
    const int vicsek = p->model == BOIDS_MODEL_VICSEK;
    const int topo = p->neighbours == BOIDS_NEIGHBOURS_TOPOLOGICAL;
    const int use_radius = !topo || p->k_in_vision;
    rules_k_f2 kf;
    rules_k_d2 kd;
    rules_k_init_f2(&kf, p);
    rules_k_init_d2(&kd, p);
    size_t m = 0;
    for (size_t j = 0; j < f->n; j++) {
        if (j == i) continue;
        double dist2;
        int in_r, in_fov;
        if (dbl) {
            const double pi[2] = {f->x[i], f->y[i]}, pj[2] = {f->x[j], f->y[j]};
            const double vi[2] = {f->vx[i], f->vy[i]};
            double d[2];
            rules_offset_d2(&kd, pi, pj, d);
            dist2 = d[0] * d[0] + d[1] * d[1];
            in_r = vicsek ? dist2 <= kd.vision2 : dist2 < kd.vision2;
            in_fov = vicsek || rules_in_fov_d2(&kd, d, dist2, vi);
        } else {
            const float pi[2] = {(float)f->x[i], (float)f->y[i]};
            const float pj[2] = {(float)f->x[j], (float)f->y[j]};
            const float vi[2] = {(float)f->vx[i], (float)f->vy[i]};
            float d[2];
            rules_offset_f2(&kf, pi, pj, d);
            float d2f = d[0] * d[0] + d[1] * d[1];
            dist2 = d2f;
            in_r = vicsek ? d2f <= kf.vision2 : d2f < kf.vision2;
            in_fov = vicsek || rules_in_fov_f2(&kf, d, d2f, vi);
        }
        if ((use_radius && !in_r) || !in_fov) continue;
        buf[m++] = (pick){dist2, j};
    }
    if (topo) {
        qsort(buf, m, sizeof *buf, pick_cmp);
        if (m > (size_t)p->k) m = (size_t)p->k;
    }
    for (size_t q = 0; q < m; q++) out[q] = buf[q].j;
    return m;
}

static uint64_t set_hash(const size_t *ids, size_t m) {
    uint64_t h = 0;
    for (size_t q = 0; q < m; q++) h += boids_neighbour_set_hash((uint32_t)ids[q]);
    return h;
}

/* Neighbour sets of the `cpu` backend against the float brute force, exactly. */
static void check_sets(const scenario *s) {
    const size_t n = s->f.n;
    boids_error err;
    boids_backend *b = make_cpu(&s->f, 3);
    uint32_t *count = malloc(n * sizeof *count);
    uint64_t *hash = malloc(n * sizeof *hash);
    pick *buf = malloc(n * sizeof *buf);
    size_t *ids = malloc(n * sizeof *ids);
    if (boids_backend_neighbours(b, &s->p, count, hash, &err)) die(s->name, &err);
    size_t bad = 0, first_bad = 0, total = 0;
    for (size_t i = 0; i < n; i++) {
        size_t m = brute_select(s, 0, i, buf, ids);
        total += m;
        if (count[i] != m || hash[i] != set_hash(ids, m)) {
            if (!bad) first_bad = i;
            bad++;
        }
    }
    CHECK(bad == 0, "%s: %zu of %zu neighbour sets differ from brute force (first: boid %zu)",
          s->name, bad, n, first_bad);
    printf("%-28s n=%-6zu sets equal brute force (mean %.2f neighbours)\n", s->name, n,
           (double)total / (double)n);
    free(count);
    free(hash);
    free(buf);
    free(ids);
    boids_backend_destroy(b);
}

/* ---- one step against cpu-ref -------------------------------------------------------- */

static double axis_gap(double a, double b, double side, int wrap) {
    double d = fabs(a - b);
    return wrap && d > side / 2 ? side - d : d;
}

/* Condition of a sum: sum of |terms| over |sum|. */
static double condition(double abs_sum, double sx, double sy) {
    double m = hypot(sx, sy);
    if (abs_sum == 0) return 0;
    return m > 0 ? abs_sum / m : INFINITY;
}

/* One step on cpu and on cpu-ref from the same (float-representable) state. Boids whose
 * neighbour set differs between float and double (a distance within rounding of R, or a
 * near-tie at the k-th place) follow different definitions and are skipped (counted).
 *
 * Bounds, per boid, from float precision (e = FLT_EPSILON):
 *  - Vicsek: each unit heading carries ~2 e of rounding and a float sum of n terms of size
 *    1 is off by at most (n - 1) e n from the exact one, whatever the order; the direction
 *    of the sum then turns by at most that over |sum|. Heading bound: 2 (n + 1) n e / |sum|
 *    plus 16 e (pi + eta) for atan2, the noise term and cos/sin in float. Position: the old
 *    velocity times dt, 4 e of the coordinate and of the displacement.
 *  - Reynolds: each of the three sums moves by at most (n + 1) e sum|terms| (float rounding
 *    of every term and of the summation), turning its steering target by that over |sum|;
 *    a capped steering force moves by at most max_speed times the angle, the weights add
 *    them up and the speed clamp at most triples them (the bound used against brute force
 *    in cpu_grid_test), twice over for two float paths, plus 16 e max_speed. */
/* Vicsek velocity of boid i after one step on cpu (a) against cpu-ref (r), over its md
 * neighbours idd: the error as a fraction of the float bound, its velocity bound in
 * *tol_v; a negative result when the heading sum is too near zero to have a direction. */
static double vicsek_ratio(const scenario *s, size_t i, const size_t *idd, size_t md,
                           const boids_flock *a, const boids_flock *r, double *tol_v) {
    const boids_flock *f = &s->f;
    const double e = FLT_EPSILON;
    double sum[2] = {0, 0};
    const double vi[2] = {f->vx[i], f->vy[i]};
    vicsek_add_d2(vi, sum);
    for (size_t q = 0; q < md; q++) {
        const double vj[2] = {f->vx[idd[q]], f->vy[idd[q]]};
        vicsek_add_d2(vj, sum);
    }
    const double sx = sum[0], sy = sum[1];
    double m = (double)md + 1;
    double tol_h = 2 * (m + 1) * m * e * condition(1, sx, sy) + 16 * e * (M_PI + s->p.noise);
    if (tol_h > 0.1) return -1;
    double dh = fabs(remainder(atan2(a->vy[i], a->vx[i]) - atan2(r->vy[i], r->vx[i]), 2 * M_PI));
    double dsp = fabs(hypot(a->vx[i], a->vy[i]) - s->p.speed);
    *tol_v = s->p.speed * (tol_h + 4 * e);
    return fmax(dh / tol_h, dsp / *tol_v);
}

/* Reynolds velocity of boid i, as vicsek_ratio: the bound from the three sums. */
static double reynolds_ratio(const scenario *s, const rules_k_d2 *k, size_t i, const size_t *idd,
                             size_t md, const boids_flock *a, const boids_flock *r, double *tol_v) {
    const boids_flock *f = &s->f;
    const double e = FLT_EPSILON;
    double ab[3] = {0, 0, 0}, sum[3][2] = {{0, 0}, {0, 0}, {0, 0}};
    long nsep = 0;
    for (size_t q = 0; q < md; q++) {
        size_t j = idd[q];
        const double pi[2] = {f->x[i], f->y[i]}, pj[2] = {f->x[j], f->y[j]};
        double d[2];
        rules_offset_d2(k, pi, pj, d);
        const double dx = d[0], dy = d[1];
        double dist2 = dx * dx + dy * dy;
        ab[0] += fabs(f->vx[j]) + fabs(f->vy[j]);
        sum[0][0] += f->vx[j];
        sum[0][1] += f->vy[j];
        ab[1] += fabs(dx) + fabs(dy);
        sum[1][0] += dx;
        sum[1][1] += dy;
        if (0 < dist2 && dist2 < k->sep2) {
            ab[2] += (fabs(dx) + fabs(dy)) / dist2;
            sum[2][0] -= dx / dist2;
            sum[2][1] -= dy / dist2;
            nsep++;
        }
    }
    double turn = 0;
    if (md > 0)
        turn += ((double)md + 1) * e *
                (k->w_align * condition(ab[0], sum[0][0], sum[0][1]) +
                 k->w_coh * condition(ab[1], sum[1][0], sum[1][1]));
    if (nsep > 0)
        turn += ((double)nsep + 1) * e * k->w_sep * condition(ab[2], sum[2][0], sum[2][1]);
    *tol_v = 2 * 3 * k->max_speed * turn + 16 * e * k->max_speed;
    return hypot(a->vx[i] - r->vx[i], a->vy[i] - r->vy[i]) / *tol_v;
}

/* One step of s on a backend into out (allocated here). */
static void step_once(const scenario *s, boids_backend *b, boids_flock *out) {
    boids_error err;
    if (boids_flock_alloc(out, s->f.n, &err)) die("alloc", &err);
    if (boids_backend_step(b, &s->p, 1, &err) || boids_backend_download(b, out, &err))
        die(s->name, &err);
    boids_backend_destroy(b);
}

static void check_vs_ref(const scenario *s) {
    const boids_params *p = &s->p;
    const boids_flock *f = &s->f;
    const size_t n = f->n;
    const int wrap = p->boundary == BOIDS_BOUNDARY_WRAP;
    const double e = FLT_EPSILON;
    boids_error err;
    boids_backend *ref = boids_cpu_ref_create(f, &err);
    if (!ref) die("cpu-ref", &err);
    boids_flock a, r;
    step_once(s, make_cpu(f, 2), &a);
    step_once(s, ref, &r);
    rules_k_d2 k;
    rules_k_init_d2(&k, p);
    pick *buf = malloc(n * sizeof *buf);
    size_t *idf = malloc(n * sizeof *idf), *idd = malloc(n * sizeof *idd);
    size_t skipped = 0, worst_i = 0;
    double worst = 0;
    for (size_t i = 0; i < n; i++) {
        size_t mf = brute_select(s, 0, i, buf, idf), md = brute_select(s, 1, i, buf, idd);
        double tol_v = 0, ratio = -1;
        if (mf == md && set_hash(idf, mf) == set_hash(idd, md))
            ratio = p->model == BOIDS_MODEL_VICSEK
                        ? vicsek_ratio(s, i, idd, md, &a, &r, &tol_v)
                        : reynolds_ratio(s, &k, i, idd, md, &a, &r, &tol_v);
        if (ratio < 0) { /* different neighbours in float and double, or no direction */
            skipped++;
            continue;
        }
        double dp = hypot(axis_gap(a.x[i], r.x[i], p->width, wrap),
                          axis_gap(a.y[i], r.y[i], p->height, wrap));
        double tol_p = tol_v * p->dt +
                       4 * e * (fabs(f->x[i]) + fabs(f->y[i]) + hypot(f->vx[i], f->vy[i]) * p->dt);
        ratio = fmax(ratio, dp / tol_p);
        if (ratio > worst) {
            worst = ratio;
            worst_i = i;
        }
    }
    CHECK(worst <= 1, "%s: boid %zu differs from cpu-ref by %.3g x its float bound", s->name,
          worst_i, worst);
    CHECK(skipped * 20 < n, "%s: %zu of %zu boids skipped", s->name, skipped, n);
    printf("%-28s n=%-6zu one step vs cpu-ref: error <= %.3f of the float bound (%zu skipped)\n",
           s->name, n, worst, skipped);
    free(buf);
    free(idf);
    free(idd);
    boids_flock_free(&a);
    boids_flock_free(&r);
}

/* ---- seed 003, 246.4: three agents ---------------------------------------------------- */

static void check_three_agents(void) {
    boids_params p = seed003_three_agent_params();
    boids_error err;
    boids_flock f, out;
    if (boids_flock_alloc(&f, 3, &err) || boids_flock_alloc(&out, 3, &err)) die("alloc", &err);
    const double deg = M_PI / 180;
    for (int i = 0; i < 3; i++) {
        f.x[i] = i;
        f.y[i] = 0;
        f.vx[i] = 0.2 * cos(90 * i * deg);
        f.vy[i] = 0.2 * sin(90 * i * deg);
    }
    CHECK_NEAR(boids_order(&f), 1.0 / 3, 1e-15, "initial polarization 1/3");
    boids_backend *b = make_cpu(&f, 1);
    if (boids_backend_step(b, &p, 1, &err) || boids_backend_download(b, &out, &err))
        die("three agents", &err);
    /* Float: the velocities are 0.2 (cos, sin) of the float heading, which atan2 (double,
     * rounded to float) gives within an ulp of pi; 1e-6 rad and 1e-6 length are 4 to 8
     * float ulps of the values compared. */
    const double want_h[3] = {45, 90, 135}, want_x[3] = {0.2, 1, 1.8}, want_y[3] = {0, 0.2, 0};
    for (int i = 0; i < 3; i++) {
        CHECK_NEAR(atan2(out.vy[i], out.vx[i]) / deg, want_h[i], 1e-6 / deg, "agent %d heading", i);
        CHECK_NEAR(hypot(out.vx[i], out.vy[i]), 0.2, 1e-7, "agent %d speed", i);
        CHECK_NEAR(out.x[i], want_x[i], 1e-6, "agent %d x", i);
        CHECK_NEAR(out.y[i], want_y[i], 1e-6, "agent %d y", i);
    }
    /* Polarization of float unit vectors: a few float ulps. */
    CHECK_NEAR(boids_order(&out), (1 + sqrt(2)) / 3, 1e-6, "polarization (1 + sqrt 2) / 3");
    printf("%-28s headings %.6f %.6f %.6f deg, polarization %.7f\n", "three agents (246.4)",
           atan2(out.vy[0], out.vx[0]) / deg, atan2(out.vy[1], out.vx[1]) / deg,
           atan2(out.vy[2], out.vx[2]) / deg, boids_order(&out));
    boids_backend_destroy(b);
    boids_flock_free(&f);
    boids_flock_free(&out);
}

/* ---- scenarios -------------------------------------------------------------------- */

static scenario vicsek_random(size_t n, double noise, int boundary, uint64_t seed) {
    scenario s = {"vicsek random", lab(n), {0}};
    s.p.model = BOIDS_MODEL_VICSEK;
    s.p.noise = noise;
    s.p.noise_seed = 7;
    s.p.boundary = boundary;
    random_flock(&s, n, seed);
    return s;
}

static const int bnd[3] = {BOIDS_BOUNDARY_WRAP, BOIDS_BOUNDARY_WALLS, BOIDS_BOUNDARY_OPEN};
static const char *const bname[3] = {"wrap", "walls", "open"};

/* Vicsek, metric: random wrap world; a lattice of spacing R (every side neighbour at
 * exactly dist2 = R^2, which <= must accept); walls. */
static void check_vicsek_metric(void) {
    {
        scenario s = vicsek_random(3000, 0.5, BOIDS_BOUNDARY_WRAP, 1);
        s.name = "vicsek metric wrap";
        check_sets(&s);
        check_vs_ref(&s);
        check_same_bits(&s, 3);
        boids_flock_free(&s.f);
    }
    {
        scenario s = {"vicsek metric lattice d=R", lab(1), {0}};
        s.p.model = BOIDS_MODEL_VICSEK;
        s.p.width = s.p.height = 400;
        s.p.vision_radius = 8;
        s.p.separation_radius = 0; /* unused by Vicsek; a valid set keeps it within vision */
        lattice_flock(&s, 50, 50, 8, 0, 0); /* fills the periodic world exactly */
        check_sets(&s);
        check_same_bits(&s, 2);
        boids_flock_free(&s.f);
    }
    {
        scenario s = vicsek_random(2500, 1.0, BOIDS_BOUNDARY_WALLS, 2);
        s.name = "vicsek metric walls";
        check_sets(&s);
        check_vs_ref(&s);
        boids_flock_free(&s.f);
    }
}

/* Topological on lattices: 4 neighbours at spacing a, 4 at a sqrt 2, 4 at 2a, ... so
 * k = 7 and k = 30 cut through ties, broken by id. R is far below k's reach, so the
 * ring search must go beyond the 3x3 block. */
static void check_topo_lattices(void) {
    for (int model = 0; model < 2; model++)
        for (int bi = 0; bi < 3; bi++)
            for (int kk = 0; kk < 2; kk++) {
                char name[64];
                snprintf(name, sizeof name, "topo %s lattice %s k=%d",
                         model ? "vicsek" : "reynolds", bname[bi], kk ? 30 : 7);
                scenario s = {name, lab(1), {0}};
                s.p.model = model ? BOIDS_MODEL_VICSEK : BOIDS_MODEL_REYNOLDS;
                s.p.neighbours = BOIDS_NEIGHBOURS_TOPOLOGICAL;
                s.p.k = kk ? 30 : 7;
                s.p.boundary = bnd[bi];
                s.p.width = 64 * 3;
                s.p.height = 40 * 3;
                s.p.vision_radius = 1.5;
                s.p.separation_radius = 1;
                s.p.fov = model == 0 && bi == 1 ? 270 : 360; /* fov: Reynolds only */
                lattice_flock(&s, 64, 40, 3, 0, 0);
                check_sets(&s);
                boids_flock_free(&s.f);
            }
}

/* Topological with k_in_vision, random: many boids have fewer than k within R. */
static void check_topo_k_in_vision(void) {
    for (int model = 0; model < 2; model++) {
        scenario s = {
            model ? "topo vicsek k_in_vision" : "topo reynolds k_in_vision", lab(3000), {0}};
        s.p.model = model;
        s.p.neighbours = BOIDS_NEIGHBOURS_TOPOLOGICAL;
        s.p.k_in_vision = 1;
        s.p.k = 9;
        s.p.vision_radius = 25;
        s.p.separation_radius = 10;
        random_flock(&s, 3000, 3 + (uint64_t)model);
        check_sets(&s);
        check_same_bits(&s, 2);
        boids_flock_free(&s.f);
    }
}

/* Topological, random, default radius: against cpu-ref and thread counts. */
static void check_topo_random(void) {
    {
        scenario s = {"topo reynolds k=7 wrap", lab(2500), {0}};
        s.p.neighbours = BOIDS_NEIGHBOURS_TOPOLOGICAL;
        s.p.fov = 300;
        random_flock(&s, 2500, 4);
        check_sets(&s);
        check_vs_ref(&s);
        check_same_bits(&s, 3);
        boids_flock_free(&s.f);
    }
    {
        scenario s = vicsek_random(2500, 0.8, BOIDS_BOUNDARY_WRAP, 5);
        s.name = "topo vicsek k=7 wrap";
        s.p.neighbours = BOIDS_NEIGHBOURS_TOPOLOGICAL;
        check_sets(&s);
        check_vs_ref(&s);
        check_same_bits(&s, 3);
        boids_flock_free(&s.f);
    }
}

/* Open plane, a spread-out flock: three dense clusters far apart and a sparse cloud
 * around them, so the bounding box is much larger than the flock and the cell count is
 * bounded (cells wider than R). */
static void check_open_spread(void) {
    for (int variant = 0; variant < 4; variant++) {
        const char *names[4] = {"open spread reynolds metric", "open spread vicsek metric",
                                "open spread topo reynolds", "open spread topo vicsek"};
        scenario s = {names[variant], lab(2400), {0}};
        s.p.boundary = BOIDS_BOUNDARY_OPEN;
        s.p.model = variant & 1 ? BOIDS_MODEL_VICSEK : BOIDS_MODEL_REYNOLDS;
        s.p.neighbours = variant >= 2 ? BOIDS_NEIGHBOURS_TOPOLOGICAL : BOIDS_NEIGHBOURS_METRIC;
        s.p.noise = 0.3;
        s.p.width = s.p.height = 300;
        random_flock(&s, 2400, 6);
        const double cxs[3] = {-2e5, 0, 3.5e5}, cys[3] = {1e5, 0, -4e5};
        for (size_t i = 0; i < s.f.n; i++) {
            if (i % 10 == 9) { /* sparse cloud over the whole box */
                s.f.x[i] = (float)(-3e5 + 7e5 * boids_noise_u(1, 1, (uint32_t)i));
                s.f.y[i] = (float)(-5e5 + 7e5 * boids_noise_u(1, 2, (uint32_t)i));
            } else {
                s.f.x[i] = (float)(s.f.x[i] + cxs[i % 3]);
                s.f.y[i] = (float)(s.f.y[i] + cys[i % 3]);
            }
        }
        check_sets(&s);
        if (variant == 1 || variant == 2) check_vs_ref(&s);
        check_same_bits(&s, 3);
        boids_flock_free(&s.f);
    }
}

/* k > N - 1: everyone else. */
static void check_k_beyond_n(void) {
    for (int bi = 0; bi < 3; bi++) {
        scenario s = {"topo k > N-1", lab(6), {0}};
        s.p.neighbours = BOIDS_NEIGHBOURS_TOPOLOGICAL;
        s.p.model = BOIDS_MODEL_VICSEK;
        s.p.k = 10;
        s.p.boundary = bnd[bi];
        random_flock(&s, 6, 8);
        check_sets(&s);
        check_vs_ref(&s);
        boids_flock_free(&s.f);
    }
}

int main(void) {
    check_three_agents();
    check_vicsek_metric();
    check_topo_lattices();
    check_topo_k_in_vision();
    check_topo_random();
    check_open_spread();
    check_k_beyond_n();
    return CHECK_DONE("cpu_lab_test");
}
