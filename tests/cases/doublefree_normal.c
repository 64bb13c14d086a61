/* expect: signal=SIGABRT token=double-free check=CG_CHECK_NOT_INUSE id=NOT_IN_USE addr=printed */
/* glibc: double free or corruption (!prev) */
/*
 * A 2000-byte block is beyond the tcache (requests up to 1032) and the
 * fastbins: its first free puts it in the unsorted bin and clears
 * PREV_INUSE in the next chunk.  The guard block after it keeps it from
 * merging into the top chunk, so the second free reaches the check that the
 * next chunk still says "previous in use".
 */
#include "case.h"

int main(void)
{
    char *a = case_freed_guarded();
    case_print_addr(a);
    free(a);
    return 0;
}
