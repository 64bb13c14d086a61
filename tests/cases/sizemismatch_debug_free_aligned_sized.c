/* expect: signal=SIGABRT token=free-size-mismatch check=CG_CHECK_SIZED_FREE id=SIZED_FREE_ALIGN addr=printed options=mode=debug */
/* glibc: none */
/*
 * Debug mode: C23 free_aligned_sized() with an alignment the block does
 * not have (the same check as fast mode's).  The alignment claimed is the
 * smallest power of two above 16 that the plain malloc'd block misses.
 * glibc 2.36 has no free_aligned_sized, so it is declared weak.
 */
#include "case.h"

extern void free_aligned_sized(void *ptr, size_t alignment, size_t size) __attribute__((weak));

int main(void)
{
    char *p = malloc(100);
    if (!free_aligned_sized)
        return 2;
    size_t align = 32;
    while (((uintptr_t)p & (align - 1)) == 0)
        align <<= 1;
    case_print_addr(p);
    free_aligned_sized(p, align, 100);
    return 0;
}
