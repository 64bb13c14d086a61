/* expect: signal=SIGABRT token=invalid-pointer check=CG_CHECK_OWNERSHIP id=BIG_FREED_USABLE */
/* glibc: SIGSEGV */
/*
 * malloc_usable_size of a big (mmap'd) block that was freed: the block is
 * gone, so the pointer is invalid — the same kind debug mode reports, not
 * the double-free a second free() of it is.
 */
#include <malloc.h>

#include "case.h"

int main(void)
{
    char *big = malloc(256 * 1024);
    free(big);
    return (int)malloc_usable_size(big);
}
