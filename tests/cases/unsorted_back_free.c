/* expect: signal=SIGABRT token=heap-corruption check=CG_CHECK_UNLINK id=UNSORTED_BACK_FREE addr=printed */
/* glibc: free(): corrupted unsorted chunks */
/*
 * b, a freed 2000-byte chunk, is the first chunk of the unsorted bin; a
 * use-after-free write points its bk at the chunk of a live block (inside
 * the heap, but not the bin).  Freeing d, another 2000-byte block that
 * borders no free chunk, puts d at the front of the unsorted bin: the
 * first chunk must point back at the bin before d is linked in front of
 * it.
 */
#include "case.h"

int main(void)
{
    char *b = malloc(2000);
    char *g1 = malloc(2000);
    char *d = malloc(2000);
    char *g2 = malloc(2000);
    free(b);
    ((char **)b)[1] = g1 - 16;       /* bk */
    case_print_addr(b);
    free(d);
    (void)g2;
    return 0;
}
