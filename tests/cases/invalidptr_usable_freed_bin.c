/* expect: signal=SIGABRT token=invalid-pointer check=CG_CHECK_OWNERSHIP id=FREED_BIN_USABLE addr=printed */
/* glibc: none */
/*
 * Two adjacent 2000-byte blocks (beyond the tcache and the fastbins), kept
 * from the top chunk by a guard.  Freeing a puts it in the unsorted bin;
 * freeing b merges it backwards into a, so b lies inside a free chunk of a
 * bin.  malloc_usable_size(b) is of no block: the pointer is invalid.
 * (glibc reads b's stale header, finds the guard saying b is free and
 * returns 0.)
 */
#include "case.h"

int main(void)
{
    char *b = case_freed_in_bin();
    case_print_addr(b);
    return (int)malloc_usable_size(b);
}
