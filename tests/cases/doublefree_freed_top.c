/* expect: signal=SIGABRT token=double-free check=CG_CHECK_OWNERSHIP id=FREED_TOP_FREE addr=printed */
/* glibc: double free or corruption (out) */
/*
 * Two 2000-byte blocks (beyond the tcache and the fastbins) are the last
 * ones before the top chunk.  Freeing b merges it into top; freeing a
 * merges a and top, so the top chunk now starts at a and b lies inside it.
 * A second free of b must be reported as a double free of memory that is
 * free space now, not read as a chunk.  (glibc reads b's stale header, the
 * old top's size, which ends exactly where top does: "(out)".)
 */
#include "case.h"

int main(void)
{
    char *b = case_freed_in_top();
    case_print_addr(b);
    free(b);
    return 0;
}
