/*
 * stk_nocfi.c — a frame without unwind information (built with
 * -fno-asynchronous-unwind-tables -fno-unwind-tables, frame pointer kept;
 * see tests/tests.mk), so libunwind has to guess it from the frame chain,
 * with memory validation on: the path where libunwind 1.6 would use its
 * validation pipe.
 */
#include <stddef.h>

size_t stk_nocfi_call(size_t (*fn)(void *), void *arg);

size_t stk_nocfi_call(size_t (*fn)(void *), void *arg)
{
    volatile char pad[64];                 /* a frame of its own */
    pad[0] = 1;
    size_t r = fn(arg);
    __asm__ volatile("" ::: "memory");     /* no tail call */
    return r + pad[0] - 1;
}
