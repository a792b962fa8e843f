/* SPDX-License-Identifier: MIT */
/* Headless GL 4.3 core context through EGL, GL function loading, KHR_debug recording. */
#include <glad/egl.h>
#include <glad/gl.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "boids/gpu.h"

struct boids_gl {
    EGLDisplay display;
    EGLContext context;
    const char *platform;
    char renderer[256];
    char version[256];
    boids_gl_debug log;
};

static int has_ext(const char *list, const char *name) {
    size_t len = strlen(name);
    for (const char *p = list; p && (p = strstr(p, name)) != NULL; p += len)
        if ((p == list || p[-1] == ' ') && (p[len] == ' ' || p[len] == '\0')) return 1;
    return 0;
}

/* ---- debug output ------------------------------------------------------------------------ */

static void GLAD_API_PTR debug_callback(GLenum source, GLenum type, GLuint id, GLenum severity,
                                        GLsizei length, const GLchar *message, const void *user) {
    (void)source;
    (void)id;
    (void)length;
    boids_gl_debug *log = (boids_gl_debug *)user;
    log->messages++;
    if (type == GL_DEBUG_TYPE_ERROR || severity == GL_DEBUG_SEVERITY_HIGH) {
        log->errors++;
        snprintf(log->last_error, sizeof log->last_error, "%s", message);
    }
}

boids_status boids_gl_debug_enable(boids_gl_debug *log, boids_error *err) {
    if (!log)
        return boids_error_set(err, BOIDS_ERR_INPUT, "boids_gl_debug_enable: the log is NULL");
    memset(log, 0, sizeof *log);
    if (!GLAD_GL_VERSION_4_3 && !GLAD_GL_KHR_debug)
        return boids_error_set(err, BOIDS_ERR_RUNTIME, "GL debug output needs GL 4.3 or KHR_debug");
    glEnable(GL_DEBUG_OUTPUT);
    /* Synchronous: the message arrives inside the call that caused it, so a check right
     * after a stage sees it. */
    glEnable(GL_DEBUG_OUTPUT_SYNCHRONOUS);
    glDebugMessageCallback(debug_callback, log);
    glDebugMessageControl(GL_DONT_CARE, GL_DONT_CARE, GL_DONT_CARE, 0, NULL, GL_TRUE);
    return BOIDS_OK;
}

/* ---- loading ------------------------------------------------------------------------------ */

boids_status boids_gl_load(boids_gl_loader load, boids_error *err) {
    if (!load) return boids_error_set(err, BOIDS_ERR_INPUT, "boids_gl_load: the loader is NULL");
    int version = gladLoadGL((GLADloadfunc)load);
    if (!version)
        return boids_error_set(err, BOIDS_ERR_RUNTIME, "cannot load the OpenGL functions");
    if (!GLAD_GL_VERSION_4_3) {
        const char *v = (const char *)glGetString(GL_VERSION);
        return boids_error_set(err, BOIDS_ERR_RUNTIME,
                               "OpenGL 4.3 (compute shaders) needed, the context has %s",
                               v ? v : "an unknown version");
    }
    return BOIDS_OK;
}

/* ---- EGL ---------------------------------------------------------------------------------- */

static GLADapiproc egl_loader(const char *name) {
    return (GLADapiproc)eglGetProcAddress(name);
}

/* The EGL devices a context is made on, in EGL's order: the NVIDIA ones (EGL_NV_device_cuda)
 * when there is any (*nvidia = 1), else all of them (Mesa's software device among them).
 * Returns how many, at most MAX_DEVICES; 0 without device enumeration. */
enum { MAX_DEVICES = 64 };
static int list_devices(EGLDeviceEXT *dev, int *nvidia) {
    *nvidia = 0;
    if (!GLAD_EGL_EXT_device_enumeration || !GLAD_EGL_EXT_platform_device) return 0;
    EGLDeviceEXT all[MAX_DEVICES];
    EGLint n = 0;
    if (!eglQueryDevicesEXT(MAX_DEVICES, all, &n)) return 0;
    int m = 0;
    for (EGLint i = 0; i < n; i++) {
        const char *ext =
            GLAD_EGL_EXT_device_query ? eglQueryDeviceStringEXT(all[i], EGL_EXTENSIONS) : NULL;
        if (has_ext(ext, "EGL_NV_device_cuda")) dev[m++] = all[i];
    }
    if (m > 0) {
        *nvidia = 1;
        return m;
    }
    for (EGLint i = 0; i < n; i++) dev[i] = all[i];
    return (int)n;
}

int boids_gl_device_count(void) {
    if (!gladLoaderLoadEGL(EGL_NO_DISPLAY)) return 0;
    EGLDeviceEXT dev[MAX_DEVICES];
    int nvidia;
    return list_devices(dev, &nvidia);
}

/* The display of device `index` of list_devices, or with index -1 of the first device that
 * has one; EGL_NO_DISPLAY if there is none. */
static EGLDisplay device_display(int index) {
    EGLDeviceEXT dev[MAX_DEVICES];
    int nvidia;
    int n = list_devices(dev, &nvidia);
    for (int i = index >= 0 ? index : 0; i < n; i++) {
        EGLDisplay d = eglGetPlatformDisplayEXT(EGL_PLATFORM_DEVICE_EXT, dev[i], NULL);
        if (d != EGL_NO_DISPLAY || index >= 0) return d;
    }
    return EGL_NO_DISPLAY;
}

/* BOIDS_EGL_DEVICE: unset or empty gives -1 (the first device that works, as before it
 * existed); else the index it holds, checked against the devices there are. */
static boids_status chosen_device(const char *platform, int *index, boids_error *err) {
    const char *v = getenv("BOIDS_EGL_DEVICE");
    *index = -1;
    if (!v || !*v) return BOIDS_OK;
    char *end = NULL;
    long i = strtol(v, &end, 10);
    if (*end || v[0] < '0' || v[0] > '9')
        return boids_error_set(err, BOIDS_ERR_INPUT,
                               "BOIDS_EGL_DEVICE=%s: expected the index of an EGL device (0, 1, "
                               "...)",
                               v);
    if (platform && !strcmp(platform, "surfaceless"))
        return boids_error_set(err, BOIDS_ERR_INPUT,
                               "BOIDS_EGL_DEVICE=%s picks a device of the EGL device platform, "
                               "and BOIDS_EGL_PLATFORM=surfaceless has none: unset one of them",
                               v);
    EGLDeviceEXT dev[MAX_DEVICES];
    int nvidia;
    int n = list_devices(dev, &nvidia);
    if (n == 0)
        return boids_error_set(err, BOIDS_ERR_INPUT,
                               "BOIDS_EGL_DEVICE=%s: EGL lists no devices here (no "
                               "EGL_EXT_device_enumeration, or no device): unset it",
                               v);
    if (i >= n)
        return boids_error_set(
            err, BOIDS_ERR_INPUT,
            "BOIDS_EGL_DEVICE=%s: there %s %d EGL device%s (%s), so the index "
            "is at most %d",
            v, n == 1 ? "is" : "are", n, n == 1 ? "" : "s",
            nvidia ? "NVIDIA devices only, as there is one" : "no NVIDIA one: all devices", n - 1);
    *index = (int)i;
    return BOIDS_OK;
}

static EGLDisplay surfaceless_display(void) {
    if (!GLAD_EGL_MESA_platform_surfaceless) return EGL_NO_DISPLAY;
    return eglGetPlatformDisplayEXT(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, NULL);
}

/* Makes a GL 4.3 core context current on display d; 0 and a reason in why on failure. */
static int make_context(boids_gl *gl, EGLDisplay d, int debug, char *why, size_t size) {
    EGLint major, minor;
    if (!eglInitialize(d, &major, &minor)) {
        snprintf(why, size, "eglInitialize failed (0x%x)", (unsigned)eglGetError());
        return 0;
    }
    /* Display extensions (surfaceless_context) are known only after initialisation. */
    gladLoaderLoadEGL(d);
    if (!GLAD_EGL_KHR_surfaceless_context) {
        snprintf(why, size, "no EGL_KHR_surfaceless_context");
        eglTerminate(d);
        return 0;
    }
    if (!eglBindAPI(EGL_OPENGL_API)) {
        snprintf(why, size, "no desktop OpenGL in EGL");
        eglTerminate(d);
        return 0;
    }
    /* No surface type: the context is only ever current without a surface. */
    const EGLint config_attr[] = {EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT, EGL_SURFACE_TYPE, 0,
                                  EGL_NONE};
    EGLConfig config;
    EGLint nconfig = 0;
    if (!eglChooseConfig(d, config_attr, &config, 1, &nconfig) || nconfig < 1) {
        snprintf(why, size, "no EGL config for desktop OpenGL");
        eglTerminate(d);
        return 0;
    }
    const EGLint ctx_attr[] = {EGL_CONTEXT_MAJOR_VERSION,
                               4,
                               EGL_CONTEXT_MINOR_VERSION,
                               3,
                               EGL_CONTEXT_OPENGL_PROFILE_MASK,
                               EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT,
                               EGL_CONTEXT_OPENGL_DEBUG,
                               debug ? EGL_TRUE : EGL_FALSE,
                               EGL_NONE};
    EGLContext c = eglCreateContext(d, config, EGL_NO_CONTEXT, ctx_attr);
    if (c == EGL_NO_CONTEXT) {
        snprintf(why, size, "no OpenGL 4.3 core context (eglCreateContext 0x%x)",
                 (unsigned)eglGetError());
        eglTerminate(d);
        return 0;
    }
    if (!eglMakeCurrent(d, EGL_NO_SURFACE, EGL_NO_SURFACE, c)) {
        snprintf(why, size, "eglMakeCurrent without a surface failed (0x%x)",
                 (unsigned)eglGetError());
        eglDestroyContext(d, c);
        eglTerminate(d);
        return 0;
    }
    boids_error e;
    if (boids_gl_load(egl_loader, &e) != BOIDS_OK) {
        snprintf(why, size, "%.190s", e.msg);
        eglMakeCurrent(d, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
        eglDestroyContext(d, c);
        eglTerminate(d);
        return 0;
    }
    gl->display = d;
    gl->context = c;
    return 1;
}

boids_gl *boids_gl_create(int debug, boids_error *err) {
    if (!gladLoaderLoadEGL(EGL_NO_DISPLAY)) {
        boids_error_set(err, BOIDS_ERR_RUNTIME, "no GPU context: cannot load libEGL");
        return NULL;
    }
    const char *force = getenv("BOIDS_EGL_PLATFORM");
    if (force && *force && strcmp(force, "device") != 0 && strcmp(force, "surfaceless") != 0) {
        boids_error_set(err, BOIDS_ERR_INPUT,
                        "BOIDS_EGL_PLATFORM=%s: expected \"device\" or \"surfaceless\"", force);
        return NULL;
    }
    int index;
    if (chosen_device(force, &index, err)) return NULL;
    boids_gl *gl = calloc(1, sizeof *gl);
    if (!gl) {
        boids_error_set(err, BOIDS_ERR_NOMEM, "out of memory");
        return NULL;
    }
    EGLDeviceEXT dev[MAX_DEVICES];
    int nvidia;
    list_devices(dev, &nvidia);
    /* Candidates in order of preference: a chosen device is the only one. */
    const char *order[3];
    int n = 0;
    if ((force && *force) || index >= 0) {
        order[n++] = index >= 0 ? "device" : force;
    } else if (nvidia) {
        order[n++] = "device";
        order[n++] = "surfaceless";
    } else {
        order[n++] = "surfaceless";
        order[n++] = "device";
    }
    char why[2][200] = {"", ""};
    for (int i = 0; i < n; i++) {
        int device = strcmp(order[i], "device") == 0;
        /* On the device platform the chosen device, or the first (an NVIDIA one when there
         * is any). */
        EGLDisplay d = device ? device_display(index) : surfaceless_display();
        if (d == EGL_NO_DISPLAY) {
            snprintf(why[i], sizeof why[i], "no EGL display");
            continue;
        }
        if (make_context(gl, d, debug, why[i], sizeof why[i])) {
            gl->platform = device ? "device" : "surfaceless";
            break;
        }
    }
    if (!gl->context) {
        char msg[BOIDS_ERROR_MSG_MAX] = "";
        for (int i = 0; i < n; i++) {
            size_t len = strlen(msg);
            snprintf(msg + len, sizeof msg - len, "%sEGL %s platform: %s", i ? "; " : "", order[i],
                     why[i]);
        }
        boids_error_set(err, BOIDS_ERR_RUNTIME, "no OpenGL 4.3 context (%s)", msg);
        free(gl);
        return NULL;
    }
    snprintf(gl->renderer, sizeof gl->renderer, "%s", (const char *)glGetString(GL_RENDERER));
    snprintf(gl->version, sizeof gl->version, "%s", (const char *)glGetString(GL_VERSION));
    if (debug && boids_gl_debug_enable(&gl->log, err) != BOIDS_OK) {
        boids_gl_destroy(gl);
        return NULL;
    }
    return gl;
}

void boids_gl_destroy(boids_gl *gl) {
    if (!gl) return;
    if (gl->context != EGL_NO_CONTEXT) {
        eglMakeCurrent(gl->display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
        eglDestroyContext(gl->display, gl->context);
        eglTerminate(gl->display);
    }
    free(gl);
}

/* NULL handles get "" (and NULL for the log): these have no error return. */
const char *boids_gl_renderer(const boids_gl *gl) {
    return gl ? gl->renderer : "";
}
const char *boids_gl_version(const boids_gl *gl) {
    return gl ? gl->version : "";
}
const char *boids_gl_platform(const boids_gl *gl) {
    return gl ? gl->platform : "";
}
const boids_gl_debug *boids_gl_debug_log(const boids_gl *gl) {
    return gl ? &gl->log : NULL;
}
