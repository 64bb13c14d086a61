/* expect: signal=SIGABRT token=free-size-mismatch check=CG_CHECK_SIZED_FREE id=SIZED_FREE_SIZE addr=printed */
/* glibc: none */
/*
 * C23 free_sized() with a size larger than the block was allocated with
 * (100 bytes allocated, 4096 claimed).  glibc 2.36 has no free_sized, so
 * it is declared weak here: without a library that defines it the case
 * exits with status 2 instead of calling through NULL.  chunkguard checks
 * free_sized's size unconditionally (no CG_CHECK_* switch), hence check=none.
 */
#include "case.h"

extern void free_sized(void *ptr, size_t size) __attribute__((weak));

int main(void)
{
    char *p = malloc(100);
    char *guard = malloc(100);
    if (!free_sized)
        return 2;
    case_print_addr(p);
    free_sized(p, 4096);
    (void)guard;
    return 0;
}
