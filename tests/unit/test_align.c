/*
 * test_align.c — memalign, posix_memalign, aligned_alloc, valloc and
 * pvalloc: every power-of-two alignment up to 1 MiB for a spread of sizes,
 * and the error contracts (EINVAL/ENOMEM, *memptr left alone), as in glibc
 * 2.36.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "util.h"

static size_t sz(size_t n)
{
    volatile size_t v = n;
    return v;
}

static const size_t sizes[] = {0, 1, 15, 16, 17, 100, 1000, 4096, 100000, 200000, 2u << 20};
#define NSIZES (sizeof sizes / sizeof sizes[0])

/*
 * check_block - assert @p is a usable, @align-aligned block of @n bytes,
 * fill it, and return it.  Filling the whole usable size catches a usable
 * size that overlaps the next chunk once the later blocks are checked.
 */
static void check_block(const char *fn, void *p, size_t align, size_t n)
{
    cr_assert_not_null(p, "%s(%zu, %zu) failed", fn, align, n);
    cr_assert_eq((uintptr_t)p % align, 0, "%s(%zu, %zu) = %p misaligned", fn, align, n, p);
    size_t u = T(malloc_usable_size)(p);
    cr_assert_geq(u, n, "%s(%zu, %zu): usable %zu", fn, align, n, u);
    ut_fill(p, u, align ^ n);
}

/* Allocates all sizes for one alignment before freeing any, so that a
 * block's usable size overlapping its neighbour shows up as a changed
 * pattern. */
static void run_alignment(const char *fn, size_t align)
{
    void *p[NSIZES];
    for (size_t s = 0; s < NSIZES; s++) {
        if (!strcmp(fn, "memalign")) {
            p[s] = T(memalign)(align, sizes[s]);
        } else if (!strcmp(fn, "aligned_alloc")) {
            p[s] = T(aligned_alloc)(align, sizes[s]);
        } else {
            void *m = (void *)0x1;
            int rc = T(posix_memalign)(&m, align, sizes[s]);
            cr_assert_eq(rc, 0, "posix_memalign(%zu, %zu) = %d", align, sizes[s], rc);
            p[s] = m;
        }
        check_block(fn, p[s], align, sizes[s]);
    }
    for (size_t s = 0; s < NSIZES; s++) {
        size_t u = T(malloc_usable_size)(p[s]);
        size_t bad = ut_check(p[s], u, align ^ sizes[s]);
        cr_assert_eq(bad, (size_t)-1, "%s(%zu, %zu) block overwritten at %zu",
                     fn, align, sizes[s], bad);
        T(free)(p[s]);
    }
}

Test(align, memalign_every_power_of_two)
{
    for (size_t a = 1; a <= (1u << 20); a <<= 1)
        run_alignment("memalign", a);
}

Test(align, aligned_alloc_every_power_of_two)
{
    for (size_t a = 1; a <= (1u << 20); a <<= 1)
        run_alignment("aligned_alloc", a);
}

Test(align, posix_memalign_every_power_of_two)
{
    for (size_t a = sizeof(void *); a <= (1u << 20); a <<= 1)
        run_alignment("posix_memalign", a);
}

/* Aligned blocks interleaved with plain ones and freed in mixed order:
 * the leading/trailing remainders memalign splits off must become
 * proper free chunks that later allocations can reuse safely. */
Test(align, mixed_with_malloc)
{
    enum { N = 300 };
    void *p[N];
    size_t n[N];
    for (int i = 0; i < N; i++) {
        n[i] = (size_t)(i * 37) % 3000;
        size_t align = (size_t)1 << (4 + i % 9);
        p[i] = (i % 3) ? T(memalign)(align, n[i]) : T(malloc)(n[i]);
        cr_assert_not_null(p[i]);
        if (i % 3)
            cr_assert_eq((uintptr_t)p[i] % align, 0);
        ut_fill(p[i], n[i], (uint64_t)i);
    }
    for (int i = 0; i < N; i += 2)
        T(free)(p[i]), p[i] = NULL;
    for (int i = 0; i < N; i += 2) {
        n[i] = 64 + (size_t)i;
        p[i] = T(malloc)(n[i]);
        cr_assert_not_null(p[i]);
        ut_fill(p[i], n[i], (uint64_t)i);
    }
    for (int i = 0; i < N; i++) {
        cr_assert_eq(ut_check(p[i], n[i], (uint64_t)i), (size_t)-1, "block %d overwritten", i);
        T(free)(p[i]);
    }
}

/* glibc's memalign accepts any alignment: up to 16 it is malloc, other
 * non-powers of two round up to the next power of two. */
Test(align, memalign_rounds_odd_alignment_up)
{
    static const size_t odd[][2] = {{3, 16}, {24, 32}, {48, 64}, {100, 128}, {3000, 4096},
                                    {40000, 65536}};
    for (size_t i = 0; i < sizeof odd / sizeof odd[0]; i++) {
        void *p = T(memalign)(odd[i][0], 50);
        cr_assert_not_null(p, "memalign(%zu, 50)", odd[i][0]);
        cr_assert_eq((uintptr_t)p % odd[i][1], 0, "memalign(%zu) not %zu-aligned",
                     odd[i][0], odd[i][1]);
        T(free)(p);
    }
    void *p = T(memalign)(0, 10);
    cr_assert_not_null(p, "memalign(0, n) is malloc(n)");
    T(free)(p);
}

Test(align, memalign_errors)
{
    /* Alignment too big to be a power of two: EINVAL. */
    errno = 0;
    cr_assert_null(T(memalign)(sz(SIZE_MAX / 2 + 2), 16));
    cr_assert_eq(errno, EINVAL);
    /* Sizes that cannot be served: ENOMEM, for small and big alignments. */
    static const size_t aligns[] = {8, 64, 4096, 1u << 20, SIZE_MAX / 2 + 1};
    static const size_t bad[] = {(size_t)PTRDIFF_MAX + 1, SIZE_MAX, SIZE_MAX - 4096,
                                 (size_t)1 << 47};
    for (size_t a = 0; a < sizeof aligns / sizeof aligns[0]; a++)
        for (size_t b = 0; b < sizeof bad / sizeof bad[0]; b++) {
            errno = 0;
            cr_assert_null(T(memalign)(aligns[a], sz(bad[b])),
                           "memalign(%zu, %zu) must fail", aligns[a], bad[b]);
            cr_assert_eq(errno, ENOMEM, "memalign(%zu, %zu): errno %d",
                         aligns[a], bad[b], errno);
            errno = 0;
            cr_assert_null(T(aligned_alloc)(aligns[a], sz(bad[b])));
            cr_assert_eq(errno, ENOMEM);
        }
}

/* posix_memalign: EINVAL unless the alignment is a power of two multiple
 * of sizeof(void *); ENOMEM when it cannot allocate; in both cases the
 * return value carries the error and *memptr is not written.  errno: left
 * alone on EINVAL, ENOMEM after ENOMEM (glibc 2.36's allocator sets it, and
 * glibc's own tests check it). */
Test(align, posix_memalign_errors_leave_memptr)
{
    void *const sentinel = (void *)0xdeadbeefcafe0000ull;
    static const size_t einval[] = {0, 1, 2, 4, 12, 24, 48, 96, 4097, 3u << 20,
                                    SIZE_MAX / 2 + 2, SIZE_MAX};
    for (size_t i = 0; i < sizeof einval / sizeof einval[0]; i++) {
        void *m = sentinel;
        errno = 0;
        int rc = T(posix_memalign)(&m, sz(einval[i]), 64);
        cr_assert_eq(rc, EINVAL, "posix_memalign(align %zu) = %d, want EINVAL", einval[i], rc);
        cr_assert_eq(m, sentinel, "*memptr written on EINVAL");
        cr_assert_eq(errno, 0, "posix_memalign(align %zu): EINVAL changed errno to %d",
                     einval[i], errno);
    }
    static const size_t enomem[][2] = {
        {16, (size_t)PTRDIFF_MAX + 1}, {16, SIZE_MAX}, {4096, (size_t)1 << 47},
        {1u << 20, SIZE_MAX - 100}, {SIZE_MAX / 2 + 1, 16},
    };
    for (size_t i = 0; i < sizeof enomem / sizeof enomem[0]; i++) {
        void *m = sentinel;
        errno = 0;
        int rc = T(posix_memalign)(&m, enomem[i][0], sz(enomem[i][1]));
        cr_assert_eq(rc, ENOMEM, "posix_memalign(%zu, %zu) = %d, want ENOMEM",
                     enomem[i][0], enomem[i][1], rc);
        cr_assert_eq(m, sentinel, "*memptr written on ENOMEM");
        cr_assert_eq(errno, ENOMEM, "posix_memalign(%zu, %zu) failed with errno %d, want ENOMEM",
                     enomem[i][0], enomem[i][1], errno);
    }
}

Test(align, valloc_and_pvalloc)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    static const size_t vs[] = {0, 1, 100, 4095, 4096, 4097, 100000, 300000};
    for (size_t i = 0; i < sizeof vs / sizeof vs[0]; i++) {
        void *p = T(valloc)(vs[i]);
        check_block("valloc", p, page, vs[i]);
        /* pvalloc rounds the size itself up to whole pages. */
        void *q = T(pvalloc)(vs[i]);
        size_t want = (vs[i] + page - 1) / page * page;
        check_block("pvalloc", q, page, want);
        T(free)(p);
        T(free)(q);
    }
    static const size_t bad[] = {(size_t)PTRDIFF_MAX + 1, SIZE_MAX, SIZE_MAX - 4096,
                                 (size_t)1 << 47};
    for (size_t b = 0; b < sizeof bad / sizeof bad[0]; b++) {
        errno = 0;
        cr_assert_null(T(valloc)(sz(bad[b])), "valloc(%zu)", bad[b]);
        cr_assert_eq(errno, ENOMEM);
        errno = 0;
        cr_assert_null(T(pvalloc)(sz(bad[b])), "pvalloc(%zu)", bad[b]);
        cr_assert_eq(errno, ENOMEM);
    }
}

/* Aligned blocks keep their contents and alignment-independent contract
 * through realloc (realloc need not keep the alignment). */
Test(align, realloc_of_aligned_block)
{
    for (size_t a = 32; a <= (1u << 16); a <<= 2) {
        unsigned char *p = T(memalign)(a, 300);
        cr_assert_not_null(p);
        ut_fill(p, 300, a);
        p = T(realloc)(p, 5000);
        cr_assert_not_null(p);
        cr_assert_eq(ut_check(p, 300, a), (size_t)-1);
        p = T(realloc)(p, 100);
        cr_assert_not_null(p);
        cr_assert_eq(ut_check(p, 100, a), (size_t)-1);
        T(free)(p);
    }
}
