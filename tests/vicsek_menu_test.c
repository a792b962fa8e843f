/* SPDX-License-Identifier: MIT */
/* The Vicsek model's menu (docs/model.md, "The Vicsek model's menu") on the exact reference,
 * cpu-ref, checked against what a person computes from the published rules, not from
 * rules.h: hand-computed steps of each variant, the symmetries (a rotated flock rotates, a
 * mirrored chiral flock turns the other way), and the null models (a field alone drifts
 * isolated agents along it; nematic alignment of headings within 90 degrees of each other is
 * polar alignment; vectorial noise of strength 0 is the noiseless model; a lone chiral agent
 * runs round a closed polygon). The cpu backend (float) is compared with cpu-ref over one
 * step of every variant. Tolerances: cpu-ref computes in double and each expected value is a
 * few operations (unit vectors, atan2, cos, sin), so 1e-12 covers their rounding (each
 * ~1e-16); the symmetry checks compare positions that went through L - y (one rounding of
 * the world size, ~1e-13 for L = 20) and so allow 1e-11. */
#include <math.h>
#include <string.h>

#include "boids/backend.h"
#include "check.h"
#include "run_steps.h"
#include "seed003.h"

static const double TOL = 1e-12;

/* Seed 003's open world (agents see within R = 1.1, speed 0.2, one time unit a step, no
 * noise) in dimension dim. */
static boids_params open_params(int dim) {
    boids_params p = seed003_three_agent_params();
    p.dim = dim;
    p.noise_seed = 77;
    return p;
}

static void alloc(boids_flock *f, size_t n, int dim) {
    boids_error err;
    CHECK(boids_flock_alloc_dim(f, n, dim, &err) == BOIDS_OK, "%s", err.msg);
}

/* Agent i at (x, y) heading deg degrees at the speed v. */
static void put(boids_flock *f, size_t i, double x, double y, double deg, double v) {
    f->x[i] = x;
    f->y[i] = y;
    f->vx[i] = v * cos(deg * M_PI / 180);
    f->vy[i] = v * sin(deg * M_PI / 180);
}

static double heading(const boids_flock *f, size_t i) {
    return atan2(f->vy[i], f->vx[i]);
}

/* Vectorial noise (Gregoire and Chate 2004): two agents in reach of each other, n = 2; the
 * new heading is arg(u0 + u1 + eta * 2 * xi), xi at the angle 2 pi u of the noise variate
 * u of (noise_seed, step 0, id). */
static void test_vectorial_by_hand(void) {
    boids_params p = open_params(2);
    p.noise_type = BOIDS_NOISE_VECTORIAL;
    p.noise = 0.4;
    boids_flock f;
    alloc(&f, 2, 2);
    put(&f, 0, 0, 0, 10, 0.2);
    put(&f, 1, 0.5, 0, 70, 0.2);
    double sx = cos(10 * M_PI / 180) + cos(70 * M_PI / 180);
    double sy = sin(10 * M_PI / 180) + sin(70 * M_PI / 180);
    double want[2];
    for (int i = 0; i < 2; i++) {
        double a = 2 * M_PI * boids_noise_u(77, 0, (uint32_t)i);
        want[i] = atan2(sy + 0.4 * 2 * sin(a), sx + 0.4 * 2 * cos(a));
    }
    run_steps(&p, &f, 1, 0);
    for (int i = 0; i < 2; i++)
        CHECK_NEAR(heading(&f, i), want[i], TOL, "agent %d: arg(sum + eta n xi)", i);
    CHECK_NEAR(f.x[1], 0.5 + 0.2 * cos(70 * M_PI / 180), TOL, "moved with its old velocity");
    boids_flock_free(&f);
}

/* Nematic alignment: agent 0 heads east (0 degrees) with neighbours at 150 and 60 degrees;
 * 150 points against it (cos 150 < 0) and counts as -30, so its sum is
 * (1 + cos 30 + cos 60, -sin 30 + sin 60) = (1 + sqrt3/2 + 1/2, (sqrt3 - 1)/2): 8.79
 * degrees, where polar alignment gives arg(1 - sqrt3/2 + 1/2, 1/2 + sqrt3/2) = 65.1. */
static void test_nematic_by_hand(void) {
    boids_params p = open_params(2);
    boids_flock f;
    const double s3 = sqrt(3.0);
    for (int nematic = 0; nematic < 2; nematic++) {
        p.alignment = nematic ? BOIDS_ALIGNMENT_NEMATIC : BOIDS_ALIGNMENT_POLAR;
        alloc(&f, 3, 2);
        put(&f, 0, 0, 0, 0, 0.2);
        put(&f, 1, 0.5, 0.5, 150, 0.2);
        put(&f, 2, -0.5, 0.5, 60, 0.2);
        run_steps(&p, &f, 1, 0);
        double want =
            nematic ? atan2((s3 - 1) / 2, 1 + s3 / 2 + 0.5) : atan2(0.5 + s3 / 2, 1 - s3 / 2 + 0.5);
        CHECK_NEAR(heading(&f, 0), want, TOL, "%s: agent 0's heading",
                   nematic ? "nematic" : "polar");
        boids_flock_free(&f);
    }
}

/* The external field with strength 1 adds one unit vector e to a lone agent's own heading
 * u: u + e bisects the angle between them, so a lone agent heading north under a field
 * towards +x heads 45, 22.5, 11.25 degrees after one, two, three steps. */
static void test_field_by_hand(void) {
    boids_params p = open_params(2);
    p.field = 1;
    p.field_x = 3; /* normalised: only the direction counts */
    p.field_y = 0;
    boids_flock f;
    alloc(&f, 1, 2);
    put(&f, 0, 0, 0, 90, 0.2);
    const double want[] = {45, 22.5, 11.25};
    for (int t = 0; t < 3; t++) {
        run_steps(&p, &f, 1, 0);
        CHECK_NEAR(heading(&f, 0), want[t] * M_PI / 180, TOL, "step %d: the bisector", t + 1);
    }
    boids_flock_free(&f);
}

/* Chirality omega: a lone agent turns by omega a step, counter-clockwise; with omega =
 * 2 pi / 100 it runs round a regular 100-gon and is back where it started after 100 steps
 * (each step adds a rounding of the heading, ~1e-16, and of the position: 1e-10 is far
 * below the side 0.2 and far above 100 such roundings). */
static void test_chirality_by_hand(void) {
    boids_params p = open_params(2);
    p.chirality = 2 * M_PI / 100;
    boids_flock f;
    alloc(&f, 1, 2);
    put(&f, 0, 3, 4, 30, 0.2);
    run_steps(&p, &f, 1, 0);
    CHECK_NEAR(heading(&f, 0), 30 * M_PI / 180 + p.chirality, TOL, "turned by omega");
    run_steps(&p, &f, 99, 0);
    CHECK_NEAR(f.x[0], 3, 1e-10, "the 100-gon closes (x)");
    CHECK_NEAR(f.y[0], 4, 1e-10, "the 100-gon closes (y)");
    CHECK_NEAR(heading(&f, 0), 30 * M_PI / 180, 1e-10, "and heads as at the start");
    p.chirality = -p.chirality; /* clockwise */
    run_steps(&p, &f, 1, 0);
    CHECK_NEAR(heading(&f, 0), 30 * M_PI / 180 + p.chirality, 1e-10, "negative: clockwise");
    boids_flock_free(&f);
}

/* The box: chirality turns about +z (a direction (0.6, 0, 0.8) goes to (0.6 cos w, 0.6 sin
 * w, 0.8)); the field along +z with strength 1 bisects (1, 0, 0) and (0, 0, 1); vectorial
 * noise adds eta * n * xi, xi = (r cos phi, r sin phi, 1 - 2 u1), r = sqrt(1 - z^2), phi =
 * 2 pi u2. */
static void test_box_by_hand(void) {
    boids_params p = open_params(3);
    boids_flock f;
    alloc(&f, 1, 3);
    p.chirality = 0.25;
    f.x[0] = f.y[0] = f.z[0] = 0;
    f.vx[0] = 0.2 * 0.6, f.vy[0] = 0, f.vz[0] = 0.2 * 0.8;
    run_steps(&p, &f, 1, 0);
    CHECK_NEAR(f.vx[0], 0.2 * 0.6 * cos(0.25), TOL, "chiral turn about z: x");
    CHECK_NEAR(f.vy[0], 0.2 * 0.6 * sin(0.25), TOL, "chiral turn about z: y");
    CHECK_NEAR(f.vz[0], 0.2 * 0.8, TOL, "chiral turn about z keeps z");
    p.chirality = 0;
    p.field = 1, p.field_x = 0, p.field_y = 0, p.field_z = 2;
    f.vx[0] = 0.2, f.vy[0] = 0, f.vz[0] = 0;
    run_steps(&p, &f, 1, 0);
    CHECK_NEAR(f.vx[0], 0.2 / sqrt(2), TOL, "field along z: the bisector, x");
    CHECK_NEAR(f.vz[0], 0.2 / sqrt(2), TOL, "field along z: the bisector, z");
    p.field = 0;
    p.noise_type = BOIDS_NOISE_VECTORIAL;
    p.noise = 0.7;
    f.vx[0] = 0.2, f.vy[0] = 0, f.vz[0] = 0;
    const uint32_t t0 = f.step; /* the noise's step index: two steps above */
    double z = 1 - 2 * boids_noise_u(77, t0, 0), phi = 2 * M_PI * boids_noise_u2(77, t0, 0);
    double r = sqrt(1 - z * z), t[3] = {1 + 0.7 * r * cos(phi), 0.7 * r * sin(phi), 0.7 * z};
    double len = sqrt(t[0] * t[0] + t[1] * t[1] + t[2] * t[2]);
    run_steps(&p, &f, 1, 0);
    CHECK_NEAR(f.vx[0], 0.2 * t[0] / len, TOL, "vectorial in the box: x");
    CHECK_NEAR(f.vy[0], 0.2 * t[1] / len, TOL, "vectorial in the box: y");
    CHECK_NEAR(f.vz[0], 0.2 * t[2] / len, TOL, "vectorial in the box: z");
    boids_flock_free(&f);
}

/* A random flock of n agents at density 2 in a periodic square of side L (seed s). */
static void random_flock(boids_params *p, boids_flock *f, size_t n, uint64_t s) {
    p->boundary = BOIDS_BOUNDARY_WRAP;
    p->width = p->height = p->depth = sqrt((double)n / 2);
    p->vision_radius = 1;
    p->speed = p->initial_speed = 0.1;
    p->count = (long)n;
    alloc(f, n, p->dim);
    boids_flock_randomize(f, p, s);
}

static double max_diff(const boids_flock *a, const boids_flock *b) {
    double m = 0;
    const double *x[4] = {a->x, a->y, a->vx, a->vy}, *y[4] = {b->x, b->y, b->vx, b->vy};
    for (int c = 0; c < 4; c++)
        for (size_t i = 0; i < a->n; i++) m = fmax(m, fabs(x[c][i] - y[c][i]));
    return m;
}

/* A quarter turn of the periodic square, (x, y) -> (L - y, x), velocities (-vy, vx), the
 * field's direction with them. */
static void quarter_turn(boids_flock *f, double L) {
    for (size_t i = 0; i < f->n; i++) {
        double x = f->x[i], vx = f->vx[i];
        f->x[i] = L - f->y[i];
        f->y[i] = x;
        f->vx[i] = -f->vy[i];
        f->vy[i] = vx;
    }
}

/* The mirror y -> L - y, vy -> -vy. */
static void mirror(boids_flock *f, double L) {
    for (size_t i = 0; i < f->n; i++) f->y[i] = L - f->y[i], f->vy[i] = -f->vy[i];
}

/* A rotated flock rotates: stepping the turned flock (its field turned too) equals turning
 * the stepped flock, with nematic alignment, chirality, a field and angular noise (the
 * noise of an agent is the same angle whichever way the flock faces). */
static void test_rotation(void) {
    boids_params p = open_params(2), q;
    boids_flock a, b;
    random_flock(&p, &a, 400, 5);
    random_flock(&p, &b, 400, 5);
    p.alignment = BOIDS_ALIGNMENT_NEMATIC;
    p.chirality = 0.2;
    p.noise = 1.5;
    p.field = 0.7, p.field_x = 0.6, p.field_y = 0.8;
    q = p;
    q.field_x = -0.8, q.field_y = 0.6;
    const double L = p.width;
    quarter_turn(&b, L);
    run_steps(&p, &a, 1, 0);
    run_steps(&q, &b, 1, 0);
    quarter_turn(&a, L);
    CHECK(max_diff(&a, &b) <= 1e-11, "turned then stepped = stepped then turned: %.3g",
          max_diff(&a, &b));
    boids_flock_free(&a);
    boids_flock_free(&b);
}

/* A mirrored chiral flock turns the other way: the mirror image of a flock stepped with
 * chirality omega is the mirror image stepped with -omega (without noise, whose angle the
 * mirror would negate), and not the one stepped with omega. */
static void test_mirror(void) {
    boids_params p = open_params(2), q;
    boids_flock a, b, c;
    random_flock(&p, &a, 400, 9);
    random_flock(&p, &b, 400, 9);
    random_flock(&p, &c, 400, 9);
    p.chirality = 0.3;
    p.field = 0.5, p.field_x = 1, p.field_y = 1;
    q = p;
    q.chirality = -0.3, q.field_y = -1;
    const double L = p.width;
    mirror(&b, L);
    mirror(&c, L);
    run_steps(&p, &a, 1, 0);
    run_steps(&q, &b, 1, 0);
    q.chirality = 0.3;
    run_steps(&q, &c, 1, 0);
    mirror(&a, L);
    CHECK(max_diff(&a, &b) <= 1e-11, "mirrored with -omega = mirror of omega: %.3g",
          max_diff(&a, &b));
    /* Each agent's heading then differs by 2 omega: speed 0.1 times |2 sin(omega)| = 0.059. */
    CHECK(max_diff(&a, &c) > 0.05, "the same omega turns the mirror image the wrong way: %.3g",
          max_diff(&a, &c));
    boids_flock_free(&a);
    boids_flock_free(&b);
    boids_flock_free(&c);
}

/* Nematic alignment with every heading within 45 degrees of east (so every pair within 90
 * degrees: all dot products positive) is polar alignment, bit for bit, in both dimensions
 * and on cpu-ref and cpu; vectorial noise of strength 0 is the noiseless angular model. */
static void test_nematic_aligned_is_polar(void) {
    for (int dim = 2; dim <= 3; dim++)
        for (int threads = 0; threads <= 1; threads++) {
            boids_params p = open_params(dim), q;
            boids_flock a, b;
            random_flock(&p, &a, 500, 11);
            for (size_t i = 0; i < a.n; i++) { /* headings within 40 degrees of +x */
                double t = (double)i / (double)a.n * 2 * M_PI, c = cos(40 * M_PI / 180);
                double s = sqrt(1 - c * c);
                a.vx[i] = 0.1 * c;
                a.vy[i] = 0.1 * s * cos(t);
                if (dim == 3) a.vz[i] = 0.1 * s * sin(t);
            }
            boids_flock_copy(&b, &a, NULL);
            q = p;
            q.alignment = BOIDS_ALIGNMENT_NEMATIC;
            run_steps(&p, &a, 1, threads);
            run_steps(&q, &b, 1, threads);
            CHECK(max_diff(&a, &b) == 0, "dim %d %s: nematic = polar when aligned", dim,
                  threads ? "cpu" : "cpu-ref");
            q = p;
            q.noise_type = BOIDS_NOISE_VECTORIAL; /* noise 0 */
            run_steps(&p, &a, 3, threads);
            run_steps(&q, &b, 3, threads);
            CHECK(max_diff(&a, &b) == 0, "dim %d %s: vectorial noise 0 = no noise", dim,
                  threads ? "cpu" : "cpu-ref");
            boids_flock_free(&a);
            boids_flock_free(&b);
        }
}

/* A field alone, without neighbours: 400 agents on a grid 3 apart (R = 1: no one in reach)
 * under a field of strength 0.5 towards (1, 2) with angular noise 2: after 300 steps the
 * mean velocity points along the field and its component across the field is noise. The
 * component along it (the drift) must exceed 10 standard errors of the mean of independent
 * unit headings' projections (at most 1/sqrt(2N) each, as for uniform headings: 0.035), the
 * one across within 5 of them; with the field off both are within 5. */
static void test_field_drift(void) {
    const size_t n = 400;
    const double ex = 1 / sqrt(5.0), ey = 2 / sqrt(5.0), se = 1 / sqrt(2.0 * (double)n);
    for (int on = 0; on < 2; on++) {
        boids_params p = open_params(2);
        p.noise = 2;
        p.field = on ? 0.5 : 0;
        p.field_x = 1, p.field_y = 2;
        boids_flock f;
        alloc(&f, n, 2);
        for (size_t i = 0; i < n; i++)
            put(&f, i, 3.0 * (double)(i % 20), 3.0 * (double)(i / 20), 7.0 * (double)i, 0.2);
        run_steps(&p, &f, 300, 0);
        double along = 0, across = 0;
        for (size_t i = 0; i < n; i++) {
            along += (f.vx[i] * ex + f.vy[i] * ey) / 0.2 / (double)n;
            across += (-f.vx[i] * ey + f.vy[i] * ex) / 0.2 / (double)n;
        }
        if (on)
            CHECK(along > 10 * se, "drift along the field: %.3f (se %.3f)", along, se);
        else
            CHECK(fabs(along) < 5 * se, "no field, no drift: %.3f (se %.3f)", along, se);
        CHECK(fabs(across) < 5 * se, "field %d: none across it: %.3f (se %.3f)", on, across, se);
        boids_flock_free(&f);
    }
}

/* Every variant and all together, one step of the cpu backend (float) against cpu-ref: the
 * float step's error is a few float roundings of the world size and of the speed (2^-24
 * relative, ~1e-7 of L = 22 and of 0.1); 1e-4 bounds the position error and, relative to
 * the speed, the velocity's, leaving the rare agent whose nematic sign flips in float to
 * fail it (none in these flocks). */
static void test_cpu_matches_cpu_ref(void) {
    for (int dim = 2; dim <= 3; dim++)
        for (int v = 0; v < 5; v++) {
            boids_params p = open_params(dim);
            boids_flock a, b;
            random_flock(&p, &a, 1000, 21);
            random_flock(&p, &b, 1000, 21);
            p.noise = 0.8;
            if (v == 0 || v == 4) p.noise_type = BOIDS_NOISE_VECTORIAL;
            if (v == 1 || v == 4) p.alignment = BOIDS_ALIGNMENT_NEMATIC;
            if (v == 2 || v == 4) p.chirality = -0.4;
            if (v == 3 || v == 4) p.field = 2, p.field_z = 1;
            run_steps(&p, &a, 1, 0);
            run_steps(&p, &b, 1, 2);
            double m = 0;
            for (size_t i = 0; i < a.n; i++) {
                m = fmax(m, fabs(a.x[i] - b.x[i]) + fabs(a.y[i] - b.y[i]));
                m = fmax(m, (fabs(a.vx[i] - b.vx[i]) + fabs(a.vy[i] - b.vy[i])) / p.speed);
                if (dim == 3) m = fmax(m, fabs(a.vz[i] - b.vz[i]) / p.speed);
            }
            CHECK(m <= 1e-4, "dim %d variant %d: cpu vs cpu-ref %.3g", dim, v, m);
            boids_flock_free(&a);
            boids_flock_free(&b);
        }
}

/* The keys: names, ranges, and a field without a direction refused. */
static void test_keys(void) {
    boids_params p = boids_params_default();
    boids_error err;
    CHECK(boids_params_set(&p, "noise_type", "vectorial", "t", &err) == BOIDS_OK, "%s", err.msg);
    CHECK(p.noise_type == BOIDS_NOISE_VECTORIAL, "noise_type parsed");
    CHECK(boids_params_set(&p, "alignment", "nematic", "t", &err) == BOIDS_OK, "%s", err.msg);
    CHECK(boids_params_set(&p, "alignment", "apolar", "t", &err) != BOIDS_OK, "unknown choice");
    CHECK(strstr(err.msg, "polar, nematic") != NULL, "the choices named: %s", err.msg);
    CHECK(boids_params_set(&p, "chirality", "4", "t", &err) != BOIDS_OK, "chirality above pi");
    p.field = 1, p.field_x = p.field_y = 0, p.field_z = 5;
    CHECK(boids_params_validate(&p, &err) != BOIDS_OK, "a planar field along z has no direction");
    CHECK(strstr(err.msg, "field") != NULL, "message names the field: %s", err.msg);
    p.dim = 3;
    CHECK(boids_params_validate(&p, &err) == BOIDS_OK, "in the box it has one: %s", err.msg);
}

int main(void) {
    test_vectorial_by_hand();
    test_nematic_by_hand();
    test_field_by_hand();
    test_chirality_by_hand();
    test_box_by_hand();
    test_rotation();
    test_mirror();
    test_nematic_aligned_is_polar();
    test_field_drift();
    test_cpu_matches_cpu_ref();
    test_keys();
    return CHECK_DONE("vicsek_menu_test");
}
