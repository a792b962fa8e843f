/* SPDX-License-Identifier: MIT */
/* Frames read back, and PNG output through stb_image_write (Debian libstb-dev). */
#include <stdio.h>
#include <stdlib.h>

#include "atomic_file.h"
#include "render/render.h"

#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#pragma GCC diagnostic ignored "-Wunused-function"
#endif
#define STB_IMAGE_WRITE_IMPLEMENTATION
#include <stb/stb_image_write.h>
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

static void write_to_file(void *context, void *data, int size) {
    fwrite(data, 1, (size_t)size, context);
}

boids_status render_write_png(const char *path, int w, int h, const unsigned char *pixels,
                              boids_error *err) {
    boids_atomic_file a;
    boids_status s = boids_atomic_open(&a, path, err);
    if (s) return s;
    if (!stbi_write_png_to_func(write_to_file, a.f, w, h, 4, pixels, w * 4)) {
        boids_atomic_abort(&a);
        return boids_error_set(err, BOIDS_ERR_RUNTIME, "%s: cannot encode the PNG", path);
    }
    return boids_atomic_commit(&a, err);
}

boids_status render_pixels_read(render_pixels *p, int w, int h, boids_error *err) {
    size_t bytes = (size_t)w * (size_t)h * 4;
    if (p->size < bytes) {
        unsigned char *px = realloc(p->px, bytes);
        if (!px)
            return boids_error_set(err, BOIDS_ERR_NOMEM, "out of memory for a %dx%d frame", w, h);
        p->px = px;
        p->size = bytes;
    }
    p->w = w, p->h = h;
    render_read_pixels(w, h, p->px);
    return BOIDS_OK;
}

void render_pixels_free(render_pixels *p) {
    free(p->px);
    p->px = NULL;
    p->size = 0;
}
