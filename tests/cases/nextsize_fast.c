/* expect: signal=SIGABRT token=heap-corruption check=CG_CHECK_NEXT_SIZE id=NEXT_SIZE_FAST */
/* glibc: free(): invalid next size (fast) */
/*
 * As nextsize_normal, but the block is a 24-byte one freed while its tcache
 * bin is full, so it takes the fastbin path, which has its own next-size
 * check.
 */
#include "case.h"

int main(void)
{
    char *a = malloc(24);
    char *b = malloc(24);
    char *guard = malloc(24);
    case_fill_tcache(24);
    *case_next_size_field(a) = 0 | 1;
    free(a);
    (void)b;
    (void)guard;
    return 0;
}
