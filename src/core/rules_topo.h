/* SPDX-License-Identifier: MIT */
/* The topological neighbours of the rules: a boid's neighbours are the k candidates first in
 * the order (dist2, id), nearest first and, of equal squared distances, the lower id first. A
 * path offers its candidates one by one in any order to rules_nearest_keep, which holds the
 * first k so far in that order; cpu-ref and `boids verify` then sum them in ascending id
 * order (rules_ids_ascending), the grid path in the selection's own order. The GPU's
 * shaders/select.glsl is the same rule in GLSL.
 *
 * Part of rules.h's instance (rules.h includes it, with its RULES_REAL and RULES_FN): the
 * distances are in the instance's precision. Included without RULES_REAL (as cpu-ref's
 * dimension-free part does), it gives the parts that do not depend on the instance: the id
 * order and the entry types of both precisions. */

#ifndef RULES_TOPO_SHARED
#define RULES_TOPO_SHARED
#include <stddef.h>

/* Puts the m ids in ascending order, the order cpu-ref and `boids verify` sum a topological
 * selection in. Insertion sort: m is at most k. */
static inline void rules_ids_ascending(size_t *ids, size_t m) {
    for (size_t a = 1; a < m; a++) {
        const size_t v = ids[a];
        size_t b = a;
        for (; b > 0 && ids[b - 1] > v; b--) ids[b] = ids[b - 1];
        ids[b] = v;
    }
}

/* One entry of a selection: the candidate's squared distance, its id (the tie-break) and
 * where its caller finds it (a slot of a snapshot, or the id again), which the selection
 * only carries. One type per precision: rules_nearest_float, rules_nearest_double, which the
 * instances name RULES_FN(rules_nearest) (rules_nearest_f2 and rules_nearest_f3 are one type). */
typedef struct rules_nearest_float {
    float dist2;
    size_t id;
    size_t at;
} rules_nearest_float;
typedef struct rules_nearest_double {
    double dist2;
    size_t id;
    size_t at;
} rules_nearest_double;
#define RULES_NEAREST_(real) rules_nearest_##real
#define RULES_NEAREST(real)  RULES_NEAREST_(real)
#endif

#ifdef RULES_REAL
typedef RULES_NEAREST(RULES_REAL) RULES_FN(rules_nearest);

/* Whether the candidate (dist2, id) comes before the entry (sd2, sid) in the order (dist2, id). A
 * NaN distance comes before nothing. */
static inline int RULES_FN(rules_nearest_before)(RULES_REAL dist2, size_t id, RULES_REAL sd2,
                                                 size_t sid) {
    return dist2 < sd2 || (dist2 == sd2 && id < sid);
}

/* Offers the candidate (dist2, id, at) to the selection sel of m entries, the first of at most
 * kmax in the order (dist2, id), held in that order: inserted in its place (the last entry
 * dropped when sel is full), or left out when it comes after the last of a full selection.
 * Returns the new number of entries. */
static inline size_t RULES_FN(rules_nearest_keep)(RULES_FN(rules_nearest) * sel, size_t m,
                                                  size_t kmax, RULES_REAL dist2, size_t id,
                                                  size_t at) {
    if (m == kmax &&
        (m == 0 || !RULES_FN(rules_nearest_before)(dist2, id, sel[m - 1].dist2, sel[m - 1].id)))
        return m;
    size_t pos = m < kmax ? m++ : m - 1;
    for (;
         pos > 0 && RULES_FN(rules_nearest_before)(dist2, id, sel[pos - 1].dist2, sel[pos - 1].id);
         pos--)
        sel[pos] = sel[pos - 1];
    sel[pos].dist2 = dist2;
    sel[pos].id = id;
    sel[pos].at = at;
    return m;
}
#endif /* RULES_REAL */
