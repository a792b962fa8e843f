/* SPDX-License-Identifier: MIT */
#include "output/collide.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "output/provenance.h"
#include "output/vtk.h"

/* What a name is to its path: the path itself or one of the files beside it. */
enum kind { MAIN, SIDECAR, JOURNAL, FOLDER, NKINDS };

typedef struct name {
    char *shown;    /* as the command will use it */
    char *resolved; /* the folder resolved, the last name kept */
    int has_id;     /* the file exists: dev and ino are its own */
    dev_t dev;
    ino_t ino;
    size_t entry; /* index into the paths */
    enum kind kind;
} name;

/* path's folder through realpath and its last name as given ("x/" counts as "x"); the whole
 * path through realpath when it exists (a symbolic link is the file it reaches); the path
 * itself when its folder does not exist (nothing can be written there: the writer says so). */
static char *resolve(const char *path) {
    char *whole = realpath(path, NULL);
    if (whole) return whole;
    size_t len = strlen(path);
    while (len > 1 && path[len - 1] == '/') len--;
    size_t cut = len;
    while (cut > 0 && path[cut - 1] != '/') cut--;
    char *dir = cut == 0 ? strdup(".") : strndup(path, cut > 1 ? cut - 1 : 1);
    char *real = dir ? realpath(dir, NULL) : NULL;
    free(dir);
    if (!real) return strndup(path, len);
    size_t rl = strlen(real), bl = len - cut;
    char *out = malloc(rl + 1 + bl + 1);
    if (out) {
        memcpy(out, real, rl);
        size_t at = rl;
        if (at == 0 || out[at - 1] != '/') out[at++] = '/';
        memcpy(out + at, path + cut, bl);
        out[at + bl] = '\0';
    }
    free(real);
    return out;
}

/* The name of kind k beside path (malloc'd), or NULL when the path has none of that kind. */
static char *beside(const char *path, unsigned flags, enum kind k, int *nomem) {
    char *s = NULL;
    switch (k) {
    case MAIN:
        s = strdup(path);
        break;
    case SIDECAR:
        if (!(flags & APP_PATH_SIDECAR)) return NULL;
        s = app_prov_sidecar_name(path);
        break;
    case JOURNAL:
        if (!(flags & APP_PATH_JOURNAL)) return NULL;
        s = malloc(strlen(path) + sizeof ".partial");
        if (s) strcat(strcpy(s, path), ".partial");
        break;
    case FOLDER:
        if (!(flags & APP_PATH_TRAJECTORY) || !app_vtk_wanted(path)) return NULL;
        s = strndup(path, strlen(path) - strlen(".pvd"));
        break;
    default:
        return NULL;
    }
    if (!s) *nomem = 1;
    return s;
}

static int same(const name *a, const name *b) {
    if (a->has_id && b->has_id) return a->dev == b->dev && a->ino == b->ino;
    return a->resolved && b->resolved && !strcmp(a->resolved, b->resolved);
}

/* Whether two paths' names may be one file: both read, or a state saved over the one loaded. */
static int may_share(const app_path *a, const app_path *b) {
    int wa = a->flags & APP_PATH_OUT, wb = b->flags & APP_PATH_OUT;
    if (!wa && !wb) return 1;
    return wa != wb && (a->flags & APP_PATH_STATE) && (b->flags & APP_PATH_STATE);
}

/* "--save /tmp/s.csv", "the sidecar /tmp/s.csv.json of --save". */
static void describe(const name *n, const app_path *paths, char *buf, size_t size) {
    static const char *const what[NKINDS] = {"", "the sidecar", "the journal",
                                             "the frames' folder"};
    const char *opt = paths[n->entry].option;
    if (n->kind == MAIN)
        snprintf(buf, size, "%s %s", opt, n->shown);
    else
        snprintf(buf, size, "%s %s of %s", what[n->kind], n->shown, opt);
}

static void free_names(name *names, size_t count) {
    for (size_t i = 0; i < count; i++) {
        free(names[i].shown);
        free(names[i].resolved);
    }
    free(names);
}

boids_status app_paths_check(const app_path *paths, size_t n, boids_error *err) {
    name *names = calloc(n * NKINDS + 1, sizeof *names);
    if (!names) return boids_error_set(err, BOIDS_ERR_NOMEM, "out of memory");
    size_t count = 0;
    int nomem = 0;
    for (size_t i = 0; i < n; i++) {
        if (!paths[i].path) continue;
        for (int k = 0; k < NKINDS; k++) {
            char *s = beside(paths[i].path, paths[i].flags, (enum kind)k, &nomem);
            if (!s) continue;
            name *nm = &names[count++];
            struct stat st;
            *nm = (name){.shown = s, .resolved = resolve(s), .entry = i, .kind = (enum kind)k};
            if (!nm->resolved) nomem = 1;
            if (stat(s, &st) == 0) nm->has_id = 1, nm->dev = st.st_dev, nm->ino = st.st_ino;
        }
    }
    boids_status st = nomem ? boids_error_set(err, BOIDS_ERR_NOMEM, "out of memory") : BOIDS_OK;
    for (size_t a = 0; !st && a < count; a++)
        for (size_t b = a + 1; !st && b < count; b++) {
            const app_path *pa = &paths[names[a].entry], *pb = &paths[names[b].entry];
            if (names[a].entry == names[b].entry || may_share(pa, pb) ||
                !same(&names[a], &names[b]))
                continue;
            char da[PATH_MAX + 64], db[PATH_MAX + 64];
            describe(&names[a], paths, da, sizeof da);
            describe(&names[b], paths, db, sizeof db);
            st = boids_error_set(err, BOIDS_ERR_INPUT, "%s and %s are the same file: %s", da, db,
                                 (pa->flags & APP_PATH_OUT) && (pb->flags & APP_PATH_OUT)
                                     ? "one output would replace the other; give each its own name"
                                     : "the output would replace the input; name another file");
        }
    free_names(names, count);
    return st;
}
