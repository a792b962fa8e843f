/* boids-bench: a fallback for GL drivers whose GL_TIME_ELAPSED queries do not time compute
 * work.
 *
 * Mesa's llvmpipe runs compute dispatches on CPU threads and answers time-elapsed queries
 * with about 1 ns whatever the work, so the GPU backend's per-stage timings read zero there.
 * The backend brackets each stage with glBeginQuery / glEndQuery and reads the results with
 * glGetQueryObjectui64v, all through glad's function pointers. With the fallback on, those
 * three pointers are swapped for versions that fence the stage with glFinish and time it
 * with the CPU's monotonic clock, and hand that time back as the query's result: the
 * backend's own accounting is unchanged and only the source of the numbers differs. The
 * fences cost a pipeline drain per stage, which is why this is only used when the real
 * queries are implausible (see measure.c), and why a point's wall time never comes from a
 * run with it on. */
#include <string.h>
#include <time.h>

#include <glad/gl.h>

#include "bench.h"

enum { MAX_QUERIES = 64 };

static PFNGLBEGINQUERYPROC real_begin;
static PFNGLENDQUERYPROC real_end;
static PFNGLGETQUERYOBJECTUI64VPROC real_get;

/* The latest fenced duration of each query name used as a time-elapsed query. */
static struct {
    GLuint id;
    GLuint64 ns;
} results[MAX_QUERIES];
static int nresults;
static GLuint open_id; /* the query between begin and end, 0 if none */
static struct timespec open_t0;

static GLuint64 elapsed_ns(const struct timespec *t0) {
    struct timespec t1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    return (GLuint64)((t1.tv_sec - t0->tv_sec) * 1000000000LL + (t1.tv_nsec - t0->tv_nsec));
}

static int slot_of(GLuint id, int create) {
    for (int i = 0; i < nresults; i++)
        if (results[i].id == id) return i;
    if (!create || nresults == MAX_QUERIES) return -1;
    results[nresults].id = id;
    results[nresults].ns = 0;
    return nresults++;
}

static void GLAD_API_PTR fenced_begin(GLenum target, GLuint id) {
    if (target != GL_TIME_ELAPSED || slot_of(id, 1) < 0) {
        real_begin(target, id);
        return;
    }
    glFinish();
    open_id = id;
    clock_gettime(CLOCK_MONOTONIC, &open_t0);
}

static void GLAD_API_PTR fenced_end(GLenum target) {
    if (target != GL_TIME_ELAPSED || !open_id) {
        real_end(target);
        return;
    }
    glFinish();
    results[slot_of(open_id, 0)].ns = elapsed_ns(&open_t0);
    open_id = 0;
}

static void GLAD_API_PTR fenced_get(GLuint id, GLenum pname, GLuint64 *params) {
    int s = slot_of(id, 0);
    if (s < 0 || pname != GL_QUERY_RESULT) {
        real_get(id, pname, params);
        return;
    }
    *params = results[s].ns;
}

void bench_fenced_stage_timer(int on) {
    if (on && !real_begin) {
        real_begin = glad_glBeginQuery;
        real_end = glad_glEndQuery;
        real_get = glad_glGetQueryObjectui64v;
        nresults = 0;
        open_id = 0;
        glad_glBeginQuery = fenced_begin;
        glad_glEndQuery = fenced_end;
        glad_glGetQueryObjectui64v = fenced_get;
    } else if (!on && real_begin) {
        glad_glBeginQuery = real_begin;
        glad_glEndQuery = real_end;
        glad_glGetQueryObjectui64v = real_get;
        real_begin = NULL;
        real_end = NULL;
        real_get = NULL;
    }
}
