/* SPDX-License-Identifier: MIT */
/* `boids verify`: one step of each backend from a scenario's state against cpu-ref's.
 *
 * Per boid, the position and velocity error (Vicsek: the heading as an angle modulo 2 pi)
 * against cpu-ref (double), judged against a tolerance calibrated on the same input: a float
 * brute-force step (verify_float.c) against cpu-ref, in both neighbour orders. Boids with a
 * neighbour decision within float precision of its threshold (verify_float.c,
 * verify_interact.c) are decided: checked against the double reference's outcome for each
 * choice of their ambiguous pairs (verify_decide.c). Those that cannot be (another decision
 * in the band, or an outcome that steers along a sum within float error of zero) are left
 * out and counted; a count never fails the check by itself. The neighbour counts and sets of
 * each grid backend are checked against cpu-ref's brute force too, with only the pairs in
 * the float band allowed to differ. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "boids/backend.h"
#include "boids/gpu.h"
#include "verify/verify.h"
#include "verify/verify_checks.h"

/* Tolerance = CALIB_FACTOR x the float brute force's error, with the floors below. The
 * factor covers what the grid paths do differently from the float brute force within
 * float precision: another neighbour summation order (the brute force is measured in two
 * orders, but a grid visits in a third) and, on a GPU, GLSL's sqrt and division, which
 * may be a few ulp off where C rounds correctly. */
#define CALIB_FACTOR 10.0
/* Floors: errors of a few float spacings are the rounding of the state itself. */
#define FLOOR_ULPS 4.0

/* ---- backends ---------------------------------------------------------------------------- */

/* A backend with state f (the kept GPU backend is uploaded f instead). */
static boids_backend *backend_make(verify_ctx *c, const char *name, const boids_flock *f,
                                   boids_error *err) {
    if (!strcmp(name, "cpu-ref")) return boids_cpu_ref_create(f, err);
    if (!strcmp(name, "cpu")) return boids_cpu_create(f, 0, err);
    if (c->gpu) return boids_backend_upload(c->gpu, f, err) == BOIDS_OK ? c->gpu : NULL;
    boids_gpu_options opt = boids_gpu_options_default();
    opt.deterministic = c->o->common.deterministic;
    if (c->o->common.gpu_variant >= 0) opt.variant = (boids_gpu_variant)c->o->common.gpu_variant;
    opt.check = 1;
    opt.log = boids_gl_debug_log(c->gl);
    return c->gpu = boids_gpu_create(NULL, f, &opt, err);
}

boids_backend *verify_backend_get(verify_ctx *c, const char *name, const boids_flock *f,
                                  const boids_interact *t, boids_error *err) {
    boids_backend *b = backend_make(c, name, f, err);
    if (b && boids_backend_set_interact(b, t, err) != BOIDS_OK) {
        verify_backend_put(c, b);
        return NULL;
    }
    return b;
}

void verify_backend_put(verify_ctx *c, boids_backend *b) {
    if (b != c->gpu) boids_backend_destroy(b);
}

/* ---- one-step comparison ------------------------------------------------------------------- */

typedef struct errs {
    double pos_max, pos_med, vel_max, vel_med;
} errs;

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, size_t n) {
    if (n == 0) return 0;
    qsort(v, n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Velocity error of boid i: Reynolds, the vector difference; Vicsek (constant speed), the
 * heading difference as an angle modulo 2 pi, in radians. */
static double vel_err(const boids_params *p, const boids_flock *a, const boids_flock *ref,
                      size_t i) {
    if (a->z && p->model == BOIDS_MODEL_VICSEK) { /* the angle between the two directions */
        const double u[3] = {a->vx[i], a->vy[i], a->vz[i]},
                     v[3] = {ref->vx[i], ref->vy[i], ref->vz[i]};
        const double c[3] = {u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2],
                             u[0] * v[1] - u[1] * v[0]};
        return atan2(sqrt(c[0] * c[0] + c[1] * c[1] + c[2] * c[2]),
                     u[0] * v[0] + u[1] * v[1] + u[2] * v[2]);
    }
    if (a->z)
        return sqrt((a->vx[i] - ref->vx[i]) * (a->vx[i] - ref->vx[i]) +
                    (a->vy[i] - ref->vy[i]) * (a->vy[i] - ref->vy[i]) +
                    (a->vz[i] - ref->vz[i]) * (a->vz[i] - ref->vz[i]));
    if (p->model == BOIDS_MODEL_VICSEK)
        return fabs(remainder(atan2(a->vy[i], a->vx[i]) - atan2(ref->vy[i], ref->vx[i]), 2 * M_PI));
    return hypot(a->vx[i] - ref->vx[i], a->vy[i] - ref->vy[i]);
}

/* Position error of boid i of a against boid i of ref, on the torus in wrap mode (a boid on
 * the seam may be at 0 on one side and W on the other). */
static double pos_err(const boids_params *p, const boids_flock *a, const boids_flock *ref,
                      size_t i) {
    const int wrap = p->boundary == BOIDS_BOUNDARY_WRAP;
    double dx = fabs(a->x[i] - ref->x[i]), dy = fabs(a->y[i] - ref->y[i]);
    if (wrap && dx > p->width / 2) dx = p->width - dx;
    if (wrap && dy > p->height / 2) dy = p->height - dy;
    double dz = a->z ? fabs(a->z[i] - ref->z[i]) : 0;
    if (wrap && dz > p->depth / 2) dz = p->depth - dz;
    return a->z ? sqrt(dx * dx + dy * dy + dz * dz) : hypot(dx, dy);
}

/* How the band's boids are judged (NULL in compare: they are left out, as in the
 * calibration). A boid whose every ambiguous decision is a neighbour pair is decided: its
 * error is the least, in units of the tolerance, over the reference's outcomes for the
 * choices of those pairs (verify_ref_boid). When the backend reported its neighbour sets
 * (rc, rh: cpu-ref's; bc, bh: the backend's), the choice whose set is the backend's is
 * tried first, and only if it is not within the tolerance every other one (2^16 at most,
 * VERIFY_MAX_AMB): one evaluation per boid as a rule, and no false failure if a set changed
 * between the query and the step. */
typedef struct decider {
    verify_ref *r;
    boids_flock *alt; /* boid i: an outcome of the reference */
    const errs *tol;
    const uint32_t *rc, *bc; /* NULL: no neighbour sets */
    const uint64_t *rh, *bh;
} decider;

/* The error of boid i of a against the admissible outcome nearest to it, in ep and ev;
 * returns 0, or 1 when it is undecided: no outcome within the tolerance, and one of them
 * turns on a direction float cannot decide (verify_ref_boid). */
static int decided_err(const boids_params *p, const decider *d, const boids_flock *a,
                       const verify_amb *am, size_t i, double *ep, double *ev) {
    double best = INFINITY;
    int undecidable = 0;
    *ep = *ev = INFINITY;
    for (int pass = d->bc ? 0 : 1; pass < 2 && !(best <= 1); pass++) {
        for (unsigned mask = 0; mask < 1u << am->namb; mask++) {
            const int match =
                d->bc && verify_mask_matches(am, mask, d->rc[i], d->rh[i], d->bc[i], d->bh[i]);
            if (pass == 0 ? !match : match) continue; /* pass 1: the others */
            undecidable |= verify_ref_boid(d->r, i, am, mask, d->alt);
            double e1 = pos_err(p, a, d->alt, i), e2 = vel_err(p, a, d->alt, i);
            double score = fmax(e1 / d->tol->pos_max, e2 / d->tol->vel_max);
            if (score < best) best = score, *ep = e1, *ev = e2;
        }
    }
    return !(best <= 1) && undecidable;
}

/* Errors of a against ref over the boids outside the band and, with d, the decided ones;
 * undec (with d) counts the boids left undecided. scratch holds 2 n. */
static errs compare(const boids_params *p, const boids_flock *a, const boids_flock *ref,
                    const verify_amb *amb, double *scratch, const decider *d, size_t *undec) {
    static const verify_amb none;
    errs e = {0, 0, 0, 0};
    double *sp = scratch, *sv = scratch + a->n;
    size_t m = 0;
    for (size_t i = 0; i < a->n; i++) {
        double ep, ev;
        if (!amb[i].boid) {
            ep = pos_err(p, a, ref, i);
            ev = vel_err(p, a, ref, i);
            /* A boid off cpu-ref whose own neighbours make a direction undecidable. */
            if (d && !(ep <= d->tol->pos_max && ev <= d->tol->vel_max) &&
                decided_err(p, d, a, &none, i, &ep, &ev)) {
                (*undec)++;
                continue;
            }
        } else if (d && verify_amb_decidable(&amb[i])) {
            if (decided_err(p, d, a, &amb[i], i, &ep, &ev)) {
                (*undec)++;
                continue;
            }
        } else {
            if (d) (*undec)++;
            continue;
        }
        if (!(ep <= e.pos_max)) e.pos_max = ep; /* NaN propagates as a failure */
        if (!(ev <= e.vel_max)) e.vel_max = ev;
        sp[m] = ep;
        sv[m++] = ev;
    }
    e.pos_med = median(sp, m);
    e.vel_med = median(sv, m);
    return e;
}

/* One scenario's reference: the state before the step, cpu-ref's step and neighbour sets
 * from it, the float band and the tolerance; and the buffers the backends fill. */
typedef struct scen {
    const char *name;
    boids_params p;
    boids_interact tab;
    const boids_interact *t;     /* &tab for the interaction scenarios, else --config's */
    boids_flock f, ref, fl, out; /* before, cpu-ref after, float brute force, a backend */
    uint32_t *rc, *bc;           /* neighbour counts: cpu-ref's, a backend's */
    uint64_t *rh, *bh;           /* neighbour set hashes: idem */
    verify_amb *amb;
    double *scratch;
    size_t banded, overflow;
    size_t self_off; /* decided boids whose reference with no pair flipped is not cpu-ref's */
    verify_ref *dr;  /* the reference of single boids with a neighbour set chosen */
    boids_flock alt; /* its outcomes */
    errs tol, floor; /* the tolerance and its floors */
} scen;

static void scen_free(scen *s) {
    boids_flock_free(&s->f);
    boids_flock_free(&s->ref);
    boids_flock_free(&s->fl);
    boids_flock_free(&s->out);
    free(s->rc);
    free(s->bc);
    free(s->rh);
    free(s->bh);
    free(s->amb);
    free(s->scratch);
    verify_ref_free(s->dr);
    boids_flock_free(&s->alt);
}

/* The tolerance: CALIB_FACTOR x the error of the float brute force in both neighbour
 * orders, with the floors. */
static void calibrate(scen *s, int verbose) {
    const boids_params *p = &s->p;
    errs cal = {0, 0, 0, 0};
    for (int rev = 0; rev < 2; rev++) {
        verify_float_step(p, s->t, &s->f, rev, &s->fl);
        errs e = compare(p, &s->fl, &s->ref, s->amb, s->scratch, NULL, NULL);
        cal.pos_max = fmax(cal.pos_max, e.pos_max);
        cal.pos_med = fmax(cal.pos_med, e.pos_med);
        cal.vel_max = fmax(cal.vel_max, e.vel_max);
        cal.vel_med = fmax(cal.vel_med, e.vel_med);
    }
    double pos_floor = FLOOR_ULPS * verify_eps_pos(p);
    double top = p->initial_speed; /* the fastest speed a boid may have, any species */
    for (int k = 0; k < (p->species > 1 ? p->species : 1); k++)
        top = fmax(top, boids_params_of_species(p, k).max_speed);
    double vel_floor = FLOOR_ULPS * FLT_EPSILON * top;
    /* Vicsek headings: GLSL's atan, cos and sin are not correctly rounded (NVIDIA's hardware
     * sine is off by up to ~2^-21.4, llvmpipe's polynomials by a few ulps), where the float
     * brute force calls correctly rounded libm: a floor of 16 FLT_EPSILON pi (~6e-6 rad). */
    if (p->model == BOIDS_MODEL_VICSEK) vel_floor = 16 * FLT_EPSILON * M_PI;
    s->floor = (errs){pos_floor, pos_floor, vel_floor, vel_floor};
    s->tol = (errs){
        fmax(CALIB_FACTOR * cal.pos_max, pos_floor), fmax(CALIB_FACTOR * cal.pos_med, pos_floor),
        fmax(CALIB_FACTOR * cal.vel_max, vel_floor), fmax(CALIB_FACTOR * cal.vel_med, vel_floor)};
    if (verbose)
        printf("  %-13s calibration (float brute force vs cpu-ref): pos max %.3g med %.3g, "
               "vel max %.3g med %.3g\n",
               s->name, cal.pos_max, cal.pos_med, cal.vel_max, cal.vel_med);
}

/* The scenario, cpu-ref's step and neighbours, the band and the tolerance. */
static boids_status scen_make(const verify_opts *o, const char *name, const boids_params *base,
                              scen *s, boids_error *err) {
    s->name = name;
    boids_status st = verify_make_scenario(name, base, (size_t)o->common.count, o->common.seed,
                                           &s->p, &s->f, err);
    if (st) return st;
    /* The scenario's own table where it has one, else the points and obstacles of --config
     * (none without): every backend, cpu-ref included, takes the same table. */
    if (verify_scenario_table(name, &s->p, &s->tab))
        s->t = &s->tab;
    else
        s->t = o->common.inter;
    size_t n = s->f.n;
    s->rc = malloc(n * sizeof *s->rc), s->bc = malloc(n * sizeof *s->bc);
    s->rh = malloc(n * sizeof *s->rh), s->bh = malloc(n * sizeof *s->bh);
    s->amb = malloc(n * sizeof *s->amb);
    s->scratch = malloc(2 * n * sizeof *s->scratch);
    if (!s->rc || !s->bc || !s->rh || !s->bh || !s->amb || !s->scratch)
        return boids_error_set(err, BOIDS_ERR_NOMEM, "out of memory");
    const int dim = boids_flock_dim(&s->f);
    if ((st = boids_flock_alloc_dim(&s->ref, n, dim, err)) ||
        (st = boids_flock_alloc_dim(&s->fl, n, dim, err)) ||
        (st = boids_flock_alloc_dim(&s->out, n, dim, err)) ||
        (st = boids_flock_alloc_dim(&s->alt, n, dim, err)))
        return st;
    boids_backend *r = boids_cpu_ref_create(&s->f, err);
    if (!r) return err->status;
    if ((st = boids_backend_set_interact(r, s->t, err))) {
        boids_backend_destroy(r);
        return st;
    }
    if (!(st = boids_backend_neighbours(r, &s->p, s->rc, s->rh, err)) &&
        !(st = boids_backend_step(r, &s->p, 1, err)))
        st = boids_backend_download(r, &s->ref, err);
    boids_backend_destroy(r);
    if (st) return st;
    verify_band(&s->p, &s->f, s->amb);
    verify_band_interact(&s->p, s->t, &s->f, &s->ref, s->amb);
    calibrate(s, o->common.verbose);
    if (!(s->dr = verify_ref_new(&s->p, s->t, &s->f)))
        return boids_error_set(err, BOIDS_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < n; i++) {
        const verify_amb *a = &s->amb[i];
        s->banded += a->boid;
        s->overflow += a->overflow;
        if (!a->boid || !verify_amb_decidable(a)) continue;
        /* The decider's own check: with no pair flipped it is cpu-ref, up to the floors. */
        verify_ref_boid(s->dr, i, a, 0, &s->alt);
        if (!(pos_err(&s->p, &s->alt, &s->ref, i) <= s->floor.pos_max &&
              vel_err(&s->p, &s->alt, &s->ref, i) <= s->floor.vel_max))
            s->self_off++;
    }
    return BOIDS_OK;
}

/* Boids whose neighbour set from backend be is not cpu-ref's up to flips of their band
 * pairs (boids with too many band pairs are not checked). */
static boids_status neighbour_mismatches(scen *s, boids_backend *be, size_t *mism,
                                         boids_error *err) {
    *mism = 0;
    boids_status st = boids_backend_neighbours(be, &s->p, s->bc, s->bh, err);
    if (st) return st;
    for (size_t i = 0; i < s->f.n; i++)
        if (!s->amb[i].overflow &&
            !verify_neighbours_match(&s->amb[i], s->rc[i], s->rh[i], s->bc[i], s->bh[i]))
            (*mism)++;
    return BOIDS_OK;
}

/* One backend's step against the reference: prints its row; -1 when it could not run. */
static int check_backend(verify_ctx *c, scen *s, const char *backend, boids_error *err) {
    const boids_params *p = &s->p;
    size_t n = s->f.n, mism = 0;
    boids_backend *be = verify_backend_get(c, backend, &s->f, s->t, err);
    if (!be) return -1;
    int nbr_checked = boids_backend_has_neighbours(be);
    boids_status st = nbr_checked ? neighbour_mismatches(s, be, &mism, err) : BOIDS_OK;
    if (!st) st = boids_backend_step(be, p, 1, err);
    if (!st) st = boids_backend_download(be, &s->out, err);
    verify_backend_put(c, be);
    if (st) return -1;
    const errs *tol = &s->tol;
    const decider d = {
        s->dr, &s->alt, tol, s->rc, nbr_checked ? s->bc : NULL, s->rh, nbr_checked ? s->bh : NULL};
    size_t undec = 0;
    errs e = compare(p, &s->out, &s->ref, s->amb, s->scratch, &d, &undec);
    int pass = e.pos_max <= tol->pos_max && e.pos_med <= tol->pos_med &&
               e.vel_max <= tol->vel_max && e.vel_med <= tol->vel_med && mism == 0 &&
               s->self_off == 0;
    printf("%-13s %6zu %-5s %9.2e %9.2e %9.2e | %9.2e %9.2e %9.2e | %5.2f%% %5zu %5zu %6s  %s\n",
           s->name, n, backend, e.pos_max, e.pos_med, tol->pos_max, e.vel_max, e.vel_med,
           tol->vel_max, 100.0 * ((double)s->banded / (double)n), undec, s->overflow,
           nbr_checked ? "" : "n/a", pass ? "pass" : "FAIL");
    if (mism) printf("  %zu boids with a neighbour set unlike brute force\n", mism);
    if (s->self_off)
        printf("  %zu decided boids whose single-boid reference is not cpu-ref's\n", s->self_off);
    if (!pass) c->failures++;
    return 0;
}

int verify_scenario(verify_ctx *c, const char *name, const boids_params *base, boids_error *err) {
    scen s = {0};
    int result = scen_make(c->o, name, base, &s, err) ? -1 : 0;
    for (int b = 0; result == 0 && b < c->o->nbackends; b++)
        result = check_backend(c, &s, c->o->backends[b], err);
    scen_free(&s);
    return result;
}

void verify_print_header(const verify_opts *o) {
    printf("one step from the same state vs cpu-ref (preset %s, seed %llu%s, gpu variant %s)\n",
           o->common.preset, (unsigned long long)o->common.seed,
           o->common.deterministic ? ", gpu deterministic" : "",
           boids_gpu_variant_name(o->common.gpu_variant >= 0
                                      ? (boids_gpu_variant)o->common.gpu_variant
                                      : BOIDS_GPU_VARIANT_PLAIN));
    printf("tolerance: %.0fx the error of a float brute-force step against cpu-ref on the same "
           "input (both neighbour orders), at least %.0f float spacings of the world size "
           "(positions) or of max_speed (velocities); vicsek rows: vel = heading error in "
           "radians (modulo 2 pi), at least 16 FLT_EPSILON pi; band: boids with a decision "
           "within float precision of its threshold (a radius, the fov, the k-th distance, the "
           "zero-sum tolerance, a wall), each checked against the reference's outcome for every "
           "choice of its ambiguous neighbour pairs; undec: boids left out, counted, never a "
           "failure by themselves (another decision in the band, or no outcome within the "
           "tolerance while one steers along a sum within float error of zero); over: boids "
           "with too many band pairs to check their neighbour set\n",
           CALIB_FACTOR, FLOOR_ULPS);
    printf("%-13s %6s %-5s %9s %9s %9s | %9s %9s %9s | %6s %5s %5s %6s  %s\n", "scenario", "N",
           "back", "pos max", "pos med", "pos tol", "vel max", "vel med", "vel tol", "band",
           "undec", "over", "", "result");
}
