/* expect: signal=SIGSEGV token=stack-overflow check=none id=FAULT_STACK_OVERFLOW options=mode=debug */
/* glibc: SIGSEGV */
/* Debug mode: unbounded recursion runs the main thread's stack out: one
 * stack-overflow report (the fault is on the stack's edge, at the stack
 * pointer), then the default action. */
#include "case.h"

static volatile int forever = 1;      /* unknown to the compiler */

static int __attribute__((noinline)) recurse(int n)
{
    volatile char buf[128];
    buf[0] = (char)n;
    if (!forever)
        return 0;
    return recurse(n + 1) + buf[0];
}

int main(void)
{
    free(malloc(8));                    /* chunkguard is in charge */
    return recurse(0);
}
