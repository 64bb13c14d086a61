/* expect: signal=SIGABRT token=segv check=none id=FAULT_WILD addr=printed */
/* glibc: none */
/*
 * A write 8 MiB past a 100-byte block, after malloc_trim has cut the
 * heap's top back to its pad: the address is in the inaccessible unused
 * part of the heap region, but no block ends within 1 MiB below it, so
 * the fault is no overflow of a block the report could name: a wild
 * access into memory chunkguard reserves.  (No glibc run: what lies 8 MiB
 * past glibc's brk heap depends on the layout.)
 */
#include "case.h"

int main(void)
{
    char *p = malloc(100);
    volatile char *q = case_past_top(p, 8 << 20);
    case_print_addr((const void *)q);
    *q = 1;
    return 0;
}
