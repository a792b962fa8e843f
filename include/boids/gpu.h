/* GPU backend: the simulation step in OpenGL 4.3 compute shaders.
 *
 * Two independent parts:
 *   - a headless GL context (boids_gl): EGL without a window, on the EGL device platform
 *     (NVIDIA) or Mesa's surfaceless platform (llvmpipe when there is no GPU);
 *   - the compute pipeline (boids_gpu_create), which works on whatever GL 4.3 context is
 *     current: the headless one, or a viewer's window context after boids_gl_load().
 *
 * Threads: GL contexts are current on one thread; call everything here from that thread. */
#ifndef BOIDS_GPU_H
#define BOIDS_GPU_H

#include <stddef.h>
#include <stdint.h>

#include "boids/backend.h"
#include "boids/error.h"
#include "boids/flock.h"

/* ---- GL context and loading ------------------------------------------------------------ */

typedef struct boids_gl boids_gl;

/* Counts of KHR_debug messages on a context (see boids_gl_debug_enable). */
typedef struct boids_gl_debug {
    unsigned long errors;   /* messages of type GL_DEBUG_TYPE_ERROR or severity HIGH */
    unsigned long messages; /* all messages */
    char last_error[256];   /* text of the latest error message, "" if none */
} boids_gl_debug;

/* Creates a headless GL 4.3 core context with EGL and makes it current (no surface).
 * Platform: the EGL device platform when an NVIDIA device is present, else Mesa's
 * surfaceless platform, each falling back to the other; the environment variable
 * BOIDS_EGL_PLATFORM=device|surfaceless forces one. debug != 0: a debug context with
 * KHR_debug output recorded in boids_gl_debug_log(). Returns NULL with BOIDS_ERR_RUNTIME
 * and a message naming what failed when no GL 4.3 context can be made. */
boids_gl *boids_gl_create(int debug, boids_error *err);
void boids_gl_destroy(boids_gl *gl);

/* GL_RENDERER, GL_VERSION, and the EGL platform used ("device" or "surfaceless"). */
const char *boids_gl_renderer(const boids_gl *gl);
const char *boids_gl_version(const boids_gl *gl);
const char *boids_gl_platform(const boids_gl *gl);

/* The debug message counts of a context made with debug != 0 (else counts stay 0). */
const boids_gl_debug *boids_gl_debug_log(const boids_gl *gl);

/* For a context made elsewhere (e.g. a GLFW window), current on this thread: loads the GL
 * functions through load (glfwGetProcAddress, eglGetProcAddress) and checks for GL 4.3.
 * Below 4.3 or a failed load: BOIDS_ERR_RUNTIME. */
typedef void (*boids_gl_proc)(void);
typedef boids_gl_proc (*boids_gl_loader)(const char *name);
boids_status boids_gl_load(boids_gl_loader load, boids_error *err);

/* Turns on synchronous KHR_debug output on the current context, counting into log (which
 * must outlive the context's use). */
boids_status boids_gl_debug_enable(boids_gl_debug *log, boids_error *err);

/* ---- the compute pipeline ---------------------------------------------------------------- */

typedef struct boids_gpu_options {
    /* 1: order each cell's boids by id after the scatter, so that the state after K steps is
     * bit-identical run to run on one device (costs one pass; see README). 0: the atomic
     * ranks leave the order within cells, hence the float summation order, to scheduling. */
    int deterministic;
    /* 1: check glGetError (and log, if not NULL) after every stage, and compare the uniform
     * block layout GL reports with the C struct at creation; a GL error is BOIDS_ERR_RUNTIME
     * naming the stage. Costs a pipeline flush per stage: for tests and verification. */
    int check;
    /* 1: time each stage with GL_TIME_ELAPSED queries and with glFinish() around it
     * (boids_gpu_timings); serialises the pipeline, so leave it off except to measure. */
    int timing;
    const boids_gl_debug *log; /* NULL or the debug log checked with `check` */
} boids_gpu_options;

/* deterministic 1 (it costs 3-6% on llvmpipe, see the README), check 0, timing 0, log
 * NULL. */
boids_gpu_options boids_gpu_options_default(void);

/* Creates the GPU backend on gl (ownership passes to the backend, which destroys it, also
 * when creation fails) or, with gl NULL, on the GL 4.3 context current on this thread (made
 * ready with boids_gl_load). opt NULL means the defaults. initial->n is checked against the
 * device limits before its arrays are read: beyond them, BOIDS_ERR_LIMIT naming the limit
 * and the largest N that fits. Returns NULL on failure. */
boids_backend *boids_gpu_create(boids_gl *gl, const boids_flock *initial,
                                const boids_gpu_options *opt, boids_error *err);

/* Largest N the current context can hold (the smallest of the limits below), and in why
 * (may be NULL, size >= 128) the limit that decides it:
 * GL_MAX_SHADER_STORAGE_BLOCK_SIZE over the state buffer, GL_MAX_COMPUTE_WORK_GROUP_COUNT
 * times the work group size, and 32-bit indices. Needs a current context. */
size_t boids_gpu_max_count(char *why, size_t size);

/* Checks, before a program allocates and fills a flock of n boids for the GPU, that the
 * device can hold them: BOIDS_ERR_LIMIT as boids_gpu_create would give it. Up to 2^20 boids
 * (what every GL 4.3 device holds) it answers at once; above, it makes a headless context
 * for the query (BOIDS_ERR_RUNTIME if none can be made) and destroys it. */
boids_status boids_gpu_check_count(size_t n, boids_error *err);

/* 1 if b was made by boids_gpu_create. */
int boids_backend_is_gpu(const boids_backend *b);

/* For drawing without read-back: the GL name of the buffer holding the current state as
 * N vec4 (x, y, vx, vy) in cell order (not id order), and of the N uint ids alongside. The
 * names change when upload() changes N; valid until the next step/upload/destroy. */
unsigned boids_gpu_state_buffer(const boids_backend *b);
unsigned boids_gpu_id_buffer(const boids_backend *b);

/* The grid the latest step used: cells across, cells down. Cells are at least the vision
 * radius wide and tile the world exactly; when the world holds more cells than
 * BOIDS_GPU_MAX_CELLS (a tiny radius in a huge world) they are made wider (coarser, still
 * correct, slower) instead of failing. */
void boids_gpu_grid(const boids_backend *b, unsigned *ncx, unsigned *ncy);

/* Topological neighbours: the largest k the GPU supports (the shaders keep each boid's
 * selection in a per-invocation list of this many entries, which compiles on llvmpipe and
 * NVIDIA alike); a step or neighbours() with a larger k fails with BOIDS_ERR_LIMIT. */
enum { BOIDS_GPU_MAX_K = 128 };

/* Checks that the GPU pipeline can run parameters p (k within BOIDS_GPU_MAX_K, a positive
 * world and radius) without a context, so that a program can refuse them before it writes
 * any output; every step checks them again. BOIDS_ERR_LIMIT / BOIDS_ERR_INPUT naming the
 * limit. */
boids_status boids_gpu_check_params(const boids_params *p, boids_error *err);

/* Bounds the cell arrays to 4 Mi cells (32 MiB) whatever the radius. */
enum { BOIDS_GPU_MAX_CELLS = 1 << 22 };

/* Per-stage GPU time with opt.timing, summed over steps since the last reset. */
typedef enum boids_gpu_stage {
    BOIDS_GPU_STAGE_CLEAR,
    BOIDS_GPU_STAGE_COUNT,
    BOIDS_GPU_STAGE_SCAN,
    BOIDS_GPU_STAGE_SCATTER,
    BOIDS_GPU_STAGE_SORT, /* deterministic mode only */
    BOIDS_GPU_STAGE_STEER,
    BOIDS_GPU_STAGES
} boids_gpu_stage;

typedef struct boids_gpu_timing {
    double ms[BOIDS_GPU_STAGES];      /* milliseconds of GPU time per stage (GL_TIME_ELAPSED; a
                                         driver may report 0, as Mesa llvmpipe does for compute) */
    double wall_ms[BOIDS_GPU_STAGES]; /* milliseconds between glFinish() before and after the
                                         stage: what the stage costs end to end */
    unsigned long steps;              /* steps measured */
} boids_gpu_timing;

const char *boids_gpu_stage_name(boids_gpu_stage stage);
/* The sums so far (all zero without opt.timing). */
boids_gpu_timing boids_gpu_timings(const boids_backend *b);
void boids_gpu_timings_reset(boids_backend *b);

#endif
