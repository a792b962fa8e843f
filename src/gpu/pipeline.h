/* SPDX-License-Identifier: MIT */
/* The GPU step's shared internals: the backend's state and the functions its files call
 * across one another. Internal to src/gpu; nothing here is exported (the GPU objects are
 * built with hidden visibility).
 *
 * The GPU step is a counting-sort grid rebuilt every step and the rules in compute shaders.
 * Its files, by concern:
 *   blocks.c    the uniform blocks (parameters, interaction table), their layout checked
 *               against GL's, and the device's limits on N
 *   buffers.c   errors, storage buffers, their bindings and the host's reads and writes
 *   grid.c      the grid build: the grid's geometry into the uniform block, then the
 *               counting sort (clear, count, scan, scatter, sort by id)
 *   step.c      the stages' timing, the steer dispatch and the step, the loop-cut flag
 *   transfer.c  download, upload, tile mode's window and id map, the neighbour queries
 *   resident.c  the resident tile (tile.h): the owned boids kept in state 0 between steps
 *   backend.c   life cycle (create, destroy, the programs, the variant) and the getters
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
 * allows is bound as two blocks split at `split` slots (buffers.c, bind_state).
 *
 * A 3-D flock (dim = 3) runs the same stages, each shader unit compiled for the box (DIM 3,
 * src/shaders.cmake): state[k] holds positions vec4 (x, y, z, 0) and vel[k] velocities
 * vec4 (vx, vy, vz, 0), bound where the 2-D state's two halves go (gpu_bind_src,
 * gpu_bind_dst); the grid is 3-D (grid.c, set_grid), the scan the same. Each array is one
 * storage block: no split in 3-D. What differs by dimension on this side: the grid's
 * geometry (set_grid), the interaction table's layout (boids_gpu_interact_init), the state's
 * layout (bind_states; transfer.c's pack and unpack).
 *
 * Tile mode (src/core/tile.h, gpu_upload_tile): the same stages compiled with TILE
 * (shaders/grid.glsl) over the cells of a window of the whole flock's grid, plus one cell
 * after them for boids outside the window (grid.c: set_window, gpu_check_window); the ids
 * are the global ones. */
#ifndef BOIDS_GPU_PIPELINE_H
#define BOIDS_GPU_PIPELINE_H

#include <glad/gl.h>

#include <stddef.h>
#include <stdint.h>

#include "gpu_impl.h"
#include "grid_geom.h"
#include "prelude.h"
#include "tile.h"

/* The programs, one shader unit each (backend.c). */
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
    P_STEER_FUSED,        /* built for the fused variant only (ten storage blocks) */
    P_STEER_SPECIES,      /* built by the first step with species (gpu_build_species) */
    P_STEER_TOPO_SPECIES, /* likewise, with topological neighbours */
    NPROG
};

enum { MAX_LEVELS = 8 };

typedef struct gpu_backend {
    boids_backend base;
    boids_gl *gl; /* owned; NULL when running on a context made elsewhere */
    boids_gpu_options opt;
    unsigned long log_errors; /* opt.log->errors already seen */

    GLuint prog[NPROG];
    GLuint state[3], ids[3], rank, counts, scan, ubo;
    GLuint iubo; /* the interaction table's block, uploaded when the table or world changes */
    GLuint subo; /* the species block (boids_gpu_species), uploaded every step */
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
     * the latest steer, so the next gpu_sort_by_cell skips its clear and count. */
    int primed;
    float primed_grid[4]; /* ncx, ncy, inv_cell_w, inv_cell_h they were taken on */

    /* Tile mode (src/core/tile.h), from gpu_upload_tile to the next gpu_upload: the state is
     * the window `tile` of a flock of tile.n_global boids; the id buffers hold the global
     * ids (tile.gid, copied to gid), which order the cells (--deterministic), break the
     * topological ties and draw the Vicsek noise as the whole flock's ids do; download maps
     * them back to the local boids. tprog: the programs compiled with TILE, built by the
     * first gpu_upload_tile (gpu_build_tiled). */
    int tiled;
    boids_tile tile;
    grid_geomd tile_grid; /* the whole flock's grid of the latest step */
    uint32_t *gid;
    size_t gid_cap;
    uint32_t *map; /* open addressing, map_cap slots (a power of two): local index + 1 of a
                    * global id hashed there, 0 empty; the ids may come in any order */
    size_t map_cap;
    GLuint tprog[NPROG];
    /* The resident tile (resident.c), from gpu_tile_start to the next gpu_upload: the owned
     * boids are slots [0, nown) of state 0 between steps; rprog runs shaders/tile_res.comp;
     * raux holds its counters, the boids' rows and the row counts, rout the records it gives
     * back; rrec, rrow and rhist their host copies. */
    int res_on;
    size_t nown;
    uint64_t rplane; /* the cells of a row of the last gpu_tile_count's grid */
    uint32_t rnrows; /* and its rows */
    GLuint rprog, raux, rout;
    size_t raux_cap, rout_cap;
    unsigned char *rrec;
    uint32_t *rrow, *rhist;
    size_t rrec_cap, rrow_cap, rhist_cap;

    GLuint queries[BOIDS_GPU_STAGES];
    boids_gpu_timing timing;
    double stage_t0; /* now_ms() at the start of the stage being timed */
} gpu_backend;

static inline gpu_backend *as_gpu(const boids_backend *b) {
    return (gpu_backend *)b;
}

/* Work groups of `per` that cover n items. */
static inline GLuint gpu_groups(size_t n, size_t per) {
    return (GLuint)((n + per - 1) / per);
}

/* ---- blocks.c ---------------------------------------------------------------------------- */

/* The uniform blocks as GL lays them out in program prog must be the C structs: the
 * parameters (Params, no larger than ubo_size bytes) and, with `interact`, the interaction
 * table (Interact, exactly its size); the same member offsets. */
boids_status gpu_check_blocks(GLuint prog, GLsizeiptr ubo_size, int interact, boids_error *err);
/* Slots of the first of the two blocks the 2-D state is bound as, for a storage block of
 * `block` bytes and the offset alignment align. */
size_t gpu_state_split(GLint64 block, GLint align);
/* N is at least 1 and within the current context's limits (boids_gpu_max_count). */
boids_status gpu_check_count(size_t n, boids_error *err);
/* Uploads the interaction table of p's world when it changed, and binds its block. */
void gpu_set_interact(gpu_backend *g, const boids_params *p);

/* Builds the species' steer program of the neighbour rule (topo: the topological one; in
 * tile mode also its TILE twin) if not yet built. (backend.c) */
boids_status gpu_build_species(gpu_backend *g, int topo, boids_error *err);

/* Uploads the species block (boids_gpu_species) of p and binds it. (blocks.c) */
void gpu_set_species(gpu_backend *g, const boids_params *p);

/* ---- buffers.c --------------------------------------------------------------------------- */

/* With opt.check: a GL error or a new debug error message after `what` is a failure. */
boids_status gpu_check(gpu_backend *g, const char *what, boids_error *err);
/* (Re)allocates buffer *buf with size bytes; GL_OUT_OF_MEMORY becomes BOIDS_ERR_LIMIT. */
boids_status gpu_alloc_buffer(GLuint *buf, GLsizeiptr size, const char *what, size_t n,
                              boids_error *err);
/* Grows the per-boid buffers to hold n boids. */
boids_status gpu_ensure_boids(gpu_backend *g, size_t n, boids_error *err);
/* Binds buf whole, or count_u32 uints of it from byte off, at a storage binding point. */
void gpu_ssbo(GLuint binding, GLuint buf);
void gpu_ssbo_range(GLuint binding, GLuint buf, GLintptr off, size_t count_u32);
/* Binds state k (state, velocities in 3-D, ids) as the state a stage reads or writes. */
void gpu_bind_src(const gpu_backend *g, int k);
void gpu_bind_dst(const gpu_backend *g, int k);
/* Writes or reads bytes of buffer buf from byte off. */
void gpu_put(GLuint buf, size_t off, size_t bytes, const void *data);
void gpu_read(GLuint buf, size_t off, size_t bytes, void *out);

/* ---- grid.c ------------------------------------------------------------------------------ */

/* The whole flock's grid for parameters p and n boids. */
boids_status gpu_world_grid(const gpu_backend *g, const boids_params *p, size_t n, grid_geomd *gg,
                            boids_error *err);
/* Uploads the uniform block for a step under p (the grid's fields included, tile mode's
 * window) and binds both blocks; lays out the cells. */
boids_status gpu_set_params(gpu_backend *g, const boids_params *p, boids_error *err);
/* Stage 1: zeroes the cell counts, unless the fused steer took them already. */
boids_status gpu_clear_counts(gpu_backend *g, boids_error *err);
/* Stages 1-4 (and the sort by id): the state of buffer 0 ordered by cell in buffer 1. */
boids_status gpu_sort_by_cell(gpu_backend *g, boids_error *err);
/* Tile mode, after the sort: refuses a state with boids outside the window. */
boids_status gpu_check_window(gpu_backend *g, boids_error *err);

/* ---- step.c ------------------------------------------------------------------------------ */

/* Brackets stage s of a step: its timing (opt.timing), then a barrier and gpu_check. */
void gpu_stage_begin(gpu_backend *g, boids_gpu_stage s);
boids_status gpu_stage_end(gpu_backend *g, boids_gpu_stage s, boids_error *err);
/* Runs prog with one invocation per boid. */
void gpu_dispatch_boids(const gpu_backend *g, GLuint prog);
/* The loop-cut flag: zeroed by an upload, read after a step call or a neighbours query. */
void gpu_clear_cut(const gpu_backend *g);
boids_status gpu_check_cut(gpu_backend *g, const char *what, boids_error *err);
boids_status gpu_step(boids_backend *b, const boids_params *p, unsigned steps, boids_error *err);

/* ---- transfer.c -------------------------------------------------------------------------- */

boids_status gpu_download(boids_backend *b, boids_flock *out, boids_error *err);
boids_status gpu_upload(boids_backend *b, const boids_flock *in, boids_error *err);
boids_status gpu_tile_geom(const boids_backend *b, const boids_params *p, const boids_tile *t,
                           grid_geomd *gg, boids_error *err);
boids_status gpu_upload_tile(boids_backend *b, const boids_flock *in, const boids_tile *t,
                             boids_error *err);
boids_status gpu_neighbours(boids_backend *b, const boids_params *p, uint32_t *count,
                            uint64_t *set_hash, boids_error *err);

/* ---- resident.c -------------------------------------------------------------------------- */

boids_status gpu_tile_start(boids_backend *b, const unsigned char *rec, size_t m, size_t n_global,
                            uint32_t step, boids_error *err);
void gpu_tile_box(boids_backend *b, grid_boxd *box);
boids_status gpu_tile_count(boids_backend *b, const grid_geomd *gg, uint64_t *count,
                            uint64_t *pairs, boids_error *err);
boids_status gpu_tile_split(boids_backend *b, boids_tile_key lo, boids_tile_key hi,
                            boids_tile_moves *out, boids_error *err);
boids_status gpu_tile_add(boids_backend *b, const unsigned char *rec, size_t m, boids_error *err);
boids_status gpu_tile_cell_ids(boids_backend *b, const uint64_t *cells, uint32_t nc, uint32_t *ids,
                               size_t cap, size_t *m, boids_error *err);
boids_status gpu_tile_row_cells(boids_backend *b, const uint32_t *rows, uint32_t nr,
                                uint32_t *count, boids_error *err);
boids_status gpu_tile_halo(boids_backend *b, const boids_tile *t, const unsigned char *rec,
                           size_t m, boids_error *err);
boids_status gpu_tile_owned(boids_backend *b, boids_tile_keep keep, const void *ctx,
                            const unsigned char **rec, size_t *m, boids_error *err);
/* After a resident step: the owned boids (the steered rows') to the front, the halo dropped. */
boids_status gpu_tile_keep(gpu_backend *g, boids_error *err);

/* ---- backend.c --------------------------------------------------------------------------- */

/* Compiles shader unit `file` for dimension dim (| BOIDS_GPU_TILE for tile mode) and links it
 * into *out. */
boids_status gpu_build_program(const char *file, int dim, GLuint *out, boids_error *err);
/* Program i (P_*) of the mode the state is in: tile mode's where it has its own. */
GLuint gpu_prog(const gpu_backend *g, int i);
/* Builds the programs tile mode compiles with TILE, once. */
boids_status gpu_build_tiled(gpu_backend *g, boids_error *err);

#endif
