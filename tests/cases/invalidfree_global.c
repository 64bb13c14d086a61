/* expect: signal=SIGABRT token=invalid-free check=CG_CHECK_OWNERSHIP id=NOT_OURS_FREE addr=printed */
/* glibc: none */
/*
 * free() of a global.  The fake header in front of it looks like a valid
 * in-use 64-byte chunk, so only the ownership check can tell that the
 * pointer is not ours.  (glibc takes it: the fake chunk goes into its
 * tcache and the program exits normally.)
 */
#include "case.h"

static _Alignas(16) size_t fake[16] = { 0, 64 | 1 };

int main(void)
{
    void *volatile p = &fake[2];
    case_print_addr(p);
    free(p);
    return 0;
}
