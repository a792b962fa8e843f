/* SPDX-License-Identifier: MIT */
/* libFuzzer target: the state CSV reader (boids_state_load_for) on arbitrary bytes.
 * Properties: a failed load leaves the flock empty and names the file; a successful one
 * fits the parameters, saves, and loads back bit for bit with the same step, and saving
 * that again gives the same bytes. */
#include "fuzz_util.h"

#include "boids/flock.h"
#include "boids/state_io.h"

static int same_bits(const boids_flock *a, const boids_flock *b) {
    return a->n == b->n && a->step == b->step && memcmp(a->x, b->x, 4 * a->n * sizeof(double)) == 0;
}

static void slurp(const char *path, char **text, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) abort();
    *text = NULL;
    *len = 0;
    size_t cap = 0, got;
    char chunk[4096];
    while ((got = fread(chunk, 1, sizeof chunk, f)) > 0) {
        if (*len + got > cap) {
            cap = 2 * (*len + got);
            if (!(*text = realloc(*text, cap))) abort();
        }
        memcpy(*text + *len, chunk, got);
        *len += got;
    }
    fclose(f);
}

static char dir[64], out[96];

static void remove_dir(void) {
    unlink(out);
    rmdir(dir);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static fuzz_file in;
    if (!in.path[0]) {
        fuzz_file_init(&in, "state");
        /* Saves go through the atomic writer, which needs a folder: tmpfs when there is one
         * (each save is a mkstemp, a write and a rename). */
        snprintf(dir, sizeof dir, "/dev/shm/boids-fuzz-state-XXXXXX");
        if (!mkdtemp(dir)) {
            snprintf(dir, sizeof dir, "/tmp/boids-fuzz-state-XXXXXX");
            if (!mkdtemp(dir)) abort();
        }
        snprintf(out, sizeof out, "%s/saved.csv", dir);
        atexit(remove_dir);
    }
    fuzz_file_set(&in, data, size);
    /* The open plane (no position rule), the lab box and Vicsek: each rule gets inputs. */
    boids_params p = boids_params_default();
    if (size && data[0] % 3 == 1) boids_preset_apply(&p, "vicsek", NULL);
    if (size && data[0] % 3 == 2) p.boundary = BOIDS_BOUNDARY_OPEN;
    boids_flock f;
    boids_error err;
    memset(&f, 0x5a, sizeof f); /* the loader must reset it, whatever it held */
    if (boids_state_load_for(in.path, &p, &f, &err) != BOIDS_OK) {
        FUZZ_REQUIRE(f.n == 0 && f.x == NULL && f.step == 0, "failed load left %zu boids", f.n);
        FUZZ_REQUIRE(err.status == BOIDS_ERR_INPUT || err.status == BOIDS_ERR_NOMEM, "%d",
                     (int)err.status);
        FUZZ_REQUIRE(strstr(err.msg, in.path) != NULL, "message without the file: %s", err.msg);
        return 0;
    }
    FUZZ_REQUIRE(boids_flock_check(&f, &p, "loaded", &err) == BOIDS_OK, "%s", err.msg);
    boids_flock g;
    FUZZ_REQUIRE(boids_state_save(out, &f, &err) == BOIDS_OK, "%s", err.msg);
    FUZZ_REQUIRE(boids_state_load_for(out, &p, &g, &err) == BOIDS_OK, "%s", err.msg);
    FUZZ_REQUIRE(same_bits(&f, &g), "save/load changed the state");
    char *a, *b;
    size_t la, lb;
    slurp(out, &a, &la);
    FUZZ_REQUIRE(boids_state_save(out, &g, &err) == BOIDS_OK, "%s", err.msg);
    slurp(out, &b, &lb);
    FUZZ_REQUIRE(la == lb && memcmp(a, b, la) == 0, "a second save wrote other bytes");
    free(a);
    free(b);
    boids_flock_free(&f);
    boids_flock_free(&g);
    return 0;
}
