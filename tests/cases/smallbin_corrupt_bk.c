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
    char *a = malloc(136);
    char *guard = malloc(136);
    case_fill_tcache(136);
    free(a);                          /* unsorted bin */
    char *big = malloc(2000);         /* sorts a into its small bin */
    ((size_t **)a)[1] = fake_node;    /* bk */
    case_drain_tcache(136);
    char *b = malloc(136);            /* from the small bin */
    (void)guard;
    (void)big;
    (void)b;
    return 0;
}
