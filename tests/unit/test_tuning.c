/*
 * test_tuning.c — mallopt (M_MMAP_THRESHOLD, M_TRIM_THRESHOLD, M_ARENA_MAX,
 * M_MXFAST, M_PERTURB), mallinfo2, malloc_trim, malloc_stats and
 * malloc_info, each judged by an effect a program can observe, as on
 * glibc 2.36.  Criterion runs every test in its own process, so the
 * settings one test makes never leak into another.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "util.h"

/* Allocates @n blocks of @size bytes (touching them), frees them, and
 * returns how many were mmapped. */
static int count_mmapped(int n, size_t size)
{
    void *p[100];
    int mapped = 0;
    cr_assert_leq(n, 100);
    for (int i = 0; i < n; i++) {
        p[i] = T(malloc)(size);
        cr_assert_not_null(p[i]);
        memset(p[i], 0x44, size);
        mapped += ut_is_mmapped(p[i]);
    }
    for (int i = 0; i < n; i++)
        T(free)(p[i]);
    return mapped;
}

Test(mallopt, mmap_threshold)
{
    /* Default: 128 KiB, raised by each free of a bigger mmapped block up
     * to 32 MiB (glibc's dynamic threshold), so the same size comes from
     * the heap next time.  4 MiB, because the test framework may already
     * have raised the threshold past smaller sizes in this process. */
    void *p = T(malloc)(4 << 20);
    cr_assert_not_null(p);
    cr_assert(ut_is_mmapped(p), "4 MiB should be mmapped by default");
    T(free)(p);
    p = T(malloc)(4 << 20);
    cr_assert(!ut_is_mmapped(p), "dynamic threshold did not rise after free");
    T(free)(p);

    /* The threshold applies to requests the top chunk cannot serve, so
     * allocate more than any top could hold and count the mmapped ones. */
    cr_assert_eq(T(mallopt)(M_MMAP_THRESHOLD, 64 * 1024), 1);
    cr_assert_geq(count_mmapped(80, 100000), 30, "M_MMAP_THRESHOLD=64K: 100000 not mmapped");
    cr_assert_eq(T(mallopt)(M_MMAP_THRESHOLD, 1 << 20), 1);
    cr_assert_eq(count_mmapped(40, 500000), 0, "M_MMAP_THRESHOLD=1M: 500000 mmapped");
    cr_assert_eq(T(mallopt)(M_MMAP_THRESHOLD, 256 * 1024), 1);
    cr_assert_geq(count_mmapped(20, 2 << 20), 15, "M_MMAP_THRESHOLD=256K: 2 MiB not mmapped");
    /* Up to HEAP_MAX/2 (32 MiB).  glibc 2.36 also accepts larger values
     * (its main arena is not a bounded heap); that is not asserted here. */
    cr_assert_eq(T(mallopt)(M_MMAP_THRESHOLD, 32 << 20), 1);
    cr_assert_eq(count_mmapped(3, 20 << 20), 0, "M_MMAP_THRESHOLD=32M: 20 MiB mmapped");
}

/* The whole test runs with a threshold that keeps 8 MiB in the heap. */
static long free_top_block(int trim_threshold)
{
    cr_assert_eq(T(mallopt)(M_MMAP_THRESHOLD, 32 << 20), 1);
    cr_assert_eq(T(mallopt)(M_TRIM_THRESHOLD, trim_threshold), 1);
    unsigned char *p = T(malloc)(8 << 20);
    cr_assert_not_null(p);
    cr_assert(!ut_is_mmapped(p));
    memset(p, 0x11, 8 << 20);
    long before = ut_rss_kb();
    T(free)(p);
    long after = ut_rss_kb();
    cr_assert_gt(before, 0);
    return before - after;
}

Test(mallopt, trim_threshold_low_gives_memory_back)
{
    long dropped = free_top_block(128 * 1024);
    cr_assert_gt(dropped, 6 * 1024, "freeing 8 MiB at the top released only %ld KiB", dropped);
}

Test(mallopt, trim_threshold_high_keeps_memory)
{
    long dropped = free_top_block(256 << 20);
    cr_assert_lt(dropped, 1024, "M_TRIM_THRESHOLD=256M but %ld KiB were released", dropped);
}

/* Arenas visible to the test: chunkguard counts them; glibc lists one
 * <heap nr=...> element per arena in malloc_info. */
static long arena_count(void)
{
#if UT_HAVE_CG
    cg_stats_t st;
    cg_get_stats(&st);
    return (long)st.arenas;
#else
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    cr_assert_not_null(f);
    cr_assert_eq(malloc_info(0, f), 0);
    fclose(f);
    long n = 0;
    for (char *s = buf; (s = strstr(s, "<heap nr=")); s++)
        n++;
    free(buf);
    return n;
#endif
}

static pthread_barrier_t start_line;

/* Thread body: allocate while every other thread is also allocating, so
 * each needs an arena at the same time. */
static void *arena_user(void *arg)
{
    (void)arg;
    pthread_barrier_wait(&start_line);
    void *p = T(malloc)(1000);
    pthread_barrier_wait(&start_line);
    T(free)(p);
    return NULL;
}

static long arenas_added_by_threads(void)
{
    enum { NT = 4 };
    pthread_t t[NT];
    long before = arena_count();
    pthread_barrier_init(&start_line, NULL, NT);
    for (int i = 0; i < NT; i++)
        cr_assert_eq(pthread_create(&t[i], NULL, arena_user, NULL), 0);
    for (int i = 0; i < NT; i++)
        pthread_join(t[i], NULL);
    pthread_barrier_destroy(&start_line);
    return arena_count() - before;
}

Test(mallopt, arena_max_one_keeps_one_arena)
{
    cr_assert_eq(T(mallopt)(M_ARENA_MAX, 1), 1);
    long added = arenas_added_by_threads();
    cr_assert_eq(added, 0, "M_ARENA_MAX=1 but threads created %ld arenas", added);
}

/* The control for the test above: without the limit, concurrent threads
 * do get arenas of their own, so a zero there means the limit worked. */
Test(mallopt, threads_get_arenas_by_default)
{
    long added = arenas_added_by_threads();
    cr_assert_gt(added, 0, "4 concurrent threads created no arena");
}

/* Freed fastbin blocks are what mallinfo2 reports as smblks/fsmblks; the
 * tcache takes the first 7 of a size, the rest go to a fastbin only when
 * the chunk size is within M_MXFAST. */
static long fast_blocks_after_freeing(size_t n)
{
    enum { N = 30 };
    void *p[N];
    for (int i = 0; i < N; i++)
        cr_assert_not_null(p[i] = T(malloc)(n));
    /* A live block above them, so no free merges with the top chunk: that
     * would consolidate the fastbins (as glibc does past 64 KiB). */
    void *guard = T(malloc)(n);
    struct mallinfo2 before = T(mallinfo2)();
    for (int i = 0; i < N; i++)
        T(free)(p[i]);
    struct mallinfo2 after = T(mallinfo2)();
    long blocks = (long)(after.smblks - before.smblks);
    long bytes = (long)(after.fsmblks - before.fsmblks);
    /* Each fastbin block holds at least the request. */
    cr_assert_geq(bytes, blocks * (long)n, "fsmblks grew %ld for %ld blocks", bytes, blocks);
    T(free)(guard);
    return blocks;
}

Test(mallopt, mxfast_default_and_limits)
{
    cr_assert_geq(fast_blocks_after_freeing(100), 20, "120-byte requests are fast by default");
    cr_assert_eq(fast_blocks_after_freeing(150), 0, "150-byte requests are not fast by default");
    cr_assert_eq(T(mallopt)(M_MXFAST, 161), 0, "M_MXFAST above 160 must be refused");
    cr_assert_eq(T(mallopt)(M_MXFAST, 1000), 0);
    cr_assert_eq(fast_blocks_after_freeing(150), 0, "refused M_MXFAST changed the limit");
}

Test(mallopt, mxfast_160)
{
    cr_assert_eq(T(mallopt)(M_MXFAST, 160), 1);
    long n = fast_blocks_after_freeing(150);
    cr_assert_geq(n, 20, "M_MXFAST=160: only %ld of 23 blocks in fastbins", n);
    void *p = T(malloc)(150);
    cr_assert_not_null(p);
    memset(p, 3, 150);
    T(free)(p);
}

Test(mallopt, mxfast_zero_disables_fastbins)
{
    cr_assert_eq(T(mallopt)(M_MXFAST, 0), 1);
    cr_assert_eq(fast_blocks_after_freeing(24), 0);
    cr_assert_eq(fast_blocks_after_freeing(100), 0);
}

/* M_PERTURB: memory malloc hands out is filled with the byte's complement,
 * memory freed (beyond the free-list links) with the byte itself; calloc
 * still zeroes.  Sizes above the tcache range, where glibc applies it. */
Test(mallopt, perturb_fills)
{
    cr_assert_eq(T(mallopt)(M_PERTURB, 0xA5), 1);
    unsigned char *p = T(malloc)(3000);
    unsigned char *guard = T(malloc)(3000); /* keeps p away from the top */
    cr_assert_not_null(p);
    cr_assert_not_null(guard);
    cr_assert(ut_all(p, 3000, 0x5A), "malloc under M_PERTURB=0xA5 not filled with 0x5A");
    T(free)(p);
    /* Reading freed memory is the point of perturb; the bin links live in
     * the first 32 bytes (fd, bk, and the large-bin fd/bk_nextsize) and
     * the next chunk's prev_size in the last 8. */
    cr_assert(ut_all(p + 32, 3000 - 48, 0xA5), "freed block not filled with 0xA5");
    unsigned char *z = T(calloc)(1, 3000);
    cr_assert_not_null(z);
    cr_assert(ut_all(z, 3000, 0), "calloc under M_PERTURB not zeroed");
    T(free)(z);
    T(free)(guard);
    cr_assert_eq(T(mallopt)(M_PERTURB, 0), 1);
    p = T(malloc)(3000);
    cr_assert_not_null(p);
    T(free)(p);
}

Test(mallinfo2, counts_heap_and_mmap)
{
    struct mallinfo2 a = T(mallinfo2)();
    void *h = T(malloc)(50000);
    void *m = T(malloc)(1u << 20);
    cr_assert_not_null(h);
    cr_assert_not_null(m);
    cr_assert(!ut_is_mmapped(h) && ut_is_mmapped(m));
    struct mallinfo2 b = T(mallinfo2)();
    cr_assert_geq(b.uordblks, a.uordblks + 50000, "uordblks %zu -> %zu", a.uordblks, b.uordblks);
    cr_assert_eq(b.hblks, a.hblks + 1, "hblks %zu -> %zu", a.hblks, b.hblks);
    cr_assert_geq(b.hblkhd, a.hblkhd + (1u << 20));
    cr_assert_geq(b.arena, b.uordblks, "arena must cover the bytes in use");
    cr_assert_eq(b.arena, b.uordblks + b.fordblks, "arena = in use + free");
    T(free)(h);
    T(free)(m);
    struct mallinfo2 c = T(mallinfo2)();
    cr_assert_eq(c.hblks, a.hblks);
    cr_assert_eq(c.hblkhd, a.hblkhd);
    cr_assert_leq(c.uordblks, b.uordblks - 50000);
}

/* malloc_trim gives free memory inside the heap back (madvise), not only
 * the top: free every other of 2000 touched 4000-byte blocks with
 * automatic trimming off, then trim. */
Test(malloc_trim, releases_free_pages)
{
    enum { N = 2000 };
    static void *p[N];
    cr_assert_eq(T(mallopt)(M_TRIM_THRESHOLD, 512 << 20), 1);
    for (int i = 0; i < N; i++) {
        cr_assert_not_null(p[i] = T(malloc)(4000));
        memset(p[i], 0x22, 4000);
    }
    /* Free runs of 15 out of every 16 blocks: ~56 KiB free ranges with
     * whole pages inside them, between blocks that stay live. */
    for (int i = 0; i < N; i++)
        if (i % 16)
            T(free)(p[i]), p[i] = NULL;
    long before = ut_rss_kb();
    int rc = T(malloc_trim)(0);
    long after = ut_rss_kb();
    cr_assert_eq(rc, 1, "malloc_trim released nothing");
    cr_assert_gt(before - after, 4 * 1024, "malloc_trim released only %ld KiB", before - after);
    /* The heap is intact and reusable afterwards. */
    for (int i = 0; i < N; i++)
        if (!p[i]) {
            cr_assert_not_null(p[i] = T(malloc)(4000));
            memset(p[i], 0x33, 4000);
        }
    for (int i = 0; i < N; i++)
        T(free)(p[i]);
}

/* Runs @fn with stderr captured into a buffer the caller frees. */
static char *capture_stderr(void (*fn)(void))
{
    char path[] = "/tmp/ut-stderr-XXXXXX";
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    unlink(path);
    fflush(stderr);
    int saved = dup(2);
    dup2(fd, 2);
    fn();
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    off_t len = lseek(fd, 0, SEEK_END);
    char *buf = calloc(1, (size_t)len + 1);
    pread(fd, buf, (size_t)len, 0);
    close(fd);
    return buf;
}

static void call_malloc_stats(void)
{
    void *p = T(malloc)(5000);
    T(malloc_stats)();
    T(free)(p);
}

Test(malloc_stats, prints_arena_summary)
{
    char *out = capture_stderr(call_malloc_stats);
    cr_assert_not_null(strstr(out, "system bytes"), "malloc_stats output: %s", out);
    cr_assert_not_null(strstr(out, "in use bytes"), "malloc_stats output: %s", out);
    free(out);
}

Test(malloc_info, xml_and_einval)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    cr_assert_not_null(f);
    void *p = T(malloc)(5000);
    cr_assert_eq(T(malloc_info)(0, f), 0);
    T(free)(p);
    fclose(f);
    cr_assert(len > 0 && !strncmp(buf, "<malloc version=\"1\">", 20),
              "malloc_info output starts: %.40s", buf);
    cr_assert_not_null(strstr(buf, "</malloc>"), "malloc_info output not closed");
    free(buf);
    /* Options are reserved: any non-zero value is EINVAL (returned). */
    f = fopen("/dev/null", "w");
    cr_assert_eq(T(malloc_info)(1, f), EINVAL);
    fclose(f);
}

/* One tcache bin holding chunks of two heaps: the inline pop accepts only
 * links inside the head's own heap and leaves any other to the slow path's
 * full check (tcache.h), which must accept a real chunk of another heap. */
Test(tcache, bin_links_across_heaps)
{
    const uintptr_t heap_mask = ~(uintptr_t)((64u << 20) - 1);
    void *a = T(malloc)(40);
    cr_assert_not_null(a);
    /* 40-byte blocks until one comes from another heap (the first heap
     * holds at most 64 MiB / 48 of them); chained through their first word. */
    void **chain = NULL, *b = NULL;
    for (long i = 0; i < 3000000 && b == NULL; i++) {
        void **q = T(malloc)(40);
        cr_assert_not_null(q);
        if ((((uintptr_t)q ^ (uintptr_t)a) & heap_mask) != 0) {
            b = q;
        } else {
            *q = chain;
            chain = q;
        }
    }
    cr_assert_not_null(b, "no 40-byte block came from a second heap");
    T(free)(a);
    T(free)(b);                       /* the bin: b, then a (another heap) */
    cr_assert_eq(T(malloc)(40), b);
    cr_assert_eq(T(malloc)(40), a);
    T(free)(a);
    T(free)(b);
    while (chain != NULL) {
        void **next = *chain;
        T(free)(chain);
        chain = next;
    }
}
