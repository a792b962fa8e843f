/* SPDX-License-Identifier: MIT */
/* The uniform blocks: the parameters' constants (from the rules, rules.h, in float) and the
 * interaction table, their upload for a step, their layout checked against GL's; and the
 * device's limits on the flock's size and on the parameters. */
#include <stdio.h>
#include <string.h>

#include "pipeline.h"

/* The float constants of the rules exactly as the float CPU path computes them. */
#define RULES_INSTANCE_FLOAT
#include "rules_instances.h"
#undef RULES_INSTANCE_FLOAT

_Static_assert((int)BOIDS_GPU_MAX_K == (int)BOIDS_GPU_MAX_K_SHADER, "one topological k limit");

/* ---- layout checks ----------------------------------------------------------------------- */

/* The members of the interaction block (prelude.h's boids_gpu_interact), each array by its
 * first element. */
static const boids_gpu_field interact_fields[] = {
    {"counts", offsetof(boids_gpu_interact, counts)},
    {"kinds[0]", offsetof(boids_gpu_interact, kinds)},
    {"bounds[0]", offsetof(boids_gpu_interact, bounds)},
    {"pts[0]", offsetof(boids_gpu_interact, pts)},
    {"obs_a[0]", offsetof(boids_gpu_interact, obs_a)},
    {"obs_b[0]", offsetof(boids_gpu_interact, obs_b)},
    {"pts_z[0]", offsetof(boids_gpu_interact, pts_z)},
    {"obs_z[0]", offsetof(boids_gpu_interact, obs_z)},
};

/* Uniform block `name` as GL lays it out in prog must be its C struct: no larger than size
 * bytes (exactly size where `exact`), and each of its nf members f that GL kept at the C
 * offset. */
static boids_status check_block(GLuint prog, const char *name, const boids_gpu_field *f, size_t nf,
                                GLsizeiptr size, int exact, boids_error *err) {
    GLuint block = glGetProgramResourceIndex(prog, GL_UNIFORM_BLOCK, name);
    if (block == GL_INVALID_INDEX)
        return boids_error_set(err, BOIDS_ERR_RUNTIME, "uniform block %s not found", name);
    GLenum prop = GL_BUFFER_DATA_SIZE;
    GLint data_size = 0;
    glGetProgramResourceiv(prog, GL_UNIFORM_BLOCK, block, 1, &prop, 1, NULL, &data_size);
    if (exact ? data_size != size : data_size > size)
        return boids_error_set(err, BOIDS_ERR_RUNTIME, "uniform block %s: GL size %d%s C size %ld",
                               name, data_size, exact ? "," : " >", (long)size);
    for (size_t i = 0; i < nf; i++) {
        char member[64];
        snprintf(member, sizeof member, "%s.%s", name, f[i].name);
        GLuint u = glGetProgramResourceIndex(prog, GL_UNIFORM, member);
        if (u == GL_INVALID_INDEX) continue; /* optimised away: nothing to disagree on */
        GLenum op = GL_OFFSET;
        GLint off = -1;
        glGetProgramResourceiv(prog, GL_UNIFORM, u, 1, &op, 1, NULL, &off);
        if (off != (GLint)f[i].offset)
            return boids_error_set(err, BOIDS_ERR_RUNTIME,
                                   "uniform block %s: GL offset %d, C offset %zu", member, off,
                                   f[i].offset);
    }
    return BOIDS_OK;
}

boids_status gpu_check_blocks(GLuint prog, GLsizeiptr ubo_size, int interact, boids_error *err) {
    boids_status st = check_block(prog, "Params", boids_gpu_params_fields, BOIDS_GPU_PARAMS_NFIELDS,
                                  ubo_size, 0, err);
    if (st == BOIDS_OK && interact)
        st = check_block(prog, "Interact", interact_fields,
                         sizeof interact_fields / sizeof interact_fields[0],
                         (GLsizeiptr)sizeof(boids_gpu_interact), 1, err);
    return st;
}

/* ---- limits ------------------------------------------------------------------------------ */

/* Slots of the first of the two blocks the state is bound as: as many vec4 as a block holds,
 * ending on an offset the second block's binding may start at. */
size_t gpu_state_split(GLint64 block, GLint align) {
    GLint64 unit = align > 16 ? align : 16;
    return (size_t)(block / unit * unit / 16);
}

size_t boids_gpu_max_count(char *why, size_t size) {
    GLint64 block = 0;
    GLint gx = 0, gy = 0, align = 0;
    glGetInteger64v(GL_MAX_SHADER_STORAGE_BLOCK_SIZE, &block);
    glGetIntegeri_v(GL_MAX_COMPUTE_WORK_GROUP_COUNT, 0, &gx);
    glGetIntegeri_v(GL_MAX_COMPUTE_WORK_GROUP_COUNT, 1, &gy);
    glGetIntegerv(GL_SHADER_STORAGE_BUFFER_OFFSET_ALIGNMENT, &align);
    /* Per block: the vec4 state split over two blocks, and at most 8 bytes a boid in any
     * other (the 64-bit neighbour hashes of verification). */
    size_t by_block = 2 * gpu_state_split(block, align);
    if ((size_t)(block / 8) < by_block) by_block = (size_t)(block / 8);
    size_t by_groups = (size_t)gx * (size_t)gy * BOIDS_GPU_WG;
    /* The 2-D grid of groups covering N may overrun N by a row: 2^31 keeps it in a uint. */
    size_t by_index = (size_t)1 << 31;
    size_t max = by_block;
    if (why)
        snprintf(why, size,
                 "GL_MAX_SHADER_STORAGE_BLOCK_SIZE = %lld bytes: the 16-byte state in two "
                 "blocks, 8 bytes per boid in any other",
                 (long long)block);
    if (by_groups < max) {
        max = by_groups;
        if (why)
            snprintf(why, size, "GL_MAX_COMPUTE_WORK_GROUP_COUNT = %d x %d groups of %d boids", gx,
                     gy, (int)BOIDS_GPU_WG);
    }
    if (by_index < max) {
        max = by_index;
        if (why) snprintf(why, size, "31-bit boid indices");
    }
    return max;
}

boids_status gpu_check_count(size_t n, boids_error *err) {
    char why[160];
    size_t max = boids_gpu_max_count(why, sizeof why);
    if (n == 0) return boids_error_set(err, BOIDS_ERR_INPUT, "GPU backend: N must be at least 1");
    if (n > max)
        return boids_error_set(err, BOIDS_ERR_LIMIT,
                               "GPU backend: N = %zu boids exceeds the device limit (%s); the "
                               "largest N that fits is %zu",
                               n, why, max);
    return BOIDS_OK;
}

/* The GL 4.3 minimums: a 2^24-byte storage block (16 bytes a boid) and 65535 work groups;
 * every conforming context holds this many boids. */
#define GUARANTEED_COUNT ((size_t)1 << 20)
_Static_assert(GUARANTEED_COUNT <= 65535u * BOIDS_GPU_WG, "the work group minimum holds it");

boids_status boids_gpu_check_count(size_t n, boids_error *err) {
    if (n >= 1 && n <= GUARANTEED_COUNT) return BOIDS_OK;
    boids_gl *gl = boids_gl_create(0, err);
    if (!gl) return err ? err->status : BOIDS_ERR_RUNTIME;
    boids_status s = gpu_check_count(n, err);
    boids_gl_destroy(gl);
    return s;
}

/* ---- parameters --------------------------------------------------------------------------- */

boids_status boids_gpu_check_params(const boids_params *p, boids_error *err) {
    if (!(p->width > 0) || !(p->height > 0) || !(p->vision_radius > 0))
        return boids_error_set(err, BOIDS_ERR_INPUT,
                               "GPU backend: width, height and vision_radius must be positive");
    const int topo = p->neighbours == BOIDS_NEIGHBOURS_TOPOLOGICAL;
    if (topo && (p->k < 1 || p->k > BOIDS_GPU_MAX_K))
        return boids_error_set(err, p->k < 1 ? BOIDS_ERR_INPUT : BOIDS_ERR_LIMIT,
                               "GPU backend: k = %ld nearest neighbours; the GPU's limit is k <= "
                               "%d (BOIDS_GPU_MAX_K: the shaders keep the selection in a "
                               "per-invocation list of that size); use --backend cpu for larger k",
                               p->k, (int)BOIDS_GPU_MAX_K);
    return BOIDS_OK;
}

/* The uniform block's fields that are rules_k's of the same name: its reals, and its flags
 * as uint. */
/* clang-format off */
#define FROM_RULES_K(X)                                                                            \
    X(width) X(height) X(depth) X(half_w) X(half_h) X(half_d) X(vision2) X(sep2)                   \
    X(cos_half_fov) X(max_speed) X(min_speed) X(max_force) X(dt) X(w_sep) X(w_align) X(w_coh)     \
    X(wall_margin) X(w_wall) X(pred_x) X(pred_y) X(pred_z) X(pred_r2) X(w_pred) X(food_x)         \
    X(food_y) X(food_z) X(food_r2) X(w_food) X(avoid_dist) X(w_avoid) X(clear) X(reach_pad)     \
    X(chi_cos) X(chi_sin) X(fld_x) X(fld_y) X(fld_z)
/* clang-format on */
#define FLAGS_FROM_RULES_K(X)                                                                      \
    X(full_fov) X(wrap) X(walls) X(predator) X(food) X(vec_noise) X(nematic) X(chiral) X(fld)

void boids_gpu_params_init(boids_gpu_params *u, const boids_params *p) {
    const int topo = p->neighbours == BOIDS_NEIGHBOURS_TOPOLOGICAL;
    *u = (boids_gpu_params){
        .vicsek = p->model == BOIDS_MODEL_VICSEK,
        .topo = (uint32_t)topo,
        .k = topo ? (uint32_t)p->k : 0,
        .k_in_vision = p->k_in_vision != 0,
        .speed = (float)p->speed,
        .noise = (float)p->noise,
        .noise_seed_lo = (uint32_t)(uint64_t)p->noise_seed,
        .noise_seed_hi = (uint32_t)((uint64_t)p->noise_seed >> 32),
        .cos_half_noise = rules_cos_half_noise_f3((float)p->noise),
        .split = UINT32_MAX,
    };
    /* The box's constants serve both dimensions: rules_k_init derives each axis alike, so the
     * first two axes of rules_k_f3 are rules_k_f2's, and the plane's shaders leave the third
     * (depth, half_d, pred_z, food_z) unread. */
    rules_k_f3 k;
    rules_k_init_f3(&k, p);
#define COPY(name)      u->name = k.name;
#define COPY_FLAG(name) u->name = (uint32_t)k.name;
    FROM_RULES_K(COPY)
    FLAGS_FROM_RULES_K(COPY_FLAG)
#undef COPY
#undef COPY_FLAG
}

void boids_gpu_species_init(boids_gpu_species *u, const boids_params *p) {
    memset(u, 0, sizeof *u);
    rules_k_f3 k, ks[BOIDS_MAX_SPECIES];
    rules_k_init_f3(&k, p);
    const int n = p->species < 1                   ? 1
                  : p->species > BOIDS_MAX_SPECIES ? BOIDS_MAX_SPECIES
                                                   : (int)p->species;
    u->count[0] = (uint32_t)n;
    if (n == 1) return;
    rules_k_species_f3(ks, &k, p);
    for (int s = 0; s < n; s++) {
        const rules_k_f3 *q = &ks[s];
        const float a[4] = {q->max_speed, q->min_speed, q->max_force, q->vision2};
        const float b[4] = {q->sep2, q->w_sep, q->w_align, q->w_coh};
        const float c[4] = {q->speed, q->noise, rules_cos_half_noise_f3(q->noise), q->reach2};
        memcpy(u->a[s], a, sizeof a);
        memcpy(u->b[s], b, sizeof b);
        memcpy(u->c[s], c, sizeof c);
        u->end[s] = q->sp_end[s] > UINT32_MAX ? UINT32_MAX : (uint32_t)q->sp_end[s];
        for (int j = 0; j < BOIDS_MAX_SPECIES; j++) {
            u->coup[s][j] = q->coup[j];
            u->rule[s][j] = (uint32_t)q->rule[j];
            u->rule_r2[s][j] = q->rule_r2[j];
            u->rule_w[s][j] = q->rule_w[j];
        }
    }
}

/* Uploads the species block of p and binds it (small: every step). */
void gpu_set_species(gpu_backend *g, const boids_params *p) {
    boids_gpu_species u;
    boids_gpu_species_init(&u, p);
    glBindBuffer(GL_UNIFORM_BUFFER, g->subo);
    glBufferSubData(GL_UNIFORM_BUFFER, 0, sizeof u, &u);
    glBindBuffer(GL_UNIFORM_BUFFER, 0);
    glBindBufferBase(GL_UNIFORM_BUFFER, BOIDS_GPU_UBO_SPECIES, g->subo);
}

/* The interaction table of the world of p in float, as rules.h's rules_k_set_interact puts it
 * beside the float rules_k of dimension DIM (suffix SFX: f2 or f3), into u (prelude.h's
 * layout): a round obstacle's centre is its a = b = m, so the box's spheres fill the planar
 * fields as circles at (x, y) and add their z in obs_z, the points theirs in pts_z. */
#define INTERACT_FILL(SFX, DIM, u, p, t)                                                           \
    do {                                                                                           \
        rules_k_##SFX k;                                                                           \
        rules_table_##SFX tab;                                                                     \
        rules_k_init_##SFX(&k, p);                                                                 \
        rules_k_set_interact_##SFX(&k, &tab, t);                                                   \
        if (!k.tab) break;                                                                         \
        u->counts[0] = (uint32_t)tab.npred;                                                        \
        u->counts[1] = (uint32_t)tab.nattr;                                                        \
        u->counts[2] = (uint32_t)tab.nobst;                                                        \
        for (int i = 0; i < tab.npred + tab.nattr; i++) {                                          \
            const rules_point_##SFX *q = &tab.pts[i];                                              \
            const float v[4] = {q->x, q->y, q->r2, q->w};                                          \
            memcpy(u->pts[i], v, sizeof v);                                                        \
            if (DIM == 3) u->pts_z[i] = q->at[DIM - 1];                                            \
        }                                                                                          \
        for (int i = 0; i < tab.nobst; i++) {                                                      \
            const rules_obst_##SFX *o = &tab.obst[i];                                              \
            const float a[4] = {o->x0, o->y0, o->x1, o->y1}, b[4] = {o->mx, o->my, o->r, o->r2};   \
            u->kinds[i] = (uint32_t)o->round;                                                      \
            u->bounds[i] = o->bound;                                                               \
            memcpy(u->obs_a[i], a, sizeof a);                                                      \
            memcpy(u->obs_b[i], b, sizeof b);                                                      \
            if (DIM == 3) u->obs_z[i] = o->a[DIM - 1];                                             \
        }                                                                                          \
    } while (0)

void boids_gpu_interact_init(boids_gpu_interact *u, const boids_params *p,
                             const boids_interact *t) {
    memset(u, 0, sizeof *u);
    if (p->dim == 3)
        INTERACT_FILL(f3, 3, u, p, t);
    else
        INTERACT_FILL(f2, 2, u, p, t);
}

/* Uploads the interaction table when it or the world it was placed in changed (obstacles
 * move by whole periods under wrap: rules_k_set_interact), and binds its block. */
void gpu_set_interact(gpu_backend *g, const boids_params *p) {
    const double world[4] = {p->width, p->height, p->depth, (double)p->boundary};
    if (!g->inter_valid || g->inter_version != g->base.inter_version ||
        memcmp(world, g->inter_world, sizeof world) != 0) {
        boids_gpu_interact u;
        boids_gpu_interact_init(&u, p, &g->base.inter);
        glBindBuffer(GL_UNIFORM_BUFFER, g->iubo);
        glBufferSubData(GL_UNIFORM_BUFFER, 0, sizeof u, &u);
        glBindBuffer(GL_UNIFORM_BUFFER, 0);
        g->inter_valid = 1;
        g->inter_version = g->base.inter_version;
        memcpy(g->inter_world, world, sizeof world);
    }
    glBindBufferBase(GL_UNIFORM_BUFFER, BOIDS_GPU_UBO_INTERACT, g->iubo);
}
