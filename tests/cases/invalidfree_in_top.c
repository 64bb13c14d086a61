/* expect: signal=SIGABRT token=invalid-free check=CG_CHECK_OWNERSHIP id=IN_FREE_SPACE_FREE addr=printed */
/* glibc: free(): invalid pointer */
/*
 * free(p + 4096) of a live 100-byte block, the last before the top chunk:
 * the pointer lies inside the top chunk, in memory no chunk has reached
 * yet, so no block was ever handed out there, freed or not: an invalid
 * free, not a double free.
 */
#include "case.h"

int main(void)
{
    char *p = malloc(100);
    char *volatile q = p + 4096;
    case_print_addr(q);
    free(q);
    return 0;
}
