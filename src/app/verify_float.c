#include <float.h>
#include <math.h>
#include <stdlib.h>

#include "boids/backend.h"
#include "verify.h"

#define RULES_REAL     float
#define RULES_FN(name) name##_f
#include "../core/rules.h" /* the model, in float */

void verify_float_step(const boids_params *p, const boids_flock *in, int reverse,
                       boids_flock *out) {
    rules_k_f k;
    rules_k_init_f(&k, p);
    size_t n = in->n;
    float *s = malloc(6 * n * sizeof(float));
    if (!s) abort();
    float *x = s, *y = s + n, *vx = s + 2 * n, *vy = s + 3 * n, *ax = s + 4 * n, *ay = s + 5 * n;
    for (size_t i = 0; i < n; i++) {
        x[i] = (float)in->x[i];
        y[i] = (float)in->y[i];
        vx[i] = (float)in->vx[i];
        vy[i] = (float)in->vy[i];
    }
#pragma omp parallel for schedule(dynamic, 64)
    for (size_t i = 0; i < n; i++) {
        rules_acc_f a;
        rules_acc_init_f(&a);
        for (size_t q = 0; q < n; q++) {
            size_t j = reverse ? n - 1 - q : q;
            if (j == i) continue;
            float dx, dy;
            rules_offset_f(&k, x[i], y[i], x[j], y[j], &dx, &dy);
            float d2 = dx * dx + dy * dy;
            if (rules_sees_f(&k, dx, dy, d2, vx[i], vy[i]))
                rules_acc_add_f(&k, &a, dx, dy, d2, vx[j], vy[j]);
        }
        rules_accel_f(&k, &a, x[i], y[i], vx[i], vy[i], &ax[i], &ay[i]);
    }
    for (size_t i = 0; i < n; i++) {
        rules_integrate_f(&k, ax[i], ay[i], &x[i], &y[i], &vx[i], &vy[i]);
        out->x[i] = x[i];
        out->y[i] = y[i];
        out->vx[i] = vx[i];
        out->vy[i] = vy[i];
    }
    free(s);
}

double verify_eps_pos(const boids_params *p) {
    double l = p->width > p->height ? p->width : p->height;
    return FLT_EPSILON * l;
}

/* Float error bound of |d|^2 for one pair. An input coordinate c is rounded to float by at
 * most FLT_EPSILON |c| / 2, the difference by FLT_EPSILON |d| / 2, a wrap (+-W) by
 * FLT_EPSILON W / 2; so an offset component is off by at most ex (ey), and |d|^2 by
 * 2 |dx| ex + 2 |dy| ey + ex^2 + ey^2, plus the roundings of the squares and the sum and of
 * the threshold r^2 itself (3 FLT_EPSILON r^2). The band is twice this bound. */
static double band_pair(double r, double ax, double bx, double dx, double ay, double by, double dy,
                        double wx, double wy) {
    double ex = 0.5 * FLT_EPSILON * (fabs(ax) + fabs(bx) + fabs(dx) + wx);
    double ey = 0.5 * FLT_EPSILON * (fabs(ay) + fabs(by) + fabs(dy) + wy);
    return 2.0 *
           (2 * fabs(dx) * ex + 2 * fabs(dy) * ey + ex * ex + ey * ey + 3.0 * FLT_EPSILON * r * r);
}

static void add_amb(verify_amb *a, int in, uint32_t j) {
    a->boid = 1;
    if (a->namb == VERIFY_MAX_AMB) {
        a->overflow = 1;
        return;
    }
    a->in[a->namb] = (unsigned char)in;
    a->hash[a->namb] = boids_neighbour_set_hash(j);
    a->namb++;
}

static double wrap_d(double d, double side, int wrap) {
    if (!wrap) return d;
    if (d > side / 2) return d - side;
    if (d < -side / 2) return d + side;
    return d;
}

void verify_band(const boids_params *p, const boids_flock *f, verify_amb *amb) {
    double e = verify_eps_pos(p);
    int wrap = p->boundary == BOIDS_BOUNDARY_WRAP;
    double rv = p->vision_radius, rs = p->separation_radius;
    double v2 = rv * rv, s2 = rs * rs;
    int full = p->fov >= 360.0;
    double cosh = cos(p->fov * 0.5 * (M_PI / 180.0));
#pragma omp parallel for schedule(dynamic, 64)
    for (size_t i = 0; i < f->n; i++) {
        verify_amb *a = &amb[i];
        a->boid = a->overflow = a->namb = 0;
        double vx = f->vx[i], vy = f->vy[i], sp = sqrt(vx * vx + vy * vy);
        for (size_t j = 0; j < f->n; j++) {
            if (j == i) continue;
            double rdx = f->x[j] - f->x[i], rdy = f->y[j] - f->y[i];
            double dx = wrap_d(rdx, p->width, wrap), dy = wrap_d(rdy, p->height, wrap);
            double d2 = dx * dx + dy * dy;
            /* Cheap reject: no band is wider than a tenth of the vision radius squared. */
            if (d2 > 1.1 * v2) continue;
            double wx = dx != rdx ? p->width : 0, wy = dy != rdy ? p->height : 0;
            double bv = band_pair(rv, f->x[i], f->x[j], dx, f->y[i], f->y[j], dy, wx, wy);
            if (d2 > v2 + bv) continue;
            int amb_pair = fabs(d2 - v2) <= bv;
            /* The shortest image flips when an offset is near half the world. */
            if (wrap && (fabs(fabs(rdx) - p->width / 2) <= 4 * e ||
                         fabs(fabs(rdy) - p->height / 2) <= 4 * e))
                amb_pair = 1;
            if (!full && sp > 0 && d2 > 0) {
                double d = sqrt(d2);
                /* dot and the limit: relative float errors of a few FLT_EPSILON on |v||d|,
                 * plus |v| times the offset error (ex + ey, as in band_pair). */
                double ex = 0.5 * FLT_EPSILON * (fabs(f->x[i]) + fabs(f->x[j]) + fabs(dx) + wx);
                double ey = 0.5 * FLT_EPSILON * (fabs(f->y[i]) + fabs(f->y[j]) + fabs(dy) + wy);
                double bf = 2.0 * (8.0 * FLT_EPSILON * sp * d + (ex + ey) * sp);
                if (fabs(vx * dx + vy * dy - cosh * sp * d) <= bf) amb_pair = 1;
            }
            int in_double = d2 < v2 && (full || sp == 0 || d2 == 0 ||
                                        vx * dx + vy * dy >= cosh * sqrt(sp * sp * d2));
            double bs = band_pair(rs, f->x[i], f->x[j], dx, f->y[i], f->y[j], dy, wx, wy);
            if (amb_pair) {
                add_amb(a, in_double, (uint32_t)j);
            } else if (in_double && fabs(d2 - s2) <= bs) {
                a->boid = 1; /* a sure neighbour at the separation radius */
            }
        }
        double x = f->x[i], y = f->y[i];
        if (p->predator) {
            double dx = wrap_d(x - p->predator_x, p->width, wrap),
                   dy = wrap_d(y - p->predator_y, p->height, wrap);
            if (fabs(dx * dx + dy * dy - p->predator_radius * p->predator_radius) <=
                band_pair(p->predator_radius, x, p->predator_x, dx, y, p->predator_y, dy,
                          wrap ? p->width : 0, wrap ? p->height : 0))
                a->boid = 1;
        }
        if (p->food) {
            double dx = wrap_d(p->food_x - x, p->width, wrap),
                   dy = wrap_d(p->food_y - y, p->height, wrap);
            if (fabs(dx * dx + dy * dy - p->food_radius * p->food_radius) <=
                band_pair(p->food_radius, x, p->food_x, dx, y, p->food_y, dy, wrap ? p->width : 0,
                          wrap ? p->height : 0))
                a->boid = 1;
        }
        if (p->boundary == BOIDS_BOUNDARY_WALLS) {
            double m = p->wall_margin;
            if (fabs(x - m) <= 2 * e || fabs(x - (p->width - m)) <= 2 * e || fabs(y - m) <= 2 * e ||
                fabs(y - (p->height - m)) <= 2 * e)
                a->boid = 1;
        }
    }
}

int verify_neighbours_match(const verify_amb *a, uint32_t ref_count, uint64_t ref_hash,
                            uint32_t count, uint64_t hash) {
    for (unsigned mask = 0; mask < (1u << a->namb); mask++) {
        uint32_t c = ref_count;
        uint64_t h = ref_hash;
        for (unsigned k = 0; k < a->namb; k++) {
            if (!(mask >> k & 1)) continue;
            if (a->in[k]) {
                c--;
                h -= a->hash[k];
            } else {
                c++;
                h += a->hash[k];
            }
        }
        if (c == count && h == hash) return 1;
    }
    return 0;
}
