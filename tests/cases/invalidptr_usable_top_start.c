/* expect: signal=SIGABRT token=invalid-pointer check=CG_CHECK_FREE_SIZE id=TOP_START_NO_BLOCK_USABLE addr=printed */
/* glibc: SIGSEGV */
/*
 * malloc_usable_size() of the top chunk's start where no block was ever
 * carved (see invalidfree_top_start.c).  (glibc finds the block "in
 * use" by the size word past top's end: beyond its heap, SIGSEGV.)
 */
#include "case.h"

int main(void)
{
    char *p = malloc(5000);
    char *volatile q = p + 5008;
    case_print_addr(q);
    return (int)malloc_usable_size(q);
}
