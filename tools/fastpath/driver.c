/*
 * driver.c — a small program that walks every allocator path once, for
 * tools/check-fastpath.sh.
 *
 * Usage: driver [st|mt]
 *   st (default)  stays single-threaded from start to exit;
 *   mt            first starts one extra thread, kept alive (blocked in
 *                 read(2) on a pipe, which takes no lock) until the work is
 *                 done, so the allocator must run its multi-threaded paths.
 * Prints "cg_object=<path> cg_base=0x<hex>" (the object that defines the
 * malloc this process calls, and its load address, from dladdr) and
 * "checksum=<n>"; exit status 0, or 1 if a block's contents were lost
 * (the tool's results mean nothing if the allocator is not even correct).
 *
 * The paths, named as in a ptmalloc-shaped heap: tcache hits, fastbins
 * (more than 7 frees of one size, so the tcache bin overflows), unsorted,
 * small and large bins (frees separated by live guards, so nothing
 * coalesces into top), top growth past one 64 MiB heap and trimming, mmap'd
 * blocks (both below and above glibc's dynamic threshold ceiling), realloc
 * grow/shrink in place and by moving, calloc of small and fresh big blocks,
 * every power-of-two alignment up to 1 MiB, and malloc_trim.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <malloc.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static unsigned long checksum;
static int broken;

/* Fill a block with a pattern derived from its size, so a lost or
 * overlapping block shows up in check(). */
static void fill(unsigned char *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i += 61)
        p[i] = (unsigned char)(seed + i);
    if (n)
        p[n - 1] = (unsigned char)seed;
}

static void check(const unsigned char *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i += 61)
        if (p[i] != (unsigned char)(seed + i) && !(i == n - 1))
            broken = 1;
    if (n && p[n - 1] != (unsigned char)seed)
        broken = 1;
    checksum = checksum * 31 + n + seed;
}

/* Allocate and fail loudly: a NULL here makes every later count wrong. */
static void *xmalloc(size_t n)
{
    void *p = malloc(n);
    if (!p) {
        fprintf(stderr, "driver: malloc(%zu) failed\n", n);
        exit(1);
    }
    return p;
}

/* tcache: the same size freed and taken again hits the per-thread cache. */
static void tcache_hits(void)
{
    for (int round = 0; round < 1000; round++) {
        size_t n = 16 + (size_t)(round % 64) * 16;
        unsigned char *p = xmalloc(n);
        fill(p, n, round);
        check(p, n, round);
        free(p);
    }
}

/* fastbins: 20 frees of one small size: 7 fill the tcache bin, 13 go to
 * the fastbin; taking 20 back empties both (tcache first, then fastbin,
 * which also refills the tcache from the fastbin). */
static void fastbins(void)
{
    enum { N = 20 };
    static const size_t sizes[] = { 24, 40, 56, 72, 88, 104, 120 };
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        unsigned char *p[N];
        for (int i = 0; i < N; i++) {
            p[i] = xmalloc(sizes[s]);
            fill(p[i], sizes[s], i);
        }
        for (int i = 0; i < N; i++) {
            check(p[i], sizes[s], i);
            free(p[i]);
        }
        for (int i = 0; i < N; i++)
            p[i] = xmalloc(sizes[s]);
        for (int i = 0; i < N; i++)
            free(p[i]);
    }
}

/* small and large bins: free blocks with live guards between them (so they
 * stay separate free chunks), then ask for other sizes so the unsorted bin
 * is sorted into small and large bins and served from there by splitting. */
static void bins(void)
{
    enum { N = 24 };
    void *blk[N], *guard[N];
    for (int i = 0; i < N; i++) {
        /* small: 1040..~1500 bytes (beyond the tcache's 1032); large:
         * 2 KiB .. ~100 KiB (under the 128 KiB mmap threshold). */
        size_t n = (i < N / 2) ? 1040 + (size_t)i * 40 : 2048 + (size_t)i * 4096;
        blk[i] = xmalloc(n);
        fill(blk[i], n, i);
        guard[i] = xmalloc(32);
    }
    for (int i = 0; i < N; i += 2)
        free(blk[i]);
    /* A request that fits none exactly: sorts the unsorted bin. */
    void *big = xmalloc(200000 / 2);
    void *smalls[N / 2];
    for (int i = 0; i < N / 2; i++)
        smalls[i] = xmalloc(1000 + (size_t)i * 100); /* split from bins */
    for (int i = 1; i < N; i += 2)
        free(blk[i]);
    for (int i = 0; i < N / 2; i++)
        free(smalls[i]);
    free(big);
    for (int i = 0; i < N; i++)
        free(guard[i]);
}

/* top growth and trimming: ~100 MiB in 100 KiB blocks (below the mmap
 * threshold) outgrows one 64 MiB heap; freeing them all in reverse
 * coalesces into top, which is then trimmed. */
static void top_growth(void)
{
    enum { N = 1000, SZ = 100 * 1024 };
    static void *p[N];
    for (int i = 0; i < N; i++) {
        p[i] = xmalloc(SZ);
        fill(p[i], SZ, i);
    }
    for (int i = N - 1; i >= 0; i--) {
        check(p[i], SZ, i);
        free(p[i]);
    }
}

/* mmap'd blocks: 200 KiB is above the initial 128 KiB threshold (freeing it
 * raises glibc's dynamic threshold, so it comes first); 40 MiB is above the
 * threshold's 32 MiB ceiling and is always mmap'd. */
static void mmapped(void)
{
    static const size_t sizes[] = { 200 * 1024, 40u << 20, 300 * 1024 };
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        unsigned char *p = xmalloc(sizes[i]);
        fill(p, sizes[i], (unsigned)i);
        check(p, sizes[i], (unsigned)i);
        free(p);
    }
}

/* realloc: grow and shrink in place (top or a free neighbour), grow by
 * moving (a live block behind), small -> mmap'd -> small, and the edge
 * cases realloc(NULL, n) and reallocarray. */
static void reallocs(void)
{
    size_t n = 24;
    unsigned char *p = realloc(NULL, n);
    if (!p)
        exit(1);
    fill(p, n, 7);
    static const size_t steps[] = { 100, 4000, 64, 300000, 50 << 20, 5000, 16 };
    for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++) {
        void *pin = xmalloc(40); /* a live block after p forces moves */
        unsigned char *q = realloc(p, steps[i]);
        if (!q)
            exit(1);
        if (q[0] != 7) /* fill() put the seed in the first byte */
            broken = 1;
        p = q;
        n = steps[i];
        fill(p, n, 7);
        free(pin);
    }
    check(p, n, 7);
    unsigned char *r = reallocarray(p, 10, 10);
    if (!r)
        exit(1);
    free(r);
}

/* calloc: small blocks (recycled, must be cleared), a fresh big block from
 * top, and an mmap'd one (already zero). */
static void callocs(void)
{
    static const size_t sizes[] = { 8, 100, 1000, 5000, 100000, 1 << 20, 8 << 20 };
    for (int round = 0; round < 2; round++) {
        for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
            unsigned char *p = calloc(1, sizes[i]);
            if (!p)
                exit(1);
            for (size_t j = 0; j < sizes[i]; j += 97)
                if (p[j])
                    broken = 1;
            memset(p, 0xa5, sizes[i]);
            free(p);
        }
    }
}

/* memalign family: every power-of-two alignment from 16 to 1 MiB, small
 * and page-sized requests. */
static void aligned(void)
{
    for (size_t a = 16; a <= (1u << 20); a <<= 1) {
        static const size_t sizes[] = { 1, 100, 5000 };
        for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
            void *p = memalign(a, sizes[i]);
            void *q = NULL;
            if (!p || ((uintptr_t)p & (a - 1)) || posix_memalign(&q, a, sizes[i]) ||
                ((uintptr_t)q & (a - 1)))
                broken = 1;
            fill(p, sizes[i], 3);
            check(p, sizes[i], 3);
            free(q);
            free(p);
        }
        void *r = aligned_alloc(a, a);
        if (!r || ((uintptr_t)r & (a - 1)))
            broken = 1;
        free(r);
    }
    free(valloc(100));
    free(pvalloc(100));
}

static int wake_pipe[2];

/* The extra thread of the mt variant: sleeps in read(2) until main is done. */
static void *idle_thread(void *arg)
{
    char c;
    (void)arg;
    while (read(wake_pipe[0], &c, 1) < 0)
        ;
    return NULL;
}

int main(int argc, char **argv)
{
    int mt = argc > 1 && strcmp(argv[1], "mt") == 0;
    pthread_t th;
    if (mt) {
        if (pipe(wake_pipe) || pthread_create(&th, NULL, idle_thread, NULL)) {
            perror("driver: thread");
            return 1;
        }
    }

    /* Which object serves malloc here, and where it is loaded: lets the
     * checker map callgrind's addresses to the file's and confirms that
     * LD_PRELOAD took effect. */
    Dl_info info;
    void *sym = dlsym(RTLD_DEFAULT, "malloc");
    if (!sym || !dladdr(sym, &info)) {
        fprintf(stderr, "driver: cannot locate malloc\n");
        return 1;
    }
    printf("cg_object=%s cg_base=%p\n", info.dli_fname, info.dli_fbase);

    free(NULL);
    tcache_hits();
    fastbins();
    bins();
    top_growth();
    mmapped();
    reallocs();
    callocs();
    aligned();
    void *keep = xmalloc(123);
    (void)malloc_usable_size(keep);
    free(keep);
    malloc_trim(0);

    if (mt) {
        if (write(wake_pipe[1], "x", 1) != 1 || pthread_join(th, NULL)) {
            perror("driver: join");
            return 1;
        }
    }
    printf("checksum=%lu\n", checksum);
    if (broken)
        fprintf(stderr, "driver: a block lost its contents or alignment\n");
    return broken;
}
