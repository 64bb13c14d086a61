/* expect: signal=SIGABRT token=invalid-free check=CG_CHECK_OWNERSHIP id=IN_FREE_SPACE_REALLOC addr=printed */
/* glibc: realloc(): invalid pointer */
/*
 * realloc(p + 4096, 10) of a live 100-byte block, the last before the top
 * chunk: the pointer lies inside the top chunk where no block ever
 * started (see invalidfree_in_top.c).
 */
#include "case.h"

int main(void)
{
    char *p = malloc(100);
    char *volatile q = p + 4096;
    case_print_addr(q);
    char *volatile r = realloc(q, 10);
    (void)r;
    return 0;
}
