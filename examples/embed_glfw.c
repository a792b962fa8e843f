/* SPDX-License-Identifier: MIT */
/* A host application that owns its window, its GL context and its GL loader, and embeds the
 * boids GPU pipeline: boids steps the flock on the host's context, the host draws the
 * boids straight from the library's state buffer with its own shader, no read-back.
 *
 * The host's loader is a table of the few GL functions it calls, filled through
 * glfwGetProcAddress; the library keeps its own loader private, so the two never clash.
 *
 *   embed_glfw [--frames N] [--screenshot FILE.ppm]
 *
 * Exit 0 on success, 1 if the run failed, 2 for bad usage, 77 when no GL 4.3 window can be
 * made (no display), for the test to report as a skip. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GLFW_INCLUDE_NONE
#include <GL/glcorearb.h>
#include <GLFW/glfw3.h>

#include <boids/boids.h>

/* The host's own GL functions: X(type, name) once per function. */
#define HOST_GL(X)                                                                                 \
    X(PFNGLCREATESHADERPROC, glCreateShader)                                                       \
    X(PFNGLSHADERSOURCEPROC, glShaderSource)                                                       \
    X(PFNGLCOMPILESHADERPROC, glCompileShader)                                                     \
    X(PFNGLGETSHADERIVPROC, glGetShaderiv)                                                         \
    X(PFNGLGETSHADERINFOLOGPROC, glGetShaderInfoLog)                                               \
    X(PFNGLCREATEPROGRAMPROC, glCreateProgram)                                                     \
    X(PFNGLATTACHSHADERPROC, glAttachShader)                                                       \
    X(PFNGLLINKPROGRAMPROC, glLinkProgram)                                                         \
    X(PFNGLGETPROGRAMIVPROC, glGetProgramiv)                                                       \
    X(PFNGLDELETESHADERPROC, glDeleteShader)                                                       \
    X(PFNGLDELETEPROGRAMPROC, glDeleteProgram)                                                     \
    X(PFNGLUSEPROGRAMPROC, glUseProgram)                                                           \
    X(PFNGLUNIFORM2FPROC, glUniform2f)                                                             \
    X(PFNGLGENVERTEXARRAYSPROC, glGenVertexArrays)                                                 \
    X(PFNGLBINDVERTEXARRAYPROC, glBindVertexArray)                                                 \
    X(PFNGLDELETEVERTEXARRAYSPROC, glDeleteVertexArrays)                                           \
    X(PFNGLBINDBUFFERBASEPROC, glBindBufferBase)                                                   \
    X(PFNGLMEMORYBARRIERPROC, glMemoryBarrier)                                                     \
    X(PFNGLDRAWARRAYSPROC, glDrawArrays)                                                           \
    X(PFNGLVIEWPORTPROC, glViewport)                                                               \
    X(PFNGLCLEARCOLORPROC, glClearColor)                                                           \
    X(PFNGLCLEARPROC, glClear)                                                                     \
    X(PFNGLPIXELSTOREIPROC, glPixelStorei)                                                         \
    X(PFNGLREADPIXELSPROC, glReadPixels)                                                           \
    X(PFNGLFINISHPROC, glFinish)

#define DECLARE(type, name) static type host_##name;
HOST_GL(DECLARE)

static int host_gl_load(void) {
    int ok = 1;
#define LOAD(type, name)                                                                           \
    host_##name = (type)glfwGetProcAddress(#name);                                                 \
    if (!host_##name) {                                                                            \
        fprintf(stderr, "embed_glfw: GL function %s missing\n", #name);                            \
        ok = 0;                                                                                    \
    }
    HOST_GL(LOAD)
    return ok;
}

/* One triangle per boid, pointing along its velocity, read from the state buffer: N vec4
 * (x, y, vx, vy) in cell order (boids/gpu.h, boids_gpu_state_buffer). */
static const char vertex_src[] =
    "#version 430 core\n"
    "layout(std430, binding = 0) readonly buffer State { vec4 boid[]; };\n"
    "layout(location = 0) uniform vec2 world;\n"
    "void main() {\n"
    "    vec4 b = boid[gl_VertexID / 3];\n"
    "    vec2 dir = length(b.zw) > 0.0 ? normalize(b.zw) : vec2(1.0, 0.0);\n"
    "    vec2 side = vec2(-dir.y, dir.x);\n"
    "    int k = gl_VertexID % 3;\n"
    "    vec2 off = k == 0 ? 7.0 * dir : (k == 1 ? -3.0 * dir + 3.0 * side : -3.0 * dir - 3.0 * "
    "side);\n"
    "    gl_Position = vec4((b.xy + off) / world * 2.0 - 1.0, 0.0, 1.0);\n"
    "}\n";
static const char fragment_src[] = "#version 430 core\n"
                                   "out vec4 colour;\n"
                                   "void main() { colour = vec4(1.0, 0.85, 0.3, 1.0); }\n";

static GLuint compile(GLenum kind, const char *src) {
    GLuint s = host_glCreateShader(kind);
    host_glShaderSource(s, 1, &src, NULL);
    host_glCompileShader(s);
    GLint ok = 0;
    host_glGetShaderiv(s, GL_COMPILE_STATUS, &ok);
    if (!ok) {
        char log[1024] = "";
        host_glGetShaderInfoLog(s, sizeof log, NULL, log);
        fprintf(stderr, "embed_glfw: shader: %s\n", log);
    }
    return s;
}

static GLuint host_program(void) {
    GLuint vs = compile(GL_VERTEX_SHADER, vertex_src),
           fs = compile(GL_FRAGMENT_SHADER, fragment_src);
    GLuint prog = host_glCreateProgram();
    host_glAttachShader(prog, vs);
    host_glAttachShader(prog, fs);
    host_glLinkProgram(prog);
    host_glDeleteShader(vs);
    host_glDeleteShader(fs);
    GLint ok = 0;
    host_glGetProgramiv(prog, GL_LINK_STATUS, &ok);
    if (!ok) {
        host_glDeleteProgram(prog);
        return 0;
    }
    return prog;
}

/* The frame buffer as a binary PPM (bottom row last, as images are read). */
static int screenshot(const char *path, int w, int h) {
    unsigned char *px = malloc((size_t)w * (size_t)h * 3);
    FILE *f = px ? fopen(path, "wb") : NULL;
    if (!f) {
        free(px);
        return 0;
    }
    host_glPixelStorei(GL_PACK_ALIGNMENT, 1);
    host_glReadPixels(0, 0, w, h, GL_RGB, GL_UNSIGNED_BYTE, px);
    fprintf(f, "P6\n%d %d\n255\n", w, h);
    for (int y = h - 1; y >= 0; y--) fwrite(px + (size_t)y * (size_t)w * 3, 3, (size_t)w, f);
    free(px);
    return fclose(f) == 0;
}

typedef struct host {
    GLFWwindow *win;
    GLuint prog, vao;
    boids_backend *flock;
} host;

static void host_close(host *h) {
    /* The library's GL objects go first, while the host's context is still current. */
    boids_backend_destroy(h->flock);
    if (h->prog) host_glDeleteProgram(h->prog);
    if (h->vao) host_glDeleteVertexArrays(1, &h->vao);
    if (h->win) glfwDestroyWindow(h->win);
    glfwTerminate();
}

/* The window, its context, both loaders, the host's program and the flock on the GPU. */
static int host_open(host *h, const boids_params *p, boids_error *err) {
    if (!glfwInit()) return 77;
    glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 4);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
    glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
    glfwWindowHint(GLFW_RESIZABLE, GLFW_FALSE);
    h->win = glfwCreateWindow((int)p->width, (int)p->height, "boids embedded", NULL, NULL);
    if (!h->win) return 77;
    glfwMakeContextCurrent(h->win);
    if (!host_gl_load() || !(h->prog = host_program())) return 1;
    host_glGenVertexArrays(1, &h->vao);
    /* The library loads its private GL functions from the host's context... */
    if (boids_gl_load((boids_gl_loader)glfwGetProcAddress, err)) return 1;
    boids_flock f;
    if (boids_flock_alloc(&f, (size_t)p->count, err)) return 1;
    boids_flock_randomize(&f, p, 1);
    /* ...and, given no boids_gl, builds the pipeline on the context current now. */
    h->flock = boids_gpu_create(NULL, &f, NULL, err);
    boids_flock_free(&f);
    return h->flock ? 0 : 1;
}

static void draw(const host *h, const boids_params *p) {
    /* The pipeline leaves its own program and storage bindings behind (boids/gpu.h, "GL
     * state"), so the host sets everything it draws with, every frame. Its last stage
     * ended with a shader-storage barrier; this one covers the host's read the same way. */
    host_glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
    host_glViewport(0, 0, (GLsizei)p->width, (GLsizei)p->height);
    host_glClearColor(0.05f, 0.07f, 0.15f, 1.0f);
    host_glClear(GL_COLOR_BUFFER_BIT);
    host_glUseProgram(h->prog);
    host_glUniform2f(0, (float)p->width, (float)p->height);
    host_glBindVertexArray(h->vao);
    host_glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, boids_gpu_state_buffer(h->flock));
    host_glDrawArrays(GL_TRIANGLES, 0, (GLsizei)(3 * boids_backend_n(h->flock)));
}

int main(int argc, char **argv) {
    long frames = 120;
    const char *shot = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--frames") && i + 1 < argc)
            frames = strtol(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--screenshot") && i + 1 < argc)
            shot = argv[++i];
        else {
            fprintf(stderr, "usage: embed_glfw [--frames N] [--screenshot FILE.ppm]\n");
            return 2;
        }
    }
    boids_params p = boids_params_default(); /* seed 002's lab: 1500 boids in 900 x 560 */
    boids_error err = {BOIDS_OK, ""};
    host h = {0};
    int rc = host_open(&h, &p, &err);
    for (long frame = 0; rc == 0 && frame < frames && !glfwWindowShouldClose(h.win); frame++) {
        if (boids_backend_step(h.flock, &p, 1, &err)) rc = 1;
        draw(&h, &p);
        if (frame == frames - 1 && shot && !screenshot(shot, (int)p.width, (int)p.height)) {
            fprintf(stderr, "embed_glfw: cannot write %s\n", shot);
            rc = 1;
        }
        glfwSwapBuffers(h.win);
        glfwPollEvents();
    }
    if (rc == 0)
        printf("embed_glfw: %zu boids, %ld frames drawn from the state buffer\n",
               boids_backend_n(h.flock), frames);
    else if (rc == 77)
        fprintf(stderr, "embed_glfw: no OpenGL 4.3 window (is there a display?)\n");
    else
        fprintf(stderr, "embed_glfw: %s\n", err.msg[0] ? err.msg : "GL set-up failed");
    host_close(&h);
    return rc;
}
