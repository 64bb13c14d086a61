/* expect: signal=SIGABRT token=double-free check=CG_CHECK_OWNERSHIP id=FREED_TOP_REALLOC addr=printed */
/* glibc: SIGSEGV */
/*
 * Two 2000-byte blocks (beyond the tcache and the fastbins) are the last
 * ones before the top chunk.  Freeing b merges it into top; freeing a
 * merges a and top, so the top chunk now starts at a and b lies inside it.
 * realloc(b) frees its argument: it must be reported as a double free of
 * memory that is free space now, not read as a chunk.
 * (glibc reads b's stale header, the old top's size, and then the size
 * word past the end of its heap: SIGSEGV.)
 */
#include "case.h"

int main(void)
{
    char *b = case_freed_in_top();
    case_print_addr(b);
    void *r = realloc(b, 4000);
    (void)r;
    return 0;
}
