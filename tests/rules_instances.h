/* SPDX-License-Identifier: MIT */
/* Includes the file named by RULES_INSTANCE_FILE (a string) once for each instance of
 * src/core/rules.h, with RULES_DIM, RULES_REAL and RULES_FN defined as rules.h asks: double
 * and float (suffixes _d and _f), in the plane and in the box (2 and 3), in the order d2, f2,
 * d3, f3. A test's checks written once over the dimension and the precision are compiled for
 * all four this way. No include guard: each inclusion instantiates again. */
#ifndef RULES_INSTANCE_FILE
#error "define RULES_INSTANCE_FILE before including rules_instances.h"
#endif

#define RULES_DIM      2
#define RULES_REAL     double
#define RULES_FN(name) name##_d2
#include RULES_INSTANCE_FILE
#undef RULES_REAL
#undef RULES_FN
#define RULES_REAL     float
#define RULES_FN(name) name##_f2
#include RULES_INSTANCE_FILE
#undef RULES_REAL
#undef RULES_FN
#undef RULES_DIM
#define RULES_DIM      3
#define RULES_REAL     double
#define RULES_FN(name) name##_d3
#include RULES_INSTANCE_FILE
#undef RULES_REAL
#undef RULES_FN
#define RULES_REAL     float
#define RULES_FN(name) name##_f3
#include RULES_INSTANCE_FILE
#undef RULES_REAL
#undef RULES_FN
#undef RULES_DIM
