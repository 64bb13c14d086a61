/*
 * sig_contract.c — a signal handler that runs while its thread is inside
 * chunkguard gets the malloc-family contract it would get from outside.
 * The handler is made to run there the repeatable way (as
 * tests/cases/case.h's case_inside): malloc_stats writes to fd 2, made a
 * pipe whose reader is closed, so its first write raises SIGPIPE inside
 * malloc_stats.  One check per run, named by the argument:
 *   pvalloc      pvalloc(100) has a whole page: malloc_usable_size 4096
 *   memalign     memalign(0x5001, 64) is aligned to 0x8000 (the alignment
 *                rounded up to a power of two, as glibc does)
 *   einval       memalign and aligned_alloc of an alignment above
 *                SIZE_MAX/2 + 1 fail with EINVAL
 *   count        one realloc of a heap block is one re-entrant call in
 *                cg_get_stats' reentrant_calls
 *   in-report    (SA_NODEFER) debug mode reports the handler's malloc to
 *                fd 2, whose write raises SIGPIPE again, inside the
 *                report: the handler's second malloc must be served, not
 *                end the process as a report inside a report
 * Prints "ok <check>" and exits 0, or "FAIL <why>" and exits 1.
 * usage: sig_contract CHECK  (LD_PRELOAD=libchunkguard.so)
 */
#include <dlfcn.h>
#include <errno.h>
#include <malloc.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct {
    uint64_t mallocs, frees, callocs, reallocs, memaligns, mmapped_chunks, arenas, heaps,
        reentrant_calls;
} stats_t;

static const char *check;
static int saved_stderr, runs;
static char why[200];
static void *volatile heap_block;

static uint64_t reentrant_calls(void)
{
    void (*get)(stats_t *) = (void (*)(stats_t *))dlsym(RTLD_DEFAULT, "cg_get_stats");
    stats_t st = { 0 };
    if (get != NULL)
        get(&st);
    return st.reentrant_calls;
}

static void in_handler(void)
{
    if (strcmp(check, "pvalloc") == 0) {
        void *p = pvalloc(100);
        size_t page = (size_t)sysconf(_SC_PAGESIZE);
        if (p == NULL || ((uintptr_t)p & (page - 1)) != 0 || malloc_usable_size(p) != page)
            snprintf(why, sizeof why, "pvalloc(100) = %p with %zu usable bytes, not a page",
                     p, p ? malloc_usable_size(p) : 0);
        free(p);
    } else if (strcmp(check, "memalign") == 0) {
        void *p = memalign(0x5001, 64);
        if (p == NULL || ((uintptr_t)p & 0x7fff) != 0)
            snprintf(why, sizeof why, "memalign(0x5001, 64) = %p, not 0x8000-aligned", p);
        free(p);
    } else if (strcmp(check, "einval") == 0) {
        errno = 0;
        void *p = memalign(SIZE_MAX / 2 + 2, 16);
        int e1 = errno;
        errno = 0;
        void *q = aligned_alloc(SIZE_MAX / 2 + 2, 16);
        int e2 = errno;
        if (p != NULL || q != NULL || e1 != EINVAL || e2 != EINVAL)
            snprintf(why, sizeof why, "an alignment above SIZE_MAX/2+1: memalign %p errno %d, "
                     "aligned_alloc %p errno %d (EINVAL is %d)", p, e1, q, e2, EINVAL);
    } else if (strcmp(check, "count") == 0) {
        heap_block = realloc(heap_block, 200);
        if (heap_block == NULL)
            snprintf(why, sizeof why, "realloc(p, 200) failed");
    } else if (strcmp(check, "in-report") == 0) {
        /* the first call is reported (to the closed pipe: SIGPIPE, and
         * this handler again, inside the report); the second is the one
         * inside the report */
        void *p = malloc(runs == 1 ? 24 : 48);
        if (p == NULL)
            snprintf(why, sizeof why, "malloc from the handler (run %d) failed", runs);
        free(p);
    }
}

static void on_pipe(int sig)
{
    (void)sig;
    if (++runs > 2)
        return;
    if (runs == 2 && strcmp(check, "in-report") != 0)
        return;
    in_handler();
}

int main(int argc, char **argv)
{
    if (argc != 2)
        return 2;
    check = argv[1];
    heap_block = malloc(40);
    memset(heap_block, 7, 40);
    uint64_t before = reentrant_calls();
    int fds[2];
    if (pipe(fds) != 0)
        return 2;
    close(fds[0]);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_pipe;
    sa.sa_flags = strcmp(check, "in-report") == 0 ? SA_NODEFER : 0;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGPIPE, &sa, NULL);
    saved_stderr = dup(2);
    dup2(fds[1], 2);
    malloc_stats();
    dup2(saved_stderr, 2);
    signal(SIGPIPE, SIG_DFL);
    uint64_t calls = reentrant_calls() - before;
    if (runs == 0)
        snprintf(why, sizeof why, "no SIGPIPE inside malloc_stats");
    else if (strcmp(check, "count") == 0 && why[0] == 0 && calls != 1)
        snprintf(why, sizeof why, "one realloc from the handler: reentrant_calls grew by %llu",
                 (unsigned long long)calls);
    if (strcmp(check, "count") == 0 && why[0] == 0)
        for (int k = 0; k < 40; k++)
            if (((unsigned char *)heap_block)[k] != 7)
                snprintf(why, sizeof why, "realloc lost byte %d", k);
    free(heap_block);
    if (why[0] != 0) {
        printf("FAIL %s\n", why);
        return 1;
    }
    printf("ok %s\n", check);
    return 0;
}
