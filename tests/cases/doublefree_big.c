/* expect: signal=SIGABRT token=double-free check=CG_CHECK_OWNERSHIP id=BIG_FREED_FREE addr=printed */
/* glibc: SIGSEGV */
/*
 * A big (mmap'd) block freed twice.  The first free unmaps it, so glibc's
 * second free reads the header of an unmapped page and dies of SIGSEGV;
 * chunkguard must know the block as one of its recently freed big blocks
 * and report a double free without touching it.
 */
#include "case.h"

int main(void)
{
    char *volatile p = malloc(1 << 20);
    free(p);
    case_print_addr(p);
    free(p);
    return 0;
}
