/* expect: signal=SIGABRT token=heap-corruption check=CG_CHECK_FREE_SIZE id=BAD_SIZE */
/* glibc: free(): invalid size */
/*
 * The size word of a live 48-byte chunk is overwritten with 40: large
 * enough, but not a multiple of 16, so no real chunk can have it.
 */
#include "case.h"

int main(void)
{
    char *a = malloc(40);
    char *guard = malloc(24);
    ((size_t *)a)[-1] = 40 | 1;
    free(a);
    (void)guard;
    return 0;
}
