/* SPDX-License-Identifier: MIT */
/* The instances of rules.h a file needs, in one include: rules.h for the plane and then the
 * box (RULES_DIM 2, 3), in each precision asked for, with RULES_REAL, RULES_DIM and RULES_FN
 * defined as rules.h asks (suffixes _d2, _f2, _d3, _f3) and undefined after.
 *
 * The includer may define, before including this file:
 *   RULES_INSTANCE_DOUBLE, RULES_INSTANCE_FLOAT  the precisions (neither: both), double first;
 *   RULES_INSTANCE_FILE  a file (a string) included after each instance of rules.h, inside it,
 *                        so that code written once over RULES_DIM and RULES_REAL (a float
 *                        step, the follow pass's host marks, a test's checks) is compiled for
 *                        every instance. It must not include rules.h itself.
 * No include guard: each inclusion instantiates again (with other files or precisions). */
#if !defined(RULES_INSTANCE_DOUBLE) && !defined(RULES_INSTANCE_FLOAT)
#define RULES_INSTANCE_DOUBLE
#define RULES_INSTANCE_FLOAT
#define RULES_INSTANCE_BOTH_ /* set here: undefined at the end */
#endif

#define RULES_DIM 2
#ifdef RULES_INSTANCE_DOUBLE
#define RULES_REAL     double
#define RULES_FN(name) name##_d2
#include "rules.h"
#ifdef RULES_INSTANCE_FILE
#include RULES_INSTANCE_FILE
#endif
#undef RULES_REAL
#undef RULES_FN
#endif
#ifdef RULES_INSTANCE_FLOAT
#define RULES_REAL     float
#define RULES_FN(name) name##_f2
#include "rules.h"
#ifdef RULES_INSTANCE_FILE
#include RULES_INSTANCE_FILE
#endif
#undef RULES_REAL
#undef RULES_FN
#endif
#undef RULES_DIM

#define RULES_DIM 3
#ifdef RULES_INSTANCE_DOUBLE
#define RULES_REAL     double
#define RULES_FN(name) name##_d3
#include "rules.h"
#ifdef RULES_INSTANCE_FILE
#include RULES_INSTANCE_FILE
#endif
#undef RULES_REAL
#undef RULES_FN
#endif
#ifdef RULES_INSTANCE_FLOAT
#define RULES_REAL     float
#define RULES_FN(name) name##_f3
#include "rules.h"
#ifdef RULES_INSTANCE_FILE
#include RULES_INSTANCE_FILE
#endif
#undef RULES_REAL
#undef RULES_FN
#endif
#undef RULES_DIM

#ifdef RULES_INSTANCE_BOTH_
#undef RULES_INSTANCE_DOUBLE
#undef RULES_INSTANCE_FLOAT
#undef RULES_INSTANCE_BOTH_
#endif
