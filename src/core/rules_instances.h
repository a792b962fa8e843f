/* SPDX-License-Identifier: MIT */
/* The one way C code written once over the precision and the dimension is instantiated: the
 * instances of rules.h a file needs, in one include, rules.h for the plane and then the box
 * (RULES_DIM 2, 3), in each precision asked for, with RULES_REAL, RULES_DIM and RULES_FN
 * defined as rules.h asks and undefined after. The names of an instance end in the
 * precision's letter and the dimension's digit: _d2, _d3 (double), _f2, _f3 (float).
 *
 * The includer may define, before including this file:
 *   RULES_INSTANCE_DOUBLE, RULES_INSTANCE_FLOAT  the precisions (neither: both), double first;
 *   RULES_INSTANCE_DIM   2 or 3: that dimension alone (undefined: both);
 *   RULES_INSTANCE_FILE  a file (a string) included after each instance of rules.h, inside it,
 *                        so that code written once over RULES_DIM and RULES_REAL (cpu-ref's
 *                        step, the grid path, verify's steps, the follow pass's host marks,
 *                        a test's checks) is compiled for every instance, its own names made
 *                        with RULES_FN. It must not include rules.h itself.
 * No include guard: each inclusion instantiates again (with other files or precisions). The
 * file includes itself: once per dimension, and within that once per precision. */
#if !defined(RULES_INSTANCE_DIM_)
/* ---- the dimensions -------------------------------------------------------------------- */
#if !defined(RULES_INSTANCE_DOUBLE) && !defined(RULES_INSTANCE_FLOAT)
#define RULES_INSTANCE_DOUBLE
#define RULES_INSTANCE_FLOAT
#define RULES_INSTANCE_BOTH_ /* set here: undefined at the end */
#endif
#define RULES_INSTANCE_CAT_(a, b, c) a##b##c
#define RULES_INSTANCE_CAT(a, b, c)  RULES_INSTANCE_CAT_(a, b, c)
#if !defined(RULES_INSTANCE_DIM) || RULES_INSTANCE_DIM == 2
#define RULES_INSTANCE_DIM_ 2
#include "rules_instances.h"
#undef RULES_INSTANCE_DIM_
#endif
#if !defined(RULES_INSTANCE_DIM) || RULES_INSTANCE_DIM == 3
#define RULES_INSTANCE_DIM_ 3
#include "rules_instances.h"
#undef RULES_INSTANCE_DIM_
#endif
#undef RULES_INSTANCE_CAT_
#undef RULES_INSTANCE_CAT
#ifdef RULES_INSTANCE_BOTH_
#undef RULES_INSTANCE_DOUBLE
#undef RULES_INSTANCE_FLOAT
#undef RULES_INSTANCE_BOTH_
#endif

#elif !defined(RULES_REAL)
/* ---- the precisions of one dimension --------------------------------------------------- */
#define RULES_DIM      RULES_INSTANCE_DIM_
#define RULES_FN(name) RULES_INSTANCE_CAT(name, RULES_INSTANCE_LETTER_, RULES_DIM)
#ifdef RULES_INSTANCE_DOUBLE
#define RULES_REAL             double
#define RULES_INSTANCE_LETTER_ _d
#include "rules_instances.h"
#undef RULES_REAL
#undef RULES_INSTANCE_LETTER_
#endif
#ifdef RULES_INSTANCE_FLOAT
#define RULES_REAL             float
#define RULES_INSTANCE_LETTER_ _f
#include "rules_instances.h"
#undef RULES_REAL
#undef RULES_INSTANCE_LETTER_
#endif
#undef RULES_FN
#undef RULES_DIM

#else
/* ---- one instance ---------------------------------------------------------------------- */
#include "rules.h"
#ifdef RULES_INSTANCE_FILE
#include RULES_INSTANCE_FILE
#endif
#endif
