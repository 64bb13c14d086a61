/* expect: signal=SIGABRT token=invalid-free check=CG_CHECK_OWNERSHIP id=NO_BLOCK_FREE addr=printed */
/* glibc: none */
/*
 * free() of a 16-byte aligned pointer into chunkguard's own heap metadata
 * (the chunk-start bitmap at the start of the 64 MiB heap region that holds
 * a live block).  No chunk begins there, and nothing at that address may be
 * read as a header.  glibc's heap has no such layout, so no glibc run.
 */
#include "case.h"

#include <stdint.h>

int main(void)
{
    char *p = malloc(64);
    uintptr_t region = (uintptr_t)p & ~(((uintptr_t)1 << 26) - 1);
    void *volatile q = (void *)(region + 4096 + 256);
    case_print_addr(q);
    free(q);
    return 0;
}
