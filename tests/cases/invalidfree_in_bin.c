/* expect: signal=SIGABRT token=invalid-free check=CG_CHECK_OWNERSHIP id=IN_FREE_SPACE_FREE addr=printed */
/* glibc: free(): invalid pointer */
/*
 * A freed 2000-byte block sits in the unsorted bin between live blocks;
 * free() of a pointer 512 bytes into it, where the program's zeroed data
 * was: free memory where no block ever started (no header was ever
 * written there), so an invalid free, not a double free.  (glibc reads the
 * zero as a size and calls the pointer invalid.)
 */
#include "case.h"

int main(void)
{
    char *a = malloc(CASE_BIG);
    char *guard = malloc(CASE_BIG);
    (void)guard;
    memset(a, 0, CASE_BIG);
    free(a);
    char *volatile q = a + 512;
    case_print_addr(q);
    free(q);
    return 0;
}
