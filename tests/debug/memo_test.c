/*
 * memo_test.c — a stack memo (src/stackmemo.c) must not outlive the stack
 * it was made for.  helper() allocates; via_a() and via_b() are identical
 * functions, so helper's frame lands at the same address from either, and
 * the memo's key (call site, frame address, thread) is the same.  After a
 * loop of allocations through via_a (the memo fills), one block comes
 * through via_b and is freed twice: the double-free report's "previously
 * allocated" stack must name via_b, not via_a.
 *   memo_test [N]   N allocations through via_a first (default 2000)
 */
#include <stdio.h>
#include <stdlib.h>

#define KEEP(p) __asm__ volatile("" : : "r"(p) : "memory")

__attribute__((noinline)) void *helper(size_t n)
{
    void *p = malloc(n);
    KEEP(p);
    return p;
}

__attribute__((noinline)) void *via_a(size_t n)
{
    void *p = helper(n);
    KEEP(p);
    return p;
}

__attribute__((noinline)) void *via_b(size_t n)
{
    void *p = helper(n);
    KEEP(p);
    return p;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 2000;
    for (long i = 0; i < n; i++)
        free(via_a(24));
    void *p = via_b(24);
    free(p);
    free(p);
    puts("not reported");
    return 0;
}
