/* expect: signal=SIGABRT token=double-free check=CG_CHECK_OWNERSHIP id=BIG_FREED_REALLOC addr=printed */
/* glibc: SIGSEGV */
/*
 * realloc() of a big (mmap'd) block that was freed: the free unmapped it,
 * so glibc reads the header of an unmapped page and dies of SIGSEGV;
 * chunkguard must know it as one of its recently freed big blocks and
 * report a double free (realloc frees its argument) without touching it.
 */
#include "case.h"

int main(void)
{
    char *volatile p = malloc(1 << 20);
    free(p);
    case_print_addr(p);
    void *r = realloc(p, 200);
    (void)r;
    return 0;
}
