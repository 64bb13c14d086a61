/* expect: signal=SIGABRT token=heap-corruption check=CG_CHECK_FASTBIN_INDEX id=FASTBIN_INDEX_CONSOLIDATE */
/* glibc: malloc_consolidate(): invalid chunk size */
/*
 * A 32-byte chunk waits in its fastbin (the tcache bin is full); a
 * use-after-free write changes its size word to 64 (another fast size,
 * PREV_INUSE kept).  A 2000-byte request (a large-bin size) consolidates
 * the fastbins first, and must see that the chunk's size belongs to
 * another bin before it merges it with anything.
 */
#include "case.h"

int main(void)
{
    char *a = case_fastbin_one();           /* in the fastbin */
    ((size_t *)a)[-1] = 64 | 1;             /* size 64, PREV_INUSE */
    char *big = malloc(2000);               /* malloc_consolidate */
    (void)big;
    return 0;
}
