/* expect: signal=SIGABRT token=heap-corruption check=CG_CHECK_FASTBIN_INDEX id=FASTBIN_INDEX */
/* glibc: malloc(): memory corruption (fast) */
/*
 * A 32-byte chunk waits in its fastbin; a use-after-free write changes its
 * size word to 64 (another fast size, PREV_INUSE kept).  Once the tcache
 * bin is drained, malloc(24) pops it from the 32-byte fastbin and must see
 * that its size belongs to another bin.
 */
#include "case.h"

int main(void)
{
    char *a = case_fastbin_one();           /* in the fastbin */
    ((size_t *)a)[-1] = 64 | 1;             /* size 64, PREV_INUSE */
    case_drain_tcache(24);
    char *b = malloc(24);                   /* pops a from the fastbin */
    (void)b;
    return 0;
}
