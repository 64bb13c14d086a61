/* expect: signal=SIGABRT token=heap-corruption check=CG_CHECK_UNLINK id=TRIM_LINK */
/* glibc: none */
/*
 * b, a freed 2000-byte chunk, sits in the unsorted bin between two live
 * blocks.  A use-after-free write points its fd at a fake list node
 * outside the heap (a global) whose bk points back at b, as a forged node
 * would.  malloc_trim(0) walks every bin along the fd links to give free
 * pages back, and must check the link before it follows it.  (glibc's
 * malloc_trim walks the bins along the bk links and reads only sizes.)
 */
#include "case.h"

static size_t fake_node[8];   /* fd/bk of a chunk are words 2 and 3 */

int main(void)
{
    struct case_three t = case_unsorted_middle();
    fake_node[3] = (size_t)(t.b - 16);  /* the fake node's bk: b's chunk */
    ((size_t **)t.b)[0] = fake_node;    /* b's fd */
    malloc_trim(0);
    return 0;
}
