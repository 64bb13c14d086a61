/*
 * contract.c — glibc's malloc contract, as programs outside this project
 * rely on it (issue 13, points 4 to 7), one check per command; run by
 * tests/suites/48-contract.sh under chunkguard and under plain glibc, so
 * that each check is known to hold where the programs came from.
 *
 *   contract posix-memalign-errno   posix_memalign: ENOMEM sets errno to
 *                                    ENOMEM, EINVAL and success keep it
 *   contract mallinfo-threads N     N threads, 8 at a time, each allocating
 *                                    and freeing: uordblks stays flat
 *                                    (within 256 KiB of its start, and of
 *                                    its value after the first batch)
 *   contract mallinfo-free SIZE     a SIZE-byte block: uordblks grows by at
 *                                    least SIZE, and after free is back
 *                                    where it was, exactly (in debug mode
 *                                    too: a quarantined block is free)
 *   contract usable N               prints malloc_usable_size(malloc(N))
 *   contract uaf-child-exit how     forks while blocks wait freed in the
 *                                    quarantine; the child frees a block,
 *                                    writes into its first word and ends
 *                                    with _exit(0) or _Exit(0) (how);
 *                                    prints the child's end ("signal=N" or
 *                                    "exit=N")
 *   contract free-beside-trim N      N times: main allocates a small
 *                                    block (just below the top chunk),
 *                                    hands it to a second thread, which
 *                                    frees it (to a fastbin, its tcache
 *                                    full), while main carves 64 KiB from
 *                                    the top and frees it back, so that
 *                                    free trims the heap (M_TRIM_THRESHOLD
 *                                    8 KiB, M_TOP_PAD 0): a sound program,
 *                                    which no free may call corrupt
 * Each prints "ok" (or its value) and exits 0, or says what failed and
 * exits 1.  No stdio before the measured calls where it could allocate.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int failed(const char *what, long a, long b)
{
    printf("FAILED: %s (%ld, %ld)\n", what, a, b);
    return 1;
}

static int posix_memalign_errno(void)
{
    void *sentinel = (void *)0x1230, *p = sentinel;
    errno = 0;
    int r = posix_memalign(&p, 64, SIZE_MAX / 2);
    if (r != ENOMEM || errno != ENOMEM || p != sentinel)
        return failed("posix_memalign(64, SIZE_MAX/2): return, errno", r, errno);
    errno = 0;
    r = posix_memalign(&p, 4096, (size_t)1 << 62);
    if (r != ENOMEM || errno != ENOMEM || p != sentinel)
        return failed("posix_memalign(4096, 2^62): return, errno", r, errno);
    errno = EDOM;
    r = posix_memalign(&p, 24, 64);
    if (r != EINVAL || errno != EDOM || p != sentinel)
        return failed("posix_memalign(24, 64): return, errno (want EINVAL, EDOM kept)", r, errno);
    errno = EDOM;
    r = posix_memalign(&p, 64, 100);
    if (r != 0 || errno != EDOM || ((uintptr_t)p & 63) != 0)
        return failed("posix_memalign(64, 100): return, errno (want 0, EDOM kept)", r, errno);
    free(p);
    printf("ok\n");
    return 0;
}

/* One thread's work: blocks of the tcache, fastbin, small, large and mmap
 * ranges, all freed again. */
static void *worker(void *arg)
{
    static const size_t sizes[] = { 24, 100, 600, 5000, 70000, 300000 };
    void *p[sizeof sizes / sizeof sizes[0]];
    (void)arg;
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        p[i] = malloc(sizes[i]);
        if (p[i] != NULL)
            memset(p[i], 1, sizes[i]);
    }
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        free(p[i]);
    return NULL;
}

static size_t in_use(void)
{
    return mallinfo2().uordblks;
}

static int mallinfo_threads(long n)
{
    enum { BATCH = 8 };
    const long slack = 256 * 1024;
    size_t start = in_use(), after_first = 0, most = start;
    for (long done = 0; done < n; done += BATCH) {
        pthread_t t[BATCH];
        for (int i = 0; i < BATCH; i++)
            if (pthread_create(&t[i], NULL, worker, NULL) != 0)
                return failed("pthread_create", done + i, 0);
        for (int i = 0; i < BATCH; i++)
            pthread_join(t[i], NULL);
        size_t now = in_use();
        if (done == 0)
            after_first = now;
        if (now > most)
            most = now;
    }
    size_t end = in_use();
    if ((long)(most - start) > slack)
        return failed("uordblks rose above its start by (bytes), start", (long)(most - start),
                      (long)start);
    if ((long)(end - after_first) > slack / 4 && end > after_first)
        return failed("uordblks grew after the first batch by (bytes), threads",
                      (long)(end - after_first), n);
    printf("ok start=%zu first=%zu most=%zu end=%zu\n", start, after_first, most, end);
    return 0;
}

static int mallinfo_free(size_t size)
{
    /* a first block of the size and a first free: whatever either sets up
     * once (a stack depot, a quarantine) is in place before the counts */
    free(malloc(size));
    struct mallinfo2 a = mallinfo2();
    char *p = malloc(size);
    if (p == NULL)
        return failed("malloc", (long)size, 0);
    memset(p, 7, size);
    struct mallinfo2 b = mallinfo2();
    free(p);
    struct mallinfo2 c = mallinfo2();
    size_t ua = a.uordblks + a.hblkhd, ub = b.uordblks + b.hblkhd, uc = c.uordblks + c.hblkhd;
    if (ub < ua + size)
        return failed("in use (uordblks + hblkhd) grew less than the block: before, after",
                      (long)ua, (long)ub);
    if (uc != ua)
        return failed("in use (uordblks + hblkhd) after free is not what it was: before, after",
                      (long)ua, (long)uc);
    if (c.arena != c.uordblks + c.fordblks)
        return failed("arena != uordblks + fordblks", (long)c.arena,
                      (long)(c.uordblks + c.fordblks));
    printf("ok\n");
    return 0;
}

static int uaf_child_exit(const char *how)
{
    for (int i = 0; i < 100; i++)          /* the parent's freed blocks */
        free(malloc(40 + (size_t)i));
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0)
        return failed("fork", errno, 0);
    if (pid == 0) {
        long *p = malloc(40);
        if (p == NULL)
            _exit(3);
        free(p);
        *(volatile long *)p = 0x4141414141414141;      /* the write after free */
        if (strcmp(how, "_Exit") == 0)
            _Exit(0);
        _exit(0);
    }
    int st;
    if (waitpid(pid, &st, 0) != pid)
        return failed("waitpid", errno, 0);
    if (WIFSIGNALED(st))
        printf("signal=%d\n", WTERMSIG(st));
    else
        printf("exit=%d\n", WEXITSTATUS(st));
    return 0;
}

static void *_Atomic handed;     /* main -> the freeing thread; NULL: taken */
static _Atomic int trims_done;

static void *free_handed(void *arg)
{
    (void)arg;
    for (unsigned long k = 0;; k++) {
        void *p;
        while ((p = __atomic_load_n(&handed, __ATOMIC_ACQUIRE)) == NULL)
            if (__atomic_load_n(&trims_done, __ATOMIC_ACQUIRE))
                return NULL;
        /* a varying delay, so the free meets each part of main's trim */
        for (volatile unsigned d = (unsigned)(k * 2654435761u) % 20000; d > 0; d--)
            ;
        free(p);
        __atomic_store_n(&handed, NULL, __ATOMIC_RELEASE);
    }
}

static int free_beside_trim(long n)
{
    mallopt(M_TRIM_THRESHOLD, 8192);
    mallopt(M_TOP_PAD, 0);
    pthread_t t;
    if (pthread_create(&t, NULL, free_handed, NULL) != 0)
        return failed("pthread_create", 0, 0);
    for (long i = 0; i < n; i++) {
        void *p = malloc(24);
        while (__atomic_load_n(&handed, __ATOMIC_ACQUIRE) != NULL)
            ;
        __atomic_store_n(&handed, p, __ATOMIC_RELEASE);
        void *big = malloc(65536);
        free(big);                        /* merges into the top: a trim */
    }
    while (__atomic_load_n(&handed, __ATOMIC_ACQUIRE) != NULL)
        ;
    __atomic_store_n(&trims_done, 1, __ATOMIC_RELEASE);
    pthread_join(t, NULL);
    puts("ok");
    return 0;
}

int main(int argc, char **argv)
{
    const char *cmd = argc > 1 ? argv[1] : "";
    if (strcmp(cmd, "posix-memalign-errno") == 0)
        return posix_memalign_errno();
    if (strcmp(cmd, "mallinfo-threads") == 0 && argc > 2)
        return mallinfo_threads(atol(argv[2]));
    if (strcmp(cmd, "mallinfo-free") == 0 && argc > 2)
        return mallinfo_free((size_t)atol(argv[2]));
    if (strcmp(cmd, "usable") == 0 && argc > 2) {
        void *p = malloc((size_t)atol(argv[2]));
        printf("%zu\n", malloc_usable_size(p));
        free(p);
        return 0;
    }
    if (strcmp(cmd, "uaf-child-exit") == 0 && argc > 2)
        return uaf_child_exit(argv[2]);
    if (strcmp(cmd, "free-beside-trim") == 0 && argc > 2)
        return free_beside_trim(atol(argv[2]));
    fprintf(stderr, "usage: contract posix-memalign-errno | mallinfo-threads N | "
            "mallinfo-free SIZE | usable N | uaf-child-exit _exit|_Exit | free-beside-trim N\n");
    return 2;
}
