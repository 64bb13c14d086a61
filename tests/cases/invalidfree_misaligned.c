/* expect: signal=SIGABRT token=invalid-free check=CG_CHECK_OWNERSHIP id=INTERIOR_FREE addr=printed */
/* glibc: free(): invalid pointer */
/*
 * free() of p+1 for a live block p: not 16-byte aligned, so it cannot be
 * the start of any chunk.
 */
#include "case.h"

int main(void)
{
    char *p = case_live_zeroed();
    void *volatile q = p + 1;
    case_print_addr(q);
    free(q);
    return 0;
}
