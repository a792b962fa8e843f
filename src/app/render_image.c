/* PNG output through stb_image_write (Debian libstb-dev). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "render.h"

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

boids_status render_write_png(const char *path, int w, int h, const unsigned char *pixels,
                              boids_error *err) {
    char tmp[4096];
    if (snprintf(tmp, sizeof tmp, "%s.tmp", path) >= (int)sizeof tmp)
        return boids_error_set(err, BOIDS_ERR_INPUT, "%s: path too long", path);
    errno = 0;
    if (!stbi_write_png(tmp, w, h, 4, pixels, w * 4)) {
        int e = errno;
        remove(tmp);
        return boids_error_set(err, BOIDS_ERR_RUNTIME, "%s: cannot write the PNG%s%s", path,
                               e ? ": " : "", e ? strerror(e) : "");
    }
    if (rename(tmp, path) != 0) {
        int e = errno;
        remove(tmp);
        return boids_error_set(err, BOIDS_ERR_RUNTIME, "%s: %s", path, strerror(e));
    }
    return BOIDS_OK;
}
