/* SPDX-License-Identifier: MIT */
/* What the C side and the shaders must agree on, defined once here.
 *
 * The uniform block is an X-macro list: the C struct below and the GLSL block in the prelude
 * (prepended to every shader at load time, and printed at build time for glslangValidator)
 * are both generated from it, so no layout is kept in sync by hand. std140 lays scalars out
 * at 4-byte alignment without padding, exactly like a C struct of 4-byte fields; the
 * _Static_asserts below and a run-time comparison with the offsets GL reports (gpu checks)
 * hold that. */
#ifndef BOIDS_GPU_PRELUDE_H
#define BOIDS_GPU_PRELUDE_H

#include <stddef.h>
#include <stdint.h>

#include "boids/interact.h"
#include "boids/params.h"

/* Compute work group sizes. */
enum {
    BOIDS_GPU_WG = 128,       /* boids per work group (count, scatter, sort, steer) */
    BOIDS_GPU_SCAN_WG = 256,  /* threads per scan work group */
    BOIDS_GPU_SCAN_ITEMS = 4, /* cells per scan thread */
    BOIDS_GPU_SCAN_BLOCK = BOIDS_GPU_SCAN_WG * BOIDS_GPU_SCAN_ITEMS /* cells per scan group */
};

/* Topological neighbours: the largest k the shaders hold (shaders/select.glsl keeps the k
 * nearest in a per-invocation list of this many entries). See BOIDS_GPU_MAX_K in gpu.h. */
enum { BOIDS_GPU_MAX_K_SHADER = 128 };

/* A resident tile's select pass (shaders/tile_res.comp): the rows or cells one dispatch
 * looks for, a uniform array (more are looked for in turns). */
enum { BOIDS_GPU_TILE_SEL = 256 };

/* Shader storage binding points, all below 8 (but the fused variant's ninth and tenth), the
 * GL 4.3 minimum of GL_MAX_COMPUTE_SHADER_STORAGE_BLOCKS and
 * GL_MAX_SHADER_STORAGE_BUFFER_BINDINGS. Stages reuse points for different roles (the
 * scatter uses eight: both states split in two, both ids, the ranks and the starts; in 3-D
 * the two halves of each state are its positions and its velocities, state.glsl). */
enum {
    BOIDS_GPU_B_SRC_STATE = 0,    /* vec4 (x, y, vx, vy) per boid, read */
    BOIDS_GPU_B_SRC_ID = 1,       /* uint id per boid, read */
    BOIDS_GPU_B_DST_STATE = 2,    /* written */
    BOIDS_GPU_B_DST_ID = 3,       /* written */
    BOIDS_GPU_B_COUNTS = 4,       /* uint boids per cell (count and scan only) */
    BOIDS_GPU_B_STARTS = 5,       /* uint first index of each cell in the sorted state, then N */
    BOIDS_GPU_B_RANK = 6,         /* uint rank of each boid in its cell */
    BOIDS_GPU_B_SRC_STATE_HI = 7, /* the read state's slots from P.split on (state.glsl) */
    BOIDS_GPU_B_DST_STATE_HI = 4, /* the written state's slots from P.split on */
    BOIDS_GPU_B_NEXT_COUNTS = 8,  /* variant fused: the next step's counts (a ninth block) */
    BOIDS_GPU_B_NEXT_RANK = 9,    /* variant fused: the ranks it takes in them (a tenth block) */
    BOIDS_GPU_B_LOOP_CUT = 6,     /* steer, neighbours: uint BOIDS_GPU_CUT_* bits (grid.glsl) */
    BOIDS_GPU_B_SRC_VEL = 7,      /* 3-D: vec4 (vx, vy, vz, 0) per boid, read (state.glsl) */
    BOIDS_GPU_B_DST_VEL = 4,      /* 3-D: the velocities written */
    BOIDS_GPU_B_SCAN_IN = 0,      /* scan: input level */
    BOIDS_GPU_B_SCAN_OUT = 2,     /* scan: exclusive prefix sums of the level */
    BOIDS_GPU_B_SCAN_SUMS = 3,    /* scan: one total per block (the next level's input) */
    BOIDS_GPU_B_NBR_COUNT = 2,    /* neighbours: uint count per id */
    BOIDS_GPU_B_NBR_HASH = 3,     /* neighbours: uvec2 (lo, hi) 64-bit set hash per id */
    BOIDS_GPU_B_ID_HASH = 4,      /* neighbours: uvec2 boids_neighbour_set_hash(id) per id */
    BOIDS_GPU_B_FOLLOW = 2,       /* viewer's follow pass: its result */
    BOIDS_GPU_B_SEEN = 3,         /* viewer's follow pass: uint per slot, 1 for a neighbour */
    BOIDS_GPU_B_TILE_AUX = 5,     /* resident tile: its counters, each boid's row, the row counts */
    BOIDS_GPU_B_TILE_OUT = 6,     /* resident tile: the records it gives back, then their rows */
    BOIDS_GPU_UBO_PARAMS = 0,     /* uniform block binding: the parameters (P) */
    BOIDS_GPU_UBO_INTERACT = 1,   /* uniform block binding: the interaction table (I) */
    BOIDS_GPU_UBO_SPECIES = 2     /* uniform block binding: the species (S) */
};

/* The loop-cut flag's bits: a driver may stop a long shader loop early and carry on
 * silently (Mesa llvmpipe ends every loop of an invocation once they have run 65,535
 * iterations in all), so the neighbour searches check that each of their loops ended by its
 * own condition and, where one did not, OR a bit into the flag (grid.glsl's report_cut);
 * the host reads it after each step call and each neighbours query. */
enum {
    BOIDS_GPU_CUT_TOPO = 1u,  /* the topological search (select.glsl), or the loop over its k */
    BOIDS_GPU_CUT_METRIC = 2u /* the metric search over the 3 x 3 (x 3) cell block */
};

/* Uniform block fields: (GLSL type, C type, name). Float values are the rules_k of rules.h
 * computed in float by rules_k_init, so the shader compares in exactly the float constants
 * the float CPU path uses. */
#define BOIDS_GPU_PARAMS_FIELDS(X)                                                                 \
    X(float, float, width)                                                                         \
    X(float, float, height)                                                                        \
    X(float, float, half_w)                                                                        \
    X(float, float, half_h)                                                                        \
    X(float, float, vision2)                                                                       \
    X(float, float, sep2)                                                                          \
    X(float, float, cos_half_fov)                                                                  \
    X(uint, uint32_t, full_fov)                                                                    \
    X(float, float, max_speed)                                                                     \
    X(float, float, min_speed)                                                                     \
    X(float, float, max_force)                                                                     \
    X(float, float, dt)                                                                            \
    X(float, float, w_sep)                                                                         \
    X(float, float, w_align)                                                                       \
    X(float, float, w_coh)                                                                         \
    X(uint, uint32_t, wrap)                                                                        \
    X(uint, uint32_t, walls)                                                                       \
    X(float, float, wall_margin)                                                                   \
    X(float, float, w_wall)                                                                        \
    X(uint, uint32_t, predator)                                                                    \
    X(uint, uint32_t, food)                                                                        \
    X(float, float, pred_x)                                                                        \
    X(float, float, pred_y)                                                                        \
    X(float, float, pred_r2)                                                                       \
    X(float, float, w_pred)                                                                        \
    X(float, float, food_x)                                                                        \
    X(float, float, food_y)                                                                        \
    X(float, float, food_r2)                                                                       \
    X(float, float, w_food)                                                                        \
    X(float, float, avoid_dist)                                                                    \
    X(float, float, w_avoid)                                                                       \
    X(float, float, clear)                                                                         \
    X(float, float, reach_pad)                                                                     \
    X(uint, uint32_t, n)                                                                           \
    X(uint, uint32_t, ncx)                                                                         \
    X(uint, uint32_t, ncy)                                                                         \
    X(uint, uint32_t, ncells)                                                                      \
    X(float, float, inv_cell_w)                                                                    \
    X(float, float, inv_cell_h)                                                                    \
    X(uint, uint32_t, vicsek)                                                                      \
    X(uint, uint32_t, topo)                                                                        \
    X(uint, uint32_t, k)                                                                           \
    X(uint, uint32_t, k_in_vision)                                                                 \
    X(float, float, speed)                                                                         \
    X(float, float, noise)                                                                         \
    X(uint, uint32_t, noise_seed_lo)                                                               \
    X(uint, uint32_t, noise_seed_hi)                                                               \
    X(uint, uint32_t, step)                                                                        \
    X(float, float, reach2)                                                                        \
    X(float, float, depth)                                                                         \
    X(float, float, half_d)                                                                        \
    X(float, float, pred_z)                                                                        \
    X(float, float, food_z)                                                                        \
    X(uint, uint32_t, ncz)                                                                         \
    X(float, float, inv_cell_d)                                                                    \
    X(float, float, cos_half_noise)                                                                \
    X(uint, uint32_t, vec_noise)                                                                   \
    X(uint, uint32_t, nematic)                                                                     \
    X(uint, uint32_t, chiral)                                                                      \
    X(uint, uint32_t, fld)                                                                         \
    X(float, float, chi_cos)                                                                       \
    X(float, float, chi_sin)                                                                       \
    X(float, float, fld_x)                                                                         \
    X(float, float, fld_y)                                                                         \
    X(float, float, fld_z)                                                                         \
    X(uint, uint32_t, split)                                                                       \
    X(uint, uint32_t, tile_lo)                                                                     \
    X(uint, uint32_t, tile_nrows)                                                                  \
    X(uint, uint32_t, steer_lo)                                                                    \
    X(uint, uint32_t, steer_hi)                                                                    \
    X(uint, uint32_t, steer_id_lo)                                                                 \
    X(uint, uint32_t, steer_id_hi)

typedef struct boids_gpu_params {
#define BOIDS_GPU_FIELD_C(glsl, ctype, name) ctype name;
    BOIDS_GPU_PARAMS_FIELDS(BOIDS_GPU_FIELD_C)
#undef BOIDS_GPU_FIELD_C
} boids_gpu_params;

#define BOIDS_GPU_FIELD_ONE(glsl, ctype, name) +1
enum { BOIDS_GPU_PARAMS_NFIELDS = 0 BOIDS_GPU_PARAMS_FIELDS(BOIDS_GPU_FIELD_ONE) };
#undef BOIDS_GPU_FIELD_ONE

/* Every field is a 4-byte scalar with no padding: the std140 layout. */
_Static_assert(sizeof(float) == 4 && sizeof(uint32_t) == 4, "4-byte scalars");
_Static_assert(sizeof(boids_gpu_params) == 4 * BOIDS_GPU_PARAMS_NFIELDS, "std140 scalar packing");
_Static_assert(offsetof(boids_gpu_params, steer_id_hi) == 4 * (BOIDS_GPU_PARAMS_NFIELDS - 1),
               "last field at the end");

/* The interaction table as the shaders read it: the uniform block Interact (I) of the
 * prelude, std140, holding rules_k's table (rules_k_set_interact in float) field for field:
 *   uvec4 counts         npred, nattr, nobst, 0
 *   uvec4 kinds[16]      obstacle i's `circle` at kinds[i / 4][i % 4]
 *   vec4 bounds[16]      obstacle i's bound, likewise
 *   vec4 pts[32]         point i: x, y, r2, w (the predators on, then the attractors)
 *   vec4 obs_a[64]       obstacle i: x0, y0, x1, y1
 *   vec4 obs_b[64]       obstacle i: mx, my, r, r2
 *   vec4 pts_z[8]        3-D: point i's z at pts_z[i / 4][i % 4]
 *   vec4 obs_z[16]       3-D: sphere i's centre z, likewise
 * Arrays of vec4 have a 16-byte stride in std140, like the C arrays of four 4-byte values.
 * In 3-D (rules.h's rules_k_set_interact_f3, boids_gpu_interact_init) a sphere is
 * laid out as a circle at (x, y) (kinds 1, obs_a (x, y, x, y), obs_b (x, y, r, r2), its
 * bound), with its z in obs_z; the z arrays come last, so the planar layout is unchanged. */
typedef struct boids_gpu_interact {
    uint32_t counts[4];
    uint32_t kinds[BOIDS_MAX_OBSTACLES];
    float bounds[BOIDS_MAX_OBSTACLES];
    float pts[2 * BOIDS_MAX_POINTS][4];
    float obs_a[BOIDS_MAX_OBSTACLES][4];
    float obs_b[BOIDS_MAX_OBSTACLES][4];
    float pts_z[2 * BOIDS_MAX_POINTS];
    float obs_z[BOIDS_MAX_OBSTACLES];
} boids_gpu_interact;

_Static_assert(BOIDS_MAX_OBSTACLES % 4 == 0 && BOIDS_MAX_POINTS % 2 == 0,
               "kinds, bounds, pts_z and obs_z packed four to a vec4");
/* Each member at its std140 offset in the block above. */
#define BOIDS_GPU_INTERACT_AT(member, offset)                                                      \
    _Static_assert(offsetof(boids_gpu_interact, member) == (offset),                               \
                   #member " at its std140 offset")
BOIDS_GPU_INTERACT_AT(kinds, 16);
BOIDS_GPU_INTERACT_AT(bounds, 16 + 4 * BOIDS_MAX_OBSTACLES);
BOIDS_GPU_INTERACT_AT(pts, 16 + 8 * BOIDS_MAX_OBSTACLES);
BOIDS_GPU_INTERACT_AT(obs_a, 16 + 8 * BOIDS_MAX_OBSTACLES + 32 * BOIDS_MAX_POINTS);
BOIDS_GPU_INTERACT_AT(obs_b, 16 + 24 * BOIDS_MAX_OBSTACLES + 32 * BOIDS_MAX_POINTS);
BOIDS_GPU_INTERACT_AT(pts_z, 16 + 40 * BOIDS_MAX_OBSTACLES + 32 * BOIDS_MAX_POINTS);
BOIDS_GPU_INTERACT_AT(obs_z, 16 + 40 * BOIDS_MAX_OBSTACLES + 40 * BOIDS_MAX_POINTS);
#undef BOIDS_GPU_INTERACT_AT
_Static_assert(sizeof(boids_gpu_interact) == 16 + 44 * BOIDS_MAX_OBSTACLES + 40 * BOIDS_MAX_POINTS,
               "obs_z last, no padding");

/* The species as the shaders read them (docs/model.md, "Species"): the uniform block Species
 * (S) of the prelude, std140, from rules.h's rules_k_species in float:
 *   uvec4 count          x: the number of species S (1: none, nothing else is read)
 *   uvec4 end            the ends of the id ranges, sp_end[0 .. 3]
 *   vec4 a[4]            species s: max_speed, min_speed, max_force, vision2
 *   vec4 b[4]            sep2, w_sep, w_align, w_coh
 *   vec4 c[4]            speed, noise, cos_half_noise, reach2
 *   vec4 coup[4]         species s's coupling row
 *   uvec4 rule[4]        its rules towards each species (boids_species_rule)
 *   vec4 rule_r2[4]      their radii squared
 *   vec4 rule_w[4]       their weights
 * Species 0's constants are P's (the shaders read P for it); a, b and c hold them too. */
typedef struct boids_gpu_species {
    uint32_t count[4], end[4];
    float a[BOIDS_MAX_SPECIES][4], b[BOIDS_MAX_SPECIES][4], c[BOIDS_MAX_SPECIES][4];
    float coup[BOIDS_MAX_SPECIES][4];
    uint32_t rule[BOIDS_MAX_SPECIES][4];
    float rule_r2[BOIDS_MAX_SPECIES][4], rule_w[BOIDS_MAX_SPECIES][4];
} boids_gpu_species;
_Static_assert(BOIDS_MAX_SPECIES == 4, "one vec4 a species' row");
_Static_assert(sizeof(boids_gpu_species) == 32 + 7 * 16 * BOIDS_MAX_SPECIES,
               "std140: 16-byte rows, no padding");

/* Fills the species block from p (prelude.h's layout). (src/gpu/blocks.c) */
void boids_gpu_species_init(boids_gpu_species *u, const boids_params *p);

/* Fills the fields that follow from the parameters alone: the rules' constants as rules.h's
 * rules_k_init computes them in float, the model, the topological selection and the noise.
 * The grid's fields, n and step are left 0 for the caller, as are the tile mode's (tile_lo,
 * tile_nrows, steer_lo, steer_hi (the steered window cells), steer_id_lo, steer_id_hi (the
 * ids of the first and last of them that move: tile.h's id_lo, id_hi): read only by the units
 * compiled with TILE, set by the grid build's set_window); split is UINT32_MAX (the state in one
 * block, which the viewer's buffers always are). (src/gpu/blocks.c) */
void boids_gpu_params_init(boids_gpu_params *u, const boids_params *p);

/* Fills the interaction block for table t (NULL: none) in the world of p, as rules.h's
 * rules_k_set_interact puts it into the float rules_k. (src/gpu/blocks.c) */
void boids_gpu_interact_init(boids_gpu_interact *u, const boids_params *p, const boids_interact *t);

/* Names and C offsets of the fields, for the run-time check against GL's offsets. */
typedef struct boids_gpu_field {
    const char *name;
    size_t offset;
} boids_gpu_field;
extern const boids_gpu_field boids_gpu_params_fields[BOIDS_GPU_PARAMS_NFIELDS];

/* Tile mode (src/core/tile.h): the flag a unit's dimension carries when it is compiled for a
 * window of the whole flock's grid. The prelude then defines TILE; shaders/grid.glsl says
 * what changes. Without it the units are the same text as before tile mode existed. */
enum { BOIDS_GPU_TILE = 16 };

/* Writes the shader prelude (#version, #defines, uniform block) into buf; returns its
 * length (like snprintf: a result >= size means it was cut). For dim 2 or 3 (a unit of the
 * model, compiled for the plane or the box) it defines DIM and the vector types vecD,
 * ivecD, uvecD, bvecD (vec2 ... or vec3 ...); for dim 0 (a unit without a dimension, most of
 * the viewer's) neither. dim 2 or 3 | BOIDS_GPU_TILE also defines TILE. */
size_t boids_gpu_prelude(char *buf, size_t size, int dim);

#endif
