/* expect: signal=SIGABRT token=invalid-free check=CG_CHECK_OWNERSHIP id=IN_FREE_SPACE_FREE addr=printed */
/* glibc: double free or corruption (top) */
/*
 * free() of the address where a block would start at the top chunk's
 * start, in a heap where no block has ever been carved there: a live
 * 100-byte block (a 112-byte chunk) is the last before the top chunk, and
 * p + 112 is the top chunk's own first byte of data.  No block was handed
 * out there, freed or not: an invalid free.  (glibc cannot tell and says
 * "double free or corruption (top)"; doublefree_top_start is the case
 * where a block really was freed into top.)
 */
#include "case.h"

int main(void)
{
    char *p = malloc(100);
    char *volatile q = p + 112;
    case_print_addr(q);
    free(q);
    return 0;
}
