/* expect: signal=SIGABRT token=invalid-free check=CG_CHECK_FREE_SIZE id=TOP_START_NO_BLOCK_FREE addr=printed */
/* glibc: double free or corruption (top) */
/*
 * free() of the top chunk's start in a heap whose top has never been
 * carved there: a live 5000-byte block (a 5008-byte chunk, beyond the
 * tcache and the fastbins, so carved from top) is the last before the top
 * chunk, and p + 5008 is the top chunk's own first byte of data.  No block
 * was ever handed out there, freed or not: an invalid free, not the double
 * free doublefree_top_start is (there a block was freed into top).  glibc
 * cannot tell the two apart and says "double free or corruption (top)".
 */
#include "case.h"

int main(void)
{
    char *p = malloc(5000);
    char *volatile q = p + 5008;
    case_print_addr(q);
    free(q);
    return 0;
}
