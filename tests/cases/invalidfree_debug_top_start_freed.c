/* expect: signal=SIGABRT token=invalid-free check=CG_CHECK_FREE_SIZE id=TOP_START_NO_BLOCK_FREE addr=printed options=mode=debug:quarantine_mb=0 */
/* glibc: none */
/*
 * Debug mode, with no quarantine: a 5000-byte block is freed and merges
 * into the top chunk, which now starts at its chunk.  free() of the top
 * chunk's first byte of data, 16 bytes before the block's pointer (in its
 * old leading redzone), is not a second free of the block: no debug block
 * ever starts there, the pointer the block had is 16 bytes further on.
 * (Fast mode calls the same pointer a double free, doublefree_top_start:
 * there it is the block's own.)
 */
#include "case.h"

int main(void)
{
    char *p = malloc(5000);
    free(p);
    char *volatile q = p - CASE_DEBUG_LEAD;
    case_print_addr(q);
    free(q);
    return 0;
}
