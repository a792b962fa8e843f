/* SPDX-License-Identifier: MIT */
/* shaders/rules.glsl function by function against src/core/rules.h in float, on edge cases,
 * compiled for the plane and for the box: one test, tests/gpu/rules_glsl_test.c compiled for
 * each dimension (rules_glsl_f2, rules_glsl_f3) with tests/gpu/rules_test.comp, each on its
 * own debug context. Exit 77 (skip) when no GL 4.3 context can be made at all. */
#include <stdio.h>

int rules_glsl_f2(const char *rules_path, const char *test_path);
int rules_glsl_f3(const char *rules_path, const char *test_path);

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: %s shaders/rules.glsl tests/gpu/rules_test.comp\n", argv[0]);
        return 2;
    }
    int plane = rules_glsl_f2(argv[1], argv[2]);
    int box = rules_glsl_f3(argv[1], argv[2]);
    if (plane == 77 && box == 77) return 77;
    return plane == 0 && box == 0 ? 0 : 1;
}
