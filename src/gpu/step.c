/* SPDX-License-Identifier: MIT */
/* The step: the grid build (grid.c), then the steer dispatch, the rules in compute shaders
 * (shaders/steer.comp, or steer_topo.comp, or the fused variant's steer_fused.comp), repeated
 * for the steps asked; the stages' timing, and the loop-cut flag by which the shaders report
 * a neighbour search the driver stopped. */
#include "clock.h"
#include "pipeline.h"

/* ---- stages ------------------------------------------------------------------------------ */

static double now_ms(void) {
    return 1e3 * mono_seconds();
}

/* The fences sit inside the query bracket so that the CPU-clock time of a stage leaves out
 * the query calls themselves (llvmpipe spends ~0.15 ms in them); the GPU is idle across a
 * fence, so the query's time is unchanged. */
void gpu_stage_begin(gpu_backend *g, boids_gpu_stage s) {
    if (!g->opt.timing) return;
    glBeginQuery(GL_TIME_ELAPSED, g->queries[s]);
    glFinish();
    g->stage_t0 = now_ms();
}

boids_status gpu_stage_end(gpu_backend *g, boids_gpu_stage s, boids_error *err) {
    glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT | GL_BUFFER_UPDATE_BARRIER_BIT);
    if (g->opt.timing) {
        glFinish();
        g->timing.wall_ms[s] += now_ms() - g->stage_t0;
        glEndQuery(GL_TIME_ELAPSED);
    }
    return gpu_check(g, boids_gpu_stage_name(s), err);
}

static void collect_timing(gpu_backend *g) {
    if (!g->opt.timing) return;
    for (int s = 0; s < BOIDS_GPU_STAGES; s++) {
        if (s == BOIDS_GPU_STAGE_SORT && !g->opt.deterministic) continue;
        GLuint64 ns = 0;
        glGetQueryObjectui64v(g->queries[s], GL_QUERY_RESULT, &ns);
        g->timing.ms[s] += (double)ns * 1e-6;
    }
    g->timing.steps++;
}

/* One invocation per boid on a 2-D grid of work groups, rows of at most max_groups_x (the
 * shaders' boid_index); the last row's extra invocations return at once. None without boids
 * (a rank's tile may hold none). */
void gpu_dispatch_boids(const gpu_backend *g, GLuint prog) {
    GLuint total = gpu_groups(g->base.n, BOIDS_GPU_WG);
    if (total == 0) return;
    GLuint gx = total < g->max_groups_x ? total : g->max_groups_x;
    glUseProgram(prog);
    glDispatchCompute(gx, (total + gx - 1) / gx, 1);
}

/* ---- the loop-cut flag ------------------------------------------------------------------ */

void gpu_clear_cut(const gpu_backend *g) {
    const GLuint zero = 0;
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, g->cut);
    glBufferSubData(GL_SHADER_STORAGE_BUFFER, 0, sizeof zero, &zero);
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, 0);
}

/* After the dispatches of one step call or neighbours query (`what`): one 4-byte read of the
 * flag. Once set it stays set until the next upload, because every later state descends
 * from the inexact one. */
boids_status gpu_check_cut(gpu_backend *g, const char *what, boids_error *err) {
    GLuint bits = 0;
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, g->cut);
    glGetBufferSubData(GL_SHADER_STORAGE_BUFFER, 0, sizeof bits, &bits);
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, 0);
    if (bits & BOIDS_GPU_CUT_TOPO)
        return boids_error_set(
            err, BOIDS_ERR_RUNTIME,
            "GPU %s: the GPU driver stopped the topological neighbour search before it "
            "finished (llvmpipe stops a shader invocation's loops after 65,535 iterations; a "
            "boid far from its k nearest searches that many empty cells), so the results are "
            "not exact; use the cpu backend, or a denser world",
            what);
    if (bits & BOIDS_GPU_CUT_METRIC)
        return boids_error_set(
            err, BOIDS_ERR_RUNTIME,
            "GPU %s: the GPU driver stopped the neighbour search before it finished (llvmpipe "
            "stops a shader invocation's loops after 65,535 iterations; a boid had about that "
            "many candidates in the cells around it), so the results are not exact; use the "
            "cpu backend, or a sparser flock (a larger world or a smaller vision_radius)",
            what);
    return BOIDS_OK;
}

/* ---- the step ----------------------------------------------------------------------------- */

boids_status gpu_step(boids_backend *b, const boids_params *p, unsigned steps, boids_error *err) {
    gpu_backend *g = as_gpu(b);
    boids_status st = gpu_set_params(g, p, err);
    if (st != BOIDS_OK) return st;
    const int topo = p->neighbours == BOIDS_NEIGHBOURS_TOPOLOGICAL;
    const int species = p->species > 1; /* its own programs (either neighbours), not fused */
    if (species && (st = gpu_build_species(g, topo, err))) return st;
    for (unsigned s = 0; s < steps; s++, g->t++) {
        if (s > 0) { /* the noise's step index; gpu_set_params wrote the first */
            glBindBuffer(GL_UNIFORM_BUFFER, g->ubo);
            glBufferSubData(GL_UNIFORM_BUFFER, (GLintptr)offsetof(boids_gpu_params, step),
                            sizeof g->t, &g->t);
            glBindBuffer(GL_UNIFORM_BUFFER, 0);
        }
        if ((st = gpu_sort_by_cell(g, err))) return st;
        if (g->tiled && (st = gpu_check_window(g, err))) return st;
        /* The fused steer counts into the counts the scan has consumed: clear them first
         * (timed with the clear stage). */
        const int fused =
            g->opt.variant == BOIDS_GPU_VARIANT_FUSED && !topo && !g->tiled && !species;
        g->primed = 0;
        if (fused && (st = gpu_clear_counts(g, err))) return st;
        gpu_stage_begin(g, BOIDS_GPU_STAGE_STEER);
        gpu_bind_src(g, 1);
        gpu_bind_dst(g, 0);
        gpu_ssbo(BOIDS_GPU_B_LOOP_CUT, g->cut);
        if (fused) {
            gpu_ssbo(BOIDS_GPU_B_NEXT_RANK, g->rank);
            gpu_ssbo_range(BOIDS_GPU_B_NEXT_COUNTS, g->counts, 0, g->ncells + 1);
        }
        gpu_dispatch_boids(g,
                           gpu_prog(g, fused     ? P_STEER_FUSED
                                       : species ? (topo ? P_STEER_TOPO_SPECIES : P_STEER_SPECIES)
                                       : topo    ? P_STEER_TOPO
                                                 : P_STEER));
        if ((st = gpu_stage_end(g, BOIDS_GPU_STAGE_STEER, err))) return st;
        g->primed = fused;
        collect_timing(g);
    }
    if (steps && (st = gpu_check_cut(g, "step", err))) return st;
    return g->res_on && steps ? gpu_tile_keep(g, err) : BOIDS_OK;
}
