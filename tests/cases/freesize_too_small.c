/* expect: signal=SIGABRT token=heap-corruption check=CG_CHECK_FREE_SIZE id=BAD_SIZE */
/* glibc: free(): invalid size */
/*
 * An underflow overwrites a live block's own size word with 16 (below the
 * 32-byte minimum chunk), then the block is freed.  The size is checked
 * before the tcache sees the chunk.
 */
#include "case.h"

int main(void)
{
    char *a = malloc(24);
    char *guard = malloc(24);
    ((size_t *)a)[-1] = 16 | 1;
    free(a);
    (void)guard;
    return 0;
}
