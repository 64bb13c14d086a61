/* expect: signal=SIGABRT token=double-free check=CG_CHECK_FREE_SIZE id=TOP_START_REALLOC addr=printed */
/* glibc: SIGSEGV */
/*
 * A 5000-byte block (beyond the tcache and the fastbins) is the last one
 * before the top chunk: freeing it merges it into top, which now starts
 * where the block did.  realloc() of it hands back the start of the free
 * space; its "size" is top's, which reaches the heap's end.
 * (glibc takes top's size for the block's and reads the size word past
 * the end of its heap: SIGSEGV.)
 */
#include "case.h"

int main(void)
{
    char *p = malloc(5000);
    free(p);
    case_print_addr(p);
    void *r = realloc(p, 8000);
    (void)r;
    return 0;
}
