/* SPDX-License-Identifier: MIT */
/* cpu: the resident tile (tile.h's resident calls, over the dimension D; included after
 * cpu_grid.c by cpu_grid_parts.h, whose backend struct and state buffers it uses).
 *
 * The state holds the tile's owned boids in slots [0, nown) of cur, in the order the last
 * step left them (its snapshot's, which is the grid's cell order), with their GLOBAL ids in
 * cur.id: so the cells order their boids by global id, the Vicsek noise and the topological
 * ties draw on the global ids, and no map from local ids is needed (c->gid stays NULL). A
 * step changes only what moved:
 *   - tile_count: the cell of every owned boid in the whole flock's grid, in cells.cell_of,
 *     counted by rows; the split reads the cells there and the step's tile cells too;
 *   - tile_split: a boid whose key left the tile's keys (whole rows, or a tile that ends
 *     within a row or a cell) is given back and its slot takes the last owned boid (the order
 * within the state is free: the grid build sorts it);
 *   - tile_add, tile_halo: the arrivals join the owned boids, the halo's records follow them;
 *   - the step (cpu_grid.c, tile mode with the window of tile_halo): steers the steered
 *     cells, which hold exactly the owned boids, contiguous in the snapshot; they are moved to
 *     the front of cur (resident_keep) and the halo is dropped.
 * Each pass runs on the threads the step runs on. */

/* The threads of a resident pass over n boids: those of the steps (thread_pick's choice). */
static int resident_threads(const cpu_grid *c, size_t n) {
    const int all = c->threads > 1 && n >= PARALLEL_MIN && (c->h.fixed_threads || c->pick.all);
    return all ? c->threads : 1;
}

enum { TILE_REC = 4 + 8 * D }; /* BOIDS_TILE_REC(D) */

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
    state old = c->cur;
    snapshot old_snap = c->snap;
    memset(&c->cur, 0, sizeof c->cur);
    memset(&c->snap, 0, sizeof c->snap);
    boids_status st = reserve(c, need, 1, err);
    if (st) {
        c->cur = old, c->snap = old_snap;
        return st;
    }
    c->res.known = c->res.next = 0; /* a new cell_of */
    for (int a = 0; a < D; a++) {
        memcpy(c->cur.p[a], old.p[a], c->h.base.n * sizeof(float));
        memcpy(c->cur.v[a], old.v[a], c->h.base.n * sizeof(float));
    }
    memcpy(c->cur.id, old.id, c->h.base.n * sizeof(uint32_t));
    states_free(&old, &old_snap);
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
        unsigned char *o = realloc(r->out, cap * TILE_REC);
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
    for (size_t i = 0; i < m; i++) rec_read(rec + i * TILE_REC, &c->cur, i);
    b->n = c->res.nown = m;
    c->res.known = c->res.next = 0;
    c->res.sq_n = 0; /* no step of this tile counted its candidates yet */
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

/* After a resident step's grid build: for the next tile_count's cost model (tile.h), the
 * candidates of each steered row, the sum over its steered cells (all of the row's but at a
 * tile's ends within a row or cell) of the steered boids a cell holds times the
 * boids of its 3^D block, from the snapshot's cell starts (the boids before this step's
 * move; the halo rows' are there), by global row, in the whole flock's grid. The block's
 * sums are taken one axis at a time over a row's plane of cells. An estimate: without room
 * for it, the next count gives none. */
static void resident_candidates(cpu_grid *c, const geom *g, const grid_win *w) {
    grid_resident *r = &c->res;
    const uint32_t rows = c->tile.steer_hi - c->tile.steer_lo, wrows = g->n[D - 1];
    const size_t plane = g->ncells / wrows;
    r->sq_n = 0;
    if (rows > r->sq_cap) {
        uint64_t *q = realloc(r->sq, rows * sizeof *q);
        if (!q) return;
        r->sq = q;
        r->sq_cap = rows;
    }
    if (2 * plane > r->blk_cap) {
        uint32_t *q = realloc(r->blk, 2 * plane * sizeof *q);
        if (!q) return;
        r->blk = q;
        r->blk_cap = 2 * plane;
    }
    const uint32_t *const start = c->cells.start;
    size_t wc0, wc1;
    uint32_t s0, s1; /* the steered slots: at a tile's ends within a cell, part of it */
    steered_slots(c, g, &wc0, &wc1, &s0, &s1);
    uint32_t *a = r->blk, *b = r->blk + plane;
    for (uint32_t i = 0; i < rows; i++) {
        const uint32_t y = c->tile.steer_lo + i; /* the window's row */
        const uint32_t *const at = start + (size_t)y * plane;
        uint32_t lo, hi; /* the rows beside it that the window has (all of them when whole) */
        boids_tile_beside(y, wrows, w->wrap, &lo, &hi);
        const uint32_t *const below = lo != UINT32_MAX ? start + (size_t)lo * plane : NULL,
                              *const above = hi != UINT32_MAX ? start + (size_t)hi * plane : NULL;
        for (size_t q = 0; q < plane; q++) {
            uint32_t s = at[q + 1] - at[q];
            if (below) s += below[q + 1] - below[q];
            if (above) s += above[q + 1] - above[q];
            a[q] = s;
        }
        const uint32_t *const blk = boids_tile_block_row(a, b, plane, g->n, D, g->wrap);
        uint64_t sum = 0; /* over the row's steered boids (the tile's, at its ends) */
        const size_t q0 = i == 0 ? c->tile.skip_lo : 0;
        const size_t q1 = i + 1 == rows ? plane - c->tile.skip_hi : plane;
        for (size_t q = q0; q < q1; q++) {
            const uint32_t lo = at[q] > s0 ? at[q] : s0, hi = at[q + 1] < s1 ? at[q + 1] : s1;
            sum += (uint64_t)(hi > lo ? hi - lo : 0) * blk[q];
        }
        r->sq[i] = sum;
    }
    r->sq_n = rows;
    r->sq_row0 = grid_win_row(w, c->tile.steer_lo);
    r->sq_g = *g;
    r->sq_g.ncells = plane * w->n;
    r->sq_g.n[D - 1] = w->n;
}

static boids_status tile_count(boids_backend *b, const grid_geomd *g, uint64_t *count,
                               uint64_t *pairs, boids_error *err) {
    enum { BLOCK = 4096 };
    cpu_grid *c = (cpu_grid *)b;
    grid_resident *r = &c->res;
    const long n = (long)r->nown;
    const int threads = resident_threads(c, r->nown), simd = use_simd(c);
    const state cur = c->cur;
    const cell_out co = cell_out_of(g, c->cells.cell_of);
    const uint32_t nrows = g->n[D - 1], plane = (uint32_t)(g->ncells / nrows);
    if (nrows > r->rows_cap) {
        uint64_t *q = realloc(r->rows, nrows * sizeof *q);
        if (!q)
            return boids_error_set(err, BOIDS_ERR_NOMEM, "cpu: out of memory for %u rows", nrows);
        r->rows = q;
        r->rows_cap = nrows;
    }
    r->nrows = nrows;
    r->plane = plane;
    memset(r->rows, 0, nrows * sizeof *r->rows);
    /* Each boid's cell in the whole grid (at most 2^30 cells): its row for the count and the
     * split, its cell for the step's tile cells. */
    if (!(r->next && same_geom(&r->next_g, g))) { /* else the last move's (resident_next) */
#pragma omp parallel for schedule(static) num_threads(threads) if (threads > 1)
        for (long i = 0; i < n; i += BLOCK) RULES_FN(grid_cells_of)
        (&cur, (size_t)i, (size_t)(n - i < BLOCK ? n : i + BLOCK), &co, simd);
    }
    r->next = 0;
    r->known = r->nown;
    /* Counted against a current row, a block of boids at a time: the boids are in the last
     * step's cell order, so a block is mostly one row's (one vectorised comparison a boid, the
     * row's count kept in a register); the few of another row (those that crossed one, the
     * first of the next) are counted one by one, and a block mostly of another row moves the
     * current row there. One counter incremented boid after boid would wait on its own
     * store. */
    enum { SKIP = 8 };
    const uint32_t *const cell = co.cell_of;
    uint32_t row = n ? cell[0] / plane : 0, c0 = row * plane;
    uint64_t here = 0;
    long i = 0;
    for (; i + SKIP <= n; i += SKIP) {
        uint32_t in = 0;
        const uint32_t *const at = cell + i;
#pragma omp simd reduction(+ : in)
        for (int q = 0; q < SKIP; q++) in += at[q] - c0 < plane;
        here += in;
        if (in == SKIP) continue;
        for (long q = i; q < i + SKIP; q++)
            if (cell[q] - c0 >= plane) r->rows[cell[q] / plane]++;
        if (2 * in < SKIP) { /* the block is mostly another row's: count against the last */
            r->rows[row] += here;
            here = 0;
            row = cell[i + SKIP - 1] / plane, c0 = row * plane;
        }
    }
    for (; i < n; i++) r->rows[cell[i] / plane]++;
    r->rows[row] += here;
    for (uint32_t v = 0; v < nrows; v++) count[v] += r->rows[v];
    if (pairs && r->sq_n > 0 && same_geom(&r->sq_g, g))
        for (uint32_t i = 0; i < r->sq_n; i++) pairs[(r->sq_row0 + i) % nrows] += r->sq[i];
    return BOIDS_OK;
}

static boids_status tile_split(boids_backend *b, boids_tile_key lo, boids_tile_key hi,
                               boids_tile_moves *out, boids_error *err) {
    cpu_grid *c = (cpu_grid *)b;
    uint32_t *const cell = c->cells.cell_of; /* tile_count's: the whole grid's cells */
    const state s = c->cur;
    const uint32_t P = c->res.plane, nrows = c->res.nrows;
    const uint64_t end = boids_tile_key_end(hi);
    if (end > (uint64_t)nrows * P)
        return boids_error_set(err, BOIDS_ERR_INPUT,
                               "cpu: tile_split: the cells [%llu, %llu) go beyond the grid's %llu",
                               (unsigned long long)lo.cell, (unsigned long long)end,
                               (unsigned long long)nrows * P);
    /* The tile's cells [in0, in1) (at most 2^30 in all), of which the first from id lo.id on
     * and the last below hi.id (0: all); its rows [rlo, rhi); the edges (tile.h): the cells
     * before e0 and from e1. */
    const uint32_t in0 = (uint32_t)lo.cell, in1 = (uint32_t)end, last = in1 - 1;
    const uint32_t id0 = lo.id, id1 = hi.id ? hi.id : UINT32_MAX;
    uint32_t rlo, rhi, er[2];
    boids_tile_edge_rows(lo, hi, P, &rlo, &rhi, er);
    const uint32_t e0 = er[0] * P, l1 = er[1], e1 = l1 * P;
    uint64_t *const rc = c->res.rows; /* the counts of the tile_count just made */
    size_t n = c->res.nown, stay = 0, ne[2] = {0, 0};
    for (uint32_t r = rlo; r < rhi; r++) stay += rc[r];
    /* Rows counted whole: an end within a row may leave some of them; at most these. */
    for (uint32_t r = rlo; r < er[0]; r++) ne[0] += rc[r];
    for (uint32_t r = l1; r < rhi; r++) ne[1] += rc[r];
    const size_t most_leave =
        n - stay + (in0 % P || id0 ? rc[rlo] : 0) + (in1 % P || hi.id ? rc[rhi - 1] : 0);
    boids_status st = resident_out(c, most_leave + ne[0] + ne[1], 1, err);
    if (st) return st;
    unsigned char *const leave = c->res.out, *const o0 = leave + most_leave * TILE_REC,
                         *const o1 = o0 + ne[0] * TILE_REC;
    /* The interior cells [e0, e1), none for a short tile: most boids, skipped a block at a
     * time (one unsigned comparison a boid, vectorised). */
    const uint32_t span = e1 > e0 ? e1 - e0 : 0;
    enum { SKIP = 16 };
    size_t l = 0, k0 = 0, k1 = 0, kept[2] = {0, 0}; /* the owned boids left in rows rlo, rhi - 1 */
    const uint32_t first_end = (rlo + 1) * P, last0 = (rhi - 1) * P;
    for (size_t i = 0; i < n;) {
        for (;;) {
            uint32_t stop = 0;
            if (i + SKIP > n) break;
            const uint32_t *const at = cell + i;
#pragma omp simd reduction(+ : stop)
            for (int q = 0; q < SKIP; q++) stop += at[q] - e0 >= span;
            if (stop) break;
            i += SKIP;
        }
        if (i == n) break;
        const uint32_t x = cell[i];
        if (x >= in0 && x < in1 && (x != in0 || s.id[i] >= id0) && (x != last || s.id[i] < id1)) {
            if (x < e0) rec_write(o0 + k0++ * TILE_REC, &s, i);
            if (x >= e1) rec_write(o1 + k1++ * TILE_REC, &s, i);
            kept[0] += x < first_end;
            kept[1] += x >= last0;
            i++;
            continue;
        }
        c->res.row[l] = x / P;
        rec_write(leave + l++ * TILE_REC, &s, i);
        if (i != --n) { /* the last owned boid takes the hole; it is looked at next */
            slot_move(&s, i, n);
            cell[i] = cell[n];
        }
    }
    b->n = c->res.nown = c->res.known = n;
    for (uint32_t r = 0; r < nrows; r++) /* a later split counts what stayed */
        if (r < rlo || r >= rhi) rc[r] = 0;
    rc[rlo] = kept[0], rc[rhi - 1] = kept[1]; /* an end within a row left part of it */
    *out = (boids_tile_moves){leave, c->res.row, l, {o0, o1}, {k0, k1}};
    return BOIDS_OK;
}

static boids_status tile_row_cells(boids_backend *b, const uint32_t *rows, uint32_t nr,
                                   uint32_t *count, boids_error *err) {
    cpu_grid *c = (cpu_grid *)b; /* tile_count's cells of the owned boids */
    return boids_tile_count_row_cells(c->cells.cell_of, c->res.nown, c->res.plane, c->res.nrows,
                                      rows, nr, count, "cpu", err);
}

static boids_status tile_cell_ids(boids_backend *b, const uint64_t *cells, uint32_t nc,
                                  uint32_t *ids, size_t cap, size_t *m, boids_error *err) {
    cpu_grid *c = (cpu_grid *)b; /* tile_count's cells of the owned boids, their global ids */
    return boids_tile_list_cell_ids(c->cells.cell_of, c->cur.id, c->res.nown,
                                    (uint64_t)c->res.nrows * c->res.plane, cells, nc, ids, cap, m,
                                    "cpu", err);
}

/* Appends m records after the first b->n slots. */
static boids_status resident_append(cpu_grid *c, const unsigned char *rec, size_t m,
                                    boids_error *err) {
    const size_t n = c->h.base.n;
    boids_status st = resident_reserve(c, n + m, err);
    if (st) return st;
    for (size_t i = 0; i < m; i++) rec_read(rec + i * TILE_REC, &c->cur, n + i);
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
        if (!keep || keep(ctx, c->cur.id[i])) rec_write(c->res.out + j++ * TILE_REC, &c->cur, i);
    *rec = c->res.out;
    *m = k;
    return BOIDS_OK;
}

/* A resident step's move writes each moved boid's cell in the whole flock's grid (the window's
 * g with all the rows of w), which the next tile_count reads instead of computing them. Sets
 * co to that grid. */
static void resident_next(cpu_grid *c, const geom *g, const grid_win *w, cell_out *co) {
    c->res.next_g = *g;
    c->res.next_g.ncells = g->ncells / g->n[D - 1] * w->n;
    c->res.next_g.n[D - 1] = co->n[D - 1] = w->n;
    c->res.next = 1;
}

/* After a resident step: the steered cells' boids, snapshot slots [keep_b, keep_e) of cur,
 * are the owned ones (no other boid is steered, no owned boid is in a halo cell); the halo is
 * dropped. The order of the owned boids is free (the next build sorts them by cell and id),
 * so only the last of them move, into the halo's slots before them: a few rows' boids, not
 * the tile's. */
static boids_status resident_keep(cpu_grid *c, boids_error *err) {
    grid_resident *r = &c->res;
    const size_t b = r->keep_b, n = r->keep_e - r->keep_b;
    if (n != r->nown)
        return boids_error_set(err, BOIDS_ERR_INPUT,
                               "cpu: the tile's steered cells hold %zu boids, but it owns %zu: an "
                               "owned boid is in a halo cell or a halo boid in a steered cell",
                               n, r->nown);
    const size_t k = b < n ? b : n, from = r->keep_e - k; /* [from, keep_e) into [0, k) */
    if (k > 0) {
        for (int a = 0; a < D; a++) {
            memcpy(c->cur.p[a], c->cur.p[a] + from, k * sizeof(float));
            memcpy(c->cur.v[a], c->cur.v[a] + from, k * sizeof(float));
        }
        memcpy(c->cur.id, c->cur.id + from, k * sizeof(uint32_t));
        if (r->next) memcpy(c->cells.cell_of, c->cells.cell_of + from, k * sizeof(uint32_t));
    }
    c->h.base.n = n;
    return BOIDS_OK;
}

static void resident_free(grid_resident *r) {
    free(r->out);
    free(r->row);
    free(r->rows);
    free(r->sq);
    free(r->blk);
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
                                      .tile_owned = tile_owned,
                                      .tile_row_cells = tile_row_cells,
                                      .tile_cell_ids = tile_cell_ids};
