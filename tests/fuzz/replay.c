/* SPDX-License-Identifier: MIT */
/* Runs a fuzz target on files (or every file of folders) without libFuzzer, so that the
 * ordinary test build checks the seed corpora against the targets' properties with gcc. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return perror(path), 1;
    static uint8_t buf[1 << 20];
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    LLVMFuzzerTestOneInput(buf, n);
    return 0;
}

int main(int argc, char **argv) {
    int files = 0, failed = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        DIR *d = stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode) ? opendir(argv[i]) : NULL;
        if (!d) {
            failed += run_file(argv[i]), files++;
            continue;
        }
        for (struct dirent *e; (e = readdir(d));) {
            if (e->d_name[0] == '.') continue;
            char path[4096];
            snprintf(path, sizeof path, "%s/%s", argv[i], e->d_name);
            failed += run_file(path), files++;
        }
        closedir(d);
    }
    printf("%d inputs replayed, every property held\n", files - failed);
    return failed != 0;
}
