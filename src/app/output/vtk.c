/* SPDX-License-Identifier: MIT */
#include "output/vtk.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../core/npy_format.h"

static const char suffix[] = ".pvd";
enum { SUFFIX_LEN = sizeof suffix - 1, FRAME_NAME_TAIL = 32 /* digits, ".vtp", NUL */ };

int app_vtk_wanted(const char *path) {
    size_t len = path ? strlen(path) : 0;
    return len >= SUFFIX_LEN && !strcmp(path + len - SUFFIX_LEN, suffix);
}

/* ---- frame names, also built inside the signal handler: no stdio, no malloc ------------- */

/* Writes K with `digits` digits at least (zero-padded) and ".vtp" at buf + prefix. */
static void frame_name(char *buf, size_t prefix, size_t k, int digits) {
    char rev[24];
    int len = 0;
    do rev[len++] = (char)('0' + k % 10), k /= 10;
    while (k);
    while (len < digits) rev[len++] = '0';
    char *p = buf + prefix;
    while (len) *p++ = rev[--len];
    memcpy(p, ".vtp", 5);
}

/* The signal hook: the frames made so far in the temporary folder. The folder itself is a
 * tracked name, which the handler removes after the hooks. */
static void remove_frames_on_signal(void *arg) {
    app_vtk *w = arg;
    for (size_t k = 0; k < w->created; k++) {
        frame_name(w->sig_name, w->prefix, k, w->digits);
        unlink(w->sig_name);
    }
}

/* Whether name is one this writer gives a frame: frame_, one digit or more, .vtp. */
static int is_frame_name(const char *name) {
    if (strncmp(name, "frame_", 6)) return 0;
    const char *p = name + 6, *d = p;
    while (*p >= '0' && *p <= '9') p++;
    return p > d && !strcmp(p, ".vtp");
}

/* ---- the folder rule ----------------------------------------------------------------------- */

/* dir is absent (0), or a folder of frames only (1); anything else: BOIDS_ERR_INPUT naming
 * it (-1), with err set. */
static int frames_folder(const char *dir, boids_error *err) {
    struct stat st;
    if (lstat(dir, &st) != 0) {
        if (errno == ENOENT) return 0;
        boids_error_set(err, BOIDS_ERR_INPUT, "%s: cannot use the frames' folder: %s", dir,
                        strerror(errno));
        return -1;
    }
    if (!S_ISDIR(st.st_mode)) {
        boids_error_set(err, BOIDS_ERR_INPUT,
                        "%s: exists and is not a folder of boids frames (frame_K.vtp); "
                        "refused, left as it is",
                        dir);
        return -1;
    }
    DIR *d = opendir(dir);
    if (!d) {
        boids_error_set(err, BOIDS_ERR_INPUT, "%s: cannot read the frames' folder: %s", dir,
                        strerror(errno));
        return -1;
    }
    int ours = 1;
    for (struct dirent *e; ours && (e = readdir(d));) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        ours = is_frame_name(e->d_name) &&
               fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode);
        if (!ours)
            boids_error_set(err, BOIDS_ERR_INPUT,
                            "%s: holds '%s', not only boids frames (frame_K.vtp); refused, left "
                            "as it is",
                            dir, e->d_name);
    }
    closedir(d);
    return ours ? 1 : -1;
}

/* Removes the frames in a folder of ours, then the folder. */
static void remove_folder(const char *dir) {
    DIR *d = opendir(dir);
    if (d) {
        for (struct dirent *e; (e = readdir(d));)
            if (is_frame_name(e->d_name)) unlinkat(dirfd(d), e->d_name, 0);
        closedir(d);
    }
    rmdir(dir);
}

/* ---- one frame ------------------------------------------------------------------------------ */

/* What a block of the appended data holds. */
enum block { TIME, STEP, VELOCITY, ID, SPECIES, POINTS, CONNECTIVITY, OFFSETS, NBLOCKS };

/* Whether a frame has block b (the species only with several). */
static int has_block(enum block b, const app_vtk *w) {
    return b != SPECIES || w->species > 1;
}

/* Bytes of block b's values. */
static uint64_t block_bytes(enum block b, size_t n, int f8) {
    uint64_t item = f8 ? 8 : 4;
    switch (b) {
    case TIME:
    case STEP:
        return 8;
    case VELOCITY:
    case POINTS:
        return 3 * (uint64_t)n * item;
    case SPECIES:
        return 4 * (uint64_t)n; /* Int32 */
    default:
        return 8 * (uint64_t)n; /* Int64 */
    }
}

/* Puts block b at offset at: its byte count (a UInt64) and its values (the lead), the rows
 * r's values a fixed buffer of boids at a time. Returns 0, or -1 when a write failed. */
static int put_block(const app_out *o, uint64_t at, enum block b, const app_rows *r, size_t n,
                     const app_vtk *w, double time, unsigned long step) {
    const int f8 = w->f8;
    enum { CHUNK = 1024 };
    unsigned char buf[CHUNK * 3 * 8], *p = npy_put_le(buf, block_bytes(b, n, f8), 8);
    if (b == TIME || b == STEP) {
        p = b == TIME ? npy_put_value(p, time, 1) : npy_put_le(p, step, 8);
        return r->lead ? o->write_at(o->ctx, at, buf, (size_t)(p - buf)) : 0;
    }
    if (r->lead && o->write_at(o->ctx, at, buf, 8)) return -1;
    const boids_flock *f = r->f;
    const double *vec[3] = {f->x, f->y, f->z};
    if (b == VELOCITY) vec[0] = f->vx, vec[1] = f->vy, vec[2] = f->vz;
    at += 8 + block_bytes(b, r->first, f8);
    for (size_t i = 0; i < f->n; i += CHUNK) {
        size_t end = i + CHUNK < f->n ? i + CHUNK : f->n;
        p = buf;
        for (size_t k = i; k < end; k++) {
            const size_t id = r->first + k;
            if (b == VELOCITY || b == POINTS)
                for (int d = 0; d < 3; d++) p = npy_put_value(p, vec[d] ? vec[d][k] : 0.0, f8);
            else if (b == SPECIES)
                p = npy_put_le(p, (uint64_t)boids_species_of(&w->types, id), 4);
            else /* id and connectivity: the id; offsets: where its cell ends */
                p = npy_put_le(p, b == OFFSETS ? id + 1 : id, 8);
        }
        if (o->write_at(o->ctx, at, buf, (size_t)(p - buf))) return -1;
        at += (uint64_t)(p - buf);
    }
    return 0;
}

/* The XML before the appended data of a frame of n boids, whose blocks start at at[] after
 * it, into buf (size bytes, enough); its length. */
static size_t frame_xml(char *buf, size_t size, size_t n, const app_vtk *w,
                        unsigned long long at[NBLOCKS]) {
    const int f8 = w->f8;
    unsigned long long o = 0;
    for (int b = 0; b < NBLOCKS; b++) {
        at[b] = o;
        if (has_block((enum block)b, w)) o += 8 + block_bytes((enum block)b, n, f8);
    }
    char species[128] = "";
    if (has_block(SPECIES, w))
        snprintf(species, sizeof species,
                 "        <DataArray type=\"Int32\" Name=\"species\" format=\"appended\" "
                 "offset=\"%llu\"/>\n",
                 at[SPECIES]);
    const char *real = f8 ? "Float64" : "Float32";
    int len = snprintf(
        buf, size,
        "<?xml version=\"1.0\"?>\n"
        "<VTKFile type=\"PolyData\" version=\"1.0\" byte_order=\"LittleEndian\" "
        "header_type=\"UInt64\">\n"
        "  <PolyData>\n"
        "    <FieldData>\n"
        "      <DataArray type=\"Float64\" Name=\"TimeValue\" NumberOfTuples=\"1\" "
        "format=\"appended\" offset=\"%llu\"/>\n"
        "      <DataArray type=\"Int64\" Name=\"step\" NumberOfTuples=\"1\" "
        "format=\"appended\" offset=\"%llu\"/>\n"
        "    </FieldData>\n"
        "    <Piece NumberOfPoints=\"%zu\" NumberOfVerts=\"%zu\" NumberOfLines=\"0\" "
        "NumberOfStrips=\"0\" NumberOfPolys=\"0\">\n"
        "      <PointData Scalars=\"id\" Vectors=\"velocity\">\n"
        "        <DataArray type=\"%s\" Name=\"velocity\" NumberOfComponents=\"3\" "
        "format=\"appended\" offset=\"%llu\"/>\n"
        "        <DataArray type=\"Int64\" Name=\"id\" format=\"appended\" offset=\"%llu\"/>\n"
        "%s"
        "      </PointData>\n"
        "      <Points>\n"
        "        <DataArray type=\"%s\" Name=\"Points\" NumberOfComponents=\"3\" "
        "format=\"appended\" offset=\"%llu\"/>\n"
        "      </Points>\n"
        "      <Verts>\n"
        "        <DataArray type=\"Int64\" Name=\"connectivity\" format=\"appended\" "
        "offset=\"%llu\"/>\n"
        "        <DataArray type=\"Int64\" Name=\"offsets\" format=\"appended\" "
        "offset=\"%llu\"/>\n"
        "      </Verts>\n"
        "    </Piece>\n"
        "  </PolyData>\n"
        "  <AppendedData encoding=\"raw\">\n"
        "   _",
        at[TIME], at[STEP], n, n, real, at[VELOCITY], at[ID], species, real, at[POINTS],
        at[CONNECTIVITY], at[OFFSETS]);
    return (size_t)len;
}

int app_vtk_put_frame(const app_out *o, const app_rows *r, size_t n, const app_vtk *w, double time,
                      unsigned long step) {
    char xml[4096];
    unsigned long long at[NBLOCKS];
    const size_t len = frame_xml(xml, sizeof xml, n, w, at);
    if (r->lead && o->write_at(o->ctx, 0, xml, len)) return -1;
    for (int b = 0; b < NBLOCKS; b++)
        if (has_block((enum block)b, w) &&
            put_block(o, len + at[b], (enum block)b, r, n, w, time, step))
            return -1;
    static const char tail[] = "\n  </AppendedData>\n</VTKFile>\n";
    const uint64_t end = len + at[NBLOCKS - 1] + 8 + block_bytes(OFFSETS, n, w->f8);
    return r->lead ? o->write_at(o->ctx, end, tail, sizeof tail - 1) : 0;
}

/* ---- open, frame, close ------------------------------------------------------------------ */

/* s escaped for an XML attribute in double quotes; NULL when out of memory. */
static char *xml_escape(const char *s) {
    char *out = malloc(6 * strlen(s) + 1), *p = out;
    for (; out && *s; s++) {
        const char *e = *s == '&'    ? "&amp;"
                        : *s == '<'  ? "&lt;"
                        : *s == '>'  ? "&gt;"
                        : *s == '"'  ? "&quot;"
                        : *s == '\'' ? "&apos;"
                                     : NULL;
        if (e)
            p += sprintf(p, "%s", e);
        else
            *p++ = *s;
    }
    if (out) *p = '\0';
    return out;
}

/* Decimal digits of a frame index: at least 6, enough for the last one. */
static int index_digits(size_t frames) {
    int d = 1;
    for (size_t last = frames ? frames - 1 : 0; last >= 10; last /= 10) d++;
    return d > 6 ? d : 6;
}

/* The paths that open allocates (the index is opened after them). */
static boids_status make_names(app_vtk *w, const char *path, boids_error *err) {
    size_t len = strlen(path) - SUFFIX_LEN;
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    if (base == path + len)
        return boids_error_set(err, BOIDS_ERR_INPUT,
                               "%s: a .pvd trajectory needs a name before .pvd (its frames go "
                               "into the folder of that name)",
                               path);
    /* "x/..pvd", "..pvd": the folder would be "x/." or "." (and "x/...pvd" ".."), which
     * exists and can never be the frames' folder's new name: refused before the run. */
    size_t blen = (size_t)(path + len - base);
    if ((blen == 1 && base[0] == '.') || (blen == 2 && base[0] == '.' && base[1] == '.'))
        return boids_error_set(err, BOIDS_ERR_INPUT,
                               "%s: its frames' folder would be '%.*s', a name no folder can "
                               "take; name the trajectory FOLDER.pvd",
                               path, (int)len, path);
    w->dir = malloc(len + 1);
    if (w->dir) {
        memcpy(w->dir, path, len);
        w->dir[len] = '\0';
        w->xml_dir = xml_escape(w->dir + (base - path));
    }
    if (!w->dir || !w->xml_dir) return boids_error_set(err, BOIDS_ERR_NOMEM, "out of memory");
    return BOIDS_OK;
}

/* The temporary folder beside the index's temporary file, which is ours alone: no other
 * writer makes a name that extends it. mkdir gives it the mode a plain mkdir would. */
static boids_status make_tmp(app_vtk *w, boids_error *err) {
    size_t len = strlen(w->index.tmp);
    w->tmp = malloc(len + 3);
    w->name = malloc(len + 3 + 7 + FRAME_NAME_TAIL);
    w->sig_name = malloc(len + 3 + 7 + FRAME_NAME_TAIL);
    if (!w->tmp || !w->name || !w->sig_name)
        return boids_error_set(err, BOIDS_ERR_NOMEM, "out of memory");
    sprintf(w->tmp, "%s.d", w->index.tmp);
    w->prefix = (size_t)sprintf(w->name, "%s/frame_", w->tmp);
    memcpy(w->sig_name, w->name, w->prefix + 1);
    boids_atomic_track(w->tmp); /* before it exists: see boids_atomic_open */
    if (mkdir(w->tmp, 0777) != 0) {
        boids_atomic_untrack(w->tmp);
        boids_status s = boids_error_set(err, BOIDS_ERR_INPUT, "%s: cannot make a folder: %s",
                                         w->tmp, strerror(errno));
        free(w->tmp);
        w->tmp = NULL;
        return s;
    }
    w->hook = (boids_atomic_hook){remove_frames_on_signal, w};
    boids_atomic_track_hook(&w->hook);
    return BOIDS_OK;
}

boids_status app_vtk_open(app_vtk *w, const char *path, size_t frames, size_t n, int dim, int f8,
                          double dt, boids_error *err) {
    memset(w, 0, sizeof *w);
    w->frames = frames;
    w->n = n;
    w->dim = dim;
    w->f8 = f8;
    w->dt = dt;
    w->digits = index_digits(frames);
    boids_status s = make_names(w, path, err);
    if (!s && frames_folder(w->dir, err) < 0) s = err->status;
    if (!s) s = boids_atomic_open(&w->index, path, err);
    if (!s) s = make_tmp(w, err);
    if (s) {
        app_vtk_abort(w);
        return s;
    }
    fputs("<?xml version=\"1.0\"?>\n"
          "<VTKFile type=\"Collection\" version=\"0.1\" byte_order=\"LittleEndian\">\n"
          "  <Collection>\n",
          w->index.f);
    return BOIDS_OK;
}

const char *app_vtk_frame_file(app_vtk *w) {
    frame_name(w->name, w->prefix, w->written, w->digits);
    w->created = w->written + 1; /* before the file exists, for the hook */
    return w->name;
}

void app_vtk_frame_listed(app_vtk *w, unsigned long step) {
    fprintf(w->index.f, "    <DataSet timestep=\"%.17g\" group=\"\" part=\"0\" file=\"%s/",
            app_vtk_time(w, step), w->xml_dir);
    fprintf(w->index.f, "%s\"/>\n", w->name + strlen(w->tmp) + 1);
    w->written++;
}

void app_vtk_set_species(app_vtk *w, const boids_params *p) {
    w->species = p && p->species > 1 ? p->species : 1;
    if (w->species > 1) w->types = *p;
}

double app_vtk_time(const app_vtk *w, unsigned long step) {
    return (double)step * w->dt;
}

boids_status app_vtk_frame(app_vtk *w, const boids_flock *f, unsigned long step, boids_error *err) {
    size_t k = w->written;
    FILE *out = fopen(app_vtk_frame_file(w), "wb");
    const app_out o = app_out_file(out);
    const app_rows r = app_rows_whole(f);
    int bad =
        !out || app_vtk_put_frame(&o, &r, f->n, w, app_vtk_time(w, step), step) || ferror(out);
    if (out && fclose(out) != 0) bad = 1;
    if (bad)
        return boids_error_set(err, BOIDS_ERR_RUNTIME, "%s: writing frame %zu failed: %s",
                               w->index.path, k, strerror(errno));
    app_vtk_frame_listed(w, step);
    return BOIDS_OK;
}

static void release(app_vtk *w) {
    boids_atomic_untrack_hook(&w->hook);
    boids_atomic_untrack(w->tmp);
    free(w->tmp);
    free(w->dir);
    free(w->xml_dir);
    free(w->name);
    free(w->sig_name);
    memset(w, 0, sizeof *w);
}

/* The renames that publish the collection: the old folder (one of ours) aside, the new one
 * in its place, the index; each failure undoes the steps before it. Returns 0 or errno. */
static int publish(app_vtk *w, int had_old, char *old, boids_error *err) {
    if (had_old && rename(w->dir, old) != 0) return errno;
    if (rename(w->tmp, w->dir) != 0) {
        int e = errno;
        if (had_old) rename(old, w->dir);
        return e;
    }
    if (boids_atomic_commit(&w->index, err)) {
        rename(w->dir, w->tmp); /* back, for app_vtk_abort to remove */
        if (had_old) rename(old, w->dir);
        return -1;
    }
    return 0;
}

boids_status app_vtk_close(app_vtk *w, boids_error *err) {
    if (w->written != w->frames) {
        boids_error_set(err, BOIDS_ERR_RUNTIME, "%s: %zu of %zu frames written", w->index.path,
                        w->written, w->frames);
        app_vtk_abort(w);
        return BOIDS_ERR_RUNTIME;
    }
    fputs("  </Collection>\n</VTKFile>\n", w->index.f);
    /* The folder may have changed since the open: the rule again. */
    int had_old = frames_folder(w->dir, err);
    if (had_old < 0) {
        err->status = BOIDS_ERR_RUNTIME; /* the same message, now as a failed run */
        app_vtk_abort(w);
        return BOIDS_ERR_RUNTIME;
    }
    char *old = malloc(strlen(w->tmp) + 5);
    if (!old) {
        app_vtk_abort(w);
        return boids_error_set(err, BOIDS_ERR_NOMEM, "out of memory");
    }
    sprintf(old, "%s.old", w->tmp);
    /* No signal on this thread between the renames: one that arrives is handled after them,
     * when the new collection is complete (or the old one back in place). The other threads
     * (OpenMP's) are idle here and block nothing: a signal they take in this short window
     * removes the temporaries as ever, and may leave the new frames without their index, or an
     * earlier collection's folder under the temporary name + ".old". */
    sigset_t block, saved;
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGTERM);
    sigaddset(&block, SIGHUP);
    pthread_sigmask(SIG_BLOCK, &block, &saved);
    boids_status s = BOIDS_OK;
    int e = publish(w, had_old, old, err);
    if (e > 0)
        s = boids_error_set(err, BOIDS_ERR_RUNTIME, "%s: cannot give the frames their folder: %s",
                            w->dir, strerror(e));
    else if (e < 0)
        s = err->status;
    if (!s) {
        if (had_old) remove_folder(old);
        release(w);
    } else {
        app_vtk_abort(w);
    }
    pthread_sigmask(SIG_SETMASK, &saved, NULL);
    free(old);
    return s;
}

void app_vtk_abort(app_vtk *w) {
    boids_atomic_abort(&w->index);
    if (w->tmp) remove_folder(w->tmp);
    release(w);
}
