/* SPDX-License-Identifier: MIT */
/* The GPU step: a counting-sort grid rebuilt every step and the rules in compute shaders.
 *
 * Buffers (N boids, C cells):
 *   state[0], ids[0]  the current state, vec4 (x, y, vx, vy) + uint id, in the cell order of
 *                     the previous step (any order after an upload)
 *   state[1], ids[1]  the same state reordered by cell (scatter output, steer input)
 *   state[2], ids[2]  deterministic mode only: scatter output before the sort by id
 *   rank              uint rank of each boid in its cell from the count stage
 *   counts            uint per cell, and one more that stays 0
 *   scan              all levels of the prefix sum; its first region is starts[C + 1]
 * One step: clear counts; count (0); scan; scatter 0 -> 1 (or 0 -> 2, sort 2 -> 1); steer
 * 1 -> 0. The state always returns to buffer 0 (ping-pong through 1), already nearly in
 * cell order for the next step's reads.
 *
 * Large N on any GL 4.3 device: the per-boid stages run on a 2-D grid of work groups
 * (boid_index in shaders/state.glsl), and a state buffer larger than one storage block
 * allows is bound as two blocks split at `split` slots (bind_state).
 *
 * A 3-D flock (dim = 3) runs the same stages, each shader unit compiled for the box (DIM 3,
 * src/shaders.cmake): state[k] holds positions vec4 (x, y, z, 0) and vel[k] velocities
 * vec4 (vx, vy, vz, 0), bound where the 2-D state's two halves go (bind_src, bind_dst); the
 * grid is 3-D (set_grid), the scan the same. Each array is one storage block: no split in
 * 3-D. What differs by dimension on this side: the grid's geometry (set_grid), the
 * interaction table's layout (boids_gpu_interact_init), the state's layout (bind_src,
 * bind_dst, pack, unpack).
 *
 * Tile mode (src/core/tile.h, gpu_upload_tile): the same stages compiled with TILE
 * (shaders/grid.glsl) over the cells of a window of the whole flock's grid, plus one cell
 * after them for boids outside the window (set_window, check_window); the ids are the
 * global ones. */
#include <glad/gl.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gpu_impl.h"
#include "prelude.h"
#include "shaders.h"

/* The float constants of the rules exactly as the float CPU path computes them. */
#define RULES_INSTANCE_FLOAT
#include "rules_instances.h"
#undef RULES_INSTANCE_FLOAT
#include "grid_geom.h"
#include "tile.h"

enum {
    P_COUNT,
    P_SCAN,
    P_SCAN_ADD,
    P_SCATTER,
    P_SORT,
    P_STEER,
    P_NEIGHBOURS,
    P_STEER_TOPO,
    P_NEIGHBOURS_TOPO,
    P_STEER_FUSED, /* built for the fused variant only (ten storage blocks) */
    NPROG
};
/* The shader unit of each program, compiled for the flock's dimension; which files compose it
 * is src/shaders.cmake's. The fused variant runs in 2-D only. */
static const char *const prog_files[NPROG] = {
    "count.comp", "scan.comp",       "scan_add.comp",   "scatter.comp",         "sort.comp",
    "steer.comp", "neighbours.comp", "steer_topo.comp", "neighbours_topo.comp", "steer_fused.comp"};
_Static_assert((int)BOIDS_GPU_MAX_K == (int)BOIDS_GPU_MAX_K_SHADER, "one topological k limit");
/* The programs tile mode builds again with TILE (the others it shares, or does not run: the
 * fused variant and the verification's neighbour queries). */
static const int prog_tiled[NPROG] = {
    [P_COUNT] = 1, [P_SCATTER] = 1, [P_SORT] = 1, [P_STEER] = 1, [P_STEER_TOPO] = 1};

enum { MAX_LEVELS = 8 };

typedef struct gpu_backend {
    boids_backend base;
    boids_gl *gl; /* owned; NULL when running on a context made elsewhere */
    boids_gpu_options opt;
    unsigned long log_errors; /* opt.log->errors already seen */

    GLuint prog[NPROG];
    GLuint state[3], ids[3], rank, counts, scan, ubo;
    GLuint iubo; /* the interaction table's block, uploaded when the table or world changes */
    int inter_valid;
    unsigned inter_version;
    double inter_world[4]; /* width, height, depth, boundary it was uploaded for */
    GLuint vel[3];         /* 3-D only: the velocities beside state[k]'s positions */
    GLuint nbr_count, nbr_hash, id_hash;
    GLuint cut; /* the loop-cut flag (prelude.h, BOIDS_GPU_CUT_*), zeroed by every upload */
    size_t cap_n, nbr_n;
    size_t cap_cells;
    GLsizeiptr ubo_size;

    /* Device limits. */
    GLint ssbo_align;
    size_t max_cells;
    GLuint max_groups_x; /* GL_MAX_COMPUTE_WORK_GROUP_COUNT along x */
    size_t split;        /* slots of the first state block (shaders/state.glsl) */
    GLint64 block;       /* GL_MAX_SHADER_STORAGE_BLOCK_SIZE, which bounds a 3-D N */

    /* Grid and scan layout of the latest step. */
    unsigned ncx, ncy, ncz;
    size_t ncells;
    int nlevels;
    size_t lvl_n[MAX_LEVELS];
    GLintptr lvl_out[MAX_LEVELS], lvl_sums[MAX_LEVELS];
    GLsizeiptr scan_bytes;

    uint32_t t; /* the Vicsek noise stream's step index: the uploaded state's, plus steps since */
    /* Fused variant: the counts and ranks of state[0] on grid `primed_grid` were taken by
     * the latest steer, so the next sort_by_cell skips its clear and count. */
    int primed;
    float primed_grid[4]; /* ncx, ncy, inv_cell_w, inv_cell_h they were taken on */

    /* Tile mode (src/core/tile.h), from gpu_upload_tile to the next gpu_upload: the state is
     * the window `tile` of a flock of tile.n_global boids; the id buffers hold the global
     * ids (tile.gid, copied to gid), which order the cells (--deterministic), break the
     * topological ties and draw the Vicsek noise as the whole flock's ids do; download maps
     * them back to the local boids. tprog: the programs of prog_tiled compiled with TILE,
     * built by the first gpu_upload_tile. */
    int tiled;
    boids_tile tile;
    grid_geomd tile_grid; /* the whole flock's grid of the latest step */
    uint32_t *gid;
    size_t gid_cap;
    uint32_t *map; /* open addressing, map_cap slots (a power of two): local index + 1 of a
                    * global id hashed there, 0 empty; the ids may come in any order */
    size_t map_cap;
    GLuint tprog[NPROG];

    GLuint queries[BOIDS_GPU_STAGES];
    boids_gpu_timing timing;
    double stage_t0; /* now_ms() at the start of the stage being timed */
} gpu_backend;

static const boids_backend_ops gpu_ops;

static gpu_backend *as_gpu(const boids_backend *b) {
    return (gpu_backend *)b;
}

/* ---- errors ---------------------------------------------------------------------------- */

static const char *gl_error_name(GLenum e) {
    switch (e) {
    case GL_INVALID_ENUM:
        return "GL_INVALID_ENUM";
    case GL_INVALID_VALUE:
        return "GL_INVALID_VALUE";
    case GL_INVALID_OPERATION:
        return "GL_INVALID_OPERATION";
    case GL_INVALID_FRAMEBUFFER_OPERATION:
        return "GL_INVALID_FRAMEBUFFER_OPERATION";
    case GL_OUT_OF_MEMORY:
        return "GL_OUT_OF_MEMORY";
    default:
        return "GL error";
    }
}

/* With opt.check: a GL error or a new debug error message after `what` is a failure. */
static boids_status check(gpu_backend *g, const char *what, boids_error *err) {
    if (!g->opt.check) return BOIDS_OK;
    GLenum e = glGetError();
    if (e != GL_NO_ERROR) {
        while (glGetError() != GL_NO_ERROR) continue;
        return boids_error_set(err, BOIDS_ERR_RUNTIME, "GPU %s: %s (0x%x)", what, gl_error_name(e),
                               (unsigned)e);
    }
    if (g->opt.log && g->opt.log->errors != g->log_errors) {
        g->log_errors = g->opt.log->errors;
        return boids_error_set(err, BOIDS_ERR_RUNTIME, "GPU %s: GL debug error: %s", what,
                               g->opt.log->last_error);
    }
    return BOIDS_OK;
}

/* ---- programs ---------------------------------------------------------------------------- */

static boids_status build_program(const char *file, int dim, GLuint *out, boids_error *err) {
    GLuint sh;
    boids_status st = boids_gpu_compile_dim(boids_gpu_shaders, file, dim, &sh, err);
    if (st != BOIDS_OK) return st;
    GLint ok = 0;
    char log[1024] = "";
    GLuint prog = glCreateProgram();
    glAttachShader(prog, sh);
    glLinkProgram(prog);
    glDeleteShader(sh);
    glGetProgramiv(prog, GL_LINK_STATUS, &ok);
    if (!ok) {
        glGetProgramInfoLog(prog, sizeof log, NULL, log);
        glDeleteProgram(prog);
        return boids_error_set(err, BOIDS_ERR_RUNTIME, "shaders/%s does not link: %s", file, log);
    }
    *out = prog;
    return BOIDS_OK;
}

/* The uniform block as GL lays it out must be the C struct: same offsets, and no larger. */
static boids_status check_ubo_layout(GLuint prog, GLsizeiptr size, boids_error *err) {
    GLuint block = glGetProgramResourceIndex(prog, GL_UNIFORM_BLOCK, "Params");
    if (block == GL_INVALID_INDEX)
        return boids_error_set(err, BOIDS_ERR_RUNTIME, "uniform block Params not found");
    GLenum prop = GL_BUFFER_DATA_SIZE;
    GLint data_size = 0;
    glGetProgramResourceiv(prog, GL_UNIFORM_BLOCK, block, 1, &prop, 1, NULL, &data_size);
    if (data_size > size)
        return boids_error_set(err, BOIDS_ERR_RUNTIME,
                               "uniform block Params: GL size %d > C size %ld", data_size,
                               (long)size);
    for (int i = 0; i < BOIDS_GPU_PARAMS_NFIELDS; i++) {
        char name[64];
        snprintf(name, sizeof name, "Params.%s", boids_gpu_params_fields[i].name);
        GLuint u = glGetProgramResourceIndex(prog, GL_UNIFORM, name);
        if (u == GL_INVALID_INDEX) continue; /* optimised away: nothing to disagree on */
        GLenum op = GL_OFFSET;
        GLint off = -1;
        glGetProgramResourceiv(prog, GL_UNIFORM, u, 1, &op, 1, NULL, &off);
        if (off != (GLint)boids_gpu_params_fields[i].offset)
            return boids_error_set(
                err, BOIDS_ERR_RUNTIME, "uniform block Params.%s: GL offset %d, C offset %zu",
                boids_gpu_params_fields[i].name, off, boids_gpu_params_fields[i].offset);
    }
    return BOIDS_OK;
}

/* The interaction block as GL lays it out must be boids_gpu_interact: same size and member
 * offsets. */
static boids_status check_interact_layout(GLuint prog, boids_error *err) {
    static const struct {
        const char *name;
        size_t offset;
    } members[] = {
        {"Interact.counts", offsetof(boids_gpu_interact, counts)},
        {"Interact.kinds[0]", offsetof(boids_gpu_interact, kinds)},
        {"Interact.bounds[0]", offsetof(boids_gpu_interact, bounds)},
        {"Interact.pts[0]", offsetof(boids_gpu_interact, pts)},
        {"Interact.obs_a[0]", offsetof(boids_gpu_interact, obs_a)},
        {"Interact.obs_b[0]", offsetof(boids_gpu_interact, obs_b)},
        {"Interact.pts_z[0]", offsetof(boids_gpu_interact, pts_z)},
        {"Interact.obs_z[0]", offsetof(boids_gpu_interact, obs_z)},
    };
    GLuint block = glGetProgramResourceIndex(prog, GL_UNIFORM_BLOCK, "Interact");
    if (block == GL_INVALID_INDEX)
        return boids_error_set(err, BOIDS_ERR_RUNTIME, "uniform block Interact not found");
    GLenum prop = GL_BUFFER_DATA_SIZE;
    GLint data_size = 0;
    glGetProgramResourceiv(prog, GL_UNIFORM_BLOCK, block, 1, &prop, 1, NULL, &data_size);
    if (data_size != (GLint)sizeof(boids_gpu_interact))
        return boids_error_set(err, BOIDS_ERR_RUNTIME,
                               "uniform block Interact: GL size %d, C size %zu", data_size,
                               sizeof(boids_gpu_interact));
    for (size_t i = 0; i < sizeof members / sizeof members[0]; i++) {
        GLuint u = glGetProgramResourceIndex(prog, GL_UNIFORM, members[i].name);
        if (u == GL_INVALID_INDEX) continue; /* optimised away: nothing to disagree on */
        GLenum op = GL_OFFSET;
        GLint off = -1;
        glGetProgramResourceiv(prog, GL_UNIFORM, u, 1, &op, 1, NULL, &off);
        if (off != (GLint)members[i].offset)
            return boids_error_set(err, BOIDS_ERR_RUNTIME,
                                   "uniform block %s: GL offset %d, C offset %zu", members[i].name,
                                   off, members[i].offset);
    }
    return BOIDS_OK;
}

/* ---- limits ------------------------------------------------------------------------------ */

/* Slots of the first of the two blocks the state is bound as: as many vec4 as a block holds,
 * ending on an offset the second block's binding may start at. */
static size_t state_split(GLint64 block, GLint align) {
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
    size_t by_block = 2 * state_split(block, align);
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

static boids_status check_count(size_t n, boids_error *err) {
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
    boids_status s = check_count(n, err);
    boids_gl_destroy(gl);
    return s;
}

/* ---- buffers ----------------------------------------------------------------------------- */

/* (Re)allocates buffer *buf with size bytes; GL_OUT_OF_MEMORY becomes BOIDS_ERR_LIMIT. */
static boids_status alloc_buffer(GLuint *buf, GLsizeiptr size, const char *what, size_t n,
                                 boids_error *err) {
    while (glGetError() != GL_NO_ERROR) continue;
    if (!*buf) glGenBuffers(1, buf);
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, *buf);
    glBufferData(GL_SHADER_STORAGE_BUFFER, size > 0 ? size : 16, NULL, GL_DYNAMIC_COPY);
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, 0);
    GLenum e = glGetError();
    if (e == GL_OUT_OF_MEMORY)
        return boids_error_set(err, BOIDS_ERR_LIMIT,
                               "GPU backend: out of GPU memory allocating %.1f MiB for %s (%zu)",
                               (double)size / 1048576.0, what, n);
    if (e != GL_NO_ERROR)
        return boids_error_set(err, BOIDS_ERR_RUNTIME, "GPU backend: allocating %s: %s", what,
                               gl_error_name(e));
    return BOIDS_OK;
}

static boids_status ensure_boids(gpu_backend *g, size_t n, boids_error *err) {
    boids_status st = check_count(n, err);
    if (st != BOIDS_OK || n <= g->cap_n) return st;
    const int dim3 = g->base.dim == 3;
    if (dim3 && (GLint64)(16 * n) > g->block)
        return boids_error_set(err, BOIDS_ERR_LIMIT,
                               "GPU backend: N = %zu 3-D boids exceeds the device limit "
                               "(GL_MAX_SHADER_STORAGE_BLOCK_SIZE = %lld bytes holds the "
                               "positions of %lld); the largest N that fits in 3-D is %lld",
                               n, (long long)g->block, (long long)(g->block / 16),
                               (long long)(g->block / 16));
    int nbuf = g->opt.deterministic ? 3 : 2;
    for (int i = 0; i < nbuf; i++) {
        if ((st = alloc_buffer(&g->state[i], (GLsizeiptr)(16 * n), "the boid states", n, err)) ||
            (dim3 && (st = alloc_buffer(&g->vel[i], (GLsizeiptr)(16 * n), "the boid velocities", n,
                                        err))) ||
            (st = alloc_buffer(&g->ids[i], (GLsizeiptr)(4 * n), "the boid ids", n, err)))
            return st;
    }
    if ((st = alloc_buffer(&g->rank, (GLsizeiptr)(4 * n), "the cell ranks", n, err))) return st;
    g->cap_n = n;
    return BOIDS_OK;
}

static GLintptr align_up(GLintptr x, GLintptr a) {
    return (x + a - 1) / a * a;
}

/* Lays out the scan levels for ncells + 1 counts (the last, always 0, gives starts[ncells] =
 * N) and grows the cell buffers when needed. */
static boids_status ensure_cells(gpu_backend *g, size_t ncells, boids_error *err) {
    GLintptr off = 0, a = g->ssbo_align;
    size_t n = ncells + 1;
    int k = 0;
    for (;;) {
        size_t nb = (n + BOIDS_GPU_SCAN_BLOCK - 1) / BOIDS_GPU_SCAN_BLOCK;
        g->lvl_n[k] = n;
        g->lvl_out[k] = off;
        off = align_up(off + (GLintptr)(4 * n), a);
        g->lvl_sums[k] = off;
        off = align_up(off + (GLintptr)(4 * nb), a);
        k++;
        if (nb == 1) break;
        n = nb;
    }
    g->nlevels = k;
    g->ncells = ncells;
    boids_status st;
    if (off > g->scan_bytes) {
        if ((st = alloc_buffer(&g->scan, off, "the grid's prefix sums", ncells, err))) return st;
        g->scan_bytes = off;
    }
    if (ncells > g->cap_cells) {
        if ((st = alloc_buffer(&g->counts, (GLsizeiptr)(4 * (ncells + 1)), "the grid cells", ncells,
                               err)))
            return st;
        g->cap_cells = ncells;
    }
    return BOIDS_OK;
}

/* ---- the grid and the uniform block ------------------------------------------------------ */

/* The topological shell search's bound (shaders/select.glsl): the geometry's reach (see
 * grid_geom.h), squared and shrunk by 2^-20 so that the float product r^2 * reach2 in the
 * shader never rounds above the true bound, nor the float d2 (relative 2^-22 or so) past
 * it. */
static float ring_reach2(double reach) {
    return (float)(reach * reach * (1 - 1.0 / 1048576));
}

/* The whole flock's grid for parameters p and n boids: the world's on every boundary (on the
 * open plane the shaders clamp to the edge cells), at most the device's cells. The
 * topological search's worst case (k nearest far away, or N <= k) visits every cell, and a
 * driver may stop a long loop (llvmpipe: 65,535 iterations per invocation): its cells are
 * capped at the cpu grid's ~4 per boid, which bounds that walk by the flock's size. Its
 * results do not depend on the grid (the selection is exact in (d2, id) order), so they keep
 * their bits; the metric grid keeps its cells, whose order sets its sums. */
static boids_status world_grid(const gpu_backend *g, const boids_params *p, size_t n,
                               grid_geomd *gg, boids_error *err) {
    double max_cells = (double)g->max_cells;
    if (p->neighbours == BOIDS_NEIGHBOURS_TOPOLOGICAL)
        max_cells = fmin(max_cells, boids_grid_geom_cap(n));
    return boids_grid_geomd_init(gg, g->base.dim == 3 ? 3 : 2, p, NULL, max_cells, err);
}

/* The grid gg of dimension dim into the uniform block's grid fields (ncx, ncy, ncz, ncells,
 * inv_cell_*, reach2). The plane has one layer, ncz = 1. */
static void set_grid(boids_gpu_params *u, const grid_geomd *gg, int dim) {
    u->ncx = gg->n[0];
    u->ncy = gg->n[1];
    u->ncz = dim == 3 ? gg->n[2] : 1;
    u->inv_cell_w = gg->s[0];
    u->inv_cell_h = gg->s[1];
    if (dim == 3) u->inv_cell_d = gg->s[2];
    u->reach2 = ring_reach2(gg->reach);
    u->ncells = (uint32_t)gg->ncells;
}

/* Tile mode: the window of g->tile over the whole grid gg (set_grid's fields) in u: the
 * last axis's cells become the window's rows (shaders/grid.glsl), one more cell holds the
 * boids outside the window; sets *ncells to the cells the step counts. BOIDS_ERR_INPUT when
 * the window does not fit the grid these parameters give. */
static boids_status set_window(const gpu_backend *g, boids_gpu_params *u, const grid_geomd *gg,
                               size_t *ncells, boids_error *err) {
    const boids_tile *t = &g->tile;
    const int last = gg->dim - 1;
    const uint32_t nrows = gg->n[last];
    int whole;
    boids_status st = boids_tile_check_window(t, nrows, gg->wrap, "GPU tile", &whole, err);
    if (st) return st;
    u->tile_lo = t->row_lo;
    u->tile_nrows = nrows;
    u->steer_lo = t->steer_lo;
    u->steer_hi = t->steer_hi;
    if (last == 2)
        u->ncz = t->rows;
    else
        u->ncy = t->rows;
    size_t window = (size_t)u->ncx * u->ncy * u->ncz;
    u->ncells = (uint32_t)window;
    *ncells = window + 1;
    return BOIDS_OK;
}

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

void boids_gpu_params_init(boids_gpu_params *u, const boids_params *p) {
    const int topo = p->neighbours == BOIDS_NEIGHBOURS_TOPOLOGICAL;
    /* The box's constants serve both dimensions: rules_k_init derives each axis alike, so the
     * first two axes of rules_k_f3 are rules_k_f2's, and the plane's shaders leave the third
     * (depth, half_d, pred_z, food_z) unread. */
    rules_k_f3 k;
    rules_k_init_f3(&k, p);
    *u = (boids_gpu_params){
        .width = k.width,
        .height = k.height,
        .half_w = k.half_w,
        .half_h = k.half_h,
        .vision2 = k.vision2,
        .sep2 = k.sep2,
        .cos_half_fov = k.cos_half_fov,
        .full_fov = (uint32_t)k.full_fov,
        .max_speed = k.max_speed,
        .min_speed = k.min_speed,
        .max_force = k.max_force,
        .dt = k.dt,
        .w_sep = k.w_sep,
        .w_align = k.w_align,
        .w_coh = k.w_coh,
        .wrap = (uint32_t)k.wrap,
        .walls = (uint32_t)k.walls,
        .wall_margin = k.wall_margin,
        .w_wall = k.w_wall,
        .predator = (uint32_t)k.predator,
        .food = (uint32_t)k.food,
        .pred_x = k.pred_x,
        .pred_y = k.pred_y,
        .pred_r2 = k.pred_r2,
        .w_pred = k.w_pred,
        .food_x = k.food_x,
        .food_y = k.food_y,
        .food_r2 = k.food_r2,
        .w_food = k.w_food,
        .avoid_dist = k.avoid_dist,
        .w_avoid = k.w_avoid,
        .clear = k.clear,
        .reach_pad = k.reach_pad,
        .vicsek = p->model == BOIDS_MODEL_VICSEK,
        .topo = (uint32_t)topo,
        .k = topo ? (uint32_t)p->k : 0,
        .k_in_vision = p->k_in_vision != 0,
        .speed = (float)p->speed,
        .noise = (float)p->noise,
        .noise_seed_lo = (uint32_t)(uint64_t)p->noise_seed,
        .noise_seed_hi = (uint32_t)((uint64_t)p->noise_seed >> 32),
        .split = UINT32_MAX,
        .depth = k.depth,
        .half_d = k.half_d,
        .pred_z = k.pred_z,
        .food_z = k.food_z,
        .cos_half_noise = rules_cos_half_noise_f3((float)p->noise),
    };
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
static void set_interact(gpu_backend *g, const boids_params *p) {
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

static boids_status set_params(gpu_backend *g, const boids_params *p, boids_error *err) {
    boids_status st = boids_gpu_check_params(p, err);
    if (st != BOIDS_OK) return st;
    boids_gpu_params u;
    boids_gpu_params_init(&u, p);
    grid_geomd gg = {0};
    st = world_grid(g, p, g->tiled ? g->tile.n_global : g->base.n, &gg, err);
    if (st != BOIDS_OK) return st;
    set_grid(&u, &gg, g->base.dim);
    size_t ncells = gg.ncells;
    if (g->tiled) {
        st = set_window(g, &u, &gg, &ncells, err);
        g->tile_grid = gg;
    }
    if (st == BOIDS_OK) st = ensure_cells(g, ncells, err);
    if (st != BOIDS_OK) return st;
    g->ncx = u.ncx;
    g->ncy = u.ncy;
    g->ncz = u.ncz;
    u.n = (uint32_t)g->base.n;
    u.step = g->t;
    u.split = (uint32_t)(g->split < g->base.n ? g->split : g->base.n);
    const float grid[4] = {(float)u.ncx, (float)u.ncy, u.inv_cell_w, u.inv_cell_h};
    if (memcmp(grid, g->primed_grid, sizeof grid) != 0) g->primed = 0;
    memcpy(g->primed_grid, grid, sizeof grid);
    glBindBuffer(GL_UNIFORM_BUFFER, g->ubo);
    glBufferSubData(GL_UNIFORM_BUFFER, 0, sizeof u, &u);
    glBindBuffer(GL_UNIFORM_BUFFER, 0);
    glBindBufferBase(GL_UNIFORM_BUFFER, BOIDS_GPU_UBO_PARAMS, g->ubo);
    set_interact(g, p);
    return check(g, "parameter upload", err);
}

/* ---- stages ------------------------------------------------------------------------------ */

static void ssbo(GLuint binding, GLuint buf) {
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, binding, buf);
}
static void ssbo_range(GLuint binding, GLuint buf, GLintptr off, size_t count_u32) {
    glBindBufferRange(GL_SHADER_STORAGE_BUFFER, binding, buf, off, (GLsizeiptr)(4 * count_u32));
}

static GLuint groups(size_t n, size_t per) {
    return (GLuint)((n + per - 1) / per);
}

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

/* The fences sit inside the query bracket so that the CPU-clock time of a stage leaves out
 * the query calls themselves (llvmpipe spends ~0.15 ms in them); the GPU is idle across a
 * fence, so the query's time is unchanged. */
static void stage_begin(gpu_backend *g, boids_gpu_stage s) {
    if (!g->opt.timing) return;
    glBeginQuery(GL_TIME_ELAPSED, g->queries[s]);
    glFinish();
    g->stage_t0 = now_ms();
}

static boids_status stage_end(gpu_backend *g, boids_gpu_stage s, boids_error *err) {
    glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT | GL_BUFFER_UPDATE_BARRIER_BIT);
    if (g->opt.timing) {
        glFinish();
        g->timing.wall_ms[s] += now_ms() - g->stage_t0;
        glEndQuery(GL_TIME_ELAPSED);
    }
    return check(g, boids_gpu_stage_name(s), err);
}

/* Program i of the mode the state is in. */
static GLuint prog(const gpu_backend *g, int i) {
    return g->tiled && prog_tiled[i] ? g->tprog[i] : g->prog[i];
}

/* One invocation per boid on a 2-D grid of work groups, rows of at most max_groups_x (the
 * shaders' boid_index); the last row's extra invocations return at once. */
static void dispatch_boids(const gpu_backend *g, GLuint prog) {
    GLuint total = groups(g->base.n, BOIDS_GPU_WG);
    GLuint gx = total < g->max_groups_x ? total : g->max_groups_x;
    glUseProgram(prog);
    glDispatchCompute(gx, (total + gx - 1) / gx, 1);
}

/* Binds the state buffer buf, N vec4, as the two blocks of shaders/state.glsl: slots
 * [0, split) at binding lo and the rest at binding hi. Below the split the second block is
 * never read; it is bound to the buffer's first slot so that no binding is left empty. */
static void bind_state(const gpu_backend *g, GLuint lo, GLuint hi, GLuint buf) {
    size_t n = g->base.n;
    if (n <= g->split) {
        glBindBufferRange(GL_SHADER_STORAGE_BUFFER, lo, buf, 0, (GLsizeiptr)(16 * n));
        glBindBufferRange(GL_SHADER_STORAGE_BUFFER, hi, buf, 0, 16);
    } else {
        glBindBufferRange(GL_SHADER_STORAGE_BUFFER, lo, buf, 0, (GLsizeiptr)(16 * g->split));
        glBindBufferRange(GL_SHADER_STORAGE_BUFFER, hi, buf, (GLintptr)(16 * g->split),
                          (GLsizeiptr)(16 * (n - g->split)));
    }
}

/* Binds state k, as the state a stage reads (dst 0) or writes (dst 1): the 2-D vec4 state as
 * bind_state's two blocks; in 3-D the positions and velocities (N vec4 each, one block each)
 * at the two halves' binding points (shaders/state.glsl); the ids. */
static void bind_states(const gpu_backend *g, int k, int dst) {
    static const GLuint lo[2] = {BOIDS_GPU_B_SRC_STATE, BOIDS_GPU_B_DST_STATE};
    static const GLuint hi[2] = {BOIDS_GPU_B_SRC_STATE_HI, BOIDS_GPU_B_DST_STATE_HI};
    static const GLuint vel[2] = {BOIDS_GPU_B_SRC_VEL, BOIDS_GPU_B_DST_VEL};
    static const GLuint ids[2] = {BOIDS_GPU_B_SRC_ID, BOIDS_GPU_B_DST_ID};
    if (g->base.dim == 3) {
        ssbo_range(lo[dst], g->state[k], 0, 4 * g->base.n);
        ssbo_range(vel[dst], g->vel[k], 0, 4 * g->base.n);
    } else {
        bind_state(g, lo[dst], hi[dst], g->state[k]);
    }
    ssbo(ids[dst], g->ids[k]);
}

static void bind_src(const gpu_backend *g, int k) {
    bind_states(g, k, 0);
}

static void bind_dst(const gpu_backend *g, int k) {
    bind_states(g, k, 1);
}

/* Stage 1: zeroes the cell counts, unless the fused steer took them already. */
static boids_status clear_counts(gpu_backend *g, boids_error *err) {
    stage_begin(g, BOIDS_GPU_STAGE_CLEAR);
    if (!g->primed) {
        const GLuint zero = 0;
        glBindBuffer(GL_SHADER_STORAGE_BUFFER, g->counts);
        glClearBufferSubData(GL_SHADER_STORAGE_BUFFER, GL_R32UI, 0,
                             (GLsizeiptr)(4 * (g->ncells + 1)), GL_RED_INTEGER, GL_UNSIGNED_INT,
                             &zero);
        glBindBuffer(GL_SHADER_STORAGE_BUFFER, 0);
    }
    return stage_end(g, BOIDS_GPU_STAGE_CLEAR, err);
}

/* Stages 1-4 (and the sort by id): leaves the state of buffer 0 ordered by cell in
 * buffer 1, with counts and starts filled. */
static boids_status sort_by_cell(gpu_backend *g, boids_error *err) {
    boids_status st;

    if ((st = clear_counts(g, err))) return st;
    stage_begin(g, BOIDS_GPU_STAGE_COUNT);
    if (!g->primed) { /* else the fused steer counted already: the stage times nothing */
        bind_src(g, 0);
        ssbo(BOIDS_GPU_B_RANK, g->rank);
        ssbo_range(BOIDS_GPU_B_COUNTS, g->counts, 0, g->ncells + 1);
        dispatch_boids(g, prog(g, P_COUNT));
    }
    if ((st = stage_end(g, BOIDS_GPU_STAGE_COUNT, err))) return st;

    stage_begin(g, BOIDS_GPU_STAGE_SCAN);
    for (int k = 0; k < g->nlevels; k++) {
        size_t nk = g->lvl_n[k];
        size_t nb = (nk + BOIDS_GPU_SCAN_BLOCK - 1) / BOIDS_GPU_SCAN_BLOCK;
        if (k == 0)
            ssbo_range(BOIDS_GPU_B_SCAN_IN, g->counts, 0, nk);
        else
            ssbo_range(BOIDS_GPU_B_SCAN_IN, g->scan, g->lvl_sums[k - 1], nk);
        ssbo_range(BOIDS_GPU_B_SCAN_OUT, g->scan, g->lvl_out[k], nk);
        ssbo_range(BOIDS_GPU_B_SCAN_SUMS, g->scan, g->lvl_sums[k], nb);
        glUseProgram(g->prog[P_SCAN]);
        glUniform1ui(0, (GLuint)nk);
        glDispatchCompute((GLuint)nb, 1, 1);
        glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
    }
    for (int k = g->nlevels - 2; k >= 0; k--) {
        size_t nk = g->lvl_n[k];
        ssbo_range(BOIDS_GPU_B_SCAN_OUT, g->scan, g->lvl_out[k], nk);
        ssbo_range(BOIDS_GPU_B_SCAN_SUMS, g->scan, g->lvl_out[k + 1], g->lvl_n[k + 1]);
        glUseProgram(g->prog[P_SCAN_ADD]);
        glUniform1ui(0, (GLuint)nk);
        glDispatchCompute(groups(nk, BOIDS_GPU_SCAN_WG), 1, 1);
        glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
    }
    if ((st = stage_end(g, BOIDS_GPU_STAGE_SCAN, err))) return st;

    /* The starts stay bound for the rest of the step. */
    ssbo_range(BOIDS_GPU_B_STARTS, g->scan, g->lvl_out[0], g->ncells + 1);

    int det = g->opt.deterministic;
    stage_begin(g, BOIDS_GPU_STAGE_SCATTER);
    bind_src(g, 0);
    bind_dst(g, det ? 2 : 1);
    ssbo(BOIDS_GPU_B_RANK, g->rank);
    dispatch_boids(g, prog(g, P_SCATTER));
    if ((st = stage_end(g, BOIDS_GPU_STAGE_SCATTER, err))) return st;

    if (det) {
        stage_begin(g, BOIDS_GPU_STAGE_SORT);
        bind_src(g, 2);
        bind_dst(g, 1);
        dispatch_boids(g, prog(g, P_SORT));
        if ((st = stage_end(g, BOIDS_GPU_STAGE_SORT, err))) return st;
    }
    return BOIDS_OK;
}

/* ---- the loop-cut flag ------------------------------------------------------------------ */

static void clear_cut(const gpu_backend *g) {
    const GLuint zero = 0;
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, g->cut);
    glBufferSubData(GL_SHADER_STORAGE_BUFFER, 0, sizeof zero, &zero);
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, 0);
}

/* After the dispatches of one step call or neighbours query (`what`): one 4-byte read of the
 * flag. Once set it stays set until the next upload, because every later state descends
 * from the inexact one. */
static boids_status check_cut(gpu_backend *g, const char *what, boids_error *err) {
    GLuint bits = 0;
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, g->cut);
    glGetBufferSubData(GL_SHADER_STORAGE_BUFFER, 0, sizeof bits, &bits);
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, 0);
    if (bits & BOIDS_GPU_CUT_TOPO)
        return boids_error_set(
            err, BOIDS_ERR_RUNTIME,
            "GPU %s: the GPU driver stopped the topological neighbour search before it "
            "finished (llvmpipe stops a shader invocation's loops after 65,535 iterations; a "
            "boid far from its k nearest searches that many empty cells), so the results are "
            "not exact; use the cpu backend, or a denser world",
            what);
    if (bits & BOIDS_GPU_CUT_METRIC)
        return boids_error_set(
            err, BOIDS_ERR_RUNTIME,
            "GPU %s: the GPU driver stopped the neighbour search before it finished (llvmpipe "
            "stops a shader invocation's loops after 65,535 iterations; a boid had about that "
            "many candidates in the cells around it), so the results are not exact; use the "
            "cpu backend, or a sparser flock (a larger world or a smaller vision_radius)",
            what);
    return BOIDS_OK;
}

static void collect_timing(gpu_backend *g) {
    if (!g->opt.timing) return;
    for (int s = 0; s < BOIDS_GPU_STAGES; s++) {
        if (s == BOIDS_GPU_STAGE_SORT && !g->opt.deterministic) continue;
        GLuint64 ns = 0;
        glGetQueryObjectui64v(g->queries[s], GL_QUERY_RESULT, &ns);
        g->timing.ms[s] += (double)ns * 1e-6;
    }
    g->timing.steps++;
}

static boids_status check_window(gpu_backend *g, boids_error *err);

static boids_status gpu_step(boids_backend *b, const boids_params *p, unsigned steps,
                             boids_error *err) {
    gpu_backend *g = as_gpu(b);
    boids_status st = set_params(g, p, err);
    if (st != BOIDS_OK) return st;
    const int topo = p->neighbours == BOIDS_NEIGHBOURS_TOPOLOGICAL;
    for (unsigned s = 0; s < steps; s++, g->t++) {
        if (s > 0) { /* the noise's step index; set_params wrote the first */
            glBindBuffer(GL_UNIFORM_BUFFER, g->ubo);
            glBufferSubData(GL_UNIFORM_BUFFER, (GLintptr)offsetof(boids_gpu_params, step),
                            sizeof g->t, &g->t);
            glBindBuffer(GL_UNIFORM_BUFFER, 0);
        }
        if ((st = sort_by_cell(g, err))) return st;
        if (g->tiled && (st = check_window(g, err))) return st;
        /* The fused steer counts into the counts the scan has consumed: clear them first
         * (timed with the clear stage). */
        const int fused = g->opt.variant == BOIDS_GPU_VARIANT_FUSED && !topo && !g->tiled;
        g->primed = 0;
        if (fused && (st = clear_counts(g, err))) return st;
        stage_begin(g, BOIDS_GPU_STAGE_STEER);
        bind_src(g, 1);
        bind_dst(g, 0);
        ssbo(BOIDS_GPU_B_LOOP_CUT, g->cut);
        if (fused) {
            ssbo(BOIDS_GPU_B_NEXT_RANK, g->rank);
            ssbo_range(BOIDS_GPU_B_NEXT_COUNTS, g->counts, 0, g->ncells + 1);
        }
        dispatch_boids(g, prog(g, fused ? P_STEER_FUSED : topo ? P_STEER_TOPO : P_STEER));
        if ((st = stage_end(g, BOIDS_GPU_STAGE_STEER, err))) return st;
        g->primed = fused;
        collect_timing(g);
    }
    return steps ? check_cut(g, "step", err) : BOIDS_OK;
}

/* ---- transfers --------------------------------------------------------------------------- */

/* Transfers go through host buffers of XFER boids at a time, so that the host holds no
 * second copy of a large flock (10M boids would need 200 MB more). */
enum { XFER = 1 << 16 };

static void put(GLuint buf, size_t off, size_t bytes, const void *data) {
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, buf);
    glBufferSubData(GL_SHADER_STORAGE_BUFFER, (GLintptr)off, (GLsizeiptr)bytes, data);
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, 0);
}

static void read_range(GLuint buf, size_t off, size_t bytes, void *out) {
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, buf);
    glGetBufferSubData(GL_SHADER_STORAGE_BUFFER, (GLintptr)off, (GLsizeiptr)bytes, out);
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, 0);
}

/* Boid s of f in the state layout of shaders/state.glsl: the plane's vec4 (x, y, vx, vy) in
 * a; the box's position vec4 (x, y, z, 0) in a and velocity vec4 (vx, vy, vz, 0) in v. */
static void pack(const boids_flock *f, size_t s, float *a, float *v) {
    if (f->z) {
        a[0] = (float)f->x[s], a[1] = (float)f->y[s], a[2] = (float)f->z[s], a[3] = 0;
        v[0] = (float)f->vx[s], v[1] = (float)f->vy[s], v[2] = (float)f->vz[s], v[3] = 0;
    } else {
        a[0] = (float)f->x[s], a[1] = (float)f->y[s], a[2] = (float)f->vx[s];
        a[3] = (float)f->vy[s];
    }
}

/* pack's inverse, into boid k of f. */
static void unpack(boids_flock *f, size_t k, const float *a, const float *v) {
    if (f->z) {
        f->x[k] = a[0], f->y[k] = a[1], f->z[k] = a[2];
        f->vx[k] = v[0], f->vy[k] = v[1], f->vz[k] = v[2];
    } else {
        f->x[k] = a[0], f->y[k] = a[1], f->vx[k] = a[2], f->vy[k] = a[3];
    }
}

/* The slot of global id `id` in the map: where it is, or the empty slot where it goes. */
static size_t map_slot(const gpu_backend *g, uint32_t id) {
    size_t k = boids_mix32(id) & (g->map_cap - 1);
    while (g->map[k] && g->gid[g->map[k] - 1] != id) k = (k + 1) & (g->map_cap - 1);
    return k;
}

/* The map of the n global ids gid (2 n slots or more: short probes). */
static boids_status map_build(gpu_backend *g, size_t n, boids_error *err) {
    size_t cap = 16;
    while (cap < 2 * n) cap *= 2;
    if (cap > g->map_cap) {
        uint32_t *m = realloc(g->map, cap * sizeof *m);
        if (!m)
            return boids_error_set(err, BOIDS_ERR_NOMEM, "GPU tile: out of memory (%zu boids)", n);
        g->map = m;
        g->map_cap = cap;
    }
    memset(g->map, 0, g->map_cap * sizeof *g->map);
    for (size_t i = 0; i < n; i++) g->map[map_slot(g, g->gid[i])] = (uint32_t)i + 1;
    return BOIDS_OK;
}

/* The boid of the state whose id buffers hold id: id itself, or in tile mode the local boid
 * of that global id (the map); n when there is none. */
static size_t local_index(const gpu_backend *g, uint32_t id) {
    if (!g->tiled) return id < g->base.n ? id : g->base.n;
    const uint32_t v = g->map[map_slot(g, id)];
    return v ? v - 1 : g->base.n;
}

static boids_status gpu_download(boids_backend *b, boids_flock *out, boids_error *err) {
    gpu_backend *g = as_gpu(b);
    size_t n = b->n;
    if (out->n != n)
        return boids_error_set(err, BOIDS_ERR_INPUT, "GPU download: flock has %zu boids, not %zu",
                               out->n, n);
    const int box = b->dim == 3;
    float *s = malloc(32 * XFER);
    uint32_t *id = malloc(4 * XFER);
    boids_status st = BOIDS_OK;
    if (!s || !id)
        st = boids_error_set(err, BOIDS_ERR_NOMEM, "GPU download: out of memory (%zu boids)", n);
    float *v = s ? s + 4 * XFER : NULL;
    for (size_t i0 = 0; st == BOIDS_OK && i0 < n; i0 += XFER) {
        size_t m = n - i0 < XFER ? n - i0 : XFER;
        read_range(g->state[0], 16 * i0, 16 * m, s);
        if (box) read_range(g->vel[0], 16 * i0, 16 * m, v);
        read_range(g->ids[0], 4 * i0, 4 * m, id);
        if ((st = check(g, "read-back", err))) break;
        for (size_t i = 0; i < m; i++) {
            size_t k = local_index(g, id[i]);
            if (k >= n) {
                st = boids_error_set(err, BOIDS_ERR_RUNTIME,
                                     "GPU download: corrupt id %u at index %zu", id[i], i0 + i);
                break;
            }
            unpack(out, k, s + 4 * i, v + 4 * i);
        }
    }
    out->step = g->t;
    free(s);
    free(id);
    return st;
}

/* Replaces the state by in, boid i with id gid[i] (gid NULL: i). A tile's buffers are
 * reserved an eighth larger where the device allows, so that the per-step uploads of a
 * tile whose count drifts do not reallocate them each time. */
static boids_status upload_state(gpu_backend *g, const boids_flock *in, const uint32_t *gid,
                                 boids_error *err) {
    boids_status st = BOIDS_ERR_LIMIT;
    if (gid && in->n > g->cap_n) st = ensure_boids(g, in->n + in->n / 8, err);
    if (st != BOIDS_OK) st = ensure_boids(g, in->n, err);
    if (st != BOIDS_OK) return st;
    size_t n = in->n;
    const int box = g->base.dim == 3;
    float *s = malloc(32 * XFER);
    uint32_t *id = malloc(4 * XFER);
    if (!s || !id) {
        free(s);
        free(id);
        return boids_error_set(err, BOIDS_ERR_NOMEM, "GPU upload: out of memory (%zu boids)", n);
    }
    float *v = s + 4 * XFER;
    for (size_t i0 = 0; i0 < n; i0 += XFER) {
        size_t m = n - i0 < XFER ? n - i0 : XFER;
        for (size_t i = 0; i < m; i++) {
            pack(in, i0 + i, s + 4 * i, v + 4 * i);
            id[i] = gid ? gid[i0 + i] : (uint32_t)(i0 + i);
        }
        put(g->state[0], 16 * i0, 16 * m, s);
        if (box) put(g->vel[0], 16 * i0, 16 * m, v);
        put(g->ids[0], 4 * i0, 4 * m, id);
    }
    free(s);
    free(id);
    g->base.n = n;
    g->t = in->step;
    g->primed = 0;
    clear_cut(g);
    return check(g, "upload", err);
}

static boids_status gpu_upload(boids_backend *b, const boids_flock *in, boids_error *err) {
    gpu_backend *g = as_gpu(b);
    g->tiled = 0;
    return upload_state(g, in, NULL, err);
}

/* ---- tile mode (src/core/tile.h) ----------------------------------------------------------- */

static boids_status gpu_tile_geom(const boids_backend *b, const boids_params *p,
                                  const boids_tile *t, grid_geomd *gg, boids_error *err) {
    boids_status st = boids_gpu_check_params(p, err);
    return st ? st : world_grid(as_gpu(b), p, t->n_global, gg, err);
}

static boids_status gpu_upload_tile(boids_backend *b, const boids_flock *in, const boids_tile *t,
                                    boids_error *err) {
    gpu_backend *g = as_gpu(b);
    boids_status st;
    for (int i = 0; i < NPROG; i++)
        if (prog_tiled[i] && !g->tprog[i] &&
            (st = build_program(prog_files[i], (g->base.dim == 3 ? 3 : 2) | BOIDS_GPU_TILE,
                                &g->tprog[i], err)))
            return st;
    if (g->opt.check && (st = check_ubo_layout(g->tprog[P_STEER], g->ubo_size, err))) return st;
    if (in->n > g->gid_cap) {
        uint32_t *gid = realloc(g->gid, in->n * sizeof *gid);
        if (!gid)
            return boids_error_set(err, BOIDS_ERR_NOMEM, "GPU tile: out of memory (%zu boids)",
                                   in->n);
        g->gid = gid;
        g->gid_cap = in->n;
    }
    g->tiled = 0; /* until the state is the window's */
    if ((st = upload_state(g, in, t->gid, err))) return st;
    memcpy(g->gid, t->gid, in->n * sizeof *g->gid);
    if ((st = map_build(g, in->n, err))) return st;
    g->tile = *t;
    g->tile.gid = g->gid;
    g->tiled = 1;
    return BOIDS_OK;
}

/* After the sort: refuses a state with boids outside the window (the cell after the
 * window's, at the end of the sorted state), naming the first, its global id and its row as
 * the host's boids_tile_row puts it (the count stage's operations, so the same row). */
static boids_status check_window(gpu_backend *g, boids_error *err) {
    GLuint se[2], id;
    read_range(g->scan, (size_t)g->lvl_out[0] + 4 * (g->ncells - 1), sizeof se, se);
    if (se[0] == se[1]) return check(g, "tile window", err);
    float s[4];
    read_range(g->state[1], 16 * (size_t)se[0], sizeof s, s);
    read_range(g->ids[1], 4 * (size_t)se[0], sizeof id, &id);
    const grid_geomd *gg = &g->tile_grid;
    return boids_error_set(err, BOIDS_ERR_INPUT,
                           "GPU tile: boid %u (global id) is in row %u, outside the window of "
                           "%u rows from row %u (%u boids outside)",
                           id, boids_tile_row(gg, s[gg->dim - 1]), g->tile.rows, g->tile.row_lo,
                           se[1] - se[0]);
}

/* ---- neighbours (verification) ------------------------------------------------------------ */

static boids_status gpu_neighbours(boids_backend *b, const boids_params *p, uint32_t *count,
                                   uint64_t *set_hash, boids_error *err) {
    gpu_backend *g = as_gpu(b);
    size_t n = b->n;
    boids_status st;
    if (g->nbr_n != n) {
        uint32_t *h = malloc(8 * n);
        if (!h) return boids_error_set(err, BOIDS_ERR_NOMEM, "out of memory");
        for (size_t i = 0; i < n; i++) {
            uint64_t v = boids_neighbour_set_hash((uint32_t)i);
            h[2 * i] = (uint32_t)v;
            h[2 * i + 1] = (uint32_t)(v >> 32);
        }
        if ((st = alloc_buffer(&g->nbr_count, (GLsizeiptr)(4 * n), "neighbour counts", n, err)) ||
            (st = alloc_buffer(&g->nbr_hash, (GLsizeiptr)(8 * n), "neighbour hashes", n, err)) ||
            (st = alloc_buffer(&g->id_hash, (GLsizeiptr)(8 * n), "id hashes", n, err))) {
            free(h);
            return st;
        }
        glBindBuffer(GL_SHADER_STORAGE_BUFFER, g->id_hash);
        glBufferSubData(GL_SHADER_STORAGE_BUFFER, 0, (GLsizeiptr)(8 * n), h);
        glBindBuffer(GL_SHADER_STORAGE_BUFFER, 0);
        free(h);
        g->nbr_n = n;
    }
    /* Not a step: keep it out of the stage timings. */
    int timing = g->opt.timing;
    g->opt.timing = 0;
    st = set_params(g, p, err);
    if (st == BOIDS_OK) st = sort_by_cell(g, err);
    g->opt.timing = timing;
    if (st != BOIDS_OK) return st;
    bind_src(g, 1);
    ssbo(BOIDS_GPU_B_NBR_COUNT, g->nbr_count);
    ssbo(BOIDS_GPU_B_NBR_HASH, g->nbr_hash);
    ssbo(BOIDS_GPU_B_ID_HASH, g->id_hash);
    ssbo(BOIDS_GPU_B_LOOP_CUT, g->cut);
    dispatch_boids(
        g,
        g->prog[p->neighbours == BOIDS_NEIGHBOURS_TOPOLOGICAL ? P_NEIGHBOURS_TOPO : P_NEIGHBOURS]);
    glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
    if ((st = check(g, "neighbours", err)) || (st = check_cut(g, "neighbours query", err)))
        return st;
    uint32_t *h = malloc(8 * n);
    if (!h) return boids_error_set(err, BOIDS_ERR_NOMEM, "out of memory");
    read_range(g->nbr_count, 0, 4 * n, count);
    read_range(g->nbr_hash, 0, 8 * n, h);
    if (!(st = check(g, "read-back", err)))
        for (size_t i = 0; i < n; i++)
            set_hash[i] = (uint64_t)h[2 * i] | (uint64_t)h[2 * i + 1] << 32;
    free(h);
    return st;
}

/* ---- life cycle --------------------------------------------------------------------------- */

static void gpu_destroy(boids_backend *b) {
    gpu_backend *g = as_gpu(b);
    if (!g) return;
    for (int i = 0; i < NPROG; i++) {
        if (g->prog[i]) glDeleteProgram(g->prog[i]);
        if (g->tprog[i]) glDeleteProgram(g->tprog[i]);
    }
    free(g->gid);
    free(g->map);
    GLuint bufs[] = {g->state[0], g->state[1], g->state[2], g->ids[0], g->ids[1], g->ids[2],
                     g->rank,     g->counts,   g->scan,     g->ubo,    g->iubo,   g->nbr_count,
                     g->nbr_hash, g->id_hash,  g->vel[0],   g->vel[1], g->vel[2], g->cut};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
        if (bufs[i]) glDeleteBuffers(1, &bufs[i]);
    if (g->queries[0]) glDeleteQueries(BOIDS_GPU_STAGES, g->queries);
    boids_gl_destroy(g->gl);
    free(g);
}

static const boids_backend_ops gpu_ops = {
    .name = "gpu",
    .destroy = gpu_destroy,
    .step = gpu_step,
    .download = gpu_download,
    .upload = gpu_upload,
    .neighbours = gpu_neighbours,
    .tile_geom = gpu_tile_geom,
    .upload_tile = gpu_upload_tile,
};

static const char *const variant_names[BOIDS_GPU_VARIANTS] = {"plain", "fused"};

const char *boids_gpu_variant_name(boids_gpu_variant v) {
    return (unsigned)v < BOIDS_GPU_VARIANTS ? variant_names[v] : "?";
}

boids_status boids_gpu_variant_parse(const char *name, boids_gpu_variant *out, boids_error *err) {
    if (!name || !out)
        return boids_error_set(err, BOIDS_ERR_INPUT, "boids_gpu_variant_parse: %s is NULL",
                               !name ? "the name" : "the output");
    for (int v = 0; v < BOIDS_GPU_VARIANTS; v++)
        if (!strcmp(name, variant_names[v])) {
            *out = (boids_gpu_variant)v;
            return BOIDS_OK;
        }
    return boids_error_set(err, BOIDS_ERR_INPUT, "unknown GPU variant '%s' (plain, fused)", name);
}

/* The variant is known and the device has the storage blocks it binds. */
static boids_status check_variant(const gpu_backend *g, boids_error *err) {
    if ((unsigned)g->opt.variant >= BOIDS_GPU_VARIANTS)
        return boids_error_set(err, BOIDS_ERR_INPUT, "GPU backend: unknown variant %d",
                               (int)g->opt.variant);
    if (g->opt.variant != BOIDS_GPU_VARIANT_FUSED) return BOIDS_OK;
    if (g->base.dim == 3)
        return boids_error_set(err, BOIDS_ERR_INPUT,
                               "GPU variant fused runs 2-D flocks only; use the plain variant "
                               "in 3-D");
    GLint blocks = 0, bindings = 0;
    glGetIntegerv(GL_MAX_COMPUTE_SHADER_STORAGE_BLOCKS, &blocks);
    glGetIntegerv(GL_MAX_SHADER_STORAGE_BUFFER_BINDINGS, &bindings);
    if (blocks <= BOIDS_GPU_B_NEXT_RANK || bindings <= BOIDS_GPU_B_NEXT_RANK)
        return boids_error_set(err, BOIDS_ERR_LIMIT,
                               "GPU variant fused needs %d storage blocks in a compute shader; "
                               "this device has GL_MAX_COMPUTE_SHADER_STORAGE_BLOCKS = %d, "
                               "GL_MAX_SHADER_STORAGE_BUFFER_BINDINGS = %d: use the plain variant",
                               BOIDS_GPU_B_NEXT_RANK + 1, blocks, bindings);
    return BOIDS_OK;
}

boids_gpu_options boids_gpu_options_default(void) {
    boids_gpu_options o = {1, 0, 0, NULL, BOIDS_GPU_VARIANT_PLAIN, 0, 0};
    return o;
}

boids_backend *boids_gpu_create(boids_gl *gl, const boids_flock *initial,
                                const boids_gpu_options *opt, boids_error *err) {
    gpu_backend *g = calloc(1, sizeof *g);
    if (!g) {
        boids_gl_destroy(gl);
        boids_error_set(err, BOIDS_ERR_NOMEM, "out of memory");
        return NULL;
    }
    g->base.ops = &gpu_ops;
    g->gl = gl;
    g->opt = opt ? *opt : boids_gpu_options_default();
    g->base.dim = initial->z ? 3 : 2;
    if (g->opt.log) g->log_errors = g->opt.log->errors;
    boids_status st = check_count(initial->n, err);
    if (st != BOIDS_OK) goto fail;
    /* The values after the size: a flock beyond the device is refused unread. */
    size_t bad = boids_flock_first_not_finite(initial);
    if (bad < initial->n) {
        st = boids_error_set(err, BOIDS_ERR_INPUT,
                             "boids_gpu_create: boid %zu has a value that is not finite", bad);
        goto fail;
    }

    glGetIntegerv(GL_SHADER_STORAGE_BUFFER_OFFSET_ALIGNMENT, &g->ssbo_align);
    if (g->ssbo_align < 4) g->ssbo_align = 4;
    GLint64 block = 0;
    GLint max_groups = 0;
    glGetInteger64v(GL_MAX_SHADER_STORAGE_BLOCK_SIZE, &block);
    glGetIntegeri_v(GL_MAX_COMPUTE_WORK_GROUP_COUNT, 0, &max_groups);
    g->block = block;
    if (g->opt.test_block_bytes && g->opt.test_block_bytes < (size_t)block)
        g->block = (GLint64)g->opt.test_block_bytes;
    g->max_groups_x = (GLuint)max_groups;
    if (g->opt.test_groups_x && g->opt.test_groups_x < g->max_groups_x)
        g->max_groups_x = g->opt.test_groups_x;
    g->split = state_split(block, g->ssbo_align);
    if (g->opt.test_block_bytes && g->opt.test_block_bytes < (size_t)block)
        g->split = state_split((GLint64)g->opt.test_block_bytes, g->ssbo_align);
    /* Cells: bounded by the cap, by one uint per cell (and the final start) in a storage
     * block, and by the scan_add dispatch of one thread per cell. */
    g->max_cells = BOIDS_GPU_MAX_CELLS;
    if ((size_t)(block / 4) - 1 < g->max_cells) g->max_cells = (size_t)(block / 4) - 1;
    if ((size_t)max_groups * BOIDS_GPU_SCAN_WG < g->max_cells)
        g->max_cells = (size_t)max_groups * BOIDS_GPU_SCAN_WG;

    if ((st = check_variant(g, err))) goto fail;
    for (int i = 0; i < NPROG; i++)
        if ((i != P_STEER_FUSED || g->opt.variant == BOIDS_GPU_VARIANT_FUSED) &&
            (st = build_program(prog_files[i], g->base.dim == 3 ? 3 : 2, &g->prog[i], err)))
            goto fail;
    g->ubo_size = (GLsizeiptr)((sizeof(boids_gpu_params) + 15) / 16 * 16);
    if (g->opt.check && (st = check_ubo_layout(g->prog[P_STEER], g->ubo_size, err))) goto fail;
    if (g->opt.check && (st = check_interact_layout(g->prog[P_STEER], err))) goto fail;
    glGenBuffers(1, &g->ubo);
    glBindBuffer(GL_UNIFORM_BUFFER, g->ubo);
    glBufferData(GL_UNIFORM_BUFFER, g->ubo_size, NULL, GL_DYNAMIC_DRAW);
    glGenBuffers(1, &g->iubo);
    glBindBuffer(GL_UNIFORM_BUFFER, g->iubo);
    glBufferData(GL_UNIFORM_BUFFER, sizeof(boids_gpu_interact), NULL, GL_DYNAMIC_DRAW);
    glBindBuffer(GL_UNIFORM_BUFFER, 0);
    if (g->opt.timing) glGenQueries(BOIDS_GPU_STAGES, g->queries);
    if ((st = alloc_buffer(&g->cut, 4, "the loop-cut flag", 1, err))) goto fail;
    if ((st = check(g, "set-up", err))) goto fail;
    if ((st = gpu_upload(&g->base, initial, err))) goto fail;
    return &g->base;
fail:
    gpu_destroy(&g->base);
    return NULL;
}

int boids_backend_is_gpu(const boids_backend *b) {
    return b && b->ops == &gpu_ops;
}

unsigned boids_gpu_state_buffer(const boids_backend *b) {
    return as_gpu(b)->state[0];
}

unsigned boids_gpu_id_buffer(const boids_backend *b) {
    return as_gpu(b)->ids[0];
}

unsigned boids_gpu_velocity_buffer(const boids_backend *b) {
    return as_gpu(b)->vel[0];
}

size_t boids_gpu_bytes(const boids_backend *b) {
    if (!boids_backend_is_gpu(b)) return 0; /* NULL, or a cpu backend: no GPU buffers */
    const gpu_backend *g = as_gpu(b);
    size_t nbuf = g->opt.deterministic ? 3 : 2;
    size_t per_state = g->base.dim == 3 ? 36 : 20; /* 3-D: two vec4 and the id */
    return g->cap_n * (nbuf * per_state + 4) + (g->cap_cells ? 4 * (g->cap_cells + 1) : 0) +
           (size_t)g->scan_bytes + (size_t)g->ubo_size + sizeof(boids_gpu_interact) + 20 * g->nbr_n;
}

void boids_gpu_grid(const boids_backend *b, unsigned *ncx, unsigned *ncy) {
    *ncx = as_gpu(b)->ncx;
    *ncy = as_gpu(b)->ncy;
}

const char *boids_gpu_stage_name(boids_gpu_stage stage) {
    static const char *const names[BOIDS_GPU_STAGES] = {"clear",   "count", "scan",
                                                        "scatter", "sort",  "steer"};
    return stage < BOIDS_GPU_STAGES ? names[stage] : "?";
}

boids_gpu_timing boids_gpu_timings(const boids_backend *b) {
    return as_gpu(b)->timing;
}

void boids_gpu_timings_reset(boids_backend *b) {
    memset(&as_gpu(b)->timing, 0, sizeof as_gpu(b)->timing);
}
