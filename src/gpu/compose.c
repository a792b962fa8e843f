/* SPDX-License-Identifier: MIT */
/* Composes and compiles a shader unit (shaders.h): the prelude, then the unit's sources, as
 * src/shaders.cmake lists them and the build validated them. */
#include <glad/gl.h>

#include <stdlib.h>
#include <string.h>

#include "prelude.h"
#include "shaders.h"

static GLenum stage_of(const char *name) {
    const char *dot = strrchr(name, '.');
    if (dot && !strcmp(dot, ".vert")) return GL_VERTEX_SHADER;
    if (dot && !strcmp(dot, ".frag")) return GL_FRAGMENT_SHADER;
    return GL_COMPUTE_SHADER;
}

boids_status boids_gpu_compile_dim(const boids_gpu_shader *table, const char *name, int dim,
                                   unsigned *out, boids_error *err) {
    const int tile = dim & BOIDS_GPU_TILE;
    dim &= ~BOIDS_GPU_TILE;
    const boids_gpu_shader *u = table;
    while (u->name && (strcmp(u->name, name) || (dim && u->dim && u->dim != dim))) u++;
    if (!u->name)
        return boids_error_set(err, BOIDS_ERR_RUNTIME, "shader %s (dimension %d) is not embedded",
                               name, dim);
    int nsrc = 1;
    while (u->sources[nsrc - 1]) nsrc++;
    const int pdim = u->dim ? u->dim | tile : 0;
    size_t plen = boids_gpu_prelude(NULL, 0, pdim);
    char *prelude = malloc(plen + 1);
    const char **src = malloc((size_t)nsrc * sizeof *src);
    if (!prelude || !src) {
        free(prelude);
        free(src);
        return boids_error_set(err, BOIDS_ERR_NOMEM, "out of memory");
    }
    boids_gpu_prelude(prelude, plen + 1, pdim);
    src[0] = prelude;
    for (int i = 1; i < nsrc; i++) src[i] = u->sources[i - 1];
    GLuint sh = glCreateShader(stage_of(name));
    glShaderSource(sh, nsrc, src, NULL);
    glCompileShader(sh);
    free(prelude);
    free(src);
    GLint ok = 0;
    glGetShaderiv(sh, GL_COMPILE_STATUS, &ok);
    if (!ok) {
        char log[1024] = "";
        glGetShaderInfoLog(sh, sizeof log, NULL, log);
        glDeleteShader(sh);
        return boids_error_set(err, BOIDS_ERR_RUNTIME,
                               "shaders/%s (dimension %d%s) does not compile: %s", name, u->dim,
                               tile ? ", tile mode" : "", log);
    }
    *out = sh;
    return BOIDS_OK;
}
