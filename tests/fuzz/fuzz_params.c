/* SPDX-License-Identifier: MIT */
/* libFuzzer target: parameter value parsing (boids_params_set, as --set KEY=VALUE and every
 * config line reach it) on arbitrary text. The input is KEY=VALUE, or VALUE alone for a key
 * chosen by its first byte. Properties: a refused value changes nothing and names the key;
 * an accepted one is in its key's range and formats to text that sets the same value. */
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size == 0 || size > 512) return 0;
    char text[513];
    memcpy(text, data, size);
    text[size] = '\0';
    if (strlen(text) != size) return 0; /* a C string cannot hold a NUL; ini and --set stop there */
    size_t n;
    const boids_param_info *t = boids_param_table(&n);
    const char *key, *value;
    char *eq = strchr(text, '=');
    if (eq) {
        *eq = '\0';
        key = text;
        value = eq + 1;
    } else {
        key = t[(uint8_t)text[0] % n].key;
        value = text + 1;
    }
    boids_params p = boids_params_default(), before = p;
    if (text[0] & 1) boids_preset_apply(&p, "vicsek", NULL), before = p;
    boids_error err;
    if (boids_params_set(&p, key, value, "--set", &err) != BOIDS_OK) {
        FUZZ_REQUIRE(fuzz_params_equal(&p, &before), "a refused value changed parameters");
        FUZZ_REQUIRE(err.status == BOIDS_ERR_INPUT && strstr(err.msg, "--set"), "%s", err.msg);
        return 0;
    }
    const boids_param_info *info = boids_param_find(key);
    FUZZ_REQUIRE(info != NULL, "accepted unknown key '%s'", key);
    char formatted[64];
    boids_params_format(&p, info, formatted, sizeof formatted);
    boids_params q = before;
    FUZZ_REQUIRE(boids_params_set(&q, key, formatted, "round trip", &err) == BOIDS_OK,
                 "'%s' from '%s' refused: %s", formatted, value, err.msg);
    FUZZ_REQUIRE(fuzz_params_equal(&p, &q), "'%s' did not round-trip", formatted);
    /* Only this key changed, and validation of the result neither crashes nor lies. */
    for (size_t i = 0; i < n; i++) {
        if (&t[i] == info) continue;
        char x[64], y[64];
        boids_params_format(&p, &t[i], x, sizeof x);
        boids_params_format(&before, &t[i], y, sizeof y);
        FUZZ_REQUIRE(strcmp(x, y) == 0, "setting %s changed %s", key, t[i].key);
    }
    (void)boids_params_validate(&p, &err);
    return 0;
}
