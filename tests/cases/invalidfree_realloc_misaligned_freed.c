/* expect: signal=SIGABRT token=invalid-free check=CG_CHECK_OWNERSHIP id=MISALIGNED_FREE_MEMORY_REALLOC addr=printed */
/* glibc: realloc(): invalid pointer */
/*
 * realloc() of p+8 for a 2000-byte block p that was freed already (into
 * the unsorted bin: beyond the tcache and the fastbins, a guard keeps it
 * from the top chunk).  The pointer is not 16-byte aligned and lies in
 * free memory: no chunk can start there, and nothing at it may be read as
 * a header.
 */
#include "case.h"

int main(void)
{
    char *p = case_freed_guarded();
    void *volatile q = p + 8;
    case_print_addr(q);
    void *r = realloc(q, 4000);
    (void)r;
    return 0;
}
