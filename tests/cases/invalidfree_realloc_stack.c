/* expect: signal=SIGABRT token=invalid-free check=CG_CHECK_OWNERSHIP id=NOT_OURS_REALLOC addr=printed */
/* glibc: realloc(): invalid pointer */
/*
 * realloc() of a stack array: realloc frees its argument, so it must apply
 * the same ownership check as free() before reading a header.
 */
#include "case.h"

int main(void)
{
    _Alignas(16) char buf[64];
    memset(buf, 0, sizeof buf);
    void *volatile p = buf + 16;
    case_print_addr(p);
    void *q = realloc(p, 200);
    (void)q;
    return 0;
}
