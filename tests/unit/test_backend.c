/*
 * test_backend.c — that the build really exercises the allocator it names
 * (a unit test silently running glibc's malloc would prove nothing), and
 * the entry points beyond the C standard: glibc's __libc_* aliases and
 * C23's free_sized / free_aligned_sized.
 */
#define _GNU_SOURCE /* dladdr, Dl_info */
#include <criterion/criterion.h>
#include <dlfcn.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "util.h"

#if UT_HAVE_CG
/* cg_get_stats counts calls served by chunkguard: if malloc went anywhere
 * else, the counters would not move. */
Test(backend, chunkguard_serves_the_calls)
{
    cg_stats_t a, b;
    cg_get_stats(&a);
    void *p = T(malloc)(100);
    void *q = T(calloc)(3, 100);
    p = T(realloc)(p, 1000);
    void *r = T(memalign)(256, 100);
    T(free)(p);
    T(free)(q);
    T(free)(r);
    cg_get_stats(&b);
    cr_assert_geq(b.mallocs, a.mallocs + 1, "malloc not served by chunkguard");
    cr_assert_geq(b.callocs, a.callocs + 1, "calloc not served by chunkguard");
    cr_assert_geq(b.reallocs, a.reallocs + 1, "realloc not served by chunkguard");
    cr_assert_geq(b.memaligns, a.memaligns + 1, "memalign not served by chunkguard");
    cr_assert_geq(b.frees, a.frees + 3, "free not served by chunkguard");
}
#endif

#if UT_HAVE_CG && !defined(CHUNKGUARD_PREFIXED)
/* The dynamic linker resolved the standard names to libchunkguard.so,
 * not to libc: checked on the addresses this program actually calls. */
Test(backend, standard_names_resolve_to_libchunkguard)
{
    void *(*volatile fns[])(size_t) = {malloc, valloc, pvalloc, __libc_malloc};
    for (size_t i = 0; i < sizeof fns / sizeof fns[0]; i++) {
        Dl_info info;
        cr_assert_neq(dladdr((void *)fns[i], &info), 0);
        cr_assert_not_null(strstr(info.dli_fname, "libchunkguard.so"),
                           "function %zu resolves to %s", i, info.dli_fname);
    }
    Dl_info info;
    void (*volatile f)(void *) = free;
    cr_assert_neq(dladdr((void *)f, &info), 0);
    cr_assert_not_null(strstr(info.dli_fname, "libchunkguard.so"), "free is in %s",
                       info.dli_fname);
}
#endif

#if UT_HAVE_LIBC_ALIAS
/* The aliases are the same allocator as the standard names: blocks cross
 * freely between them. */
Test(libc_alias, same_allocator_as_standard_names)
{
#if UT_HAVE_CG
    cg_stats_t a, b;
    cg_get_stats(&a);
#endif
    unsigned char *p = __libc_malloc(300);
    cr_assert_not_null(p);
    cr_assert_geq(malloc_usable_size(p), 300);
    ut_fill(p, 300, 1);
    p = __libc_realloc(p, 5000);
    cr_assert_not_null(p);
    cr_assert_eq(ut_check(p, 300, 1), (size_t)-1, "__libc_realloc lost the prefix");
    free(p);

    unsigned char *d = malloc(400);
    memset(d, 0xEE, 400);
    free(d);
    unsigned char *z = __libc_calloc(4, 100);
    cr_assert_not_null(z);
    cr_assert(ut_all(z, 400, 0), "__libc_calloc not zeroed");
    __libc_free(z);

    void *m = __libc_memalign(4096, 100);
    cr_assert_not_null(m);
    cr_assert_eq((uintptr_t)m % 4096, 0);
    m = realloc(m, 200);
    __libc_free(m);

    void *q = malloc(64);
    __libc_free(q);
    errno = 0;
    cr_assert_null(__libc_malloc((size_t)PTRDIFF_MAX + 1));
    cr_assert_eq(errno, ENOMEM);
#if UT_HAVE_CG
    cg_get_stats(&b);
    cr_assert_geq(b.mallocs, a.mallocs + 2, "__libc_malloc not served by chunkguard");
    cr_assert_geq(b.callocs, a.callocs + 1, "__libc_calloc not served by chunkguard");
    cr_assert_geq(b.reallocs, a.reallocs + 1, "__libc_realloc not served by chunkguard");
    cr_assert_geq(b.memaligns, a.memaligns + 1, "__libc_memalign not served by chunkguard");
    cr_assert_geq(b.frees, a.frees + 5, "__libc_free not served by chunkguard");
#endif
}
#endif

#if UT_HAVE_FREE_SIZED
/* C23: free_sized(p, n) with n the requested size (or any size up to the
 * usable size) frees p; free_aligned_sized the same for aligned blocks.
 * The block really returns to the allocator (the LIFO tcache gives it
 * back) and big ones are unmapped without complaint. */
Test(free_sized, frees_with_the_requested_size)
{
    static const size_t sizes[] = {0, 1, 24, 100, 1000, 5000, 100000, 300000};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        void *p = T(malloc)(sizes[i]);
        cr_assert_not_null(p);
        T(free_sized)(p, sizes[i]);
        p = T(calloc)(1, sizes[i]);
        cr_assert_not_null(p);
        T(free_sized)(p, sizes[i]);
        for (size_t a = 16; a <= 65536; a <<= 4) {
            void *q = T(aligned_alloc)(a, sizes[i]);
            cr_assert_not_null(q);
            T(free_aligned_sized)(q, a, sizes[i]);
        }
    }
    void *p = T(malloc)(88);
    T(free_sized)(p, 88);
    void *q = T(malloc)(88);
    cr_assert_eq(q, p, "free_sized did not return the block to the tcache");
    T(free)(q);
}
#endif
