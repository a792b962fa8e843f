/* SPDX-License-Identifier: MIT */
#include "render/render_scene.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <glad/gl.h>

#include "boids/gpu.h"
#include "render/follow.h"

enum {
    ORDER_GROUPS = 64, /* work groups of the order reduction: 64 partial sums to read */
    TIMER_SLOTS = 8    /* frames of timestamp queries in flight */
};

struct scene {
    boids_params p;
    boids_backend *b;
    boids_interact inter; /* the table the backend holds (zero: none, as a new backend's) */
    int gpu;
    int dim; /* the flock's, fixed at creation (a restart keeps it) */
    uint64_t steps;
    /* cpu backends: the flock downloaded after each step and our own GL buffers. */
    boids_flock host;
    boids_flock probe; /* gpu: the flock read back for scene_metrics */
    float *upload;
    unsigned own_state, own_ids;
    size_t own_cap;
    /* 3-D (render.h's layout): own_state holds the positions; the velocities, and the
     * previous step's for banking, have buffers of their own. On gpu own_prev is made from
     * the backend's buffers by prev_pass, through own_by_id (velocities in id order). */
    unsigned own_vel, own_prev, own_by_id;
    size_t prev_cap;
    unsigned prev_prog;
    int prev_pass_u, prev_n_u;
    double order3; /* 3-D cpu backends: the order computed on the host at the latest request */
    /* following: the pass (picking; on gpu the marks), and on the cpu backends the host's
     * marks (one uint a boid, uploaded to own_seen) and its neighbour list */
    follow_pass *follow;
    unsigned own_seen;
    uint32_t *seen_host, *nb_host;
    size_t seen_cap;
    /* order reduction */
    unsigned order_prog, order_buf;
    int order_n, order_dim;
    GLsync order_fence;
    size_t order_count; /* N when the pending reduction was started */
    /* timestamp queries: [slot][0] before the steps, [slot][1] after */
    int timing;
    unsigned queries[TIMER_SLOTS][2];
    int query_used[TIMER_SLOTS];
    int slot;
    double gpu_ms;
};

boids_params *scene_params(scene *s) {
    return &s->p;
}

uint64_t scene_steps(const scene *s) {
    return s->steps;
}

const char *scene_backend_name(const scene *s) {
    return s->b ? boids_backend_name(s->b) : "replay";
}

double scene_gpu_ms(const scene *s) {
    return s->gpu_ms;
}

/* 3-D: positions vec4(x, y, z, 0) into own_state and velocities vec4(vx, vy, vz, 0) into
 * own_vel; after a step the velocities they replace become own_prev (a restart has no
 * previous step: both the same). */
static void mirror3(scene *s, const boids_flock *h, int stepped) {
    size_t n = h->n;
    long bytes = (long)(n * 4 * sizeof(float));
    for (size_t i = 0; i < n; i++) {
        float *u = s->upload + 4 * i;
        u[0] = (float)h->x[i], u[1] = (float)h->y[i], u[2] = (float)h->z[i], u[3] = 0;
    }
    glBindBuffer(GL_ARRAY_BUFFER, s->own_state);
    glBufferSubData(GL_ARRAY_BUFFER, 0, bytes, s->upload);
    for (size_t i = 0; i < n; i++) {
        float *u = s->upload + 4 * i;
        u[0] = (float)h->vx[i], u[1] = (float)h->vy[i], u[2] = (float)h->vz[i], u[3] = 0;
    }
    if (stepped) {
        glBindBuffer(GL_COPY_READ_BUFFER, s->own_vel);
        glBindBuffer(GL_COPY_WRITE_BUFFER, s->own_prev);
        glCopyBufferSubData(GL_COPY_READ_BUFFER, GL_COPY_WRITE_BUFFER, 0, 0, bytes);
    } else {
        glBindBuffer(GL_ARRAY_BUFFER, s->own_prev);
        glBufferSubData(GL_ARRAY_BUFFER, 0, bytes, s->upload);
    }
    glBindBuffer(GL_ARRAY_BUFFER, s->own_vel);
    glBufferSubData(GL_ARRAY_BUFFER, 0, bytes, s->upload);
    glBindBuffer(GL_ARRAY_BUFFER, 0);
}

/* cpu backends and replays: mirror flock h (the host's) into our buffers as float vec4 + ids
 * 0..n-1 (3-D: mirror3's layout). */
static boids_status mirror(scene *s, const boids_flock *h, int stepped, boids_error *err) {
    size_t n = h->n;
    if (n > s->own_cap) {
        float *u = realloc(s->upload, n * 4 * sizeof *u);
        if (!u) return boids_error_set(err, BOIDS_ERR_NOMEM, "out of memory for %zu boids", n);
        s->upload = u;
        uint32_t *ids = malloc(n * sizeof *ids);
        if (!ids) return boids_error_set(err, BOIDS_ERR_NOMEM, "out of memory for %zu boids", n);
        for (size_t i = 0; i < n; i++) ids[i] = (uint32_t)i;
        glBindBuffer(GL_ARRAY_BUFFER, s->own_state);
        glBufferData(GL_ARRAY_BUFFER, (long)(n * 4 * sizeof(float)), NULL, GL_STREAM_DRAW);
        glBindBuffer(GL_ARRAY_BUFFER, s->own_ids);
        glBufferData(GL_ARRAY_BUFFER, (long)(n * sizeof(uint32_t)), ids, GL_STATIC_DRAW);
        free(ids);
        if (h->z) {
            glBindBuffer(GL_ARRAY_BUFFER, s->own_vel);
            glBufferData(GL_ARRAY_BUFFER, (long)(n * 4 * sizeof(float)), NULL, GL_STREAM_DRAW);
            glBindBuffer(GL_ARRAY_BUFFER, s->own_prev);
            glBufferData(GL_ARRAY_BUFFER, (long)(n * 4 * sizeof(float)), NULL, GL_STREAM_DRAW);
        }
        s->own_cap = n;
        stepped = 0; /* new buffers: no previous velocities in them */
    }
    if (h->z) {
        mirror3(s, h, stepped);
        return BOIDS_OK;
    }
    for (size_t i = 0; i < n; i++) {
        s->upload[4 * i + 0] = (float)h->x[i];
        s->upload[4 * i + 1] = (float)h->y[i];
        s->upload[4 * i + 2] = (float)h->vx[i];
        s->upload[4 * i + 3] = (float)h->vy[i];
    }
    glBindBuffer(GL_ARRAY_BUFFER, s->own_state);
    glBufferSubData(GL_ARRAY_BUFFER, 0, (long)(n * 4 * sizeof(float)), s->upload);
    glBindBuffer(GL_ARRAY_BUFFER, 0);
    return BOIDS_OK;
}

/* ---- 3-D on the gpu backend: the previous step's velocities ------------------------------ */

/* own_by_id and own_prev hold n boids (grown, never shrunk). */
static boids_status prev_reserve(scene *s, size_t n, boids_error *err) {
    if (n <= s->prev_cap) return BOIDS_OK;
    const unsigned bufs[2] = {s->own_by_id, s->own_prev};
    boids_status st = render_buffers_alloc(bufs, 2, 16 * n, "the banking", n, err);
    if (st) return st;
    s->prev_cap = n;
    return BOIDS_OK;
}

/* view_prev.comp's pass 0 (before a step: the velocities filed by id) or 1 (after it: the
 * filed ones in the order of the new state); 0 then 1 without a step makes them equal. */
static void prev_pass(scene *s, unsigned pass) {
    size_t n = boids_backend_n(s->b);
    if (n == 0) return;
    glUseProgram(s->prev_prog);
    glUniform1ui(s->prev_pass_u, pass);
    glUniform1ui(s->prev_n_u, (unsigned)n);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, boids_gpu_velocity_buffer(s->b));
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 1, boids_gpu_id_buffer(s->b));
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 2, s->own_by_id);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 3, s->own_prev);
    size_t groups = (n + 255) / 256;
    glDispatchCompute(groups < 4096 ? (unsigned)groups : 4096u, 1, 1);
    glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT | GL_TEXTURE_FETCH_BARRIER_BIT);
}

/* A new gpu state (creation, restart): no previous step, so the previous velocities are the
 * current ones. */
static boids_status prev_reset(scene *s, boids_error *err) {
    if (!s->gpu || s->dim != 3) return BOIDS_OK;
    boids_status st = prev_reserve(s, boids_backend_n(s->b), err);
    if (st) return st;
    prev_pass(s, 0);
    prev_pass(s, 1);
    return BOIDS_OK;
}

/* The gpu backend's program and buffers for the previous velocities (3-D only). */
static boids_status prev_create(scene *s, boids_error *err) {
    static const char *const names[] = {"view_prev.comp"};
    if (!(s->prev_prog = render_program(names, 1, 3, err))) return err->status;
    s->prev_pass_u = glGetUniformLocation(s->prev_prog, "u_pass");
    s->prev_n_u = glGetUniformLocation(s->prev_prog, "u_n");
    glGenBuffers(1, &s->own_by_id);
    glGenBuffers(1, &s->own_prev);
    return prev_reset(s, err);
}

/* What every scene has: its parameters, the order reduction and the timer queries. */
static scene *scene_new(const boids_params *p, int timing, boids_error *err) {
    scene *s = render_calloc(sizeof *s, "out of memory", err);
    if (!s) return NULL;
    s->p = *p;
    s->timing = timing;
    s->gpu_ms = -1;
    static const char *const order_names[] = {"view_order.comp"};
    if (!(s->order_prog = render_program(order_names, 1, 2, err))) {
        scene_destroy(s);
        return NULL;
    }
    s->order_n = glGetUniformLocation(s->order_prog, "u_n");
    s->order_dim = glGetUniformLocation(s->order_prog, "u_dim");
    glGenBuffers(1, &s->order_buf);
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, s->order_buf);
    glBufferData(GL_SHADER_STORAGE_BUFFER, ORDER_GROUPS * 4 * sizeof(float), NULL, GL_DYNAMIC_READ);
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, 0);
    if (s->timing) glGenQueries(2 * TIMER_SLOTS, &s->queries[0][0]);
    return s;
}

/* The buffers the cpu backends and replays upload the host's flock into. */
static void own_buffers(scene *s) {
    glGenBuffers(1, &s->own_state);
    glGenBuffers(1, &s->own_ids);
    glGenBuffers(1, &s->own_vel);
    glGenBuffers(1, &s->own_prev);
}

scene *scene_create(const scene_config *cfg, const boids_params *p, boids_error *err) {
    scene *s = scene_new(p, cfg->timing, err);
    if (!s) return NULL;
    boids_params q = s->p;
    if (app_initial_flock(cfg->opts, &q, &s->host, err)) goto fail;
    s->p.count = q.count;
    s->p.noise_seed = q.noise_seed; /* a loaded state's */
    s->dim = boids_flock_dim(&s->host);
    if (!(s->follow = follow_create(s->dim, err))) goto fail;
    if (!strcmp(cfg->opts->backend, "gpu")) {
        boids_gpu_options o = boids_gpu_options_default();
        o.deterministic = cfg->deterministic;
        if (cfg->opts->gpu_variant >= 0) o.variant = (boids_gpu_variant)cfg->opts->gpu_variant;
        s->b = boids_gpu_create(NULL, &s->host, &o, err);
        s->gpu = 1;
    } else {
        app_opts ao = *cfg->opts;
        ao.inter = NULL; /* scene_set_interact hands it over, for every backend alike */
        s->b = app_backend_create(&ao, &s->p, &s->host, err);
        own_buffers(s);
    }
    if (!s->b || (cfg->opts->inter && scene_set_interact(s, cfg->opts->inter, err))) goto fail;
    if (s->gpu) {
        boids_flock_free(&s->host); /* the GPU holds it now */
        if (s->dim == 3 && prev_create(s, err)) goto fail;
    } else if (mirror(s, &s->host, 0, err)) {
        goto fail;
    }
    return s;
fail:
    scene_destroy(s);
    return NULL;
}

scene *scene_create_replay(const boids_params *p, boids_error *err) {
    scene *s = scene_new(p, 0, err);
    if (!s) return NULL;
    s->dim = p->dim;
    if (boids_flock_alloc_dim(&s->host, (size_t)p->count, p->dim, err) ||
        !(s->follow = follow_create(s->dim, err)))
        goto fail;
    own_buffers(s);
    if (mirror(s, &s->host, 0, err)) goto fail;
    return s;
fail:
    scene_destroy(s);
    return NULL;
}

boids_status scene_show(scene *s, const boids_flock *f, const boids_flock *prev, uint64_t step,
                        boids_error *err) {
    if (s->b || f->n != s->host.n || boids_flock_dim(f) != s->dim)
        return boids_error_set(err, BOIDS_ERR_RUNTIME,
                               "scene_show: a replay's scene of %zu boids in %d-D (got %zu)",
                               s->host.n, s->dim, f->n);
    const int banked = prev && s->dim == 3;
    if (banked && mirror(s, prev, 0, err)) return err->status;
    double *to[6] = {s->host.x, s->host.y, s->host.vx, s->host.vy, s->host.z, s->host.vz};
    const double *from[6] = {f->x, f->y, f->vx, f->vy, f->z, f->vz};
    for (int a = 0; a < (s->dim == 3 ? 6 : 4); a++) memcpy(to[a], from[a], f->n * sizeof(double));
    s->host.step = f->step;
    s->steps = step;
    return mirror(s, &s->host, banked, err);
}

void scene_destroy(scene *s) {
    if (!s) return;
    boids_backend_destroy(s->b);
    boids_flock_free(&s->host);
    boids_flock_free(&s->probe);
    free(s->upload);
    if (s->order_fence) glDeleteSync(s->order_fence);
    if (s->own_state) glDeleteBuffers(1, &s->own_state);
    if (s->own_ids) glDeleteBuffers(1, &s->own_ids);
    if (s->own_vel) glDeleteBuffers(1, &s->own_vel);
    if (s->own_prev) glDeleteBuffers(1, &s->own_prev);
    if (s->own_by_id) glDeleteBuffers(1, &s->own_by_id);
    if (s->own_seen) glDeleteBuffers(1, &s->own_seen);
    if (s->prev_prog) glDeleteProgram(s->prev_prog);
    free(s->seen_host);
    free(s->nb_host);
    if (s->order_buf) glDeleteBuffers(1, &s->order_buf);
    if (s->order_prog) glDeleteProgram(s->order_prog);
    follow_destroy(s->follow);
    if (s->timing) glDeleteQueries(2 * TIMER_SLOTS, &s->queries[0][0]);
    free(s);
}

static boids_status no_simulation(boids_error *err) {
    return boids_error_set(err, BOIDS_ERR_INPUT, "a replay runs no simulation");
}

boids_status scene_restart(scene *s, const boids_params *p, uint64_t seed, boids_error *err) {
    if (!s->b) return no_simulation(err);
    boids_flock f;
    boids_status st = boids_flock_alloc_dim(&f, (size_t)p->count, p->dim, err);
    if (st) return st;
    boids_flock_randomize(&f, p, seed);
    st = boids_backend_upload(s->b, &f, err);
    if (!st) {
        s->p = *p;
        s->steps = 0;
        if (!s->gpu) {
            boids_flock_free(&s->host);
            s->host = f;
            return mirror(s, &s->host, 0, err);
        }
        st = prev_reset(s, err);
    }
    boids_flock_free(&f);
    return st;
}

static int same_point(const boids_point *a, const boids_point *b) {
    return a->on == b->on && a->x == b->x && a->y == b->y && a->radius == b->radius &&
           a->weight == b->weight;
}

/* Field by field: padding bytes may differ between two equal tables. */
static int same_table(const boids_interact *a, const boids_interact *b) {
    if (a->obstacle_count != b->obstacle_count) return 0;
    for (int i = 0; i < BOIDS_MAX_POINTS; i++)
        if (!same_point(&a->predators[i], &b->predators[i]) ||
            !same_point(&a->attractors[i], &b->attractors[i]))
            return 0;
    for (int i = 0; i < a->obstacle_count; i++) {
        const boids_obstacle *p = &a->obstacles[i], *q = &b->obstacles[i];
        if (p->kind != q->kind || p->x0 != q->x0 || p->y0 != q->y0 || p->x1 != q->x1 ||
            p->y1 != q->y1 || p->radius != q->radius)
            return 0;
    }
    return 1;
}

boids_status scene_set_interact(scene *s, const boids_interact *in, boids_error *err) {
    if (same_table(&s->inter, in)) return BOIDS_OK;
    if (!s->b) return s->inter = *in, BOIDS_OK; /* a replay: drawn, never stepped */
    boids_status st = boids_backend_set_interact(s->b, in, err);
    if (!st) s->inter = *in;
    return st;
}

static void read_timers(scene *s) {
    /* Results of frames a few slots back are normally ready; a slot still busy is skipped
     * rather than waited for. */
    int k = s->slot;
    if (!s->query_used[k]) return;
    GLuint ready = 0;
    glGetQueryObjectuiv(s->queries[k][1], GL_QUERY_RESULT_AVAILABLE, &ready);
    if (ready) {
        GLuint64 t0 = 0, t1 = 0;
        glGetQueryObjectui64v(s->queries[k][0], GL_QUERY_RESULT, &t0);
        glGetQueryObjectui64v(s->queries[k][1], GL_QUERY_RESULT, &t1);
        double ms = (double)(t1 - t0) * 1e-6;
        s->gpu_ms = s->gpu_ms < 0 ? ms : 0.9 * s->gpu_ms + 0.1 * ms;
    }
    s->query_used[k] = 0;
}

boids_status scene_step(scene *s, unsigned steps, boids_error *err) {
    if (steps == 0) return BOIDS_OK;
    if (!s->b) return no_simulation(err);
    /* 3-D on gpu: the velocities the steps replace, filed by id (outside the timed steps) */
    const int prev = s->gpu && s->dim == 3;
    if (prev) prev_pass(s, 0);
    if (s->timing) {
        read_timers(s);
        glQueryCounter(s->queries[s->slot][0], GL_TIMESTAMP);
    }
    boids_status st = boids_backend_step(s->b, &s->p, steps, err);
    if (s->timing) {
        glQueryCounter(s->queries[s->slot][1], GL_TIMESTAMP);
        s->query_used[s->slot] = 1;
        s->slot = (s->slot + 1) % TIMER_SLOTS;
    }
    if (st) return st;
    s->steps += steps;
    if (!s->gpu) {
        if ((st = boids_backend_download(s->b, &s->host, err))) return st;
        return mirror(s, &s->host, 1, err);
    }
    /* Our passes and the draw (as attributes, or fetched from buffer textures) read what the
     * compute pipeline wrote. */
    glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT | GL_VERTEX_ATTRIB_ARRAY_BARRIER_BIT |
                    GL_TEXTURE_FETCH_BARRIER_BIT);
    if (prev) prev_pass(s, 1);
    return BOIDS_OK;
}

void scene_buffers(const scene *s, render_flock *f) {
    if (s->gpu) {
        f->state_buf = boids_gpu_state_buffer(s->b);
        f->id_buf = boids_gpu_id_buffer(s->b);
        f->vel_buf = s->dim == 3 ? boids_gpu_velocity_buffer(s->b) : 0;
    } else {
        f->state_buf = s->own_state;
        f->id_buf = s->own_ids;
        f->vel_buf = s->dim == 3 ? s->own_vel : 0;
    }
    f->prev_vel_buf = s->dim == 3 ? s->own_prev : 0;
    f->n = s->gpu ? boids_backend_n(s->b) : s->host.n;
}

/* The state the follow passes read: the backend's buffers, or ours with ids 0..n-1. */
static follow_state state_of(const scene *s) {
    render_flock f;
    scene_buffers(s, &f);
    follow_state st = {f.state_buf, f.vel_buf, f.id_buf, f.n};
    return st;
}

int scene_pick(scene *s, const float from[3], const float dir[3], uint32_t *id) {
    follow_state st = state_of(s);
    return follow_pick(s->follow, &st, &s->p, from, dir, id);
}

/* cpu backends: the host's marks of boid id, uploaded into own_seen (one uint a boid). */
static int follow_on_host(scene *s, uint32_t id, float pos[3], float vel[3], unsigned *count) {
    const boids_flock *h = &s->host;
    if (id >= h->n) return 0;
    if (h->n > s->seen_cap) {
        uint32_t *a = realloc(s->seen_host, h->n * sizeof *a);
        if (a) s->seen_host = a;
        uint32_t *b = a ? realloc(s->nb_host, h->n * sizeof *b) : NULL;
        if (!b) return 0;
        s->nb_host = b;
        if (!s->own_seen) glGenBuffers(1, &s->own_seen);
        glBindBuffer(GL_ARRAY_BUFFER, s->own_seen);
        glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)(h->n * 4), NULL, GL_STREAM_DRAW);
        glBindBuffer(GL_ARRAY_BUFFER, 0);
        s->seen_cap = h->n;
    }
    const int single = strcmp(scene_backend_name(s), "cpu-ref") != 0; /* a replay: as cpu */
    size_t m = follow_host(h, &s->p, id, single, s->nb_host);
    memset(s->seen_host, 0, h->n * sizeof *s->seen_host);
    for (size_t q = 0; q < m; q++) s->seen_host[s->nb_host[q]] = 1;
    glBindBuffer(GL_ARRAY_BUFFER, s->own_seen);
    glBufferSubData(GL_ARRAY_BUFFER, 0, (GLsizeiptr)(h->n * 4), s->seen_host);
    glBindBuffer(GL_ARRAY_BUFFER, 0);
    const double p[3] = {h->x[id], h->y[id], h->z ? h->z[id] : 0},
                 v[3] = {h->vx[id], h->vy[id], h->vz ? h->vz[id] : 0};
    for (int c = 0; c < 3; c++) pos[c] = (float)p[c], vel[c] = (float)v[c];
    *count = (unsigned)m;
    return 1;
}

int scene_follow(scene *s, uint32_t id, float pos[3], float vel[3], unsigned *count, size_t *slot) {
    if (!s->gpu) {
        *slot = id;
        return follow_on_host(s, id, pos, vel, count);
    }
    follow_state st = state_of(s);
    follow_result r;
    boids_error err;
    if (follow_run(s->follow, &st, &s->p, id, &r, &err) || !r.found) return 0;
    memcpy(pos, r.pos, sizeof r.pos);
    memcpy(vel, r.vel, sizeof r.vel);
    *count = r.count;
    *slot = r.slot;
    return 1;
}

unsigned scene_follow_marks(const scene *s) {
    return s->gpu ? follow_seen_buffer(s->follow) : s->own_seen;
}

const boids_flock *scene_host(const scene *s) {
    return s->gpu ? NULL : &s->host;
}

void scene_order_request(scene *s) {
    if (s->host.z) {
        /* 3-D on the cpu backends: the host has the flock. */
        s->order3 = boids_order(&s->host);
        return;
    }
    if (s->order_fence) return; /* the previous one is still running */
    render_flock f;
    scene_buffers(s, &f);
    const unsigned state = s->dim == 3 ? f.vel_buf : f.state_buf;
    const size_t n = f.n;
    glUseProgram(s->order_prog);
    glUniform1ui(s->order_n, (unsigned)n);
    glUniform1ui(s->order_dim, (unsigned)s->dim);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, state);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 1, s->order_buf);
    glDispatchCompute(ORDER_GROUPS, 1, 1);
    glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
    s->order_fence = glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
    s->order_count = n;
}

int scene_order_poll(scene *s, int wait, double *order) {
    if (s->host.z) {
        *order = s->order3;
        return 1;
    }
    if (!s->order_fence) return 0;
    GLenum r =
        glClientWaitSync(s->order_fence, GL_SYNC_FLUSH_COMMANDS_BIT, wait ? 10000000000ull : 0);
    if (r != GL_ALREADY_SIGNALED && r != GL_CONDITION_SATISFIED) return 0;
    glDeleteSync(s->order_fence);
    s->order_fence = NULL;
    float part[ORDER_GROUPS * 4];
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, s->order_buf);
    glGetBufferSubData(GL_SHADER_STORAGE_BUFFER, 0, sizeof part, part);
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, 0);
    double ux = 0, uy = 0, uz = 0;
    for (int i = 0; i < ORDER_GROUPS; i++) {
        ux += part[4 * i];
        uy += part[4 * i + 1];
        uz += part[4 * i + 2];
    }
    *order = s->order_count ? sqrt(ux * ux + uy * uy + uz * uz) / (double)s->order_count : 0;
    return 1;
}

boids_status scene_mean_distance(scene *s, double x, double y, double *mean, boids_error *err) {
    boids_flock f = {0};
    if (s->gpu) {
        boids_status st = boids_flock_alloc_dim(&f, boids_backend_n(s->b), s->p.dim, err);
        if (st) return st;
        if ((st = boids_backend_download(s->b, &f, err))) {
            boids_flock_free(&f);
            return st;
        }
    }
    const boids_flock *h = s->gpu ? &f : &s->host; /* the cpu backends': the latest step's */
    int wrap = s->p.boundary == BOIDS_BOUNDARY_WRAP;
    double sum = 0;
    for (size_t i = 0; i < h->n; i++) {
        double dx = h->x[i] - x, dy = h->y[i] - y;
        if (wrap) {
            if (dx > s->p.width / 2) dx -= s->p.width;
            if (dx < -s->p.width / 2) dx += s->p.width;
            if (dy > s->p.height / 2) dy -= s->p.height;
            if (dy < -s->p.height / 2) dy += s->p.height;
        }
        sum += sqrt(dx * dx + dy * dy);
    }
    *mean = sum / (double)h->n;
    boids_flock_free(&f);
    return BOIDS_OK;
}

/* The flock as the host can read it: the cpu backends' latest step, or the gpu backend's
 * read back into the scene's own buffer. */
static const boids_flock *readable(scene *s, boids_error *err) {
    if (!s->gpu) return &s->host;
    if (s->probe.n != boids_backend_n(s->b)) {
        boids_flock_free(&s->probe);
        if (boids_flock_alloc_dim(&s->probe, boids_backend_n(s->b), s->dim, err)) return NULL;
    }
    return boids_backend_download(s->b, &s->probe, err) ? NULL : &s->probe;
}

boids_status scene_metrics(scene *s, boids_metrics *m, boids_error *err) {
    const boids_flock *f = readable(s, err);
    return f ? boids_metrics_compute(f, &s->p, m, err) : err->status;
}

boids_status scene_flock_extent(scene *s, float centre[3], float *radius, boids_error *err) {
    const boids_flock *f = readable(s, err);
    if (!f) return err->status;
    const double *pos[3] = {f->x, f->y, s->dim == 3 ? f->z : NULL};
    const double side[3] = {s->p.width, s->p.height, s->p.depth};
    const int wrap = s->p.boundary == BOIDS_BOUNDARY_WRAP;
    double sq = 0;
    for (int d = 0; d < 3; d++) {
        centre[d] = 0;
        if (!pos[d] || !f->n) continue;
        /* wrapping: the mean of the positions as angles about the axis' circle */
        double sx = 0, sy = 0, k = 2 * M_PI / side[d];
        for (size_t i = 0; i < f->n; i++) {
            if (wrap) {
                sx += cos(pos[d][i] * k), sy += sin(pos[d][i] * k);
            } else {
                sx += pos[d][i];
            }
        }
        double c = wrap ? atan2(sy, sx) / k : sx / (double)f->n;
        if (wrap && c < 0) c += side[d];
        for (size_t i = 0; i < f->n; i++) {
            double o = pos[d][i] - c;
            if (wrap) o -= side[d] * floor(o / side[d] + 0.5);
            sq += o * o;
        }
        centre[d] = (float)c;
    }
    *radius = f->n ? (float)sqrt(sq / (double)f->n) : 0;
    return BOIDS_OK;
}
