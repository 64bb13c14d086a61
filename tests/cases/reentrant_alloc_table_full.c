/* expect: signal=SIGABRT token=reentrant-call check=none id=REENTRANT_ALLOC_FULL */
/* glibc: none */
/*
 * A signal handler that interrupts chunkguard (case_inside) allocates
 * 300 blocks and frees none.  Fast mode serves such calls silently from
 * pages of their own, recorded in a table of 256 slots; the 257th cannot
 * be served and is reported.
 */
#include "case.h"

static void handler_allocates(void)
{
    for (int i = 0; i < 300; i++) {
        void *volatile p = malloc(32);
        (void)p;
    }
}

int main(void)
{
    case_inside(handler_allocates);
    return 0;
}
