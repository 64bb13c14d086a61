/* expect: signal=SIGABRT token=invalid-free check=CG_CHECK_OWNERSHIP id=NOT_OURS_FREE addr=printed */
/* glibc: free(): invalid pointer */
/*
 * free() of a stack array.  The words in front of it are whatever the
 * stack holds; the ownership map must refuse the pointer before any of
 * them is read as a chunk header.  The array is 16-byte aligned so only
 * ownership, not alignment, can reject it.
 */
#include "case.h"

int main(void)
{
    _Alignas(16) char buf[64];
    memset(buf, 0, sizeof buf);
    void *volatile p = buf + 16;
    case_print_addr(p);
    free(p);
    return 0;
}
