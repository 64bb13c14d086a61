/* expect: signal=SIGABRT token=invalid-pointer check=CG_CHECK_OWNERSHIP id=IN_FREE_SPACE_USABLE addr=printed */
/* glibc: none */
/*
 * malloc_usable_size(p + 4096) of a live 100-byte block, the last before
 * the top chunk: the pointer lies inside the top chunk where no block ever
 * started (see invalidfree_in_top.c).  (glibc reads a zero size there and
 * answers 0.)
 */
#include "case.h"

int main(void)
{
    char *p = malloc(100);
    char *volatile q = p + 4096;
    case_print_addr(q);
    return (int)malloc_usable_size(q);
}
