/* expect: signal=SIGABRT token=reentrant-call check=none id=REENTRANT_USABLE_UNSIZED */
/* glibc: none */
/*
 * A signal handler that interrupts chunkguard (case_inside) asks
 * malloc_usable_size() of a big (mmap'd) block: its size cannot be read
 * without the big-block registry's lock, so the call is reported.
 */
#include "case.h"

static void *volatile big;

static void handler_asks(void)
{
    (void)malloc_usable_size(big);
}

int main(void)
{
    big = malloc(1 << 20);
    case_inside(handler_asks);
    return 0;
}
