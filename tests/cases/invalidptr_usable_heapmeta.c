/* expect: signal=SIGABRT token=invalid-pointer check=CG_CHECK_OWNERSHIP id=NO_BLOCK_USABLE addr=printed */
/* glibc: none */
/*
 * malloc_usable_size() of a 16-byte aligned pointer into chunkguard's own
 * heap metadata (the chunk-start bitmap of the heap region that holds a
 * live block): no chunk begins there, so there is no header to read a
 * size from.  glibc's heap has no such layout, so no glibc run.
 */
#include "case.h"

#include <stdint.h>

int main(void)
{
    char *p = malloc(64);
    uintptr_t region = (uintptr_t)p & ~(((uintptr_t)1 << 26) - 1);
    void *volatile q = (void *)(region + 4096 + 256);
    case_print_addr(q);
    return (int)malloc_usable_size(q);
}
