/* expect: signal=SIGABRT token=invalid-free check=CG_CHECK_FREE_SIZE id=TOP_START_NO_BLOCK_REALLOC addr=printed */
/* glibc: SIGSEGV */
/*
 * realloc() of the top chunk's start where no block was ever carved (see
 * invalidfree_top_start.c): an invalid pointer, not a block freed before
 * (doublefree_realloc_top_start).  (glibc takes top's size for the
 * block's and reads past its heap's end.)
 */
#include "case.h"

int main(void)
{
    char *p = malloc(5000);
    char *volatile q = p + 5008;
    case_print_addr(q);
    char *volatile r = realloc(q, 8000);
    (void)r;
    return 0;
}
