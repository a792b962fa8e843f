/* SPDX-License-Identifier: MIT */
/* A flock in parts: the pieces of the whole flock's operations that a process holding only
 * the boids of one range of ids can do, so that processes holding the ranges in turn get the
 * whole flock's bits (src/mpi builds the split flock's input and outputs on them). Not part of
 * the public API: flock.c and state_io.c implement it, and a library beside the core that
 * names it in its rule line uses it.
 *
 * A part is a boids_flock of n boids whose ids are first .. first + n - 1 of a flock of N. */
#ifndef BOIDS_FLOCK_PART_H
#define BOIDS_FLOCK_PART_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "boids/flock.h"
#include "boids/params.h"

/* The ids [*first, *first + *n) of part `part` of `parts` of a flock of N: the same split
 * for every caller (N * part / parts rounded down to the next part's). */
void boids_part_range(size_t N, size_t part, size_t parts, size_t *first, size_t *n);

/* boids_flock_randomize's boids first .. first + f->n - 1 into f (the random sequence walked
 * from its start, the values of the boids before first drawn and dropped). */
void boids_flock_randomize_from(boids_flock *f, const boids_params *p, uint64_t seed, size_t first);

/* FNV-1a of boids_flock_hash over array a of f (0 x, 1 y, 2 vx, 3 vy, 4 z, 5 vz), from the
 * hash h of what came before it: the whole flock's hash is the parts' in turn, array by
 * array, from boids_flock_hash of no bytes (BOIDS_HASH_START). */
#define BOIDS_HASH_START 0xcbf29ce484222325ull
uint64_t boids_flock_hash_array(const boids_flock *f, int a, uint64_t h);

/* boids_order's sum over the boids of f in id order, added to u (x, y, z): the whole flock's
 * sum is the parts' in turn; boids_order_of(u, dim, N) is then the order. */
void boids_order_add(const boids_flock *f, double u[3]);
double boids_order_of(const double u[3], int dim, size_t n);
/* The same by species (boids_order_species): boid i of f, id first + i, adds to u[its species
 * under p] (boids_species_of); species s's order is boids_order_of(u[s], dim,
 * boids_species_count(p, N, s)). */
void boids_order_species_add(const boids_flock *f, const boids_params *p, size_t first,
                             double u[][3]);

/* What boids_state_load_part read besides the boids. */
typedef struct boids_state_part {
    size_t n_total, first; /* the state's N, and the first id of the part */
    int has_hash;          /* the sidecar's flock_hash, to check against the whole flock's */
    uint64_t hash;
    long noise_seed; /* the sidecar's, or -1 */
} boids_state_part;

/* boids_state_load_seeded's part `part` of `parts` (boids_part_range of the state's N) into
 * f, with every check but the sidecar's flock_hash, which the caller checks against the
 * whole flock's hash (boids_state_hash_check). A .npy state is read for its part alone; a
 * CSV (its lines have no fixed length) is read twice: every line checked and the boids
 * counted, keeping none, then the part's lines kept. */
boids_status boids_state_load_part(const char *path, const boids_params *p, size_t part,
                                   size_t parts, boids_flock *f, boids_state_part *info,
                                   boids_error *err);

/* The refusal of a state whose boids hash to got while its sidecar says want (the message
 * of boids_state_load); BOIDS_OK when they agree. */
boids_status boids_state_hash_check(const char *path, uint64_t want, uint64_t got,
                                    boids_error *err);

/* The state file's CSV header line for dim, and boid i of fl as its CSV line (with its '\n',
 * at most BOIDS_STATE_CSV_ROW bytes with the NUL; returns its length): the lines of
 * boids_state_save. */
enum { BOIDS_STATE_CSV_ROW = 6 * 25 + 2 };
const char *boids_state_csv_header(int dim);
int boids_state_csv_row(char *buf, size_t size, const boids_flock *fl, size_t i);

/* The sidecar of a state of n boids of dim at step, its noise seed (-1: none) and its
 * boids_flock_hash, as boids_state_save writes it, into the open file json. */
void boids_state_sidecar_write(FILE *json, int dim, size_t n, uint32_t step, long noise_seed,
                               uint64_t hash);

#endif
