/* expect: signal=SIGABRT token=invalid-free check=CG_CHECK_OWNERSHIP id=NO_BLOCK_REALLOC addr=printed */
/* glibc: none */
/*
 * realloc() of a 16-byte aligned pointer into chunkguard's own heap
 * metadata (the chunk-start bitmap of the heap region that holds a live
 * block): realloc frees its argument, so it must find, as free() does
 * (invalidfree_heapmeta.c), that no chunk begins there before it reads a
 * header.  glibc's heap has no such layout, so no glibc run.
 */
#include "case.h"

#include <stdint.h>

int main(void)
{
    char *p = malloc(64);
    uintptr_t region = (uintptr_t)p & ~(((uintptr_t)1 << 26) - 1);
    void *volatile q = (void *)(region + 4096 + 256);
    case_print_addr(q);
    void *r = realloc(q, 200);
    (void)r;
    return 0;
}
