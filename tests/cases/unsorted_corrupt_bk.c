/* expect: signal=SIGABRT token=heap-corruption check=CG_CHECK_UNLINK id=UNSORTED_BK */
/* glibc: malloc(): unsorted double linked list corrupted */
/*
 * b, a freed 2000-byte chunk, sits in the unsorted bin between two live
 * blocks; a use-after-free write replaces its bk with a fake, readable
 * list node outside the heap (a zeroed global).  The next request the
 * bins cannot serve takes b off the unsorted bin, and must check its bk
 * before it writes through it.
 */
#include "case.h"

static size_t fake_node[8];   /* fd/bk of a chunk are words 2 and 3 */

int main(void)
{
    struct case_three t = case_unsorted_middle();
    ((size_t **)t.b)[1] = fake_node;   /* bk */
    char *c = malloc(3000);
    (void)c;
    return 0;
}
