/* expect: signal=SIGABRT token=double-free check=CG_CHECK_OWNERSHIP id=FREED_BIN_FREE addr=printed */
/* glibc: double free or corruption (!prev) */
/*
 * Two adjacent 2000-byte blocks (beyond the tcache and the fastbins), kept
 * from the top chunk by a guard.  Freeing a puts it in the unsorted bin;
 * freeing b merges it backwards into a, so b lies inside a free chunk of a
 * bin.  A second free of b must be reported as a double free of memory
 * that is free now, not read as a chunk.  (glibc reads b's stale header
 * and finds the guard saying its predecessor is free: "(!prev)".)
 */
#include "case.h"

int main(void)
{
    char *b = case_freed_in_bin();
    case_print_addr(b);
    free(b);
    return 0;
}
