/*
 * mutants.c — glibc's malloc family with one contract broken at a time,
 * so that every unit, differential and thread test can be shown to fail
 * when the thing it checks is broken (tests/unit/mutants.sh runs each
 * mutant against the test meant to catch it).
 *
 * UT_MUTANT=<name> selects the defect; unset, every mut_* is glibc's own.
 * The names are listed in mutant_names[] below, one per contract.
 */
#include <errno.h>
#include <stddef.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mutants.h"

static const char *const mutant_names[] = {
    "free-clobbers-errno", "calloc-no-zero", "realloc-half-copy", "memalign-ignores-align",
    "huge-no-errno", "posix-memalign-writes", "usable-too-small", "malloc0-shared",
    "realloc0-keeps", "reallocarray-overflow", "mxfast-no-limit", "perturb-ignored",
    "trim-noop", "arena-max-ignored", "trim-threshold-ignored", "mmap-threshold-ignored",
    "mallinfo2-zero", "stats-silent", "info-ignores-options", "valloc-unaligned",
    "calloc-wraps", "usable-overlaps", "free-leaks-small", "lock-without-atfork",
    "mxfast-ignored", "realloc-fail-frees", "realloc-null-fresh", "arenas-single",
};

static int mutant = -1;

/* Index of the selected mutant, -1 for none; an unknown name aborts so a
 * typo cannot make a "caught" result meaningless. */
static int which(void)
{
    static int done;
    if (!done) {
        const char *m = getenv("UT_MUTANT");
        done = 1;
        if (m && *m) {
            for (size_t i = 0; i < sizeof mutant_names / sizeof mutant_names[0]; i++)
                if (!strcmp(m, mutant_names[i]))
                    mutant = (int)i;
            if (mutant < 0)
                abort();
        }
        if (mutant >= 0 && !strcmp(mutant_names[mutant], "arenas-single"))
            mallopt(M_ARENA_MAX, 1);
    }
    return mutant;
}

/* Select the mutant before main: glibc fixes its arena limit when the
 * first extra arena is made, which a test runner's own threads may do
 * before the first wrapped call would otherwise set M_ARENA_MAX. */
__attribute__((constructor)) static void select_mutant_early(void)
{
    (void)which();
}

static int is(const char *name)
{
    int k = which();
    return k >= 0 && !strcmp(mutant_names[k], name);
}

/* lock-without-atfork: a global lock around every call, held for a while,
 * with no fork handler: a child forked while another thread holds it
 * deadlocks on its first malloc — the bug fork handlers exist for. */
static pthread_mutex_t big_lock = PTHREAD_MUTEX_INITIALIZER;
static void lock(void)
{
    if (is("lock-without-atfork")) {
        pthread_mutex_lock(&big_lock);
        struct timespec ts = {0, 20000};
        nanosleep(&ts, NULL);
    }
}
static void unlock(void)
{
    if (is("lock-without-atfork"))
        pthread_mutex_unlock(&big_lock);
}

static char shared_zero[32] __attribute__((aligned(16)));

void *mut_malloc(size_t size)
{
    if (size == 0 && is("malloc0-shared"))
        return shared_zero;
    lock();
    void *p = malloc(size);
    unlock();
    if (!p && is("huge-no-errno"))
        errno = 0;
    return p;
}

void mut_free(void *ptr)
{
    if (ptr == (void *)shared_zero)
        return;
    if (ptr && is("free-leaks-small") && malloc_usable_size(ptr) <= 1100)
        return;
    lock();
    free(ptr);
    unlock();
    if (is("free-clobbers-errno"))
        errno = 0;
}

void *mut_calloc(size_t nmemb, size_t size)
{
    if (is("calloc-wraps"))
        return mut_malloc(nmemb * size);
    if (is("calloc-no-zero")) {
        if (size && nmemb > SIZE_MAX / size) {
            errno = ENOMEM;
            return NULL;
        }
        return mut_malloc(nmemb * size);
    }
    lock();
    void *p = calloc(nmemb, size);
    unlock();
    return p;
}

void *mut_realloc(void *ptr, size_t size)
{
    if (!ptr && is("realloc-null-fresh")) {
        (void)malloc(size); /* leaked: the point is to skip the LIFO block */
        return malloc(size);
    }
    if (ptr && size > PTRDIFF_MAX && is("realloc-fail-frees")) {
        free(ptr);
        errno = ENOMEM;
        return NULL;
    }
    if (ptr && size == 0 && is("realloc0-keeps"))
        return ptr;
    if (ptr && size && is("realloc-half-copy")) {
        size_t old = malloc_usable_size(ptr);
        void *q = malloc(size);
        if (!q)
            return NULL;
        memcpy(q, ptr, (old < size ? old : size) / 2);
        free(ptr);
        return q;
    }
    lock();
    void *p = realloc(ptr, size);
    unlock();
    return p;
}

void *mut_reallocarray(void *ptr, size_t nmemb, size_t size)
{
    if (is("reallocarray-overflow") && size && nmemb > SIZE_MAX / size) {
        free(ptr);
        errno = ENOMEM;
        return NULL;
    }
    return reallocarray(ptr, nmemb, size);
}

void *mut_memalign(size_t alignment, size_t size)
{
    if (is("memalign-ignores-align") && alignment > 64)
        return mut_malloc(size);
    lock();
    void *p = memalign(alignment, size);
    unlock();
    return p;
}

int mut_posix_memalign(void **memptr, size_t alignment, size_t size)
{
    if (is("memalign-ignores-align") && alignment > 64) {
        *memptr = malloc(size);
        return *memptr ? 0 : ENOMEM;
    }
    int rc = posix_memalign(memptr, alignment, size);
    if (rc && is("posix-memalign-writes"))
        *memptr = NULL;
    return rc;
}

void *mut_aligned_alloc(size_t alignment, size_t size)
{
    if (is("memalign-ignores-align") && alignment > 64)
        return malloc(size);
    return aligned_alloc(alignment, size);
}

void *mut_valloc(size_t size)
{
    if (is("valloc-unaligned"))
        return memalign(64, size);
    return valloc(size);
}

void *mut_pvalloc(size_t size)
{
    return pvalloc(size);
}

size_t mut_malloc_usable_size(void *ptr)
{
    if (ptr == (void *)shared_zero)
        return sizeof shared_zero;
    size_t u = malloc_usable_size(ptr);
    if (ptr && is("usable-too-small"))
        return u ? u - 1 : 0;
    if (ptr && is("usable-overlaps"))
        return u + 4096;
    return u;
}

int mut_mallopt(int param, int value)
{
    if (is("mxfast-no-limit") && param == M_MXFAST)
        return mallopt(param, value > 160 ? 160 : value);
    if ((is("perturb-ignored") && param == M_PERTURB) ||
        (is("mxfast-ignored") && param == M_MXFAST && value <= 160) ||
        (is("arena-max-ignored") && param == M_ARENA_MAX) ||
        (is("trim-threshold-ignored") && param == M_TRIM_THRESHOLD) ||
        (is("mmap-threshold-ignored") && param == M_MMAP_THRESHOLD))
        return 1;
    return mallopt(param, value);
}

struct mallinfo2 mut_mallinfo2(void)
{
    struct mallinfo2 zero = {0};
    return is("mallinfo2-zero") ? zero : mallinfo2();
}

int mut_malloc_trim(size_t pad)
{
    return is("trim-noop") ? 0 : malloc_trim(pad);
}

void mut_malloc_stats(void)
{
    if (!is("stats-silent"))
        malloc_stats();
}

int mut_malloc_info(int options, FILE *fp)
{
    return malloc_info(is("info-ignores-options") ? 0 : options, fp);
}
