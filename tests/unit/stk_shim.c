/*
 * stk_shim.c — a malloc that counts (see stk_util.h).  Linked into the
 * stacks test program only (not its sanitizer build): the program's own
 * malloc, free, ... are these, forwarding to glibc's __libc_* entry
 * points, so every allocation in the process is seen, including those of
 * libunwind and the C library.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "stk_util.h"

void *__libc_malloc(size_t size);
void __libc_free(void *ptr);
void *__libc_calloc(size_t nmemb, size_t size);
void *__libc_realloc(void *ptr, size_t size);
void *__libc_memalign(size_t alignment, size_t size);

int stk_shim_capture;
static __thread bool counting;
static __thread unsigned long calls;

void stk_shim_count(bool on)
{
    counting = on;
    calls = 0;
}

unsigned long stk_shim_calls(void)
{
    return calls;
}

/* What the instrumented mode will do on each call: capture, then store. */
static void seen(void)
{
    if (counting)
        calls++;
    if (__atomic_load_n(&stk_shim_capture, __ATOMIC_RELAXED)) {
        uintptr_t pcs[16];
        size_t n = cg_stack_capture(pcs, 16, 1);
        cg_stack_put(pcs, n);
    }
}

void *malloc(size_t size)
{
    seen();
    return __libc_malloc(size);
}

void free(void *ptr)
{
    if (ptr != NULL)
        seen();
    __libc_free(ptr);
}

void *calloc(size_t nmemb, size_t size)
{
    seen();
    return __libc_calloc(nmemb, size);
}

void *realloc(void *ptr, size_t size)
{
    seen();
    return __libc_realloc(ptr, size);
}

void *memalign(size_t alignment, size_t size)
{
    seen();
    return __libc_memalign(alignment, size);
}

void *aligned_alloc(size_t alignment, size_t size)
{
    seen();
    return __libc_memalign(alignment, size);
}

int posix_memalign(void **out, size_t alignment, size_t size)
{
    seen();
    if (alignment < sizeof(void *) || (alignment & (alignment - 1)) != 0)
        return EINVAL;
    void *p = __libc_memalign(alignment, size);
    if (p == NULL)
        return ENOMEM;
    *out = p;
    return 0;
}
