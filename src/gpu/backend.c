/* SPDX-License-Identifier: MIT */
/* The GPU backend's life cycle: its programs, create (the device's limits, the variant, the
 * blocks' layout checks) and destroy, the backend operations; the variant's and the stages'
 * names, the options' defaults and the small public getters. */
#include <stdlib.h>
#include <string.h>

#include "pipeline.h"
#include "shaders.h"

/* ---- programs ---------------------------------------------------------------------------- */

/* The shader unit of each program, compiled for the flock's dimension; which files compose it
 * is src/shaders.cmake's. The fused variant runs in 2-D only. */
static const char *const prog_files[NPROG] = {
    "count.comp",       "scan.comp",          "scan_add.comp",
    "scatter.comp",     "sort.comp",          "steer.comp",
    "neighbours.comp",  "steer_topo.comp",    "neighbours_topo.comp",
    "steer_fused.comp", "steer_species.comp", "steer_topo_species.comp"};
/* The programs tile mode builds again with TILE (the others it shares, or does not run: the
 * fused variant and the verification's neighbour queries). */
static const int prog_tiled[NPROG] = {[P_COUNT] = 1,
                                      [P_SCATTER] = 1,
                                      [P_SORT] = 1,
                                      [P_STEER] = 1,
                                      [P_STEER_TOPO] = 1,
                                      [P_STEER_SPECIES] = 1,
                                      [P_STEER_TOPO_SPECIES] = 1};

/* The programs built on demand, by the first step with species (gpu_build_species). */
static int prog_species(int i) {
    return i == P_STEER_SPECIES || i == P_STEER_TOPO_SPECIES;
}

boids_status gpu_build_program(const char *file, int dim, GLuint *out, boids_error *err) {
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

GLuint gpu_prog(const gpu_backend *g, int i) {
    return g->tiled && prog_tiled[i] ? g->tprog[i] : g->prog[i];
}

boids_status gpu_build_tiled(gpu_backend *g, boids_error *err) {
    boids_status st;
    for (int i = 0; i < NPROG; i++)
        if (prog_tiled[i] && !g->tprog[i] && !prog_species(i) &&
            (st = gpu_build_program(prog_files[i], (g->base.dim == 3 ? 3 : 2) | BOIDS_GPU_TILE,
                                    &g->tprog[i], err)))
            return st;
    return g->opt.check ? gpu_check_blocks(g->tprog[P_STEER], g->ubo_size, 0, err) : BOIDS_OK;
}

boids_status gpu_build_species(gpu_backend *g, int topo, boids_error *err) {
    const int dim = g->base.dim == 3 ? 3 : 2, i = topo ? P_STEER_TOPO_SPECIES : P_STEER_SPECIES;
    boids_status st = BOIDS_OK;
    if (!g->prog[i]) st = gpu_build_program(prog_files[i], dim, &g->prog[i], err);
    if (!st && g->tiled && !g->tprog[i])
        st = gpu_build_program(prog_files[i], dim | BOIDS_GPU_TILE, &g->tprog[i], err);
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
    free(g->rrec), free(g->rrow), free(g->rhist);
    if (g->rprog) glDeleteProgram(g->rprog);
    GLuint bufs[] = {g->state[0],  g->state[1], g->state[2], g->ids[0], g->ids[1], g->ids[2],
                     g->rank,      g->counts,   g->scan,     g->ubo,    g->iubo,   g->subo,
                     g->nbr_count, g->nbr_hash, g->id_hash,  g->vel[0], g->vel[1], g->vel[2],
                     g->cut,       g->raux,     g->rout};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
        if (bufs[i]) glDeleteBuffers(1, &bufs[i]);
    if (g->queries[0]) glDeleteQueries(BOIDS_GPU_STAGES, g->queries);
    boids_gl_destroy(g->gl);
    free(g);
}

/* The calls of both modes, below. */
#define GPU_OPS                                                                                    \
    .name = "gpu", .destroy = gpu_destroy, .step = gpu_step, .download = gpu_download,             \
    .upload = gpu_upload, .neighbours = gpu_neighbours, .tile_geom = gpu_tile_geom,                \
    .upload_tile = gpu_upload_tile, .tile_start = gpu_tile_start, .tile_box = gpu_tile_box,        \
    .tile_count = gpu_tile_count, .tile_split = gpu_tile_split,                                    \
    .tile_row_cells = gpu_tile_row_cells, .tile_add = gpu_tile_add, .tile_halo = gpu_tile_halo,    \
    .tile_owned = gpu_tile_owned

static const boids_backend_ops gpu_ops = {GPU_OPS};

/* In the deterministic mode, whose cells hold their boids in id order, tiles may also end
 * within a cell (tile.h). */
static const boids_backend_ops gpu_ops_det = {GPU_OPS, .tile_cell_ids = gpu_tile_cell_ids};

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
    g->gl = gl;
    g->opt = opt ? *opt : boids_gpu_options_default();
    g->base.ops = g->opt.deterministic ? &gpu_ops_det : &gpu_ops;
    g->base.dim = initial->z ? 3 : 2;
    if (g->opt.log) g->log_errors = g->opt.log->errors;
    boids_status st = gpu_check_count(initial->n, err);
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
    g->split = gpu_state_split(block, g->ssbo_align);
    if (g->opt.test_block_bytes && g->opt.test_block_bytes < (size_t)block)
        g->split = gpu_state_split((GLint64)g->opt.test_block_bytes, g->ssbo_align);
    /* Cells: bounded by the cap, by one uint per cell (and the final start) in a storage
     * block, and by the scan_add dispatch of one thread per cell. */
    g->max_cells = BOIDS_GPU_MAX_CELLS;
    if ((size_t)(block / 4) - 1 < g->max_cells) g->max_cells = (size_t)(block / 4) - 1;
    if ((size_t)max_groups * BOIDS_GPU_SCAN_WG < g->max_cells)
        g->max_cells = (size_t)max_groups * BOIDS_GPU_SCAN_WG;

    if ((st = check_variant(g, err))) goto fail;
    for (int i = 0; i < NPROG; i++)
        if ((i != P_STEER_FUSED || g->opt.variant == BOIDS_GPU_VARIANT_FUSED) && !prog_species(i) &&
            (st = gpu_build_program(prog_files[i], g->base.dim == 3 ? 3 : 2, &g->prog[i], err)))
            goto fail;
    g->ubo_size = (GLsizeiptr)((sizeof(boids_gpu_params) + 15) / 16 * 16);
    if (g->opt.check && (st = gpu_check_blocks(g->prog[P_STEER], g->ubo_size, 1, err))) goto fail;
    glGenBuffers(1, &g->ubo);
    glBindBuffer(GL_UNIFORM_BUFFER, g->ubo);
    glBufferData(GL_UNIFORM_BUFFER, g->ubo_size, NULL, GL_DYNAMIC_DRAW);
    glGenBuffers(1, &g->iubo);
    glBindBuffer(GL_UNIFORM_BUFFER, g->iubo);
    glBufferData(GL_UNIFORM_BUFFER, sizeof(boids_gpu_interact), NULL, GL_DYNAMIC_DRAW);
    glGenBuffers(1, &g->subo);
    glBindBuffer(GL_UNIFORM_BUFFER, g->subo);
    glBufferData(GL_UNIFORM_BUFFER, sizeof(boids_gpu_species), NULL, GL_DYNAMIC_DRAW);
    glBindBuffer(GL_UNIFORM_BUFFER, 0);
    if (g->opt.timing) glGenQueries(BOIDS_GPU_STAGES, g->queries);
    if ((st = gpu_alloc_buffer(&g->cut, 4, "the loop-cut flag", 1, err))) goto fail;
    if ((st = gpu_check(g, "set-up", err))) goto fail;
    if ((st = gpu_upload(&g->base, initial, err))) goto fail;
    return &g->base;
fail:
    gpu_destroy(&g->base);
    return NULL;
}

int boids_backend_is_gpu(const boids_backend *b) {
    return b && (b->ops == &gpu_ops || b->ops == &gpu_ops_det);
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
