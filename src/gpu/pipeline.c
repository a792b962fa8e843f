/* The GPU step (DESIGN.md "GPU step"): counting-sort grid and the rules in compute shaders.
 *
 * Buffers (N boids, C cells):
 *   state[0], ids[0]  the current state, vec4 (x, y, vx, vy) + uint id, in the cell order of
 *                     the previous step (any order after an upload)
 *   state[1], ids[1]  the same state reordered by cell (scatter output, steer input)
 *   state[2], ids[2]  deterministic mode only: scatter output before the sort by id
 *   cellrank          uvec2 (cell, rank) per boid from the count stage
 *   counts            uint per cell
 *   scan              all levels of the prefix sum; its first region is starts[C]
 * One step: clear counts; count (0); scan; scatter 0 -> 1 (or 0 -> 2, sort 2 -> 1); steer
 * 1 -> 0. The state always returns to buffer 0 (ping-pong through 1), already nearly in
 * cell order for the next step's reads. */
#include <glad/gl.h>

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "boids/gpu.h"
#include "prelude.h"
#include "shaders.h"

/* The float constants of the rules exactly as the float CPU path computes them. */
#define RULES_REAL     float
#define RULES_FN(name) name##_f
#include "rules.h"

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
    NPROG
};
static const char *const prog_files[NPROG] = {
    "count.comp", "scan.comp",       "scan_add.comp",   "scatter.comp",        "sort.comp",
    "steer.comp", "neighbours.comp", "steer_topo.comp", "neighbours_topo.comp"};
/* Shared GLSL prepended to every program, after the prelude (as in src/gpu/gpu.cmake), and
 * the topological selection, which only the topological programs get (its per-invocation
 * list would otherwise sit in every program). */
static const char *const common_files[] = {"rules.glsl", "grid.glsl"};
enum { NCOMMON = sizeof common_files / sizeof common_files[0] };
static const char *const select_file = "select.glsl";

_Static_assert((int)BOIDS_GPU_MAX_K == (int)BOIDS_GPU_MAX_K_SHADER, "one topological k limit");

enum { MAX_LEVELS = 8 };

typedef struct gpu_backend {
    boids_backend base;
    boids_gl *gl; /* owned; NULL when running on a context made elsewhere */
    boids_gpu_options opt;
    unsigned long log_errors; /* opt.log->errors already seen */

    GLuint prog[NPROG];
    GLuint state[3], ids[3], cellrank, counts, scan, ubo;
    GLuint nbr_count, nbr_hash, id_hash;
    size_t cap_n, nbr_n;
    size_t cap_cells;
    GLsizeiptr ubo_size;

    /* Device limits. */
    GLint ssbo_align;
    size_t max_cells;

    /* Grid and scan layout of the latest step. */
    unsigned ncx, ncy;
    size_t ncells;
    int nlevels;
    size_t lvl_n[MAX_LEVELS];
    GLintptr lvl_out[MAX_LEVELS], lvl_sums[MAX_LEVELS];
    GLsizeiptr scan_bytes;

    uint32_t t; /* the Vicsek noise stream's step index: the uploaded state's, plus steps since */

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

static const char *shader_source(const char *name) {
    for (const boids_gpu_shader *s = boids_gpu_shaders; s->name; s++)
        if (strcmp(s->name, name) == 0) return s->source;
    return NULL;
}

static boids_status build_program(const char *file, int with_select, GLuint *out,
                                  boids_error *err) {
    size_t plen = boids_gpu_prelude(NULL, 0);
    char *prelude = malloc(plen + 1);
    if (!prelude) return boids_error_set(err, BOIDS_ERR_NOMEM, "out of memory");
    boids_gpu_prelude(prelude, plen + 1);
    const char *src[NCOMMON + 3];
    int nsrc = 0;
    src[nsrc++] = prelude;
    for (int i = 0; i < NCOMMON; i++) src[nsrc++] = shader_source(common_files[i]);
    if (with_select) src[nsrc++] = shader_source(select_file);
    src[nsrc++] = shader_source(file);
    for (int i = 1; i < nsrc; i++)
        if (!src[i]) {
            free(prelude);
            return boids_error_set(err, BOIDS_ERR_RUNTIME, "shader %s not embedded", file);
        }
    GLuint sh = glCreateShader(GL_COMPUTE_SHADER);
    glShaderSource(sh, nsrc, src, NULL);
    glCompileShader(sh);
    free(prelude);
    GLint ok = 0;
    char log[1024] = "";
    glGetShaderiv(sh, GL_COMPILE_STATUS, &ok);
    if (!ok) {
        glGetShaderInfoLog(sh, sizeof log, NULL, log);
        glDeleteShader(sh);
        return boids_error_set(err, BOIDS_ERR_RUNTIME, "shaders/%s does not compile: %s", file,
                               log);
    }
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

/* ---- limits ------------------------------------------------------------------------------ */

size_t boids_gpu_max_count(char *why, size_t size) {
    GLint64 block = 0;
    GLint groups = 0;
    glGetInteger64v(GL_MAX_SHADER_STORAGE_BLOCK_SIZE, &block);
    glGetIntegeri_v(GL_MAX_COMPUTE_WORK_GROUP_COUNT, 0, &groups);
    /* The largest per-boid array is the vec4 state: 16 bytes a boid. */
    size_t by_block = (size_t)(block / 16);
    size_t by_groups = (size_t)groups * BOIDS_GPU_WG;
    size_t by_index = UINT32_MAX; /* uint indices and ids in the shaders */
    size_t max = by_block;
    if (why)
        snprintf(why, size, "GL_MAX_SHADER_STORAGE_BLOCK_SIZE = %lld bytes, 16 bytes per boid",
                 (long long)block);
    if (by_groups < max) {
        max = by_groups;
        if (why)
            snprintf(why, size, "GL_MAX_COMPUTE_WORK_GROUP_COUNT = %d groups of %d boids", groups,
                     (int)BOIDS_GPU_WG);
    }
    if (by_index < max) {
        max = by_index;
        if (why) snprintf(why, size, "32-bit boid indices");
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
    int nbuf = g->opt.deterministic ? 3 : 2;
    for (int i = 0; i < nbuf; i++) {
        if ((st = alloc_buffer(&g->state[i], (GLsizeiptr)(16 * n), "the boid states", n, err)) ||
            (st = alloc_buffer(&g->ids[i], (GLsizeiptr)(4 * n), "the boid ids", n, err)))
            return st;
    }
    if ((st = alloc_buffer(&g->cellrank, (GLsizeiptr)(8 * n), "the cell ranks", n, err))) return st;
    g->cap_n = n;
    return BOIDS_OK;
}

static GLintptr align_up(GLintptr x, GLintptr a) {
    return (x + a - 1) / a * a;
}

/* Lays out the scan levels for ncells and grows the cell buffers when needed. */
static boids_status ensure_cells(gpu_backend *g, size_t ncells, boids_error *err) {
    GLintptr off = 0, a = g->ssbo_align;
    size_t n = ncells;
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
        if ((st =
                 alloc_buffer(&g->counts, (GLsizeiptr)(4 * ncells), "the grid cells", ncells, err)))
            return st;
        g->cap_cells = ncells;
    }
    return BOIDS_OK;
}

/* ---- the grid and the uniform block ------------------------------------------------------ */

/* Cells at least the vision radius wide, tiling the world exactly. The cell is made wider
 * than the radius by a relative 2^-10, far above float rounding, so that a boid put one
 * cell off by rounding x * inv_cell_w near a cell edge still has every neighbour within its
 * 3x3 block. Beyond max_cells the cells double in size (coarser, still correct). */
static void grid_dims(const boids_params *p, size_t max_cells, unsigned *ncx, unsigned *ncy) {
    double cell = p->vision_radius * (1.0 + 1.0 / 1024.0);
    for (;;) {
        double fx = floor(p->width / cell), fy = floor(p->height / cell);
        if (fx < 1) fx = 1;
        if (fy < 1) fy = 1;
        if (fx * fy <= (double)max_cells) {
            *ncx = (unsigned)fx;
            *ncy = (unsigned)fy;
            return;
        }
        cell *= 2;
    }
}

/* The topological ring search's bound (shaders/select.glsl): boids whose cells are r + 1 or
 * more apart along an axis are more than r cell widths apart, less the rounding of the
 * cell index (x * inv_cell_w in float: a few ulps of the world size, as the cpu backend's
 * margin) and of the float d2 (relative 2^-22 or so). An axis of one cell separates no
 * cells and does not count. Returned squared and shrunk by 2^-20 so that the float product
 * r^2 * reach2 in the shader never rounds above the true bound. */
static float ring_reach2(const boids_params *p, unsigned ncx, unsigned ncy) {
    double w = INFINITY;
    if (ncx > 1) w = fmin(w, p->width / ncx);
    if (ncy > 1) w = fmin(w, p->height / ncy);
    if (isinf(w)) return 0;
    double margin = fmax(p->vision_radius / 1024, 16 * FLT_EPSILON * fmax(p->width, p->height));
    double reach = fmax(0, w - margin);
    return (float)(reach * reach * (1 - 1.0 / 1048576));
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

static boids_status set_params(gpu_backend *g, const boids_params *p, boids_error *err) {
    boids_status st = boids_gpu_check_params(p, err);
    if (st != BOIDS_OK) return st;
    const int topo = p->neighbours == BOIDS_NEIGHBOURS_TOPOLOGICAL;
    rules_k_f k;
    rules_k_init_f(&k, p);
    unsigned ncx, ncy;
    grid_dims(p, g->max_cells, &ncx, &ncy);
    st = ensure_cells(g, (size_t)ncx * ncy, err);
    if (st != BOIDS_OK) return st;
    g->ncx = ncx;
    g->ncy = ncy;
    boids_gpu_params u = {
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
        .n = (uint32_t)g->base.n,
        .ncx = ncx,
        .ncy = ncy,
        .ncells = (uint32_t)(ncx * ncy),
        .inv_cell_w = (float)((double)ncx / p->width),
        .inv_cell_h = (float)((double)ncy / p->height),
        .vicsek = p->model == BOIDS_MODEL_VICSEK,
        .topo = (uint32_t)topo,
        .k = topo ? (uint32_t)p->k : 0,
        .k_in_vision = p->k_in_vision != 0,
        .speed = (float)p->speed,
        .noise = (float)p->noise,
        .noise_seed_lo = (uint32_t)(uint64_t)p->noise_seed,
        .noise_seed_hi = (uint32_t)((uint64_t)p->noise_seed >> 32),
        .step = g->t,
        .reach2 = ring_reach2(p, ncx, ncy),
    };
    glBindBuffer(GL_UNIFORM_BUFFER, g->ubo);
    glBufferSubData(GL_UNIFORM_BUFFER, 0, sizeof u, &u);
    glBindBuffer(GL_UNIFORM_BUFFER, 0);
    glBindBufferBase(GL_UNIFORM_BUFFER, BOIDS_GPU_UBO_PARAMS, g->ubo);
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

static void dispatch(GLuint prog, GLuint ngroups) {
    glUseProgram(prog);
    glDispatchCompute(ngroups, 1, 1);
}

/* Stages 1-4 (and the sort by id): leaves the state of buffer 0 ordered by cell in
 * buffer 1, with counts and starts filled. */
static boids_status sort_by_cell(gpu_backend *g, boids_error *err) {
    size_t n = g->base.n;
    boids_status st;
    GLuint ng = groups(n, BOIDS_GPU_WG);

    stage_begin(g, BOIDS_GPU_STAGE_CLEAR);
    const GLuint zero = 0;
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, g->counts);
    glClearBufferSubData(GL_SHADER_STORAGE_BUFFER, GL_R32UI, 0, (GLsizeiptr)(4 * g->ncells),
                         GL_RED_INTEGER, GL_UNSIGNED_INT, &zero);
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, 0);
    if ((st = stage_end(g, BOIDS_GPU_STAGE_CLEAR, err))) return st;

    stage_begin(g, BOIDS_GPU_STAGE_COUNT);
    ssbo(BOIDS_GPU_B_SRC_STATE, g->state[0]);
    ssbo(BOIDS_GPU_B_CELLRANK, g->cellrank);
    ssbo_range(BOIDS_GPU_B_COUNTS, g->counts, 0, g->ncells);
    dispatch(g->prog[P_COUNT], ng);
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

    /* starts and counts stay bound for the rest of the step. */
    ssbo_range(BOIDS_GPU_B_STARTS, g->scan, g->lvl_out[0], g->ncells);
    ssbo_range(BOIDS_GPU_B_COUNTS, g->counts, 0, g->ncells);

    int det = g->opt.deterministic;
    stage_begin(g, BOIDS_GPU_STAGE_SCATTER);
    ssbo(BOIDS_GPU_B_SRC_STATE, g->state[0]);
    ssbo(BOIDS_GPU_B_SRC_ID, g->ids[0]);
    ssbo(BOIDS_GPU_B_DST_STATE, g->state[det ? 2 : 1]);
    ssbo(BOIDS_GPU_B_DST_ID, g->ids[det ? 2 : 1]);
    ssbo(BOIDS_GPU_B_CELLRANK, g->cellrank);
    dispatch(g->prog[P_SCATTER], ng);
    if ((st = stage_end(g, BOIDS_GPU_STAGE_SCATTER, err))) return st;

    if (det) {
        stage_begin(g, BOIDS_GPU_STAGE_SORT);
        ssbo(BOIDS_GPU_B_SRC_STATE, g->state[2]);
        ssbo(BOIDS_GPU_B_SRC_ID, g->ids[2]);
        ssbo(BOIDS_GPU_B_DST_STATE, g->state[1]);
        ssbo(BOIDS_GPU_B_DST_ID, g->ids[1]);
        dispatch(g->prog[P_SORT], ng);
        if ((st = stage_end(g, BOIDS_GPU_STAGE_SORT, err))) return st;
    }
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
        stage_begin(g, BOIDS_GPU_STAGE_STEER);
        ssbo(BOIDS_GPU_B_SRC_STATE, g->state[1]);
        ssbo(BOIDS_GPU_B_SRC_ID, g->ids[1]);
        ssbo(BOIDS_GPU_B_DST_STATE, g->state[0]);
        ssbo(BOIDS_GPU_B_DST_ID, g->ids[0]);
        dispatch(g->prog[topo ? P_STEER_TOPO : P_STEER], groups(b->n, BOIDS_GPU_WG));
        if ((st = stage_end(g, BOIDS_GPU_STAGE_STEER, err))) return st;
        collect_timing(g);
    }
    return BOIDS_OK;
}

/* ---- transfers --------------------------------------------------------------------------- */

static boids_status read_buffer(gpu_backend *g, GLuint buf, size_t bytes, void *out,
                                boids_error *err) {
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, buf);
    glGetBufferSubData(GL_SHADER_STORAGE_BUFFER, 0, (GLsizeiptr)bytes, out);
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, 0);
    return check(g, "read-back", err);
}

static boids_status gpu_download(boids_backend *b, boids_flock *out, boids_error *err) {
    gpu_backend *g = as_gpu(b);
    size_t n = b->n;
    if (out->n != n)
        return boids_error_set(err, BOIDS_ERR_INPUT, "GPU download: flock has %zu boids, not %zu",
                               out->n, n);
    float *s = malloc(16 * n);
    uint32_t *id = malloc(4 * n);
    boids_status st = BOIDS_OK;
    if (!s || !id) {
        st = boids_error_set(err, BOIDS_ERR_NOMEM, "GPU download: out of memory (%zu boids)", n);
    } else if (!(st = read_buffer(g, g->state[0], 16 * n, s, err)) &&
               !(st = read_buffer(g, g->ids[0], 4 * n, id, err))) {
        for (size_t i = 0; i < n; i++) {
            if (id[i] >= n) {
                st = boids_error_set(err, BOIDS_ERR_RUNTIME,
                                     "GPU download: corrupt id %u at index %zu", id[i], i);
                break;
            }
            out->x[id[i]] = s[4 * i];
            out->y[id[i]] = s[4 * i + 1];
            out->vx[id[i]] = s[4 * i + 2];
            out->vy[id[i]] = s[4 * i + 3];
        }
        out->step = g->t;
    }
    free(s);
    free(id);
    return st;
}

static boids_status gpu_upload(boids_backend *b, const boids_flock *in, boids_error *err) {
    gpu_backend *g = as_gpu(b);
    boids_status st = ensure_boids(g, in->n, err);
    if (st != BOIDS_OK) return st;
    size_t n = in->n;
    float *s = malloc(16 * n);
    uint32_t *id = malloc(4 * n);
    if (!s || !id) {
        free(s);
        free(id);
        return boids_error_set(err, BOIDS_ERR_NOMEM, "GPU upload: out of memory (%zu boids)", n);
    }
    for (size_t i = 0; i < n; i++) {
        s[4 * i] = (float)in->x[i];
        s[4 * i + 1] = (float)in->y[i];
        s[4 * i + 2] = (float)in->vx[i];
        s[4 * i + 3] = (float)in->vy[i];
        id[i] = (uint32_t)i;
    }
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, g->state[0]);
    glBufferSubData(GL_SHADER_STORAGE_BUFFER, 0, (GLsizeiptr)(16 * n), s);
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, g->ids[0]);
    glBufferSubData(GL_SHADER_STORAGE_BUFFER, 0, (GLsizeiptr)(4 * n), id);
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, 0);
    free(s);
    free(id);
    b->n = n;
    g->t = in->step;
    return check(g, "upload", err);
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
    ssbo(BOIDS_GPU_B_SRC_STATE, g->state[1]);
    ssbo(BOIDS_GPU_B_SRC_ID, g->ids[1]);
    ssbo(BOIDS_GPU_B_NBR_COUNT, g->nbr_count);
    ssbo(BOIDS_GPU_B_NBR_HASH, g->nbr_hash);
    ssbo(BOIDS_GPU_B_ID_HASH, g->id_hash);
    dispatch(
        g->prog[p->neighbours == BOIDS_NEIGHBOURS_TOPOLOGICAL ? P_NEIGHBOURS_TOPO : P_NEIGHBOURS],
        groups(n, BOIDS_GPU_WG));
    glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
    if ((st = check(g, "neighbours", err))) return st;
    uint32_t *h = malloc(8 * n);
    if (!h) return boids_error_set(err, BOIDS_ERR_NOMEM, "out of memory");
    if (!(st = read_buffer(g, g->nbr_count, 4 * n, count, err)) &&
        !(st = read_buffer(g, g->nbr_hash, 8 * n, h, err)))
        for (size_t i = 0; i < n; i++)
            set_hash[i] = (uint64_t)h[2 * i] | (uint64_t)h[2 * i + 1] << 32;
    free(h);
    return st;
}

/* ---- life cycle --------------------------------------------------------------------------- */

static void gpu_destroy(boids_backend *b) {
    gpu_backend *g = as_gpu(b);
    if (!g) return;
    for (int i = 0; i < NPROG; i++)
        if (g->prog[i]) glDeleteProgram(g->prog[i]);
    GLuint bufs[] = {g->state[0],  g->state[1], g->state[2], g->ids[0], g->ids[1],
                     g->ids[2],    g->cellrank, g->counts,   g->scan,   g->ubo,
                     g->nbr_count, g->nbr_hash, g->id_hash};
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
};

boids_gpu_options boids_gpu_options_default(void) {
    boids_gpu_options o = {1, 0, 0, NULL};
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
    if (g->opt.log) g->log_errors = g->opt.log->errors;
    boids_status st = check_count(initial->n, err);
    if (st != BOIDS_OK) goto fail;

    glGetIntegerv(GL_SHADER_STORAGE_BUFFER_OFFSET_ALIGNMENT, &g->ssbo_align);
    if (g->ssbo_align < 4) g->ssbo_align = 4;
    GLint64 block = 0;
    GLint max_groups = 0;
    glGetInteger64v(GL_MAX_SHADER_STORAGE_BLOCK_SIZE, &block);
    glGetIntegeri_v(GL_MAX_COMPUTE_WORK_GROUP_COUNT, 0, &max_groups);
    /* Cells: bounded by the cap, by one uint per cell in a storage block, and by the
     * scan_add dispatch of one thread per cell. */
    g->max_cells = BOIDS_GPU_MAX_CELLS;
    if ((size_t)(block / 4) < g->max_cells) g->max_cells = (size_t)(block / 4);
    if ((size_t)max_groups * BOIDS_GPU_SCAN_WG < g->max_cells)
        g->max_cells = (size_t)max_groups * BOIDS_GPU_SCAN_WG;

    for (int i = 0; i < NPROG; i++)
        if ((st = build_program(prog_files[i], i == P_STEER_TOPO || i == P_NEIGHBOURS_TOPO,
                                &g->prog[i], err)))
            goto fail;
    g->ubo_size = (GLsizeiptr)((sizeof(boids_gpu_params) + 15) / 16 * 16);
    if (g->opt.check && (st = check_ubo_layout(g->prog[P_STEER], g->ubo_size, err))) goto fail;
    glGenBuffers(1, &g->ubo);
    glBindBuffer(GL_UNIFORM_BUFFER, g->ubo);
    glBufferData(GL_UNIFORM_BUFFER, g->ubo_size, NULL, GL_DYNAMIC_DRAW);
    glBindBuffer(GL_UNIFORM_BUFFER, 0);
    if (g->opt.timing) glGenQueries(BOIDS_GPU_STAGES, g->queries);
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
