/* SPDX-License-Identifier: MIT */
/* shaders/rules.glsl function by function against src/core/rules.h in float, on edge cases,
 * compiled for the plane and for the box: one test, the cases of each dimension in
 * rules_glsl_test.c (DIM 2, tests/gpu/rules_test.comp) and rules3_glsl_test.c (DIM 3,
 * tests/gpu/rules3_test.comp), each on its own debug context. Exit 77 (skip) when no GL 4.3
 * context can be made at all. */
#include <stdio.h>

int rules_glsl_plane(const char *rules_path, const char *test_path);
int rules_glsl_box(const char *rules_path, const char *test_path);

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr,
                "usage: %s shaders/rules.glsl tests/gpu/rules_test.comp "
                "tests/gpu/rules3_test.comp\n",
                argv[0]);
        return 2;
    }
    int plane = rules_glsl_plane(argv[1], argv[2]);
    int box = rules_glsl_box(argv[1], argv[3]);
    if (plane == 77 && box == 77) return 77;
    return plane == 0 && box == 0 ? 0 : 1;
}
