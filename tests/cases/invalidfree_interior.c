/* expect: signal=SIGABRT token=invalid-free check=CG_CHECK_OWNERSHIP id=INTERIOR_FREE addr=printed */
/* glibc: free(): invalid pointer */
/*
 * free() of a pointer 16 bytes into a live 64-byte block.  The block's data
 * is zero, so the words glibc takes for a header say size 0 (glibc then
 * rejects the pointer because a 0-byte chunk "wraps around"); chunkguard
 * must see from its chunk-start map that no chunk begins there.
 */
#include "case.h"

int main(void)
{
    char *p = case_live_zeroed();
    void *volatile q = p + 16;
    case_print_addr(q);
    free(q);
    return 0;
}
