/* SPDX-License-Identifier: MIT */
/* Internals of the grid CPU path (`cpu`), shared by its three files:
 *   cpu_grid.c       the backend: state buffers, the counting-sort grid, the per-cell
 *                    steering loop with the scalar kernels, Vicsek, topological steering;
 *   cpu_grid_avx2.c  the AVX2 kernels (built with -mavx2, only with BOIDS_AVX2);
 *   cpu_grid_topo.c  the topological k-nearest selection (ring search over the cells).
 * Not part of the public API. */
#ifndef BOIDS_CPU_GRID_IMPL_H
#define BOIDS_CPU_GRID_IMPL_H

#include <stdint.h>

#include "grid_geom.h"

#define RULES_REAL     float
#define RULES_DIM      2
#define RULES_FN(name) name##_f2
#include "rules.h"

/* BOIDS_AVX2=1 (the CMake option of that name, x86-64 only) builds cpu_grid_avx2.c with
 * -mavx2; without it only the scalar kernels are compiled, for any processor. */
#ifndef BOIDS_AVX2
#define BOIDS_AVX2 0
#endif

enum { LANES = 8 }; /* boids per SIMD pass: one AVX2 register of floats */

/* One copy of the state: positions, velocities and the id of the boid in each slot. */
typedef struct state {
    float *x, *y, *vx, *vy;
    uint32_t *id;
} state;

/* A contiguous range [b, e) of snapshot slots (grid_geom.h). */
typedef grid_range range;

/* Up to LANES boids of one cell, steered together: they share the cell's candidates. */
typedef struct cell_group {
    const range *r;     /* candidate ranges: the rows of the 3x3 block, in summation order */
    int nr;             /* number of ranges (<= 6) */
    int wrap_x, wrap_y; /* whether an offset along the axis can need rules_wrap */
    uint32_t i0, lanes; /* the boids in slots [i0, i0 + lanes), lanes <= LANES */
} cell_group;

#if BOIDS_AVX2
/* Reynolds neighbour sums of the group's boids into out[0 .. lanes): operation for
 * operation those of the scalar kernel (cpu_grid.c), so the results are bit-identical. */
void boids_cpu_reynolds_avx2(const state *s, const rules_k_f2 *k, const cell_group *q,
                             rules_acc_f2 out[LANES]);

/* The group's neighbour sums as boids_cpu_reynolds_avx2 makes them, then its boids moved
 * by rules_accel and rules_integrate, operation for operation on each lane, into slots
 * [i0, i0 + lanes) of out. Only for a rules_k_f2 with an empty interaction table (k->tab
 * NULL): its points and obstacles stay with the scalar functions. */
void boids_cpu_reynolds_move_avx2(const state *s, const state *out, const rules_k_f2 *k,
                                  const cell_group *q);

/* The cell of the boids in slots [i0, i1) of s (as grid_build computes it with
 * grid_cell_coord) into cell_of[i0 .. i1). Only for grids of at most INT32_MAX cells per
 * side. */
void boids_cpu_cells_avx2(const state *s, size_t i0, size_t i1, const grid_geom *g,
                          uint32_t *cell_of);

/* Vicsek heading sums (sx, sy) and neighbour counts of the group's boids, itself included,
 * in candidate order as the scalar kernel adds them. */
void boids_cpu_vicsek_avx2(const state *s, const float *ux, const float *uy, const rules_k_f2 *k,
                           const cell_group *q, float sx[LANES], float sy[LANES],
                           int32_t cnt[LANES]);
#endif

/* A topological candidate: distance, original id (the tie-break), slot in the snapshot. */
typedef struct cand {
    float d2;
    uint32_t id, slot;
} cand;

/* One boid's k-nearest query and its selection. */
typedef struct topo_q {
    const state *s;
    const rules_k_f2 *k;
    uint32_t kmax; /* k */
    int vicsek;    /* no fov; radius test d2 <= R^2 */
    int in_vision; /* k_in_vision */
    uint32_t i;    /* the boid's slot */
    cand *best;    /* kmax entries, ordered by (d2, id) */
    uint32_t m;    /* entries in best */
} topo_q;

/* Selects the k nearest candidates of the boid in slot q->i, in cell (cx, cy) of the grid
 * g whose cell starts in the snapshot are start, into q->best (q->m of them): exactly the
 * first k in (d2, id) order over all candidates. */
void boids_cpu_topo_select(topo_q *q, const grid_geom *g, const uint32_t *start, uint32_t cx,
                           uint32_t cy);

#endif
