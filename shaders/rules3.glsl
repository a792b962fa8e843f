// SPDX-License-Identifier: MIT
// The model's rules in three dimensions: src/core/rules3.h line for line, same operations in
// the same order (see the function of the same name there), composed after rules.glsl,
// whose rules_wrap, noise_mix32, noise_u and VICSEK_TOL it shares as rules3.h shares
// rules.h's. P holds the rules3_k constants in float (depth, half_d, pred_z, food_z beside
// the planar ones), I the interaction table (rules3_k_set_interact's, in float). Results are
// `precise`, as in rules.glsl, so that no multiply-add is fused.

struct Acc3 {
    uint n;         // neighbours seen
    vec3 mv;        // sum of neighbour velocities (alignment target)
    vec3 c;         // sum of offsets to neighbours (cohesion target)
    vec3 s;         // sum of -d / |d|^2 over close neighbours (separation target)
    bool separated; // at least one neighbour with 0 < |d|^2 < separation_radius^2
};

// Offset from p to p2 under the boundary (shortest image per axis).
vec3 rules3_offset(vec3 p, vec3 p2) {
    precise float dx = p2.x - p.x;
    precise float dy = p2.y - p.y;
    precise float dz = p2.z - p.z;
    if (P.wrap != 0u) {
        dx = rules_wrap(dx, P.width, P.half_w);
        dy = rules_wrap(dy, P.height, P.half_h);
        dz = rules_wrap(dz, P.depth, P.half_d);
    }
    return vec3(dx, dy, dz);
}

float rules3_d2(vec3 d) {
    precise float d2 = d.x * d.x + d.y * d.y + d.z * d.z;
    return d2;
}

bool rules3_in_fov(vec3 d, float d2, vec3 v) {
    if (P.full_fov != 0u) return true;
    precise float dt = v.x * d.x + v.y * d.y + v.z * d.z;
    precise float vv = v.x * v.x + v.y * v.y + v.z * v.z;
    if (vv == 0.0 || d2 == 0.0) return true;
    precise float lim = P.cos_half_fov * sqrt(vv * d2);
    return dt >= lim;
}

// rules_neighbour of rules.glsl in 3-D: does a boid at offset d (|d|^2 = d2; self: itself)
// count for a boid moving with v? Reynolds: not itself, d2 < R^2, in the cone (rules3_sees);
// Vicsek: d2 <= R^2, itself included. Topological: the candidates, the radius only with
// k_in_vision.
bool rules3_neighbour(bool self, vec3 d, float d2, vec3 v) {
    bool vicsek = P.vicsek != 0u;
    if (self) return vicsek;
    if ((P.topo == 0u || P.k_in_vision != 0u) && !(vicsek ? d2 <= P.vision2 : d2 < P.vision2))
        return false;
    return vicsek || rules3_in_fov(d, d2, v);
}

Acc3 rules3_acc_init() {
    return Acc3(0u, vec3(0.0), vec3(0.0), vec3(0.0), false);
}

void rules3_acc_add(inout Acc3 a, vec3 d, float d2, vec3 v2) {
    a.n += 1u;
    a.mv.x += v2.x;
    a.mv.y += v2.y;
    a.mv.z += v2.z;
    a.c.x += d.x;
    a.c.y += d.y;
    a.c.z += d.z;
    if (0.0 < d2 && d2 < P.sep2) {
        precise float qx = d.x / d2;
        precise float qy = d.y / d2;
        precise float qz = d.z / d2;
        a.s.x -= qx;
        a.s.y -= qy;
        a.s.z -= qz;
        a.separated = true;
    }
}

vec3 rules3_steer(vec3 d, vec3 v) {
    precise float m = sqrt(d.x * d.x + d.y * d.y + d.z * d.z);
    if (m == 0.0) return vec3(0.0);
    precise float gx = d.x / m * P.max_speed - v.x;
    precise float gy = d.y / m * P.max_speed - v.y;
    precise float gz = d.z / m * P.max_speed - v.z;
    precise float n = sqrt(gx * gx + gy * gy + gz * gz);
    if (n > P.max_force) {
        gx = gx / n * P.max_force;
        gy = gy / n * P.max_force;
        gz = gz / n * P.max_force;
    }
    return vec3(gx, gy, gz);
}

void rules3_add_steer(float w, vec3 d, vec3 v, inout vec3 a) {
    vec3 f = rules3_steer(d, v);
    precise float ax = a.x + w * f.x;
    precise float ay = a.y + w * f.y;
    precise float az = a.z + w * f.z;
    a = vec3(ax, ay, az);
}

// ---- the interaction table: rules3.h's points and spheres, function for function ----------
// I is the interaction block of the prelude as boids_gpu3_interact_init fills it: the points'
// z in pts_z, sphere i's centre (x, y), radius and r2 in obs_b, its z in obs_z. The hard
// rule's decisions (rules3_in_sphere, rules3_hit) use products, sums and comparisons only,
// which GLSL rounds as C does: the shaders decide them bit for bit as the float CPU path.

struct Sphere {
    vec3 c;
    float r, r2, bound;
};

Sphere rules3_sphere(uint i) {
    vec4 b = I.obs_b[i];
    return Sphere(vec3(b.x, b.y, I.obs_z[i >> 2u][i & 3u]), b.z, b.w, I.bounds[i >> 2u][i & 3u]);
}

bool rules3_near(Sphere o, vec3 p, float reach) {
    vec3 d = rules3_offset(p, o.c);
    precise float rr = o.bound + reach;
    precise float rr2 = rr * rr;
    return rules3_d2(d) < rr2;
}

float rules3_slack(vec3 p) {
    precise float s = (abs(p.x) + abs(p.y) + abs(p.z)) * (1.0 / 65536.0);
    return s;
}

bool rules3_in_sphere(Sphere o, vec3 p) {
    return rules3_d2(rules3_offset(p, o.c)) < o.r2;
}

float rules3_seg_t(vec3 q, vec3 e) {
    precise float l2 = e.x * e.x + e.y * e.y + e.z * e.z;
    if (l2 == 0.0) return 0.0;
    precise float t = (q.x * e.x + q.y * e.y + q.z * e.z) / l2;
    return t < 0.0 ? 0.0 : t > 1.0 ? 1.0 : t;
}

// Returns (hit, wx, wy, wz): hit 1.0 when the look-ahead ending at e threatens o.
vec4 rules3_avoid_dir(Sphere o, vec3 p, vec3 e) {
    vec3 d = rules3_offset(p, o.c);
    float t = rules3_seg_t(d, e);
    precise float wx = e.x * t - d.x, wy = e.y * t - d.y, wz = e.z * t - d.z;
    precise float rc = o.r + P.clear;
    precise float rc2 = rc * rc;
    if (!(rules3_d2(vec3(wx, wy, wz)) < rc2)) return vec4(0.0);
    if (wx == 0.0 && wy == 0.0 && wz == 0.0) {
        wx = -d.x;
        wy = -d.y;
        wz = -d.z;
    }
    return vec4(1.0, wx, wy, wz);
}

// rules3_interact: the table's points, then the spheres' avoidance; returns a plus their
// forces.
vec3 rules3_interact(vec3 p, vec3 v, vec3 a) {
    uint np = I.counts.x + I.counts.y;
    for (uint i = 0u; i < np; i++) {
        vec4 q = I.pts[i];
        vec3 c = vec3(q.x, q.y, I.pts_z[i >> 2u][i & 3u]);
        vec3 d = i < I.counts.x ? rules3_offset(c, p) : rules3_offset(p, c);
        if (rules3_d2(d) < q.z) rules3_add_steer(q.w, d, v, a);
    }
    if (I.counts.z == 0u) return a;
    precise float s = sqrt(v.x * v.x + v.y * v.y + v.z * v.z);
    if (s == 0.0) return a; // a boid at rest looks nowhere
    precise float ex = v.x / s * P.avoid_dist, ey = v.y / s * P.avoid_dist;
    precise float ez = v.z / s * P.avoid_dist;
    precise float reach = P.reach_pad + rules3_slack(p);
    for (uint i = 0u; i < I.counts.z; i++) {
        Sphere o = rules3_sphere(i);
        if (!rules3_near(o, p, reach)) continue;
        vec4 w = rules3_avoid_dir(o, p, vec3(ex, ey, ez));
        if (w.x == 0.0) continue;
        rules3_add_steer(P.w_avoid, w.yzw, v, a);
    }
    return a;
}

float rules3_wall_dir(float x, float side) {
    float t = 0.0;
    if (x < P.wall_margin) t += 1.0;
    if (x > side - P.wall_margin) t -= 1.0;
    return t;
}

vec3 rules3_accel(Acc3 s, vec3 p, vec3 v) {
    vec3 a = vec3(0.0);
    if (s.separated) rules3_add_steer(P.w_sep, s.s, v, a);
    if (s.n != 0u) {
        rules3_add_steer(P.w_align, s.mv, v, a);
        rules3_add_steer(P.w_coh, s.c, v, a);
    }
    if (P.predator != 0u) { // flee: steer along the offset from the predator to the boid
        vec3 d = rules3_offset(vec3(P.pred_x, P.pred_y, P.pred_z), p);
        if (rules3_d2(d) < P.pred_r2) rules3_add_steer(P.w_pred, d, v, a);
    }
    if (P.food != 0u) { // seek: steer along the offset from the boid to the food
        vec3 d = rules3_offset(p, vec3(P.food_x, P.food_y, P.food_z));
        if (rules3_d2(d) < P.food_r2) rules3_add_steer(P.w_food, d, v, a);
    }
    if (P.walls != 0u) { // steer inward within the margin of each face
        vec3 t = vec3(rules3_wall_dir(p.x, P.width), rules3_wall_dir(p.y, P.height),
                      rules3_wall_dir(p.z, P.depth));
        if (t.x != 0.0 || t.y != 0.0 || t.z != 0.0) rules3_add_steer(P.w_wall, t, v, a);
    }
    if (I.counts.x + I.counts.y + I.counts.z != 0u) return rules3_interact(p, v, a);
    return a;
}

// The boundary along one axis of length side: wrap once into [0, side), reflect off the
// faces (true: mirror the velocity), or nothing (open).
bool rules3_axis(inout float x, float side) {
    precise float nx = x;
    bool flip = false;
    if (P.wrap != 0u) {
        if (nx < 0.0)
            nx += side;
        else if (nx >= side)
            nx -= side;
    } else if (P.walls != 0u) {
        if (nx < 0.0) {
            nx = -nx;
            flip = true;
        } else if (nx > side) {
            nx = side - (nx - side);
            flip = true;
        }
    }
    x = nx;
    return flip;
}

bvec3 rules3_boundary(inout vec3 p) {
    float x = p.x, y = p.y, z = p.z;
    bvec3 flip = bvec3(rules3_axis(x, P.width), rules3_axis(y, P.height), rules3_axis(z, P.depth));
    p = vec3(x, y, z);
    return flip;
}

bool rules3_hit(Sphere o, vec3 p, vec3 n, vec3 m) {
    if (rules3_in_sphere(o, n)) return true;
    vec3 a = rules3_offset(p, o.c);
    precise float am = a.x * m.x + a.y * m.y + a.z * m.z;
    float mm = rules3_d2(m);
    if (!(0.0 < am && am < mm)) return false;
    precise float lhs = (rules3_d2(a) - o.r2) * mm;
    precise float rhs = am * am;
    return lhs < rhs;
}

vec3 rules3_mirror(vec3 nrm, vec3 v) {
    precise float dt = v.x * nrm.x + v.y * nrm.y + v.z * nrm.z;
    precise float nn = nrm.x * nrm.x + nrm.y * nrm.y + nrm.z * nrm.z;
    if (!(dt < 0.0) || nn == 0.0) return v;
    precise float q = 2.0 * dt / nn;
    precise float ox = v.x - q * nrm.x, oy = v.y - q * nrm.y, oz = v.z - q * nrm.z;
    return vec3(ox, oy, oz);
}

vec3 rules3_expel(Sphere o, vec3 p) {
    vec3 d = rules3_offset(o.c, p);
    precise float dx = d.x, dy = d.y, dz = d.z;
    precise float dl = sqrt(dx * dx + dy * dy + dz * dz);
    if (dl == 0.0) {
        dx = 1.0;
        dy = 0.0;
        dz = 0.0;
        dl = 1.0;
    }
    precise float g = 1.0 / 262144.0;
    vec3 q = p;
    for (int t = 0; t < 16; t++) {
        precise float s = o.r / dl * (1.0 + g);
        precise float qx = o.c.x + dx * s, qy = o.c.y + dy * s, qz = o.c.z + dz * s;
        q = vec3(qx, qy, qz);
        rules3_boundary(q);
        if (!rules3_in_sphere(o, q)) break;
        g *= 2.0;
    }
    // rules3.h: on along the same ray out of every other sphere the point lands in.
    precise float ux = dx / dl, uy = dy / dl, uz = dz / dl;
    for (uint pass = 0u; pass < I.counts.z; pass++) {
        int at = -1;
        for (uint i = 0u; i < I.counts.z && at < 0; i++)
            if (rules3_in_sphere(rules3_sphere(i), q)) at = int(i);
        if (at < 0) break;
        Sphere c = rules3_sphere(uint(at));
        vec3 from = q;
        vec3 e = rules3_offset(c.c, from);
        precise float b = e.x * ux + e.y * uy + e.z * uz;
        precise float cc = rules3_d2(e) - c.r2;
        precise float leave = sqrt(b * b - cc) - b;
        g = 1.0 / 262144.0;
        for (int t = 0; t < 16; t++) {
            precise float s = leave + c.r * g;
            precise float qx = from.x + ux * s, qy = from.y + uy * s, qz = from.z + uz * s;
            q = vec3(qx, qy, qz);
            rules3_boundary(q);
            if (!rules3_in_sphere(c, q)) break;
            g *= 2.0;
        }
    }
    return q;
}

// rules3_block: the spheres' hard rule for the move from p to n with new velocity v.
void rules3_block(vec3 p, inout vec3 n, inout vec3 v) {
    vec3 m = rules3_offset(p, n);
    precise float reach = abs(m.x) + abs(m.y) + abs(m.z) + rules3_slack(p);
    uvec2 near = uvec2(0u); // the spheres within reach, tested once: bit i % 32 of word i / 32
    for (uint i = 0u; i < I.counts.z; i++) {
        Sphere o = rules3_sphere(i);
        if (!rules3_near(o, p, reach)) continue;
        near[i >> 5u] |= 1u << (i & 31u);
        if (rules3_in_sphere(o, p)) {
            n = rules3_expel(o, p);
            return;
        }
    }
    for (uint i = 0u; i < I.counts.z; i++) {
        if ((near[i >> 5u] >> (i & 31u) & 1u) == 0u) continue;
        Sphere o = rules3_sphere(i);
        if (!rules3_hit(o, p, n, m)) continue;
        v = rules3_mirror(rules3_offset(o.c, p), v);
        n = p;
        return;
    }
}

// Applies a, clamps the speed, moves by v * dt, applies the boundary and the spheres' hard
// rule: the new position in p, the new velocity returned.
vec3 rules3_integrate(vec3 a, inout vec3 p, vec3 v) {
    precise float nvx = v.x + a.x, nvy = v.y + a.y, nvz = v.z + a.z;
    precise float s = sqrt(nvx * nvx + nvy * nvy + nvz * nvz);
    if (s > P.max_speed) {
        nvx = nvx / s * P.max_speed;
        nvy = nvy / s * P.max_speed;
        nvz = nvz / s * P.max_speed;
    } else if (0.0 < s && s < P.min_speed) {
        nvx = nvx / s * P.min_speed;
        nvy = nvy / s * P.min_speed;
        nvz = nvz / s * P.min_speed;
    }
    precise float px = p.x + nvx * P.dt, py = p.y + nvy * P.dt, pz = p.z + nvz * P.dt;
    vec3 np = vec3(px, py, pz);
    bvec3 flip = rules3_boundary(np);
    vec3 nv = vec3(flip.x ? -nvx : nvx, flip.y ? -nvy : nvy, flip.z ? -nvz : nvz);
    if (I.counts.z != 0u) rules3_block(p, np, nv);
    p = np;
    return nv;
}

// ---- Vicsek model in 3-D: rules3.h's vicsek3_* ----------------------------------------------

// vicsek3_add's term: the unit velocity; a resting agent adds nothing.
vec3 vicsek3_unit(vec3 v) {
    precise float m = sqrt(v.x * v.x + v.y * v.y + v.z * v.z);
    if (!(m > 0.0)) return vec3(0.0);
    precise float ux = v.x / m;
    precise float uy = v.y / m;
    precise float uz = v.z / m;
    return vec3(ux, uy, uz);
}

// boids_noise_u2 of include/boids/backend.h: the hash of noise_u mixed once more.
float noise_u2(uint step, uint id) {
    uint h = noise_mix32(id);
    h = noise_mix32(h ^ step);
    h = noise_mix32(h ^ P.noise_seed_hi);
    h = noise_mix32(h ^ P.noise_seed_lo);
    h = noise_mix32(h ^ 0x9E3779B9u);
    return float(h >> 8) * (1.0 / 16777216.0);
}

// vicsek3_basis: t1, t2 completing the unit e to an orthonormal basis (Duff et al. 2017).
void vicsek3_basis(vec3 e, out vec3 t1, out vec3 t2) {
    float sgn = e.z >= 0.0 ? 1.0 : -1.0;
    precise float a = -1.0 / (sgn + e.z);
    precise float b = e.x * e.y * a;
    precise float t1x = 1.0 + sgn * e.x * e.x * a;
    precise float t1y = sgn * b;
    precise float t1z = -sgn * e.x;
    precise float t2y = sgn + e.y * e.y * a;
    t1 = vec3(t1x, t1y, t1z);
    t2 = vec3(b, t2y, -e.y);
}

// vicsek3_direction: the mean direction of the sum s of n unit vectors (the previous one,
// v / |v|, below n * VICSEK_TOL; +x at rest) turned within the noise cone by the variates
// u1, u2. cos(eta / 2) is P.cos_half_noise, computed on the host as the float path computes
// it (C's cos rounded to float), so the GPU's own cos is used only for the azimuth.
vec3 vicsek3_direction(vec3 s, uint n, vec3 v, float u1, float u2) {
    precise float m = sqrt(s.x * s.x + s.y * s.y + s.z * s.z);
    precise float lim = float(n) * VICSEK_TOL;
    vec3 src = s;
    if (m <= lim) {
        m = sqrt(v.x * v.x + v.y * v.y + v.z * v.z);
        src = v;
    }
    vec3 d;
    if (m == 0.0) {
        d = vec3(1.0, 0.0, 0.0);
    } else {
        precise float dx = src.x / m, dy = src.y / m, dz = src.z / m;
        d = vec3(dx, dy, dz);
    }
    if (P.noise == 0.0) return d; // no turn: the mean direction exactly
    precise float ct = 1.0 - u1 * (1.0 - P.cos_half_noise);
    precise float ct2 = ct * ct;
    precise float st = sqrt(ct2 < 1.0 ? 1.0 - ct2 : 0.0);
    precise float phi = (2.0 * PI_F) * u2;
    precise float cp = cos(phi), sp = sin(phi);
    vec3 t1, t2;
    vicsek3_basis(d, t1, t2);
    precise float ex = ct * d.x + st * (cp * t1.x + sp * t2.x);
    precise float ey = ct * d.y + st * (cp * t1.y + sp * t2.y);
    precise float ez = ct * d.z + st * (cp * t1.z + sp * t2.z);
    precise float len = sqrt(ex * ex + ey * ey + ez * ez);
    precise float rx = ex / len, ry = ey / len, rz = ez / len;
    return vec3(rx, ry, rz);
}

// vicsek3_update: the move with the old velocity, then the new direction's velocity at
// P.speed, mirrored per axis where a wall reflected the agent; the spheres' hard rule.
// Returns the new velocity, the new position in p.
vec3 vicsek3_update(vec3 s, uint n, float u1, float u2, inout vec3 p, vec3 v) {
    vec3 d = vicsek3_direction(s, n, v, u1, u2);
    precise float px = p.x + v.x * P.dt, py = p.y + v.y * P.dt, pz = p.z + v.z * P.dt;
    vec3 np = vec3(px, py, pz);
    bvec3 flip = rules3_boundary(np);
    vec3 h = vec3(flip.x ? -d.x : d.x, flip.y ? -d.y : d.y, flip.z ? -d.z : d.z);
    if (I.counts.z != 0u) rules3_block(p, np, h);
    p = np;
    precise float vx = P.speed * h.x;
    precise float vy = P.speed * h.y;
    precise float vz = P.speed * h.z;
    return vec3(vx, vy, vz);
}
