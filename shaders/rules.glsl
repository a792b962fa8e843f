// SPDX-License-Identifier: MIT
// The model's rules in GLSL, once for the plane and the box: src/core/rules.h line for line,
// same operations in the same order (see the function of the same name there). The prelude
// defines DIM (2 or 3) and vecD (vec2 or vec3, with ivecD, uvecD, bvecD); every function
// here works on vecD, component-wise where rules.h loops over the axes, and sums over the
// axes in the order x, y(, z) (rules_sum). What the plane and the box do differently (the
// plane's circles and segments against the box's spheres, the Vicsek heading angle against
// the cone) is the one section under `#if DIM == 2` further down.
// P is the uniform block of the prelude, holding rules_k computed in float by rules_k_init
// (the box's depth, half_d, pred_z, food_z beside the plane's fields); I is the interaction
// table. Scalar sums are written out (no length(), dot()) and results are `precise` so that
// no multiply-add is fused, as the C side is built with -ffp-contract=off.

// ---- vectors of the dimension ----------------------------------------------------------------

// (x, y, z) in the dimension: the plane drops z.
vecD rules_vec(float x, float y, float z) {
    return vecD(vec3(x, y, z));
}

// The sum of the components, x + y, then + z in the box.
float rules_sum(vecD a) {
    precise float s = a.x + a.y;
    if (DIM == 3) s += a[DIM - 1];
    return s;
}

float rules_dot(vecD a, vecD b) {
    precise vecD q = a * b;
    return rules_sum(q);
}

float rules_d2(vecD d) {
    return rules_dot(d, d);
}

vecD rules_side() {
    return rules_vec(P.width, P.height, P.depth);
}

// ---- neighbours and the flocking forces -------------------------------------------------------

struct Acc {
    uint n;         // neighbours seen
    vecD mv;        // sum of neighbour velocities (alignment target)
    vecD c;         // sum of offsets to neighbours (cohesion target)
    vecD s;         // sum of -d / |d|^2 over close neighbours (separation target)
    bool separated; // at least one neighbour with 0 < |d|^2 < separation_radius^2
};

// ---- species (docs/model.md, "Species"): rules.h's rules_k_species ----------------------
// SPC is the species of the boid being steered (steer.glsl sets it); 0, the default, reads P,
// whose constants are species 0's, so that a shader that never sets it (the neighbours and
// follow passes, the topological ones) is the model without species, and reads no S. Species
// s >= 1 reads its row of the block S (prelude: boids_gpu_species).
uint SPC = 0u;
float k_max_speed() { return SPC == 0u ? P.max_speed : S.a[SPC].x; }
float k_min_speed() { return SPC == 0u ? P.min_speed : S.a[SPC].y; }
float k_max_force() { return SPC == 0u ? P.max_force : S.a[SPC].z; }
float k_vision2() { return SPC == 0u ? P.vision2 : S.a[SPC].w; }
float k_sep2() { return SPC == 0u ? P.sep2 : S.b[SPC].x; }
float k_w_sep() { return SPC == 0u ? P.w_sep : S.b[SPC].y; }
float k_w_align() { return SPC == 0u ? P.w_align : S.b[SPC].z; }
float k_w_coh() { return SPC == 0u ? P.w_coh : S.b[SPC].w; }
float k_speed() { return SPC == 0u ? P.speed : S.c[SPC].x; }
float k_noise() { return SPC == 0u ? P.noise : S.c[SPC].y; }
float k_cos_half_noise() { return SPC == 0u ? P.cos_half_noise : S.c[SPC].z; }

// rules_species_of: the species of boid `id` (0 without species).
uint rules_species_of(uint id) {
    for (uint s = 1u; s < S.count.x; s++)
        if (id < S.end[s]) return s;
    return 0u;
}

// rules_wrap per axis: d - side above half the side, d + side below minus half.
vecD rules_wrap(vecD d, vecD side, vecD halfside) {
    precise vecD lo = d + side, hi = d - side;
    return mix(mix(d, lo, lessThan(d, -halfside)), hi, greaterThan(d, halfside));
}

// Offset from p to p2 under the boundary (shortest image per axis).
vecD rules_offset(vecD p, vecD p2) {
    precise vecD d = p2 - p;
    if (P.wrap != 0u) d = rules_wrap(d, rules_side(), rules_vec(P.half_w, P.half_h, P.half_d));
    return d;
}

bool rules_in_fov(vecD d, float d2, vecD v) {
    if (P.full_fov != 0u) return true;
    precise float dt = rules_dot(v, d);
    precise float vv = rules_d2(v);
    if (vv == 0.0 || d2 == 0.0) return true;
    precise float lim = P.cos_half_fov * sqrt(vv * d2);
    return dt >= lim;
}

// The neighbour rule, decided here once for every shader that needs it (steer, neighbours,
// the topological selection, the viewer's follow pass): does boid j, at offset d from boid
// i with |d|^2 = d2 (self: j is i), count for boid i, which moves with v?
//   Reynolds: j != i, d2 < R^2, within the field of view (rules_sees in rules.h);
//   Vicsek:   d2 <= R^2, itself included, no field of view.
// With topological neighbours these are the candidates, of which select.glsl keeps the k
// nearest (never itself: Vicsek adds it besides the k), and the radius applies only with
// k_in_vision. src/app/verify_float.c's candidate_f is the same rule in C.
// rules_neighbour_r2 takes the vision radius squared: with species, the boid's species'
// (species.glsl, neighbours.comp, and select.glsl after species.glsl); rules_neighbour, P's,
// in every other loop, so that a flock without species runs the candidate loop it always ran.
bool rules_neighbour_r2(bool self, vecD d, float d2, vecD v, float vision2) {
    bool vicsek = P.vicsek != 0u;
    if (self) return vicsek;
    if ((P.topo == 0u || P.k_in_vision != 0u) && !(vicsek ? d2 <= vision2 : d2 < vision2))
        return false;
    return vicsek || rules_in_fov(d, d2, v);
}

bool rules_neighbour(bool self, vecD d, float d2, vecD v) {
    return rules_neighbour_r2(self, d, d2, v, P.vision2);
}

Acc rules_acc_init() {
    return Acc(0u, vecD(0.0), vecD(0.0), vecD(0.0), false);
}

void rules_acc_add(inout Acc a, vecD d, float d2, vecD v2) {
    a.n += 1u;
    a.mv += v2;
    a.c += d;
    if (0.0 < d2 && d2 < P.sep2) {
        precise vecD q = d / d2;
        a.s -= q;
        a.separated = true;
    }
}

vecD rules_steer(vecD d, vecD v) {
    precise float m = sqrt(rules_d2(d));
    if (m == 0.0) return vecD(0.0);
    precise vecD g = d / m * k_max_speed() - v;
    precise float n = sqrt(rules_d2(g));
    if (n > k_max_force()) g = g / n * k_max_force();
    return g;
}

// a += w * the steer towards d.
void rules_add_steer(float w, vecD d, vecD v, inout vecD a) {
    vecD f = rules_steer(d, v);
    precise vecD s = a + w * f;
    a = s;
}

// Applies the boundary to a moved position: wrap once into [0, L) per axis, reflect off the
// walls (the flags tell the caller which velocity components to mirror), or nothing on the
// open boundary.
bvecD rules_boundary(inout vecD p) {
    vecD side = rules_side();
    precise vecD n = p;
    bvecD flip = bvecD(false);
    if (P.wrap != 0u) {
        precise vecD lo = n + side, hi = n - side;
        n = mix(mix(n, hi, greaterThanEqual(n, side)), lo, lessThan(n, vecD(0.0)));
    } else if (P.walls != 0u) {
        bvecD below = lessThan(n, vecD(0.0)), above = greaterThan(n, side);
        precise vecD up = -n, down = side - (n - side);
        n = mix(mix(n, down, above), up, below);
        flip = bvecD(uvecD(below) | uvecD(above));
    }
    p = n;
    return flip;
}

vecD rules_mirror(vecD nrm, vecD v) {
    precise float dt = rules_dot(v, nrm), nn = rules_d2(nrm);
    if (!(dt < 0.0) || nn == 0.0) return v;
    precise float q = 2.0 * dt / nn;
    precise vecD o = v - q * nrm;
    return o;
}

// ---- obstacles: rules.h's geometry in float, function for function ------------------------
// I is the interaction block of the prelude, rules_k's table (boids_gpu_interact_init). The
// decisions (inside, touch, hit) use only products, sums and comparisons, which GLSL rounds
// as C does: the shaders decide them bit for bit as the float CPU path. In the box every
// obstacle is a sphere (round), laid out as a circle at (x, y) with its z in I.obs_z.

struct Obst {
    bool round;  // a circle (plane) or sphere (box); else a segment (plane only)
    vecD c;      // round: the centre; a segment: its first end
    vecD e;      // a segment's second end
    vecD m;      // the centre of its bound
    float r, r2; // round: radius and its square
    float bound; // radius of the bound around m
};

Obst rules_obst(uint i) {
    vec4 a = I.obs_a[i], b = I.obs_b[i];
    float z = I.obs_z[i >> 2u][i & 3u];
    return Obst(I.kinds[i >> 2u][i & 3u] != 0u, rules_vec(a.x, a.y, z), rules_vec(a.z, a.w, z),
                rules_vec(b.x, b.y, z), b.z, b.w, I.bounds[i >> 2u][i & 3u]);
}

bool rules_near(Obst o, vecD p, float reach) {
    vecD d = rules_offset(p, o.m);
    precise float rr = o.bound + reach;
    precise float rr2 = rr * rr;
    return rules_d2(d) < rr2;
}

float rules_slack(vecD p) {
    precise float s = rules_sum(abs(p)) * (1.0 / 65536.0);
    return s;
}

// Strictly inside a round obstacle.
bool rules_in_round(Obst o, vecD p) {
    return rules_d2(rules_offset(p, o.c)) < o.r2;
}

// The parameter t in [0, 1] of the point of segment [0, e] nearest q.
float rules_seg_t(vecD q, vecD e) {
    precise float l2 = rules_d2(e);
    if (l2 == 0.0) return 0.0;
    precise float t = rules_dot(q, e) / l2;
    return t < 0.0 ? 0.0 : t > 1.0 ? 1.0 : t;
}

// Does the look-ahead ending at e (relative to p) threaten the round obstacle o? Sets w, the
// direction to steer along.
bool rules_avoid_round(Obst o, vecD p, vecD e, out vecD w) {
    vecD d = rules_offset(p, o.c);
    float t = rules_seg_t(d, e);
    precise vecD q = e * t - d;
    precise float rc = o.r + P.clear;
    precise float rc2 = rc * rc;
    w = q;
    if (!(rules_d2(q) < rc2)) return false;
    if (all(equal(q, vecD(0.0)))) w = -d;
    return true;
}

const float VICSEK_TOL = 1e-5;                   // RULES_VICSEK_TOL in float
const float PI_F = 3.14159265358979323846264338; // (float)M_PI

// Defined below the dimension's section, which uses them.
void rules_block(vecD p, inout vecD n, inout vecD v);
float noise_u(uint step, uint id);
float noise_u2(uint step, uint id);
vecD vicsek_menu(vecD s, uint n, vec2 u, out float noise);

// ---- what the plane and the box do differently -----------------------------------------------
// rules_avoid_dir (o threatens the look-ahead e: steer along w), rules_hit (the move m from p
// to n enters o), rules_normal (the normal o reflects a boid at p along) and vicsek_update
// (the Vicsek model's new velocity from the sum s of n unit headings and the noise variates
// u, noise_uv's: the plane uses u.x; moves p).
#if DIM == 2
// The plane: circles decide "passes within" after a division (the nearest point's t), and
// segments; the Vicsek heading is an angle turned by the noise.

// Returns the ends (a, b) of segment o relative to the boid at p, shifted by whole periods
// to o's image nearest p.
vec4 rules_seg_rel(Obst o, vec2 p) {
    float sx = 0.0, sy = 0.0;
    if (P.wrap != 0u) {
        precise float mx = o.m.x - p.x, my = o.m.y - p.y;
        if (mx > P.half_w) sx = -P.width;
        else if (mx < -P.half_w) sx = P.width;
        if (my > P.half_h) sy = -P.height;
        else if (my < -P.half_h) sy = P.height;
    }
    precise float ax = o.c.x - p.x + sx, ay = o.c.y - p.y + sy;
    precise float bx = o.e.x - p.x + sx, by = o.e.y - p.y + sy;
    return vec4(ax, ay, bx, by);
}

// rules_seg_t for the segment [a, a + ab].
float rules_seg_t2(float px, float py, float ax, float ay, float abx, float aby) {
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

vec2 rules_seg_normal(vec4 s) {
    precise float abx = s.z - s.x, aby = s.w - s.y;
    precise float side = aby * s.x - abx * s.y;
    return side < 0.0 ? vec2(aby, -abx) : vec2(-aby, abx);
}

bool rules_avoid_dir(Obst o, vec2 p, vec2 e, out vec2 w) {
    if (o.round) return rules_avoid_round(o, p, e, w);
    vec4 s = rules_seg_rel(o, p);
    if (rules_touch(e.x, e.y, s.x, s.y, s.z, s.w)) {
        w = rules_seg_normal(s);
        return true;
    }
    precise float abx = s.z - s.x, aby = s.w - s.y;
    precise float best = 0.0, bwx = 0.0, bwy = 0.0;
    for (int c = 0; c < 4; c++) {
        precise float wx, wy;
        if (c < 2) {
            float px = c != 0 ? e.x : 0.0, py = c != 0 ? e.y : 0.0;
            float t = rules_seg_t2(px, py, s.x, s.y, abx, aby);
            precise float qx = s.x + abx * t, qy = s.y + aby * t;
            wx = px - qx;
            wy = py - qy;
        } else {
            float qx = c == 2 ? s.x : s.z, qy = c == 2 ? s.y : s.w;
            float t = rules_seg_t(vec2(qx, qy), e);
            wx = e.x * t - qx;
            wy = e.y * t - qy;
        }
        precise float w2 = wx * wx + wy * wy;
        if (c == 0 || w2 < best) {
            best = w2;
            bwx = wx;
            bwy = wy;
        }
    }
    precise float clear2 = P.clear * P.clear;
    w = vec2(bwx, bwy);
    return best < clear2;
}

bool rules_hit(Obst o, vec2 p, vec2 n, vec2 m) {
    if (o.round) {
        if (rules_in_round(o, n)) return true;
        vec2 a = rules_offset(p, o.c);
        float t = rules_seg_t(a, m);
        precise vec2 q = m * t - a;
        return rules_d2(q) < o.r2;
    }
    vec4 s = rules_seg_rel(o, p);
    if (!rules_touch(m.x, m.y, s.x, s.y, s.z, s.w)) return false;
    precise float abx = s.z - s.x, aby = s.w - s.y;
    precise float d1 = aby * s.x - abx * s.y;
    precise float d2 = abx * (m.y - s.y) - aby * (m.x - s.x);
    bool on = d1 == 0.0 && rules_in_box(0.0, 0.0, s.x, s.y, s.z, s.w);
    return !on || d2 == 0.0;
}

vec2 rules_normal(Obst o, vec2 p) {
    return o.round ? rules_offset(o.c, p) : rules_seg_normal(rules_seg_rel(o, p));
}


// C's atan2: GLSL leaves atan(0, 0) undefined, and a resting agent with a zero sum reaches it.
float atan2_c(float y, float x) {
    if (x == 0.0 && y == 0.0) {
        float a = (floatBitsToUint(x) >> 31) != 0u ? PI_F : 0.0;
        return (floatBitsToUint(y) >> 31) != 0u ? -a : a;
    }
    return atan(y, x);
}

// vicsek_xi: the vectorial noise's unit vector at the angle 2 pi u.x.
vec2 vicsek_xi(vec2 u) {
    precise float phi = (2.0 * PI_F) * u.x;
    return vec2(cos(phi), sin(phi));
}

// vicsek_update: the move with the old velocity, then the new heading's velocity. n is the
// number of headings summed (itself included), u.x the noise variate; s goes through the
// menu (vicsek_menu) first.
vec2 vicsek_update(vec2 s0, uint n, vec2 u, inout vec2 p, vec2 v) {
    float noise;
    vec2 s = vicsek_menu(s0, n, u, noise);
    precise float m = sqrt(rules_d2(s));
    precise float lim = float(n) * VICSEK_TOL;
    precise float heading;
    if (m <= lim)
        heading = atan2_c(v.y, v.x); // zero sum: keep the previous heading
    else
        heading = atan2_c(s.y, s.x);
    precise float du = u.x - 0.5;
    precise float dh = noise * du;
    heading += dh;
    precise vec2 np = p + v * P.dt;
    bvec2 flip = rules_boundary(np);
    if (flip.x) heading = PI_F - heading; // the heading mirrors with the velocity
    if (flip.y) heading = -heading;
    precise vec2 h = vec2(cos(heading), sin(heading));
    if (I.counts.z != 0u) rules_block(p, np, h);
    p = np;
    precise vec2 nv = k_speed() * h;
    return nv;
}

#else
// The box: spheres decide "passes within" without a division; the Vicsek heading turns
// within the noise cone.

bool rules_avoid_dir(Obst o, vec3 p, vec3 e, out vec3 w) {
    return rules_avoid_round(o, p, e, w);
}

bool rules_hit(Obst o, vec3 p, vec3 n, vec3 m) {
    if (rules_in_round(o, n)) return true;
    vec3 a = rules_offset(p, o.c);
    precise float am = rules_dot(a, m);
    float mm = rules_d2(m);
    if (!(0.0 < am && am < mm)) return false;
    precise float lhs = (rules_d2(a) - o.r2) * mm;
    precise float rhs = am * am;
    return lhs < rhs;
}

vec3 rules_normal(Obst o, vec3 p) {
    return rules_offset(o.c, p);
}

// vicsek3_basis: t1, t2 completing the unit e to an orthonormal basis (Duff et al. 2017).
void vicsek_basis(vec3 e, out vec3 t1, out vec3 t2) {
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
vec3 vicsek_direction(vec3 s, uint n, vec3 v, float u1, float u2, float noise) {
    precise float m = sqrt(rules_d2(s));
    precise float lim = float(n) * VICSEK_TOL;
    vec3 src = s;
    if (m <= lim) {
        m = sqrt(rules_d2(v));
        src = v;
    }
    vec3 d;
    if (m == 0.0) {
        d = vec3(1.0, 0.0, 0.0);
    } else {
        precise vec3 q = src / m;
        d = q;
    }
    if (noise == 0.0) return d; // no turn: the mean direction exactly
    precise float ct = 1.0 - u1 * (1.0 - k_cos_half_noise());
    precise float ct2 = ct * ct;
    precise float st = sqrt(ct2 < 1.0 ? 1.0 - ct2 : 0.0);
    precise float phi = (2.0 * PI_F) * u2;
    precise float cp = cos(phi), sp = sin(phi);
    vec3 t1, t2;
    vicsek_basis(d, t1, t2);
    precise vec3 t = ct * d + st * (cp * t1 + sp * t2);
    precise float len = sqrt(rules_d2(t));
    precise vec3 r = t / len;
    return r;
}

// vicsek_xi: the vectorial noise's unit vector, z = 1 - 2 u.x at the azimuth 2 pi u.y.
vec3 vicsek_xi(vec2 u) {
    precise float z = 1.0 - 2.0 * u.x;
    precise float z2 = z * z;
    precise float r = sqrt(z2 < 1.0 ? 1.0 - z2 : 0.0);
    precise float phi = (2.0 * PI_F) * u.y;
    precise float x = r * cos(phi), y = r * sin(phi);
    return vec3(x, y, z);
}

// vicsek3_update: the move with the old velocity, then the new direction's velocity at
// P.speed, mirrored per axis where a wall reflected the agent; the spheres' hard rule.
vec3 vicsek_update(vec3 s0, uint n, vec2 u, inout vec3 p, vec3 v) {
    float noise;
    vec3 s = vicsek_menu(s0, n, u, noise);
    vec3 d = vicsek_direction(s, n, v, u.x, u.y, noise);
    precise vec3 np = p + v * P.dt;
    bvec3 flip = rules_boundary(np);
    vec3 h = mix(d, -d, flip);
    if (I.counts.z != 0u) rules_block(p, np, h);
    p = np;
    precise vec3 nv = k_speed() * h;
    return nv;
}
#endif

// ---- the table's points and obstacles, and the forces ---------------------------------------

// rules.h's rules_interact: the table's points, then obstacle avoidance; returns a plus their
// forces.
vecD rules_interact(vecD p, vecD v, vecD a) {
    uint np = I.counts.x + I.counts.y;
    for (uint i = 0u; i < np; i++) {
        vec4 q = I.pts[i];
        vecD c = rules_vec(q.x, q.y, I.pts_z[i >> 2u][i & 3u]);
        vecD d = i < I.counts.x ? rules_offset(c, p) : rules_offset(p, c);
        if (rules_d2(d) < q.z) rules_add_steer(q.w, d, v, a);
    }
    if (I.counts.z == 0u) return a;
    precise float s = sqrt(rules_d2(v));
    if (s == 0.0) return a; // a boid at rest looks nowhere
    precise vecD e = v / s * P.avoid_dist;
    precise float reach = P.reach_pad + rules_slack(p);
    for (uint i = 0u; i < I.counts.z; i++) {
        Obst o = rules_obst(i);
        if (!rules_near(o, p, reach)) continue;
        vecD w;
        if (!rules_avoid_dir(o, p, e, w)) continue;
        rules_add_steer(P.w_avoid, w, v, a);
    }
    return a;
}

vecD rules_accel(Acc s, vecD p, vecD v) {
    vecD a = vecD(0.0);
    if (s.separated) rules_add_steer(k_w_sep(), s.s, v, a);
    if (s.n != 0u) {
        rules_add_steer(k_w_align(), s.mv, v, a);
        rules_add_steer(k_w_coh(), s.c, v, a);
    }
    if (P.predator != 0u) { // flee: steer along the offset from the predator to the boid
        vecD d = rules_offset(rules_vec(P.pred_x, P.pred_y, P.pred_z), p);
        if (rules_d2(d) < P.pred_r2) rules_add_steer(P.w_pred, d, v, a);
    }
    if (P.food != 0u) { // seek: steer along the offset from the boid to the food
        vecD d = rules_offset(p, rules_vec(P.food_x, P.food_y, P.food_z));
        if (rules_d2(d) < P.food_r2) rules_add_steer(P.w_food, d, v, a);
    }
    if (P.walls != 0u) { // steer inward within the margin of each edge or face
        vecD in_lo = mix(vecD(0.0), vecD(1.0), lessThan(p, vecD(P.wall_margin)));
        vecD in_hi = mix(vecD(0.0), vecD(1.0), greaterThan(p, rules_side() - P.wall_margin));
        vecD t = in_lo - in_hi;
        if (any(notEqual(t, vecD(0.0)))) rules_add_steer(P.w_wall, t, v, a);
    }
    if (I.counts.x + I.counts.y + I.counts.z != 0u) return rules_interact(p, v, a);
    return a;
}

// The first round obstacle of the table that p is strictly inside, or -1.
int rules_round_at(vecD p) {
    for (uint i = 0u; i < I.counts.z; i++) {
        Obst c = rules_obst(i);
        if (c.round && rules_in_round(c, p)) return int(i);
    }
    return -1;
}

// rules.h's rules_expel: out along the radial, then on along the same ray out of every other
// round obstacle the point lands in.
vecD rules_expel(Obst o, vecD p) {
    precise vecD d = rules_offset(o.c, p);
    precise float dl = sqrt(rules_d2(d));
    if (dl == 0.0) {
        d = rules_vec(1.0, 0.0, 0.0);
        dl = 1.0;
    }
    precise float g = 1.0 / 262144.0;
    precise vecD q = p;
    for (int t = 0; t < 16; t++) {
        precise float s = o.r / dl * (1.0 + g);
        q = o.c + d * s;
        rules_boundary(q);
        if (!rules_in_round(o, q)) break;
        g *= 2.0;
    }
    precise vecD u = d / dl;
    for (uint pass = 0u; pass < I.counts.z; pass++) {
        int i = rules_round_at(q);
        if (i < 0) break;
        Obst c = rules_obst(uint(i));
        vecD from = q;
        vecD e = rules_offset(c.c, from);
        precise float b = rules_dot(e, u), cc = rules_d2(e) - c.r2;
        precise float leave = sqrt(b * b - cc) - b;
        g = 1.0 / 262144.0;
        for (int t = 0; t < 16; t++) {
            precise float s = leave + c.r * g;
            q = from + u * s;
            rules_boundary(q);
            if (!rules_in_round(c, q)) break;
            g *= 2.0;
        }
    }
    return q;
}

// rules.h's rules_block: the obstacles' hard rule for the move from p to n with the new
// velocity v.
void rules_block(vecD p, inout vecD n, inout vecD v) {
    vecD m = rules_offset(p, n);
    precise float reach = rules_sum(abs(m)) + rules_slack(p);
    uvec2 near = uvec2(0u); // the obstacles within reach, tested once: bit i % 32 of word i / 32
    for (uint i = 0u; i < I.counts.z; i++) {
        Obst o = rules_obst(i);
        if (!rules_near(o, p, reach)) continue;
        near[i >> 5u] |= 1u << (i & 31u);
        if (o.round && rules_in_round(o, p)) {
            n = rules_expel(o, p);
            return;
        }
    }
    for (uint i = 0u; i < I.counts.z; i++) {
        if ((near[i >> 5u] >> (i & 31u) & 1u) == 0u) continue;
        Obst o = rules_obst(i);
        if (!rules_hit(o, p, n, m)) continue;
        v = rules_mirror(rules_normal(o, p), v);
        n = p;
        return;
    }
}

// Applies a, clamps the speed, moves by v * dt, applies the boundary and the obstacles'
// hard rule: the new position in p, the new velocity returned.
vecD rules_integrate(vecD a, inout vecD p, vecD v) {
    precise vecD nv = v + a;
    precise float s = sqrt(rules_d2(nv));
    if (s > k_max_speed())
        nv = nv / s * k_max_speed();
    else if (0.0 < s && s < k_min_speed())
        nv = nv / s * k_min_speed();
    precise vecD np = p + nv * P.dt;
    bvecD flip = rules_boundary(np);
    nv = mix(nv, -nv, flip);
    if (I.counts.z != 0u) rules_block(p, np, nv);
    p = np;
    return nv;
}

// ---- the Vicsek model (seed 003): rules.h's vicsek_* -------------------------------------------

// vicsek_add's term: the unit heading of a velocity; a resting agent adds nothing (+0 leaves
// a sum that starts at +0 unchanged).
vecD vicsek_unit(vecD v) {
    precise float m = sqrt(rules_d2(v));
    if (!(m > 0.0)) return vecD(0.0);
    precise vecD u = v / m;
    return u;
}

// vicsek_term: agent j's unit heading u added to the sum s as agent i, of unit heading ui,
// counts it: as it is, or with nematic alignment negated where u . ui < 0.
vecD vicsek_term(vecD ui, vecD u, vecD s) {
    precise vecD r = P.nematic != 0u && rules_dot(ui, u) < 0.0 ? s - u : s + u;
    return r;
}

// vicsek_menu: the aligned vector from the heading sum s of n headings: plus the field, plus
// with vectorial noise noise * n * xi, turned by the chiral angle (about +z in the box);
// noise is the angular noise left to apply (0 with vectorial noise).
vecD vicsek_menu(vecD s, uint n, vec2 u, out float noise) {
    precise vecD t = s;
    noise = k_noise();
    if (P.fld != 0u) t += rules_vec(P.fld_x, P.fld_y, P.fld_z);
    if (P.vec_noise != 0u) {
        precise float a = k_noise() * float(n);
        precise vecD q = a * vicsek_xi(u);
        t += q;
        noise = 0.0;
    }
    if (P.chiral != 0u) {
        precise float x = P.chi_cos * t.x - P.chi_sin * t.y;
        precise float y = P.chi_sin * t.x + P.chi_cos * t.y;
        t.x = x;
        t.y = y;
    }
    return t;
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

uint noise_hash(uint step, uint id) {
    uint h = noise_mix32(id);
    h = noise_mix32(h ^ step);
    h = noise_mix32(h ^ P.noise_seed_hi);
    return noise_mix32(h ^ P.noise_seed_lo);
}

float noise_u(uint step, uint id) {
    return float(noise_hash(step, id) >> 8) * (1.0 / 16777216.0);
}

// boids_noise_u2: the hash of noise_u mixed once more (the box's second variate).
float noise_u2(uint step, uint id) {
    return float(noise_mix32(noise_hash(step, id) ^ 0x9E3779B9u) >> 8) * (1.0 / 16777216.0);
}

// The Vicsek noise variates of boid id in this step, for vicsek_update.
vec2 noise_uv(uint id) {
    return vec2(noise_u(P.step, id), noise_u2(P.step, id));
}

// ---- species: couplings and the rules between species (rules.h's rules_sp_*) ------------------

// A boid's sums of its rules towards each species j: target t[j], whether any boid of j was
// within the rule's radius, chase's nearest (distance, id).
struct SpAcc {
    vecD t[4];
    float best2[4];
    uint best_id[4];
    bool hit[4];
};

SpAcc rules_sp_acc_init() {
    SpAcc a;
    for (int j = 0; j < 4; j++) {
        a.t[j] = vecD(0.0);
        a.best2[j] = 0.0;
        a.best_id[j] = 0u;
        a.hit[j] = false;
    }
    return a;
}

// rules_sp_see: a neighbour of species sj at offset d (|d|^2 = d2), velocity v2, to the
// flocking sums, coupled by S.coup[SPC][sj] (separation unweighted, within the species' sep2):
// rules.h's rules_sp_see. Topological neighbours come here directly, metric ones through
// rules_sp_add.
void rules_sp_see(inout Acc a, vecD d, float d2, float sep2, vecD v2, uint sj) {
    float w = S.coup[SPC][sj];
    a.n += 1u;
    precise vecD wv = w * v2;
    precise vecD wd = w * d;
    precise vecD mv = a.mv + wv;
    precise vecD c = a.c + wd;
    a.mv = mv;
    a.c = c;
    if (0.0 < d2 && d2 < sep2) {
        precise vecD q = d / d2;
        a.s -= q;
        a.separated = true;
    }
}

// rules_sp_add: the other boid `id` of species sj at offset d (|d|^2 = d2), velocity v2, to
// the flocking sums if it sees it (rules_sp_see) and to the rule towards sj within its radius
// (whatever the neighbour rule: topological steers pass sees false).
void rules_sp_add(inout Acc a, inout SpAcc s, vecD d, float d2, float sep2, vecD v2, uint sj,
                  uint id, bool sees) {
    if (sees) rules_sp_see(a, d, d2, sep2, v2, sj);
    uint r = S.rule[SPC][sj];
    if (r == 0u || !(d2 < S.rule_r2[SPC][sj])) return;
    if (r == 1u) { // avoid
        if (!(0.0 < d2)) return;
        precise vecD q = d / d2;
        s.t[sj] -= q;
    } else if (r == 2u) { // flee
        s.t[sj] -= d;
    } else { // chase: the nearest, ties to the lower id
        if (s.hit[sj] && !(d2 < s.best2[sj] || (d2 == s.best2[sj] && id < s.best_id[sj])))
            return;
        s.t[sj] = d;
        s.best2[sj] = d2;
        s.best_id[sj] = id;
    }
    s.hit[sj] = true;
}

// rules_sp_accel: rules_accel, then each species' rule in species order.
vecD rules_sp_accel(Acc a, SpAcc s, vecD p, vecD v) {
    vecD acc = rules_accel(a, p, v);
    for (uint j = 0u; j < S.count.x; j++)
        if (s.hit[j]) rules_add_steer(S.rule_w[SPC][j], s.t[j], v, acc);
    return acc;
}

// rules_sp_vterm: agent j's heading u (species sj) weighted by the coupling into the sum s;
// false (not counted) for a coupling of 0.
bool rules_sp_vterm(vecD ui, vecD u, uint sj, inout vecD s) {
    float w = S.coup[SPC][sj];
    if (w == 0.0) return false;
    precise vecD wu = w * u;
    s = vicsek_term(ui, wu, s);
    return true;
}
