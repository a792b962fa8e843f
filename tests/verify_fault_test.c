/* SPDX-License-Identifier: MIT */
/* `boids verify` catches a backend that is wrong: the cpu backend's results are falsified
 * behind verify's back (the link wraps boids_backend_download, boids_backend_neighbours and
 * boids_backend_step, tests/CMakeLists.txt), and verify must fail; the same run without the
 * fault must pass, so that the failure is the fault's.
 *
 *   verify_fault_test FAULT [verify options...]
 *
 * FAULT (cpu backend only; cpu-ref, the reference, is never touched):
 *   none    nothing falsified: verify must pass
 *   pos     the one-step result of the last boid (a hand-placed one in edges and walls, in
 *           the float band in the topological runs there) moved by 0.01 along x: 10 to 25
 *           position tolerances in the lab world (they are 4e-4 to 1e-3)
 *   vel     its velocity turned by 0.01 radian: a Reynolds boid at speed 60 to 180 moves by
 *           0.6 to 1.8 speed units (tolerances 1e-4 to 8e-2), a Vicsek heading by 0.01
 *           (tolerances below 5e-5)
 *   nbr     boid 0 reports one neighbour too many
 *   curve   multi-step runs (the order curves) align at half the alignment weight, or for
 *           Vicsek with 1.5 times the noise; one-step checks untouched
 *   coupling  with species, the one-step checks step with every coupling 1 (a backend that
 *           ignores the coupling matrix)
 *   sprule  with species, the one-step checks step with species 1's speeds, noise and vision
 *           radius those of species 0 and with no rules between species (a backend that
 *           knows one set of constants)
 * Exit 0 when verify's verdict is the expected one (pass for none, fail otherwise), 1 if
 * not, 2 on bad usage. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "boids/backend.h"
#include "commands/commands.h"

typedef enum { F_NONE, F_POS, F_VEL, F_NBR, F_CURVE, F_COUPLING, F_SPRULE } fault;

static fault g_fault;
static const double g_size = 0.01; /* pos: world units; vel: radians */
static unsigned g_last_steps;      /* the steps of the cpu backend's last step call */

boids_status __real_boids_backend_download(boids_backend *b, boids_flock *out, boids_error *err);
boids_status __real_boids_backend_step(boids_backend *b, const boids_params *p, unsigned steps,
                                       boids_error *err);
boids_status __real_boids_backend_neighbours(boids_backend *b, const boids_params *p,
                                             uint32_t *count, uint64_t *set_hash, boids_error *err);

static int is_cpu(const boids_backend *b) {
    return strcmp(boids_backend_name(b), "cpu") == 0;
}

boids_status __wrap_boids_backend_step(boids_backend *b, const boids_params *p, unsigned steps,
                                       boids_error *err) {
    if (!is_cpu(b)) return __real_boids_backend_step(b, p, steps, err);
    g_last_steps = steps;
    boids_params q = *p;
    if (steps == 1 && (g_fault == F_COUPLING || g_fault == F_SPRULE)) {
        for (int i = 0; i < BOIDS_MAX_SPECIES; i++)
            for (int j = 0; j < BOIDS_MAX_SPECIES; j++) {
                if (g_fault == F_COUPLING) q.coupling[i][j] = 1;
                if (g_fault == F_SPRULE) q.rule[i][j] = BOIDS_RULE_NONE;
            }
        if (g_fault == F_SPRULE) {
            q.sp[0].speed = q.speed;
            q.sp[0].max_speed = q.max_speed;
            q.sp[0].min_speed = q.min_speed;
            q.sp[0].noise = q.noise; /* Vicsek: one step compares headings, not speeds */
            q.sp[0].vision_radius = q.vision_radius;
        }
        return __real_boids_backend_step(b, &q, steps, err);
    }
    if (g_fault != F_CURVE || steps == 1) return __real_boids_backend_step(b, p, steps, err);
    if (q.model == BOIDS_MODEL_VICSEK)
        q.noise *= 1.5;
    else
        q.alignment_weight *= 0.5;
    return __real_boids_backend_step(b, &q, steps, err);
}

boids_status __wrap_boids_backend_download(boids_backend *b, boids_flock *out, boids_error *err) {
    boids_status st = __real_boids_backend_download(b, out, err);
    if (st || !is_cpu(b) || g_last_steps != 1 || out->n == 0) return st;
    const size_t i = out->n - 1;
    if (g_fault == F_POS) {
        out->x[i] += g_size;
    } else if (g_fault == F_VEL) {
        /* Turned by g_size radians about z: the speed kept, the heading changed. */
        double c = cos(g_size), s = sin(g_size), vx = out->vx[i], vy = out->vy[i];
        out->vx[i] = c * vx - s * vy;
        out->vy[i] = s * vx + c * vy;
    }
    return st;
}

boids_status __wrap_boids_backend_neighbours(boids_backend *b, const boids_params *p,
                                             uint32_t *count, uint64_t *set_hash,
                                             boids_error *err) {
    boids_status st = __real_boids_backend_neighbours(b, p, count, set_hash, err);
    if (!st && is_cpu(b) && g_fault == F_NBR) count[0] += 1;
    return st;
}

int main(int argc, char **argv) {
    static const char *names[] = {"none", "pos", "vel", "nbr", "curve", "coupling", "sprule"};
    if (argc < 2) {
        fprintf(stderr, "usage: verify_fault_test none|pos|vel|nbr|curve|coupling|sprule [verify "
                        "options]\n");
        return 2;
    }
    int f = -1;
    for (int k = 0; k < 7; k++)
        if (!strcmp(argv[1], names[k])) f = k;
    if (f < 0) {
        fprintf(stderr, "verify_fault_test: unknown fault '%s'\n", argv[1]);
        return 2;
    }
    g_fault = (fault)f;
    argv[1] = "verify";
    int rc = boids_cmd_verify(argc - 1, argv + 1);
    const int want = g_fault == F_NONE ? 0 : 1;
    printf("\nverify_fault_test: fault %s, verify exit %d, expected %d: %s\n", names[f], rc, want,
           rc == want ? "ok" : "WRONG");
    return rc == want ? 0 : 1;
}
