/* expect: signal=SIGABRT token=heap-corruption check=CG_CHECK_UNLINK id=UNSORTED_LINKS addr=printed */
/* glibc: malloc(): unsorted double linked list corrupted */
/*
 * b, a freed 2000-byte chunk, is alone in the unsorted bin between two
 * live blocks; a use-after-free write points its fd at the chunk of the
 * live guard block: inside the heap, but not the bin.  The next request
 * the bins cannot serve takes b off the unsorted bin, and must see that
 * its links are not those of the bin's last chunk.
 */
#include "case.h"

int main(void)
{
    struct case_three t = case_unsorted_middle();
    ((char **)t.b)[0] = t.guard - 16;    /* fd */
    case_print_addr(t.b);
    char *c = malloc(3000);
    (void)c;
    return 0;
}
