/*
 * hc_clean.c — a clean heap verifies clean: cg_verify_heap() returns 0 and
 * reports nothing after workloads that fill every structure it checks —
 * every size range (tcache, fastbins, small and large bins, the unsorted
 * bin, top, several heaps per arena, mmap'd blocks, aligned blocks,
 * realloc in place and moving, malloc_trim), threads verifying while
 * others allocate, and a fork child.  Linked against libchunkguard.so (the
 * standard names), as a program would use it; run in fast and debug mode
 * and with verify_interval by tests/suites/57-heapcheck.sh.
 *
 * Prints "ok <phase>" per phase; exits 0 only when every call returned 0
 * and the report callback was never called.
 */
#include <malloc.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "chunkguard.h"

static atomic_int reports;

static void on_report(const cg_report_t *r, void *arg)
{
    (void)arg;
    atomic_fetch_add(&reports, 1);
    /* the text is already on the log; say which test it belongs to */
    static const char msg[] = "hc_clean: a report during a clean workload\n";
    (void)r;
    if (write(2, msg, sizeof msg - 1) < 0)
        _exit(3);
}

static int failures;

static void verify(const char *phase)
{
    size_t n = cg_verify_heap();
    if (n != 0 || atomic_load(&reports) != 0) {
        printf("FAIL %s: cg_verify_heap() returned %zu, %d reports\n", phase, n,
               atomic_load(&reports));
        failures++;
    } else {
        printf("ok %s\n", phase);
    }
    fflush(stdout);
}

static uint64_t rng = 88172645463325252ull;
static uint64_t next_rand(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* A size from every range: tiny, fastbin, tcache, small bin, large bin,
 * near and above the mmap threshold. */
static size_t any_size(uint64_t *s)
{
    switch (next_rand(s) % 8) {
    case 0: return next_rand(s) % 24;
    case 1: return 24 + next_rand(s) % 140;
    case 2: return 160 + next_rand(s) % 880;
    case 3: return 1040 + next_rand(s) % 3000;
    case 4: return 4096 + next_rand(s) % 60000;
    case 5: return 64 * 1024 + next_rand(s) % (64 * 1024);
    case 6: return 200 * 1024 + next_rand(s) % (300 * 1024);
    default: return 1 + next_rand(s) % 512;
    }
}

#define SLOTS 2048

/* Random malloc/calloc/realloc/memalign/free over a slot array. */
static void churn(void **slot, size_t nslots, size_t ops, uint64_t *s)
{
    for (size_t i = 0; i < ops; i++) {
        size_t k = next_rand(s) % nslots;
        size_t n = any_size(s);
        switch (next_rand(s) % 6) {
        case 0:
            free(slot[k]);
            slot[k] = NULL;
            break;
        case 1:
            free(slot[k]);
            slot[k] = calloc(1, n);
            break;
        case 2: {
            void *p = realloc(slot[k], n);
            if (p != NULL || n == 0)
                slot[k] = p;
            break;
        }
        case 3:
            free(slot[k]);
            slot[k] = memalign((size_t)16 << (next_rand(s) % 9), n);
            break;
        default:
            free(slot[k]);
            slot[k] = malloc(n);
            if (slot[k])
                memset(slot[k], 0x5a, n < 64 ? n : 64);
        }
    }
}

static void free_all(void **slot, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(slot[i]);
        slot[i] = NULL;
    }
}

static void *slots[SLOTS];

/* Enough 100 KiB blocks (below the mmap threshold) to fill a 64 MiB heap
 * and open another; free every other one (bins), then all (heaps dropped). */
static void many_heaps(void)
{
    enum { N = 800 };
    static void *big[N];
    for (int i = 0; i < N; i++)
        big[i] = malloc(100 * 1024);
    verify("two-heaps-full");
    for (int i = 0; i < N; i += 2) {
        free(big[i]);
        big[i] = NULL;
    }
    verify("two-heaps-holes");
    for (int i = 0; i < N; i++)
        free(big[i]);
    verify("two-heaps-freed");
}

/* Fastbins: tcache bins full, then more frees of fast sizes. */
static void fill_fastbins(void)
{
    void *p[64];
    for (int size = 16; size <= 120; size += 8) {
        for (int i = 0; i < 64; i++)
            p[i] = malloc((size_t)size);
        for (int i = 0; i < 64; i += 1)
            free(p[i]);
    }
    verify("fastbins");
    free(malloc(5000));     /* a large request consolidates the fastbins */
    verify("consolidated");
}

static void *thread_main(void *arg)
{
    uint64_t s = (uintptr_t)arg * 0x9e3779b97f4a7c15ull + 1;
    void *mine[256] = { 0 };
    for (int round = 0; round < 10; round++) {
        churn(mine, 256, 3000, &s);
        size_t n = cg_verify_heap();
        if (n != 0) {
            printf("FAIL thread-verify: cg_verify_heap() returned %zu in a thread\n", n);
            failures++;
        }
    }
    free_all(mine, 256);
    return NULL;
}

static void threads(void)
{
    enum { T = 4 };
    pthread_t t[T];
    for (int i = 0; i < T; i++)
        pthread_create(&t[i], NULL, thread_main, (void *)(uintptr_t)(i + 1));
    /* the main thread verifies while they run */
    for (int i = 0; i < 20; i++) {
        churn(slots, 64, 200, &rng);
        if (cg_verify_heap() != 0)
            failures++;
    }
    for (int i = 0; i < T; i++)
        pthread_join(t[i], NULL);
    verify("threads-joined");
}

static void fork_child(void)
{
    churn(slots, SLOTS, 2000, &rng);
    pid_t pid = fork();
    if (pid == 0) {
        verify("fork-child");
        churn(slots, SLOTS, 5000, &rng);
        verify("fork-child-after-churn");
        _exit(failures ? 1 : 0);
    }
    int st;
    waitpid(pid, &st, 0);
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        printf("FAIL fork-child: status 0x%x\n", st);
        failures++;
    }
    verify("fork-parent");
}

int main(int argc, char **argv)
{
    size_t ops = argc > 1 ? strtoul(argv[1], NULL, 10) : 20000;
    cg_set_report_callback(on_report, NULL);
    verify("start");
    churn(slots, SLOTS, ops, &rng);
    verify("churn");
    fill_fastbins();
    free_all(slots, SLOTS);
    verify("all-freed");
    churn(slots, SLOTS, ops, &rng);
    malloc_trim(0);
    verify("trimmed");
    many_heaps();
    threads();
    verify("after-threads");
    fork_child();
    free_all(slots, SLOTS);
    verify("end");
    printf("%s\n", failures ? "hc_clean: FAILED" : "hc_clean: all clean");
    return failures ? 1 : 0;
}
