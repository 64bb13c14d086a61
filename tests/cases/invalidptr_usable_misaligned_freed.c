/* expect: signal=SIGABRT token=invalid-pointer check=CG_CHECK_OWNERSHIP id=MISALIGNED_FREE_MEMORY_USABLE addr=printed */
/* glibc: SIGSEGV */
/*
 * malloc_usable_size() of p+8 for a 2000-byte block p that was freed
 * already (into the unsorted bin: beyond the tcache and the fastbins, a
 * guard keeps it from the top chunk).  The pointer is not 16-byte aligned
 * and lies in free memory: it is no block.
 * (glibc takes p's free-list link for the size word and walks past its
 * heap: SIGSEGV.)
 */
#include "case.h"

int main(void)
{
    char *p = case_freed_guarded();
    void *volatile q = p + 8;
    case_print_addr(q);
    return (int)malloc_usable_size(q);
}
