/* SPDX-License-Identifier: MIT */
/* Tiles: one flock stepped as slabs of the global grid, for the MPI backend (src/mpi),
 * where each rank holds one slab. Internal to the project (that backend and the tests use it).
 *
 * The cut. The whole flock's grid (grid_geom.h: the geometry the backend's step would use
 * for all N boids) has n[D-1] rows along its last axis (y in the plane, z in the box). A
 * tile is a range of whole rows [lo, hi) of that grid; the tiles of K ranks cover the rows
 * in order, each at least one row. A boid belongs to the tile of its row (boids_tile_row).
 * On the cpu and gpu backends' resident tiles a tile may also begin or end within a row: a range of
 * the grid's cells in row order, and where each cell holds its boids in id order (the cpu
 * backend, the gpu's deterministic mode) within a cell, a range of keys (a
 * cell and a global id: below, "tiles of keys in row order"), its window the rows that hold
 * them.
 *
 * The window. To step its tile a rank needs the boids of its rows and of the row on either
 * side (the halo): cells are at least one interaction reach wide, so those are all the
 * candidates any boid of the tile can have (metric neighbours; topological ones with
 * k_in_vision). The rank uploads them to its backend with boids_backend_upload_tile: the
 * window is the rows row_lo, row_lo + 1, ... (periodically under wrap) and the backend
 * numbers its cells over the window alone, so its memory follows the tile, not the world.
 *
 * Why the bits are those of one process. Each boid's neighbour sums are made over its
 * cell's 3^D block, cells in a fixed order of offsets, each cell's boids in id order
 * (cpu_grid.c, the GPU's --deterministic sort). A window holds the same block of every
 * boid of its steered rows, in the same offset order, with the same ids (the global ones,
 * boids_tile.gid) in the same order, and every offset is taken in the world's geometry
 * (rules_wrap of global positions). So every steered boid adds the same terms in the same
 * order as in one process and moves to the same float values. */
#ifndef BOIDS_TILE_H
#define BOIDS_TILE_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "boids/backend.h"
#include "boids/error.h"
#include "boids/params.h"
#include "grid_geom.h"

/* What a backend needs besides the local boids to step them as part of the whole flock. */
typedef struct boids_tile {
    size_t n_global; /* the whole flock's N: the grid's cell cap (boids_grid_geom_cap) is its */
    uint32_t row_lo; /* the global row of the window's first row */
    uint32_t rows;   /* rows in the window, >= 1: row_lo .. row_lo + rows - 1 (mod n[D-1]
                      * under wrap; never more rows than the grid has) */
    uint32_t steer_lo, steer_hi; /* the window rows [steer_lo, steer_hi) whose boids a step
                                  * moves; the boids of the other rows keep their state */
    int has_box; /* the open boundary: box is the whole flock's bounding box as the backend
                  * would compute it over all N boids (boids_tile_box_add, then min/max) */
    grid_boxd box;
    const uint32_t *gid;       /* gid[i]: the global id of local boid i (the uploaded flock's n
                                * entries, all distinct, in any order): the Vicsek noise, the cells'
                                * id order and the topological ties use it, so the order of the local
                                * boids changes no bit. Copied by the upload. Ids beyond n_global are
                                * refused; repeated ids are not detected (the caller's duty). */
    uint32_t skip_lo, skip_hi; /* a tile of cells in row order that begins or ends within a row:
                                * the first skip_lo cells of row steer_lo and the last skip_hi
                                * cells of row steer_hi - 1 (in the grid's cell order, x
                                * fastest) are not moved either; 0 and 0: whole rows. Each
                                * below a row's cells, and one cell at least steered */
    uint32_t id_lo, id_hi;     /* a tile of keys that begins or ends within a cell
                                * (boids_backend_tile_within_cells): of the first steered cell
                                * only the boids with global ids from id_lo on move, of the
                                * last only those with ids below id_hi; 0 and 0: whole cells
                                * (id_hi 0: all of the last) */
} boids_tile;

/* A place in the grid's cells in row order, finer than a cell: the boids of cell `cell` with
 * global ids from `id` on (below: tiles of keys in row order). */
typedef struct boids_tile_key {
    uint64_t cell;
    uint32_t id;
} boids_tile_key;

/* The geometry the backend's step uses for the whole flock of t->n_global boids (t->box on
 * the open boundary; t->rows and the rest are not read). The cpu backend's is the box grid
 * over the flock on the open boundary (an axis where the box is empty, lo > hi, at 0 as
 * for a flock without a finite position there), the world grid otherwise; the GPU's the
 * world grid (boids_grid_geomd_init). BOIDS_ERR_INPUT for a backend without tiles
 * (cpu-ref), the open boundary without has_box, parameters boids_tile_refusal refuses or
 * the backend refuses; the message says why. */
boids_status boids_backend_tile_geom(const boids_backend *b, const boids_params *p,
                                     const boids_tile *t, grid_geomd *g, boids_error *err);

/* Replaces the state by the local flock in (its boids in any order, in->step the
 * whole flock's step) stepped as the window t of the whole flock. The next step moves only
 * the boids of rows [steer_lo, steer_hi) and keeps the others; it is one step
 * (boids_backend_step with steps = 1): after it the halo is stale, so a further step before
 * the next upload_tile is BOIDS_ERR_INPUT, as is boids_backend_neighbours in tile mode. A
 * later boids_backend_upload ends tile mode. BOIDS_ERR_INPUT here: a backend without tiles
 * (cpu-ref), gid NULL or beyond n_global, rows 0 or a steered range outside
 * the window, the open boundary without has_box (checked at the step). The geometry needs
 * the parameters, which the step brings: so the step refuses a window with more rows than
 * the grid, steered rows without their halo rows in the window (unless at a wall or open
 * edge of the world) and a boid of in outside the window (its global id and row named). */
boids_status boids_backend_upload_tile(boids_backend *b, const boids_flock *in, const boids_tile *t,
                                       boids_error *err);

/* ---- resident tiles ------------------------------------------------------------------------
 * A backend may keep its tile between steps instead of taking a window each step (the cpu
 * backend does; boids_backend_tile_resident says whether one can). Its boids then live in the
 * backend, in its own layout (float, cell order), as the tile's owned boids; a step changes
 * only what moved, in this order each step:
 *   1. boids_backend_tile_box (open boundary): the owned boids' positions added to a box;
 *   2. boids_backend_tile_count: the row of every owned boid in the whole flock's grid g
 *      (boids_backend_tile_geom's), counted per row;
 *   3. boids_backend_tile_split: the owned boids outside the tile's keys [lo, hi) (cells of
 *      the grid g in row order, and ids: whole rows or not) leave, given back as records with
 *      their rows, with copies of the tile's first and last rows (the halo of the tiles
 *      beside; two rows at an end within a row, whose tile beside reaches one row further);
 *   4. boids_backend_tile_add: the boids that arrived from other tiles join the owned ones;
 *   5. boids_backend_tile_halo: the window t (the tile's rows steered, t->gid unused) and the
 *      records of its halo rows, which replace the previous step's;
 *   6. boids_backend_step(b, p, 1): the owned boids move, the halo's are dropped.
 * The bits are those of one process for the reason above: the backend orders each cell by
 * the global ids it holds. boids_backend_tile_owned reads the owned boids back at any time.
 * A record is BOIDS_TILE_REC(dim) bytes: the global id (uint32), then dim float positions,
 * then dim float velocities, in the host's byte order: what the backend holds, so nothing is
 * rounded again. Buffers the backend returns stay valid until its next call. A later
 * boids_backend_upload ends resident mode. Each call checks its order in the sequence
 * (BOIDS_ERR_INPUT naming what is missing). */
#define BOIDS_TILE_REC(dim) (4 + 8 * (size_t)(dim))

/* What boids_backend_tile_split gives back: the boids that left the tile (records, and the
 * row of each in the grid of the last tile_count) and copies of the owned boids of the
 * tile's first (edge[0]) and last (edge[1]) rows: one row at an end of whole rows, two where
 * the tile's end is within a row or a cell (the tile beside, which ends or begins within the
 * same row, reaches the row after it); the same boid in both where the two overlap. */
typedef struct boids_tile_moves {
    const unsigned char *leave;
    const uint32_t *leave_row;
    size_t nleave;
    const unsigned char *edge[2];
    size_t nedge[2];
} boids_tile_moves;

/* Whether backend b keeps tiles resident (has the calls below). */
int boids_backend_tile_resident(const boids_backend *b);

/* Resident mode with the m records rec as the owned boids (any order, distinct global ids
 * below n_global, finite values) at the whole flock's step `step` (the noise stream's). */
boids_status boids_backend_tile_start(boids_backend *b, const unsigned char *rec, size_t m,
                                      size_t n_global, uint32_t step, boids_error *err);

/* Adds the owned boids' finite positions to *box as boids_tile_box_point does. */
boids_status boids_backend_tile_box(boids_backend *b, grid_boxd *box, boids_error *err);

/* The row of every owned boid in grid g (the whole flock's, g->dim the backend's), added to
 * count[row] (g->n[dim - 1] entries); kept for the split. With pairs (else NULL; as many
 * entries), the cost model of the cut (src/mpi): added to pairs[row], the candidates of the
 * row's boids at the last step's grid build (before its move): the sum over its cells of the
 * boids a cell held times the boids of the cells of its 3^D block (the halo's among them),
 * for the tile's rows of that step, when g is that step's grid; nothing after tile_start or
 * a new grid. The gpu backend adds nothing there. */
boids_status boids_backend_tile_count(boids_backend *b, const grid_geomd *g, uint64_t *count,
                                      uint64_t *pairs, boids_error *err);

/* The owned boids whose keys (below: the cells of the last tile_count's grid in row order
 * and the global ids) are outside [lo, hi) leave, into *out; needs a tile_count since the
 * last step or add. Keys within a cell (an id not 0) only on a backend with
 * boids_backend_tile_within_cells. */
boids_status boids_backend_tile_split(boids_backend *b, boids_tile_key lo, boids_tile_key hi,
                                      boids_tile_moves *out, boids_error *err);

/* m records that join the owned boids (m may be 0). */
boids_status boids_backend_tile_add(boids_backend *b, const unsigned char *rec, size_t m,
                                    boids_error *err);

/* The window t of the next step and its halo: m records of the window's other rows. */
boids_status boids_backend_tile_halo(boids_backend *b, const boids_tile *t,
                                     const unsigned char *rec, size_t m, boids_error *err);

/* Whether backend b steps resident tiles that begin or end within a row (the cpu and gpu
 * backends): boids_tile's skips, tile_split's cells and the call below. */
int boids_backend_tile_within_rows(const boids_backend *b);

/* The owned boids in the rows rows[0 .. nr) (distinct, of the last tile_count's grid, in any
 * order) counted per cell: count[i * plane + x] += the boids of cell x (0 .. plane - 1, the
 * grid's cell order within a row) of row rows[i], plane the cells of a row. For the cut
 * within rows (src/mpi): the counts of the rows where it ends tiles. Needs a tile_count since
 * the last step or add, as tile_split; BOIDS_ERR_INPUT on a backend without it. */
boids_status boids_backend_tile_row_cells(boids_backend *b, const uint32_t *rows, uint32_t nr,
                                          uint32_t *count, boids_error *err);

/* What a backend's boids_backend_tile_row_cells does with the whole grid's cells of its n
 * owned boids (cell[i], nrows rows of plane cells): the counts of the rows rows[0 .. nr) into
 * count; BOIDS_ERR_INPUT naming who for a row beyond the grid or named twice, NOMEM. */
boids_status boids_tile_count_row_cells(const uint32_t *cell, size_t n, uint64_t plane,
                                        uint32_t nrows, const uint32_t *rows, uint32_t nr,
                                        uint32_t *count, const char *who, boids_error *err);

/* Whether backend b steps resident tiles that begin or end within a cell (the cpu backend,
 * the gpu backend in its deterministic mode):
 * boids_tile's ids, tile_split's keys with ids and the call below. */
int boids_backend_tile_within_cells(const boids_backend *b);

/* The global ids of the owned boids of the cells cells[0 .. nc) (of the last tile_count's
 * grid, ascending, distinct): each cell's ascending, the cells in turn, into ids (room for
 * cap), *m in all. For the cut within cells (src/mpi), where the ids of the boundary cells
 * place it. Needs a tile_count since the last step or add; BOIDS_ERR_INPUT on a backend
 * without it, for cells not ascending, beyond the grid, or more ids than cap. */
boids_status boids_backend_tile_cell_ids(boids_backend *b, const uint64_t *cells, uint32_t nc,
                                         uint32_t *ids, size_t cap, size_t *m, boids_error *err);

/* Which owned boids boids_backend_tile_owned gives back: those whose global id keep(ctx, id)
 * says 1 to. */
typedef int (*boids_tile_keep)(const void *ctx, uint32_t gid);

/* The owned boids as *m records at *rec (in the backend's order); with keep, only those it
 * keeps (so that a caller can read a large tile back a share at a time, without a buffer of
 * the whole tile). */
boids_status boids_backend_tile_owned(boids_backend *b, boids_tile_keep keep, const void *ctx,
                                      const unsigned char **rec, size_t *m, boids_error *err);

/* The global row of a boid at coordinate c along the grid's last axis: the row the backend
 * puts it in (the float position, as the backends hold it). */
static inline uint32_t boids_tile_row(const grid_geomd *g, double c) {
    const int a = g->dim - 1;
    return grid_cell_coord((float)c - (float)g->o[a], g->s[a], g->n[a]);
}

/* The cell of the grid g (x fastest, rows along the last axis) that the backends put a boid
 * at the float position x (g->dim axes) in. */
static inline uint64_t boids_tile_cell(const grid_geomd *g, const float *x) {
    uint64_t cell = 0;
    for (int a = g->dim - 1; a >= 0; a--)
        cell = cell * g->n[a] + grid_cell_coord(x[a] - (float)g->o[a], g->s[a], g->n[a]);
    return cell;
}

/* Adds the float positions of f to the bounding box b (start from boids_tile_box_empty):
 * min, max and amax as the cpu backend's open grid takes them over its float state. */
void boids_tile_box_empty(grid_boxd *b);
void boids_tile_box_add(grid_boxd *b, const boids_flock *f);

/* The same for one float position x (dim axes): what boids_tile_box_add does per boid, for a
 * caller that holds its boids as floats (boids-mpi's slab). */
static inline void boids_tile_box_point(grid_boxd *b, int dim, const float *x) {
    for (int a = 0; a < dim; a++) {
        const float v = x[a];
        if (!isfinite(v)) continue;
        if (v < b->lo[a]) b->lo[a] = v;
        if (v > b->hi[a]) b->hi[a] = v;
        if (fabsf(v) > b->amax) b->amax = fabsf(v);
    }
}

/* The cut of rows [0, nrows) into k tiles for the load counted per row (count[r] in row r:
 * boids, or weights): cut[0] = 0 <= cut[1] <= ... <= cut[k] = nrows, tile j the rows
 * [cut[j], cut[j+1]), each at least one row. The largest tile's load is the least that any
 * cut of whole rows into k tiles allows (so within one row's count of total / k where rows
 * permit), and each boundary is the one nearest its even share j * total / k among those
 * that keep it so; found in integers (a bisection over the bound), so the same on every
 * rank. Under wrap (a periodic last axis) with k > 1 the grid needs at least 4 rows and
 * every tile with its two halo rows must fit (rows + 2 <= nrows); without wrap k <= nrows.
 * Else BOIDS_ERR_INPUT saying how many ranks the grid admits and what to change;
 * BOIDS_ERR_NOMEM. */
boids_status boids_tile_cut(const uint64_t *count, uint32_t nrows, int wrap, int k, uint32_t *cut,
                            boids_error *err);

/* Whether the window t fits a grid of nrows rows along its last axis (wrap: periodic) and
 * holds the halo rows of its steered rows (a steered row's neighbour rows are in the window
 * or beyond a wall or the open edge); *whole = 1 when it is the whole periodic axis from row
 * 0 (the window then wraps as the grid does). The backends' steps call it; BOIDS_ERR_INPUT
 * naming who (the backend) and what does not fit. */
boids_status boids_tile_check_window(const boids_tile *t, uint32_t nrows, int wrap, const char *who,
                                     int *whole, boids_error *err);

/* The window cells [*c0, *c1) that the step of window t moves, in a grid of row_cells cells a
 * row (the steered rows less the skipped cells at their ends); BOIDS_ERR_INPUT naming who (the
 * backend) when a skip is not below a row's cells or leaves no cell steered. */
boids_status boids_tile_steered_cells(const boids_tile *t, size_t row_cells, const char *who,
                                      size_t *c0, size_t *c1, boids_error *err);

/* The tile (0 .. k-1) of a row under the cut (binary search). */
int boids_tile_of_row(const uint32_t *cut, int k, uint32_t row);

/* The window of tile j (0 .. k-1) under the cut of a grid of nrows rows (wrap: a periodic
 * last axis): the tile's rows and one halo row on either side (periodically under wrap;
 * none beyond a wall or open edge), steering the tile's rows; k = 1: the whole grid from
 * row 0. Sets t->row_lo, rows, steer_lo and steer_hi; the other fields are the caller's. */
void boids_tile_window(const uint32_t *cut, int k, int j, uint32_t nrows, int wrap, boids_tile *t);

/* ---- tiles of keys in row order ---------------------------------------------------------
 * A cut may also end tiles within a row, and on a backend that steps such tiles
 * (boids_backend_tile_within_cells) within a cell. A key is a place in the grid's cells in
 * row order (x fastest, rows along the last axis; plane cells a row) finer than a cell: the
 * boids of cell `cell` with global ids from `id` on (id 0: from the cell's first). Every
 * boid has the key of its cell and id; key a comes before key b when its cell does, or the
 * same cell with a lower id. A cut of keys is cut[0] = {0, 0} < cut[1] < ... < cut[k] =
 * {the grid's cells, 0}, tile j the boids whose keys are in [cut[j], cut[j+1]); with every
 * id 0 it is a cut of whole cells, and a cut of whole rows is the cut of rows times plane.
 * The bits stay those of one process for any cut of keys: each cell orders its boids by
 * global id in both backends, so a cell's boids from an id on are the cell's last slots.
 * (boids_tile_key is defined at the top, with boids_tile.) */
/* The tile (0 .. k-1) of the boid of global id `id` in cell `cell` under a cut of keys
 * (binary search). */
int boids_tile_of_key(const boids_tile_key *cut, int k, uint64_t cell, uint32_t id);

/* The cells [lo.cell, *end) that hold boids of the keys [lo, hi): *end is hi.cell, or one
 * more where hi ends within a cell. */
static inline uint64_t boids_tile_key_end(boids_tile_key hi) {
    return hi.cell + (hi.id != 0);
}

/* The window of tile j under a cut of keys: its rows with one halo row on either side, as
 * boids_tile_window makes it for the rows that hold its cells, steering those rows less the
 * cells before cut[j].cell and from its end (skip_lo, skip_hi) and the ids of its first and
 * last cells outside the keys (id_lo, id_hi). */
void boids_tile_window_cells(const boids_tile_key *cut, int k, int j, uint32_t nrows,
                             uint64_t plane, int wrap, boids_tile *t);

/* The rows [*r0, *r1) that tile [lo, hi) of a cut of keys (plane cells a row) holds cells
 * of, and its edges (boids_backend_tile_split's): the rows [*r0, e[0]) and [e[1], *r1), each
 * one row, or two at an end within a row or a cell (the tile beside, ending or beginning in
 * the same row, reaches the row after it with its window), clipped to the tile's rows. */
static inline void boids_tile_edge_rows(boids_tile_key lo, boids_tile_key hi, uint64_t plane,
                                        uint32_t *r0, uint32_t *r1, uint32_t e[2]) {
    const uint64_t end = boids_tile_key_end(hi);
    *r0 = (uint32_t)(lo.cell / plane), *r1 = (uint32_t)((end - 1) / plane) + 1;
    e[0] = *r0 + 1 + (lo.cell % plane != 0 || lo.id != 0);
    if (e[0] > *r1) e[0] = *r1;
    e[1] = *r1 - 1 - ((hi.cell % plane != 0 || hi.id != 0) && *r1 - 1 > *r0);
}

/* The first of the slots [b, e) of a cell ordered by global id (id[i], or gid[id[i]] where gid
 * is not NULL) whose global id is x or more: e when none. */
uint32_t boids_tile_slot_from(const uint32_t *id, const uint32_t *gid, uint32_t b, uint32_t e,
                              uint32_t x);

/* qsort's ascending order of uint32_t values, and of structs whose first member is one (a
 * global id with what goes with it). */
int boids_tile_cmp_u32(const void *a, const void *b);

/* Merges the adjacent runs a[run[i] .. run[i + 1]) (i < k), each ascending, into one ascending
 * run in place, in pairs over log2(k) passes through tmp (as long as a); overwrites run. The
 * ranks' lists of a cut cell's ids (boids-mpi) become the cell's ids in order. */
void boids_tile_merge_runs(uint32_t *a, uint32_t *tmp, size_t *run, int k);

/* What a backend's boids_backend_tile_cell_ids does with the whole grid's cells of its n
 * owned boids (cell[i]) and their global ids (gid[i]): the ids of the boids of the cells
 * cells[0 .. nc) (ascending, distinct), each cell's in turn, into ids (as many as the cells
 * hold: the caller counted them with tile_row_cells), each cell's ascending, *m of them in
 * all; BOIDS_ERR_INPUT naming who for cells not ascending or beyond the grid of ncells. */
boids_status boids_tile_list_cell_ids(const uint32_t *cell, const uint32_t *gid, size_t n,
                                      uint64_t ncells, const uint64_t *cells, uint32_t nc,
                                      uint32_t *ids, size_t cap, size_t *m, const char *who,
                                      boids_error *err);

/* The row of the window t (of a grid of nrows rows) that global row r is: t->rows or more
 * when r is outside the window. */
static inline uint32_t boids_tile_window_row(const boids_tile *t, uint32_t nrows, uint32_t r) {
    return r >= t->row_lo ? r - t->row_lo : r + (nrows - t->row_lo);
}

/* The cells beside coordinate u on an axis of n cells (across the seam under wrap), each once
 * and never u itself (an axis of 1 or 2 cells has fewer): *lo and *hi, or UINT32_MAX. */
static inline void boids_tile_beside(uint32_t u, uint32_t n, int wrap, uint32_t *lo, uint32_t *hi) {
    *lo = u > 0 ? u - 1 : wrap ? n - 1 : UINT32_MAX;
    *hi = u + 1 < n ? u + 1 : wrap ? 0 : UINT32_MAX;
    if (*lo == u) *lo = UINT32_MAX;
    if (*hi == u || *hi == *lo) *hi = UINT32_MAX;
}

/* The boids of the 3^D block of each cell of a row, for the cut's cost model (the cpu
 * backend's candidates, src/mpi's shares of a row's weight): col[q] holds for each cell q of
 * the row (plane cells, x fastest, along the dim - 1 axes of n[0 ..] cells; wrap: periodic)
 * the boids of it and of the cells beside it along the last axis; the sums along the row's
 * own axes are then taken one axis at a time, tmp (plane entries) the scratch. Returns the
 * array that holds the blocks' boids: col or tmp. */
uint32_t *boids_tile_block_row(uint32_t *col, uint32_t *tmp, size_t plane, const uint32_t *n,
                               int dim, int wrap);

/* Why parameters p cannot be split into tiles, or NULL when they can: topological
 * neighbours without k_in_vision have no bounded reach (a boid's k nearest may be any
 * distance away), so no halo of fixed width holds them. */
const char *boids_tile_refusal(const boids_params *p);

#endif
