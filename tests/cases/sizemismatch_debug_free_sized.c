/* expect: signal=SIGABRT token=free-size-mismatch check=CG_CHECK_SIZED_FREE id=DEBUG_SIZED_FREE_SIZE addr=printed options=mode=debug */
/* glibc: none */
/*
 * Debug mode: C23 free_sized() with a size one byte larger than the block
 * was requested with (100 allocated, 101 claimed).  Fast mode only sees a
 * size beyond the chunk's usable bytes; debug mode knows the requested
 * size from the shadow record and wants exactly it.  glibc 2.36 has no
 * free_sized, so it is declared weak: without a library that defines it
 * the case exits with status 2.
 */
#include "case.h"

extern void free_sized(void *ptr, size_t size) __attribute__((weak));

int main(void)
{
    char *p = malloc(100);
    if (!free_sized)
        return 2;
    case_print_addr(p);
    free_sized(p, 101);
    return 0;
}
