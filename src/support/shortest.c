/* SPDX-License-Identifier: MIT */
#include "shortest.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *shortest_double(double v, char *buf, size_t size) {
    if (!buf || size == 0) return buf;
    char text[40];
    if (!isfinite(v)) {
        snprintf(buf, size, "%g", v);
        return buf;
    }
    /* The least digits that read back, then the same digits or more as long as that is
     * shorter text: 10 as "10", not "1e+01" (%g's exponent at 1 digit); 1e+07 stays. */
    int found = 0;
    for (int digits = 1; digits <= 17; digits++) {
        char t[40];
        snprintf(t, sizeof t, "%.*g", digits, v);
        if (strtod(t, NULL) != v) continue;
        if (!found || strlen(t) < strlen(text)) snprintf(text, sizeof text, "%s", t);
        found = 1;
    }
    snprintf(buf, size, "%s", text);
    return buf;
}
