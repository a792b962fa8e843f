/* SPDX-License-Identifier: MIT */
/* Shared by the tests that run shaders/rules.glsl function by function against rules.h
 * (rules_glsl_test.c for the plane, rules3_glsl_test.c for the box): the cases, the program
 * that runs them (the prelude of the dimension, rules.glsl, the test's case shader, composed
 * as the pipeline composes its programs) and the float spacing the tolerances are counted
 * in. Include after gpu_fixture.h and prelude.h. */
#ifndef BOIDS_TEST_GLSL_CASES_H
#define BOIDS_TEST_GLSL_CASES_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glad/gl.h>

enum { GLSL_MAXC = 160 };

/* One call of a shader function: which (op) and its inputs. */
typedef struct tcase {
    unsigned op;
    float in[16];
} tcase;

static int ncases;
static tcase cases[GLSL_MAXC];

static void add(unsigned op, int n, const float *v) {
    if (ncases == GLSL_MAXC) abort();
    tcase *c = &cases[ncases++];
    memset(c, 0, sizeof *c);
    c->op = op;
    memcpy(c->in, v, (size_t)n * sizeof *v);
}

/* The float spacing at |v|. */
static double ulp(double v) {
    float f = fabsf((float)v);
    return (double)(nextafterf(f, INFINITY) - f);
}

static char *slurp(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    if (s && fread(s, 1, (size_t)n, f) != (size_t)n) {
        free(s);
        s = NULL;
    }
    if (s) s[n] = 0;
    fclose(f);
    return s;
}

/* The compute program of the prelude for dimension dim, then shaders/rules.glsl (rules_path)
 * and the case shader (test_path); 0 (and a failed check) when it does not compile. */
static GLuint build(int dim, const char *rules_path, const char *test_path) {
    size_t plen = boids_gpu_prelude(NULL, 0, dim);
    char *src[3] = {malloc(plen + 1), slurp(rules_path), slurp(test_path)};
    if (src[0]) boids_gpu_prelude(src[0], plen + 1, dim);
    CHECK(src[0] && src[1] && src[2], "cannot read %s or %s", rules_path, test_path);
    GLuint prog = 0;
    if (src[0] && src[1] && src[2]) {
        GLuint sh = glCreateShader(GL_COMPUTE_SHADER);
        glShaderSource(sh, 3, (const char *const *)src, NULL);
        glCompileShader(sh);
        GLint ok = 0;
        glGetShaderiv(sh, GL_COMPILE_STATUS, &ok);
        char log[2048] = "";
        glGetShaderInfoLog(sh, sizeof log, NULL, log);
        CHECK(ok, "%s does not compile for dimension %d: %s", test_path, dim, log);
        prog = glCreateProgram();
        glAttachShader(prog, sh);
        glLinkProgram(prog);
        glDeleteShader(sh);
    }
    for (int i = 0; i < 3; i++) free(src[i]);
    return prog;
}

#endif
