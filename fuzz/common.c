/*
 * common.c — the heap check at the end of every input, and keeping the
 * single-threaded binaries single-threaded (see fuzz.h).
 */
#define _GNU_SOURCE
#include "fuzz.h"

#include <stdlib.h>
#include <string.h>
#include <sys/single_threaded.h>

#include "chunkguard.h"

/* The heap verifier (include/chunkguard.h): 0 = consistent, else the
 * number of problems, each reported. */
void fz_verify_heap(const char *when)
{
    size_t n = cg_verify_heap();
    if (n != 0)
        fz_fail("cg_verify_heap() found %zu problem(s) %s", n, when);
}

void fz_assert_single_threaded(void)
{
    if (!__libc_single_threaded)
        fz_fail("a single-threaded harness has had a thread (run libFuzzer with "
                "-rss_limit_mb=0, and no -jobs/-fork)");
}

void fz_no_libfuzzer_threads(int *argc, char ***argv)
{
    static const char flag[] = "-rss_limit_mb=0";
    char **old = *argv;
    for (int i = 1; i < *argc; i++)
        if (strncmp(old[i], "-rss_limit_mb=", 14) == 0) {
            old[i] = (char *)flag;
            return;
        }
    char **v = malloc(sizeof *v * (size_t)(*argc + 2));
    if (v == NULL)
        return;
    /* flags must come before the corpus directories: put it first */
    v[0] = old[0];
    v[1] = (char *)flag;
    memcpy(v + 2, old + 1, sizeof *v * (size_t)*argc);   /* with the NULL */
    *argv = v;
    (*argc)++;
}
