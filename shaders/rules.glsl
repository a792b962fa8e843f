// SPDX-License-Identifier: MIT
// The model's rules in GLSL: src/core/rules.h line for line, same operations in the same
// order (see the function of the same name there). P is the uniform block of the prelude,
// holding rules_k computed in float by rules_k_init. Scalar expressions are written out
// (no length(), dot()) and results are `precise` so that no multiply-add is fused, as the C
// side is built with -ffp-contract=off.

struct Acc {
    uint n;         // neighbours seen
    float mvx, mvy; // sum of neighbour velocities (alignment target)
    float cx, cy;   // sum of offsets to neighbours (cohesion target)
    float sx, sy;   // sum of -d / |d|^2 over close neighbours (separation target)
    bool separated; // at least one neighbour with 0 < |d|^2 < separation_radius^2
};

float rules_wrap(float d, float side, float halfside) {
    if (d > halfside) return d - side;
    if (d < -halfside) return d + side;
    return d;
}

// Offset from (x, y) to (x2, y2) under the boundary.
vec2 rules_offset(float x, float y, float x2, float y2) {
    precise float dx = x2 - x;
    precise float dy = y2 - y;
    if (P.wrap != 0u) {
        dx = rules_wrap(dx, P.width, P.half_w);
        dy = rules_wrap(dy, P.height, P.half_h);
    }
    return vec2(dx, dy);
}

bool rules_in_fov(float dx, float dy, float d2, float vx, float vy) {
    if (P.full_fov != 0u) return true;
    precise float dt = vx * dx + vy * dy;
    precise float vv = vx * vx + vy * vy;
    if (vv == 0.0 || d2 == 0.0) return true;
    precise float lim = P.cos_half_fov * sqrt(vv * d2);
    return dt >= lim;
}

// The neighbour rule, decided here once for every shader that needs it (steer, neighbours,
// the topological selection, the viewer's follow pass): does boid j, at offset (dx, dy) from
// boid i with |d|^2 = d2 (self: j is i), count for boid i, which moves with (vx, vy)?
//   Reynolds: j != i, d2 < R^2, within the field of view (rules_sees in rules.h);
//   Vicsek:   d2 <= R^2, itself included, no field of view.
// With topological neighbours these are the candidates, of which select.glsl keeps the k
// nearest (never itself: Vicsek adds it besides the k), and the radius applies only with
// k_in_vision. src/app/verify_float.c's candidate_f is the same rule in C.
bool rules_neighbour(bool self, float dx, float dy, float d2, float vx, float vy) {
    bool vicsek = P.vicsek != 0u;
    if (self) return vicsek;
    if ((P.topo == 0u || P.k_in_vision != 0u) && !(vicsek ? d2 <= P.vision2 : d2 < P.vision2))
        return false;
    return vicsek || rules_in_fov(dx, dy, d2, vx, vy);
}

Acc rules_acc_init() {
    return Acc(0u, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, false);
}

void rules_acc_add(inout Acc a, float dx, float dy, float d2, float vx2, float vy2) {
    a.n += 1u;
    a.mvx += vx2;
    a.mvy += vy2;
    a.cx += dx;
    a.cy += dy;
    if (0.0 < d2 && d2 < P.sep2) {
        precise float qx = dx / d2;
        precise float qy = dy / d2;
        a.sx -= qx;
        a.sy -= qy;
        a.separated = true;
    }
}

vec2 rules_steer(float dx, float dy, float vx, float vy) {
    precise float m = sqrt(dx * dx + dy * dy);
    if (m == 0.0) return vec2(0.0);
    precise float gx = dx / m * P.max_speed - vx;
    precise float gy = dy / m * P.max_speed - vy;
    precise float n = sqrt(gx * gx + gy * gy);
    if (n > P.max_force) {
        gx = gx / n * P.max_force;
        gy = gy / n * P.max_force;
    }
    return vec2(gx, gy);
}

// ---- obstacles: rules.h's geometry in float, function for function --------------------------
// I is the interaction block of the prelude, rules_k's table (boids_gpu_interact_init). The
// decisions rules_in_circle and rules_touch use only products, sums and comparisons, which
// GLSL rounds as C does: the shaders decide them bit for bit as the float CPU path.

struct Obst {
    bool circle;
    float x0, y0, x1, y1, mx, my, r, r2, bound;
};

Obst rules_obst(uint i) {
    vec4 a = I.obs_a[i], b = I.obs_b[i];
    return Obst(I.kinds[i >> 2u][i & 3u] != 0u, a.x, a.y, a.z, a.w, b.x, b.y, b.z, b.w,
                I.bounds[i >> 2u][i & 3u]);
}

bool rules_near(Obst o, float x, float y, float reach) {
    vec2 d = rules_offset(x, y, o.mx, o.my);
    precise float rr = o.bound + reach;
    precise float d2 = d.x * d.x + d.y * d.y;
    precise float rr2 = rr * rr;
    return d2 < rr2;
}

float rules_slack(float x, float y) {
    precise float s = (abs(x) + abs(y)) * (1.0 / 65536.0);
    return s;
}

bool rules_in_circle(Obst o, float x, float y) {
    vec2 d = rules_offset(x, y, o.x0, o.y0);
    precise float d2 = d.x * d.x + d.y * d.y;
    return d2 < o.r2;
}

// Returns the ends (ax, ay, bx, by) relative to the boid.
vec4 rules_seg_rel(Obst o, float x, float y) {
    float sx = 0.0, sy = 0.0;
    if (P.wrap != 0u) {
        precise float mx = o.mx - x, my = o.my - y;
        if (mx > P.half_w) sx = -P.width;
        else if (mx < -P.half_w) sx = P.width;
        if (my > P.half_h) sy = -P.height;
        else if (my < -P.half_h) sy = P.height;
    }
    precise float ax = o.x0 - x + sx, ay = o.y0 - y + sy;
    precise float bx = o.x1 - x + sx, by = o.y1 - y + sy;
    return vec4(ax, ay, bx, by);
}

float rules_seg_t(float px, float py, float ax, float ay, float abx, float aby) {
    precise float l2 = abx * abx + aby * aby;
    if (l2 == 0.0) return 0.0;
    precise float t = ((px - ax) * abx + (py - ay) * aby) / l2;
    return t < 0.0 ? 0.0 : t > 1.0 ? 1.0 : t;
}

bool rules_in_box(float px, float py, float ax, float ay, float bx, float by) {
    bool in_x = ax <= bx ? ax <= px && px <= bx : bx <= px && px <= ax;
    bool in_y = ay <= by ? ay <= py && py <= by : by <= py && py <= ay;
    return in_x && in_y;
}

bool rules_touch(float mx, float my, float ax, float ay, float bx, float by) {
    precise float abx = bx - ax, aby = by - ay;
    precise float d1 = aby * ax - abx * ay;
    precise float d2 = abx * (my - ay) - aby * (mx - ax);
    precise float d3 = mx * ay - my * ax;
    precise float d4 = mx * by - my * bx;
    if (((d1 > 0.0 && d2 < 0.0) || (d1 < 0.0 && d2 > 0.0)) &&
        ((d3 > 0.0 && d4 < 0.0) || (d3 < 0.0 && d4 > 0.0)))
        return true;
    return (d1 == 0.0 && rules_in_box(0.0, 0.0, ax, ay, bx, by)) ||
           (d2 == 0.0 && rules_in_box(mx, my, ax, ay, bx, by)) ||
           (d3 == 0.0 && rules_in_box(ax, ay, 0.0, 0.0, mx, my)) ||
           (d4 == 0.0 && rules_in_box(bx, by, 0.0, 0.0, mx, my));
}

vec2 rules_seg_normal(float ax, float ay, float bx, float by) {
    precise float abx = bx - ax, aby = by - ay;
    precise float side = aby * ax - abx * ay;
    return side < 0.0 ? vec2(aby, -abx) : vec2(-aby, abx);
}

// Returns (hit, tx, ty): hit 1.0 when the look-ahead ending at (ex, ey) threatens o.
vec3 rules_avoid_dir(Obst o, float x, float y, float ex, float ey) {
    if (o.circle) {
        vec2 d = rules_offset(x, y, o.x0, o.y0);
        float t = rules_seg_t(d.x, d.y, 0.0, 0.0, ex, ey);
        precise float wx = ex * t - d.x, wy = ey * t - d.y;
        precise float rc = o.r + P.clear;
        precise float w2 = wx * wx + wy * wy;
        precise float rc2 = rc * rc;
        if (!(w2 < rc2)) return vec3(0.0);
        if (wx == 0.0 && wy == 0.0) {
            wx = -d.x;
            wy = -d.y;
        }
        return vec3(1.0, wx, wy);
    }
    vec4 s = rules_seg_rel(o, x, y);
    if (rules_touch(ex, ey, s.x, s.y, s.z, s.w))
        return vec3(1.0, rules_seg_normal(s.x, s.y, s.z, s.w));
    precise float abx = s.z - s.x, aby = s.w - s.y;
    precise float best = 0.0, bwx = 0.0, bwy = 0.0;
    for (int c = 0; c < 4; c++) {
        precise float wx, wy;
        if (c < 2) {
            float px = c != 0 ? ex : 0.0, py = c != 0 ? ey : 0.0;
            float t = rules_seg_t(px, py, s.x, s.y, abx, aby);
            precise float qx = s.x + abx * t, qy = s.y + aby * t;
            wx = px - qx;
            wy = py - qy;
        } else {
            float qx = c == 2 ? s.x : s.z, qy = c == 2 ? s.y : s.w;
            float t = rules_seg_t(qx, qy, 0.0, 0.0, ex, ey);
            wx = ex * t - qx;
            wy = ey * t - qy;
        }
        precise float w2 = wx * wx + wy * wy;
        if (c == 0 || w2 < best) {
            best = w2;
            bwx = wx;
            bwy = wy;
        }
    }
    precise float clear2 = P.clear * P.clear;
    return vec3(best < clear2 ? 1.0 : 0.0, bwx, bwy);
}

// rules.h's rules_interact: the table's points, then obstacle avoidance; returns acc plus
// their forces.
vec2 rules_interact(float x, float y, float vx, float vy, vec2 acc) {
    precise float ax = acc.x, ay = acc.y;
    vec2 f;
    uint np = I.counts.x + I.counts.y;
    for (uint i = 0u; i < np; i++) {
        vec4 q = I.pts[i];
        vec2 d = i < I.counts.x ? rules_offset(q.x, q.y, x, y) : rules_offset(x, y, q.x, q.y);
        precise float d2 = d.x * d.x + d.y * d.y;
        if (d2 < q.z) {
            f = rules_steer(d.x, d.y, vx, vy);
            ax += q.w * f.x;
            ay += q.w * f.y;
        }
    }
    if (I.counts.z == 0u) return vec2(ax, ay);
    precise float s = sqrt(vx * vx + vy * vy);
    if (s == 0.0) return vec2(ax, ay); // a boid at rest looks nowhere
    precise float ex = vx / s * P.avoid_dist, ey = vy / s * P.avoid_dist;
    precise float reach = P.reach_pad + rules_slack(x, y);
    for (uint i = 0u; i < I.counts.z; i++) {
        Obst o = rules_obst(i);
        if (!rules_near(o, x, y, reach)) continue;
        vec3 t = rules_avoid_dir(o, x, y, ex, ey);
        if (t.x == 0.0) continue;
        f = rules_steer(t.y, t.z, vx, vy);
        ax += P.w_avoid * f.x;
        ay += P.w_avoid * f.y;
    }
    return vec2(ax, ay);
}

vec2 rules_accel(Acc a, float x, float y, float vx, float vy) {
    precise float ax = 0.0, ay = 0.0;
    vec2 f;
    if (a.separated) {
        f = rules_steer(a.sx, a.sy, vx, vy);
        ax += P.w_sep * f.x;
        ay += P.w_sep * f.y;
    }
    if (a.n != 0u) {
        f = rules_steer(a.mvx, a.mvy, vx, vy);
        ax += P.w_align * f.x;
        ay += P.w_align * f.y;
        f = rules_steer(a.cx, a.cy, vx, vy);
        ax += P.w_coh * f.x;
        ay += P.w_coh * f.y;
    }
    if (P.predator != 0u) { // flee: steer along the offset from the predator to the boid
        vec2 d = rules_offset(P.pred_x, P.pred_y, x, y);
        if (d.x * d.x + d.y * d.y < P.pred_r2) {
            f = rules_steer(d.x, d.y, vx, vy);
            ax += P.w_pred * f.x;
            ay += P.w_pred * f.y;
        }
    }
    if (P.food != 0u) { // seek: steer along the offset from the boid to the food
        vec2 d = rules_offset(x, y, P.food_x, P.food_y);
        if (d.x * d.x + d.y * d.y < P.food_r2) {
            f = rules_steer(d.x, d.y, vx, vy);
            ax += P.w_food * f.x;
            ay += P.w_food * f.y;
        }
    }
    if (P.walls != 0u) { // steer inward within the margin of each edge
        float tx = 0.0, ty = 0.0;
        if (x < P.wall_margin) tx += 1.0;
        if (x > P.width - P.wall_margin) tx -= 1.0;
        if (y < P.wall_margin) ty += 1.0;
        if (y > P.height - P.wall_margin) ty -= 1.0;
        if (tx != 0.0 || ty != 0.0) {
            f = rules_steer(tx, ty, vx, vy);
            ax += P.w_wall * f.x;
            ay += P.w_wall * f.y;
        }
    }
    if (I.counts.x + I.counts.y + I.counts.z != 0u) return rules_interact(x, y, vx, vy, vec2(ax, ay));
    return vec2(ax, ay);
}

// Applies the boundary to a moved position: wrap once into [0, L), reflect off the walls
// (the flags tell the caller which velocity component to mirror), or nothing on the open
// plane.
bvec2 rules_boundary(inout float x, inout float y) {
    precise float nx = x, ny = y;
    bvec2 flip = bvec2(false);
    if (P.wrap != 0u) {
        if (nx < 0.0) nx += P.width;
        else if (nx >= P.width) nx -= P.width;
        if (ny < 0.0) ny += P.height;
        else if (ny >= P.height) ny -= P.height;
    } else if (P.walls != 0u) {
        if (nx < 0.0) {
            nx = -nx;
            flip.x = true;
        } else if (nx > P.width) {
            nx = P.width - (nx - P.width);
            flip.x = true;
        }
        if (ny < 0.0) {
            ny = -ny;
            flip.y = true;
        } else if (ny > P.height) {
            ny = P.height - (ny - P.height);
            flip.y = true;
        }
    }
    x = nx;
    y = ny;
    return flip;
}

bool rules_hit(Obst o, float x, float y, float nx, float ny, float mx, float my) {
    if (o.circle) {
        if (rules_in_circle(o, nx, ny)) return true;
        vec2 a = rules_offset(x, y, o.x0, o.y0);
        float t = rules_seg_t(a.x, a.y, 0.0, 0.0, mx, my);
        precise float cx = mx * t - a.x, cy = my * t - a.y;
        precise float c2 = cx * cx + cy * cy;
        return c2 < o.r2;
    }
    vec4 s = rules_seg_rel(o, x, y);
    if (!rules_touch(mx, my, s.x, s.y, s.z, s.w)) return false;
    precise float abx = s.z - s.x, aby = s.w - s.y;
    precise float d1 = aby * s.x - abx * s.y;
    precise float d2 = abx * (my - s.y) - aby * (mx - s.x);
    bool on = d1 == 0.0 && rules_in_box(0.0, 0.0, s.x, s.y, s.z, s.w);
    return !on || d2 == 0.0;
}

vec2 rules_mirror(float nx, float ny, float vx, float vy) {
    precise float dt = vx * nx + vy * ny, nn = nx * nx + ny * ny;
    if (!(dt < 0.0) || nn == 0.0) return vec2(vx, vy);
    precise float q = 2.0 * dt / nn;
    precise float ox = vx - q * nx, oy = vy - q * ny;
    return vec2(ox, oy);
}

// rules.h's rules_circle_at: the first circle of the table that (x, y) is strictly inside,
// or -1.
int rules_circle_at(float x, float y) {
    for (uint i = 0u; i < I.counts.z; i++) {
        Obst c = rules_obst(i);
        if (c.circle && rules_in_circle(c, x, y)) return int(i);
    }
    return -1;
}

// rules.h's rules_expel: out along the radial, then on along the same ray out of every other
// circle the point lands in.
vec2 rules_expel(Obst o, float x, float y) {
    vec2 d = rules_offset(o.x0, o.y0, x, y);
    precise float dx = d.x, dy = d.y;
    precise float dl = sqrt(dx * dx + dy * dy);
    if (dl == 0.0) {
        dx = 1.0;
        dy = 0.0;
        dl = 1.0;
    }
    precise float g = 1.0 / 262144.0;
    precise float qx = x, qy = y;
    for (int t = 0; t < 16; t++) {
        precise float s = o.r / dl * (1.0 + g);
        qx = o.x0 + dx * s;
        qy = o.y0 + dy * s;
        rules_boundary(qx, qy);
        if (!rules_in_circle(o, qx, qy)) break;
        g *= 2.0;
    }
    precise float ux = dx / dl, uy = dy / dl;
    for (uint pass = 0u; pass < I.counts.z; pass++) {
        int i = rules_circle_at(qx, qy);
        if (i < 0) break;
        Obst c = rules_obst(uint(i));
        precise float px = qx, py = qy;
        vec2 e = rules_offset(c.x0, c.y0, px, py);
        precise float ex = e.x, ey = e.y;
        precise float b = ex * ux + ey * uy, cc = ex * ex + ey * ey - c.r2;
        precise float leave = sqrt(b * b - cc) - b;
        g = 1.0 / 262144.0;
        for (int t = 0; t < 16; t++) {
            precise float s = leave + c.r * g;
            qx = px + ux * s;
            qy = py + uy * s;
            rules_boundary(qx, qy);
            if (!rules_in_circle(c, qx, qy)) break;
            g *= 2.0;
        }
    }
    return vec2(qx, qy);
}

// rules.h's rules_block: returns the position and velocity after the obstacles' hard rule.
vec4 rules_block(float x, float y, float nx, float ny, float vx, float vy) {
    vec2 m = rules_offset(x, y, nx, ny);
    precise float reach = abs(m.x) + abs(m.y) + rules_slack(x, y);
    uvec2 near = uvec2(0u); // the obstacles within reach, tested once: bit i % 32 of word i / 32
    for (uint i = 0u; i < I.counts.z; i++) {
        Obst o = rules_obst(i);
        if (!rules_near(o, x, y, reach)) continue;
        near[i >> 5u] |= 1u << (i & 31u);
        if (o.circle && rules_in_circle(o, x, y)) return vec4(rules_expel(o, x, y), vx, vy);
    }
    for (uint i = 0u; i < I.counts.z; i++) {
        if ((near[i >> 5u] >> (i & 31u) & 1u) == 0u) continue;
        Obst o = rules_obst(i);
        if (!rules_hit(o, x, y, nx, ny, m.x, m.y)) continue;
        vec2 n;
        if (o.circle) {
            n = rules_offset(o.x0, o.y0, x, y);
        } else {
            vec4 s = rules_seg_rel(o, x, y);
            n = rules_seg_normal(s.x, s.y, s.z, s.w);
        }
        return vec4(x, y, rules_mirror(n.x, n.y, vx, vy));
    }
    return vec4(nx, ny, vx, vy);
}

// Returns the new (x, y, vx, vy).
vec4 rules_integrate(float ax, float ay, float x, float y, float vx, float vy) {
    precise float nvx = vx + ax, nvy = vy + ay;
    precise float v = sqrt(nvx * nvx + nvy * nvy);
    if (v > P.max_speed) {
        nvx = nvx / v * P.max_speed;
        nvy = nvy / v * P.max_speed;
    } else if (0.0 < v && v < P.min_speed) {
        nvx = nvx / v * P.min_speed;
        nvy = nvy / v * P.min_speed;
    }
    precise float nx = x + nvx * P.dt, ny = y + nvy * P.dt;
    bvec2 flip = rules_boundary(nx, ny);
    if (flip.x) nvx = -nvx;
    if (flip.y) nvy = -nvy;
    if (I.counts.z != 0u) return rules_block(x, y, nx, ny, nvx, nvy);
    return vec4(nx, ny, nvx, nvy);
}

// ---- Vicsek model (seed 003): rules.h's vicsek_add and vicsek_update ------------------------

const float VICSEK_TOL = 1e-5;                   // RULES_VICSEK_TOL in float
const float PI_F = 3.14159265358979323846264338; // (float)M_PI

// vicsek_add's term: the unit heading of a velocity; a resting agent adds nothing (+0 leaves
// a sum that starts at +0 unchanged).
vec2 vicsek_unit(float vx, float vy) {
    precise float v = sqrt(vx * vx + vy * vy);
    if (!(v > 0.0)) return vec2(0.0);
    precise float ux = vx / v;
    precise float uy = vy / v;
    return vec2(ux, uy);
}

// C's atan2: GLSL leaves atan(0, 0) undefined, and a resting agent with a zero sum reaches it.
float atan2_c(float y, float x) {
    if (x == 0.0 && y == 0.0) {
        float a = (floatBitsToUint(x) >> 31) != 0u ? PI_F : 0.0;
        return (floatBitsToUint(y) >> 31) != 0u ? -a : a;
    }
    return atan(y, x);
}

// boids_mix32 and boids_noise_u of include/boids/backend.h in the same 32-bit arithmetic:
// the 24-bit variate is exact in float, so every backend draws the same noise.
uint noise_mix32(uint h) {
    h ^= h >> 16;
    h *= 0x7feb352du;
    h ^= h >> 15;
    h *= 0x846ca68bu;
    h ^= h >> 16;
    return h;
}

float noise_u(uint step, uint id) {
    uint h = noise_mix32(id);
    h = noise_mix32(h ^ step);
    h = noise_mix32(h ^ P.noise_seed_hi);
    h = noise_mix32(h ^ P.noise_seed_lo);
    return float(h >> 8) * (1.0 / 16777216.0);
}

// vicsek_update: the move with the old velocity, then the new heading's velocity. n is the
// number of headings summed (itself included), u the noise variate. Returns (x, y, vx, vy).
vec4 vicsek_update(float sx, float sy, uint n, float u, float x, float y, float vx, float vy) {
    precise float m = sqrt(sx * sx + sy * sy);
    precise float lim = float(n) * VICSEK_TOL;
    precise float heading;
    if (m <= lim)
        heading = atan2_c(vy, vx); // zero sum: keep the previous heading
    else
        heading = atan2_c(sy, sx);
    precise float du = u - 0.5;
    precise float dh = P.noise * du;
    heading += dh;
    precise float nx = x + vx * P.dt, ny = y + vy * P.dt;
    bvec2 flip = rules_boundary(nx, ny);
    if (flip.x) heading = PI_F - heading; // the heading mirrors with the velocity
    if (flip.y) heading = -heading;
    precise float hx = cos(heading), hy = sin(heading);
    if (I.counts.z != 0u) {
        vec4 b = rules_block(x, y, nx, ny, hx, hy);
        nx = b.x;
        ny = b.y;
        hx = b.z;
        hy = b.w;
    }
    precise float nvx = P.speed * hx;
    precise float nvy = P.speed * hy;
    return vec4(nx, ny, nvx, nvy);
}
