/* expect: signal=SIGABRT token=reentrant-call check=none id=REENTRANT_FREE_FULL */
/* glibc: none */
/*
 * A signal handler that interrupts chunkguard (case_inside) frees 300
 * blocks the program allocated before.  Fast mode defers such frees to a
 * table of 256 slots, emptied by the thread's next slow path; the 257th
 * cannot be deferred and is reported.
 */
#include "case.h"

#define NBLOCKS 300
static void *blocks[NBLOCKS];

static void handler_frees(void)
{
    for (int i = 0; i < NBLOCKS; i++)
        free(blocks[i]);
}

int main(void)
{
    for (int i = 0; i < NBLOCKS; i++)
        blocks[i] = malloc(32);
    case_inside(handler_frees);
    return 0;
}
