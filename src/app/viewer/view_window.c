/* SPDX-License-Identifier: MIT */
/* The viewer's window: a GLFW window with a GL 4.3 core context, on the monitor and in the
 * mode the options ask for. */
#include <string.h>

#include <glad/gl.h>
/* glad provides the GL declarations; GLFW must not include its own. */
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include "viewer/view_internal.h"

/* The monitor of --monitor, or the primary one (NULL: none known to GLFW). */
static boids_status pick_monitor(const view_opts *o, GLFWmonitor **mon, boids_error *err) {
    int count = 0;
    GLFWmonitor **mons = glfwGetMonitors(&count);
    if (o->monitor < 0) {
        *mon = glfwGetPrimaryMonitor();
        return BOIDS_OK;
    }
    if (o->monitor >= count)
        return boids_error_set(err, BOIDS_ERR_INPUT,
                               "--monitor %d: %d monitor%s connected (0 to %d)", o->monitor, count,
                               count == 1 ? "" : "s", count - 1);
    *mon = mons[o->monitor];
    return BOIDS_OK;
}

/* The virtual desktop: the rectangle that holds every monitor, screen coordinates. */
static int desktop_bounds(int *x, int *y, int *w, int *h) {
    int count = 0;
    GLFWmonitor **mons = glfwGetMonitors(&count);
    int x0 = 0, y0 = 0, x1 = 0, y1 = 0, any = 0;
    for (int i = 0; i < count; i++) {
        const GLFWvidmode *mode = glfwGetVideoMode(mons[i]);
        int mx, my;
        if (!mode) continue;
        glfwGetMonitorPos(mons[i], &mx, &my);
        if (!any || mx < x0) x0 = mx;
        if (!any || my < y0) y0 = my;
        if (!any || mx + mode->width > x1) x1 = mx + mode->width;
        if (!any || my + mode->height > y1) y1 = my + mode->height;
        any = 1;
    }
    *x = x0, *y = y0, *w = x1 - x0, *h = y1 - y0;
    return any;
}

static void context_hints(const view_opts *o) {
    glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 4);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
    glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
    glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
    glfwWindowHint(GLFW_SAMPLES, o->msaa < 0 ? 4 : o->msaa);
    glfwWindowHint(GLFW_RESIZABLE, GLFW_TRUE);
    glfwWindowHint(GLFW_OPENGL_DEBUG_CONTEXT, o->app.verbose >= 2);
    glfwWindowHint(GLFW_DECORATED, o->borderless || o->span ? GLFW_FALSE : GLFW_TRUE);
}

/* Makes the window (full screen on `full` unless NULL), its context current, GL loaded. */
static boids_status make_window(view *v, int w, int h, GLFWmonitor *full, boids_error *err) {
    v->win = glfwCreateWindow(w, h, "boids", full, NULL);
    if (!v->win) {
        const char *why = NULL;
        glfwGetError(&why);
        return boids_error_set(err, BOIDS_ERR_RUNTIME, "cannot open a GL 4.3 core window: %s",
                               why ? why : "unknown reason");
    }
    glfwMakeContextCurrent(v->win);
    return boids_gl_load((boids_gl_loader)glfwGetProcAddress, err);
}

int view_software_renderer(void) {
    const char *r = (const char *)glGetString(GL_RENDERER);
    return r && (strstr(r, "llvmpipe") || strstr(r, "softpipe") || strstr(r, "SwiftShader"));
}

boids_status view_window_open(view *v, const view_opts *o, boids_error *err) {
    GLFWmonitor *mon = NULL;
    boids_status st = pick_monitor(o, &mon, err);
    if (st) return st;
    context_hints(o);
    int ww = o->win_w, wh = o->win_h, wx = o->win_x, wy = o->win_y, place = o->win_pos;
    if (o->span) {
        if (!desktop_bounds(&wx, &wy, &ww, &wh))
            return boids_error_set(err, BOIDS_ERR_RUNTIME, "--span: no monitor found");
        place = 1;
    }
    GLFWmonitor *full = NULL;
    if (o->fullscreen && mon) {
        const GLFWvidmode *mode = glfwGetVideoMode(mon);
        glfwWindowHint(GLFW_RED_BITS, mode->redBits);
        glfwWindowHint(GLFW_GREEN_BITS, mode->greenBits);
        glfwWindowHint(GLFW_BLUE_BITS, mode->blueBits);
        glfwWindowHint(GLFW_REFRESH_RATE, mode->refreshRate);
        ww = mode->width;
        wh = mode->height;
        full = mon;
    }
    if ((st = make_window(v, ww, wh, full, err))) return st;
    if (o->msaa < 0 && view_software_renderer()) {
        /* A software rasteriser pays 3x the frame time for 4x multisampling: worth it on a
         * GPU, not where 100,000 boids must stay interactive. The sample count is fixed
         * when the window is made, so make it again. */
        glfwDestroyWindow(v->win);
        glfwWindowHint(GLFW_SAMPLES, 0);
        if ((st = make_window(v, ww, wh, full, err))) return st;
    }
    if (!full && place) {
        glfwSetWindowPos(v->win, wx, wy);
    } else if (!full && o->monitor >= 0 && mon) {
        int mx, my;
        glfwGetMonitorPos(mon, &mx, &my);
        glfwSetWindowPos(v->win, mx + 40, my + 40);
    }
    glfwSwapInterval(o->vsync ? 1 : 0);
    if (o->hide_cursor) glfwSetInputMode(v->win, GLFW_CURSOR, GLFW_CURSOR_HIDDEN);
    if (o->app.verbose >= 2) return boids_gl_debug_enable(&v->window.glog, err);
    return BOIDS_OK;
}
