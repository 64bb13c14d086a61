/*
 * shim.c — a preloaded malloc wrapper of the usual kind, loaded before
 * chunkguard: it finds the next malloc with dlsym(RTLD_NEXT) on first use.
 * dlsym and dlerror allocate while it resolves, which re-enters the shim;
 * the shim then calls glibc's internal names (__libc_malloc, ...), which
 * chunkguard also exports, so those allocations reach chunkguard before
 * its constructor may have run.  The test asserts no deadlock, the right
 * output, and that both the shim and chunkguard saw the calls.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void __libc_free(void *);

static void *(*next_malloc)(size_t);
static void *(*next_calloc)(size_t, size_t);
static void *(*next_realloc)(void *, size_t);
static void (*next_free)(void *);
static __thread int resolving;
static unsigned long calls;

static void resolve(void)
{
    resolving = 1;
    next_malloc = dlsym(RTLD_NEXT, "malloc");
    next_calloc = dlsym(RTLD_NEXT, "calloc");
    next_realloc = dlsym(RTLD_NEXT, "realloc");
    next_free = dlsym(RTLD_NEXT, "free");
    /* A failing lookup makes dlerror allocate its message. */
    if (dlsym(RTLD_NEXT, "chunkguard_no_such_symbol") == NULL)
        (void)dlerror();
    resolving = 0;
}

void *malloc(size_t n)
{
    if (resolving) return __libc_malloc(n);
    if (!next_malloc) resolve();
    calls++;
    return next_malloc(n);
}

void *calloc(size_t a, size_t b)
{
    if (resolving) return __libc_calloc(a, b);
    if (!next_calloc) resolve();
    calls++;
    return next_calloc(a, b);
}

void *realloc(void *p, size_t n)
{
    if (resolving) return __libc_realloc(p, n);
    if (!next_realloc) resolve();
    calls++;
    return next_realloc(p, n);
}

void free(void *p)
{
    if (resolving) { __libc_free(p); return; }
    if (!next_free) resolve();
    calls++;
    next_free(p);
}

__attribute__((destructor)) static void report(void)
{
    char buf[64];
    int n = snprintf(buf, sizeof buf, "shim: %lu calls\n", calls);
    if (getenv("SHIM_REPORT")) write(2, buf, (size_t)n);
}
