/* SPDX-License-Identifier: MIT */
/* cpu: the resident tile (tile.h's resident calls, over the dimension D; included after
 * cpu_grid.c by cpu_grid_parts.h, whose backend struct and state buffers it uses).
 *
 * The state holds the tile's owned boids in slots [0, nown) of cur, in the order the last
 * step left them (its snapshot's, which is the grid's cell order), with their GLOBAL ids in
 * cur.id: so the cells order their boids by global id, the Vicsek noise and the topological
 * ties draw on the global ids, and no map from local ids is needed (c->gid stays NULL). A
 * step changes only what moved:
 *   - tile_count: the row of every owned boid, kept in cells.cell_of until the split;
 *   - tile_split: a boid whose row left the tile is given back and its slot takes the last
 *     owned boid (the order within the state is free: the grid build sorts it);
 *   - tile_add, tile_halo: the arrivals join the owned boids, the halo's records follow them;
 *   - the step (cpu_grid.c, tile mode with the window of tile_halo): steers the steered rows'
 *     cells, which hold exactly the owned boids, contiguous in the snapshot; they are moved to
 *     the front of cur (resident_keep) and the halo is dropped.
 * Each pass runs on the threads the step runs on. */

/* The threads of a resident pass over n boids: those of the steps (thread_pick's choice). */
static int resident_threads(const cpu_grid *c, size_t n) {
    const int all = c->threads > 1 && n >= PARALLEL_MIN && (c->h.fixed_threads || c->pick.all);
    return all ? c->threads : 1;
}

enum { REC = 4 + 8 * D }; /* BOIDS_TILE_REC(D) */

static inline void rec_write(unsigned char *r, const state *s, size_t i) {
    memcpy(r, &s->id[i], 4);
    for (int a = 0; a < D; a++) {
        memcpy(r + 4 + 4 * a, &s->p[a][i], 4);
        memcpy(r + 4 + 4 * (D + a), &s->v[a][i], 4);
    }
}

static inline void rec_read(const unsigned char *r, const state *s, size_t i) {
    memcpy(&s->id[i], r, 4);
    for (int a = 0; a < D; a++) {
        memcpy(&s->p[a][i], r + 4 + 4 * a, 4);
        memcpy(&s->v[a][i], r + 4 + 4 * (D + a), 4);
    }
}

static inline void slot_move(const state *s, size_t dst, size_t src) {
    for (int a = 0; a < D; a++) s->p[a][dst] = s->p[a][src], s->v[a][dst] = s->v[a][src];
    s->id[dst] = s->id[src];
}

/* Room for need boids, keeping the state's first b->n slots. A step swaps the ids of cur and
 * snap, so cur's ids may live in snap's block: both old blocks are freed after the copy. */
static boids_status resident_reserve(cpu_grid *c, size_t need, boids_error *err) {
    if (need <= c->cap) return BOIDS_OK;
    state old[2] = {c->cur, c->snap};
    memset(&c->cur, 0, sizeof c->cur);
    memset(&c->snap, 0, sizeof c->snap);
    boids_status st = reserve(c, need, 1, err);
    if (st) {
        c->cur = old[0], c->snap = old[1];
        return st;
    }
    for (int a = 0; a < D; a++) {
        memcpy(c->cur.p[a], old[0].p[a], c->h.base.n * sizeof(float));
        memcpy(c->cur.v[a], old[0].v[a], c->h.base.n * sizeof(float));
    }
    memcpy(c->cur.id, old[0].id, c->h.base.n * sizeof(uint32_t));
    state_free(&old[0]);
    state_free(&old[1]);
    return BOIDS_OK;
}

/* Makes the records buffer hold n records and the rows buffer n rows. A buffer made for the
 * whole tile (tile_owned, at a sample) is given back once a step's few moves need it: it
 * would otherwise stay as large as the tile through every later step. */
static boids_status resident_out(cpu_grid *c, size_t n, int rows, boids_error *err) {
    grid_resident *r = &c->res;
    enum { KEEP = 1 << 16 }; /* records: below this a buffer is kept whatever its use */
    if (n > r->out_cap || (r->out_cap > KEEP && n < r->out_cap / 4)) {
        const size_t cap = (rows ? n + n / 2 : n) + 16; /* a step's moves vary: some room */
        unsigned char *o = realloc(r->out, cap * REC);
        if (!o) return boids_error_set(err, BOIDS_ERR_NOMEM, "cpu: out of memory for %zu boids", n);
        r->out = o;
        r->out_cap = cap;
    }
    if (rows && n > r->row_cap) {
        uint32_t *o = realloc(r->row, n * sizeof *o);
        if (!o) return boids_error_set(err, BOIDS_ERR_NOMEM, "cpu: out of memory for %zu rows", n);
        r->row = o;
        r->row_cap = n;
    }
    return BOIDS_OK;
}

static boids_status tile_start(boids_backend *b, const unsigned char *rec, size_t m,
                               size_t n_global, uint32_t step, boids_error *err) {
    cpu_grid *c = (cpu_grid *)b;
    b->n = 0;
    boids_status st = resident_reserve(c, m ? m : 1, err);
    if (st) return st;
    for (size_t i = 0; i < m; i++) rec_read(rec + i * REC, &c->cur, i);
    b->n = c->res.nown = m;
    c->res.n_global = n_global;
    c->res.on = 1;
    c->tiled = 0; /* the window comes with the halo */
    c->t = step;
    free(c->gid); /* the ids held are the global ones */
    c->gid = NULL;
    c->gid_cap = 0;
    return BOIDS_OK;
}

static void tile_box(boids_backend *b, grid_boxd *box) {
    cpu_grid *c = (cpu_grid *)b;
    RULES_FN(grid_box_add)(&c->cur, c->res.nown, resident_threads(c, c->res.nown), box);
}

static boids_status tile_count(boids_backend *b, const grid_geomd *g, uint64_t *count,
                               boids_error *err) {
    (void)err;
    cpu_grid *c = (cpu_grid *)b;
    const long n = (long)c->res.nown;
    const int threads = resident_threads(c, c->res.nown);
    const float *const x = c->cur.p[D - 1];
    uint32_t *const row = c->cells.cell_of;
    const float o = (float)g->o[D - 1], s = g->s[D - 1];
    const uint32_t nrows = g->n[D - 1];
#pragma omp parallel for schedule(static) num_threads(threads) if (threads > 1)
    for (long i = 0; i < n; i++) row[i] = grid_cell_coord(x[i] - o, s, nrows);
    for (long i = 0; i < n; i++) count[row[i]]++;
    return BOIDS_OK;
}

static boids_status tile_split(boids_backend *b, uint32_t lo, uint32_t hi, boids_tile_moves *out,
                               boids_error *err) {
    cpu_grid *c = (cpu_grid *)b;
    uint32_t *const row = c->cells.cell_of;
    const state s = c->cur;
    size_t n = c->res.nown, nleave = 0, ne[2] = {0, 0};
    const uint32_t last = hi - 1;
    for (size_t i = 0; i < n; i++) {
        nleave += row[i] < lo || row[i] >= hi;
        ne[0] += row[i] == lo;
        ne[1] += row[i] == last && lo != last;
    }
    boids_status st = resident_out(c, nleave + ne[0] + ne[1], 1, err);
    if (st) return st;
    unsigned char *const leave = c->res.out, *const e0 = leave + nleave * REC,
                         *const e1 = e0 + ne[0] * REC;
    size_t l = 0, k0 = 0, k1 = 0;
    for (size_t i = 0; i < n;) {
        const uint32_t r = row[i];
        if (r >= lo && r < hi) {
            if (r == lo) rec_write(e0 + k0++ * REC, &s, i);
            if (r == last && lo != last) rec_write(e1 + k1++ * REC, &s, i);
            i++;
            continue;
        }
        c->res.row[l] = r;
        rec_write(leave + l++ * REC, &s, i);
        if (i != --n) { /* the last owned boid takes the hole; it is looked at next */
            slot_move(&s, i, n);
            row[i] = row[n];
        }
    }
    b->n = c->res.nown = n;
    *out = (boids_tile_moves){
        leave, c->res.row, nleave, {e0, lo != last ? e1 : e0}, {ne[0], lo != last ? ne[1] : ne[0]}};
    return BOIDS_OK;
}

/* Appends m records after the first b->n slots. */
static boids_status resident_append(cpu_grid *c, const unsigned char *rec, size_t m,
                                    boids_error *err) {
    const size_t n = c->h.base.n;
    boids_status st = resident_reserve(c, n + m, err);
    if (st) return st;
    for (size_t i = 0; i < m; i++) rec_read(rec + i * REC, &c->cur, n + i);
    c->h.base.n = n + m;
    return BOIDS_OK;
}

static boids_status tile_add(boids_backend *b, const unsigned char *rec, size_t m,
                             boids_error *err) {
    cpu_grid *c = (cpu_grid *)b;
    b->n = c->res.nown; /* a halo not stepped is dropped */
    boids_status st = resident_append(c, rec, m, err);
    if (!st) c->res.nown = b->n;
    return st;
}

static boids_status tile_halo(boids_backend *b, const boids_tile *t, const unsigned char *rec,
                              size_t m, boids_error *err) {
    cpu_grid *c = (cpu_grid *)b;
    b->n = c->res.nown; /* this halo replaces the last */
    boids_status st = resident_append(c, rec, m, err);
    if (st) return st;
    c->tile = *t;
    c->tile.gid = NULL;
    c->tiled = 1;
    return BOIDS_OK;
}

static boids_status tile_owned(boids_backend *b, boids_tile_keep keep, const void *ctx,
                               const unsigned char **rec, size_t *m, boids_error *err) {
    cpu_grid *c = (cpu_grid *)b;
    const size_t n = c->res.nown;
    size_t k = n;
    if (keep) { /* counted first: the buffer holds the kept boids, not the tile */
        k = 0;
        for (size_t i = 0; i < n; i++) k += keep(ctx, c->cur.id[i]) != 0;
    }
    boids_status st = resident_out(c, k, 0, err);
    if (st) return st;
    for (size_t i = 0, j = 0; i < n; i++)
        if (!keep || keep(ctx, c->cur.id[i])) rec_write(c->res.out + j++ * REC, &c->cur, i);
    *rec = c->res.out;
    *m = k;
    return BOIDS_OK;
}

/* After a resident step: the steered rows' boids, snapshot slots [keep_b, keep_e) of cur,
 * are the owned ones (no other boid is steered, no owned boid is in a halo row), moved to
 * the front; the halo is dropped. */
static boids_status resident_keep(cpu_grid *c, boids_error *err) {
    grid_resident *r = &c->res;
    const size_t b = r->keep_b, n = r->keep_e - r->keep_b;
    if (n != r->nown)
        return boids_error_set(err, BOIDS_ERR_INPUT,
                               "cpu: the tile's steered rows hold %zu boids, but it owns %zu: an "
                               "owned boid is in a halo row or a halo boid in a steered row",
                               n, r->nown);
    if (b > 0) {
        for (int a = 0; a < D; a++) {
            memmove(c->cur.p[a], c->cur.p[a] + b, n * sizeof(float));
            memmove(c->cur.v[a], c->cur.v[a] + b, n * sizeof(float));
        }
        memmove(c->cur.id, c->cur.id + b, n * sizeof(uint32_t));
    }
    c->h.base.n = n;
    return BOIDS_OK;
}

static void resident_free(grid_resident *r) {
    free(r->out);
    free(r->row);
}

static const boids_backend_ops ops = {.name = "cpu",
                                      .destroy = destroy,
                                      .step = step,
                                      .download = download,
                                      .upload = upload,
                                      .neighbours = neighbours,
                                      .tile_geom = tile_geom,
                                      .upload_tile = upload_tile,
                                      .tile_start = tile_start,
                                      .tile_box = tile_box,
                                      .tile_count = tile_count,
                                      .tile_split = tile_split,
                                      .tile_add = tile_add,
                                      .tile_halo = tile_halo,
                                      .tile_owned = tile_owned};
