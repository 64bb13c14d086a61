/* expect: signal=SIGABRT token=invalid-free check=CG_CHECK_OWNERSHIP id=IN_FREE_SPACE_FREE addr=printed options=mode=debug */
/* glibc: none */
/*
 * The debug-mode twin of invalidfree_top_start: a live 100-byte block is
 * the last before the top chunk, and p + 128 is where a block would start
 * at the top chunk's start with debug mode's redzone lead.  No block was
 * ever carved there: an invalid free, not a double free.
 */
#include "case.h"

int main(void)
{
    char *p = malloc(100);
    char *volatile q = p + 128;
    case_print_addr(q);
    free(q);
    return 0;
}
