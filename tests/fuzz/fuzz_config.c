/* SPDX-License-Identifier: MIT */
/* libFuzzer target: the INI config reader (boids_params_load_ini) on arbitrary bytes.
 * Properties: a failed load changes no parameter and names the file; the parameters a
 * successful load gives validate or fail cleanly, and written back as an INI file of every
 * key they load to the same values (the text form round-trips). */
#include "fuzz_util.h"

static void write_all(fuzz_file *f, const boids_params *p) {
    size_t n;
    const boids_param_info *t = boids_param_table(&n);
    char text[8192];
    size_t len = 0;
    for (size_t i = 0; i < n; i++) {
        char v[64];
        boids_params_format(p, &t[i], v, sizeof v);
        len += (size_t)snprintf(text + len, sizeof text - len, "%s = %s\n", t[i].key, v);
    }
    fuzz_file_set(f, (const uint8_t *)text, len);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static fuzz_file in, back;
    if (!in.path[0]) {
        fuzz_file_init(&in, "config");
        fuzz_file_init(&back, "config-back");
    }
    fuzz_file_set(&in, data, size);
    boids_params p = boids_params_default(), before = p;
    boids_error err;
    if (boids_params_load_ini(&p, in.path, &err) != BOIDS_OK) {
        FUZZ_REQUIRE(fuzz_params_equal(&p, &before), "a failed load changed parameters");
        FUZZ_REQUIRE(err.status == BOIDS_ERR_INPUT, "status %d", (int)err.status);
        FUZZ_REQUIRE(strstr(err.msg, in.path) != NULL, "message without the file: %s", err.msg);
        return 0;
    }
    (void)boids_params_validate(&p, &err);
    write_all(&back, &p);
    boids_params q = boids_params_default();
    FUZZ_REQUIRE(boids_params_load_ini(&q, back.path, &err) == BOIDS_OK, "%s", err.msg);
    FUZZ_REQUIRE(fuzz_params_equal(&p, &q), "parameters changed through their INI text");
    return 0;
}
