/*
 * util.h — small helpers shared by the unit, differential and thread tests.
 * All static inline so each test program stays a single translation unit
 * plus this header.
 */
#ifndef UT_UTIL_H
#define UT_UTIL_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "api.h"

/*
 * ut_byte - the pattern byte at offset @i of a block tagged @tag.
 * Mixing the offset in catches shifted copies (realloc moving the wrong
 * range), not only overwritten bytes.
 */
static inline unsigned char ut_byte(uint64_t tag, size_t i)
{
    uint64_t x = tag * 0x9E3779B97F4A7C15ull + i;
    x ^= x >> 29;
    return (unsigned char)(x * 0xBF58476D1CE4E5B9ull >> 56);
}

/* ut_fill - write the pattern of @tag into the @n bytes at @p. */
static inline void ut_fill(void *p, size_t n, uint64_t tag)
{
    unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        b[i] = ut_byte(tag, i);
}

/*
 * ut_check - compare the @n bytes at @p with the pattern of @tag.
 * Returns the offset of the first wrong byte, or (size_t)-1 when intact.
 */
static inline size_t ut_check(const void *p, size_t n, uint64_t tag)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        if (b[i] != ut_byte(tag, i))
            return i;
    return (size_t)-1;
}

/* ut_all - 1 when every one of the @n bytes at @p equals @c. */
static inline int ut_all(const void *p, size_t n, unsigned char c)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        if (b[i] != c)
            return 0;
    return 1;
}

/*
 * ut_is_mmapped - the IS_MMAPPED bit (2) of the chunk size word just below
 * @p.  chunkguard keeps glibc's chunk layout, so this reads the same way on
 * both; it is how the tests see which path served a request.
 */
static inline int ut_is_mmapped(const void *p)
{
    size_t sz;
    memcpy(&sz, (const char *)p - sizeof(size_t), sizeof sz);
    return (sz & 2) != 0;
}

/*
 * ut_rss_kb - resident set size of this process in KiB (VmRSS from
 * /proc/self/status), or -1 when it cannot be read.  Uses stdio, hence
 * the allocator under test in the standard builds; that is fine.
 */
static inline long ut_rss_kb(void)
{
    char line[256];
    long kb = -1;
    FILE *f = fopen("/proc/self/status", "r");
    if (!f)
        return -1;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "VmRSS: %ld kB", &kb) == 1)
            break;
    fclose(f);
    return kb;
}

/*
 * ut_served_by_chunkguard - 1 when, in a chunkguard build, cg_get_stats()
 * counts at least @min mallocs: proof the program's calls reached
 * chunkguard rather than libc (a mislinked test would pass vacuously).
 * Always 1 in the glibc and mutant builds, which have no such counter.
 */
static inline int ut_served_by_chunkguard(unsigned long long min)
{
#if UT_HAVE_CG
    cg_stats_t st;
    cg_get_stats(&st);
    if (st.mallocs < min) {
        fprintf(stderr, "FAIL: chunkguard served only %llu mallocs (expected >= %llu)\n",
                st.mallocs, min);
        return 0;
    }
#else
    (void)min;
#endif
    return 1;
}

#endif /* UT_UTIL_H */
