/* SPDX-License-Identifier: MIT */
/* GPU backend: the simulation step in OpenGL 4.3 compute shaders.
 *
 * Two independent parts:
 *   - a headless GL context (boids_gl): EGL without a window, on the EGL device platform
 *     (NVIDIA) or Mesa's surfaceless platform (llvmpipe when there is no GPU);
 *   - the compute pipeline (boids_gpu_create), which works on whatever GL 4.3 context is
 *     current: the headless one, or a viewer's window context after boids_gl_load().
 *
 * Threads: GL contexts are current on one thread; call everything here, and every
 * boids_backend_* function on a GPU backend, from that thread with that context current.
 *
 * The GL loader (glad) is private to the library: its function pointers are hidden symbols
 * of libboids_gpu, so a host with its own loader (glad, GLEW, epoxy, a hand-written table)
 * links without clashes. Both load from the same context and see the same GL objects.
 *
 * Embedding in a host's context (a GLFW window, say; examples/embed_glfw.c):
 *   1. make the host's GL 4.3 core context current;
 *   2. boids_gl_load(glfwGetProcAddress, &err): the library loads its own pointers;
 *   3. b = boids_gpu_create(NULL, &flock, NULL, &err): the pipeline on that context;
 *   4. each frame boids_backend_step(b, &params, 1, &err), then draw from
 *      boids_gpu_state_buffer(b) with the host's own program (no read-back);
 *   5. boids_backend_destroy(b) while the context is still current.
 *
 * GL state contract. The pipeline's calls (create, step, upload, download, neighbours)
 * change, and do NOT restore:
 *   - the current program (glUseProgram: its last compute program stays bound);
 *   - indexed GL_SHADER_STORAGE_BUFFER binding points 0 to 6 (glBindBufferBase/Range: its
 *     buffers stay bound there) and indexed GL_UNIFORM_BUFFER binding point 0 (its
 *     parameter block);
 *   - the generic GL_SHADER_STORAGE_BUFFER and GL_UNIFORM_BUFFER bindings (left at 0);
 *   - uniform location 0 of its own programs only.
 * It issues glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT | GL_BUFFER_UPDATE_BARRIER_BIT)
 * after each stage, so shader-storage reads of the state buffer after a step see the new
 * state; a host that reads it another way (as a vertex attribute, by copying) adds the
 * barrier bit for that use itself. It never touches vertex arrays, framebuffers, textures,
 * the viewport, blending, depth or any fixed-function state, and creates nothing outside
 * its backend (buffers, programs, queries), all deleted by boids_backend_destroy. So a
 * host rebinds its program and its storage/uniform binding points after a step, before
 * its own draws. GL's error flag is shared: buffer allocation and opt.check read
 * glGetError until it is clear, which consumes (and with opt.check reports) errors the
 * host left pending; call glGetError before a step to keep them. */
#ifndef BOIDS_GPU_H
#define BOIDS_GPU_H

#include <stddef.h>
#include <stdint.h>

#include "boids/api.h"
#include "boids/backend.h"
#include "boids/error.h"
#include "boids/flock.h"

BOIDS_BEGIN_DECLS

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
 * BOIDS_EGL_PLATFORM=device|surfaceless forces one. On the device platform the context is
 * made on the first of the devices boids_gl_device_count counts, or with the environment
 * variable BOIDS_EGL_DEVICE=I on device I of them (0 .. count - 1; the device platform
 * only, no fallback: one device per MPI rank, say). debug != 0: a debug context with
 * KHR_debug output recorded in boids_gl_debug_log(). Returns NULL with BOIDS_ERR_RUNTIME
 * and a message naming what failed on each platform tried when no GL 4.3 context can be
 * made, BOIDS_ERR_INPUT when BOIDS_EGL_PLATFORM holds another value or BOIDS_EGL_DEVICE
 * is not an index of a device (the message says how many there are), or is set with
 * BOIDS_EGL_PLATFORM=surfaceless. */
boids_gl *boids_gl_create(int debug, boids_error *err);

/* The EGL devices a context may be made on, in EGL's order: the NVIDIA ones when there is
 * any, else all (Mesa lists its software renderer as one); 0 when EGL cannot be loaded or
 * lists no devices. Makes no context. */
int boids_gl_device_count(void);
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

/* Variants of the pipeline, chosen at creation; each passes `boids verify` (bench/README.md
 * compares them and models their memory traffic).
 *   PLAIN  clear, count, scan, scatter (sort), steer: the reference variant.
 *   FUSED  the steer stage also counts the next step's cells (ranks of the new positions),
 *          so a step skips the count pass over the state: clear, scan, scatter (sort),
 *          steer. Metric neighbours only (topological steps run as PLAIN). Needs ten
 *          storage blocks in a compute shader (GL 4.3 guarantees eight): BOIDS_ERR_LIMIT
 *          at creation otherwise. Deterministic mode gives the same bits as PLAIN's: the
 *          sort by id fixes the order whichever stage took the ranks. */
typedef enum boids_gpu_variant {
    BOIDS_GPU_VARIANT_PLAIN,
    BOIDS_GPU_VARIANT_FUSED,
    BOIDS_GPU_VARIANTS
} boids_gpu_variant;

/* "plain", "fused"; "?" out of range. */
const char *boids_gpu_variant_name(boids_gpu_variant v);
/* The variant named name (as boids_gpu_variant_name writes it); BOIDS_ERR_INPUT listing the
 * names otherwise, or for a NULL name or out. */
boids_status boids_gpu_variant_parse(const char *name, boids_gpu_variant *out, boids_error *err);

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
    boids_gpu_variant variant; /* see boids_gpu_variant */
    /* For tests of the large-N paths on small flocks: 0 keeps the device's limit; otherwise
     * a smaller storage block size in bytes (from it on the state is bound as two blocks; a
     * multiple of 16 and of GL_SHADER_STORAGE_BUFFER_OFFSET_ALIGNMENT) and a smaller count of
     * work groups along x (the per-boid stages then fill a 2-D grid of groups). Results are
     * the same bits either way. */
    size_t test_block_bytes;
    unsigned test_groups_x;
} boids_gpu_options;

/* deterministic 1 (its cost on llvmpipe is measured in the README), check 0, timing 0,
 * log NULL, variant PLAIN, no test limits. */
boids_gpu_options boids_gpu_options_default(void);

/* Creates the GPU backend on gl (ownership passes to the backend, which destroys it, also
 * when creation fails) or, with gl NULL, on the GL 4.3 context current on this thread (made
 * ready with boids_gl_load). opt NULL means the defaults. initial->n is checked against the
 * device limits before its arrays are read: beyond them, BOIDS_ERR_LIMIT naming the limit
 * and the largest N that fits. A flock that boids_cpu_create refuses (NULL, empty, an array
 * missing, a value not finite) is BOIDS_ERR_INPUT. Returns NULL on failure. */
boids_backend *boids_gpu_create(boids_gl *gl, const boids_flock *initial,
                                const boids_gpu_options *opt, boids_error *err);

/* Largest N the current context can hold (the smallest of the limits below), and in why
 * (may be NULL, size >= 160) the limit that decides it: GL_MAX_SHADER_STORAGE_BLOCK_SIZE (the
 * 16-byte state is bound as two blocks, every other per-boid array as one of at most 8 bytes
 * a boid: 16,777,216 boids at llvmpipe's 128 MiB), GL_MAX_COMPUTE_WORK_GROUP_COUNT in x times
 * y times the work group size (the per-boid stages run on a 2-D grid of groups), and indices
 * below 2^31. A 3-D flock binds its positions and velocities as one block each, so in 3-D N
 * is also at most GL_MAX_SHADER_STORAGE_BLOCK_SIZE / 16 (8,388,608 on llvmpipe), which
 * boids_gpu_create checks (BOIDS_ERR_LIMIT). GPU memory is not a limit known in advance: an
 * allocation the device refuses is BOIDS_ERR_LIMIT at upload. Needs a current context. */
size_t boids_gpu_max_count(char *why, size_t size);

/* Bytes of GPU buffers b holds now (0 for NULL or a backend of another kind): per boid 2 x 20
 * (state and id, ping-pong) + 4 (rank in its cell), 20 more in deterministic mode (the sort's
 * input), 20 more once verification's neighbours() ran; per cell 4 (counts) + ~4 (the scan's
 * levels). */
size_t boids_gpu_bytes(const boids_backend *b);

/* Checks, before a program allocates and fills a flock of n boids for the GPU, that the
 * device can hold them: BOIDS_ERR_LIMIT as boids_gpu_create would give it. Up to 2^20 boids
 * (what every GL 4.3 device holds) it answers at once; above, it makes a headless context
 * for the query (BOIDS_ERR_RUNTIME if none can be made) and destroys it. */
boids_status boids_gpu_check_count(size_t n, boids_error *err);

/* 1 if b was made by boids_gpu_create. */
int boids_backend_is_gpu(const boids_backend *b);

/* For drawing without read-back: the GL name of the buffer holding the current state as
 * N vec4 (x, y, vx, vy) in cell order (not id order), and of the N uint ids alongside. The
 * names stay the same until destroy (a larger N reallocates the storage under them); their
 * content is the state after the latest step or upload. A 3-D backend (made from a 3-D
 * flock) keeps two arrays in the same cell order: the state buffer holds N vec4
 * (x, y, z, 0) and the velocity buffer N vec4 (vx, vy, vz, 0) (two RGBA32F arrays, the
 * layout the 3-D viewer draws from); the velocity buffer is 0 in 2-D. */
unsigned boids_gpu_state_buffer(const boids_backend *b);
unsigned boids_gpu_id_buffer(const boids_backend *b);
unsigned boids_gpu_velocity_buffer(const boids_backend *b);

/* The grid the latest step used: cells across, cells down. Cells are at least the vision
 * radius wide and tile the world exactly; when the world holds more cells than
 * BOIDS_GPU_MAX_CELLS (a tiny radius in a huge world) they are made wider (coarser, still
 * correct, slower) instead of failing. With topological neighbours the cells are also
 * capped at 4N + 4096, as the cpu backend's: a boid whose k nearest are far walks every
 * cell. */
void boids_gpu_grid(const boids_backend *b, unsigned *ncx, unsigned *ncy);

/* Some drivers stop a shader loop that runs too long and carry on as if it had finished:
 * Mesa llvmpipe after 65,535 passes of one invocation's loops in all (a SIMD vector's lanes
 * together; the topological walk is one loop, so its count is the longest lane's). A
 * neighbour search that long (a topological one walking a grid of tens of thousands of cells,
 * a metric one over a block of about 65,535 candidates) would then be silently short; the shaders detect it, and the step call
 * or neighbours() that ran it returns BOIDS_ERR_RUNTIME saying so. The state is then not
 * exact, and every later step reports it again until an upload replaces the state. */

/* Topological neighbours: the largest k the GPU supports (the shaders keep each boid's
 * selection in a per-invocation list of this many entries, a size llvmpipe compiles and
 * runs; no NVIDIA compiler has seen it yet); a step or neighbours() with a larger k fails
 * with BOIDS_ERR_LIMIT. */
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

BOIDS_END_DECLS

#endif
