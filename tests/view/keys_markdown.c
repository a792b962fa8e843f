/* SPDX-License-Identifier: MIT */
/* Prints the viewer's key table as Markdown: what docs/viewer.md must hold (checked by
 * keys_doc_test.py). */
#include <stdio.h>

#include "viewer/view.h"

int main(void) {
    view_keys_markdown(stdout);
    return ferror(stdout) ? 1 : 0;
}
