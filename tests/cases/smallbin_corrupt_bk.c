/* expect: signal=SIGABRT token=heap-corruption check=CG_CHECK_UNLINK id=SMALLBIN_LINK */
/* glibc: malloc(): smallbin double linked list corrupted */
/*
 * A 144-byte chunk (beyond the fastbins; its tcache bin full) is freed and
 * sorted into its small bin by a 2000-byte request.  A use-after-free
 * write replaces its bk with a fake, readable list node outside the heap
 * (a zeroed global).  With the tcache bin drained, malloc(136) takes the
 * chunk from the small bin, and must check the bk it is about to make the
 * bin's last link.
 */
#include "case.h"

static size_t fake_node[8];   /* fd/bk of a chunk are words 2 and 3 */

int main(void)
{
    struct case_smallbin s = case_smallbin_one();
    ((size_t **)s.a)[1] = fake_node;  /* bk */
    case_drain_tcache(136);
    char *b = malloc(136);            /* from the small bin */
    (void)b;
    return 0;
}
