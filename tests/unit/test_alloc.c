/*
 * test_alloc.c — the basic contracts of malloc, calloc, realloc,
 * reallocarray, free and malloc_usable_size (issue 2, point 1), as glibc
 * 2.36 has them.  Every expectation also runs against plain glibc (the
 * UT_GLIBC build), so a test here states glibc's behaviour, not ours.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "util.h"

/* These tests read a block after a realloc of it failed on purpose, which
 * gcc 12 cannot tell from a use after free. */
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 12
#pragma GCC diagnostic ignored "-Wuse-after-free"
#endif

/* Laundered through a volatile so the compiler cannot fold or warn about
 * the impossible sizes these tests pass on purpose. */
static size_t sz(size_t n)
{
    volatile size_t v = n;
    return v;
}

/* Requests that can never be satisfied: above PTRDIFF_MAX (rejected up
 * front) and below it but beyond the 47-bit address space (mmap fails,
 * whatever the overcommit policy). */
static const size_t huge_sizes[] = {
    (size_t)PTRDIFF_MAX + 1, (size_t)PTRDIFF_MAX + 4096, SIZE_MAX,
    SIZE_MAX - 15, (size_t)PTRDIFF_MAX, (size_t)PTRDIFF_MAX - 4096,
    (size_t)1 << 47, (size_t)1 << 60,
};
#define NHUGE (sizeof huge_sizes / sizeof huge_sizes[0])

Test(limits, malloc_huge_fails_enomem)
{
    for (size_t i = 0; i < NHUGE; i++) {
        errno = 0;
        void *p = T(malloc)(sz(huge_sizes[i]));
        cr_assert_null(p, "malloc(%zu) must fail", huge_sizes[i]);
        cr_assert_eq(errno, ENOMEM, "malloc(%zu): errno %d", huge_sizes[i], errno);
    }
}

Test(limits, calloc_huge_and_overflow_fail_enomem)
{
    static const size_t pairs[][2] = {
        {SIZE_MAX / 2 + 1, 2}, {2, SIZE_MAX / 2 + 1}, {SIZE_MAX, SIZE_MAX},
        {(size_t)1 << 32, (size_t)1 << 32}, {1, (size_t)PTRDIFF_MAX + 1},
        {(size_t)PTRDIFF_MAX / 2 + 1, 2}, {1, (size_t)1 << 47},
    };
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
        errno = 0;
        void *p = T(calloc)(sz(pairs[i][0]), sz(pairs[i][1]));
        cr_assert_null(p, "calloc(%zu, %zu) must fail", pairs[i][0], pairs[i][1]);
        cr_assert_eq(errno, ENOMEM, "calloc(%zu, %zu): errno %d",
                     pairs[i][0], pairs[i][1], errno);
    }
}

/* A failed realloc or reallocarray leaves the old block allocated and
 * unchanged (C and glibc): the caller still owns it. */
Test(limits, realloc_huge_fails_and_keeps_block)
{
    static const size_t olds[] = {40, 3000, 300000};
    for (size_t o = 0; o < 3; o++) {
        unsigned char *p = T(malloc)(olds[o]);
        cr_assert_not_null(p);
        ut_fill(p, olds[o], 7 + o);
        for (size_t i = 0; i < NHUGE; i++) {
            errno = 0;
            void *q = T(realloc)(p, sz(huge_sizes[i]));
            cr_assert_null(q, "realloc(p, %zu) must fail", huge_sizes[i]);
            cr_assert_eq(errno, ENOMEM);
            cr_assert_eq(ut_check(p, olds[o], 7 + o), (size_t)-1,
                         "old block changed by failed realloc(%zu)", huge_sizes[i]);
        }
        cr_assert_geq(T(malloc_usable_size)(p), olds[o]);
        T(free)(p);
    }
}

Test(limits, reallocarray_overflow_fails_and_keeps_block)
{
    static const size_t pairs[][2] = {
        {SIZE_MAX / 2 + 1, 2}, {SIZE_MAX, SIZE_MAX}, {(size_t)1 << 33, (size_t)1 << 31},
        {1, (size_t)PTRDIFF_MAX + 1}, {(size_t)PTRDIFF_MAX / 4 + 1, 4},
    };
    unsigned char *p = T(malloc)(200);
    cr_assert_not_null(p);
    ut_fill(p, 200, 11);
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
        errno = 0;
        void *q = T(reallocarray)(p, sz(pairs[i][0]), sz(pairs[i][1]));
        cr_assert_null(q, "reallocarray(p, %zu, %zu) must fail", pairs[i][0], pairs[i][1]);
        cr_assert_eq(errno, ENOMEM);
        cr_assert_eq(ut_check(p, 200, 11), (size_t)-1, "old block changed");
    }
    /* reallocarray(NULL, ...) overflowing fails the same way. */
    errno = 0;
    cr_assert_null(T(reallocarray)(NULL, sz(SIZE_MAX / 8), sz(16)));
    cr_assert_eq(errno, ENOMEM);
    /* And a fitting product works like realloc. */
    unsigned char *q = T(reallocarray)(p, sz(100), sz(30));
    cr_assert_not_null(q);
    cr_assert_geq(T(malloc_usable_size)(q), 3000);
    cr_assert_eq(ut_check(q, 200, 11), (size_t)-1, "prefix lost by reallocarray");
    T(free)(q);
}

/* Running the heap out of address space (RLIMIT_AS) must end in NULL and
 * ENOMEM, never a crash, and the heap must work again once memory is
 * freed.  Not under ASan: its shadow makes RLIMIT_AS unusable. */
#if !UT_SANITIZED
Test(limits, exhaustion_under_rlimit_as)
{
    struct rlimit old, lim;
    cr_assert_eq(getrlimit(RLIMIT_AS, &old), 0);
    /* VmSize plus 256 MiB: room for a few 64 MiB heaps and no more. */
    long vm = -1;
    char line[256];
    FILE *f = fopen("/proc/self/status", "r");
    cr_assert_not_null(f);
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "VmSize: %ld kB", &vm) == 1)
            break;
    fclose(f);
    cr_assert_gt(vm, 0);
    lim = old;
    lim.rlim_cur = (rlim_t)vm * 1024 + (256u << 20);
    cr_assert_eq(setrlimit(RLIMIT_AS, &lim), 0);

    static const size_t sizes[] = {1u << 20, 4000, 100};
    static void *held[1 << 22];
    for (size_t s = 0; s < 3; s++) {
        size_t n = 0;
        for (;;) {
            cr_assert_lt(n, sizeof held / sizeof held[0], "limit never reached");
            errno = 0;
            void *p = T(malloc)(sizes[s]);
            if (!p) {
                cr_assert_eq(errno, ENOMEM, "malloc(%zu) failed with errno %d",
                             sizes[s], errno);
                break;
            }
            held[n++] = p;
        }
        cr_assert_gt(n, 10, "malloc(%zu) failed after only %zu blocks", sizes[s], n);
        /* calloc and realloc fail cleanly at the limit as well. */
        errno = 0;
        cr_assert_null(T(calloc)(1, 64u << 20));
        cr_assert_eq(errno, ENOMEM);
        while (n)
            T(free)(held[--n]);
        void *again = T(malloc)(sizes[s]);
        cr_assert_not_null(again, "heap unusable after exhaustion by %zu", sizes[s]);
        T(free)(again);
    }
    cr_assert_eq(setrlimit(RLIMIT_AS, &old), 0);
}
#endif

Test(malloc, zero_gives_unique_pointers)
{
    enum { N = 1000 };
    static unsigned char *p[N];
    for (int i = 0; i < N; i++) {
        p[i] = T(malloc)(0);
        cr_assert_not_null(p[i], "malloc(0) returned NULL");
        cr_assert_eq((uintptr_t)p[i] % 16, 0);
        /* The usable bytes, however many, belong to this block alone. */
        memset(p[i], i & 0xff, T(malloc_usable_size)(p[i]));
    }
    for (int i = 0; i < N; i++) {
        cr_assert(ut_all(p[i], T(malloc_usable_size)(p[i]), i & 0xff),
                  "malloc(0) block %d overwritten by another", i);
        for (int j = i + 1; j < N; j++)
            cr_assert_neq(p[i], p[j], "malloc(0) returned %p twice", (void *)p[i]);
    }
    for (int i = 0; i < N; i++)
        T(free)(p[i]);
}

Test(malloc, usable_size_at_least_request)
{
    for (size_t n = 0; n < 5000; n += (n < 300 ? 1 : 37)) {
        unsigned char *p = T(malloc)(n);
        cr_assert_not_null(p);
        cr_assert_eq((uintptr_t)p % 16, 0, "malloc(%zu) misaligned: %p", n, (void *)p);
        size_t u = T(malloc_usable_size)(p);
        cr_assert_geq(u, n, "malloc(%zu): usable %zu", n, u);
        memset(p, 0xC3, u);
        T(free)(p);
    }
    cr_assert_eq(T(malloc_usable_size)(NULL), 0);
}

/* free, and in our builds free_sized, must not change errno: programs
 * read errno after cleanup.  The mmapped and trimming cases matter most:
 * munmap or madvise failing inside free would clobber it. */
Test(malloc, free_preserves_errno)
{
    static const size_t sizes[] = {0, 24, 100, 1000, 5000, 100000, 200000, 1u << 20, 8u << 20};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        void *p = T(malloc)(sizes[i]);
        cr_assert_not_null(p);
        errno = 4242;
        T(free)(p);
        cr_assert_eq(errno, 4242, "free of a %zu-byte block changed errno to %d",
                     sizes[i], errno);
    }
    errno = 4243;
    T(free)(NULL);
    cr_assert_eq(errno, 4243, "free(NULL) changed errno");

    /* Frees that coalesce into the top chunk past the trim threshold. */
    void *b[8];
    for (int i = 0; i < 8; i++)
        cr_assert_not_null(b[i] = T(malloc)(100000));
    for (int i = 7; i >= 0; i--) {
        errno = 4244;
        T(free)(b[i]);
        cr_assert_eq(errno, 4244, "trimming free changed errno to %d", errno);
    }
#if UT_HAVE_FREE_SIZED
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        void *p = T(malloc)(sizes[i]);
        cr_assert_not_null(p);
        errno = 4245;
        T(free_sized)(p, sizes[i]);
        cr_assert_eq(errno, 4245, "free_sized(%zu) changed errno to %d", sizes[i], errno);
        p = T(memalign)(4096, sizes[i]);
        cr_assert_not_null(p);
        errno = 4246;
        T(free_aligned_sized)(p, 4096, sizes[i]);
        cr_assert_eq(errno, 4246, "free_aligned_sized(%zu) changed errno", sizes[i]);
    }
    errno = 4247;
    T(free_sized)(NULL, 0);
    T(free_aligned_sized)(NULL, 64, 0);
    cr_assert_eq(errno, 4247, "free_sized(NULL) changed errno");
#endif
}

/* calloc must zero even when it hands back memory a previous owner
 * dirtied: tcache/fastbin sizes, small and large bins, the top chunk after
 * dirty frees coalesced into it, and mmap sizes.  Several rounds so the
 * later ones run on a heap full of dirty free chunks. */
Test(calloc, zeroes_reused_dirty_memory)
{
    static const size_t sizes[] = {24, 100, 1000, 5000, 70000, 200000, 1u << 20};
    enum { N = 24 };
    for (int round = 0; round < 3; round++) {
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
            void *p[N];
            uintptr_t lo = UINTPTR_MAX, hi = 0;
            for (int i = 0; i < N; i++) {
                p[i] = T(malloc)(sizes[s]);
                cr_assert_not_null(p[i]);
                memset(p[i], 0xAB, T(malloc_usable_size)(p[i]));
                if ((uintptr_t)p[i] < lo) lo = (uintptr_t)p[i];
                if ((uintptr_t)p[i] + sizes[s] > hi) hi = (uintptr_t)p[i] + sizes[s];
            }
            for (int i = 0; i < N; i++)
                T(free)(p[i]);
            int reused = 0;
            for (int i = 0; i < N; i++) {
                unsigned char *q = T(calloc)(1, sizes[s]);
                cr_assert_not_null(q);
                cr_assert(ut_all(q, sizes[s], 0),
                          "calloc(1, %zu) round %d returned dirty memory", sizes[s], round);
                reused += (uintptr_t)q >= lo && (uintptr_t)q < hi;
                p[i] = q;
            }
            /* Heap sizes must actually have gone through the reuse path,
             * or this test proves nothing about it. */
            if (sizes[s] < 128 * 1024)
                cr_assert_gt(reused, 0, "calloc(%zu) never reused a freed block", sizes[s]);
            for (int i = 0; i < N; i++)
                memset(p[i], 0xCD, sizes[s]);
            for (int i = N - 1; i >= 0; i--)
                T(free)(p[i]);
        }
    }
    /* nmemb*size split both ways, and calloc(0, n). */
    unsigned char *q = T(calloc)(1000, 3);
    cr_assert_not_null(q);
    cr_assert(ut_all(q, 3000, 0));
    T(free)(q);
    q = T(calloc)(0, 100);
    cr_assert_not_null(q, "calloc(0, n) must return a unique pointer as glibc does");
    T(free)(q);
}

Test(realloc, null_is_malloc)
{
    static const size_t sizes[] = {0, 1, 100, 1000, 5000, 300000};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        unsigned char *p = T(realloc)(NULL, sizes[i]);
        cr_assert_not_null(p, "realloc(NULL, %zu)", sizes[i]);
        cr_assert_eq((uintptr_t)p % 16, 0);
        cr_assert_geq(T(malloc_usable_size)(p), sizes[i]);
        memset(p, 0x5C, sizes[i]);
        T(free)(p);
    }
    /* Same allocator path as malloc: a freed tcache-sized block comes back
     * from realloc(NULL) exactly as it would from malloc (LIFO). */
    void *a = T(malloc)(72);
    cr_assert_not_null(a);
    T(free)(a);
    void *b = T(realloc)(NULL, 72);
    cr_assert_eq(b, a, "realloc(NULL, 72) did not take malloc's path");
    T(free)(b);
}

/* glibc 2.36 (REALLOC_ZERO_BYTES_FREES): realloc(p, 0) frees p and
 * returns NULL; realloc(NULL, 0) is malloc(0). */
Test(realloc, zero_frees_and_returns_null)
{
    void *p = T(malloc)(72);
    cr_assert_not_null(p);
    errno = 0;
    void *r = T(realloc)(p, 0);
    cr_assert_null(r, "realloc(p, 0) must return NULL as glibc 2.36 does");
    /* p really went back to the allocator: the next malloc of its size
     * returns it (tcache is LIFO). */
    void *q = T(malloc)(72);
    cr_assert_eq(q, p, "realloc(p, 0) did not free p");
    T(free)(q);
    /* Also for an mmapped block (must not leak or crash). */
    p = T(malloc)(1u << 20);
    cr_assert_not_null(p);
    cr_assert_null(T(realloc)(p, 0));
    void *z = T(realloc)(NULL, 0);
    cr_assert_not_null(z, "realloc(NULL, 0) is malloc(0)");
    T(free)(z);
}

/* realloc keeps min(old, new) bytes across every pair of size classes:
 * tcache, fastbin, small, large, near the mmap threshold and mmapped;
 * with the block alone, followed by a live block, and followed by a free
 * one (so in-place growth, splitting and moving paths all run). */
Test(realloc, keeps_prefix_across_classes)
{
    static const size_t sizes[] = {1, 24, 100, 120, 500, 1032, 1040, 5000,
                                   70000, 130000, 300000, 2u << 20};
    enum { NS = sizeof sizes / sizeof sizes[0] };
    uint64_t tag = 1;
    for (int ctx = 0; ctx < 3; ctx++)
        for (size_t a = 0; a < NS; a++)
            for (size_t b = 0; b < NS; b++, tag++) {
                unsigned char *p = T(malloc)(sizes[a]);
                cr_assert_not_null(p);
                void *after = ctx ? T(malloc)(sizes[a]) : NULL;
                if (ctx == 2)
                    T(free)(after), after = NULL;
                ut_fill(p, sizes[a], tag);
                unsigned char *q = T(realloc)(p, sizes[b]);
                cr_assert_not_null(q, "realloc %zu -> %zu", sizes[a], sizes[b]);
                cr_assert_eq((uintptr_t)q % 16, 0);
                cr_assert_geq(T(malloc_usable_size)(q), sizes[b]);
                size_t keep = sizes[a] < sizes[b] ? sizes[a] : sizes[b];
                size_t bad = ut_check(q, keep, tag);
                cr_assert_eq(bad, (size_t)-1, "realloc %zu -> %zu (ctx %d) lost byte %zu",
                             sizes[a], sizes[b], ctx, bad);
                /* The grown tail is usable. */
                memset(q + keep, 0x77, sizes[b] - keep);
                T(free)(q);
                T(free)(after);
            }
}

/* Growing one block step by step, the pattern an append buffer follows. */
Test(realloc, repeated_growth_and_shrink)
{
    unsigned char *p = NULL;
    size_t n = 0;
    for (size_t next = 1; next < (4u << 20); next = next * 3 / 2 + 7) {
        p = T(realloc)(p, next);
        cr_assert_not_null(p);
        cr_assert_eq(ut_check(p, n, 99), (size_t)-1, "prefix lost growing to %zu", next);
        ut_fill(p, next, 99);
        n = next;
    }
    while (n > 10) {
        n = n / 2;
        p = T(realloc)(p, n);
        cr_assert_not_null(p);
        cr_assert_eq(ut_check(p, n, 99), (size_t)-1, "prefix lost shrinking to %zu", n);
    }
    T(free)(p);
}
