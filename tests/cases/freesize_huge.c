/* expect: signal=SIGABRT token=heap-corruption check=CG_CHECK_FREE_SIZE id=BAD_SIZE */
/* glibc: free(): invalid pointer */
/*
 * The size word of a live block becomes a huge value (aligned, PREV_INUSE
 * set, IS_MMAPPED clear): the chunk would reach past the end of the address
 * space, so it cannot lie inside its heap.
 */
#include "case.h"

int main(void)
{
    char *a = malloc(24);
    char *guard = malloc(24);
    ((size_t *)a)[-1] = (size_t)0xfffffffffffff000ull | 1;
    free(a);
    (void)guard;
    return 0;
}
