/* SPDX-License-Identifier: MIT */
/* libFuzzer target: the state reader (boids_state_load_seeded) on arbitrary bytes: those
 * before the first NUL byte are the CSV, those after it (when there is one) its sidecar
 * FILE.json; an input that starts with the .npy magic is a .npy state, whole, without a
 * sidecar (and saved as .npy). Properties: a failed load leaves the flock empty and names the file
 * (the CSV or the sidecar); a successful one fits the parameters, saves, and loads back bit for bit
 * with the same step and noise seed, and saving that again gives the same bytes in both
 * files. */
#include "fuzz_util.h"

#include "boids/flock.h"
#include "boids/state_io.h"

static int same_bits(const boids_flock *a, const boids_flock *b) {
    int vals = 2 * boids_flock_dim(a);
    return a->n == b->n && a->step == b->step && boids_flock_dim(b) * 2 == vals &&
           memcmp(a->x, b->x, (size_t)vals * a->n * sizeof(double)) == 0;
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

static char dir[64], in_csv[96], in_npy[96], in_json[104], out_csv[96], out_npy[96], out_json[104];
static const char *in = in_csv, *out = out_csv; /* this input's: CSV or .npy */

static void remove_dir(void) {
    const char *files[] = {in_csv, in_npy, out_csv, out_npy};
    for (int k = 0; k < 4; k++) {
        char json[104];
        snprintf(json, sizeof json, "%s.json", files[k]);
        unlink(files[k]);
        unlink(json);
    }
    rmdir(dir);
}

static void put(const char *path, const uint8_t *data, size_t size) {
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0) abort();
}

/* Both files of a save, one after the other. */
static void slurp_both(char **text, size_t *len) {
    char *a, *b;
    size_t la, lb;
    slurp(out, &a, &la);
    slurp(out_json, &b, &lb);
    if (!(*text = realloc(a, la + lb + 1))) abort();
    memcpy(*text + la, b, lb);
    *len = la + lb;
    free(b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (!dir[0]) {
        /* The input's two files and the saves (the atomic writer needs a folder): tmpfs when
         * there is one (each save is a mkstemp, a write and a rename). */
        snprintf(dir, sizeof dir, "/dev/shm/boids-fuzz-state-XXXXXX");
        if (!mkdtemp(dir)) {
            snprintf(dir, sizeof dir, "/tmp/boids-fuzz-state-XXXXXX");
            if (!mkdtemp(dir)) abort();
        }
        snprintf(in_csv, sizeof in_csv, "%s/in.csv", dir);
        snprintf(in_npy, sizeof in_npy, "%s/in.npy", dir);
        snprintf(out_csv, sizeof out_csv, "%s/saved.csv", dir);
        snprintf(out_npy, sizeof out_npy, "%s/saved.npy", dir);
        atexit(remove_dir);
    }
    int npy = size >= 6 && !memcmp(data, "\x93NUMPY", 6);
    in = npy ? in_npy : in_csv;
    out = npy ? out_npy : out_csv;
    snprintf(in_json, sizeof in_json, "%s.json", in);
    snprintf(out_json, sizeof out_json, "%s.json", out);
    const uint8_t *nul = npy ? NULL : memchr(data, 0, size);
    put(in, data, nul ? (size_t)(nul - data) : size);
    unlink(in_json);
    if (nul) put(in_json, nul + 1, size - (size_t)(nul - data) - 1);
    /* The open plane (no position rule), the lab box and Vicsek: each rule gets inputs (a
     * .npy state's first byte is its magic's, so its last byte chooses). */
    boids_params p = boids_params_default();
    uint8_t rule = size ? data[npy ? size - 1 : 0] % 3 : 0;
    if (rule == 1) boids_preset_apply(&p, "vicsek", NULL);
    if (rule == 2) p.boundary = BOIDS_BOUNDARY_OPEN;
    /* A first line that names z (a .npy header that names 6 columns) gets 3-D parameters, so
     * that the 3-D reader is reached. */
    const uint8_t *eol = memchr(data, '\n', size);
    size_t head = eol ? (size_t)(eol - data) : size;
    if (!npy && memchr(data, 'z', head)) p.dim = 3;
    for (size_t i = 0; npy && i + 4 <= head; i++)
        if (!memcmp(data + i, ", 6)", 4)) p.dim = 3;
    boids_flock f;
    boids_error err;
    memset(&f, 0x5a, sizeof f); /* the loader must reset it, whatever it held */
    long seed = 7, seed2 = 7;
    if (boids_state_load_seeded(in, &p, &f, &seed, &err) != BOIDS_OK) {
        FUZZ_REQUIRE(f.n == 0 && f.x == NULL && f.step == 0, "failed load left %zu boids", f.n);
        FUZZ_REQUIRE(err.status == BOIDS_ERR_INPUT || err.status == BOIDS_ERR_NOMEM, "%d",
                     (int)err.status);
        FUZZ_REQUIRE(strstr(err.msg, in) != NULL, "message without the file: %s", err.msg);
        return 0;
    }
    FUZZ_REQUIRE(boids_flock_check(&f, &p, "loaded", &err) == BOIDS_OK, "%s", err.msg);
    FUZZ_REQUIRE(seed >= -1 && seed <= 9007199254740992L, "noise seed %ld", seed);
    boids_flock g;
    FUZZ_REQUIRE(boids_state_save_seeded(out, &f, seed, &err) == BOIDS_OK, "%s", err.msg);
    FUZZ_REQUIRE(boids_state_load_seeded(out, &p, &g, &seed2, &err) == BOIDS_OK, "%s", err.msg);
    FUZZ_REQUIRE(same_bits(&f, &g), "save/load changed the state");
    FUZZ_REQUIRE(seed2 == seed, "save/load changed the noise seed: %ld, %ld", seed, seed2);
    char *a, *b;
    size_t la, lb;
    slurp_both(&a, &la);
    FUZZ_REQUIRE(boids_state_save_seeded(out, &g, seed2, &err) == BOIDS_OK, "%s", err.msg);
    slurp_both(&b, &lb);
    FUZZ_REQUIRE(la == lb && memcmp(a, b, la) == 0, "a second save wrote other bytes");
    free(a);
    free(b);
    boids_flock_free(&f);
    boids_flock_free(&g);
    return 0;
}
