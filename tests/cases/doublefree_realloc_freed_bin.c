/* expect: signal=SIGABRT token=double-free check=CG_CHECK_OWNERSHIP id=FREED_BIN_REALLOC addr=printed */
/* glibc: corrupted size vs. prev_size while consolidating */
/*
 * Two adjacent 2000-byte blocks (beyond the tcache and the fastbins), kept
 * from the top chunk by a guard.  Freeing a puts it in the unsorted bin;
 * freeing b merges it backwards into a, so b lies inside a free chunk of a
 * bin.  realloc(b) frees its argument: it must be reported as a double
 * free of memory that is free now, not read as a chunk.
 * (glibc reads b's stale header, cannot grow it in place, moves the data
 * and frees b, whose prev_size leads to no chunk of that size.)
 */
#include "case.h"

int main(void)
{
    char *b = case_freed_in_bin();
    case_print_addr(b);
    void *r = realloc(b, 4000);
    (void)r;
    return 0;
}
