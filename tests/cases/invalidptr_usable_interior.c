/* expect: signal=SIGABRT token=invalid-pointer check=CG_CHECK_OWNERSHIP id=INTERIOR_USABLE addr=printed */
/* glibc: none */
/*
 * malloc_usable_size() of a pointer 16 bytes into a live 64-byte block:
 * no chunk begins there, so the size words before it are the block's own
 * data.  (glibc reads them as a header and returns a number.)
 */
#include "case.h"

int main(void)
{
    char *p = case_live_zeroed();
    void *volatile q = p + 16;
    case_print_addr(q);
    return (int)malloc_usable_size(q);
}
