/*
 * toy.c — a stand-in "allocator" for testing tools/check-fastpath.sh itself
 * (never shipped): it forwards malloc and friends to glibc's __libc_*
 * functions and counts the calls, in one of three ways chosen at compile
 * time:
 *   (default)           like a correct chunkguard: plain increment while
 *                       __libc_single_threaded, lock-prefixed add otherwise;
 *   -DTOY_ALWAYS_ATOMIC a broken fast path: lock-prefixed add always;
 *   -DTOY_FUTEX         a broken fast path: a futex(2) wake on every malloc;
 *   -DTOY_NEVER_ATOMIC  no atomic at all, so the multi-threaded control run
 *                       finds none and must report that.
 * The check must pass on the first and fail on each of the others; the
 * suite runs all four so a checker that cannot fail is caught.
 */
#define _GNU_SOURCE
#include <linux/futex.h>
#include <stddef.h>
#include <sys/single_threaded.h>
#include <sys/syscall.h>
#include <unistd.h>

void *__libc_malloc(size_t);
void __libc_free(void *);
void *__libc_calloc(size_t, size_t);
void *__libc_realloc(void *, size_t);
void *__libc_memalign(size_t, size_t);

static unsigned long calls;
static int futex_word;

static void count(void)
{
#if defined(TOY_ALWAYS_ATOMIC)
    __atomic_fetch_add(&calls, 1, __ATOMIC_RELAXED);
#elif defined(TOY_NEVER_ATOMIC)
    calls++; /* racy in threads: a toy only */
#else
    if (__libc_single_threaded)
        calls++;
    else
        __atomic_fetch_add(&calls, 1, __ATOMIC_RELAXED);
#endif
}

void *malloc(size_t n)
{
    count();
#ifdef TOY_FUTEX
    syscall(SYS_futex, &futex_word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
#endif
    return __libc_malloc(n);
}

void free(void *p)
{
    count();
    __libc_free(p);
}

void *calloc(size_t a, size_t b)
{
    count();
    return __libc_calloc(a, b);
}

void *realloc(void *p, size_t n)
{
    count();
    return __libc_realloc(p, n);
}

void *memalign(size_t a, size_t n)
{
    count();
    return __libc_memalign(a, n);
}

void *aligned_alloc(size_t a, size_t n)
{
    count();
    return __libc_memalign(a, n);
}

int posix_memalign(void **out, size_t a, size_t n)
{
    count();
    if (a % sizeof(void *) || (a & (a - 1)))
        return 22; /* EINVAL */
    void *p = __libc_memalign(a, n);
    if (!p)
        return 12; /* ENOMEM */
    *out = p;
    return 0;
}
