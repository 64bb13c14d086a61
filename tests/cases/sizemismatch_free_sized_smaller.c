/* expect: signal=SIGABRT token=free-size-mismatch check=CG_CHECK_SIZED_FREE id=SIZED_FREE_SIZE addr=printed */
/* glibc: none */
/*
 * Fast mode: C23 free_sized() with a size smaller than the block was
 * allocated with (400 bytes allocated, 8 claimed).  Fast mode knows only
 * the chunk: a 416-byte chunk was never handed out for an 8-byte request
 * (its chunk is 32 bytes; the core never leaves a remainder of MINSIZE or
 * more unsplit).  glibc 2.36 has no free_sized: declared weak, the case
 * exits with status 2 without a library that defines it.
 */
#include "case.h"

extern void free_sized(void *ptr, size_t size) __attribute__((weak));

int main(void)
{
    char *p = malloc(400);
    char *guard = malloc(100);
    if (!free_sized)
        return 2;
    case_print_addr(p);
    free_sized(p, 8);
    (void)guard;
    return 0;
}
