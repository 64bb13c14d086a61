/* expect: signal=SIGABRT token=free-size-mismatch check=CG_CHECK_SIZED_FREE id=SIZED_FREE_ALIGN addr=printed */
/* glibc: none */
/*
 * C23 free_aligned_sized() with an alignment the block does not have: a
 * plain malloc'd block (16-byte aligned) is handed back claiming 4096-byte
 * alignment; the block is placed so that it is not 4096-byte aligned.
 * glibc 2.36 has no free_aligned_sized, so it is declared weak: without a
 * library that defines it the case exits with status 2.
 */
#include "case.h"

extern void free_aligned_sized(void *ptr, size_t alignment, size_t size) __attribute__((weak));

int main(void)
{
    char *p = malloc(100);
    char *guard = malloc(100);
    if (!free_aligned_sized)
        return 2;
    if (((uintptr_t)p & 4095) == 0)
        p = guard;                 /* the other one then is not aligned */
    case_print_addr(p);
    free_aligned_sized(p, 4096, 100);
    return 0;
}
