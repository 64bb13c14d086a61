/*
 * driver.c — main() for the harnesses when libFuzzer is not linked:
 *   - built with afl-clang-fast and run with no file arguments: AFL++'s
 *     persistent mode with shared-memory test cases (__AFL_LOOP, one
 *     forkserver child runs many inputs);
 *   - otherwise: replay each file named, and every file of each directory
 *     named (sorted, so runs are repeatable), then print how many ran.
 * Arguments starting with '-' are ignored (libFuzzer's flags).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));
/* A harness's end-of-replay summary (corrupt: injections per kind). */
void fz_summary(void) __attribute__((weak));

#ifdef __AFL_FUZZ_TESTCASE_LEN
__AFL_FUZZ_INIT();
#endif

static size_t ran;

static void run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        perror(path);
        exit(2);
    }
    size_t cap = 1 << 16, n = 0;
    uint8_t *buf = malloc(cap);
    size_t k;
    while (buf != NULL && (k = fread(buf + n, 1, cap - n, f)) > 0) {
        n += k;
        if (n == cap)
            buf = realloc(buf, cap *= 2);
    }
    fclose(f);
    if (buf == NULL) {
        fprintf(stderr, "%s: out of memory\n", path);
        exit(2);
    }
    /* an exact-size copy, so the harness cannot read past the input */
    uint8_t *in = malloc(n ? n : 1);
    memcpy(in, buf, n);
    free(buf);
    if (getenv("FUZZ_VERBOSE") != NULL)
        fprintf(stderr, "running %s (%zu bytes)\n", path, n);
    LLVMFuzzerTestOneInput(in, n);
    free(in);
    ran++;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
    return strcmp((*a)->d_name, (*b)->d_name);
}

static void run_path(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        perror(path);
        exit(2);
    }
    if (!S_ISDIR(st.st_mode)) {
        run_file(path);
        return;
    }
    struct dirent **ents;
    int n = scandir(path, &ents, NULL, by_name);
    for (int i = 0; i < n; i++) {
        if (ents[i]->d_name[0] != '.') {
            char sub[4096];
            snprintf(sub, sizeof sub, "%s/%s", path, ents[i]->d_name);
            run_path(sub);
        }
        free(ents[i]);
    }
    free(ents);
}

int main(int argc, char **argv)
{
    if (LLVMFuzzerInitialize)
        LLVMFuzzerInitialize(&argc, &argv);
    int files = 0;
    for (int i = 1; i < argc; i++)
        files += argv[i][0] != '-';
#ifdef __AFL_FUZZ_TESTCASE_LEN
    if (files == 0) {
        __AFL_INIT();
        const unsigned char *buf = __AFL_FUZZ_TESTCASE_BUF;
        while (__AFL_LOOP(10000))
            LLVMFuzzerTestOneInput(buf, (size_t)__AFL_FUZZ_TESTCASE_LEN);
        return 0;
    }
#endif
    if (files == 0) {
        fprintf(stderr, "usage: %s FILE-OR-DIR...  (replays each input)\n", argv[0]);
        return 2;
    }
    for (int i = 1; i < argc; i++)
        if (argv[i][0] != '-')
            run_path(argv[i]);
    if (fz_summary)
        fz_summary();
    fprintf(stderr, "%s: %zu input(s) ran\n", argv[0], ran);
    return 0;
}
