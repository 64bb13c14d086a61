/* expect: signal=SIGABRT token=invalid-free check=CG_CHECK_OWNERSHIP id=NOT_OURS_FREE addr=printed */
/* glibc: SIGSEGV */
/*
 * free() of a garbage pointer into unmapped memory.  glibc reads the
 * header and faults; chunkguard must refuse the pointer from its ownership
 * map without touching it.
 */
#include "case.h"

int main(void)
{
    void *volatile p = (void *)(uintptr_t)0xBADBEEF0u;
    case_print_addr(p);
    free(p);
    return 0;
}
