/* boids render: frames drawn offscreen through EGL (no display needed), to a numbered PNG
 * sequence or as raw RGBA on stdout for ffmpeg. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <glad/gl.h>

#include "boids/atomic_file.h"
#include "boids/gpu.h"
#include "boids/state_io.h"
#include "cli.h"
#include "commands.h"
#include "render.h"
#include "render_scene.h"
#include "view.h"

static const char usage[] =
    "usage: boids render [OPTIONS]\n"
    "Draws frames of the flock offscreen (EGL, no display needed). The gpu backend runs in its\n"
    "deterministic mode, so a given seed gives the same frames on one device.\n"
    "\n"
    "  -o, --output PAT   PNG file name with one printf integer conversion for the frame\n"
    "                     number (default frame-%05d.png); '-' writes raw RGBA frames\n"
    "                     (rows top to bottom) to stdout, e.g. for ffmpeg:\n"
    "                       boids render -o - | ffmpeg -f rawvideo -pixel_format rgba \\\n"
    "                         -video_size 1280x720 -framerate 60 -i - -c:v libx264 \\\n"
    "                         -pix_fmt yuv420p flock.mp4\n"
    "  --size WxH         frame size in pixels (default 1280x720)\n"
    "  --frames K         number of frames (default 300)\n"
    "  --steps-per-frame S  simulation steps between frames (default 1)\n"
    "  --warmup K         steps before the first frame (default 0)\n"
    "  --colour C         heading (default), speed or plain\n"
    "  --boid-size L      boid length in world length units (default 0.14 vision radii, 7 in\n"
    "                     lab), drawn at least 3 pixels long\n"
    "  --hud              print N, step and order on the frames\n"
    "  -h, --help         this text\n"
    "With -n larger than the preset's N the world grows to keep the preset's density, as in\n"
    "`boids view`. The backend defaults to gpu (--fast: not reproducible run to run).\n";

enum {
    OPT_OUT = OPT_FIRST_FREE,
    OPT_SIZE,
    OPT_FRAMES,
    OPT_SPF,
    OPT_WARMUP,
    OPT_COLOUR,
    OPT_BOID_SIZE,
    OPT_HUD
};

/* A PNG pattern needs exactly one integer conversion (%d, %05d, ...); %% is a percent. */
static boids_status check_pattern(const char *pat, boids_error *err) {
    int conv = 0;
    for (const char *s = pat; *s; s++) {
        if (*s != '%') continue;
        if (s[1] == '%') {
            s++;
            continue;
        }
        const char *t = s + 1;
        while (*t >= '0' && *t <= '9') t++;
        if (*t != 'd')
            return boids_error_set(err, BOIDS_ERR_INPUT,
                                   "--output %s: only %%d-style conversions are allowed", pat);
        conv++;
        s = t;
    }
    if (conv != 1)
        return boids_error_set(err, BOIDS_ERR_INPUT,
                               "--output %s: needs exactly one %%d for the frame number (e.g. "
                               "frame-%%05d.png), or '-' for raw RGBA on stdout",
                               pat);
    return BOIDS_OK;
}

typedef struct target {
    unsigned fbo_ms, rb_ms, fbo, rb;
} target;

static void target_destroy(target *t) {
    if (t->fbo_ms) glDeleteFramebuffers(1, &t->fbo_ms);
    if (t->fbo) glDeleteFramebuffers(1, &t->fbo);
    if (t->rb_ms) glDeleteRenderbuffers(1, &t->rb_ms);
    if (t->rb) glDeleteRenderbuffers(1, &t->rb);
}

/* A 4x multisampled colour buffer to draw into and a plain one to resolve and read. */
static boids_status target_create(target *t, int w, int h, boids_error *err) {
    memset(t, 0, sizeof *t);
    int max_rb = 0;
    glGetIntegerv(GL_MAX_RENDERBUFFER_SIZE, &max_rb);
    if (w > max_rb || h > max_rb)
        return boids_error_set(err, BOIDS_ERR_LIMIT, "--size %dx%d: this GL allows at most %d", w,
                               h, max_rb);
    glGenRenderbuffers(1, &t->rb_ms);
    glBindRenderbuffer(GL_RENDERBUFFER, t->rb_ms);
    glRenderbufferStorageMultisample(GL_RENDERBUFFER, 4, GL_RGBA8, w, h);
    glGenFramebuffers(1, &t->fbo_ms);
    glBindFramebuffer(GL_FRAMEBUFFER, t->fbo_ms);
    glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, t->rb_ms);
    int ok = glCheckFramebufferStatus(GL_FRAMEBUFFER) == GL_FRAMEBUFFER_COMPLETE;
    glGenRenderbuffers(1, &t->rb);
    glBindRenderbuffer(GL_RENDERBUFFER, t->rb);
    glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, w, h);
    glGenFramebuffers(1, &t->fbo);
    glBindFramebuffer(GL_FRAMEBUFFER, t->fbo);
    glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, t->rb);
    ok = ok && glCheckFramebufferStatus(GL_FRAMEBUFFER) == GL_FRAMEBUFFER_COMPLETE;
    if (!ok) {
        target_destroy(t);
        return boids_error_set(err, BOIDS_ERR_RUNTIME,
                               "cannot make a %dx%d offscreen framebuffer (GL error 0x%x)", w, h,
                               glGetError());
    }
    return BOIDS_OK;
}

int boids_cmd_render(int argc, char **argv) {
    static const struct option longopts[] = {APP_COMMON_LONGOPTS,
                                             {"output", required_argument, NULL, 'o'},
                                             {"size", required_argument, NULL, OPT_SIZE},
                                             {"frames", required_argument, NULL, OPT_FRAMES},
                                             {"steps-per-frame", required_argument, NULL, OPT_SPF},
                                             {"warmup", required_argument, NULL, OPT_WARMUP},
                                             {"colour", required_argument, NULL, OPT_COLOUR},
                                             {"color", required_argument, NULL, OPT_COLOUR},
                                             {"boid-size", required_argument, NULL, OPT_BOID_SIZE},
                                             {"hud", no_argument, NULL, OPT_HUD},
                                             {"help", no_argument, NULL, 'h'},
                                             {0, 0, 0, 0}};
    app_opts o;
    app_opts_init(&o);
    o.backend = "gpu";
    const char *out = "frame-%05d.png";
    long w = 1280, h = 720, frames = 300, spf = 1, warmup = 0;
    double boid_len = 0;
    int colour = RENDER_HEADING, show_hud = 0;
    boids_error err;
    boids_error_clear(&err);
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":" APP_COMMON_SHORTOPTS "ho:", longopts, NULL)) != -1) {
        int r = app_opts_parse(&o, c, optarg, &err);
        if (r < 0) return app_fail(&err);
        if (r) continue;
        switch (c) {
        case 'o':
            out = optarg;
            break;
        case OPT_SIZE: {
            char *end;
            errno = 0;
            w = strtol(optarg, &end, 10);
            int ok = end != optarg && (*end == 'x' || *end == 'X');
            if (ok) {
                const char *s2 = end + 1;
                h = strtol(s2, &end, 10);
                ok = end != s2 && !*end && !errno && w >= 16 && h >= 16 && w <= 16384 && h <= 16384;
            }
            if (!ok) {
                boids_error_set(&err, BOIDS_ERR_INPUT,
                                "--size: '%s' is not WIDTHxHEIGHT in [16, 16384]", optarg);
                return app_fail(&err);
            }
            break;
        }
        case OPT_FRAMES:
            if (app_parse_long("--frames", optarg, 1, 100000000L, &frames, &err))
                return app_fail(&err);
            break;
        case OPT_SPF:
            if (app_parse_long("--steps-per-frame", optarg, 0, 100000L, &spf, &err))
                return app_fail(&err);
            break;
        case OPT_WARMUP:
            if (app_parse_long("--warmup", optarg, 0, 2000000000L, &warmup, &err))
                return app_fail(&err);
            break;
        case OPT_COLOUR: {
            int found = -1;
            for (int i = 0; render_colour_names[i]; i++)
                if (!strcmp(optarg, render_colour_names[i])) found = i;
            if (found < 0) {
                boids_error_set(&err, BOIDS_ERR_INPUT,
                                "--colour: unknown value '%s' (heading, speed, plain)", optarg);
                return app_fail(&err);
            }
            colour = found;
            break;
        }
        case OPT_BOID_SIZE: {
            char *end;
            boid_len = strtod(optarg, &end);
            if (end == optarg || *end || !(boid_len > 0 && boid_len <= 1e6)) {
                boids_error_set(&err, BOIDS_ERR_INPUT,
                                "--boid-size: '%s' is not a number in (0, 1e6]", optarg);
                return app_fail(&err);
            }
            break;
        }
        case OPT_HUD:
            show_hud = 1;
            break;
        case 'h':
            fputs(usage, stdout), fputs(app_common_help, stdout);
            return 0;
        case ':':
        default:
            return app_option_error("render", c, argv);
        }
    }
    if (app_no_operands("render", argc, argv)) return 2;
    int raw = !strcmp(out, "-");
    if (!raw && (check_pattern(out, &err) || boids_atomic_check_writable(out, &err)))
        return app_fail(&err);
    if (raw && isatty(STDOUT_FILENO)) {
        boids_error_set(&err, BOIDS_ERR_INPUT,
                        "--output -: stdout is a terminal; pipe the raw frames into ffmpeg");
        return app_fail(&err);
    }

    boids_params p, base = boids_params_default();
    if (app_params(&o, &p, &err)) return app_fail(&err);
    if (o.preset && boids_preset_apply(&base, o.preset, &err)) return app_fail(&err);
    if (!o.load && p.width == base.width && p.height == base.height) {
        view_fit_world(&p, &base);
        if (boids_params_validate(&p, &err)) return app_fail(&err);
    }
    /* A broken pipe (ffmpeg gone) must be an error message, not a silent death. */
    if (raw) signal(SIGPIPE, SIG_IGN);

    boids_gl *gl = boids_gl_create(o.verbose >= 2, &err);
    if (!gl) return app_fail(&err);
    boids_status st = BOIDS_OK;
    render_ctx *r = NULL;
    scene *sc = NULL;
    target t = {0};
    unsigned char *px = malloc((size_t)w * (size_t)h * 4);
    if (!px) {
        st = boids_error_set(&err, BOIDS_ERR_NOMEM, "out of memory for a %ldx%ld frame", w, h);
        goto out;
    }
    if (!(r = render_create(&err))) goto fail;
    scene_config cfg = {&o, o.deterministic != 0, 0};
    if (!(sc = scene_create(&cfg, &p, &err))) goto fail;
    if ((st = target_create(&t, (int)w, (int)h, &err))) goto out;
    if (o.verbose)
        fprintf(stderr, "boids render: %s (%s), backend %s, %ld boids in %g x %g\n",
                boids_gl_renderer(gl), boids_gl_platform(gl), scene_backend_name(sc), p.count,
                p.width, p.height);
    if ((st = scene_step(sc, (unsigned)warmup, &err))) goto out;
    render_camera cam = render_camera_fit(p.width, p.height, (int)w, (int)h, 0);
    for (long f = 0; f < frames; f++) {
        if (f > 0 && (st = scene_step(sc, (unsigned)spf, &err))) goto out;
        glBindFramebuffer(GL_FRAMEBUFFER, t.fbo_ms);
        render_begin(r, &cam);
        render_flock fl = {0};
        scene_buffers(sc, &fl.state_buf, &fl.id_buf, &fl.n);
        fl.colour = (render_colour)colour;
        fl.length = boid_len > 0 ? boid_len : render_default_length(&p);
        fl.min_px = 3 * (h > 800 ? (double)h / 800 : 1);
        render_draw_flock(r, &cam, scene_params(sc), &fl);
        if (show_hud) {
            double ord = 0;
            scene_order_request(sc);
            scene_order_poll(sc, 1, &ord);
            char line[128];
            snprintf(line, sizeof line, "N %ld   step %llu   order %.3f", p.count,
                     (unsigned long long)scene_steps(sc), ord);
            float ts = h >= 1400 ? 4 : h >= 700 ? 2 : 1;
            render_rect(r, 0, 0, render_text_width(line, ts) + 12 * ts, 12 * ts, 0x0b0e17c0);
            render_text(r, 6 * ts, 3 * ts, ts, line, 0xdde3efff);
            render_flush(r);
        }
        glBindFramebuffer(GL_READ_FRAMEBUFFER, t.fbo_ms);
        glBindFramebuffer(GL_DRAW_FRAMEBUFFER, t.fbo);
        glBlitFramebuffer(0, 0, (int)w, (int)h, 0, 0, (int)w, (int)h, GL_COLOR_BUFFER_BIT,
                          GL_NEAREST);
        glBindFramebuffer(GL_READ_FRAMEBUFFER, t.fbo);
        render_read_pixels((int)w, (int)h, px);
        if (raw) {
            if (fwrite(px, 4, (size_t)(w * h), stdout) != (size_t)(w * h) || fflush(stdout)) {
                st = boids_error_set(&err, BOIDS_ERR_RUNTIME, "writing frame %ld to stdout: %s", f,
                                     strerror(errno));
                goto out;
            }
        } else {
            char path[4096];
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
#endif
            snprintf(path, sizeof path, out, (int)f);
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif
            if ((st = render_write_png(path, (int)w, (int)h, px, &err))) goto out;
        }
    }
    if (o.verbose && !raw) fprintf(stderr, "boids render: wrote %ld frames (%s)\n", frames, out);
    if (o.verbose >= 2) {
        const boids_gl_debug *d = boids_gl_debug_log(gl);
        fprintf(stderr, "boids render: GL debug: %lu errors, %lu messages%s%s\n", d->errors,
                d->messages, d->errors ? "; last error: " : "", d->last_error);
    }
    goto out;
fail:
    st = err.status ? err.status : BOIDS_ERR_RUNTIME;
out:
    target_destroy(&t);
    scene_destroy(sc);
    render_destroy(r);
    boids_gl_destroy(gl);
    free(px);
    return st ? app_fail(&err) : 0;
}
