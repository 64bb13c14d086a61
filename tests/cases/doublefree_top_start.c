/* expect: signal=SIGABRT token=double-free check=CG_CHECK_FREE_SIZE id=TOP_START_FREE addr=printed */
/* glibc: double free or corruption (top) */
/*
 * A 5000-byte block (beyond the tcache and the fastbins) is the last one
 * before the top chunk: freeing it merges it into top, which now starts
 * where the block did.  A second free of it hands back the start of the
 * free space; its "size" is top's, which reaches the heap's end.
 */
#include "case.h"

int main(void)
{
    char *p = malloc(5000);
    free(p);
    case_print_addr(p);
    free(p);
    return 0;
}
