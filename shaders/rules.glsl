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
    precise float nvx = P.speed * cos(heading);
    precise float nvy = P.speed * sin(heading);
    return vec4(nx, ny, nvx, nvy);
}
